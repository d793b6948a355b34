// SPDX-License-Identifier: MIT
#include "parsers/ascend/ascendimporter.h"

#include "model/tracebuilder.h"
#include "parsers/ascend/ascendbundle.h"
#include "parsers/ascend/ascendcommunication.h"
#include "parsers/ascend/ascendkernelargs.h"
#include "parsers/ascend/ascendtimeline.h"
#include "parsers/ascendcommon/ascendtasktype.h"
#include "parsers/ascendcommon/ascendtracks.h"
#include "parsers/ascendcsv/ascendcsvtables.h"
#include "parsers/ascenddb/ascenddbreader.h"
#include "parsers/common/regularfile.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

namespace timesink::parsers {

using model::Arg;
using model::ArgValue;
using model::SliceCategory;
using model::SliceInput;
using model::TimeNs;

namespace {

constexpr std::string_view kSqliteMagic {"SQLite format 3\0", 16};

/// trace_view.json / msprof_*.json: a bare array whose `ts` are strings (Kineto writes numbers and a wrapper
/// object). Process names come late in these files, so the string ts is the telling mark in the first 64 KB.
bool headHasAscendTimelineMarkers(std::string_view head)
{
    if (head.substr(0, 3) == "\xef\xbb\xbf")
        head.remove_prefix(3);
    const auto first = head.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos || head[first] != '[')
        return false;
    return head.find("\"ts\": \"") != std::string_view::npos || head.find("\"ts\":\"") != std::string_view::npos;
}

/// Calls and total time per group of a statistics table (op_statistic by core type, api_statistic by level),
/// an empty group cell counted as "unknown": rows {AI_CORE 3 300 ns, AI_CORE 1 50 ns, "" 2 10 ns}
/// → {AI_CORE: (4, 350), unknown: (2, 10)}.
using CountAndTotal = std::pair<std::int64_t, TimeNs>;
template <typename Row>
std::map<std::string, CountAndTotal> sumByGroup(const std::vector<Row>& rows, std::string Row::*group)
{
    std::map<std::string, CountAndTotal> out;
    for (const Row& r : rows) {
        const std::string& g = r.*group;
        CountAndTotal& slot = out[g.empty() ? "unknown" : g];
        slot.first += r.count;
        slot.second += r.total;
    }
    return out;
}

/// One trace property per group: "<prefix>.AI_CORE" = "count=4 total_ns=350".
void addCountAndTotalProperties(model::TraceMetadata& meta, std::string_view prefix,
                                const std::map<std::string, CountAndTotal>& groups)
{
    for (const auto& [group, v] : groups)
        meta.properties.emplace_back(std::string(prefix) + "." + group,
                                     "count=" + std::to_string(v.first) + " total_ns=" + std::to_string(v.second));
}

void forwardIssues(model::TraceBuilder& b, const CsvIssues& issues)
{
    for (const auto& i : issues.issues)
        b.warn(i.kind, i.message, i.count);
}

void readProfilerInfo(const std::filesystem::path& path, model::TraceBuilder& b)
{
    // A few KB of config; a DOM is fine here (capped, and only a regular file: it could be a FIFO).
    std::string text;
    std::string error;
    if (!readSmallRegularFile(path, 16ULL << 20, "profiler info", text, error)) {
        b.warn(model::ImportWarningKind::ProfilerInfoUnreadable, error);
        return;
    }
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        b.warn(model::ImportWarningKind::ProfilerInfoUnreadable,
               path.string() + " is not a JSON object; rank and profiler level unknown");
        return;
    }
    auto& meta = b.metadata();
    if (auto it = j.find("rank_id"); it != j.end() && it->is_number_integer()) {
        const auto rank = it->get<std::int64_t>();
        if (rank >= 0 && rank < (1 << 30))
            meta.rank = static_cast<std::int32_t>(rank);
    }
    const nlohmann::json* experimental = nullptr;
    if (auto c = j.find("config"); c != j.end() && c->is_object()) {
        if (auto e = c->find("experimental_config"); e != c->end() && e->is_object())
            experimental = &*e;
    }
    if (experimental) {
        auto str = [&](const char* key) -> std::string {
            auto it = experimental->find(key);
            return it != experimental->end() && it->is_string() ? it->get<std::string>() : std::string {};
        };
        if (std::string level = str("_profiler_level"); !level.empty())
            meta.profilerLevel = level;
        if (std::string aic = str("_aic_metrics"); !aic.empty())
            meta.properties.emplace_back("aic_metrics", aic);
        if (std::string exportType = str("_export_type"); !exportType.empty())
            meta.properties.emplace_back("export_type", exportType);
    }
    if (auto e = j.find("end_info"); e != j.end() && e->is_object()) {
        if (auto t = e->find("collectionTimeEnd"); t != e->end() && t->is_number_integer())
            meta.properties.emplace_back("collection_end_ns", std::to_string(t->get<std::int64_t>()));
    }
}

