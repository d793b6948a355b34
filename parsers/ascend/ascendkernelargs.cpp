// SPDX-License-Identifier: MIT
#include "parsers/ascend/ascendkernelargs.h"

#include "model/argnames.h"

namespace timesink::parsers {

using model::Arg;
using model::ArgValue;

AscendKernelArgs::AscendKernelArgs(model::TraceBuilder& b)
    : m_b(b)
    , m_opType(b.intern("OP Type"))
    , m_core(b.intern("Accelerator Core"))
    , m_shapes(b.intern("Input Shapes"))
    , m_block(b.intern(model::argnames::kBlockDim))
    , m_inTypes(b.intern(model::argnames::kInputDataTypes))
    , m_inFormats(b.intern("Input Formats"))
    , m_outTypes(b.intern("Output Data Types"))
    , m_outFormats(b.intern("Output Formats"))
    , m_outShapes(b.intern(model::argnames::kOutputShapes))
{
}

void AscendKernelArgs::append(const KernelRow& k, std::vector<Arg>& args) const
{
    if (!k.opType.empty())
        args.push_back(Arg {m_opType, ArgValue::fromString(m_b.intern(k.opType))});
    if (!k.coreType.empty())
        args.push_back(Arg {m_core, ArgValue::fromString(m_b.intern(k.coreType))});
    if (!k.inputShapes.empty())
        args.push_back(Arg {m_shapes, ArgValue::fromString(m_b.intern(k.inputShapes))});
    if (k.blockDim >= 0)
        args.push_back(Arg {m_block, ArgValue::fromInt(k.blockDim)});
    const auto text = [&](model::StringId key, const std::string& value) {
        if (!value.empty())
            args.push_back(Arg {key, ArgValue::fromString(m_b.intern(value))});
    };
    text(m_inTypes, k.inputDataTypes);
    text(m_inFormats, k.inputFormats);
    text(m_outTypes, k.outputDataTypes);
    text(m_outFormats, k.outputFormats);
    text(m_outShapes, k.outputShapes);
    appendPmu(k.pmu, args);
}

void AscendKernelArgs::appendPmu(const KernelPmu& pmu, std::vector<Arg>& args) const
{
    static constexpr std::array<std::string_view, 7> kNames {
        model::argnames::kAicoreTime,     model::argnames::kAicTotalCycles,  model::argnames::kAicMacRatio,
        model::argnames::kAicMte2Ratio,   model::argnames::kAicMacFp16Ratio, model::argnames::kAicMacInt8Ratio,
        model::argnames::kCubeUtilization};
    const std::array<const std::optional<double>*, 7> values {
        &pmu.aicoreTimeUs,    &pmu.aicTotalCycles,  &pmu.aicMacRatio,           &pmu.aicMte2Ratio,
        &pmu.aicMacFp16Ratio, &pmu.aicMacInt8Ratio, &pmu.cubeUtilizationPercent};
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (!*values[i])
            continue;
        if (m_pmu[i].isEmpty())
            m_pmu[i] = m_b.intern(kNames[i]);
        args.push_back(Arg {m_pmu[i], ArgValue::fromDouble(**values[i])});
    }
}

} // namespace timesink::parsers
