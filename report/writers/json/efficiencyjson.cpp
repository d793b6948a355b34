// SPDX-License-Identifier: MIT
#include "report/writers/json/efficiencyjson.h"

#include <string>

namespace timesink::report {

namespace {

using analysis::efficiency::BoundedFraction;
using analysis::efficiency::DevicePeaks;
using analysis::efficiency::EfficiencyReport;
using nlohmann::ordered_json;

void putFraction(ordered_json& j, const char* key, const std::optional<BoundedFraction>& f)
{
    if (!f) {
        j[key] = nullptr;
        return;
    }
    j[key] = f->value;
    if (f->clamped) {
        j["clamped"] = true;
        j["clamp_reason"] = f->reason;
    }
}

ordered_json deviceJson(const EfficiencyReport& r)
{
    ordered_json d;
    d["trace_name"] = r.deviceName;
    const ordered_json units = r.deviceComputeUnits > 0 ? ordered_json(r.deviceComputeUnits) : ordered_json(nullptr);
    if (!r.device) {
        d["name"] = nullptr;
        d["not_resolved"] = r.deviceNotResolved;
        d["compute_units"] = units;
        return d;
    }
    const DevicePeaks& p = *r.device;
    d["name"] = p.device;
    ordered_json peaks = ordered_json::object();
    const auto put = [&](const char* key, const std::optional<double>& v) {
        if (v)
            peaks[key] = *v;
    };
    put("fp32", p.fp32);
    put("tf32", p.tf32);
    put("bf16", p.bf16);
    put("fp16", p.fp16);
    put("fp8", p.fp8);
    put("int8", p.int8);
    d["peak_tflops"] = std::move(peaks);
    d["peak_bandwidth_gbps"] = p.bandwidthGBps ? ordered_json(*p.bandwidthGBps) : ordered_json(nullptr);
    if (p.fp32MatrixAs)
        d["fp32_matrix_peak"] = std::string(analysis::efficiency::dataTypeKey(*p.fp32MatrixAs));
    if (p.aiCores > 0) {
        d["ai_cores"] = p.aiCores;
        d["ai_core_clock_mhz"] = p.aiCoreClockMHz;
    }
    d["source"] = p.source;
    d["resolved_by"] = r.deviceResolvedBy;
    d["compute_units"] = units;
    if (!r.deviceResolutionNote.empty())
        d["resolution_note"] = r.deviceResolutionNote;
    return d;
}

} // namespace

ordered_json efficiencyJson(const EfficiencyReport& r, std::size_t maxOperators)
{
    ordered_json j;
    j["source"] = r.source;
    j["not_assessed"] = r.notAssessed.empty() ? ordered_json(nullptr) : ordered_json(r.notAssessed);
    j["device"] = deviceJson(r);
    j["measured_source"] = r.measuredSource.empty() ? ordered_json(nullptr) : ordered_json(r.measuredSource);
    j["device_ns"] = r.deviceNs;
    j["modelled_device_ns"] = r.modelledDeviceNs;
    ordered_json steps = ordered_json::array();
    for (const auto& s : r.steps) {
        ordered_json step {{"step", s.number}, {"duration_ns", s.durationNs}, {"flops", s.flops}};
        putFraction(step, "mfu", s.mfu);
        steps.push_back(std::move(step));
    }
    j["steps"] = std::move(steps);
    ordered_json classes = ordered_json::array();
    for (const auto& c : r.classes) {
        ordered_json k {{"class", std::string(analysis::efficiency::workClassKey(c.workClass))},
                        {"calls", c.calls},
                        {"flops", c.flops},
                        {"bytes", c.bytes},
                        {"device_ns", c.deviceNs},
                        {"tflops_per_s", c.tflopsPerS}};
        putFraction(k, "fraction_of_peak", c.fractionOfPeak);
        classes.push_back(std::move(k));
    }
    j["classes"] = std::move(classes);
    j["operator_count"] = r.operators.size();
    ordered_json ops = ordered_json::array();
    for (std::size_t i = 0; i < r.operators.size() && i < maxOperators; ++i) {
        const auto& o = r.operators[i];
        ordered_json op {{"name", o.name},
                         {"shapes", o.shapes},
                         {"dtype", std::string(analysis::efficiency::dataTypeKey(o.dtype))},
                         {"peak_dtype",
                          o.peakType == analysis::efficiency::DataType::Unknown
                              ? ordered_json(nullptr)
                              : ordered_json(std::string(analysis::efficiency::dataTypeKey(o.peakType)))},
                         {"class", std::string(analysis::efficiency::workClassKey(o.workClass))},
                         {"calls", o.calls},
                         {"flops", o.flops},
                         {"bytes", o.bytes},
                         {"device_ns", o.deviceNs},
                         {"tflops_per_s", o.tflopsPerS},
                         {"tb_per_s", o.tbPerS},
                         {"arithmetic_intensity", o.intensity},
                         {"bound", o.bound.empty() ? ordered_json(nullptr) : ordered_json(o.bound)}};
        putFraction(op, "roofline_fraction", o.rooflineFraction);
        if (o.measured)
            op["measured_utilisation"] = o.measured->value;
        ops.push_back(std::move(op));
    }
    j["operators"] = std::move(ops);
    ordered_json missing = ordered_json::array();
    for (const auto& n : r.notAssessedOperators)
        missing.push_back({{"reason", n.reason}, {"calls", n.calls}, {"device_ns", n.deviceNs}});
    j["not_assessed_operators"] = std::move(missing);
    return j;
}

ordered_json efficiencyByClassJson(const analysis::efficiency::CompareEfficiency& e)
{
    const auto side = [](const std::optional<analysis::efficiency::ClassSide>& c) {
        if (!c)
            return ordered_json(nullptr);
        ordered_json j {{"calls", c->cls.calls},
                        {"flops", c->cls.flops},
                        {"bytes", c->cls.bytes},
                        {"device_ns", c->cls.deviceNs},
                        {"tflops_per_s", c->cls.tflopsPerS}};
        putFraction(j, "fraction_of_peak", c->cls.fractionOfPeak);
        j["roofline_fraction"] = c->rooflineFraction ? ordered_json(*c->rooflineFraction) : ordered_json(nullptr);
        return j;
    };
    ordered_json rows = ordered_json::array();
    for (const analysis::efficiency::CompareEfficiencyClass& c : e.classes) {
        rows.push_back({{"class", std::string(analysis::efficiency::workClassKey(c.workClass))},
                        {"baseline", side(c.baseline)},
                        {"candidate", side(c.candidate)},
                        {"speed_ratio", c.speedRatio ? ordered_json(*c.speedRatio) : ordered_json(nullptr)},
                        {"limit", std::string(analysis::efficiency::slowdownCauseKey(c.cause))},
                        {"why", c.why}});
    }
    return rows;
}

} // namespace timesink::report
