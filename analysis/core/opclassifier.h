// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::analysis {

/// Normalised operator type: lower case, without an `aten::` (or other `ns::`) prefix, without trailing
/// digits and underscores (Ascend task names carry an instance number, in-place ATen ops a `_`).
/// Examples: "aten::relu_" → "relu", "Conv2D1" → "conv2d", "BNTrainingUpdate" → "bntrainingupdate".
std::string normalizeOpType(std::string_view name);

/// The operator type of a slice as the platform names it: the `OpType`/`op_type`/`Type`/`OP Type` arg
/// when the importer kept one (RKNN fused types, Ascend op types), else the slice name.
std::string_view rawOpType(const model::Trace& trace, model::SliceRef ref);

/// The role an operator plays in a fusable chain.
enum class ChainRole : std::uint8_t { None, Conv, BatchNorm, Activation, MatMul, Add };
/// Role of a normalised op type. Fused types ("convrelu", "convexswish") have no role, so a fused
/// layer never starts a chain. Example: "conv2d" → Conv, "bntrainingreduce" → BatchNorm, "relu" → Activation.
ChainRole chainRole(std::string_view normalized);

/// rawOpType() for many slices: the arg keys are looked up in the string pool once, and the chain role
/// of each distinct op-type string is computed once (a trace has millions of slices but few op types).
class OpTypeReader
{
public:
    explicit OpTypeReader(const model::Trace& trace);
    /// The interned op type of a slice (arg or name), as rawOpType().
    [[nodiscard]] model::StringId opType(model::SliceRef ref) const;
    /// chainRole(normalizeOpType(text of id)), memoised.
    [[nodiscard]] ChainRole roleOf(model::StringId id);

private:
    const model::Trace& m_trace;
    std::vector<model::StringId> m_keys;
    std::vector<std::int8_t> m_roles; // by StringId value; -1 = not computed yet
};

/// RKNN graph-edge operators (layout/dtype conversion of inputs and outputs). They run on the CPU in
/// every RKNN build, so they are not fallbacks.
bool isIoOperator(std::string_view normalized);

/// A slice that is a CPU fallback the cpu_fallback pass counts: category FallbackOp and not an
/// RKNN Input/Output operator.
bool isCountedFallback(const model::Trace& trace, model::SliceRef ref);

/// Host calls the porting kinds claim device idle time for (see deviceactivity.h).
enum class HostCallKind : std::uint8_t {
    None,
    /// Operator compilation at run time: Ascend `AscendCL@aclopCompile*` / `AscendCL@opCompile`, TorchDynamo
    /// compiles (`… (dynamo_timed)` ranges, `torch/_dynamo/convert_frame.py(N): _compile` frames,
    /// `torch/_inductor/compile_fx.py(N): compile_fx_inner` frames).
    Compile,
    /// Kernel autotuning (`cudnnFind*`, `miopenFind*`): a compile cost only after the first step.
    Autotune,
    /// Device memory allocation or release through the runtime (`cudaMalloc`, `cudaFree`, `hipMalloc`,
    /// `aclrtMalloc`, `aclrtFree`, …): the caching allocator missed or emptied its cache. Stream-ordered
    /// `cudaMallocAsync`/`cudaFreeAsync` are not counted (they do not synchronise).
    Allocator,
};
/// Kind of a host call by its name. Example: "AscendCL@aclopCompileAndExecute" → Compile, "cudaFree" → Allocator.
HostCallKind hostCallKind(std::string_view name);
/// True when some interned string of the trace is a call of one of `kinds` — a scan of the string pool, far
/// cheaper than of the slices, so passes with nothing to look for return early.
bool mayHaveHostCall(const model::Trace& trace, std::initializer_list<HostCallKind> kinds);

/// Host runtime calls that block the calling thread until the device catches up
/// (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, synchronous cudaMemcpy,
/// aclrtSynchronizeStream, aclrtMemcpy, hipDeviceSynchronize, hipMemcpy, hipMemcpyWithStream …).
bool isBlockingRuntimeCall(std::string_view name);

/// Framework ops that copy a device value to the host and so wait for the device: `aten::_local_scalar_dense`
/// (`.item()`), `aten::nonzero` (its output size). The blocking calls of a thread that records no runtime calls
/// (a torch_npu Level0 export); where runtime calls are recorded, their synchronise is the blocking call.
bool isSynchronisingFrameworkOp(std::string_view name);

} // namespace timesink::analysis
