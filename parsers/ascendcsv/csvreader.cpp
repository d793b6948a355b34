// SPDX-License-Identifier: MIT
#include "parsers/ascendcsv/csvreader.h"

#include "parsers/common/inputstream.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace timesink::parsers {

namespace {
constexpr std::size_t kBufferBytes = std::size_t {256} * 1024;

std::string fold(std::string_view s)
{
    s = trimCell(s);
    std::string out;
    out.reserve(s.size());
    for (char c : s)
        out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    return out;
}
} // namespace

CsvReader::CsvReader(Source source)
    : m_source(std::move(source))
    , m_buffer(kBufferBytes)
{
}

CsvReader::~CsvReader() = default;

std::unique_ptr<CsvReader> CsvReader::open(const std::filesystem::path& path, std::string& error)
{
    auto stream = InputStream::open(path, error);
    if (!stream)
        return nullptr;
    InputStream* raw = stream.get();
    auto reader = std::make_unique<CsvReader>([raw](char* buf, std::size_t n) { return raw->read(buf, n); });
    reader->m_stream = std::move(stream);
    return reader;
}

std::unique_ptr<CsvReader> CsvReader::fromString(std::string text)
{
    auto reader = std::make_unique<CsvReader>(Source {});
    reader->m_text = std::move(text);
    CsvReader* self = reader.get();
    reader->m_source = [self](char* buf, std::size_t n) {
        const std::size_t take = std::min(n, self->m_text.size() - self->m_textPos);
        // NOLINTNEXTLINE(bugprone-not-null-terminated-result): a byte buffer of `take` bytes, not a C string
        std::memcpy(buf, self->m_text.data() + self->m_textPos, take);
        self->m_textPos += take;
        return take;
    };
    return reader;
}

std::string CsvReader::streamError() const
{
    if (!m_stream)
        return {};
    if (!m_stream->error().empty())
        return m_stream->error();
    if (m_stream->truncated())
        return "the compressed stream ends early (truncated file)";
    return {};
}

bool CsvReader::fill()
{
    if (m_eof)
        return false;
    m_len = m_source(m_buffer.data(), m_buffer.size());
    m_pos = 0;
    if (m_len == 0) {
        m_eof = true;
        return false;
    }
    if (!m_started) {
        m_started = true;
        if (m_len >= 3 && static_cast<unsigned char>(m_buffer[0]) == 0xEF
            && static_cast<unsigned char>(m_buffer[1]) == 0xBB && static_cast<unsigned char>(m_buffer[2]) == 0xBF)
            m_pos = 3;
    }
    return true;
}

int CsvReader::peekChar()
{
    if (m_pos >= m_len && !fill())
        return -1;
    if (m_pos >= m_len)
        return peekChar();
    return static_cast<unsigned char>(m_buffer[m_pos]);
}

int CsvReader::getChar()
{
    const int c = peekChar();
    if (c >= 0) {
        ++m_pos;
        if (c == '\n')
            ++m_line;
    }
    return c;
}

bool CsvReader::readRow(std::vector<std::string>& fields)
{
    fields.clear();
    // Skip blank lines between records.
    for (;;) {
        const int c = peekChar();
        if (c < 0)
            return false;
        if (c != '\r' && c != '\n')
            break;
        getChar();
    }
    m_rowLine = m_line;
    std::string field;
    bool inQuotes = false;
    bool fieldWasQuoted = false;
    for (;;) {
        const int c = getChar();
        if (c < 0) {
            m_endedInsideQuotes = inQuotes;
            fields.push_back(std::move(field));
            return true;
        }
        if (inQuotes) {
            if (c == '"') {
                if (peekChar() == '"') {
                    getChar();
                    field.push_back('"');
                } else {
                    inQuotes = false;
                }
            } else {
                field.push_back(static_cast<char>(c));
            }
            continue;
        }
        if (c == ',') {
            fields.push_back(std::move(field));
            field.clear();
            fieldWasQuoted = false;
            continue;
        }
        if (c == '\r' || c == '\n') {
            if (c == '\r' && peekChar() == '\n')
                getChar();
            fields.push_back(std::move(field));
            return true;
        }
        if (c == '"' && field.empty() && !fieldWasQuoted) {
            inQuotes = true;
            fieldWasQuoted = true;
            continue;
        }
        field.push_back(static_cast<char>(c));
    }
}

CsvHeader::CsvHeader(std::vector<std::string> names)
    : m_names(std::move(names))
{
    m_folded.reserve(m_names.size());
    for (const auto& n : m_names)
        m_folded.push_back(fold(n));
}

int CsvHeader::find(std::initializer_list<std::string_view> aliases) const
{
    for (std::string_view alias : aliases) {
        const std::string wanted = fold(alias);
        for (std::size_t i = 0; i < m_folded.size(); ++i) {
            if (m_folded[i] == wanted)
                return static_cast<int>(i);
        }
    }
    return -1;
}

std::string_view csvCell(const std::vector<std::string>& row, int column)
{
    if (column < 0 || static_cast<std::size_t>(column) >= row.size())
        return {};
    return row[static_cast<std::size_t>(column)];
}

std::string_view trimCell(std::string_view text)
{
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!text.empty() && space(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && space(text.back()))
        text.remove_suffix(1);
    return text;
}

bool isNullCell(std::string_view text)
{
    text = trimCell(text);
    return text.empty() || text == "N/A" || text == "NA" || text == "n/a" || text == "-" || text == "None"
        || text == "null";
}

} // namespace timesink::parsers
