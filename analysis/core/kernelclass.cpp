// SPDX-License-Identifier: MIT
#include "analysis/core/kernelclass.h"

#include <cctype>
#include <initializer_list>
#include <string>

namespace timesink::analysis {

namespace {

using K = KernelClass;

bool has(std::string_view text, std::initializer_list<std::string_view> words)
{
    for (std::string_view w : words) {
        if (text.find(w) != std::string_view::npos)
            return true;
    }
    return false;
}

/// "conv" as a word start that is not "convert" (a dtype conversion).
bool hasConv(std::string_view s)
{
    for (std::size_t at = s.find("conv"); at != std::string_view::npos; at = s.find("conv", at + 1)) {
        if (s.substr(at, 7) != "convert")
            return true;
    }
    return false;
}

/// The rules, on a lower-case name; earlier rules win, so a more specific word is tested before a word it
/// contains ("matmulcommon_memset" is a memset, "splitkreduce" a GEMM step, "lpnormreduce" a reduction,
/// "scudnn…relu" a convolution, "rmsnorm_quant" a normalization).
K classifyLower(std::string_view s)
{
    // Collectives (HCCL ops keep an `hcom_` prefix; `multimem_all_reduce` and `cross_device_reduce` are
    // custom all-reduce kernels).
    if (has(s,
            {"nccl", "rccl", "hcom_", "hccl", "all_reduce", "allreduce", "allgather", "all_gather", "reducescatter",
             "reduce_scatter", "alltoall", "all_to_all", "sendrecv", "cross_device_reduce"}))
        return K::Communication;
    if (has(s, {"memset", "fillbuffer"}))
        return K::Memset;
    if (has(s, {"memcpy", "tensormove", "copybuffer"}))
        return K::Copy;
    if (has(s, {"flash", "fmha", "attn", "attention", "sdpa", "mha_fwd", "mha_bwd"}))
        return K::Attention;
    // Convolutions before GEMMs: cuDNN's implicit-GEMM convolutions carry "gemm" in their names.
    if (hasConv(s)
        || has(s,
               {"scudnn", "winograd", "fprop", "dgrad", "wgrad", "implicit_gemm", "implicitgemm", "igemm_", "fft2d_",
                "miopensp", "depthwise", "deconv"}))
        return K::Conv;
    if (has(s,
            {"gemm", "gemv", "cijk_", "matmul", "bmm", "nvjet", "splitkreduce", "fullyconnected", "innerproduct",
             "addmm", "cublas", "hipblaslt", "einsum"}))
        return K::Gemm;
    if (has(s, {"lpnorm", "grad_norm", "clip_grad"}))
        return K::Reduction;
    if (has(s, {"norm", "bn_fw", "bn_bw", "bntraining", "bninfer", "gammabeta", "rowwisemoments", "welford"}))
        return K::Normalization;
    if (has(s,
            {"softmax", "reduce", "argmax", "argmin", "topk", "cumsum", "scan", "sort", "pool", "nllloss",
             "cross_entropy", "crossentropy", "loss", "_mean", "mean_", "_sum", "sum_", "reducesum"}))
        return K::Reduction;
    if (has(s,
            {"embedding", "embs", "scatter", "gather", "index_select", "indexselect", "index_elementwise", "indices",
             "kvcache", "kv_cache", "nonzero", "unique", "offsets", "lookup", "take_"}))
        return K::Embedding;
    if (has(s, {"cast",      "transdata",  "transpose",   "permute",       "nchwtonhwc",     "nhwctonchw",
                "layout",    "convert",    "quantize",    "qparam",        "to_float",       "contiguous",
                "concat",    "catarray",   "recat",       "split",         "reshape",        "slice",
                "asstrided", "as_strided", "broadcastto", "inputoperator", "outputoperator", "flatten",
                "squeeze",   "expand",     "pad",         "depthtospace",  "spacetodepth",   "pixel_shuffle"}))
        return K::Conversion;
    if (has(s, {"elementwise", "vectorized", "unrolled",   "pointwise",  "multi_tensor_apply",
                "foreach",     "adam",       "sgd",        "add",        "mul",
                "sub",         "div",        "relu",       "gelu",       "silu",
                "swish",       "sigmoid",    "tanh",       "exp",        "log_",
                "log1p",       "log2",       "log10",      "sqrt",       "pow",
                "square",      "abs",        "neg",        "clamp",      "clip",
                "where",       "fill",       "zeros",      "ones",       "dropout",
                "mask",        "greater",    "less",       "equal",      "logical",
                "maximum",     "minimum",    "reciprocal", "rotary",     "tril",
                "triu",        "scale",      "bias",       "activation", "act_and_mul",
                "resize",      "upsample",   "interp",     "copy",       "arange",
                "rand",        "max",        "min",        "floor",      "ceil",
                "round",       "sign",       "erf"}))
        return K::Elementwise;
    // A bare "log" would match "globalKernel"; the op named Log alone is pointwise.
    if (s == "log")
        return K::Elementwise;
    // Index-ish words weaker than a pointwise kernel's (`elementwise_kernel_with_index` is pointwise).
    if (has(s, {"index"}))
        return K::Embedding;
    return K::Other;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

} // namespace

std::string_view kernelClassKey(KernelClass c)
{
    switch (c) {
    case K::Gemm:
        return "gemm";
    case K::Conv:
        return "conv";
    case K::Attention:
        return "attention";
    case K::Elementwise:
        return "elementwise";
    case K::Normalization:
        return "normalization";
    case K::Reduction:
        return "reduction";
    case K::Embedding:
        return "embedding";
    case K::Copy:
        return "copy";
    case K::Memset:
        return "memset";
    case K::Communication:
        return "communication";
    case K::Conversion:
        return "conversion";
    case K::Fallback:
        return "fallback";
    case K::Other:
        break;
    }
    return "other";
}

std::string_view kernelClassLabel(KernelClass c)
{
    switch (c) {
    case K::Gemm:
        return "GEMM";
    case K::Conv:
        return "convolution";
    case K::Attention:
        return "attention";
    case K::Elementwise:
        return "elementwise";
    case K::Normalization:
        return "normalization";
    case K::Reduction:
        return "reduction/softmax";
    case K::Embedding:
        return "embedding/index";
    case K::Copy:
        return "copy";
    case K::Memset:
        return "memset";
    case K::Communication:
        return "communication";
    case K::Conversion:
        return "conversion";
    case K::Fallback:
        return "CPU fallback";
    case K::Other:
        break;
    }
    return "other";
}

KernelClass classifyKernelName(std::string_view name)
{
    std::string s = lower(name);
    // FBGEMM's namespace is not a GEMM (its quantize, permute and embedding kernels live there).
    for (std::size_t at = s.find("fbgemm"); at != std::string::npos; at = s.find("fbgemm", at))
        s.replace(at, 6, "fb");
    // The function's own name first: template arguments name functors and tile shapes that may say anything.
    std::size_t head = s.find_first_of("<(");
    if (head == std::string::npos)
        head = s.size();
    const K byHead = classifyLower(std::string_view(s).substr(0, head));
    if (byHead != K::Other || head == s.size())
        return byHead;
    return classifyLower(s);
}

KernelClassifier::KernelClassifier(const model::Trace& trace)
    : m_trace(trace)
    , m_types(trace)
    , m_byName(trace.strings().size(), -1)
{
}

KernelClass KernelClassifier::byName(model::StringId id)
{
    if (id.value >= m_byName.size())
        return classifyKernelName(m_trace.str(id));
    std::int8_t& memo = m_byName[id.value];
    if (memo < 0)
        memo = static_cast<std::int8_t>(classifyKernelName(m_trace.str(id)));
    return static_cast<KernelClass>(memo);
}

KernelClass KernelClassifier::classOf(model::SliceRef ref)
{
    const model::Track& t = m_trace.track(ref.track);
    const std::uint32_t i = ref.index.value;
    switch (t.category(i)) {
    case model::SliceCategory::Memcpy:
        return K::Copy;
    case model::SliceCategory::Memset:
        return K::Memset;
    case model::SliceCategory::Communication:
        return K::Communication;
    case model::SliceCategory::FallbackOp:
        return isCountedFallback(m_trace, ref) ? K::Fallback : K::Conversion;
    default:
        break;
    }
    const model::StringId type = m_types.opType(ref);
    const K byType = byName(type);
    if (byType != K::Other || type == t.sliceName(i))
        return byType;
    return byName(t.sliceName(i));
}

} // namespace timesink::analysis
