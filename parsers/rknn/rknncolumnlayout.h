// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::parsers {

/// What a column of an RKNN table holds, derived from its header title (never from its position).
enum class RknnColumnKind : std::uint8_t {
    Id,          // "ID", "Layer ID"
    OpType,      // "OpType", "Operator" (v1)
    DataType,    // "DataType"
    Target,      // "Target"
    InputShape,  // "InputShape"
    OutputShape, // "OutputShape"
    Cycles,      // "Cycles(DDR/NPU/Total)" — one "ddr/npu/total" cell
    DdrCycles,   // "DDR Cycles", "DDRCycles"
    NpuCycles,   // "NPU Cycles", "NPUCycles"
    TotalCycles, // "Total Cycles", "MaxCycles"
    Time,        // "Time(us)"
    MacUsage,    // "MacUsage(%)" — may be blank
    Workload,    // "WorkLoad(0/1/2)", "WorkLoad(0/1)", "WorkLoad(0/1/2)-ImproveTherical"
    RwKb,        // "RW(KB)"
    FullName,    // "FullName", v1 "Name"
    Uid,         // v1 "Uid"
    CallNumber,  // ranking "CallNumber" / "Call Number"
    CpuTime,     // ranking "CPUTime(us)" / "CPU Time(us)"
    GpuTime,
    NpuTime,
    TotalTime, // ranking "TotalTime(us)" / "Total Time(us)"
    TimeRatio, // ranking "TimeRatio(%)" / "Time Ratio(%)"
    Extra,     // anything else ("Task Number", "Lut Number", columns of future releases)
};

struct RknnColumn
{
    std::string title; // as printed: "Task Number"
    RknnColumnKind kind = RknnColumnKind::Extra;
    std::size_t start = 0; // byte offset of the title in the header line (aligned text only)
    std::string key;       // arg key for Extra columns: "task_number"
};

/// The columns of one RKNN table, read from its header line, and the splitting of its rows into cells.
///
/// Aligned text: titles are found by their offsets; titles made of two words ("Layer ID", "DDR Cycles",
/// "Call Number", "CPU Time(us)", …) are joined. Example:
///   "ID   OpType    Target Time(us)"  → ID@0, OpType@5, Target@15, Time(us)@22
///   "Layer ID    Name   Operator"     → "Layer ID"@0, Name@12, Operator@19
/// CSV (`eval_perf.csv`): the same titles separated by commas, cells optionally "quoted"; commas inside
/// parentheses (shapes such as "(1,3,224,224)") do not split a cell.
class RknnColumnLayout
{
public:
    enum class Table : std::uint8_t { Layers, LegacyLayers, Ranking };

    /// A layout when `line` is the header of a layer table (toolkit2/rknpu2: ID, OpType, Time(us), …),
    /// a v1 layer table (Layer ID, Name, Operator, Uid, Time(us)) or a ranking table (OpType, CallNumber,
    /// …, TotalTime(us)); nullopt for any other line.
    static std::optional<RknnColumnLayout> fromHeader(std::string_view line);
    /// The same for a comma-separated header.
    static std::optional<RknnColumnLayout> fromCsvHeader(std::string_view line);

    [[nodiscard]] Table table() const { return m_table; }
    [[nodiscard]] bool isCsv() const { return m_csv; }
    [[nodiscard]] const std::vector<RknnColumn>& columns() const { return m_columns; }
    [[nodiscard]] std::size_t size() const { return m_columns.size(); }
    /// Index of the first column of `kind`, or -1.
    [[nodiscard]] int indexOf(RknnColumnKind kind) const;
    [[nodiscard]] bool has(RknnColumnKind kind) const { return indexOf(kind) >= 0; }

    /// Splits an aligned row by the header offsets. A blank cell stays empty; a cell of several words
    /// ("0.0%/0.0%/0.0% - Up:0.0%") stays whole; a value that overflows its column shifts the following
    /// ones, and the split follows the shift:
    ///   header "ID   Shape   Time(us)", row "2    (1,16,160,160),(3) 375" → {"2", "(1,16,160,160),(3)", "375"}
    [[nodiscard]] std::vector<std::string> splitAligned(std::string_view row) const;
    /// Splits a row by its words alone, using what each column may contain to place them: for rows
    /// whose spacing was lost (copy-paste) or shifted beyond repair. A blank MacUsage is recognised
    /// because the next word is a workload ("100.0%/…"); FullName takes the rest of the line.
    [[nodiscard]] std::vector<std::string> splitTokens(std::string_view row) const;
    /// Splits a CSV row into exactly the fields it has (see class comment).
    [[nodiscard]] static std::vector<std::string> splitCsv(std::string_view row);
    /// Splits a CSV row into one cell per column. Unquoted shape lists split at their commas
    /// ("(1,3,224,224),(32,3,3,3)"); when a row has more fields than the header, the surplus between
    /// InputShape and OutputShape is given back to them: the last group (with a trailing "...") is the
    /// output, the rest the input — the columns before and after are counted from both ends.
    [[nodiscard]] std::vector<std::string> splitCsvRow(std::string_view row) const;

private:
    static std::optional<RknnColumnLayout> fromTitles(std::vector<RknnColumn> columns, bool csv);

    std::vector<RknnColumn> m_columns;
    Table m_table = Table::Layers;
    bool m_csv = false;
};

/// Kind of a column title ("Cycles(DDR/NPU/Total)" → Cycles); Extra when unknown.
RknnColumnKind rknnColumnKind(std::string_view title);

} // namespace timesink::parsers
