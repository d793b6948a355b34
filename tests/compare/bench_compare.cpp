// SPDX-License-Identifier: MIT
// Not a pass/fail test: prints how long compareRuns() takes on two synthetic Kineto-shaped runs of
// `TIMESINK_BENCH_KERNELS` kernels each (default 1'000'000), every kernel launched by a runtime call inside
// two nested aten ops, with flows. Label `bench`.
#include "analysis/compare/compare.h"
#include "model/tracebuilder.h"

#include <QTest>

#include <chrono>
#include <cstdio>
#include <cstdlib>

using namespace timesink;
using model::SliceCategory;

namespace {

model::TracePtr build(std::int64_t kernels, model::TimeNs kernelNs)
{
    static constexpr const char* kOps[] = {"aten::conv2d",     "aten::relu_", "aten::add",     "aten::linear",
                                           "aten::batch_norm", "aten::mul",   "aten::softmax", "aten::cat"};
    model::TraceBuilder b;
    const auto host = b.hostThread();
    const auto gpu = b.deviceStream(0, 7);
    constexpr std::int64_t kPerStep = 10'000;
    for (std::int64_t k = 0; k < kernels; ++k) {
        const model::TimeNs t = k * 1'000;
        if (k % kPerStep == 0)
            b.step(host, k / kPerStep, t, kPerStep * 1'000);
        b.slice(host, SliceCategory::HostOp, kOps[k % 8], t + 10, 500);
        b.slice(host, SliceCategory::HostOp, "aten::inner", t + 20, 400);
        b.addFlow(b.slice(host, SliceCategory::RuntimeApi, "cudaLaunchKernel", t + 30, 20),
                  b.slice(gpu, SliceCategory::Kernel, "kernel", t + 100, kernelNs));
    }
    return b.finalize();
}

} // namespace

class BenchCompare : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void compareRuns()
    {
        const char* env = std::getenv("TIMESINK_BENCH_KERNELS");
        const std::int64_t kernels = env ? std::atoll(env) : 1'000'000;
        const model::TracePtr base = build(kernels, 300);
        const model::TracePtr cand = build(kernels, 350);
        const auto t0 = std::chrono::steady_clock::now();
        analysis::CompareResult r;
        std::string error;
        QVERIFY(analysis::compareRuns(*base, {}, *cand, {}, {}, r, error));
        const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        std::printf("compareRuns: 2 × %lld kernels (%zu slices each) in %.0f ms; %zu operators, %zu step pairs\n",
                    static_cast<long long>(kernels), base->sliceCount(), ms, r.operators.size(), r.steps.size());
        QCOMPARE(r.operators.size(), std::size_t(8));
        QCOMPARE(r.candidate.operatorNs - r.baseline.operatorNs, kernels * 50);
    }
};

QTEST_APPLESS_MAIN(BenchCompare)
#include "bench_compare.moc"
