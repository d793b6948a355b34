// SPDX-License-Identifier: MIT
#include "parsers/ascendcsv/ascendcsvtables.h"

#include "model/argnames.h"
#include "parsers/ascendcsv/csvreader.h"
#include "parsers/common/decimaltime.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace timesink::parsers {

void CsvIssues::add(model::ImportWarningKind kind, std::string message)
{
    for (Issue& i : issues) {
        if (i.kind == kind) {
            ++i.count;
            return;
        }
    }
    issues.push_back(Issue {kind, 1, std::move(message)});
}

std::uint64_t CsvIssues::count(model::ImportWarningKind kind) const
{
    for (const Issue& i : issues) {
        if (i.kind == kind)
            return i.count;
    }
    return 0;
}

std::string unquoteShapeCell(std::string_view cell)
{
    cell = trimCell(cell);
    if (isNullCell(cell))
        return {};
    if (cell.size() >= 2 && cell.front() == '"' && cell.back() == '"')
        cell = cell.substr(1, cell.size() - 2);
    return std::string(cell);
}

namespace {

std::optional<std::int64_t> parseInt(std::string_view text)
{
    text = trimCell(text);
    if (isNullCell(text))
        return std::nullopt;
    std::int64_t v = 0;
    const auto* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec == std::errc() && ptr == end)
        return v;
    // Unsigned sentinels (18446744073709551615) and decimals ("48.0") are not ids we can use.
    if (auto scaled = parseScaledDecimal(text, 0))
        return scaled;
    return std::nullopt;
}

/// Reads a CSV file: the header, then each row handed to `onRow`. Shared bookkeeping for every table.
template <typename OnHeader, typename OnRow>
std::string readCsv(const std::filesystem::path& path, CsvIssues& issues, OnHeader onHeader, OnRow onRow)
{
    std::string error;
    auto reader = CsvReader::open(path, error);
    if (!reader)
        return error;
    std::vector<std::string> row;
    if (!reader->readRow(row))
        return path.string() + ": the file is empty; expected a CSV header line";
    const CsvHeader header(row);
    if (std::string e = onHeader(header); !e.empty())
        return path.string() + ": " + e;
    const std::size_t width = header.names().size();
    while (reader->readRow(row)) {
        if (row.size() > width) {
            issues.add(model::ImportWarningKind::CsvExtraCells,
                       path.string() + ": line " + std::to_string(reader->rowLine()) + " has "
                           + std::to_string(row.size()) + " cells but the header has " + std::to_string(width));
        } else if (row.size() < width) {
            issues.add(model::ImportWarningKind::CsvShortRow,
                       path.string() + ": line " + std::to_string(reader->rowLine()) + " has "
                           + std::to_string(row.size()) + " cells but the header has " + std::to_string(width));
        }
        onRow(row, reader->rowLine());
    }
    if (reader->endedInsideQuotes()) {
        issues.add(model::ImportWarningKind::Truncated,
                   path.string() + ": the file ends inside a quoted field (truncated?)");
    }
    if (std::string e = reader->streamError(); !e.empty())
        issues.add(model::ImportWarningKind::Truncated, path.string() + ": " + e);
    return {};
}

std::string missingColumns(const std::vector<std::string_view>& missing)
{
    std::string s = "missing required column";
    s += missing.size() > 1 ? "s " : " ";
    for (std::size_t i = 0; i < missing.size(); ++i) {
        if (i)
            s += ", ";
        s += '"';
        s += missing[i];
        s += '"';
    }
    return s;
}

std::string badRow(const std::filesystem::path& path, std::uint64_t line, std::string_view what, std::string_view cell)
{
    return path.string() + ": line " + std::to_string(line) + ": " + std::string(what) + " \""
        + std::string(trimCell(cell)) + "\" is not a number";
}

/// A PMU counter cell: a finite, non-negative number; nothing for N/A, an empty cell or text (a counter that does
/// not read is no figure, and not worth a warning: older tables write N/A for tasks off the AI cores).
std::optional<double> parseCounter(std::string_view cell)
{
    cell = trimCell(cell);
    if (isNullCell(cell))
        return std::nullopt;
    double v = 0.0;
    const auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
    if (ec != std::errc() || ptr != cell.data() + cell.size() || !std::isfinite(v) || v < 0.0)
        return std::nullopt;
    return v;
}