/// msprof's PROF_*/device_N/info.json.N: DeviceInfo[0]'s ai_core_num and aic_frequency (MHz, a string or a
/// number), the facts msprof-analyze's operator_mfu computes the chip's peak from. They go to the device of that
/// index (else the only Ascend device); a file that does not read, or says neither, is a warning and adds nothing.
void readDeviceInfo(const std::filesystem::path& path, model::TraceBuilder& b)
{
    std::string text;
    std::string error;
    if (!readSmallRegularFile(path, 16ULL << 20, "device info", text, error)) {
        b.warn(model::ImportWarningKind::DeviceInfoUnreadable, error);
        return;
    }
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    const nlohmann::json* info = nullptr;
    if (!j.is_discarded() && j.is_object()) {
        if (auto d = j.find("DeviceInfo"); d != j.end() && d->is_array() && !d->empty() && d->front().is_object())
            info = &d->front();
    }
    const auto number = [&](const char* key) -> double {
        if (!info)
            return 0.0;
        const auto it = info->find(key);
        if (it == info->end())
            return 0.0;
        double v = 0.0;
        if (it->is_number()) {
            v = it->get<double>();
        } else if (it->is_string()) {
            const std::string& s = it->get_ref<const std::string&>();
            const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
            if (ec != std::errc() || ptr != s.data() + s.size())
                return 0.0;
        }
        return std::isfinite(v) && v > 0.0 ? v : 0.0;
    };
    const double cores = number("ai_core_num");
    const double clock = number("aic_frequency");
    if (cores <= 0.0 && clock <= 0.0) {
        b.warn(model::ImportWarningKind::DeviceInfoUnreadable,
               path.string()
                   + " names neither ai_core_num nor aic_frequency in DeviceInfo; the chip's peak is "
                     "not known from it");
        return;
    }
    const auto id = static_cast<std::int32_t>(number("id"));
    model::Device* target = nullptr;
    int npus = 0;
    for (model::Device& d : b.metadata().devices) {
        if (d.kind != model::DeviceKind::Npu)
            continue;
        ++npus;
        if (!target || (d.index == id && target->index != id))
            target = &d;
    }
    if (!target)
        return;
    std::string said;
    if (cores > 0.0 && cores < 4096.0) {
        target->aiCores = static_cast<std::int32_t>(cores);
        said = "ai_core_num " + std::to_string(target->aiCores);
    }
    if (clock > 0.0 && clock < 1e5) {
        target->aiCoreClockMHz = clock; // the nominal clock: it wins over the AICORE_FREQ samples
        said
            += (said.empty() ? "" : ", ") + std::string("aic_frequency ") + std::to_string(std::lround(clock)) + " MHz";
    }
    target->computeSource = path.parent_path().filename().string() + "/" + path.filename().string() + " (" + said
        + (npus > 1 ? ", device " + std::to_string(target->index) : std::string()) + ")";
}

std::string fileName(const std::filesystem::path& p)
{
    return p.filename().string();
}

/// Device tasks from the CSV tables alone (no timeline): kernel_details/op_summary rows, or task_time rows
/// joined with op_summary for op type and core type.
struct CsvTimelineCounts
{
    std::uint64_t tasks = 0;
    std::uint64_t fallback = 0;
    std::uint64_t steps = 0;
};

