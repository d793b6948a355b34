// SPDX-License-Identifier: MIT
#include "parsers/rknn/rknnperfparser.h"

#include "parsers/rknn/rknntext.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace timesink::parsers {

using namespace rknntext;

namespace {

std::string excerpt(std::string_view s)
{
    s = trim(s);
    if (s.size() > 80)
        return std::string(s.substr(0, 77)) + "...";
    return std::string(s);
}

bool startsWithInt(std::string_view trimmed)
{
    const std::vector<Word> ws = words(trimmed);
    return !ws.empty() && parseInt(ws.front().text).has_value();
}

bool contains(std::string_view hay, std::string_view needle)
{
    return hay.find(needle) != std::string_view::npos;
}

/// The value after "version:" in "I RKNN: ... librknnrt version: 1.6.0 (9a7b5d24c@2023-12-13T17:31:11)".
std::string versionAfter(std::string_view line, std::string_view what)
{
    const std::string lower = toLower(line);
    const std::size_t at = lower.find(what);
    if (at == std::string::npos)
        return {};
    std::string_view rest = line.substr(at + what.size());
    const std::size_t colon = rest.find(':');
    if (colon == std::string_view::npos || colon > 3)
        return {};
    rest = trim(rest.substr(colon + 1));
    const std::vector<Word> ws = words(rest);
    return ws.empty() ? std::string() : std::string(ws.front().text);
}

/// toolkit2 1.x spells its cycle columns as two words ("DDR Cycles") and appends "-ImproveTherical" to the
/// workload title; the newer documented layout writes "DDRCycles"/"MaxCycles" and belongs to the 2.x family.
bool isToolkit2Legacy(const RknnColumnLayout& layout)
{
    for (const RknnColumn& c : layout.columns()) {
        if (c.kind == RknnColumnKind::DdrCycles && c.title.find(' ') != std::string::npos)
            return true;
        if (c.kind == RknnColumnKind::Workload && contains(toLower(c.title), "improve"))
            return true;
    }
    return false;
}

/// Longest layer or frame time we accept (10^6 s); larger values are garbage and could overflow sums.
constexpr model::TimeNs kMaxTimeNs = 1'000'000'000'000'000;

/// The NPU core mask a log line sets, as the mask's core list: "core_mask=RKNN_NPU_CORE_0_1_2" → "0_1_2",
/// "rknn.init_runtime(core_mask=RKNN.NPU_CORE_ALL)" → "all", "core mask: 0_1" → "0_1"; AUTO (the runtime picks one
/// core) and numeric bit masks other than 0, 1, 2 → "" (not a core list).
std::string coreMaskIn(std::string_view line)
{
    const auto coreList = [](std::string_view rest) {
        std::string list;
        for (char c : rest) {
            if ((c >= '0' && c <= '9') || c == '_')
                list += c;
            else
                break;
        }
        while (!list.empty() && list.back() == '_')
            list.pop_back();
        // Core numbers 0-2 joined by '_': "0_1_2", "1", never a bit mask such as "7".
        for (std::size_t i = 0; i < list.size(); ++i) {
            const bool digitPlace = i % 2 == 0;
            if (digitPlace ? (list[i] < '0' || list[i] > '2') : list[i] != '_')
                return std::string();
        }
        return list;
    };
    if (const std::size_t at = line.find("NPU_CORE_"); at != std::string_view::npos) {
        const std::string_view rest = line.substr(at + 9);
        if (rest.substr(0, 3) == "ALL")
            return "all";
        return coreList(rest);
    }
    const std::string lower = toLower(line);
    std::size_t at = lower.find("core_mask");
    if (at == std::string::npos)
        at = lower.find("core mask");
    if (at == std::string::npos)
        return {};
    std::string_view rest = std::string_view(line).substr(at + 9);
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '=' || rest.front() == ':'))
        rest.remove_prefix(1);
    return coreList(rest);
}

} // namespace

RknnFrame& RknnPerfParser::currentFrame()
{
    if (m_report.frames.empty())
        return newFrame();
    return m_report.frames.back();
}

RknnFrame& RknnPerfParser::newFrame()
{
    m_report.frames.emplace_back();
    m_footerSeen = false;
    return m_report.frames.back();
}