/// Parses a µs cell into ns; -1 for an N/A cell (or a missing column).
model::TimeNs microsOrMinusOne(std::string_view cell)
{
    if (isNullCell(cell))
        return -1;
    return parseMicrosToNs(cell).value_or(-1);
}

} // namespace

KernelTable readKernelTable(const std::filesystem::path& path)
{
    KernelTable t;
    struct Cols
    {
        int step, device, model, stream, task, name, type, core, start, dur, wait, block, inShapes, inTypes, inFormats,
            outShapes, outTypes, outFormats;
        std::array<int, 7> pmu; // in KernelPmu's order
    } c {};
    t.error = readCsv(
        path, t.issues,
        [&](const CsvHeader& h) -> std::string {
            t.columns = h.names();
            c.step = h.find({"Step Id", "Step ID", "Step"});
            c.device = h.find({"Device_id", "Device ID", "Device Id"});
            c.model = h.find({"Model ID", "Model Id"});
            c.stream = h.find({"Stream ID", "Stream Id"});
            c.task = h.find({"Task ID", "Task Id"});
            c.name = h.find({"Name", "Op Name", "OP Name"});
            c.type = h.find({"Type", "OP Type", "Op Type"});
            c.core = h.find({"Accelerator Core", "Task Type"});
            c.start = h.find({"Start Time(us)", "Task Start Time(us)", "Task Start Time", "Start Time"});
            c.dur = h.find({"Duration(us)", "Task Duration(us)", "Task Duration", "Duration"});
            c.wait = h.find({"Wait Time(us)", "Task Wait Time(us)", "Task Wait Time", "Wait Time"});
            c.block = h.find({"Block Dim", "Block Num"});
            c.inShapes = h.find({"Input Shapes"});
            c.inTypes = h.find({"Input Data Types"});
            c.inFormats = h.find({"Input Formats"});
            c.outShapes = h.find({"Output Shapes"});
            c.outTypes = h.find({"Output Data Types"});
            c.outFormats = h.find({"Output Formats"});
            c.pmu = {h.find({model::argnames::kAicoreTime}),      h.find({model::argnames::kAicTotalCycles}),
                     h.find({model::argnames::kAicMacRatio}),     h.find({model::argnames::kAicMte2Ratio}),
                     h.find({model::argnames::kAicMacFp16Ratio}), h.find({model::argnames::kAicMacInt8Ratio}),
                     h.find({model::argnames::kCubeUtilization})};
            std::vector<std::string_view> missing;
            if (c.name < 0)
                missing.push_back("Name");
            if (c.start < 0)
                missing.push_back("Start Time(us)");
            if (c.dur < 0)
                missing.push_back("Duration(us)");
            if (!missing.empty())
                return missingColumns(missing) + " (expected a kernel_details.csv or op_summary CSV header)";
            t.hasTaskIds = c.task >= 0 && c.stream >= 0;
            t.hasCoreType = c.core >= 0;
            return {};
        },
        [&](const std::vector<std::string>& row, std::uint64_t line) {
            KernelRow r;
            r.line = line;
            const auto start = parseMicrosToNs(csvCell(row, c.start));
            if (!start) {
                t.issues.add(model::ImportWarningKind::BadTs, badRow(path, line, "start time", csvCell(row, c.start)));
                return;
            }
            const auto dur = parseMicrosToNs(csvCell(row, c.dur));
            if (!dur || *dur < 0) {
                t.issues.add(model::ImportWarningKind::BadDur, badRow(path, line, "duration", csvCell(row, c.dur)));
                return;
            }
            r.start = *start;
            r.duration = *dur;
            r.name = std::string(trimCell(csvCell(row, c.name)));
            if (const auto v = csvCell(row, c.type); !isNullCell(v))
                r.opType = std::string(trimCell(v));
            if (const auto v = csvCell(row, c.core); !isNullCell(v))
                r.coreType = std::string(trimCell(v));
            r.stepId = parseInt(csvCell(row, c.step)).value_or(-1);
            r.deviceId = static_cast<std::int32_t>(parseInt(csvCell(row, c.device)).value_or(-1));
            r.modelId = parseInt(csvCell(row, c.model)).value_or(-1);
            r.streamId = parseInt(csvCell(row, c.stream)).value_or(-1);
            r.taskId = parseInt(csvCell(row, c.task)).value_or(-1);
            r.blockDim = parseInt(csvCell(row, c.block)).value_or(-1);
            if (const auto w = csvCell(row, c.wait); !isNullCell(w))
                r.wait = parseMicrosToNs(w);
            r.inputShapes = unquoteShapeCell(csvCell(row, c.inShapes));
            if (const auto v = csvCell(row, c.inTypes); !isNullCell(v))
                r.inputDataTypes = std::string(trimCell(v));
            if (const auto v = csvCell(row, c.inFormats); !isNullCell(v))
                r.inputFormats = std::string(trimCell(v));
            r.outputShapes = unquoteShapeCell(csvCell(row, c.outShapes));
            if (const auto v = csvCell(row, c.outTypes); !isNullCell(v))
                r.outputDataTypes = std::string(trimCell(v));
            if (const auto v = csvCell(row, c.outFormats); !isNullCell(v))
                r.outputFormats = std::string(trimCell(v));
            std::array<std::optional<double>*, 7> pmu {
                &r.pmu.aicoreTimeUs,    &r.pmu.aicTotalCycles,  &r.pmu.aicMacRatio,           &r.pmu.aicMte2Ratio,
                &r.pmu.aicMacFp16Ratio, &r.pmu.aicMacInt8Ratio, &r.pmu.cubeUtilizationPercent};
            for (std::size_t i = 0; i < pmu.size(); ++i)
                *pmu[i] = parseCounter(csvCell(row, c.pmu[i]));
            t.rows.push_back(std::move(r));
        });
    return t;
}

