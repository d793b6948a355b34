// SPDX-License-Identifier: MIT
#include "parsers/rknn/rknncolumnlayout.h"

#include "parsers/rknn/rknntext.h"

#include <array>
#include <cctype>

namespace timesink::parsers {

using namespace rknntext;

namespace {

// Titles printed as two words; everything else in a header is one word per title.
constexpr std::array<std::string_view, 15> kTwoWordTitles = {
    "layerid",     "ddrcycles",   "npucycles",   "totalcycles",   "maxcycles",
    "tasknumber",  "tasksize",    "regcmdsize",  "lutnumber",     "callnumber",
    "cputime(us)", "gputime(us)", "nputime(us)", "totaltime(us)", "timeratio(%)",
};

bool isTwoWordTitle(std::string_view first, std::string_view second)
{
    const std::string joined = squash(first) + squash(second);
    for (std::string_view t : kTwoWordTitles) {
        if (joined == t)
            return true;
    }
    return false;
}

/// "Task Number" and "TaskNumber" → "task_number"; "SramHit(%)" → "sram_hit".
std::string argKey(std::string_view title)
{
    std::string key;
    bool pendingUnderscore = false;
    char previous = ' ';
    for (char c : title) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u)) {
            if (std::isupper(u) && std::islower(static_cast<unsigned char>(previous)))
                pendingUnderscore = true;
            if (pendingUnderscore && !key.empty())
                key.push_back('_');
            pendingUnderscore = false;
            key.push_back(static_cast<char>(std::tolower(u)));
        } else {
            pendingUnderscore = true;
        }
        previous = c;
    }
    return key.empty() ? std::string("column") : key;
}

} // namespace

RknnColumnKind rknnColumnKind(std::string_view title)
{
    const std::string t = squash(title);
    auto starts = [&t](std::string_view p) { return t.compare(0, p.size(), p) == 0; };
    if (t == "id" || t == "layerid")
        return RknnColumnKind::Id;
    if (t == "optype" || t == "operator")
        return RknnColumnKind::OpType;
    if (t == "datatype")
        return RknnColumnKind::DataType;
    if (t == "target")
        return RknnColumnKind::Target;
    if (t == "inputshape")
        return RknnColumnKind::InputShape;
    if (t == "outputshape")
        return RknnColumnKind::OutputShape;
    if (starts("cycles("))
        return RknnColumnKind::Cycles;
    if (t == "ddrcycles")
        return RknnColumnKind::DdrCycles;
    if (t == "npucycles")
        return RknnColumnKind::NpuCycles;
    if (t == "totalcycles" || t == "maxcycles")
        return RknnColumnKind::TotalCycles;
    if (t == "time(us)")
        return RknnColumnKind::Time;
    if (starts("macusage"))
        return RknnColumnKind::MacUsage;
    if (starts("workload"))
        return RknnColumnKind::Workload;
    if (t == "rw(kb)")
        return RknnColumnKind::RwKb;
    if (t == "fullname" || t == "name")
        return RknnColumnKind::FullName;
    if (t == "uid")
        return RknnColumnKind::Uid;
    if (t == "callnumber")
        return RknnColumnKind::CallNumber;
    if (t == "cputime(us)")
        return RknnColumnKind::CpuTime;
    if (t == "gputime(us)")
        return RknnColumnKind::GpuTime;
    if (t == "nputime(us)")
        return RknnColumnKind::NpuTime;
    if (t == "totaltime(us)")
        return RknnColumnKind::TotalTime;
    if (starts("timeratio"))
        return RknnColumnKind::TimeRatio;
    return RknnColumnKind::Extra;
}

std::optional<RknnColumnLayout> RknnColumnLayout::fromTitles(std::vector<RknnColumn> columns, bool csv)
{
    if (columns.size() < 3)
        return std::nullopt;
    for (RknnColumn& c : columns) {
        c.kind = rknnColumnKind(c.title);
        if (c.kind == RknnColumnKind::Extra)
            c.key = argKey(c.title);
    }
    RknnColumnLayout layout;
    layout.m_columns = std::move(columns);
    layout.m_csv = csv;
    const RknnColumnKind first = layout.m_columns.front().kind;
    const bool hasTime = layout.has(RknnColumnKind::Time);
    if (first == RknnColumnKind::Id && layout.has(RknnColumnKind::OpType) && hasTime) {
        if (squash(layout.m_columns.front().title) == "layerid" && !layout.has(RknnColumnKind::Target)) {
            layout.m_table = Table::LegacyLayers;
            return layout;
        }
        if (layout.has(RknnColumnKind::Target) || layout.has(RknnColumnKind::Cycles)
            || layout.has(RknnColumnKind::DdrCycles) || layout.has(RknnColumnKind::FullName)) {
            layout.m_table = Table::Layers;
            return layout;
        }
        return std::nullopt;
    }
    if (first == RknnColumnKind::OpType && layout.has(RknnColumnKind::CallNumber)
        && layout.has(RknnColumnKind::TotalTime)) {
        layout.m_table = Table::Ranking;
        return layout;
    }
    return std::nullopt;
}

std::optional<RknnColumnLayout> RknnColumnLayout::fromHeader(std::string_view line)
{
    const std::vector<Word> ws = words(line);
    // Cheap rejection first: every header we know starts with one of these words.
    if (ws.empty() || (ws[0].text != "ID" && ws[0].text != "Layer" && ws[0].text != "OpType"))
        return std::nullopt;
    std::vector<RknnColumn> columns;
    for (std::size_t i = 0; i < ws.size(); ++i) {
        RknnColumn c;
        c.start = ws[i].start;
        if (i + 1 < ws.size() && ws[i + 1].start == ws[i].start + ws[i].text.size() + 1
            && isTwoWordTitle(ws[i].text, ws[i + 1].text)) {
            c.title = std::string(ws[i].text) + " " + std::string(ws[i + 1].text);
            ++i;
        } else {
            c.title = std::string(ws[i].text);
        }
        columns.push_back(std::move(c));
    }
    return fromTitles(std::move(columns), false);
}

