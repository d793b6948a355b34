// SPDX-License-Identifier: MIT
#include "analysis/core/rknnlayers.h"

#include "analysis/core/textformat.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace timesink::analysis {

namespace {

constexpr std::int64_t kMaxCycles = 10'000'000'000'000; // 10^13: an hour at 2 GHz, far above one layer
constexpr double kMaxRwKb = 1e9;                        // a terabyte per layer
constexpr double kWorkloadSlack = 1.5;                  // percentage points: each share is rounded to 0.1
constexpr std::size_t kMaxProblems = 8;

std::string_view stringArg(const model::Trace& trace, model::SliceRef ref, std::string_view key)
{
    const std::optional<model::ArgValue> v = trace.arg(ref, key);
    if (!v || v->type != model::ArgValue::Type::String)
        return {};
    return trace.str(model::StringId(v->s));
}

std::optional<std::int64_t> intArg(const model::Trace& trace, model::SliceRef ref, std::string_view key)
{
    const std::optional<model::ArgValue> v = trace.arg(ref, key);
    if (!v || v->type != model::ArgValue::Type::Int)
        return std::nullopt;
    return v->i;
}

std::optional<double> numberArg(const model::Trace& trace, model::SliceRef ref, std::string_view key)
{
    const std::optional<model::ArgValue> v = trace.arg(ref, key);
    if (!v)
        return std::nullopt;
    if (v->type == model::ArgValue::Type::Double)
        return v->d;
    if (v->type == model::ArgValue::Type::Int)
        return static_cast<double>(v->i);
    return std::nullopt;
}

std::optional<double> parseNumber(std::string_view s)
{
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ')
        s.remove_suffix(1);
    if (s.empty())
        return std::nullopt;
    double v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

// "33.3%/33.3%/33.3%" → {33.3, 33.3, 33.3}; "2.32/0.00/0.00" → {2.32, 0, 0}; a part that is no number → nullopt.
std::optional<std::vector<double>> slashNumbers(std::string_view cell, bool percentSigns)
{
    std::vector<double> out;
    while (true) {
        const std::size_t slash = cell.find('/');
        std::string_view part = cell.substr(0, slash);
        if (percentSigns && !part.empty() && part.back() == '%')
            part.remove_suffix(1);
        const std::optional<double> v = parseNumber(part);
        if (!v)
            return std::nullopt;
        out.push_back(*v);
        if (slash == std::string_view::npos)
            break;
        cell.remove_prefix(slash + 1);
    }
    return out;
}

std::string layerLabel(const RknnLayerRow& l)
{
    return "layer " + std::to_string(l.layerId) + " (" + cleanText(l.opType) + ")";
}

} // namespace

RknnLayerTable readRknnLayers(const model::Trace& trace)
{
    RknnLayerTable table;
    if (trace.metadata().platform != model::Platform::Rknn)
        return table;
    for (const model::Track& t : trace.tracks()) {
        // The "NPU core N" lanes (Synthetic) repeat the layers of the NPU track: each layer is read once.
        if (t.role == model::TrackRole::Counter || t.role == model::TrackRole::Synthetic)
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            const model::SliceRef ref {t.id, model::SliceIndex(i)};
            const std::optional<std::int64_t> id = intArg(trace, ref, "layer_id");
            if (!id)
                continue;
            RknnLayerRow l;
            l.ref = ref;
            l.ts = t.ts(i);
            l.dur = std::max<model::TimeNs>(0, t.dur(i));
            l.layerId = *id;
            l.opType = stringArg(trace, ref, "op_type");
            l.fullName = stringArg(trace, ref, "full_name");
            l.dataType = stringArg(trace, ref, "data_type");
            l.inputShape = stringArg(trace, ref, "input_shape");
            l.outputShape = stringArg(trace, ref, "output_shape");
            l.target = stringArg(trace, ref, "target");
            l.onNpu = l.target == "NPU" || (l.target.empty() && t.deviceKind == model::DeviceKind::EdgeNpu);
            auto flag = [&](std::string why) {
                if (l.problem.empty())
                    l.problem = std::move(why);
                else
                    l.problem += "; " + why;
            };

            const std::optional<std::int64_t> ddr = intArg(trace, ref, "ddr_cycles");
            const std::optional<std::int64_t> npu = intArg(trace, ref, "npu_cycles");
            const std::optional<std::int64_t> total = intArg(trace, ref, "total_cycles");
            if (ddr || npu || total) {
                table.hasCyclesColumn = true;
                const std::int64_t d = ddr.value_or(-1);
                const std::int64_t n = npu.value_or(-1);
                const std::int64_t tot = total.value_or(-1);
                if (d < 0 || n < 0 || tot < 0 || d > kMaxCycles || n > kMaxCycles || tot > kMaxCycles)
                    flag("cycles " + std::to_string(d) + "/" + std::to_string(n) + "/" + std::to_string(tot)
                         + " are negative, missing or above 10^13");
                else if (tot != std::max(d, n))
                    flag("Total cycles " + std::to_string(tot) + " are not max(DDR " + std::to_string(d) + ", NPU "
                         + std::to_string(n) + ")");
                else if (tot > 0) {
                    l.ddrCycles = d;
                    l.npuCycles = n;
                    l.totalCycles = tot;
                }
            }

            const std::string_view workload = stringArg(trace, ref, "workload");
            l.workloadText = workload;
            if (!workload.empty()) {
                table.hasWorkloadColumn = true;
                const auto shares = slashNumbers(workload, true);
                if (!shares) {
                    flag("WorkLoad '" + cleanText(workload) + "' is not a list of shares");
                } else {
                    table.workloadParts = std::max(table.workloadParts, shares->size());
                    double sum = 0;
                    bool inRange = true;
                    for (double s : *shares) {
                        inRange = inRange && s >= 0.0 && s <= 100.0;
                        sum += s;
                    }
                    if (!inRange)
                        flag("WorkLoad " + cleanText(workload) + " has a share outside 0–100 %");
                    else if (sum > 0.0 && std::abs(sum - 100.0) > kWorkloadSlack)
                        flag("WorkLoad " + cleanText(workload) + " adds up to " + formatFixed(sum, 1)
                             + " %, not 100 %");
                    else if (sum > 0.0)
                        l.workload = *shares;
                }
            }

            const std::string_view mac = stringArg(trace, ref, "mac_usage");
            if (!mac.empty())
                table.hasMacColumn = true;
            if (!mac.empty() && mac != "\\") {
                const auto values = slashNumbers(mac, false);
                if (!values || std::any_of(values->begin(), values->end(), [](double v) { return v < 0 || v > 100; })) {
                    flag("MacUsage '" + cleanText(mac) + "' is not a list of percentages");
                } else {
                    l.macPerCore = *values;
                    // The cores that ran the layer: those with a WorkLoad share, else those with any MAC usage.
                    double sum = 0;
                    int n = 0;
                    for (std::size_t c = 0; c < values->size(); ++c) {
                        const bool ran = l.workload.empty() ? (*values)[c] > 0 || c == 0
                                                            : c < l.workload.size() && l.workload[c] > 0;
                        if (ran) {
                            sum += (*values)[c];
                            ++n;
                        }
                    }
                    if (n > 0)
                        l.macUsage = sum / n;
                }
            }

            if (const std::optional<double> rw = numberArg(trace, ref, "rw_kb")) {
                if (!std::isfinite(*rw) || *rw < 0 || *rw > kMaxRwKb)
                    flag("RW(KB) " + formatGeneral(*rw) + " is negative or above 10^9");
                else
                    l.rwKb = *rw;
            }

            if (!l.problem.empty()) {
                ++table.badLayers;
                if (table.problems.size() < kMaxProblems)
                    table.problems.push_back(layerLabel(l) + ": " + l.problem);
            }
            table.layers.push_back(std::move(l));
        }
    }
    std::stable_sort(table.layers.begin(), table.layers.end(),
                     [](const RknnLayerRow& a, const RknnLayerRow& b) { return a.ts < b.ts; });
    return table;
}

