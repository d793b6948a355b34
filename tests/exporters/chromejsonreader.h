// SPDX-License-Identifier: MIT
#pragma once

// Reads Chrome trace JSON back: nlohmann's SAX interface hands over the literal text of numbers, so "ts" and
// "dur" can be checked to the nanosecond (the DOM would round them through a double).

#include <charconv>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace timesink::testing {

using nlohmann::json;

/// Collects the literal text of "ts" and "dur" of every event (objects directly inside traceEvents).
class TimeTextCollector : public nlohmann::json_sax<json>
{
public:
    std::vector<std::pair<std::string, std::string>> times; // (key, literal) in file order

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t v) override { return record(std::to_string(v)); }
    bool number_unsigned(number_unsigned_t v) override { return record(std::to_string(v)); }
    bool number_float(number_float_t, const string_t& s) override { return record(s); }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override
    {
        ++m_depth;
        return true;
    }
    bool key(string_t& k) override
    {
        m_key = k;
        return true;
    }
    bool end_object() override
    {
        --m_depth;
        return true;
    }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

private:
    bool record(const std::string& text)
    {
        if (m_depth == 2 && (m_key == "ts" || m_key == "dur"))
            times.emplace_back(m_key, text);
        return true;
    }
    int m_depth = 0;
    std::string m_key;
};

/// "1736408883700059.821" → 1736408883700059821; only the exporter's own form (digits '.' three digits).
inline bool microsTextToNs(const std::string& text, std::int64_t& ns)
{
    const auto dot = text.find('.');
    if (dot == std::string::npos || text.size() - dot != 4)
        return false;
    const bool negative = !text.empty() && text[0] == '-';
    std::int64_t whole = 0;
    std::int64_t frac = 0;
    const char* begin = text.data() + (negative ? 1 : 0);
    if (std::from_chars(begin, text.data() + dot, whole).ec != std::errc())
        return false;
    if (std::from_chars(text.data() + dot + 1, text.data() + text.size(), frac).ec != std::errc())
        return false;
    ns = whole * 1000 + frac;
    if (negative)
        ns = -ns;
    return true;
}

} // namespace timesink::testing
