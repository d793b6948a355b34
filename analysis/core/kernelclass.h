// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/opclassifier.h"
#include "model/trace.h"

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace timesink::analysis {

/// What a piece of device work does, named the same way for every vendor, so that a CUDA GEMM, a hipBLASLt
/// `Cijk_…` kernel, an Ascend `MatMulV2` task and an RKNN `FullyConnected` layer land in one row of a comparison.
/// The one table is classifyKernelName() (docs/compare.md "Kernel classes" lists its rules and what each fixture
/// leaves as `other`).
enum class KernelClass : std::uint8_t {
    Gemm,          // matrix multiplies: cuBLAS/cuBLASLt (sgemm, xmma_gemm, nvjet), CUTLASS, hipBLASLt Cijk_, MatMul*
    Conv,          // convolutions: cuDNN (scudnn, implicit gemm fprop/dgrad/wgrad, winograd), MIOpen, Conv2D*, Conv*
    Attention,     // fused attention: flash, fmha, attn_fwd, paged attention, FlashAttentionScore
    Elementwise,   // pointwise math, activations, optimizer updates, dropout masks, fills
    Normalization, // layer/RMS/batch/group norm and their gradients
    Reduction,     // reductions, softmax, pooling, top-k, scans and sorts, losses
    Embedding,     // embedding lookups, gather/scatter, indexing, KV-cache stores
    Copy,          // device copies (memcpy, TensorMove)
    Memset,        // device memsets
    Communication, // collectives and point-to-point (NCCL, RCCL, HCCL)
    Conversion,    // dtype and layout: cast, TransData, transpose/permute, concat/split, quantize, RKNN I/O operators
    Fallback,      // work that fell back to the CPU (Ascend AI_CPU tasks, RKNN CPU layers)
    Other,         // none of the above (kept knowingly: the docs list the share per fixture)
};
inline constexpr std::size_t kKernelClassCount = static_cast<std::size_t>(KernelClass::Other) + 1;

/// Stable id for JSON: "gemm", "conv", "attention", "elementwise", "normalization", "reduction", "embedding",
/// "copy", "memset", "communication", "conversion", "fallback", "other".
std::string_view kernelClassKey(KernelClass c);
/// For people: "GEMM", "convolution", "attention", "elementwise", "normalization", "reduction/softmax",
/// "embedding/index", "copy", "memset", "communication", "conversion", "CPU fallback", "other".
std::string_view kernelClassLabel(KernelClass c);

/// The class of a kernel, task or layer by its name (or operator type). Vendor names in every form the fixtures
/// carry: demangled with template arguments, mangled (`_ZN…`), Ascend op types with version suffixes, RKNN fused
/// types. The function name before any `<` or `(` decides first; only when it says nothing are the template
/// arguments read (`void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_…>` is a GEMM).
/// Examples: "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_…" → Gemm, "Cijk_Alik_Bljk_BBS_BH_…" → Gemm,
/// "cudnn_infer_volta_scudnn_128x64_relu_medium_nn_v1" → Conv, "attn_fwd" → Attention, "LayerNormV3" →
/// Normalization, "ConvExSwish" → Conv, "trans_TransData_12" → Conversion, "hcom_allReduce_" → Communication.
KernelClass classifyKernelName(std::string_view name);

/// The class of one work slice: the category decides first (memcpy → Copy, memset → Memset, communication →
/// Communication, CPU fallback → Fallback, except RKNN graph-edge I/O operators, which are Conversion); then the
/// operator type the importer kept (Ascend `OP Type`, RKNN `OpType`; rawOpType()), then the slice name.
/// Memoised per operator-type string, so classifying every kernel of a large trace costs one lookup each.
class KernelClassifier
{
public:
    explicit KernelClassifier(const model::Trace& trace);
    [[nodiscard]] KernelClass classOf(model::SliceRef ref);

private:
    [[nodiscard]] KernelClass byName(model::StringId id);

    const model::Trace& m_trace;
    OpTypeReader m_types;
    std::vector<std::int8_t> m_byName; // by StringId value; -1 = not computed yet
};

} // namespace timesink::analysis