void RknnPerfParser::warn(model::ImportWarningKind kind, const std::string& message)
{
    if (auto it = m_warningIndex.find(kind); it != m_warningIndex.end()) {
        ++m_report.warnings[it->second].count;
        return;
    }
    m_warningIndex.emplace(kind, m_report.warnings.size());
    m_report.warnings.push_back(RknnWarning {kind, 1, message});
}

void RknnPerfParser::setProperty(const std::string& key, const std::string& value)
{
    for (auto& [k, v] : m_report.properties) {
        if (k == key)
            return; // the first occurrence wins: later ones repeat it in longer logs
    }
    m_report.properties.emplace_back(key, value);
}

void RknnPerfParser::addLine(std::string_view raw)
{
    ++m_lineNo;
    if (m_lineNo == 1 && raw.substr(0, 3) == "\xEF\xBB\xBF")
        raw.remove_prefix(3); // UTF-8 byte order mark of files saved by Windows editors
    const std::string_view line = trimRight(stripLogPrefix(raw));
    const std::string_view trimmed = trim(line);
    noteContext(raw, trimmed);

    if (m_mode == Mode::Frequencies) {
        if (trimmed.size() > 2 && trimmed.substr(0, 2) == "- ") {
            m_freqValues += (m_freqValues.empty() ? "" : ",") + std::string(trim(trimmed.substr(2)));
            return;
        }
        setProperty(m_freqKey, m_freqValues);
        m_mode = Mode::Outside;
    }

    if (contains(trimmed, "Time(us)") || contains(trimmed, "CallNumber") || contains(trimmed, "Call Number")) {
        std::optional<RknnColumnLayout> layout = RknnColumnLayout::fromHeader(line);
        if (!layout)
            layout = RknnColumnLayout::fromCsvHeader(trimmed);
        if (layout) {
            startTable(*layout);
            return;
        }
    }

    switch (m_mode) {
    case Mode::Layers:
        handleLayerLine(line, trimmed);
        break;
    case Mode::Ranking:
        handleRankingLine(line, trimmed);
        break;
    case Mode::Outside:
    case Mode::Frequencies:
        handleOutsideLine(line, trimmed);
        break;
    }
}

void RknnPerfParser::noteContext(std::string_view raw, std::string_view trimmed)
{
    if (contains(raw, "Current Frequency List") || contains(raw, "--> Evaluate model performance")
        || contains(raw, "eval_perf") || contains(raw, "Warning: The performance result"))
        m_pythonMarkers = true;
    if (contains(raw, "rknn_run") || contains(raw, "RKNN: ") || trim(raw).substr(0, 4) == "--->")
        m_runtimeMarkers = true;
    if (m_mode != Mode::Outside && m_mode != Mode::Frequencies)
        return;
    if (m_report.deviceName.empty()) {
        if (std::string chip = findChipName(trimmed); !chip.empty())
            m_report.deviceName = chip;
    }
    if (std::string mask = coreMaskIn(trimmed); !mask.empty())
        setProperty("core_mask", mask);
    if (contains(trimmed, "version")) {
        if (std::string v = versionAfter(trimmed, "librknnrt version"); !v.empty())
            setProperty("runtime_version", v);
        if (std::string v = versionAfter(trimmed, "driver version"); !v.empty())
            setProperty("driver_version", v);
        if (std::string v = versionAfter(trimmed, "toolkit2 version"); !v.empty())
            setProperty("toolkit_version", v);
        else if (std::string v1 = versionAfter(trimmed, "toolkit version"); !v1.empty())
            setProperty("toolkit_version", v1);
    }
}

void RknnPerfParser::startTable(const RknnColumnLayout& layout)
{
    flushPending();
    if (layout.table() == RknnColumnLayout::Table::Ranking) {
        if (m_mode == Mode::Layers)
            endTable();
        m_rankLayout = layout;
        m_mode = Mode::Ranking;
        if (m_report.frames.empty())
            newFrame(); // a ranking table alone still tells the op-type totals
        return;
    }
    if (m_mode == Mode::Layers && !m_sawRows)
        warn(model::ImportWarningKind::EmptyTable,
             "line " + std::to_string(m_lineNo) + ": a layer table header follows one without rows");
    m_layout = layout;
    RknnFrame& f = newFrame();
    f.hasLayerTable = true;
    f.headerLine = m_lineNo;
    if (layout.isCsv())
        f.formatVersion = "csv";
    else if (layout.table() == RknnColumnLayout::Table::LegacyLayers)
        f.formatVersion = "toolkit1";
    else if (isToolkit2Legacy(layout))
        f.formatVersion = "toolkit2-1.x";
    else
        f.formatVersion.clear(); // ≥1.6 layout: Python toolkit or C runtime, decided in finish()
    m_mode = Mode::Layers;
    m_sawRows = false;
    m_tableOpen = true;
}

