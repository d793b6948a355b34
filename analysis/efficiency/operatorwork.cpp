// SPDX-License-Identifier: MIT
#include "analysis/efficiency/operatorwork.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <utility>

namespace timesink::analysis::efficiency {

namespace {

using std::int64_t;

double elems(const Dims& d)
{
    return static_cast<double>(elementCount(d));
}

DataType typeAt(const std::vector<std::string>& types, std::size_t i)
{
    return i < types.size() ? parseDataType(types[i]) : DataType::Unknown;
}

/// Bytes per element of argument i, else of the first typed argument (the arguments of one op share a type),
/// else 0 (the bytes are not assessed).
int bpeAt(const std::vector<std::string>& types, std::size_t i)
{
    if (const int b = bytesPerElement(typeAt(types, i)); b > 0)
        return b;
    for (const std::string& t : types) {
        if (const int b = bytesPerElement(parseDataType(t)); b > 0)
            return b;
    }
    return 0;
}

/// The data type the arithmetic runs at: the first floating (or int8) tensor argument's.
DataType computeType(const std::vector<std::string>& types)
{
    for (const std::string& t : types) {
        const DataType d = parseDataType(t);
        if (d == DataType::Fp32 || d == DataType::Bf16 || d == DataType::Fp16 || d == DataType::Fp8
            || d == DataType::Int8 || d == DataType::Fp64)
            return d;
    }
    return DataType::Unknown;
}

bool isTrue(const std::vector<std::string>& concrete, std::size_t i)
{
    return i < concrete.size() && (concrete[i] == "True" || concrete[i] == "true" || concrete[i] == "1");
}

/// "[16, 16]" → {16, 16}; "2" → {2}; empty when absent or not numbers.
std::vector<int64_t> intList(const std::vector<std::string>& concrete, std::size_t i)
{
    std::vector<int64_t> out;
    if (i >= concrete.size())
        return out;
    const std::string& s = concrete[i];
    std::size_t p = 0;
    while (p < s.size()) {
        while (p < s.size() && (s[p] == '[' || s[p] == ']' || s[p] == ',' || s[p] == ' '))
            ++p;
        if (p >= s.size())
            break;
        int64_t v = 0;
        const auto [ptr, ec] = std::from_chars(s.data() + p, s.data() + s.size(), v);
        if (ec != std::errc())
            return {};
        out.push_back(v);
        p = static_cast<std::size_t>(ptr - s.data());
    }
    return out;
}

int64_t listAt(const std::vector<int64_t>& v, std::size_t axis, int64_t fallback)
{
    if (v.empty())
        return fallback;
    return v.size() == 1 ? v[0] : (axis < v.size() ? v[axis] : fallback);
}

WorkEstimate missing(std::string_view why)
{
    return WorkEstimate {std::nullopt, why};
}

WorkEstimate done(OperatorWork w, const std::vector<Dims>& dims)
{
    w.shapes = describeShapes(dims);
    return WorkEstimate {std::move(w), {}};
}

constexpr std::string_view kNoBytes = "data types not recorded";

/// C = A·B (+ bias): 2·M·N·K per batch, plus M·N for the bias; A, B, bias read and C written once (TraceLens's
/// GEMM model).
WorkEstimate gemm(double batch, int64_t m, int64_t n, int64_t k, double biasElems, int bpe, int biasBpe, DataType dtype,
                  const std::vector<Dims>& dims)
{
    if (m <= 0 || n <= 0 || k <= 0 || batch <= 0)
        return missing("empty matrix");
    if (bpe <= 0)
        return missing(kNoBytes);
    OperatorWork w;
    w.workClass = WorkClass::Gemm;
    w.dtype = dtype;
    const double mn = static_cast<double>(m) * static_cast<double>(n);
    w.flops = batch * (2.0 * mn * static_cast<double>(k) + (biasElems > 0 ? mn : 0.0));
    w.bytes = batch * (static_cast<double>(m) * k + static_cast<double>(k) * n + mn) * bpe + biasElems * biasBpe;
    return done(std::move(w), dims);
}

WorkEstimate torchGemm(TorchOp op, const std::vector<Dims>& d, const std::vector<std::string>& types)
{
    const DataType dt = computeType(types);
    switch (op) {
    case TorchOp::Mm:
        if (d.size() < 2 || d[0].size() != 2 || d[1].size() != 2)
            return missing("mm without two matrices");
        return gemm(1, d[0][0], d[1][1], d[0][1], 0, bpeAt(types, 0), 0, dt, d);
    case TorchOp::Addmm:
        if (d.size() < 3 || d[1].size() != 2 || d[2].size() != 2)
            return missing("addmm without two matrices");
        return gemm(1, d[1][0], d[2][1], d[1][1], elems(d[0]), bpeAt(types, 1), bpeAt(types, 0), dt, d);
    case TorchOp::Bmm:
        if (d.size() < 2 || d[0].size() != 3 || d[1].size() != 3)
            return missing("bmm without two batched matrices");
        return gemm(static_cast<double>(d[0][0]), d[0][1], d[1][2], d[0][2], 0, bpeAt(types, 0), 0, dt, d);
    case TorchOp::Baddbmm:
        if (d.size() < 3 || d[1].size() != 3 || d[2].size() != 3)
            return missing("baddbmm without two batched matrices");
        return gemm(static_cast<double>(d[1][0]), d[1][1], d[2][2], d[1][2],
                    elems(d[0]) / std::max<int64_t>(1, d[1][0]), bpeAt(types, 1), bpeAt(types, 0), dt, d);
    case TorchOp::Linear: {
        // linear(x[..., K], w[N, K], bias[N]): y = x·wᵀ + bias.
        if (d.size() < 2 || d[0].empty() || d[1].size() != 2)
            return missing("linear without input and weight");
        const int64_t k = d[0].back();
        const int64_t rows = k > 0 ? elementCount(d[0]) / k : 0;
        const double bias = d.size() > 2 ? elems(d[2]) : 0.0;
        return gemm(1, rows, d[1][0], k, bias, bpeAt(types, 0), bpeAt(types, 2), dt, d);
    }
    case TorchOp::Matmul: {
        // matmul(a[..., M, K], b[..., K, N]) with 1-D operands promoted; batch dimensions of a (b broadcast).
        if (d.size() < 2 || d[0].empty() || d[1].empty())
            return missing("matmul without two tensors");
        const Dims& a = d[0];
        const Dims& b = d[1];
        const int64_t k = a.back();
        const int64_t m = a.size() >= 2 ? a[a.size() - 2] : 1;
        const int64_t n = b.size() >= 2 ? b.back() : 1;
        const double batchA = a.size() > 2 ? elems(a) / static_cast<double>(m * k) : 1.0;
        const double batchB = b.size() > 2 ? elems(b) / static_cast<double>(k * n) : 1.0;
        return gemm(std::max(batchA, batchB), m, n, k, 0, bpeAt(types, 0), 0, dt, d);
    }
    default:
        return missing("not a matrix multiply");
    }
}

/// Attention over q[B, H_Q, N_Q, d_qk], k[B, H_KV, N_KV, d_qk], v[B, H_KV, N_KV, d_v]: Q·Kᵀ and P·V, 4·B·H_Q·N_Q·N_KV·d
/// (softmax left out: d times smaller), halved when causal (TraceLens's SDPA model; flash-attention's benchmark).
/// Attention of `b` batches, `hq` query heads over `hkv` key/value heads, `nq` queries against `nkv` keys, head
/// sizes `dqk` and `dv`. Forward: Q·Kᵀ and P·V, 2·N_Q·N_KV·(d_qk + d_v) per query head; Q, K, V read and O written.
/// Flash backward: Q·Kᵀ recomputed, then dV, dP, dQ, dK: 2·(3·d_qk + 2·d_v)·N_Q·N_KV per head (plus the GQA sums of
/// dK and dV over the heads sharing them); Q, K, V, dO read and dQ, dK, dV written. Causal: half the score matrix.
struct AttentionDims
{
    double b = 0, hq = 0, hkv = 0, nq = 0, nkv = 0, dqk = 0, dv = 0;
};
OperatorWork attentionWork(const AttentionDims& a, bool backward, bool causal, int bpe, DataType dtype)
{
    OperatorWork w;
    w.workClass = WorkClass::Attention;
    w.dtype = dtype;
    const double qkv = a.b * (a.nq * a.hq * a.dqk + a.nkv * a.hkv * a.dqk + a.nkv * a.hkv * a.dv);
    if (!backward) {
        w.flops = a.b * a.hq * (2.0 * a.nq * a.nkv * a.dqk + 2.0 * a.nq * a.nkv * a.dv);
        w.bytes = (qkv + a.b * a.nq * a.hq * a.dv) * bpe;
    } else {
        w.flops = a.b * a.hq * a.nq * a.nkv * (6.0 * a.dqk + 4.0 * a.dv);
        const double gqa = a.hkv > 0 ? a.hq / a.hkv - 1.0 : 0.0;
        w.flops += a.b * a.nkv * (a.dv + a.dqk) * std::max(0.0, gqa);
        w.bytes = (2.0 * qkv + a.b * a.nq * a.hq * a.dv) * bpe;
    }
    if (causal)
        w.flops /= 2.0;
    return w;
}

WorkEstimate torchAttention(TorchOp op, const std::vector<Dims>& d, const std::vector<std::string>& types,
                            const std::vector<std::string>& concrete)
{
    const bool backward = op == TorchOp::SdpaFlashBackward;
    const std::size_t q = backward ? 1 : 0;
    if (d.size() < q + 3 || d[q].size() != 4 || d[q + 1].size() != 4 || d[q + 2].size() != 4)
        return missing("attention without 4-D query, key and value");
    std::size_t causalAt = 4;
    switch (op) {
    case TorchOp::SdpaFlash:
        causalAt = 4;
        break;
    case TorchOp::SdpaEfficient:
    case TorchOp::SdpaCudnn:
        causalAt = 6;
        break;
    case TorchOp::SdpaMath:
        causalAt = 5;
        break;
    case TorchOp::SdpaFlashBackward:
        causalAt = 11;
        break;
    default:
        break;
    }
    const bool causal = isTrue(concrete, causalAt);
    AttentionDims a;
    a.b = static_cast<double>(d[q][0]);
    a.hq = static_cast<double>(d[q][1]);
    a.nq = static_cast<double>(d[q][2]);
    a.dqk = static_cast<double>(d[q][3]);
    a.hkv = static_cast<double>(d[q + 1][1]);
    a.nkv = static_cast<double>(d[q + 1][2]);
    a.dv = static_cast<double>(d[q + 2][3]);
    if (causal && a.nq != a.nkv)
        return missing("causal attention with N_Q != N_KV");
    const int bpe = bpeAt(types, q);
    if (bpe <= 0)
        return missing(kNoBytes);
    return done(attentionWork(a, backward, causal, bpe, computeType(types)), d);
}

/// 2 · prod(output) · prod(weight[1:]) (+ prod(output) for a bias); input, weight, bias read and output written once.
WorkEstimate convolution(const Dims& x, const Dims& wt, bool bias, const std::vector<int64_t>& stride,
                         const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, bool transposed,
                         const std::vector<int64_t>& outputPadding, bool backward, std::array<bool, 3> mask, int bpe,
                         DataType dtype, const std::vector<Dims>& dims)
{
    if (x.size() < 3 || wt.size() != x.size())
        return missing("convolution without matching input and weight ranks");
    if (bpe <= 0)
        return missing(kNoBytes);
    const std::size_t spatial = x.size() - 2;
    Dims out {x[0], transposed ? 0 : wt[0]};
    if (transposed) {
        // weight[C_in, C_out/groups, k…]: C_out = weight[1]·groups = weight[1]·C_in/weight[0].
        out[1] = wt[0] > 0 ? wt[1] * (x[1] / wt[0]) : 0;
    }
    for (std::size_t a = 0; a < spatial; ++a) {
        const int64_t in = x[2 + a];
        const int64_t k = wt[2 + a];
        const int64_t s = listAt(stride, a, 1);
        const int64_t p = listAt(padding, a, 0);
        const int64_t dl = listAt(dilation, a, 1);
        if (transposed)
            out.push_back((in - 1) * s - 2 * p + dl * (k - 1) + listAt(outputPadding, a, 0) + 1);
        else
            out.push_back(convOutputSize(in, k, s, p, dl));
    }
    if (elementCount(out) <= 0)
        return missing("convolution output would be empty");
    Dims wRest(wt.begin() + 1, wt.end());
    const double perElement = 2.0 * elems(wRest);
    const double conv = (transposed ? elems(x) : elems(out)) * perElement;
    OperatorWork w;
    w.workClass = WorkClass::Conv;
    w.dtype = dtype;
    const double xe = elems(x);
    const double we = elems(wt);
    const double oe = elems(out);
    if (!backward) {
        w.flops = conv + (bias ? oe : 0.0);
        w.bytes = (xe + we + (bias ? static_cast<double>(out[1]) : 0.0) + oe) * bpe;
    } else {
        // Input gradient and weight gradient each cost a forward convolution; the bias gradient sums dY.
        if (mask[0]) {
            w.flops += conv;
            w.bytes += (oe + we + xe) * bpe;
        }
        if (mask[1]) {
            w.flops += conv;
            w.bytes += (oe + xe + we) * bpe;
        }
        if (mask[2] && bias) {
            w.flops += oe;
            w.bytes += (oe + static_cast<double>(out[1])) * bpe;
        }
    }
    return done(std::move(w), dims);
}

WorkEstimate torchConv(TorchOp op, const std::vector<Dims>& d, const std::vector<std::string>& types,
                       const std::vector<std::string>& c)
{
    const DataType dt = computeType(types);
    switch (op) {
    case TorchOp::Convolution:
        // (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, …)
        if (d.size() < 2)
            return missing("convolution without input and weight");
        return convolution(d[0], d[1], d.size() > 2 && !d[2].empty(), intList(c, 3), intList(c, 4), intList(c, 5),
                           isTrue(c, 6), intList(c, 7), false, {true, true, true}, bpeAt(types, 0), dt, d);
    case TorchOp::CudnnConvolution:
        // (input, weight, padding, stride, dilation, groups, …): the bias is added by an op of its own.
        if (d.size() < 2)
            return missing("convolution without input and weight");
        return convolution(d[0], d[1], false, intList(c, 3), intList(c, 2), intList(c, 4), false, {}, false,
                           {true, true, true}, bpeAt(types, 0), dt, d);
    case TorchOp::MiopenConvolution:
        if (d.size() < 2)
            return missing("convolution without input and weight");
        return convolution(d[0], d[1], d.size() > 2 && !d[2].empty(), intList(c, 4), intList(c, 3), intList(c, 5),
                           false, {}, false, {true, true, true}, bpeAt(types, 0), dt, d);
    case TorchOp::ConvolutionBackward: {
        // (grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed, output_padding, groups,
        //  output_mask)
        if (d.size() < 3)
            return missing("convolution_backward without grad, input and weight");
        std::array<bool, 3> mask {true, true, true};
        if (c.size() > 10 && !c[10].empty()) {
            const std::string& s = c[10];
            std::size_t at = 0;
            for (bool& flag : mask) {
                const std::size_t t = s.find("True", at);
                const std::size_t f = s.find("False", at);
                if (t == std::string::npos && f == std::string::npos)
                    break;
                flag = t < f;
                at = std::min(t, f) + 1;
            }
        }
        const bool bias = intList(c, 3).empty() ? false : intList(c, 3).front() > 0;
        return convolution(d[1], d[2], bias, intList(c, 4), intList(c, 5), intList(c, 6), isTrue(c, 7), intList(c, 8),
                           true, mask, bpeAt(types, 0), dt, d);
    }
    default:
        return missing("not a convolution");
    }
}

/// Pointwise: one operation per output element (TraceLens's elementwise model); inputs read once, output written.
WorkEstimate torchPointwise(TorchOp op, const std::vector<Dims>& d, const std::vector<std::string>& types)
{
    double inBytes = 0.0;
    double outElems = 0.0;
    for (std::size_t i = 0; i < d.size(); ++i) {
        if (i < types.size() && parseDataType(types[i]) == DataType::Unknown)
            continue; // a Scalar, a list, an optional left out
        if (d[i].empty())
            continue;
        const double n = elems(d[i]);
        inBytes += n * bpeAt(types, i);
        outElems = std::max(outElems, n); // broadcasting: the largest operand is the output's size
        if (op == TorchOp::Unary)
            break;
    }
    if (outElems <= 0)
        return missing("no tensor input");
    const int bpe = bpeAt(types, 0);
    if (bpe <= 0)
        return missing(kNoBytes);
    OperatorWork w;
    w.workClass = WorkClass::Elementwise;
    w.dtype = computeType(types);
    double flopsPerElement = 1.0;
    switch (op) {
    case TorchOp::LayerNorm:
    case TorchOp::BatchNorm:
    case TorchOp::GroupNorm:
        // Mean, variance, normalise, scale, shift.
        w.workClass = WorkClass::Normalization;
        flopsPerElement = 5.0;
        inBytes = elems(d[0]) * bpe; // the weights are small beside the activation
        break;
    case TorchOp::RmsNorm:
        w.workClass = WorkClass::Normalization;
        flopsPerElement = 4.0;
        inBytes = elems(d[0]) * bpe;
        break;
    case TorchOp::Softmax:
        // Exponent, sum, division (TraceLens's softmax model).
        w.workClass = WorkClass::Reduction;
        flopsPerElement = 3.0;
        inBytes = elems(d[0]) * bpe;
        break;
    case TorchOp::Reduce:
        w.workClass = WorkClass::Reduction;
        w.flops = elems(d[0]);
        w.bytes = elems(d[0]) * bpe; // the reduced output is small beside the input
        return done(std::move(w), d);
    default:
        break;
    }
    w.flops = flopsPerElement * outElems;
    w.bytes = inBytes + outElems * bpe;
    return done(std::move(w), d);
}

bool startsWith(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}

std::string_view stripVersion(std::string_view t)
{
    // MatMulV2, MatMulV3, LayerNormV3: the version suffix says nothing about the work.
    if (t.size() > 2 && t[t.size() - 2] == 'V' && t.back() >= '0' && t.back() <= '9')
        t.remove_suffix(2);
    return t;
}

WorkEstimate ascendMatmul(const std::vector<Dims>& in, const std::vector<Dims>& out, DataType dt, int bpe, bool batched)
{
    if (in.size() < 2 || out.empty() || in[0].size() < 2 || out[0].size() < 2)
        return missing("matmul shapes not recorded");
    const Dims& c = out[0];
    const int64_t m = c[c.size() - 2];
    const int64_t n = c.back();
    const double batch = batched && c.size() > 2 ? elems(c) / static_cast<double>(m * n) : 1.0;
    if (m <= 0 || n <= 0 || batch <= 0)
        return missing("empty matmul output");
    // K from the first operand; the second must agree, or the shapes are not what the kernel computed.
    const double kA = elems(in[0]) / (batch * static_cast<double>(m));
    const double kB = elems(in[1]) / (batch * static_cast<double>(n));
    if (kA < 1 || kA != kB)
        return missing("matmul input shapes disagree with the output");
    const double bias = in.size() > 2 && !in[2].empty() ? elems(in[2]) : 0.0;
    return gemm(batch, m, n, static_cast<int64_t>(kA), bias, bpe, bpe, dt, in);
}

/// Ascend FlashAttentionScore (and its Grad). The layout (BSH, SBH, BNSD, BSND) is an attribute the table does not
/// keep, and a 3-D query does not give its head count; the softmax statistics do: softmax_max is [B, N1, S1, 8]
/// (an output of the forward, an input of the Grad). From B, N1 and S1 the query's layout follows, and the key's
/// sequence length sits where the query's does. The score matrix is computed whole unless the mask is the
/// compressed 2048×2048 one of the causal sparse modes (2–4), which skips the upper half. Variable-length (TND)
/// calls carry no [B, N1, S1, 8] statistics: not assessed.
WorkEstimate ascendAttention(const std::vector<Dims>& in, const std::vector<Dims>& out, DataType dt, int bpe,
                             bool backward)
{
    if (in.size() < 3 || in[0].size() < 3 || in[1].size() != in[0].size() || in[2].size() != in[0].size())
        return missing("attention without query, key and value shapes");
    const std::vector<Dims>& stats = backward ? in : out;
    const auto softmaxMax = std::find_if(stats.begin() + (backward ? 3 : 0), stats.end(),
                                         [](const Dims& d) { return d.size() == 4 && d[3] == 8; });
    if (softmaxMax == stats.end())
        return missing("attention without its [B, N, S, 8] softmax statistics (variable-length TND layout)");
    const int64_t b = (*softmaxMax)[0];
    const int64_t n1 = (*softmaxMax)[1];
    const int64_t s1 = (*softmaxMax)[2];
    const Dims& q = in[0];
    const Dims& k = in[1];
    const Dims& v = in[2];
    AttentionDims a;
    a.b = static_cast<double>(b);
    a.hq = static_cast<double>(n1);
    a.nq = static_cast<double>(s1);
    if (q.size() == 3 && ((q[0] == b && q[1] == s1) || (q[0] == s1 && q[1] == b))) {
        // BSH or SBH: H1 = N1·D; the key's sequence at the query's position.
        const std::size_t seq = q[1] == s1 && q[0] == b ? 1 : 0;
        if (n1 <= 0 || q[2] % n1 != 0)
            return missing("attention hidden size not a multiple of its head count");
        const int64_t d = q[2] / n1;
        if (d <= 0 || k[2] % d != 0)
            return missing("attention key hidden size not a multiple of the head size");
        const int64_t kvHeads = k[2] / d;
        a.dqk = static_cast<double>(d);
        a.dv = a.dqk;
        a.nkv = static_cast<double>(k[seq]);
        a.hkv = static_cast<double>(kvHeads);
    } else if (q.size() == 4 && q[0] == b && ((q[1] == n1 && q[2] == s1) || (q[1] == s1 && q[2] == n1))) {
        // BNSD or BSND.
        const bool bnsd = q[1] == n1 && q[2] == s1;
        a.dqk = static_cast<double>(q[3]);
        a.dv = static_cast<double>(v[3]);
        a.nkv = static_cast<double>(bnsd ? k[2] : k[1]);
        a.hkv = static_cast<double>(bnsd ? k[1] : k[2]);
    } else {
        return missing("attention layout not told by its shapes");
    }
    if (a.nkv <= 0 || a.hkv <= 0 || a.dqk <= 0)
        return missing("attention with an empty key or head");
    // The compressed causal mask: 2048×2048 whatever the sequence lengths (the mask input follows the three or four
    // tensors: the first 2-D one).
    const auto mask = std::find_if(in.begin() + 3, in.end(), [](const Dims& d) { return d.size() == 2; });
    const bool causal = mask != in.end() && (*mask)[0] == 2048 && (*mask)[1] == 2048 && (s1 != 2048 || a.nkv != 2048);
    return done(attentionWork(a, backward, causal, bpe, dt), in);
}

/// Ascend Conv2D: input NCHW or NC1HWC0, weight NCHW [C_out, C_in/g, kh, kw] or FRACTAL_Z [C1·kh·kw, C_out/16, 16,
/// C0], output NCHW or NC1HWC0. Either way prod(weight) = C_out·C_in/g·kh·kw (with the channel padding the cube
/// computes), so the work is 2·prod(output)·prod(weight)/C_out.
WorkEstimate ascendConv(const std::vector<Dims>& in, const std::vector<Dims>& out, DataType dt, int bpe)
{
    if (in.size() < 2 || out.empty() || out[0].size() < 4)
        return missing("convolution shapes not recorded");
    const Dims& y = out[0];
    const int64_t cout = y.size() == 5 ? y[1] * y[4] : y[1];
    if (cout <= 0)
        return missing("convolution output has no channels");
    const double oe = elems(y);
    OperatorWork w;
    w.workClass = WorkClass::Conv;
    w.dtype = dt;
    const bool bias = in.size() > 2 && !in[2].empty();
    w.flops = 2.0 * oe * elems(in[1]) / static_cast<double>(cout) + (bias ? oe : 0.0);
    w.bytes = (elems(in[0]) + elems(in[1]) + (bias ? elems(in[2]) : 0.0) + oe) * bpe;
    return done(std::move(w), in);
}

} // namespace

std::string_view workClassKey(WorkClass c)
{
    switch (c) {
    case WorkClass::Gemm:
        return "gemm";
    case WorkClass::Attention:
        return "attention";
    case WorkClass::Conv:
        return "conv";
    case WorkClass::Elementwise:
        return "elementwise";
    case WorkClass::Normalization:
        return "normalization";
    case WorkClass::Reduction:
        return "reduction";
    }
    return "elementwise";
}

std::int64_t convOutputSize(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t pad,
                            std::int64_t dilation)
{
    if (stride <= 0)
        return 0;
    const std::int64_t span = in + 2 * pad - dilation * (kernel - 1) - 1;
    return span < 0 ? 0 : span / stride + 1;
}

TorchOp torchOpOf(std::string_view name)
{
    if (!startsWith(name, "aten::"))
        return TorchOp::Unknown;
    name.remove_prefix(6);
    static constexpr std::array<std::pair<std::string_view, TorchOp>, 23> kExact {{
        {"mm", TorchOp::Mm},
        {"addmm", TorchOp::Addmm},
        {"bmm", TorchOp::Bmm},
        {"baddbmm", TorchOp::Baddbmm},
        {"matmul", TorchOp::Matmul},
        {"linear", TorchOp::Linear},
        {"_scaled_dot_product_flash_attention", TorchOp::SdpaFlash},
        {"_scaled_dot_product_efficient_attention", TorchOp::SdpaEfficient},
        {"_scaled_dot_product_cudnn_attention", TorchOp::SdpaCudnn},
        {"scaled_dot_product_attention", TorchOp::SdpaMath},
        {"_scaled_dot_product_flash_attention_backward", TorchOp::SdpaFlashBackward},
        {"convolution", TorchOp::Convolution},
        {"_convolution", TorchOp::Convolution},
        {"cudnn_convolution", TorchOp::CudnnConvolution},
        {"miopen_convolution", TorchOp::MiopenConvolution},
        {"convolution_backward", TorchOp::ConvolutionBackward},
        {"layer_norm", TorchOp::LayerNorm},
        {"native_layer_norm", TorchOp::LayerNorm},
        {"rms_norm", TorchOp::RmsNorm},
        {"batch_norm", TorchOp::BatchNorm},
        {"native_batch_norm", TorchOp::BatchNorm},
        {"cudnn_batch_norm", TorchOp::BatchNorm},
        {"group_norm", TorchOp::GroupNorm},
    }};
    for (const auto& [n, op] : kExact) {
        if (name == n)
            return op;
    }
    if (name == "_softmax" || name == "softmax" || name == "log_softmax" || name == "_log_softmax")
        return TorchOp::Softmax;
    if (name == "sum" || name == "mean" || name == "amax" || name == "max" || name == "min" || name == "amin"
        || name == "norm" || name == "var_mean")
        return TorchOp::Reduce;
    std::string_view base = name;
    if (!base.empty() && base.back() == '_')
        base.remove_suffix(1); // in place: the same work
    static constexpr std::array<std::string_view, 9> kBinary {"add",     "sub",     "mul",   "div",    "pow",
                                                              "maximum", "minimum", "where", "addcmul"};
    static constexpr std::array<std::string_view, 17> kUnary {
        "relu", "gelu", "silu", "sigmoid",   "tanh",       "exp",       "log",   "neg",       "rsqrt",
        "sqrt", "abs",  "erf",  "hardswish", "leaky_relu", "threshold", "clamp", "reciprocal"};
    for (std::string_view b : kBinary) {
        if (base == b)
            return TorchOp::Binary;
    }
    for (std::string_view u : kUnary) {
        if (base == u)
            return TorchOp::Unary;
    }
    return TorchOp::Unknown;
}

WorkEstimate torchWork(TorchOp op, const std::vector<Dims>& dims, const std::vector<std::string>& types,
                       const std::vector<std::string>& concrete)
{
    switch (op) {
    case TorchOp::Unknown:
        return missing("operator not in the work model");
    case TorchOp::Mm:
    case TorchOp::Addmm:
    case TorchOp::Bmm:
    case TorchOp::Baddbmm:
    case TorchOp::Matmul:
    case TorchOp::Linear:
        return torchGemm(op, dims, types);
    case TorchOp::SdpaFlash:
    case TorchOp::SdpaEfficient:
    case TorchOp::SdpaCudnn:
    case TorchOp::SdpaMath:
    case TorchOp::SdpaFlashBackward:
        return torchAttention(op, dims, types, concrete);
    case TorchOp::Convolution:
    case TorchOp::CudnnConvolution:
    case TorchOp::MiopenConvolution:
    case TorchOp::ConvolutionBackward:
        return torchConv(op, dims, types, concrete);
    default:
        return torchPointwise(op, dims, types);
    }
}

WorkEstimate ascendWork(std::string_view opType, std::string_view inputShapes, std::string_view inputTypes,
                        std::string_view outputShapes)
{
    const std::string_view t = stripVersion(opType);
    const std::optional<std::vector<Dims>> in = parseAscendShapes(inputShapes);
    const std::optional<std::vector<Dims>> out = parseAscendShapes(outputShapes);
    if (!in)
        return missing("input shapes not recorded (kernel_details.csv needs record_shapes=True)");
    const std::vector<std::string> types = splitAscendList(inputTypes);
    const DataType dt = computeType(types);
    const int bpe = bpeAt(types, 0);
    if (bpe <= 0)
        return missing(kNoBytes);
    std::vector<Dims> outs = out.value_or(std::vector<Dims> {});
    if (t == "MatMul" || t == "BatchMatMul" || t == "MatMulCommon")
        return ascendMatmul(*in, outs, dt, bpe, t == "BatchMatMul");
    if (t == "Conv2D")
        return ascendConv(*in, outs, dt, bpe);
    if (t == "FlashAttentionScore" || t == "FlashAttentionScoreGrad")
        return ascendAttention(*in, outs, dt, bpe, t == "FlashAttentionScoreGrad");
    static constexpr std::array<std::string_view, 8> kBinary {"Add", "Sub",     "Mul",     "RealDiv",
                                                              "Div", "Maximum", "Minimum", "AddV2"};
    static constexpr std::array<std::string_view, 11> kUnary {"Relu", "Gelu",  "Swish", "Sigmoid",  "Tanh",    "Exp",
                                                              "Sqrt", "Rsqrt", "Neg",   "ReluGrad", "GeluGrad"};
    if (std::find(kBinary.begin(), kBinary.end(), t) != kBinary.end())
        return torchPointwise(TorchOp::Binary, *in, types);
    if (std::find(kUnary.begin(), kUnary.end(), t) != kUnary.end())
        return torchPointwise(t == "ReluGrad" || t == "GeluGrad" ? TorchOp::Binary : TorchOp::Unary, *in, types);
    if (t == "LayerNorm" || t == "BNTrainingUpdate" || t == "BNInfer")
        return torchPointwise(TorchOp::LayerNorm, *in, types);
    if (t == "RmsNorm")
        return torchPointwise(TorchOp::RmsNorm, *in, types);
    if (t == "SoftmaxV2" || t == "Softmax")
        return torchPointwise(TorchOp::Softmax, *in, types);
    return missing("operator type not in the work model");
}

} // namespace timesink::analysis::efficiency