CsvTimelineCounts addCsvDeviceTasks(model::TraceBuilder& b, AscendTracks& tracks, const KernelTable& kernels,
                                    const TaskTimeTable& taskTime, std::int32_t defaultDevice)
{
    CsvTimelineCounts counts;
    // "Task Type" goes between the kernel keys, as it did before AscendKernelArgs existed: string ids double as
    // the Perfetto export's interning ids (exporters/perfettoexporter.cpp), so this order keeps exports identical.
    b.intern("OP Type");
    b.intern("Accelerator Core");
    const model::StringId keyTaskType = b.intern("Task Type");
    const AscendKernelArgs kernelArgs(b);
    const model::StringId keyTaskId = b.intern("Task Id");
    const model::StringId keyStep = b.intern("Step Id");
    std::map<std::tuple<std::int64_t, std::int64_t, TimeNs>, const KernelRow*> byTask;
    for (const KernelRow& k : kernels.rows)
        byTask.emplace(std::make_tuple(k.streamId, k.taskId, k.start), &k);
    std::map<std::int64_t, std::pair<TimeNs, TimeNs>> stepBounds;

    auto add = [&](std::int32_t device, std::int64_t stream, std::int64_t taskId, std::string_view name,
                   std::string_view taskType, const KernelRow* k, TimeNs ts, TimeNs dur) {
        const std::string_view core = k ? std::string_view(k->coreType) : std::string_view {};
        const std::string_view type = taskType.empty() && core.empty() ? std::string_view("Other") : taskType;
        AscendTaskClass cls = classifyAscendTask(type, core, name);
        if (core.empty() && name.substr(0, 5) == "hcom_")
            cls.category = SliceCategory::Communication;
        SliceInput s;
        s.ts = ts;
        s.dur = dur;
        s.name = b.intern(name);
        s.category = cls.category;
        s.rawCategory = b.intern(!taskType.empty() ? taskType : core);
        if (cls.category == SliceCategory::Memcpy)
            s.setMemcpy(cls.direction, model::HostMemoryKind::Unknown);
        std::vector<Arg> args;
        if (!taskType.empty())
            args.push_back(Arg {keyTaskType, ArgValue::fromString(b.intern(taskType))});
        if (k) {
            kernelArgs.append(*k, args);
            if (k->stepId >= 0)
                args.push_back(Arg {keyStep, ArgValue::fromInt(k->stepId)});
        }
        if (taskId >= 0)
            args.push_back(Arg {keyTaskId, ArgValue::fromInt(taskId)});
        s.args = b.addArgs(args);
        const bool communication = cls.category == SliceCategory::Communication && stream < 0;
        const model::TrackId track
            = communication ? tracks.communication(device, "Group Communication") : tracks.deviceStream(device, stream);
        if (!b.addSlice(track, s).isValid())
            return; // outside the representable time range: counted by the builder
        ++counts.tasks;
        if (cls.category == SliceCategory::FallbackOp)
            ++counts.fallback;
        if (k && k->stepId >= 0) {
            auto [it, inserted] = stepBounds.emplace(k->stepId, std::make_pair(ts, ts + dur));
            if (!inserted) {
                it->second.first = std::min(it->second.first, ts);
                it->second.second = std::max(it->second.second, ts + dur);
            }
        }
    };

    if (!taskTime.rows.empty()) {
        for (const TaskTimeRow& t : taskTime.rows) {
            const KernelRow* k = nullptr;
            if (auto it = byTask.find({t.streamId, t.taskId, t.start}); it != byTask.end())
                k = it->second;
            const std::int32_t device = t.deviceId >= 0 ? t.deviceId : defaultDevice;
            add(device, t.streamId, t.taskId, t.name.empty() ? t.taskType : t.name, t.taskType, k, t.start, t.duration);
        }
    } else {
        for (const KernelRow& k : kernels.rows) {
            const std::int32_t device = k.deviceId >= 0 ? k.deviceId : defaultDevice;
            add(device, k.streamId, k.taskId, k.name, {}, &k, k.start, k.duration);
        }
    }
    for (const auto& [step, bounds] : stepBounds) {
        b.addStep(step, b.intern("Step " + std::to_string(step)), bounds.first, bounds.second);
        ++counts.steps;
    }
    return counts;
}

/// How building the timeline ended: built, failed (with the result to return), or to be read again from the start
/// because process names arrived after events they contradict (`names` then holds every name, for the replay).
struct TimelineOutcome
{
    enum class Kind { Built, Failed, Replay };
    Kind kind = Kind::Built;
    model::Status failure;
    AscendTimeline::ProcessNames names;

