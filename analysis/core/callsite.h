// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"

#include <string>

namespace timesink::analysis {

/// Where device work came from on the host.
struct CallSite
{
    std::string name;       // outermost enclosing framework op, else the launching call, else "unknown call site"
    model::SliceRef launch; // the host slice the launch flow starts at (runtime call or framework op)
    model::SliceRef op;     // the framework op named by `name`, when there is one
    bool blocking = false;  // the launch blocks the host (cudaMemcpy, aclrtMemcpy, a copy its op then syncs, …)
};

/// Follows launch flows from device slices back to the host.
/// Example: kernel ← flow ← cudaLaunchKernel inside aten::relu_ inside aten::relu
///          → CallSite{name "aten::relu", launch = cudaLaunchKernel, op = aten::relu}.
class CallSiteResolver
{
public:
    explicit CallSiteResolver(const model::Trace& trace)
        : m_trace(trace)
    {
    }
    [[nodiscard]] CallSite resolve(model::SliceRef deviceSlice) const;
    /// The outermost HostOp that encloses `hostSlice` (or is it), or an invalid ref.
    [[nodiscard]] model::SliceRef outermostHostOp(model::SliceRef hostSlice) const;
    /// The outermost ATen op (`aten::…`) that encloses `hostSlice` (or is it), or an invalid ref. Unlike
    /// outermostHostOp() it skips wrappers such as `DistributedDataParallel.forward` and autograd nodes
    /// (`ConvolutionBackward0`), so it names the tensor operation: Conv2D ← aten::_convolution ←
    /// aten::convolution ← aten::conv2d ← DistributedDataParallel.forward → aten::conv2d.
    [[nodiscard]] model::SliceRef outermostAtenOp(model::SliceRef hostSlice) const;
    /// outermostAtenOp() of the host slices that launched `deviceSlice`, the first one found (torch_npu
    /// tasks have a launch from the CANN call, which has no ATen parent, and one from the framework op).
    [[nodiscard]] model::SliceRef launchingAtenOp(model::SliceRef deviceSlice) const;
    /// The name for grouping device work by the operator that caused it: launchingAtenOp(), else
    /// resolve().name when there is a launch, else `fallback`.
    [[nodiscard]] std::string operatorName(model::SliceRef deviceSlice, std::string_view fallback) const;

private:
    const model::Trace& m_trace;
};

} // namespace timesink::analysis
