// SPDX-License-Identifier: MIT
#include "analysis/efficiency/peaktable.h"

#include "analysis/efficiency/peaktabledefault.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace timesink::analysis::efficiency {

namespace {

constexpr double kTera = 1e12;
constexpr std::size_t kColumns = 10;

std::vector<std::string_view> split(std::string_view s, char sep)
{
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = s.find(sep, start);
        out.push_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos)
            return out;
        start = end + 1;
    }
}

/// "-" → nothing; a positive number → it; anything else → false (the row is rejected).
bool readPeak(std::string_view cell, std::optional<double>& out)
{
    if (cell == "-") {
        out.reset();
        return true;
    }
    double v = 0.0;
    const auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
    if (ec != std::errc() || ptr != cell.data() + cell.size() || !(v > 0.0))
        return false;
    out = v;
    return true;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

} // namespace

std::optional<double> DevicePeaks::peakFlops(DataType t) const
{
    std::optional<double> tflops;
    switch (t) {
    case DataType::Fp32:
        tflops = fp32;
        break;
    case DataType::Tf32:
        tflops = tf32;
        break;
    case DataType::Bf16:
        tflops = bf16;
        break;
    case DataType::Fp16:
        tflops = fp16;
        break;
    case DataType::Fp8:
        tflops = fp8;
        break;
    case DataType::Int8:
        tflops = int8;
        break;
    default:
        break;
    }
    if (!tflops)
        return std::nullopt;
    return *tflops * kTera;
}

std::optional<double> DevicePeaks::bandwidth() const
{
    if (!bandwidthGBps)
        return std::nullopt;
    return *bandwidthGBps * 1e9;
}

PeakTable parsePeakTable(std::string_view tsv)
{
    PeakTable table;
    bool header = true;
    for (std::string_view line : split(tsv, '\n')) {
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (line.empty() || line.front() == '#')
            continue;
        if (header) {
            header = false; // the column names
            continue;
        }
        const std::vector<std::string_view> cells = split(line, '\t');
        DevicePeaks row;
        bool ok = cells.size() == kColumns && !cells[0].empty() && !cells[1].empty();
        if (ok) {
            row.device = std::string(cells[0]);
            for (std::string_view m : split(cells[1], '|')) {
                if (!m.empty())
                    row.matches.push_back(lower(m));
            }
            ok = readPeak(cells[2], row.fp32) && readPeak(cells[3], row.tf32) && readPeak(cells[4], row.bf16)
                && readPeak(cells[5], row.fp16) && readPeak(cells[6], row.fp8) && readPeak(cells[7], row.int8)
                && readPeak(cells[8], row.bandwidthGBps) && !row.matches.empty();
            row.source = std::string(cells[9]);
        }
        if (ok)
            table.rows.push_back(std::move(row));
        else
            ++table.rejected;
    }
    return table;
}

const PeakTable& builtinPeakTable()
{
    static const PeakTable table = parsePeakTable(kDefaultPeakTableTsv);
    return table;
}

const DevicePeaks* resolveDevice(const PeakTable& table, std::string_view deviceName)
{
    const std::string name = lower(deviceName);
    for (const DevicePeaks& row : table.rows) {
        for (const std::string& m : row.matches) {
            if (name.find(m) != std::string::npos)
                return &row;
        }
    }
    return nullptr;
}

std::optional<double> ascendPeakFlops(int aiCores, double frequencyMHz, DataType t)
{
    if (aiCores <= 0 || !(frequencyMHz > 0.0))
        return std::nullopt;
    double opsPerCycle = 0.0;
    if (t == DataType::Fp16 || t == DataType::Bf16)
        opsPerCycle = 16.0 * 16.0 * 16.0 * 2.0;
    else if (t == DataType::Int8)
        opsPerCycle = 16.0 * 32.0 * 16.0 * 2.0;
    else
        return std::nullopt;
    return static_cast<double>(aiCores) * frequencyMHz * 1e6 * opsPerCycle;
}

} // namespace timesink::analysis::efficiency