TaskTimeTable readTaskTime(const std::filesystem::path& path)
{
    TaskTimeTable t;
    int device = -1, name = -1, type = -1, stream = -1, task = -1, dur = -1, start = -1, stop = -1;
    t.error = readCsv(
        path, t.issues,
        [&](const CsvHeader& h) -> std::string {
            device = h.find({"Device_id", "Device ID"});
            name = h.find({"kernel_name", "Op Name", "Name"});
            type = h.find({"kernel_type", "Task Type"});
            stream = h.find({"stream_id", "Stream ID"});
            task = h.find({"task_id", "Task ID"});
            dur = h.find({"task_time(us)", "Task Time(us)", "task_time"});
            start = h.find({"task_start(us)", "Task Start(us)", "task_start"});
            stop = h.find({"task_stop(us)", "Task Stop(us)", "task_stop"});
            std::vector<std::string_view> missing;
            if (type < 0)
                missing.push_back("kernel_type");
            if (start < 0)
                missing.push_back("task_start(us)");
            if (dur < 0 && stop < 0)
                missing.push_back("task_time(us)");
            if (!missing.empty())
                return missingColumns(missing) + " (expected a task_time CSV header)";
            return {};
        },
        [&](const std::vector<std::string>& row, std::uint64_t line) {
            TaskTimeRow r;
            r.line = line;
            const auto s = parseMicrosToNs(csvCell(row, start));
            if (!s) {
                t.issues.add(model::ImportWarningKind::BadTs, badRow(path, line, "task_start", csvCell(row, start)));
                return;
            }
            std::optional<model::TimeNs> d;
            if (dur >= 0)
                d = parseMicrosToNs(csvCell(row, dur));
            if (!d && stop >= 0) {
                if (const auto e = parseMicrosToNs(csvCell(row, stop)))
                    d = *e - *s;
            }
            if (!d || *d < 0) {
                t.issues.add(model::ImportWarningKind::BadDur, badRow(path, line, "task_time", csvCell(row, dur)));
                return;
            }
            r.start = *s;
            r.duration = *d;
            if (const auto v = csvCell(row, name); !isNullCell(v))
                r.name = std::string(trimCell(v));
            r.taskType = std::string(trimCell(csvCell(row, type)));
            r.deviceId = static_cast<std::int32_t>(parseInt(csvCell(row, device)).value_or(-1));
            r.streamId = parseInt(csvCell(row, stream)).value_or(-1);
            r.taskId = parseInt(csvCell(row, task)).value_or(-1);
            t.rows.push_back(std::move(r));
        });
    return t;
}