void RknnPerfParser::endTable()
{
    flushPending();
    m_mode = Mode::Outside;
    m_tableOpen = false;
}

void RknnPerfParser::flushPending()
{
    if (m_pending.empty())
        return;
    warn(model::ImportWarningKind::IncompleteRow,
         "line " + std::to_string(m_pendingLine) + ": row has fewer cells than the header (" + m_pendingWhy
             + "), skipped: " + excerpt(m_pending));
    m_pending.clear();
}

RknnPerfParser::RowStatus RknnPerfParser::makeLayer(const std::vector<std::string>& cells, RknnLayer& out,
                                                    std::string& why) const
{
    const auto& columns = m_layout->columns();
    bool missing = false;
    std::string missingWhat;
    auto fail = [&why](const std::string& what) {
        why = what;
        return RowStatus::Bad;
    };
    for (std::size_t c = 0; c < columns.size(); ++c) {
        const std::string_view v = c < cells.size() ? trim(cells[c]) : std::string_view();
        const RknnColumnKind kind = columns[c].kind;
        const bool optional = kind == RknnColumnKind::MacUsage || kind == RknnColumnKind::Extra;
        if (v.empty()) {
            if (!optional && !missing) {
                missing = true;
                missingWhat = "no " + columns[c].title;
            }
            continue;
        }
        if (missing) // a filled cell after an empty required one: misaligned, not cut
            return fail(missingWhat + " but a later cell is filled");
        switch (kind) {
        case RknnColumnKind::Id: {
            const auto id = parseInt(v);
            if (!id)
                return fail("ID '" + std::string(v) + "' is not a number");
            out.id = *id;
            break;
        }
        case RknnColumnKind::OpType:
            if (!std::isalpha(static_cast<unsigned char>(v.front())) && v.front() != '_')
                return fail("op type '" + std::string(v) + "'");
            out.opType = std::string(v);
            break;
        case RknnColumnKind::DataType:
            out.dataType = std::string(v);
            break;
        case RknnColumnKind::Target: {
            const std::string t = toUpper(v);
            if (t != "NPU" && t != "CPU" && t != "GPU")
                return fail("target '" + std::string(v) + "'");
            out.target = t;
            break;
        }
        case RknnColumnKind::InputShape:
        case RknnColumnKind::OutputShape:
            if (!isShape(v))
                return fail(columns[c].title + " '" + excerpt(v) + "'");
            (kind == RknnColumnKind::InputShape ? out.inputShape : out.outputShape) = std::string(v);
            break;
        case RknnColumnKind::Cycles: {
            const auto cycles = parseSlashInts(v);
            if (!cycles)
                return fail("cycles '" + std::string(v) + "'");
            out.ddrCycles = (*cycles)[0];
            out.npuCycles = (*cycles)[1];
            out.totalCycles = cycles->back();
            break;
        }
        case RknnColumnKind::DdrCycles:
        case RknnColumnKind::NpuCycles:
        case RknnColumnKind::TotalCycles: {
            const auto n = parseInt(v);
            if (!n)
                return fail(columns[c].title + " '" + std::string(v) + "'");
            (kind == RknnColumnKind::DdrCycles       ? out.ddrCycles
                 : kind == RknnColumnKind::NpuCycles ? out.npuCycles
                                                     : out.totalCycles)
                = *n;
            break;
        }
        case RknnColumnKind::Time: {
            const auto t = parseMicros(v);
            if (!t || *t > kMaxTimeNs)
                return fail("time '" + std::string(v) + "'");
            out.timeNs = *t;
            break;
        }
        case RknnColumnKind::MacUsage:
            if (!isMacUsage(v))
                return fail("MAC usage '" + std::string(v) + "'");
            out.macUsage = std::string(v);
            break;
        case RknnColumnKind::Workload: {
            std::string_view w = v;
            std::string_view improve;
            if (const std::size_t dash = v.find(" - "); dash != std::string_view::npos) {
                w = trim(v.substr(0, dash));
                improve = trim(v.substr(dash + 3));
                if (improve.substr(0, 3) == "Up:")
                    improve.remove_prefix(3);
            }
            if (!isWorkload(w))
                return fail("workload '" + std::string(v) + "'");
            out.workload = std::string(w);
            out.workloadImprove = std::string(improve);
            break;
        }
        case RknnColumnKind::RwKb: {
            const auto rw = parseDouble(v);
            if (!rw)
                return fail("RW(KB) '" + std::string(v) + "'");
            out.rwKb = *rw;
            break;
        }
        case RknnColumnKind::FullName:
            out.fullName = std::string(v);
            break;
        case RknnColumnKind::Uid: {
            const auto uid = parseInt(v);
            if (!uid)
                return fail("Uid '" + std::string(v) + "'");
            out.uid = *uid;
            break;
        }
        default:
            out.extra.emplace_back(columns[c].key.empty() ? squash(columns[c].title) : columns[c].key, std::string(v));
            break;
        }
    }
    if (missing) {
        why = missingWhat;
        return RowStatus::Incomplete;
    }
    return RowStatus::Ok;
}