int rknnPlatformCores(std::string_view chip)
{
    std::string upper;
    for (char c : chip)
        upper += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
    if (upper.find("RK3588") != std::string::npos)
        return 3;
    if (upper.find("RK3576") != std::string::npos)
        return 2;
    for (const char* one :
         {"RK3568", "RK3566", "RK3562", "RV1126", "RV1109", "RV1103", "RV1106", "RK1808", "RK3399PRO"}) {
        if (upper.find(one) != std::string::npos)
            return 1;
    }
    return 0;
}

std::string rknnLayerText(const RknnLayerRow& l)
{
    std::string text = "#" + std::to_string(l.layerId) + " " + cleanText(l.opType);
    if (!l.inputShape.empty() && l.inputShape != "\\")
        text += " " + cleanText(l.inputShape);
    if (!l.outputShape.empty() && l.outputShape != "\\")
        text += " → " + cleanText(l.outputShape);
    return text;
}

bool isRknnDataMovement(std::string_view opType)
{
    std::string type;
    for (char c : opType) {
        if (c >= 'A' && c <= 'Z')
            type += static_cast<char>(c - 'A' + 'a');
        else if (c >= 'a' && c <= 'z')
            type += c;
    }
    for (std::string_view t :
         {"split", "concat", "reshape", "transpose", "resize", "slice", "stridedslice", "permute", "tensortrans",
          "flatten", "squeeze", "unsqueeze", "upsample", "depthtospace", "spacetodepth", "pixelshuffle"}) {
        if (type == t)
            return true;
    }
    return false;
}