OpStatisticTable readOpStatistic(const std::filesystem::path& path)
{
    OpStatisticTable t;
    int device = -1, op = -1, core = -1, count = -1, total = -1, mn = -1, avg = -1, mx = -1, ratio = -1;
    t.error = readCsv(
        path, t.issues,
        [&](const CsvHeader& h) -> std::string {
            device = h.find({"Device_id", "Device ID"});
            op = h.find({"OP Type", "Op Type"});
            core = h.find({"Core Type", "Task Type"});
            count = h.find({"Count"});
            total = h.find({"Total Time(us)", "Total Time"});
            mn = h.find({"Min Time(us)", "Min Time"});
            avg = h.find({"Avg Time(us)", "Avg Time"});
            mx = h.find({"Max Time(us)", "Max Time"});
            ratio = h.find({"Ratio(%)", "Ratio"});
            std::vector<std::string_view> missing;
            if (op < 0)
                missing.push_back("OP Type");
            if (count < 0)
                missing.push_back("Count");
            if (total < 0)
                missing.push_back("Total Time(us)");
            if (!missing.empty())
                return missingColumns(missing) + " (expected an op_statistic CSV header)";
            return {};
        },
        [&](const std::vector<std::string>& row, std::uint64_t line) {
            OpStatisticRow r;
            const auto n = parseInt(csvCell(row, count));
            const auto tot = parseMicrosToNs(csvCell(row, total));
            if (!n || !tot) {
                t.issues.add(model::ImportWarningKind::BadNumber,
                             badRow(path, line, "Count/Total Time", csvCell(row, n ? total : count)));
                return;
            }
            r.count = *n;
            r.total = *tot;
            r.opType = std::string(trimCell(csvCell(row, op)));
            if (const auto v = csvCell(row, core); !isNullCell(v))
                r.coreType = std::string(trimCell(v));
            r.deviceId = static_cast<std::int32_t>(parseInt(csvCell(row, device)).value_or(-1));
            r.min = microsOrMinusOne(csvCell(row, mn));
            r.avg = microsOrMinusOne(csvCell(row, avg));
            r.max = microsOrMinusOne(csvCell(row, mx));
            r.ratioPercent = std::string(trimCell(csvCell(row, ratio)));
            t.rows.push_back(std::move(r));
        });
    return t;
}

StepTraceTable readStepTraceTime(const std::filesystem::path& path)
{
    StepTraceTable t;
    int step = -1, computing = -1, notOverlapped = -1, overlapped = -1, comm = -1, free = -1, stage = -1, bubble = -1,
        preparing = -1;
    t.error = readCsv(
        path, t.issues,
        [&](const CsvHeader& h) -> std::string {
            step = h.find({"Step", "Step Id", "Step ID"});
            computing = h.find({"Computing"});
            notOverlapped = h.find({"Communication(Not Overlapped)"});
            overlapped = h.find({"Overlapped"});
            comm = h.find({"Communication"});
            free = h.find({"Free"});
            stage = h.find({"Stage"});
            bubble = h.find({"Bubble"});
            preparing = h.find({"Preparing"});
            std::vector<std::string_view> missing;
            if (step < 0)
                missing.push_back("Step");
            if (computing < 0)
                missing.push_back("Computing");
            if (free < 0)
                missing.push_back("Free");
            if (!missing.empty())
                return missingColumns(missing) + " (expected a step_trace_time.csv header)";
            return {};
        },
        [&](const std::vector<std::string>& row, std::uint64_t line) {
            StepTraceRow r;
            r.step = std::string(trimCell(csvCell(row, step)));
            r.computing = microsOrMinusOne(csvCell(row, computing));
            if (r.computing < 0 && !isNullCell(csvCell(row, computing))) {
                t.issues.add(model::ImportWarningKind::BadNumber,
                             badRow(path, line, "Computing", csvCell(row, computing)));
                return;
            }
            r.communicationNotOverlapped = microsOrMinusOne(csvCell(row, notOverlapped));
            r.overlapped = microsOrMinusOne(csvCell(row, overlapped));
            r.communication = microsOrMinusOne(csvCell(row, comm));
            r.free = microsOrMinusOne(csvCell(row, free));
            r.stage = microsOrMinusOne(csvCell(row, stage));
            r.bubble = microsOrMinusOne(csvCell(row, bubble));
            r.preparing = microsOrMinusOne(csvCell(row, preparing));
            t.rows.push_back(std::move(r));
        });
    return t;
}