RknnPerfParser::RowStatus RknnPerfParser::parseRow(std::string_view line, RknnLayer& out, std::string& why,
                                                   bool tokensOnly) const
{
    if (m_layout->isCsv()) {
        std::vector<std::string> cells = m_layout->splitCsvRow(line);
        if (cells.size() > m_layout->size()) {
            why = std::to_string(cells.size()) + " fields for " + std::to_string(m_layout->size()) + " columns";
            return RowStatus::Bad;
        }
        return makeLayer(cells, out, why);
    }
    RowStatus status = RowStatus::Bad;
    if (!tokensOnly) {
        RknnLayer aligned;
        aligned.line = out.line;
        status = makeLayer(m_layout->splitAligned(line), aligned, why);
        if (status == RowStatus::Ok) {
            out = std::move(aligned);
            return status;
        }
    }
    // Alignment did not hold (spacing lost in a copy, or a value overflowed without leaving a space):
    // place the words by what each column may contain.
    RknnLayer tokens;
    tokens.line = out.line;
    std::string whyTokens;
    const RowStatus byTokens = makeLayer(m_layout->splitTokens(line), tokens, whyTokens);
    if (byTokens == RowStatus::Ok) {
        out = std::move(tokens);
        return byTokens;
    }
    if (tokensOnly || byTokens == RowStatus::Incomplete) {
        why = whyTokens;
        return byTokens;
    }
    return status;
}

void RknnPerfParser::handleLayerLine(std::string_view line, std::string_view trimmed)
{
    if (trimmed.empty())
        return; // blank lines occur inside copied tables (around "...")
    if (isRule(trimmed)) {
        if (m_sawRows)
            endTable();
        return;
    }
    if (trimmed == "..." || trimmed == "\xE2\x80\xA6") {
        flushPending();
        currentFrame().elided = true;
        return;
    }
    if (handleFooter(trimmed)) {
        endTable();
        return;
    }
    const bool csv = m_layout->isCsv();
    RknnFrame& frame = currentFrame();
    if (m_layout->table() == RknnColumnLayout::Table::LegacyLayers && !frame.layers.empty() && m_pending.empty()) {
        // v1 wraps long names at a fixed width onto a line whose Layer ID cell is blank (the wrapped part
        // may itself start with digits, so the position decides, not the first word).
        const std::vector<std::string> cells = m_layout->splitAligned(line);
        if (cells.front().empty()) {
            RknnLayer& last = frame.layers.back();
            for (std::size_t c = 1; c < cells.size(); ++c) {
                if (cells[c].empty())
                    continue;
                const RknnColumnKind kind = m_layout->columns()[c].kind;
                if (kind == RknnColumnKind::FullName)
                    last.fullName += cells[c];
                else if (kind == RknnColumnKind::OpType)
                    last.opType += cells[c];
            }
            return;
        }
    }
    const bool rowStart = csv ? parseInt(trimmed.substr(0, trimmed.find(','))).has_value() : startsWithInt(trimmed);
    std::string why;
    if (rowStart) {
        flushPending();
        RknnLayer layer;
        layer.line = m_lineNo;
        const RowStatus status = parseRow(csv ? trimmed : line, layer, why, false);
        if (status == RowStatus::Ok) {
            currentFrame().layers.push_back(std::move(layer));
            m_sawRows = true;
        } else if (status == RowStatus::Incomplete && !csv) {
            m_pending = std::string(line);
            m_pendingLine = m_lineNo;
            m_pendingWhy = why;
        } else if (status == RowStatus::Incomplete) {
            warn(model::ImportWarningKind::IncompleteRow,
                 "line " + std::to_string(m_lineNo) + ": row has fewer cells than the header (" + why
                     + "), skipped: " + excerpt(trimmed));
        } else {
            warn(model::ImportWarningKind::BadRow,
                 "line " + std::to_string(m_lineNo) + ": not a valid layer row (" + why
                     + "), skipped: " + excerpt(trimmed));
        }
        return;
    }
    if (!m_pending.empty()) {
        // A row broken across two lines: the rest of it follows.
        const std::string joined = m_pending + " " + std::string(trimmed);
        RknnLayer layer;
        layer.line = m_pendingLine;
        const RowStatus status = parseRow(joined, layer, why, true);
        if (status == RowStatus::Ok) {
            currentFrame().layers.push_back(std::move(layer));
            m_sawRows = true;
            m_pending.clear();
        } else if (status == RowStatus::Incomplete) {
            m_pending = joined;
            m_pendingWhy = why;
        } else {
            m_pending = joined;
            m_pendingWhy = why;
            flushPending();
        }
        return;
    }
    // Other text: the table is over (a log line after it). If rows of this table follow again,
    // handleOutsideLine() resumes it.
    if (m_sawRows) {
        endTable();
        handleOutsideLine(line, trimmed);
        return;
    }
    warn(model::ImportWarningKind::BadRow,
         "line " + std::to_string(m_lineNo) + ": not a layer row, skipped: " + excerpt(trimmed));
}