    static TimelineOutcome built() { return {}; }
    static TimelineOutcome failed(model::Status s) { return {Kind::Failed, std::move(s), {}}; }
    static TimelineOutcome replay(AscendTimeline::ProcessNames n) { return {Kind::Replay, {}, std::move(n)}; }
};

/// One import of a collected bundle into a fresh builder, in three acts: readTables (the CSV tables the timeline
/// joins), buildTimeline (from the database, the text timeline or the CSV tables alone) and finishTrace
/// (cross-checks, summary tables, finalize). What the acts hand on to each other lives here.
struct BundleImport
{
    BundleImport(const SourceProbe& s, const AscendBundle& bu, const ImportOptions& o, ProgressSink& p)
        : source(s)
        , bundle(bu)
        , options(o)
        , progress(p)
    {
    }

    const SourceProbe& source;
    const AscendBundle& bundle;
    const ImportOptions& options;
    ProgressSink& progress;
    model::TraceBuilder b;
    AscendTracks tracks {b};

    // Act 1: the kernel and task tables, and the device they name.
    KernelTable kernels;
    std::string kernelFiles;
    TaskTimeTable taskTime;
    std::int32_t device = 0;

    // Act 2: where the timeline came from and what it holds.
    std::string timelineSource;
    std::uint64_t deviceTasks = 0;
    std::uint64_t fallbackTasks = 0;
    std::vector<std::int64_t> timelineSteps;
    bool joinedKernels = false;
    std::uint64_t matchedKernelRows = 0;

    [[nodiscard]] model::Status cancelled() const
    {
        return {model::StatusKind::Cancelled, "import of " + source.path.string() + " cancelled"};
    }

    /// Act 1. A failure only when cancelled: unreadable tables are warnings.
    model::Status readTables();
    /// Act 2. `knownNames` is null on the first read, every process name on a replay (which never asks for
    /// another).
    TimelineOutcome buildTimeline(const AscendTimeline::ProcessNames* knownNames);
    /// Act 3.
    ImportResult finishTrace();
};

} // namespace

FormatDescription AscendImporter::describe() const
{
    return {"a Huawei Ascend torch_npu or msprof output (folder, timeline JSON, CSV tables or SQLite database)",
            {"*.json", "*.json.gz", "*.csv", "*.db"},
            {"*_ascend_pt", "PROF_*"},
            {"torch_npu", "torch_npu-db", "msprof", "msprof-db"}};
}

int AscendImporter::probe(const SourceProbe& source) const
{
    if (source.isDirectory) {
        int roles = 0;
        bool strong = false;
        for (const auto& rel : source.entries) {
            const std::string role = ascendFileRole(rel);
            if (role.empty())
                continue;
            ++roles;
            strong = strong || role == "trace_view" || role == "kernel_details" || role == "database"
                || role == "op_summary" || role == "msprof_json" || role == "task_time";
        }
        if (strong)
            return 90;
        return roles > 0 ? 40 : 0;
    }
    std::string role = ascendFileRole(source.path.filename());
    const std::string_view head = source.head;
    if (role.empty())
        role = ascendCsvRoleFromHeader(head);
    if (head.substr(0, kSqliteMagic.size()) == kSqliteMagic)
        return role == "database" ? 95 : 50; // any other SQLite file: checked for msprof tables on import
    if (role == "database")
        return 20; // named like an msprof export but not SQLite: claim it to say so clearly
    if (role == "kernel_details" || role == "op_summary" || role == "task_time")
        return 90;
    if (headHasAscendTimelineMarkers(head))
        return role.empty() ? 85 : 95; // above a generic Chrome/Kineto guess
    if (role == "trace_view" || role == "msprof_json")
        return 60; // a Chrome-like array by name; the Chrome/Kineto importer may be more certain
    return 0;
}