std::optional<RknnColumnLayout> RknnColumnLayout::fromCsvHeader(std::string_view line)
{
    if (line.find(',') == std::string_view::npos)
        return std::nullopt;
    std::vector<RknnColumn> columns;
    for (const std::string& field : splitCsv(line)) {
        RknnColumn c;
        c.title = std::string(trim(field));
        columns.push_back(std::move(c));
    }
    return fromTitles(std::move(columns), true);
}

int RknnColumnLayout::indexOf(RknnColumnKind kind) const
{
    for (std::size_t i = 0; i < m_columns.size(); ++i) {
        if (m_columns[i].kind == kind)
            return static_cast<int>(i);
    }
    return -1;
}

std::vector<std::string> RknnColumnLayout::splitAligned(std::string_view row) const
{
    const std::size_t n = m_columns.size();
    std::vector<std::string> cells(n);
    std::size_t shift = 0; // how far overflowing values have pushed the rest of the row to the right
    std::size_t lastColumn = 0;
    bool any = false;
    for (const Word& w : words(row)) {
        const std::size_t pos = w.start >= shift ? w.start - shift : 0;
        std::size_t k = 0;
        for (std::size_t c = 0; c < n; ++c) {
            if (m_columns[c].start <= pos)
                k = c;
        }
        if (any && k < lastColumn)
            k = lastColumn;
        if (any && k == lastColumn) {
            cells[k] += ' ';
            cells[k] += w.text;
        } else {
            cells[k] = std::string(w.text);
        }
        lastColumn = k;
        any = true;
        const std::size_t end = pos + w.text.size();
        if (k + 1 < n && end >= m_columns[k + 1].start)
            shift += end + 1 - m_columns[k + 1].start;
    }
    return cells;
}

std::vector<std::string> RknnColumnLayout::splitTokens(std::string_view row) const
{
    const std::vector<Word> ws = words(row);
    std::vector<std::string> cells(m_columns.size());
    std::size_t i = 0;
    for (std::size_t c = 0; c < m_columns.size() && i < ws.size(); ++c) {
        const RknnColumnKind kind = m_columns[c].kind;
        if (c + 1 == m_columns.size()) {
            cells[c] = std::string(trim(row.substr(ws[i].start)));
            break;
        }
        if (kind == RknnColumnKind::MacUsage && !isMacUsage(ws[i].text))
            continue; // blank cell: the word belongs to the next column
        if (kind == RknnColumnKind::CallNumber && !parseInt(ws[i].text))
            continue; // the ranking "Total" row has no call number
        cells[c] = std::string(ws[i].text);
        ++i;
        if (kind == RknnColumnKind::Workload && i + 1 < ws.size() && ws[i].text == "-"
            && ws[i + 1].text.substr(0, 3) == "Up:") {
            cells[c] += " - ";
            cells[c] += ws[i + 1].text;
            i += 2;
        }
    }
    return cells;
}

std::vector<std::string> RknnColumnLayout::splitCsvRow(std::string_view row) const
{
    std::vector<std::string> fields = splitCsv(row);
    const std::size_t n = m_columns.size();
    const int in = indexOf(RknnColumnKind::InputShape);
    const int out = indexOf(RknnColumnKind::OutputShape);
    if (fields.size() <= n || in < 0 || out != in + 1)
        return fields;
    const auto inIdx = static_cast<std::size_t>(in);
    const std::size_t after = n - inIdx - 2; // columns after OutputShape
    const std::size_t middleEnd = fields.size() - after;
    std::size_t outFirst = middleEnd - 1;
    if (fields[outFirst] == "..." && outFirst > inIdx + 1)
        --outFirst;
    auto join = [&fields](std::size_t from, std::size_t to) {
        std::string s;
        for (std::size_t k = from; k < to; ++k)
            s += (k == from ? "" : ",") + fields[k];
        return s;
    };
    std::vector<std::string> cells(fields.begin(), fields.begin() + in);
    cells.push_back(join(inIdx, outFirst));
    cells.push_back(join(outFirst, middleEnd));
    cells.insert(cells.end(), fields.begin() + static_cast<std::ptrdiff_t>(middleEnd), fields.end());
    return cells;
}

std::vector<std::string> RknnColumnLayout::splitCsv(std::string_view row)
{
    std::vector<std::string> fields;
    std::string cur;
    bool quoted = false;
    int parens = 0;
    for (std::size_t i = 0; i < row.size(); ++i) {
        const char c = row[i];
        if (quoted) {
            if (c == '"') {
                if (i + 1 < row.size() && row[i + 1] == '"') {
                    cur.push_back('"');
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                cur.push_back(c);
            }
            continue;
        }
        if (c == '"') {
            quoted = true;
        } else if (c == '(') {
            ++parens;
            cur.push_back(c);
        } else if (c == ')') {
            parens = parens > 0 ? parens - 1 : 0;
            cur.push_back(c);
        } else if (c == ',' && parens == 0) {
            fields.push_back(std::string(trim(cur)));
            cur.clear();
        } else if (c != '\r' && c != '\n') {
            cur.push_back(c);
        }
    }
    fields.push_back(std::string(trim(cur)));
    return fields;
}

} // namespace timesink::parsers