bool RknnPerfParser::makeRankingRow(const std::vector<std::string>& cells, RknnRankingRow& out) const
{
    const auto& columns = m_rankLayout->columns();
    bool haveTotal = false;
    for (std::size_t c = 0; c < columns.size() && c < cells.size(); ++c) {
        const std::string_view v = trim(cells[c]);
        switch (columns[c].kind) {
        case RknnColumnKind::OpType:
            if (v.empty() || !std::isalpha(static_cast<unsigned char>(v.front())))
                return false;
            out.opType = std::string(v);
            break;
        case RknnColumnKind::CallNumber:
            if (!v.empty()) {
                out.calls = parseInt(v);
                if (!out.calls)
                    return false;
            }
            break;
        case RknnColumnKind::CpuTime:
        case RknnColumnKind::GpuTime:
        case RknnColumnKind::NpuTime:
        case RknnColumnKind::TotalTime: {
            if (v.empty())
                break;
            const auto t = parseMicros(v);
            if (!t || *t > kMaxTimeNs)
                return false;
            const RknnColumnKind k = columns[c].kind;
            (k == RknnColumnKind::CpuTime       ? out.cpuNs
                 : k == RknnColumnKind::GpuTime ? out.gpuNs
                 : k == RknnColumnKind::NpuTime ? out.npuNs
                                                : out.totalNs)
                = *t;
            haveTotal = haveTotal || k == RknnColumnKind::TotalTime;
            break;
        }
        default:
            break;
        }
    }
    return haveTotal && !out.opType.empty() && (out.calls.has_value() || out.opType == "Total");
}

void RknnPerfParser::handleRankingLine(std::string_view line, std::string_view trimmed)
{
    if (isRule(trimmed))
        return; // 2.x rules the ranking table above and below its Total row
    if (trimmed.empty()) {
        m_mode = Mode::Outside;
        return;
    }
    RknnRankingRow row;
    bool ok = makeRankingRow(
        m_rankLayout->isCsv() ? RknnColumnLayout::splitCsv(trimmed) : m_rankLayout->splitAligned(line), row);
    if (!ok && !m_rankLayout->isCsv()) {
        row = RknnRankingRow {};
        ok = makeRankingRow(m_rankLayout->splitTokens(line), row);
    }
    if (!ok) {
        m_mode = Mode::Outside;
        handleOutsideLine(line, trimmed);
        return;
    }
    RknnFrame& frame = currentFrame();
    if (row.opType == "Total" && !row.calls)
        frame.rankingTotal = row;
    else
        frame.ranking.push_back(std::move(row));
}

