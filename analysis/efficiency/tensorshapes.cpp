// SPDX-License-Identifier: MIT
#include "analysis/efficiency/tensorshapes.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace timesink::analysis::efficiency {

namespace {

constexpr std::int64_t kMaxElements = std::int64_t(1) << 62;

void skipSpace(std::string_view s, std::size_t& i)
{
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        ++i;
}

bool readInt(std::string_view s, std::size_t& i, std::int64_t& out)
{
    skipSpace(s, i);
    const char* first = s.data() + i;
    const auto [ptr, ec] = std::from_chars(first, s.data() + s.size(), out);
    if (ec != std::errc())
        return false;
    i += static_cast<std::size_t>(ptr - first);
    return true;
}

/// One `[…]` of integers (or of lists, of which the first is kept) starting at s[i] == '['.
bool readDims(std::string_view s, std::size_t& i, Dims& out, int depth)
{
    if (depth > 4 || i >= s.size() || s[i] != '[')
        return false;
    ++i;
    skipSpace(s, i);
    if (i < s.size() && s[i] == ']') {
        ++i;
        return true;
    }
    bool first = true;
    while (i < s.size()) {
        skipSpace(s, i);
        if (i < s.size() && s[i] == '[') {
            Dims inner;
            if (!readDims(s, i, inner, depth + 1))
                return false;
            if (first)
                out = std::move(inner); // a TensorList: its first tensor stands for it
        } else {
            std::int64_t v = 0;
            if (!readInt(s, i, v))
                return false;
            out.push_back(v);
        }
        first = false;
        skipSpace(s, i);
        if (i < s.size() && s[i] == ',') {
            ++i;
            continue;
        }
        if (i < s.size() && s[i] == ']') {
            ++i;
            return true;
        }
        return false;
    }
    return false;
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '"' || s.front() == '\'' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '"' || s.back() == '\'' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

} // namespace

std::optional<std::vector<Dims>> parseKinetoDims(std::string_view text)
{
    std::size_t i = 0;
    skipSpace(text, i);
    if (i >= text.size() || text[i] != '[')
        return std::nullopt;
    ++i;
    std::vector<Dims> out;
    skipSpace(text, i);
    if (i < text.size() && text[i] == ']')
        return out;
    while (i < text.size()) {
        skipSpace(text, i);
        Dims d;
        if (!readDims(text, i, d, 0))
            return std::nullopt;
        out.push_back(std::move(d));
        skipSpace(text, i);
        if (i < text.size() && text[i] == ',') {
            ++i;
            continue;
        }
        if (i < text.size() && text[i] == ']')
            return out;
        return std::nullopt;
    }
    return std::nullopt;
}

std::optional<std::vector<std::string>> parseKinetoStrings(std::string_view text)
{
    std::size_t i = 0;
    skipSpace(text, i);
    if (i >= text.size() || text[i] != '[')
        return std::nullopt;
    ++i;
    std::vector<std::string> out;
    while (i < text.size()) {
        skipSpace(text, i);
        if (i < text.size() && text[i] == ']')
            return out;
        if (i >= text.size() || text[i] != '"')
            return std::nullopt;
        ++i;
        std::string item;
        while (i < text.size() && text[i] != '"') {
            if (text[i] == '\\' && i + 1 < text.size())
                ++i;
            item.push_back(text[i++]);
        }
        if (i >= text.size())
            return std::nullopt;
        ++i;
        out.push_back(std::move(item));
        skipSpace(text, i);
        if (i < text.size() && text[i] == ',')
            ++i;
    }
    return std::nullopt;
}

std::optional<std::vector<Dims>> parseAscendShapes(std::string_view text)
{
    text = trim(text);
    if (text.empty() || text == "N/A")
        return std::nullopt;
    std::vector<Dims> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(';', start), text.size());
        const std::string_view part = trim(text.substr(start, end - start));
        Dims d;
        std::size_t i = 0;
        while (i < part.size()) {
            std::int64_t v = 0;
            if (!readInt(part, i, v))
                return std::nullopt;
            d.push_back(v);
            skipSpace(part, i);
            if (i < part.size() && part[i] == ',')
                ++i;
            else if (i < part.size())
                return std::nullopt;
        }
        out.push_back(std::move(d));
        if (end == text.size())
            break;
        start = end + 1;
    }
    return out;
}

