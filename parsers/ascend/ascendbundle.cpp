// SPDX-License-Identifier: MIT
#include "parsers/ascend/ascendbundle.h"

#include "parsers/ascenddb/ascenddbreader.h"

#include <algorithm>
#include <map>

namespace timesink::parsers {

namespace {

bool startsWith(const std::string& s, std::string_view prefix)
{
    return s.rfind(prefix, 0) == 0;
}
bool endsWith(const std::string& s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// msprof_slice_3_2023.json → 3; everything else (unsliced) → -1, so slices sort by their number.
long sliceNumber(const std::string& name)
{
    const auto pos = name.find("_slice_");
    if (pos == std::string::npos)
        return -1;
    long n = 0;
    bool any = false;
    for (std::size_t i = pos + 7; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i) {
        n = n * 10 + (name[i] - '0');
        any = true;
        if (n > 1000000)
            break;
    }
    return any ? n : -1;
}

void sortSlices(std::vector<std::filesystem::path>& files)
{
    std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
        const long na = sliceNumber(a.filename().string());
        const long nb = sliceNumber(b.filename().string());
        return na != nb ? na < nb : a < b;
    });
}

/// The rank folder (…_ascend_pt) or PROF_ folder a relative path belongs to, for choosing one run.
std::string runFolder(const std::filesystem::path& rel)
{
    for (const auto& part : rel) {
        std::string p = part.string();
        if (endsWith(p, "_ascend_pt") || endsWith(p, "_ascend_ms") || startsWith(p, "PROF_"))
            return p;
    }
    return {};
}

} // namespace

