// SPDX-License-Identifier: MIT
// The kernel-class table (analysis/core/kernelclass.h): per vendor, names as the fixtures carry them, and the share
// of device time each real fixture leaves as `other` (docs/compare.md "Kernel classes" lists the same figures).
#include "analysis/core/deviceactivity.h"
#include "analysis/core/kernelclass.h"
#include "model/tracebuilder.h"
#include "tests/common/fixtures.h"

#include <QTest>

#include <array>

using namespace timesink;
using analysis::classifyKernelName;
using analysis::KernelClass;

Q_DECLARE_METATYPE(KernelClass)

namespace {

struct Named
{
    const char* name;
    KernelClass cls;
};

void addRows(std::initializer_list<Named> rows)
{
    for (const Named& r : rows)
        QTest::newRow(r.name) << QString::fromUtf8(r.name) << r.cls;
}

/// Device time of every busy device slice and of every CPU fallback op, by class.
std::array<model::TimeNs, analysis::kKernelClassCount> timeByClass(const model::Trace& trace)
{
    std::array<model::TimeNs, analysis::kKernelClassCount> out {};
    analysis::KernelClassifier classifier(trace);
    for (const model::Track& t : trace.tracks()) {
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            const bool work = (model::isDeviceTrack(t) && analysis::isBusyCategory(t.category(i)))
                || t.category(i) == model::SliceCategory::FallbackOp;
            if (work)
                out[static_cast<std::size_t>(classifier.classOf({t.id, model::SliceIndex(i)}))] += t.dur(i);
        }
    }
    return out;
}

} // namespace