std::vector<std::string> splitAscendList(std::string_view text)
{
    text = trim(text);
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(';', start), text.size());
        out.emplace_back(trim(text.substr(start, end - start)));
        if (end == text.size())
            break;
        start = end + 1;
    }
    return out;
}

std::int64_t elementCount(const Dims& d)
{
    std::int64_t n = 1;
    for (const std::int64_t v : d) {
        if (v < 0)
            return 0;
        if (v != 0 && n > kMaxElements / v)
            return 0;
        n *= v;
    }
    return n;
}

std::string describeShapes(const std::vector<Dims>& shapes)
{
    std::string out;
    for (const Dims& d : shapes) {
        if (d.empty())
            continue;
        if (!out.empty())
            out += 'x';
        out += '[';
        for (std::size_t i = 0; i < d.size(); ++i) {
            if (i > 0)
                out += ',';
            out += std::to_string(d[i]);
        }
        out += ']';
    }
    return out;
}

DataType parseDataType(std::string_view text)
{
    const std::string t = lower(trim(text));
    if (t == "float" || t == "float32" || t == "fp32" || t == "dt_float")
        return DataType::Fp32;
    if (t == "c10::bfloat16" || t == "bfloat16" || t == "dt_bf16" || t == "bf16")
        return DataType::Bf16;
    if (t == "c10::half" || t == "half" || t == "float16" || t == "fp16" || t == "dt_float16")
        return DataType::Fp16;
    if (t == "double" || t == "float64" || t == "dt_double")
        return DataType::Fp64;
    if (t.find("float8") != std::string::npos || t == "hifloat8" || t == "fp8")
        return DataType::Fp8;
    if (t == "int8" || t == "signed char" || t == "dt_int8" || t == "uint8" || t == "unsigned char")
        return DataType::Int8;
    if (t == "int16" || t == "short int" || t == "short")
        return DataType::Int16;
    if (t == "int" || t == "int32" || t == "dt_int32" || t == "uint32")
        return DataType::Int32;
    if (t == "long int" || t == "long" || t == "int64" || t == "dt_int64" || t == "long long int")
        return DataType::Int64;
    if (t == "bool" || t == "dt_bool")
        return DataType::Bool;
    return DataType::Unknown;
}

int bytesPerElement(DataType t)
{
    switch (t) {
    case DataType::Fp64:
    case DataType::Int64:
        return 8;
    case DataType::Fp32:
    case DataType::Tf32:
    case DataType::Int32:
        return 4;
    case DataType::Bf16:
    case DataType::Fp16:
    case DataType::Int16:
        return 2;
    case DataType::Fp8:
    case DataType::Int8:
    case DataType::Bool:
        return 1;
    case DataType::Unknown:
        return 0;
    }
    return 0;
}

std::string_view dataTypeKey(DataType t)
{
    switch (t) {
    case DataType::Fp64:
        return "fp64";
    case DataType::Fp32:
        return "fp32";
    case DataType::Tf32:
        return "tf32";
    case DataType::Bf16:
        return "bf16";
    case DataType::Fp16:
        return "fp16";
    case DataType::Fp8:
        return "fp8";
    case DataType::Int8:
        return "int8";
    case DataType::Int16:
        return "int16";
    case DataType::Int32:
        return "int32";
    case DataType::Int64:
        return "int64";
    case DataType::Bool:
        return "bool";
    case DataType::Unknown:
        return "unknown";
    }
    return "unknown";
}

} // namespace timesink::analysis::efficiency
