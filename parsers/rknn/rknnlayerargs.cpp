// SPDX-License-Identifier: MIT
#include "parsers/rknn/rknnlayerargs.h"

#include "parsers/rknn/rknnlayercells.h"
#include "parsers/rknn/rknntext.h"

namespace timesink::parsers {

using model::Arg;
using model::ArgValue;

RknnLayerArgs::RknnLayerArgs(model::TraceBuilder& b)
    : m_b(b)
    , m_layerId(b.intern("layer_id"))
    , m_opType(b.intern("op_type"))
    , m_fullName(b.intern("full_name"))
    , m_sourceOp(b.intern("source_op"))
    , m_node(b.intern("node"))
    , m_dataType(b.intern("data_type"))
    , m_target(b.intern("target"))
    , m_inputShape(b.intern("input_shape"))
    , m_outputShape(b.intern("output_shape"))
    , m_ddrCycles(b.intern("ddr_cycles"))
    , m_npuCycles(b.intern("npu_cycles"))
    , m_totalCycles(b.intern("total_cycles"))
    , m_timeUs(b.intern("time_us"))
    , m_macUsage(b.intern("mac_usage"))
    , m_workload(b.intern("workload"))
    , m_workloadImprove(b.intern("workload_improve"))
    , m_coresUsed(b.intern("cores_used"))
    , m_rwKb(b.intern("rw_kb"))
    , m_uid(b.intern("uid"))
{
}

std::vector<Arg> RknnLayerArgs::of(const RknnLayer& l) const
{
    std::vector<Arg> args;
    args.push_back({m_layerId, ArgValue::fromInt(l.id)});
    args.push_back({m_opType, ArgValue::fromString(m_b.intern(l.opType))});
    if (!l.fullName.empty()) {
        args.push_back({m_fullName, ArgValue::fromString(m_b.intern(l.fullName))});
        if (const std::size_t colon = l.fullName.find(':'); colon != std::string::npos && colon > 0 && !l.uid) {
            args.push_back({m_sourceOp, ArgValue::fromString(m_b.intern(l.fullName.substr(0, colon)))});
            args.push_back({m_node, ArgValue::fromString(m_b.intern(l.fullName.substr(colon + 1)))});
        }
    }
    if (!l.dataType.empty())
        args.push_back({m_dataType, ArgValue::fromString(m_b.intern(l.dataType))});
    if (!l.target.empty())
        args.push_back({m_target, ArgValue::fromString(m_b.intern(l.target))});
    if (!l.inputShape.empty())
        args.push_back({m_inputShape, ArgValue::fromString(m_b.intern(l.inputShape))});
    if (!l.outputShape.empty())
        args.push_back({m_outputShape, ArgValue::fromString(m_b.intern(l.outputShape))});
    if (l.ddrCycles)
        args.push_back({m_ddrCycles, ArgValue::fromInt(*l.ddrCycles)});
    if (l.npuCycles)
        args.push_back({m_npuCycles, ArgValue::fromInt(*l.npuCycles)});
    if (l.totalCycles)
        args.push_back({m_totalCycles, ArgValue::fromInt(*l.totalCycles)});
    if (l.timeNs % 1000 == 0)
        args.push_back({m_timeUs, ArgValue::fromInt(l.timeNs / 1000)});
    else
        args.push_back({m_timeUs, ArgValue::fromDouble(static_cast<double>(l.timeNs) / 1000.0)});
    // 1.6 prints "\\" where 2.3.2 leaves the cell blank (a layer without MAC work): neither is a value.
    if (!l.macUsage.empty() && l.macUsage != "\\")
        args.push_back({m_macUsage, ArgValue::fromString(m_b.intern(l.macUsage))});
    if (!l.workload.empty()) {
        args.push_back({m_workload, ArgValue::fromString(m_b.intern(l.workload))});
        args.push_back({m_coresUsed, ArgValue::fromInt(rknncells::coresUsed(l.workload))});
    }
    if (!l.workloadImprove.empty())
        args.push_back({m_workloadImprove, ArgValue::fromString(m_b.intern(l.workloadImprove))});
    if (l.rwKb)
        args.push_back({m_rwKb, ArgValue::fromDouble(*l.rwKb)});
    if (l.uid)
        args.push_back({m_uid, ArgValue::fromInt(*l.uid)});
    for (const auto& [key, value] : l.extra) {
        const model::StringId k = m_b.intern(key);
        if (const auto n = rknntext::parseInt(value))
            args.push_back({k, ArgValue::fromInt(*n)});
        else
            args.push_back({k, ArgValue::fromString(m_b.intern(value))});
    }
    return args;
}

} // namespace timesink::parsers
