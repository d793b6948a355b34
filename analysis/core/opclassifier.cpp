// SPDX-License-Identifier: MIT
#include "analysis/core/opclassifier.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace timesink::analysis {

std::string normalizeOpType(std::string_view name)
{
    const std::size_t ns = name.rfind("::");
    if (ns != std::string_view::npos)
        name.remove_prefix(ns + 2);
    while (!name.empty() && (std::isdigit(static_cast<unsigned char>(name.back())) != 0 || name.back() == '_'))
        name.remove_suffix(1);
    std::string out(name);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string_view rawOpType(const model::Trace& trace, model::SliceRef ref)
{
    static constexpr std::array<std::string_view, 6> kKeys
        = {"OpType", "op_type", "Op Type", "OP Type", "Type", "type"};
    for (std::string_view key : kKeys) {
        const std::optional<model::ArgValue> v = trace.arg(ref, key);
        if (v.has_value() && v->type == model::ArgValue::Type::String) {
            const std::string_view text = trace.str(model::StringId(v->s));
            if (!text.empty() && text != "N/A")
                return text;
        }
    }
    return trace.str(trace.track(ref.track).sliceName(ref.index.value));
}

OpTypeReader::OpTypeReader(const model::Trace& trace)
    : m_trace(trace)
    , m_roles(trace.strings().size(), -1)
{
    for (std::string_view key : {"OpType", "op_type", "Op Type", "OP Type", "Type", "type"}) {
        const model::StringId id = trace.strings().find(key);
        if (!id.isEmpty())
            m_keys.push_back(id);
    }
}

model::StringId OpTypeReader::opType(model::SliceRef ref) const
{
    const model::Track& t = m_trace.track(ref.track);
    const model::ArgSetId args = t.args(ref.index.value);
    if (args.isValid()) {
        for (model::StringId key : m_keys) {
            const std::optional<model::ArgValue> v = m_trace.argStore().find(args, key);
            if (v.has_value() && v->type == model::ArgValue::Type::String) {
                const model::StringId id(v->s);
                const std::string_view text = m_trace.str(id);
                if (!text.empty() && text != "N/A")
                    return id;
            }
        }
    }
    return t.sliceName(ref.index.value);
}

ChainRole OpTypeReader::roleOf(model::StringId id)
{
    if (id.value >= m_roles.size())
        return chainRole(normalizeOpType(m_trace.str(id)));
    std::int8_t& cached = m_roles[id.value];
    if (cached < 0)
        cached = static_cast<std::int8_t>(chainRole(normalizeOpType(m_trace.str(id))));
    return static_cast<ChainRole>(cached);
}

ChainRole chainRole(std::string_view n)
{
    static constexpr std::array<std::string_view, 12> kConv
        = {"conv",    "conv1d",          "conv2d",        "conv3d",        "convolution",  "conv2dv",
           "conv3dv", "depthwiseconv2d", "convtranspose", "depthwiseconv", "_convolution", "conv_transpose2d"};
    static constexpr std::array<std::string_view, 12> kBatchNorm = {
        "batchnormalization", "batchnorm", "batch_norm", "native_batch_norm", "bntrainingreduce", "bntrainingupdate",
        "bntrainingupdatev",  "bninfer",   "bninferd",   "fusedbatchnorm",    "fusedbatchnormv",  "cudnn_batch_norm"};
    static constexpr std::array<std::string_view, 20> kActivation
        = {"relu", "relu6",    "leakyrelu", "leaky_relu", "sigmoid",     "silu",      "swish",
           "gelu", "fastgelu", "fastgeluv", "hardswish",  "hardsigmoid", "hardtanh",  "clip",
           "tanh", "mish",     "prelu",     "elu",        "reluv",       "hard_swish"};
    static constexpr std::array<std::string_view, 10> kMatMul = {
        "linear", "matmul", "mm", "bmm", "gemm", "matmulv", "batchmatmul", "batchmatmulv", "fullyconnected", "addmm"};
    static constexpr std::array<std::string_view, 4> kAdd = {"add", "addv", "biasadd", "axpy"};
    auto in = [n](const auto& set) {
        for (std::string_view s : set) {
            if (s == n)
                return true;
        }
        return false;
    };
    if (in(kConv))
        return ChainRole::Conv;
    if (in(kBatchNorm))
        return ChainRole::BatchNorm;
    if (in(kActivation))
        return ChainRole::Activation;
    if (in(kMatMul))
        return ChainRole::MatMul;
    if (in(kAdd))
        return ChainRole::Add;
    return ChainRole::None;
}

bool isIoOperator(std::string_view n)
{
    return n == "inputoperator" || n == "outputoperator";
}

bool isCountedFallback(const model::Trace& trace, model::SliceRef ref)
{
    const model::Track& t = trace.track(ref.track);
    if (t.category(ref.index.value) != model::SliceCategory::FallbackOp)
        return false;
    return !isIoOperator(normalizeOpType(rawOpType(trace, ref)))
        && !isIoOperator(normalizeOpType(trace.str(t.sliceName(ref.index.value))));
}

bool isBlockingRuntimeCall(std::string_view name)
{
    // AscendCL slices carry an "AscendCL@" prefix in torch_npu traces.
    const std::size_t at = name.find('@');
    if (at != std::string_view::npos)
        name.remove_prefix(at + 1);
    if (name.find("Synchronize") != std::string_view::npos)
        return true;
    static constexpr std::array<std::string_view, 6> kBlockingCopies
        = {"cudaMemcpy", "cudaMemcpy2D", "aclrtMemcpy", "hipMemcpy", "hipMemcpyWithStream", "cuMemcpyDtoH"};
    for (std::string_view s : kBlockingCopies) {
        if (name == s)
            return true;
    }
    return false;
}

bool isSynchronisingFrameworkOp(std::string_view name)
{
    return name == "aten::_local_scalar_dense" || name == "aten::nonzero";
}

HostCallKind hostCallKind(std::string_view name)
{
    const auto startsWith = [&](std::string_view p) { return name.substr(0, p.size()) == p; };
    const auto has = [&](std::string_view p) { return name.find(p) != std::string_view::npos; };
    if (startsWith("AscendCL@"))
        name.remove_prefix(9);
    if (startsWith("aclopCompile") || name == "opCompile" || name == "OpCompile")
        return HostCallKind::Compile;
    if (name.size() > 14 && name.substr(name.size() - 14) == "(dynamo_timed)")
        return HostCallKind::Compile;
    if ((has("torch/_dynamo/convert_frame.py(") && (has("): _compile") || has("): compile_inner")))
        || (has("torch/_inductor/compile_fx.py(") && has("): compile_fx_inner")))
        return HostCallKind::Compile;
    if (startsWith("cudnnFind") || startsWith("miopenFind"))
        return HostCallKind::Autotune;
    static constexpr std::array<std::string_view, 21> kAllocator
        = {"cudaMalloc",       "cudaFree",          "cudaMallocHost",  "cudaFreeHost",
           "cudaHostAlloc",    "cudaMallocManaged", "cudaMallocPitch", "cuMemAlloc",
           "cuMemAlloc_v2",    "cuMemFree",         "cuMemFree_v2",    "hipMalloc",
           "hipFree",          "hipHostMalloc",     "hipHostFree",     "hipExtMallocWithFlags",
           "aclrtMalloc",      "aclrtFree",         "aclrtMallocHost", "aclrtFreeHost",
           "aclrtMallocCached"};
    for (std::string_view s : kAllocator) {
        if (name == s)
            return HostCallKind::Allocator;
    }
    return HostCallKind::None;
}

bool mayHaveHostCall(const model::Trace& trace, std::initializer_list<HostCallKind> kinds)
{
    const model::StringPool& pool = trace.strings();
    for (std::uint32_t i = 1; i < pool.size(); ++i) {
        const std::string_view text = pool.view(model::StringId(i));
        // Call names are short; long strings are arg values such as torch_npu's call stacks, not worth a scan.
        if (text.size() > 512)
            continue;
        const HostCallKind k = hostCallKind(text);
        if (k != HostCallKind::None && std::find(kinds.begin(), kinds.end(), k) != kinds.end())
            return true;
    }
    return false;
}

} // namespace timesink::analysis