bool RknnPerfParser::handleFooter(std::string_view trimmed)
{
    std::size_t sep = trimmed.find(':');
    if (sep == std::string_view::npos)
        sep = trimmed.find(',');
    if (sep == std::string_view::npos)
        return false;
    const std::string label = squash(trimmed.substr(0, sep));
    const std::string_view value = trim(trimmed.substr(sep + 1));
    if (label == "totaloperatorelapsedperframetime(us)" || label == "totaloperatorelapsedtime(us)") {
        const auto t = parseMicros(value);
        if (!t || *t > kMaxTimeNs) {
            warn(model::ImportWarningKind::BadTotal,
                 "line " + std::to_string(m_lineNo) + ": unreadable total '" + excerpt(value) + "'");
            return true;
        }
        if (m_report.frames.empty() || m_footerSeen || m_report.frames.back().elapsedTotalNs)
            newFrame();
        m_report.frames.back().elapsedTotalNs = *t;
        return true;
    }
    if (label == "totaltime(us)") {
        const auto t = parseMicros(value);
        if (!t || *t > kMaxTimeNs) {
            warn(model::ImportWarningKind::BadTotal,
                 "line " + std::to_string(m_lineNo) + ": unreadable total '" + excerpt(value) + "'");
            return true;
        }
        // With per-layer tables it closes the frame; alone it is the whole output of perf_debug=False.
        if (m_report.frames.empty() || m_report.frames.back().totalTimeNs)
            newFrame();
        m_report.frames.back().totalTimeNs = *t;
        m_footerSeen = true;
        return true;
    }
    if (label.compare(0, 3, "fps") == 0) {
        if (!parseDouble(value))
            return false;
        if (label == "fps") {
            if (!m_report.frames.empty() && m_report.frames.back().fps.empty())
                m_report.frames.back().fps = std::string(value);
        } else {
            // v1 prints one line per clock: "FPS(600MHz): 152.37", "FPS(800MHz): 203.16".
            std::string key = "fps";
            for (char c : label.substr(3)) {
                if (std::isalnum(static_cast<unsigned char>(c)))
                    key.push_back(c);
                else if (key.back() != '_')
                    key.push_back('_');
            }
            while (key.back() == '_')
                key.pop_back();
            setProperty(key, std::string(value));
        }
        return true;
    }
    if (label == "totalmemoryread/writeperframesize(kb)" || label == "totalmemoryrwamount(mb)") {
        if (!m_report.frames.empty())
            m_report.frames.back().memoryRw = std::string(value) + (label == "totalmemoryrwamount(mb)" ? " MB" : " KB");
        return true;
    }
    return false;
}

void RknnPerfParser::handleOutsideLine(std::string_view line, std::string_view trimmed)
{
    if (trimmed.empty())
        return;
    // Rows of the last layer table after other text: a log line interrupted the table.
    if (m_layout && !m_footerSeen && !m_report.frames.empty() && m_report.frames.back().hasLayerTable
        && !m_report.frames.back().elapsedTotalNs && !m_layout->isCsv() && startsWithInt(trimmed)) {
        RknnLayer layer;
        layer.line = m_lineNo;
        std::string why;
        if (parseRow(line, layer, why, false) == RowStatus::Ok) {
            warn(model::ImportWarningKind::TableInterrupted,
                 "line " + std::to_string(m_lineNo) + ": the layer table continues after other text");
            m_report.frames.back().layers.push_back(std::move(layer));
            m_mode = Mode::Layers;
            m_tableOpen = true;
            return;
        }
    }
    if (handleFooter(trimmed))
        return;
    const std::string lower = toLower(trimmed);
    if (const std::size_t at = lower.find(" current frequency list"); at != std::string::npos) {
        m_freqKey = toLower(trim(trimmed.substr(0, at))) + "_frequencies_hz";
        m_freqValues.clear();
        m_mode = Mode::Frequencies;
        return;
    }
    if (lower.compare(0, 5, "note:") == 0) {
        // v1: "Note: Time of each layer is converted according to 800MHz!"
        setProperty("note", std::string(trim(trimmed.substr(5))));
        return;
    }
    if (contains(lower, "the performance result is just for debugging"))
        setProperty("perf_warning", "The performance result is just for debugging, may worse than actual performance!");
}