ImportResult AscendImporter::import(const SourceProbe& source, const ImportOptions& options, ProgressSink& progress)
{
    AscendBundle bundle = collectAscendBundle(source.path, source.isDirectory, source.entries);
    if (!source.isDirectory && bundle.empty()) {
        // A single SQLite file with another name, or a JSON timeline with another name.
        const std::string_view head = source.head;
        const std::string csvRole = ascendCsvRoleFromHeader(head);
        if (head.substr(0, kSqliteMagic.size()) == kSqliteMagic)
            bundle.database = source.path;
        else if (headHasAscendTimelineMarkers(head))
            bundle.msprofJson.push_back(source.path);
        else if (csvRole == "kernel_details")
            bundle.kernelDetails = source.path;
        else if (csvRole == "op_summary")
            bundle.opSummary.push_back(source.path);
        else if (csvRole == "task_time")
            bundle.taskTime.push_back(source.path);
    }
    if (bundle.empty()) {
        return model::Status(model::StatusKind::NotRecognised,
                             source.path.string()
                                 + ": no Ascend profiler output found (expected trace_view.json, "
                                   "kernel_details.csv, msprof_*.json, op_summary_*.csv or msprof_*.db)");
    }

    std::optional<AscendTimeline::ProcessNames> knownNames;
    for (;;) {
        BundleImport imp(source, bundle, options, progress);
        if (model::Status tables = imp.readTables(); !tables.ok())
            return tables;
        TimelineOutcome timeline = imp.buildTimeline(knownNames ? &*knownNames : nullptr);
        switch (timeline.kind) {
        case TimelineOutcome::Kind::Failed:
            return std::move(timeline.failure);
        case TimelineOutcome::Kind::Replay:
            // Process names arrived after events they contradict: read again with every name known up front (a
            // read with known names never asks for a replay, so this happens at most once).
            knownNames = std::move(timeline.names);
            continue;
        case TimelineOutcome::Kind::Built:
            break;
        }
        return imp.finishTrace();
    }
}

