// SPDX-License-Identifier: MIT
// Device time where it belongs, on real fixtures: launch-bound only when the host launches. Figures worked out
// by hand from the raw events (quoted per test).
#include "analysis/pass.h"
#include "tests/analysis/findinglookup.h"
#include "tests/common/fixtures.h"

#include <QTest>

using namespace timesink;
using namespace timesink::analysis;
using model::TimeNs;

namespace {

const Finding* bubbleCause(const AnalysisResult& r, std::string_view cause)
{
    for (const Finding* f : testing::ofKind(r, "pipeline_bubble")) {
        for (const Detail& d : f->details) {
            if (d.key == "cause" && detailText(d) == cause)
                return f;
        }
    }
    return nullptr;
}

} // namespace

class TestDeviceTime : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // hta_a100_cuda_event_sync_trace, ProfilerStep#100 starts at 1707417525509335 µs; the first kernel starts at
    // …512145: a 2810 µs gap. The host thread is in aten::ones […509905, …512150), which holds aten::empty
    // […509909, …512096) (launches nothing, 2187 µs) and aten::fill_ → cudaLaunchKernel […512110, …512146)
    // (launches the first kernel). Host busy in the gap = 2240 µs (the "2.24 ms" that was all called launch-bound);
    // of it only 2240 − 2187 = 53 µs is in ops that launch. The other bubbles follow a copy or a 36 µs kernel, so
    // they are not between tiny kernels.
    void launchBoundOnlyWhileLaunching()
    {
        LOAD_FIXTURE(trace, std::string("torch/hta_a100_cuda_event_sync_trace.json.gz"));
        CancelToken cancel;
        const AnalysisResult r = analyze(*trace, AnalysisOptions {}, cancel);
        const Finding* lb = bubbleCause(r, "launch_bound");
        QVERIFY(lb);
        QCOMPARE(lb->lostNs, TimeNs(53'000));
        const Finding* host = bubbleCause(r, "host_op");
        QVERIFY(host);
        QVERIFY2(host->lostNs >= TimeNs(2'187'000), std::to_string(host->lostNs).c_str());
        // The top finding names the allocation, not launches.
        QCOMPARE(r.findings.front().title.rfind("Device idle while the host runs framework ops", 0), std::size_t(0));
        bool namesEmpty = false;
        for (const model::SliceRef& e : host->events)
            namesEmpty = namesEmpty || trace->str(trace->track(e.track).sliceName(e.index.value)) == "aten::empty";
        QVERIFY(namesEmpty);
    }
};

QTEST_GUILESS_MAIN(TestDeviceTime)
#include "tst_devicetime.moc"