std::string rknnArgText(std::string_view key, std::string_view text, std::optional<double> number)
{
    if (number && std::isfinite(*number)) {
        const auto whole = static_cast<std::int64_t>(std::llround(*number));
        if (key == "ddr_cycles" || key == "npu_cycles" || key == "total_cycles")
            return formatGrouped(whole);
        if (key == "rw_kb") {
            const std::string kb
                = static_cast<double>(whole) == *number ? formatGrouped(whole) : formatFixed(*number, 2);
            return kb + " KB (" + formatBytes(static_cast<std::int64_t>(std::llround(*number * 1024.0))) + ")";
        }
        if (key == "time_us")
            return formatDuration(static_cast<model::TimeNs>(std::llround(*number * 1000.0)));
        return {};
    }
    if ((key == "input_shape" || key == "output_shape") && text == "\\")
        return "none";
    if (key == "mac_usage") {
        const auto values = slashNumbers(text, false);
        if (!values)
            return {};
        std::string out;
        for (std::size_t c = 0; c < values->size(); ++c)
            out += (c ? ", core " : "core ") + std::to_string(c) + ": " + formatFixed((*values)[c], 2) + "%";
        return out;
    }
    if (key == "workload") {
        const auto shares = slashNumbers(text, true);
        if (!shares)
            return {};
        std::vector<std::size_t> ran;
        for (std::size_t c = 0; c < shares->size(); ++c) {
            if ((*shares)[c] > 0)
                ran.push_back(c);
        }
        if (ran.empty())
            return "no core share printed";
        if (ran.size() == 1)
            return "core " + std::to_string(ran[0]) + " only";
        const bool even
            = std::all_of(ran.begin(), ran.end(), [&](std::size_t c) { return (*shares)[c] == (*shares)[ran[0]]; });
        std::string out = "cores ";
        for (std::size_t k = 0; k < ran.size(); ++k)
            out += (k ? ", " : "") + std::to_string(ran[k])
                + (even ? "" : " " + formatFixed((*shares)[ran[k]], 1) + "%");
        return even ? out + ": " + formatFixed((*shares)[ran[0]], 1) + "% each" : out;
    }
    return {};
}