class TestKernelClass : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void names_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<KernelClass>("cls");
        // CUDA (cuBLAS, cuBLASLt, CUTLASS, cuDNN, flash, PyTorch's own kernels, NCCL), from the Kineto fixtures.
        addRows({
            {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
             "kernel__5x_cublas",
             KernelClass::Gemm},
            {"volta_sgemm_64x64_nt", KernelClass::Gemm},
            {"ampere_sgemm_128x64_nn", KernelClass::Gemm},
            {"nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT", KernelClass::Gemm},
            {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>(cutlass_80_tensorop_s1688gemm_"
             "64x64_32x6_tn_align4::Params)",
             KernelClass::Gemm},
            {"void gemvNSP_kernel<float, float, float, float, 1, 16, 4, 1024>(cublasGemvParamsEx<int, "
             "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, "
             "cublasGemvTensorStridedBatched<float>, float>)",
             KernelClass::Gemm},
            {"void splitKreduce_kernel<32, 16, int, float, float, float, float, true, false, false>(cublasSplitKParams<"
             "float>, float const*, float const*, float*, float const*, float const*, float const*, float const*, "
             "float*, void*, long, float*, int*)",
             KernelClass::Gemm},
            {"cudnn_infer_volta_scudnn_128x64_relu_medium_nn_v1", KernelClass::Conv},
            {"sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_"
             "warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn",
             KernelClass::Conv},
            {"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::"
             "WinogradDataParams<float, float>)",
             KernelClass::Conv},
            {"void wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>(int, int, int, float const*, int, float*, "
             "float const*, kernel_grad_params, unsigned long long, int, float, int, int, int, int)",
             KernelClass::Conv},
            {"_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock",
             KernelClass::Conv},
            {"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
             "cutlass::bfloat16_t, Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, true, false, "
             "false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
             KernelClass::Attention},
            {"fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext",
             KernelClass::Attention},
            {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
             "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
             KernelClass::Elementwise},
            {"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::"
             "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::"
             "operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda("
             "at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda("
             "float)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_"
             "kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
             "const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::"
             "TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda("
             "float)#1} const&)::{lambda(int)#1})",
             KernelClass::Elementwise},
            {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
             "TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4>, float*>",
             KernelClass::Elementwise},
            {"void (anonymous namespace)::elementwise_kernel_with_index<int, at::native::arange_cuda_out>",
             KernelClass::Elementwise},
            {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>",
             KernelClass::Normalization},
            {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true, 1>(cudnnTensorStruct, float const*)",
             KernelClass::Normalization},
            {"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>",
             KernelClass::Normalization},
            {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, "
             "float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, "
             "float, float>, unsigned int, float, 4>)",
             KernelClass::Reduction},
            {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
             "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
             KernelClass::Reduction},
            {"void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>", KernelClass::Reduction},
            {"void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, int, int>::Policy800>",
             KernelClass::Reduction},
            {"void split_embedding_codegen_forward_unweighted_kernel<float, float, float, int, 4>",
             KernelClass::Embedding},
            {"void at::native::(anonymous namespace)::indexSelectLargeIndex<float, long, unsigned int, 2, 2, -2, true>",
             KernelClass::Embedding},
            {"void at::native::_scatter_gather_elementwise_kernel<128, 4>", KernelClass::Embedding},
            {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)::"
             "OpaqueType<4u>, unsigned int, 4, 128, 1>",
             KernelClass::Conversion},
            {"void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)0>",
             KernelClass::Conversion},
            {"void fbgemm_gpu::(anonymous namespace)::_compute_FP8_quantize_cuda_kernel<float>",
             KernelClass::Conversion},
            {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", KernelClass::Communication},
            {"ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", KernelClass::Communication},
            {"void (anonymous namespace)::multimem_all_reduce_kernel<16>", KernelClass::Communication},
            {"Memcpy DtoH (Device -> Pinned)", KernelClass::Copy},
            {"Memset (Device)", KernelClass::Memset},
            {"void epilogue::impl::globalKernel<8, 32, float, float>", KernelClass::Other},
        });
        // ROCm (hipBLASLt/Tensile, CK, AITER, MIOpen, Triton attention), from the MI250/MI300 fixtures.
        addRows({
            {"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x32x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_"
             "CLR1_CADS0_EPS0_GRVWA8_GRVWB8_GSUAMB_IU1_K1_LBSPPA2048_LBSPPB256_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_"
             "MIAV1_MIWT4_2_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_"
             "SRVW0_SSO0_SVW8_SK0_SKXCCM0_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VSn1_VWA8_VWB1_WSGRA0_WSGRB0_WS64_WG64_"
             "4_1",
             KernelClass::Gemm},
            {"Cijk_Ailk_Bljk_S_B_Bias_HA_S_SAV_UserArgs_MT16x16x128_MI16x16x1_SN_LDSB1_AFC1", KernelClass::Gemm},
            {"attn_fwd", KernelClass::Attention},
            {"void paged_attention_ll4mi_QKV_mfma16_kernel<__hip_bfloat16, __hip_bfloat16, 0, 64, 16, 256, true, 1>",
             KernelClass::Attention},
            {"_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi16ELb1ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4",
             KernelClass::Normalization},
            {"_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_ES3",
             KernelClass::Elementwise},
            {"naive_conv_fwd_nchw_float_double_float", KernelClass::Conv},
            {"igemm_fwd_gtcx_nhwc_fp16_bx0_ex1_bt128x128x32_wt32x32x8_ws2x2_wv2x2", KernelClass::Conv},
            {"void (anonymous namespace)::store_kvcache<__hip_bfloat16>", KernelClass::Embedding},
            {"__amd_rocclr_copyBuffer", KernelClass::Copy},
            {"__amd_rocclr_fillBufferAligned", KernelClass::Memset},
        });
        // Ascend (kernel_details `Type`, task names with instance numbers, aclnn names), from the torch_npu fixtures.
        addRows({
            {"MatMulV2", KernelClass::Gemm},
            {"MatMulV3", KernelClass::Gemm},
            {"BatchMatMul", KernelClass::Gemm},
            {"Conv2DBackpropFilter", KernelClass::Conv},
            {"Conv2D1", KernelClass::Conv},
            {"FlashAttentionScore", KernelClass::Attention},
            {"FlashAttentionScoreGrad", KernelClass::Attention},
            {"LayerNormV3", KernelClass::Normalization},
            {"BNTrainingUpdate", KernelClass::Normalization},
            {"ReduceSumD", KernelClass::Reduction},
            {"LpNormReduceV2", KernelClass::Reduction},
            {"ScaledMaskedSoftmax", KernelClass::Reduction},
            {"MaxPoolWithArgmaxV1", KernelClass::Reduction},
            {"ArgMaxWithValue", KernelClass::Reduction},
            {"NLLLossGrad", KernelClass::Reduction},
            {"GatherV2", KernelClass::Embedding},
            {"NonZero", KernelClass::Embedding},
            {"Cast", KernelClass::Conversion},
            {"trans_TransData_12", KernelClass::Conversion},
            {"Transpose", KernelClass::Conversion},
            {"StridedSliceD", KernelClass::Conversion},
            {"ApplyAdamW", KernelClass::Elementwise},
            {"ForeachAddList", KernelClass::Elementwise},
            {"DSAStatelessGenBitMask", KernelClass::Elementwise},
            {"RealDiv", KernelClass::Elementwise},
            {"Log", KernelClass::Elementwise},
            {"aclnnMuls_MulAiCore_Mul", KernelClass::Elementwise},
            {"TensorMove", KernelClass::Copy},
            {"aclnnMm_MatMulCommon_MemSet", KernelClass::Memset},
            {"hcom_allReduce__063_0_1", KernelClass::Communication},
            {"hcom_broadcast__411_0_1", KernelClass::Communication},
            {"sanitized_kernel", KernelClass::Other},
        });
        // RKNN (the OpType column of the layer tables, fused types included).
        addRows({
            {"ConvExSwish", KernelClass::Conv},
            {"ConvRelu", KernelClass::Conv},
            {"Conv", KernelClass::Conv},
            {"FullyConnected", KernelClass::Gemm},
            {"MatMul", KernelClass::Gemm},
            {"exSoftmax13", KernelClass::Reduction},
            {"MaxPool", KernelClass::Reduction},
            {"Concat", KernelClass::Conversion},
            {"Split", KernelClass::Conversion},
            {"Reshape", KernelClass::Conversion},
            {"OutputOperator", KernelClass::Conversion},
            {"Add", KernelClass::Elementwise},
            {"Sigmoid", KernelClass::Elementwise},
            {"Resize", KernelClass::Elementwise},
        });
    }

    void names()
    {
        QFETCH(QString, name);
        QFETCH(KernelClass, cls);
        const KernelClass got = classifyKernelName(name.toStdString());
        QVERIFY2(got == cls,
                 qPrintable(QStringLiteral("%1 → %2, expected %3")
                                .arg(name.left(80), QString::fromUtf8(analysis::kernelClassKey(got).data()),
                                     QString::fromUtf8(analysis::kernelClassKey(cls).data()))));
    }

    void keysAreStable()
    {
        QCOMPARE(analysis::kernelClassKey(KernelClass::Gemm), std::string_view("gemm"));
        QCOMPARE(analysis::kernelClassKey(KernelClass::Reduction), std::string_view("reduction"));
        QCOMPARE(analysis::kernelClassKey(KernelClass::Embedding), std::string_view("embedding"));
        QCOMPARE(analysis::kernelClassKey(KernelClass::Other), std::string_view("other"));
        QCOMPARE(analysis::kernelClassLabel(KernelClass::Reduction), std::string_view("reduction/softmax"));
    }

    /// The category decides before the name: a memcpy named like a GEMM stays a copy, RKNN I/O operators (CPU layers
    /// that are not fallbacks) are conversions, other CPU layers fallbacks.
    void categoryFirst()
    {
        model::TraceBuilder b;
        const auto host = b.hostThread("main", 1, 1);
        const auto dev = b.deviceStream(0, 7);
        const model::SliceRef refs[] = {
            b.slice(dev, model::SliceCategory::Memcpy, "gemm_copy", 0, 10),
            b.slice(dev, model::SliceCategory::Kernel, "Cijk_Alik", 20, 10),
            b.slice(dev, model::SliceCategory::Communication, "ncclKernel_x", 40, 10),
            b.slice(host, model::SliceCategory::FallbackOp, "OutputOperator", 0, 10),
            b.slice(host, model::SliceCategory::FallbackOp, "exSoftmax13", 20, 10),
        };
        const model::TracePtr trace = b.finalize();
        analysis::KernelClassifier c(*trace);
        // finalize() keeps each track's slices in time order, so the refs above still name them.
        QCOMPARE(c.classOf(refs[0]), KernelClass::Copy);
        QCOMPARE(c.classOf(refs[1]), KernelClass::Gemm);
        QCOMPARE(c.classOf(refs[2]), KernelClass::Communication);
        QCOMPARE(c.classOf(refs[3]), KernelClass::Conversion);
        QCOMPARE(c.classOf(refs[4]), KernelClass::Fallback);
    }

    /// Every kernel of the real fixtures gets a class or is knowingly `other`: the `other` share of device time
    /// stays under the bound of each (docs/compare.md lists the shares; at most 10 % on the real sample traces).
    void otherShareOfFixtures_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<double>("maxOther");
        const std::pair<const char*, double> rows[] = {
            {"torch/tracelens_h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", 0.0},
            {"torch/tracelens_mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", 0.0},
            {"torch/tracelens_h100_Falconsai_nsfw_image_detection__1016002.json.gz", 0.0},
            {"torch/tracelens_mi300_Falconsai_nsfw_image_detection__1016002.json.gz", 0.0},
            {"torch/tracelens_h100_gaunernst_bert-small-uncased__1016001.json.gz", 0.0},
            {"torch/tracelens_b200_eager_trace.json.gz", 0.10},
            {"torch/tracelens_rocm_sglang_Qwen3-8B_decode.json.gz", 0.10},
            {"torch/hta_a100_trace_diff_control.json.gz", 0.001},
            {"torch/hta_a100_nccl_data.json.gz", 0.10},
            {"torch/hta_v100_ns_resolution_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 0.10},
            {"torch/hta_mi250_minitoy_train_ROCm6_2_kineto.json.gz", 0.0},
            {"torch_npu/msinsight_text_level1_rank0_ascend_pt", 0.10},
            {"torch_npu/mstt_advisor_ut_2023", 0.10},
            {"msprof/msinsight_db_level1_rank0_ascend_pt", 0.10},
            {"rknn/rknpu2_1.6.0_rk3588_perf_detail_yolov8n_1920_singlecore.txt", 0.0},
            {"rknn/rknpu2_2.0.0b0_rk3588_perf_detail_yolov8n_1920x1088_multicore.txt", 0.0},
            {"rknn/toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt", 0.0},
        };
        for (const auto& [path, bound] : rows)
            QTest::newRow(path) << QString::fromUtf8(path) << bound;
    }

    void otherShareOfFixtures()
    {
        QFETCH(QString, path);
        QFETCH(double, maxOther);
        LOAD_FIXTURE(trace, path.toStdString());
        const auto byClass = timeByClass(*trace);
        model::TimeNs total = 0;
        for (model::TimeNs ns : byClass)
            total += ns;
        QVERIFY(total > 0);
        const double other = double(byClass[static_cast<std::size_t>(KernelClass::Other)]) / double(total);
        qInfo("%s: other %.2f %% of %lld ns", qPrintable(path), other * 100.0, static_cast<long long>(total));
        QVERIFY2(other <= maxOther + 1e-12, qPrintable(QStringLiteral("other share %1").arg(other)));
    }
};

QTEST_GUILESS_MAIN(TestKernelClass)
#include "tst_kernelclass.moc"
