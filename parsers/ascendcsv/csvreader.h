// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::parsers {

class InputStream;

/// A streaming RFC 4180 CSV reader (the Ascend profilers' CSV files are plain RFC 4180 written by Python's
/// csv module, with gzip/zstd unwrapped by InputStream).
///
/// Handles: quoted fields with commas, doubled quotes and line breaks inside; CRLF and LF line ends; a UTF-8
/// BOM; a quote in the middle of an unquoted field (kept literally). Field text is returned as written
/// (no trimming) — callers strip the TABs torch_npu appends to absolute times.
///
///   a,"b,c","say ""hi""",d\r\n   → {"a", "b,c", "say \"hi\"", "d"}
///   """32,3,224,224""",x         → {"\"32,3,224,224\"", "x"}   (torch_npu's twice-quoted shapes)
///
/// Memory is bounded by the longest record plus one read buffer.
class CsvReader
{
public:
    /// Reads from `source(buffer, size)` → bytes read (0 at the end).
    using Source = std::function<std::size_t(char*, std::size_t)>;
    explicit CsvReader(Source source);
    ~CsvReader();
    CsvReader(const CsvReader&) = delete;
    CsvReader& operator=(const CsvReader&) = delete;

    /// Opens a file (gzip/zstd unwrapped); nullptr and `error` set when it cannot be read.
    static std::unique_ptr<CsvReader> open(const std::filesystem::path& path, std::string& error);
    /// Reads from an in-memory text (tests).
    static std::unique_ptr<CsvReader> fromString(std::string text);

    /// Reads the next record into `fields`; false at the end of the input. Blank lines are skipped.
    bool readRow(std::vector<std::string>& fields);
    /// 1-based line number where the last record returned by readRow() started.
    [[nodiscard]] std::uint64_t rowLine() const { return m_rowLine; }
    /// The input ended inside a quoted field (a truncated file); the partial record was still returned.
    [[nodiscard]] bool endedInsideQuotes() const { return m_endedInsideQuotes; }
    /// A read/decompression error or truncation reported by the underlying stream; empty when none.
    [[nodiscard]] std::string streamError() const;

private:
    bool fill();
    int peekChar();
    int getChar();

    Source m_source;
    std::unique_ptr<InputStream> m_stream; // owned when opened from a file
    std::string m_text;                    // owned when read from a string
    std::size_t m_textPos = 0;
    std::vector<char> m_buffer;
    std::size_t m_pos = 0;
    std::size_t m_len = 0;
    bool m_eof = false;
    bool m_started = false;
    bool m_endedInsideQuotes = false;
    std::uint64_t m_line = 1;
    std::uint64_t m_rowLine = 0;
};

/// Finds columns by header name, tolerating the naming drift between tool versions: names are compared
/// case-insensitively after trimming spaces, and each column may be asked for under several aliases.
///
///   CsvHeader h({"Task Start Time(us)", "OP Type"});
///   h.find({"Start Time(us)", "Task Start Time(us)", "Task Start Time"}) → 0
///   h.find({"Type", "OP Type"}) → 1;  h.find({"Block Dim"}) → -1
class CsvHeader
{
public:
    CsvHeader() = default;
    explicit CsvHeader(std::vector<std::string> names);
    [[nodiscard]] int find(std::initializer_list<std::string_view> aliases) const;
    [[nodiscard]] const std::vector<std::string>& names() const { return m_names; }

private:
    std::vector<std::string> m_names;
    std::vector<std::string> m_folded;
};

/// The cell at `column` of `row`, or an empty view when the column is missing (-1) or the row is short.
std::string_view csvCell(const std::vector<std::string>& row, int column);
/// Trims whitespace (spaces, TABs, CR/LF) on both sides.
std::string_view trimCell(std::string_view text);
/// A cell that stands for "no value": empty, `N/A`, `NA`, `-`, `None`.
bool isNullCell(std::string_view text);

} // namespace timesink::parsers