std::string rknnToolkitText(const model::Trace& trace)
{
    std::string text;
    for (const auto& [key, value] : trace.metadata().properties) {
        const char* what = key == "toolkit_version" ? "rknn-toolkit" : key == "runtime_version" ? "librknnrt" : nullptr;
        if (what == nullptr)
            continue;
        text += (text.empty() ? "" : ", ") + std::string(what) + " " + cleanText(value);
    }
    return text;
}

model::TimeNs analysedPart(const StepClock& clock, model::TimeNs ts, model::TimeNs dur)
{
    model::TimeNs in = 0;
    if (dur <= 0 || ts > std::numeric_limits<model::TimeNs>::max() - dur)
        return 0;
    clock.forEachOverlap(ts, ts + dur, [&](std::size_t, model::TimeNs s, model::TimeNs e) { in += e - s; });
    return in;
}

std::optional<NpuCoreUse> npuCoreUse(const model::Trace& trace, const RknnLayerTable& table, const StepClock& clock)
{
    if (trace.metadata().platform != model::Platform::Rknn || clock.analysedNs() <= 0)
        return std::nullopt;
    bool anyNpu = false;
    for (const RknnLayerRow& l : table.layers)
        anyNpu = anyNpu || l.onNpu;
    if (!anyNpu)
        return std::nullopt;
    NpuCoreUse use;
    for (const model::Device& d : trace.metadata().devices)
        use.coresOnChip = std::max(use.coresOnChip, rknnPlatformCores(d.name));
    int maskCores = 0;
    for (const auto& [key, value] : trace.metadata().properties) {
        if (key != "core_mask")
            continue;
        // "0_1_2" → 3; "all" → the chip's cores.
        if (value == "all")
            maskCores = use.coresOnChip;
        else
            maskCores = static_cast<int>(
                std::count_if(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }));
    }
    int widest = 0;
    std::vector<model::TimeNs> busy(std::max<std::size_t>(table.workloadParts, 1), 0);
    for (const RknnLayerRow& l : table.layers) {
        if (!l.onNpu)
            continue;
        const model::TimeNs t = analysedPart(clock, l.ts, l.dur);
        if (l.workload.empty()) {
            busy[0] += t; // no per-core shares: one core ran it
            ++use.singleLayers;
            continue;
        }
        const double top = *std::max_element(l.workload.begin(), l.workload.end());
        int ran = 0;
        for (std::size_t c = 0; c < l.workload.size(); ++c) {
            if (l.workload[c] <= 0)
                continue;
            ++ran;
            busy[c] += static_cast<model::TimeNs>(std::llround(static_cast<double>(t) * (l.workload[c] / top)));
        }
        widest = std::max(widest, ran);
        ++(ran >= 2 ? use.splitLayers : use.singleLayers);
    }
    if (table.hasWorkloadColumn && widest > 0) {
        use.cores = std::max(widest, maskCores);
        use.coresSource = maskCores > widest ? "core_mask" : "workload";
    } else if (maskCores > 0) {
        use.cores = maskCores;
        use.coresSource = "core_mask";
    } else {
        use.cores = std::max(use.coresOnChip, 1);
        use.coresSource = "platform";
    }
    if (busy.size() < static_cast<std::size_t>(use.cores))
        busy.resize(static_cast<std::size_t>(use.cores), 0);
    use.busyNs = std::move(busy);
    for (model::TimeNs b : use.busyNs)
        use.coreTimeNs += b;
    use.frameNs = clock.analysedNs();
    if (widest > 0 || use.cores == 1)
        use.busyFraction
            = static_cast<double>(use.coreTimeNs) / (static_cast<double>(use.cores) * static_cast<double>(use.frameNs));
    return use;
}

} // namespace timesink::analysis
