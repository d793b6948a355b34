// SPDX-License-Identifier: MIT
#include "parsers/ascend/ascendkernelargs.h"

namespace timesink::parsers {

using model::Arg;
using model::ArgValue;

AscendKernelArgs::AscendKernelArgs(model::TraceBuilder& b)
    : m_b(b)
    , m_opType(b.intern("OP Type"))
    , m_core(b.intern("Accelerator Core"))
    , m_shapes(b.intern("Input Shapes"))
    , m_block(b.intern("Block Dim"))
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
}

} // namespace timesink::parsers