bool isDeviceInfoName(const std::filesystem::path& relative)
{
    const std::string name = relative.filename().string();
    const std::string parent = relative.parent_path().filename().string();
    const auto digits = [](std::string_view s) {
        return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    const bool infoName = name == "info.json" || (startsWith(name, "info.json.") && digits(name.substr(10)));
    return infoName && startsWith(parent, "device_") && digits(std::string_view(parent).substr(7));
}

std::string ascendFileRole(const std::filesystem::path& relative)
{
    const std::string name = relative.filename().string();
    if (name == "trace_view.json" || name == "trace_view.json.gz")
        return "trace_view";
    if (startsWith(name, "msprof_") && !startsWith(name, "msprof_tx")
        && (endsWith(name, ".json") || endsWith(name, ".json.gz")))
        return "msprof_json";
    if (name == "kernel_details.csv")
        return "kernel_details";
    if (startsWith(name, "op_summary") && endsWith(name, ".csv"))
        return "op_summary";
    if (startsWith(name, "task_time") && endsWith(name, ".csv"))
        return "task_time";
    if (startsWith(name, "op_statistic") && endsWith(name, ".csv"))
        return "op_statistic";
    if (startsWith(name, "api_statistic") && endsWith(name, ".csv"))
        return "api_statistic";
    if (name == "step_trace_time.csv")
        return "step_trace_time";
    if (isAscendDbName(relative))
        return "database";
    if (startsWith(name, "profiler_info") && endsWith(name, ".json"))
        return "profiler_info";
    return {};
}

std::string ascendCsvRoleFromHeader(std::string_view head)
{
    const std::string_view line = head.substr(0, head.find('\n'));
    auto has = [&](std::string_view w) { return line.find(w) != std::string_view::npos; };
    if (has("Accelerator Core") && has("Start Time"))
        return "kernel_details";
    if (has("Op Name") && has("Task Start Time"))
        return "op_summary";
    if (has("kernel_type") && has("task_start"))
        return "task_time";
    if (has("OP Type") && has("Core Type") && has("Count"))
        return "op_statistic";
    if (has("API Name") && has("Level"))
        return "api_statistic";
    if (has("Step") && has("Computing") && has("Free"))
        return "step_trace_time";
    return {};
}

bool AscendBundle::isTorchNpu() const
{
    if (!traceView.empty() || !kernelDetails.empty() || !profilerInfo.empty())
        return true;
    return database.filename().string().rfind("ascend_pytorch_profiler", 0) == 0;
}

AscendBundle collectAscendBundle(const std::filesystem::path& root, bool isDirectory,
                                 const std::vector<std::filesystem::path>& entries)
{
    AscendBundle b;
    b.root = root;
    std::vector<std::filesystem::path> files;
    if (isDirectory) {
        files = entries;
    } else {
        files.push_back(root.filename());
    }
    const std::filesystem::path base = isDirectory ? root : root.parent_path();

    // Several runs under one folder (all ranks of a job): import the first, say so.
    std::map<std::string, int> runs;
    for (const auto& rel : files) {
        if (!ascendFileRole(rel).empty())
            runs[runFolder(rel)]++;
    }
    std::string chosenRun;
    if (runs.size() > 1) {
        // Prefer a torch_npu rank folder (it holds the merged view) over a plain msprof PROF_ folder, then the
        // first by name. The runs left out are named in the note, so the user knows what was imported.
        std::vector<std::string> named;
        for (const auto& [run, count] : runs) {
            (void)count;
            if (!run.empty())
                named.push_back(run);
        }
        for (const std::string& run : named) {
            if (chosenRun.empty() && (endsWith(run, "_ascend_pt") || endsWith(run, "_ascend_ms")))
                chosenRun = run;
        }
        if (chosenRun.empty() && !named.empty())
            chosenRun = named.front();
        if (named.size() > 1) {
            std::string others;
            for (const std::string& run : named) {
                if (run != chosenRun)
                    others += (others.empty() ? "" : ", ") + run;
            }
            b.notes.push_back(std::to_string(named.size()) + " profiler runs found under " + root.string()
                              + "; imported " + chosenRun + "; not imported: " + others + " (open them separately)");
        }
    }
    // torch_npu keeps the raw msprof output (PROF_*/) next to its merged view, inside the same run; the merged
    // view wins there. A PROF_ folder that is a run of its own is never skipped for another run's merged view.
    const bool hasMergedOutput = std::any_of(files.begin(), files.end(), [&](const auto& rel) {
        if (runs.size() > 1 && runFolder(rel) != chosenRun)
            return false;
        for (const auto& part : rel) {
            if (part == "ASCEND_PROFILER_OUTPUT")
                return true;
        }
        return false;
    });

    for (const auto& rel : files) {
        const std::string role = ascendFileRole(rel);
        // memory_record.csv only adds counters to a bundle; it is no file role of its own (a folder holding
        // nothing else is not an Ascend output).
        if (role.empty() && isDirectory && rel.filename() == "memory_record.csv"
            && (runs.size() <= 1 || runFolder(rel) == chosenRun) && b.memoryRecord.empty())
            b.memoryRecord = base / rel;
        bool inRawProf = false;
        for (const auto& part : rel) {
            if (part.string().rfind("PROF_", 0) == 0)
                inRawProf = true;
        }
        // communication.json, likewise, only adds figures to the HCCL operations of the chosen run's timeline
        // (the merged view's copy when the raw PROF_ output has one too).
        if (role.empty() && isDirectory && rel.filename() == "communication.json"
            && (runs.size() <= 1 || runFolder(rel) == chosenRun) && !(hasMergedOutput && inRawProf)
            && b.communication.empty())
            b.communication = base / rel;
        if (role.empty() && isDirectory && rel.filename() == "communication_matrix.json"
            && (runs.size() <= 1 || runFolder(rel) == chosenRun) && !(hasMergedOutput && inRawProf)
            && b.communicationMatrix.empty())
            b.communicationMatrix = base / rel;
        // info.json likewise only adds the device's facts (msprof keeps it in the raw PROF_*/device_N/ output,
        // also inside a torch_npu rank folder): the first one of the chosen run.
        if (role.empty() && isDirectory && isDeviceInfoName(rel) && (runs.size() <= 1 || runFolder(rel) == chosenRun)
            && b.deviceInfo.empty())
            b.deviceInfo = base / rel;
        if (role.empty())
            continue;
        if (runs.size() > 1 && runFolder(rel) != chosenRun)
            continue;
        if (hasMergedOutput && inRawProf)
            continue;
        const std::filesystem::path full = isDirectory ? base / rel : root;
        auto setOnce = [&](std::filesystem::path& slot) {
            if (slot.empty())
                slot = full;
        };
        if (role == "trace_view")
            setOnce(b.traceView);
        else if (role == "msprof_json")
            b.msprofJson.push_back(full);
        else if (role == "kernel_details")
            setOnce(b.kernelDetails);
        else if (role == "op_summary")
            b.opSummary.push_back(full);
        else if (role == "task_time")
            b.taskTime.push_back(full);
        else if (role == "op_statistic")
            setOnce(b.opStatistic);
        else if (role == "api_statistic")
            setOnce(b.apiStatistic);
        else if (role == "step_trace_time")
            setOnce(b.stepTraceTime);
        else if (role == "database")
            setOnce(b.database);
        else if (role == "profiler_info")
            setOnce(b.profilerInfo);
    }
    sortSlices(b.msprofJson);
    sortSlices(b.opSummary);
    sortSlices(b.taskTime);
    return b;
}

} // namespace timesink::parsers