namespace {

model::Status BundleImport::readTables()
{
    auto& meta = b.metadata();
    meta.sourcePath = source.path.string();
    for (const std::string& note : bundle.notes)
        b.warn(model::ImportWarningKind::MultipleRuns, note);
    // Files of the folder that were left out because they are not regular files (or could not be listed).
    for (const std::string& problem : source.problems)
        b.warn(model::ImportWarningKind::NotRegularFile, problem);
    if (!bundle.profilerInfo.empty())
        readProfilerInfo(bundle.profilerInfo, b);

    // ---- CSV tables (read first: the timeline joins them) ----
    auto readKernels = [&](const std::filesystem::path& p) {
        KernelTable t = readKernelTable(p);
        forwardIssues(b, t.issues);
        if (!t.error.empty()) {
            b.warn(model::ImportWarningKind::CsvUnreadable, t.error);
            return;
        }
        kernelFiles += (kernelFiles.empty() ? "" : ", ") + fileName(p);
        kernels.hasTaskIds = kernels.hasTaskIds || t.hasTaskIds;
        kernels.hasCoreType = kernels.hasCoreType || t.hasCoreType;
        std::move(t.rows.begin(), t.rows.end(), std::back_inserter(kernels.rows));
    };
    if (!bundle.kernelDetails.empty())
        readKernels(bundle.kernelDetails);
    for (const auto& p : bundle.opSummary)
        readKernels(p);
    for (const auto& p : bundle.taskTime) {
        TaskTimeTable t = readTaskTime(p);
        forwardIssues(b, t.issues);
        if (!t.error.empty())
            b.warn(model::ImportWarningKind::CsvUnreadable, t.error);
        std::move(t.rows.begin(), t.rows.end(), std::back_inserter(taskTime.rows));
    }
    for (const KernelRow& k : kernels.rows) {
        if (k.deviceId >= 0) {
            device = k.deviceId;
            break;
        }
    }
    if (progress.cancelled())
        return cancelled();
    return {};
}

TimelineOutcome BundleImport::buildTimeline(const AscendTimeline::ProcessNames* knownNames)
{
    auto& meta = b.metadata();
    // ---- the timeline, from one source ----
    const bool torchNpu = bundle.isTorchNpu();
    bool timelineRead = false;

    if (!bundle.database.empty()) {
        AscendDbSummary db = readAscendDb(bundle.database, b, tracks, progress);
        if (db.status.cancelled())
            return TimelineOutcome::failed(db.status);
        if (db.ok()) {
            timelineRead = true;
            timelineSource = fileName(bundle.database);
            meta.format = db.torchNpu || torchNpu ? "torch_npu-db" : "msprof-db";
            meta.formatVersion = db.schemaVersion;
            if (bundle.hasTextTimeline()) {
                b.warn(
                    model::ImportWarningKind::ExportChoice,
                    source.path.string() + " holds both a database (" + fileName(bundle.database)
                        + ") and a text timeline ("
                        + (bundle.traceView.empty() ? fileName(bundle.msprofJson.front()) : fileName(bundle.traceView))
                        + "); imported the database only, so the two are not mixed");
            }
        } else if (bundle.hasTextTimeline() || bundle.hasDeviceCsv()) {
            b.warn(model::ImportWarningKind::DbUnreadable, db.status.message() + "; using the text export instead");
        } else {
            return TimelineOutcome::failed(db.status);
        }
    }
    if (!timelineRead && bundle.hasTextTimeline()) {
        AscendTimeline timeline(b, tracks, kernels.rows.empty() ? nullptr : &kernels, device, knownNames);
        CommunicationOpTable commOps;
        std::unique_ptr<CommunicationOpJoin> commJoin;
        if (!bundle.communication.empty()) {
            commOps = readCommunicationJson(bundle.communication);
            if (!commOps.error.empty())
                b.warn(model::ImportWarningKind::CommunicationJsonUnreadable, commOps.error);
            else if (!commOps.rows.empty())
                commJoin = std::make_unique<CommunicationOpJoin>(b, commOps);
            timeline.setCommunicationOps(commJoin.get());
        }
        if (!bundle.communicationMatrix.empty()) {
            const RankLinkTable links = readCommunicationMatrixJson(bundle.communicationMatrix);
            if (!links.error.empty())
                b.warn(model::ImportWarningKind::CommunicationJsonUnreadable, links.error);
            else if (links.skipped > 0)
                b.warn(model::ImportWarningKind::CommunicationJsonUnreadable,
                       fileName(bundle.communicationMatrix) + ": " + std::to_string(links.skipped)
                           + " rank-pair entries without a usable key, transport, size or time; skipped");
            model::mergeRankLinks(meta.rankLinks, links.rows);
        }
        std::vector<std::filesystem::path> files;
        if (!bundle.traceView.empty())
            files.push_back(bundle.traceView);
        else
            files = bundle.msprofJson;
        std::string failures;
        std::size_t readOk = 0;
        for (const auto& f : files) {
            chromejson::ChromeReadResult r = timeline.readFile(f, options, progress);
            if (r.status.cancelled())
                return TimelineOutcome::failed(r.status);
            if (!r.ok()) {
                failures += (failures.empty() ? "" : "; ") + r.status.message();
                if (r.events == 0)
                    continue;
                // Events before the damage are already in the builder: the file counts as partly read.
            }
            ++readOk;
        }
        if (timeline.needsReplay())
            return TimelineOutcome::replay(timeline.processNames());
        if (knownNames)
            meta.properties.emplace_back("timeline_passes", "2 (process names came after events they contradict)");
        if (readOk == 0 && !bundle.hasDeviceCsv())
            return TimelineOutcome::failed(model::Status(model::StatusKind::Malformed, failures));
        if (!failures.empty())
            b.warn(model::ImportWarningKind::TimelineUnreadable,
                   failures + (bundle.hasDeviceCsv() ? "; device tasks come from the CSV files" : ""));
        if (readOk > 0) {
            timeline.finish();
            timelineRead = true;
            if (commJoin) {
                meta.properties.emplace_back("communication_json",
                                             std::to_string(commJoin->matched()) + " of "
                                                 + std::to_string(commJoin->rows()) + " operations joined");
                if (commJoin->matched() < commJoin->rows() || commOps.skipped > 0)
                    b.warn(model::ImportWarningKind::CommunicationJsonUnmatched,
                           fileName(bundle.communication) + ": "
                               + std::to_string(commJoin->rows() - commJoin->matched() + commOps.skipped) + " of "
                               + std::to_string(commJoin->rows() + commOps.skipped)
                               + " operations have no HCCL operation in the timeline (or no usable start/wait); "
                                 "their wait is not used");
            }
            std::string names;
            for (const auto& f : files)
                names += (names.empty() ? "" : ", ") + fileName(f);
            timelineSource = names;
            deviceTasks = timeline.deviceTasks();
            fallbackTasks = timeline.fallbackTasks();
            timelineSteps = timeline.stepNumbers();
            joinedKernels = !kernels.rows.empty();
            matchedKernelRows = timeline.matchedKernelRows();
            meta.format = torchNpu ? "torch_npu" : "msprof";
            if (files.size() > 1)
                meta.properties.emplace_back("timeline_slices", std::to_string(files.size()));
        }
    }
    if (!timelineRead && (!kernels.rows.empty() || !taskTime.rows.empty())) {
        const CsvTimelineCounts c = addCsvDeviceTasks(b, tracks, kernels, taskTime, device);
        timelineRead = true;
        deviceTasks = c.tasks;
        fallbackTasks = c.fallback;
        timelineSource = taskTime.rows.empty() ? kernelFiles : fileName(bundle.taskTime.front());
        meta.format = torchNpu ? "torch_npu" : "msprof";
        b.warn(model::ImportWarningKind::NoTimeline,
               source.path.string()
                   + ": no timeline (trace_view.json / msprof_*.json / database) was found; device "
                     "tasks come from "
                   + timelineSource + " and there are no host events or flows");
        if (c.steps > 0)
            meta.properties.emplace_back("steps_source", "Step Id column of " + kernelFiles);
    }
    if (!timelineRead) {
        return TimelineOutcome::failed(
            model::Status(model::StatusKind::Malformed,
                          source.path.string()
                              + ": only summary tables were found (op_statistic / step_trace_time); "
                                "expected a timeline, a database, or kernel_details / op_summary CSV"));
    }
    meta.properties.emplace_back("timeline_source", timelineSource);
    if (!kernelFiles.empty())
        meta.properties.emplace_back("kernel_table", kernelFiles);
    return TimelineOutcome::built();
}

ImportResult BundleImport::finishTrace()
{
    auto& meta = b.metadata();
    const bool torchNpu = bundle.isTorchNpu();

    // ---- joins and cross-checks ----
    if (joinedKernels && !kernels.rows.empty()) {
        const std::uint64_t unmatched = kernels.rows.size() - matchedKernelRows;
        meta.properties.emplace_back("kernel_rows_joined",
                                     std::to_string(matchedKernelRows) + "/" + std::to_string(kernels.rows.size()));
        if (unmatched > 0) {
            b.warn(model::ImportWarningKind::CsvTimelineMismatch,
                   kernelFiles + ": " + std::to_string(unmatched) + " of " + std::to_string(kernels.rows.size())
                       + " rows have no device task with the same start and name in " + timelineSource
                       + " (different runs, or a cut timeline)",
                   unmatched);
        }
    }
    if (!bundle.opStatistic.empty()) {
        OpStatisticTable stats = readOpStatistic(bundle.opStatistic);
        forwardIssues(b, stats.issues);
        if (!stats.error.empty()) {
            b.warn(model::ImportWarningKind::CsvUnreadable, stats.error);
        } else {
            const auto byCore = sumByGroup(stats.rows, &OpStatisticRow::coreType);
            addCountAndTotalProperties(meta, "op_statistic", byCore);
            // op_statistic is an aggregate of the kernel table: their counts per core type must agree.
            if (!kernels.rows.empty() && kernels.hasCoreType) {
                std::map<std::string, std::int64_t> rowsByCore;
                for (const auto& k : kernels.rows)
                    rowsByCore[k.coreType.empty() ? "unknown" : k.coreType]++;
                for (const auto& [core, v] : byCore) {
                    const std::int64_t rows = rowsByCore.count(core) ? rowsByCore[core] : 0;
                    if (rows != v.first) {
                        b.warn(model::ImportWarningKind::OpStatisticMismatch,
                               fileName(bundle.opStatistic) + " counts " + std::to_string(v.first) + " " + core
                                   + " tasks but " + kernelFiles + " has " + std::to_string(rows));
                    }
                }
            }
            const auto cpu = byCore.find("AI_CPU");
            const std::int64_t statCpu = cpu == byCore.end() ? 0 : cpu->second.first;
            if (joinedKernels && deviceTasks > 0 && static_cast<std::uint64_t>(statCpu) != fallbackTasks) {
                b.warn(model::ImportWarningKind::OpStatisticMismatch,
                       fileName(bundle.opStatistic) + " counts " + std::to_string(statCpu)
                           + " AI_CPU tasks but the timeline has " + std::to_string(fallbackTasks));
            }
        }
    }
    if (!bundle.stepTraceTime.empty()) {
        StepTraceTable st = readStepTraceTime(bundle.stepTraceTime);
        forwardIssues(b, st.issues);
        if (!st.error.empty()) {
            b.warn(model::ImportWarningKind::CsvUnreadable, st.error);
        } else {
            for (const auto& r : st.rows) {
                std::string v = "computing_ns=" + std::to_string(r.computing) + " communication_not_overlapped_ns="
                    + std::to_string(r.communicationNotOverlapped) + " free_ns=" + std::to_string(r.free);
                if (r.preparing >= 0)
                    v += " preparing_ns=" + std::to_string(r.preparing);
                meta.properties.emplace_back("step_trace_time.step" + (r.step.empty() ? std::string("?") : r.step), v);
                if (!timelineSteps.empty() && !r.step.empty()) {
                    const bool known = std::any_of(timelineSteps.begin(), timelineSteps.end(),
                                                   [&](std::int64_t n) { return std::to_string(n) == r.step; });
                    if (!known) {
                        b.warn(model::ImportWarningKind::StepTraceMismatch,
                               fileName(bundle.stepTraceTime) + " lists step " + r.step + " but " + timelineSource
                                   + " has no ProfilerStep#" + r.step);
                    }
                }
            }
        }
    }
    if (!bundle.apiStatistic.empty()) {
        ApiStatisticTable api = readApiStatistic(bundle.apiStatistic);
        forwardIssues(b, api.issues);
        if (!api.error.empty()) {
            b.warn(model::ImportWarningKind::CsvUnreadable, api.error);
        } else {
            addCountAndTotalProperties(meta, "api_statistic", sumByGroup(api.rows, &ApiStatisticRow::level));
        }
    }

    if (!bundle.memoryRecord.empty()) {
        // The caching allocator's own view (PTA = the framework), as Kineto's [memory] counters give it on GPUs:
        // the memory_pressure analysis and the timeline's counter rows read these.
        MemoryRecordTable mem = readMemoryRecord(bundle.memoryRecord);
        forwardIssues(b, mem.issues);
        if (!mem.error.empty()) {
            b.warn(model::ImportWarningKind::CsvUnreadable, mem.error);
        } else {
            for (const MemoryRecordRow& r : mem.rows) {
                if (r.component != "PTA")
                    continue;
                const std::int32_t dev = r.device >= 0 ? r.device : device;
                if (r.allocatedMb)
                    b.addCounterSample(tracks.counter("NPU MEM", "PTA/Allocated (MB)", dev), r.ts, *r.allocatedMb);
                if (r.reservedMb)
                    b.addCounterSample(tracks.counter("NPU MEM", "PTA/Reserved (MB)", dev), r.ts, *r.reservedMb);
            }
        }
    }

    if (meta.devices.empty()) {
        // The text exports do not name the chip (the database's NPU_INFO does).
        meta.devices.push_back(model::Device {model::DeviceKind::Npu, device, "Ascend NPU"});
    }
    if (!bundle.deviceInfo.empty())
        readDeviceInfo(bundle.deviceInfo, b);
    if (meta.format.empty())
        meta.format = torchNpu ? "torch_npu" : "msprof";
    meta.platform = model::Platform::TorchNpuCann; // every Ascend output, with or without device work
    if (progress.cancelled())
        return cancelled();
    model::TracePtr trace = b.finalize();
    if (options.phases) {
        const auto& times = b.lastFinalizeTimes();
        options.phases->finalizeNs += times.totalNs - times.flowBindingNs;
        options.phases->flowBindingNs += times.flowBindingNs;
    }
    if (trace->sliceCount() == 0) {
        bool anyCounter = false;
        for (const auto& t : trace->tracks())
            anyCounter = anyCounter || !t.counterTimes().empty();
        if (!anyCounter) {
            // "Empty" only when nothing was skipped; otherwise say what made every row unusable.
            const std::string skipped = describeSkipped(trace->warnings());
            const std::string why = skipped.empty()
                ? timelineSource + " is empty"
                : "every row was skipped: " + skipped.substr(std::string_view("; skipped: ").size());
            return model::Status(model::StatusKind::Malformed,
                                 source.path.string() + ": the Ascend output holds no usable events (" + why + ")");
        }
    }
    return trace;
}

} // namespace

} // namespace timesink::parsers
