// SPDX-License-Identifier: MIT
#include "analysis/efficiency/peaktable.h"

#include "analysis/efficiency/peaktabledefault.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

namespace timesink::analysis::efficiency {

namespace {

constexpr double kTera = 1e12;
constexpr std::size_t kColumns = 12;

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

/// "-" → 0; a positive whole number → it; anything else → false.
bool readUnits(std::string_view cell, std::int32_t& out)
{
    out = 0;
    if (cell == "-")
        return true;
    const auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), out);
    return ec == std::errc() && ptr == cell.data() + cell.size() && out > 0;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool anyOccurs(const std::vector<std::string>& patterns, const std::string& lowerName)
{
    return std::any_of(patterns.begin(), patterns.end(),
                       [&](const std::string& m) { return lowerName.find(m) != std::string::npos; });
}

/// Whether a row with a generic pattern occurring in the name exists (the name alone cannot tell the chip).
bool genericRow(const PeakTable& table, const std::string& lowerName)
{
    return std::any_of(table.rows.begin(), table.rows.end(),
                       [&](const DevicePeaks& row) { return anyOccurs(row.genericMatches, lowerName); });
}

/// The trace's memory agrees with the row's nominal size N GB: vendors write GB for 10^9 bytes (B200's 192 GB)
/// or for 2^30 (MI250's 64 GB HBM2e: 68,702,699,520 bytes seen), and the driver keeps some: between 90 % of
/// N·10^9 and N·2^30 (+1 %). A row that names no memory agrees with any; a trace that states none with none.
bool memoryAgrees(const DevicePeaks& row, std::int64_t bytes)
{
    if (!(row.memoryGB > 0.0))
        return true;
    const auto b = static_cast<double>(bytes);
    return bytes > 0 && b >= 0.9 * row.memoryGB * 1e9 && b <= 1.01 * row.memoryGB * 1073741824.0;
}

std::string formatGB(double gb)
{
    std::array<char, 32> buf {};
    const auto [ptr, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), std::round(gb * 10.0) / 10.0);
    return ec == std::errc() ? std::string(buf.data(), ptr) : std::string("?");
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
                if (m.starts_with('~') && m.size() > 1)
                    row.genericMatches.push_back(lower(m.substr(1)));
                else if (!m.empty() && m != "~")
                    row.matches.push_back(lower(m));
            }
            std::optional<double> memory;
            ok = readUnits(cells[2], row.units) && readPeak(cells[3], memory) && readPeak(cells[4], row.fp32)
                && readPeak(cells[5], row.tf32) && readPeak(cells[6], row.bf16) && readPeak(cells[7], row.fp16)
                && readPeak(cells[8], row.fp8) && readPeak(cells[9], row.int8) && readPeak(cells[10], row.bandwidthGBps)
                && (!row.matches.empty() || !row.genericMatches.empty())
                // a generic name selects a row only by its count and memory: without them it would take any chip
                && (row.genericMatches.empty() || (row.units > 0 && memory));
            row.memoryGB = memory.value_or(0.0);
            row.source = std::string(cells[11]);
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
        if (anyOccurs(row.matches, name))
            return &row;
    }
    return nullptr;
}

DeviceResolution resolveDevice(const PeakTable& table, const DeviceFacts& facts)
{
    DeviceResolution out;
    const std::string name = lower(facts.name);
    const DevicePeaks* byName = resolveDevice(table, facts.name);
    const std::string quoted = "\"" + std::string(facts.name) + "\"";
    const std::string never = ": no roofline (a chip's numbers are never borrowed from another)";
    if (facts.computeUnits <= 0) {
        if (byName) {
            out.row = byName;
            out.resolvedBy = "name";
        } else if (genericRow(table, name)) {
            out.notResolved
                = quoted + " is a name several chips share; the trace states no SM/CU count to tell which" + never;
        } else {
            out.notResolved = "no row of the peak table matches " + quoted + never;
        }
        return out;
    }
    const std::string count = std::to_string(facts.computeUnits) + " SMs/CUs";
    std::string selected; // the rows the name selects and their counts, for the report of a count none has
    // The rows a name pattern selects first; a generic pattern only where none of those has the count.
    for (const bool generic : {false, true}) {
        for (const DevicePeaks& row : table.rows) {
            if (!anyOccurs(generic ? row.genericMatches : row.matches, name)
                || (generic && anyOccurs(row.matches, name))) // judged by its name pattern already
                continue;
            if (row.units > 0 && row.units != facts.computeUnits) {
                selected += (selected.empty() ? "" : ", ") + row.device + " has " + std::to_string(row.units);
                continue;
            }
            if (generic && !memoryAgrees(row, facts.memoryBytes)) {
                selected += (selected.empty() ? "" : ", ") + row.device + " has " + formatGB(row.memoryGB) + " GB";
                continue;
            }
            out.row = &row;
            if (generic)
                out.resolvedBy = "compute units and memory";
            else
                out.resolvedBy = row.units > 0 ? "name and compute units" : "name";
            if (byName && byName != &row)
                out.note = "the name alone selects " + byName->device + " (" + std::to_string(byName->units)
                    + " SMs/CUs); the trace's " + count + " are " + row.device + "'s";
            return out;
        }
    }
    if (selected.empty()) {
        out.notResolved = "no row of the peak table matches " + quoted + never;
        return out;
    }
    out.notResolved = "the trace says " + quoted + " with " + count
        + (facts.memoryBytes > 0 ? " and " + formatGB(static_cast<double>(facts.memoryBytes) / 1e9) + " GB" : "")
        + ", which no chip of that name has (" + selected + ")" + never;
    return out;
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