void RknnPerfParser::crossCheck(std::size_t frameIndex)
{
    const RknnFrame& f = m_report.frames[frameIndex];
    const std::string where = m_report.frames.size() > 1 ? "frame " + std::to_string(frameIndex + 1) + ": " : "";
    model::TimeNs sum = 0;
    for (const RknnLayer& l : f.layers)
        sum += l.timeNs;
    std::set<std::int64_t> ids;
    for (const RknnLayer& l : f.layers) {
        if (!ids.insert(l.id).second)
            warn(model::ImportWarningKind::DuplicateLayerId,
                 where + "line " + std::to_string(l.line) + ": layer ID " + std::to_string(l.id)
                     + " appears twice in one table");
    }
    if (f.elided) {
        // The missing rows explain any difference from the totals and the ranking; one warning says so.
        warn(model::ImportWarningKind::RowsElided,
             where + "the table leaves rows out (\"...\"): its layers add up to " + usText(sum)
                 + " us of the printed total " + usText(f.elapsedTotalNs.value_or(f.totalTimeNs.value_or(0))) + " us");
        return;
    }
    const std::optional<model::TimeNs> printed = f.elapsedTotalNs ? f.elapsedTotalNs : f.totalTimeNs;
    if (printed && !f.layers.empty() && *printed != sum) {
        warn(model::ImportWarningKind::TotalMismatch,
             where + "the layers add up to " + usText(sum) + " us but the table prints a total of " + usText(*printed)
                 + " us");
    }
    if (f.ranking.empty() || f.layers.empty())
        return;
    const bool haveTarget = m_layout && m_layout->has(RknnColumnKind::Target);
    std::set<std::string> ranked;
    for (const RknnRankingRow& r : f.ranking) {
        ranked.insert(r.opType);
        std::int64_t calls = 0;
        model::TimeNs total = 0;
        model::TimeNs cpu = 0;
        for (const RknnLayer& l : f.layers) {
            if (l.opType != r.opType)
                continue;
            ++calls;
            total += l.timeNs;
            if (l.target == "CPU")
                cpu += l.timeNs;
        }
        std::string diff;
        if (r.calls && *r.calls != calls)
            diff = std::to_string(calls) + " layers vs " + std::to_string(*r.calls) + " calls";
        else if (r.totalNs != total)
            diff = usText(total) + " us in the layers vs " + usText(r.totalNs) + " us ranked";
        else if (haveTarget && r.cpuNs != cpu)
            diff = usText(cpu) + " us on CPU in the layers vs " + usText(r.cpuNs) + " us CPU time ranked";
        if (!diff.empty())
            warn(model::ImportWarningKind::RankingMismatch, where + "op type " + r.opType + ": " + diff);
    }
    std::set<std::string> unranked;
    for (const RknnLayer& l : f.layers) {
        if (!ranked.count(l.opType) && unranked.insert(l.opType).second)
            warn(model::ImportWarningKind::RankingMismatch,
                 where + "op type " + l.opType + " has layers but no row in the ranking table");
    }
    if (f.rankingTotal && f.rankingTotal->totalNs != sum)
        warn(model::ImportWarningKind::RankingMismatch,
             where + "ranking Total " + usText(f.rankingTotal->totalNs) + " us vs " + usText(sum)
                 + " us in the layers");
}

RknnPerfReport RknnPerfParser::finish()
{
    if (m_mode == Mode::Frequencies)
        setProperty(m_freqKey, m_freqValues);
    if (m_mode == Mode::Layers && m_layout && !m_layout->isCsv() && !m_report.frames.empty()
        && !m_report.frames.back().elapsedTotalNs && !m_report.frames.back().totalTimeNs) {
        warn(model::ImportWarningKind::TableUnterminated,
             "the layer table ends with the input, before its total line (a cut file?)");
    }
    flushPending();
    const std::string generation = m_pythonMarkers ? "toolkit2-2.x" : m_runtimeMarkers ? "rknpu2-runtime" : "";
    for (std::size_t i = 0; i < m_report.frames.size(); ++i) {
        RknnFrame& f = m_report.frames[i];
        if (!f.hasLayerTable)
            f.formatVersion = "summary-only";
        else if (f.formatVersion.empty())
            // The ≥1.6 table is printed by the runtime library both for the Python toolkit and for C
            // programs; only the text around it tells them apart. 2.x runtimes end the ranking with "Total".
            f.formatVersion = !generation.empty() ? generation : f.rankingTotal ? "toolkit2-2.x" : "rknpu2-runtime";
        crossCheck(i);
    }
    RknnPerfReport out = std::move(m_report);
    *this = RknnPerfParser();
    return out;
}

} // namespace timesink::parsers
