// SPDX-License-Identifier: MIT
#include "report/textformat.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace timesink::report {

std::string formatDuration(model::TimeNs ns)
{
    const char* sign = ns < 0 ? "-" : "";
    // Unsigned magnitude: -INT64_MIN does not fit an int64.
    const auto magnitude = ns < 0 ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
    char buf[64];
    if (magnitude < 1000) {
        std::snprintf(buf, sizeof buf, "%s%llu ns", sign, static_cast<unsigned long long>(magnitude));
        return buf;
    }
    struct Unit
    {
        double scale;
        const char* name;
    };
    static constexpr Unit kUnits[] = {{1e3, "µs"}, {1e6, "ms"}, {1e9, "s"}};
    std::size_t u = 0;
    while (u + 1 < std::size(kUnits) && static_cast<double>(magnitude) >= kUnits[u + 1].scale)
        ++u;
    const double value = static_cast<double>(magnitude) / kUnits[u].scale;
    const int decimals = value >= 100 ? 0 : value >= 10 ? 1 : 2;
    std::snprintf(buf, sizeof buf, "%s%.*f %s", sign, decimals, value, kUnits[u].name);
    return buf;
}

std::string formatPercent(double fraction)
{
    if (!std::isfinite(fraction))
        return "–";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
    return buf;
}

std::string formatMilliseconds(model::TimeNs ns)
{
    const bool negative = ns < 0;
    const auto magnitude = negative ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s%llu.%06llu", negative ? "-" : "",
                  static_cast<unsigned long long>(magnitude / 1'000'000),
                  static_cast<unsigned long long>(magnitude % 1'000'000));
    std::string text = buf;
    // Three decimals are what spreadsheets show; keep all six only when the sub-µs digits matter.
    if (text.size() >= 3 && text.compare(text.size() - 3, 3, "000") == 0)
        text.resize(text.size() - 3);
    return text;
}

std::string_view platformKey(analysis::Platform platform)
{
    using analysis::Platform;
    switch (platform) {
    case Platform::Generic:
        return "generic";
    case Platform::PyTorchCuda:
        return "pytorch_cuda";
    case Platform::PyTorchRocm:
        return "pytorch_rocm";
    case Platform::TorchNpuCann:
        return "torch_npu_cann";
    case Platform::Rknn:
        return "rknn";
    case Platform::Cpu:
        return "cpu";
    }
    return "generic";
}

std::string_view platformLabel(analysis::Platform platform)
{
    using analysis::Platform;
    switch (platform) {
    case Platform::Generic:
        return "any platform";
    case Platform::PyTorchCuda:
        return "PyTorch on CUDA";
    case Platform::PyTorchRocm:
        return "PyTorch on ROCm";
    case Platform::TorchNpuCann:
        return "torch_npu / CANN";
    case Platform::Rknn:
        return "RKNN";
    case Platform::Cpu:
        return "CPU";
    }
    return "any platform";
}

std::string kindLabel(std::string_view kind)
{
    std::string label = cleanText(kind);
    for (char& c : label) {
        if (c == '_')
            c = ' ';
    }
    if (!label.empty() && label[0] >= 'a' && label[0] <= 'z')
        label[0] = static_cast<char>(label[0] - 'a' + 'A');
    return label;
}

std::string cleanText(std::string_view text, bool keepNewlines)
{
    static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
    std::string out;
    out.reserve(text.size());
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    std::size_t i = 0;
    while (i < n) {
        const unsigned char c = p[i];
        if (c < 0x80) {
            if (c == '\n' || c == '\t' || c == '\r') {
                if (keepNewlines && c == '\n')
                    out += '\n';
                else if (c != '\r' || !keepNewlines)
                    out += ' ';
            } else if (c >= 0x20 && c != 0x7F) {
                out += static_cast<char>(c);
            }
            ++i;
            continue;
        }
        // Decode one UTF-8 sequence, rejecting overlong forms, surrogates and values past U+10FFFF.
        std::size_t len = 0;
        std::uint32_t cp = 0;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            cp = c & 0x07;
        }
        bool valid = len != 0 && i + len <= n;
        for (std::size_t k = 1; valid && k < len; ++k) {
            if ((p[i + k] & 0xC0) != 0x80)
                valid = false;
            else
                cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        if (valid) {
            valid = !(len == 3 && cp < 0x800) && !(len == 4 && (cp < 0x10000 || cp > 0x10FFFF))
                && !(cp >= 0xD800 && cp <= 0xDFFF);
        }
        if (!valid) {
            out += kReplacement;
            ++i;
            continue;
        }
        if (cp >= 0x80 && cp <= 0x9F) { // C1 controls
            i += len;
            continue;
        }
        out.append(text.substr(i, len));
        i += len;
    }
    return out;
}

std::string truncateText(std::string_view text, std::size_t maxChars)
{
    std::size_t chars = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80)
            continue; // continuation byte
        if (chars == maxChars)
            return std::string(text.substr(0, i)) + "…";
        ++chars;
    }
    return std::string(text);
}

} // namespace timesink::report