ApiStatisticTable readApiStatistic(const std::filesystem::path& path)
{
    ApiStatisticTable t;
    int device = -1, level = -1, name = -1, total = -1, count = -1, avg = -1, mn = -1, mx = -1;
    t.error = readCsv(
        path, t.issues,
        [&](const CsvHeader& h) -> std::string {
            device = h.find({"Device_id", "Device ID"});
            level = h.find({"Level"});
            name = h.find({"API Name", "Name"});
            total = h.find({"Time(us)", "Total Time(us)"});
            count = h.find({"Count"});
            avg = h.find({"Avg(us)"});
            mn = h.find({"Min(us)"});
            mx = h.find({"Max(us)"});
            std::vector<std::string_view> missing;
            if (name < 0)
                missing.push_back("API Name");
            if (total < 0)
                missing.push_back("Time(us)");
            if (count < 0)
                missing.push_back("Count");
            if (!missing.empty())
                return missingColumns(missing) + " (expected an api_statistic CSV header)";
            return {};
        },
        [&](const std::vector<std::string>& row, std::uint64_t line) {
            ApiStatisticRow r;
            const auto n = parseInt(csvCell(row, count));
            const auto tot = parseMicrosToNs(csvCell(row, total));
            if (!n || !tot) {
                t.issues.add(model::ImportWarningKind::BadNumber,
                             badRow(path, line, "Count/Time", csvCell(row, n ? total : count)));
                return;
            }
            r.count = *n;
            r.total = *tot;
            r.device = std::string(trimCell(csvCell(row, device)));
            r.level = std::string(trimCell(csvCell(row, level)));
            r.name = std::string(trimCell(csvCell(row, name)));
            r.avg = microsOrMinusOne(csvCell(row, avg));
            r.min = microsOrMinusOne(csvCell(row, mn));
            r.max = microsOrMinusOne(csvCell(row, mx));
            t.rows.push_back(std::move(r));
        });
    return t;
}

MemoryRecordTable readMemoryRecord(const std::filesystem::path& path)
{
    MemoryRecordTable t;
    int component = -1, ts = -1, allocated = -1, reserved = -1, device = -1;
    t.error = readCsv(
        path, t.issues,
        [&](const CsvHeader& h) -> std::string {
            component = h.find({"Component"});
            ts = h.find({"Timestamp(us)", "Time Stamp(us)"});
            allocated = h.find({"Total Allocated(MB)"});
            reserved = h.find({"Total Reserved(MB)"});
            device = h.find({"Device Type", "Device"});
            std::vector<std::string_view> missing;
            if (component < 0)
                missing.push_back("Component");
            if (ts < 0)
                missing.push_back("Timestamp(us)");
            if (allocated < 0 && reserved < 0)
                missing.push_back("Total Allocated(MB)");
            if (!missing.empty())
                return missingColumns(missing) + " (expected a memory_record CSV header)";
            return {};
        },
        [&](const std::vector<std::string>& row, std::uint64_t line) {
            MemoryRecordRow r;
            const auto when = parseMicrosToNs(csvCell(row, ts));
            if (!when) {
                t.issues.add(model::ImportWarningKind::BadTs, badRow(path, line, "timestamp", csvCell(row, ts)));
                return;
            }
            r.ts = *when;
            r.component = std::string(trimCell(csvCell(row, component)));
            auto number = [&](int column) -> std::optional<double> {
                const std::string_view cell = trimCell(csvCell(row, column));
                if (isNullCell(cell))
                    return std::nullopt;
                const std::string text(cell);
                char* end = nullptr;
                const double v = std::strtod(text.c_str(), &end);
                if (end == text.c_str() || *end != '\0' || !std::isfinite(v)) {
                    t.issues.add(model::ImportWarningKind::BadNumber, badRow(path, line, "memory size", cell));
                    return std::nullopt;
                }
                return v;
            };
            r.allocatedMb = number(allocated);
            r.reservedMb = number(reserved);
            const std::string_view dev = trimCell(csvCell(row, device));
            if (const std::size_t colon = dev.rfind(':'); colon != std::string_view::npos)
                r.device = static_cast<std::int32_t>(parseInt(dev.substr(colon + 1)).value_or(-1));
            t.rows.push_back(std::move(r));
        });
    return t;
}

} // namespace timesink::parsers
