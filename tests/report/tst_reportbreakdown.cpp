// SPDX-License-Identifier: MIT
// What the report writers show of the breakdown: shortened signatures with the full name after the table, the
// viewer command as a code span, only devices with activity.
#include "report/analysis/reportmodel.h"
#include "report/core/textformat.h"
#include "report/writers/markdown/markdownwriter.h"
#include "reportfixture.h"

#include <QTest>

#include <sstream>

using namespace timesink;

namespace {

const std::string kSignature
    = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> "
      ">(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";

std::string markdown(const report::ReportModel& m)
{
    std::ostringstream out;
    report::writeMarkdownReport(m, out);
    return out.str();
}

} // namespace

class TestReportBreakdown : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void shortenSignature()
    {
        QCOMPARE(report::shortenSignature("aten::conv2d"), std::string("aten::conv2d"));
        QCOMPARE(report::shortenSignature(kSignature), std::string("at::native::vectorized_elementwise_kernel<…>"));
        // Not a signature, just long: cut.
        const std::string plain(200, 'x');
        QCOMPARE(report::shortenSignature(plain, 10), std::string(10, 'x') + "…");
    }

    void codeSpan()
    {
        QCOMPARE(report::markdownCodeSpan("timesink 'a.json' --finding 1"),
                 std::string("`timesink 'a.json' --finding 1`"));
        QCOMPARE(report::markdownCodeSpan("a`b"), std::string("`` a`b ``"));
    }

    void markdownShortensOperatorNames()
    {
        const auto a = testing::makeAnalysedTrace(0, kSignature);
        const std::string md = markdown(report::buildReportModel(*a.trace, a.result));
        QVERIFY(md.find("| 1 | at::native::vectorized\\_elementwise\\_kernel\\<…\\> | kernel |") != std::string::npos);
        QVERIFY(md.find("Full names:\n\n1. `" + kSignature + "`\n") != std::string::npos);
        // The viewer command is code, not text with escapes.
        QVERIFY(md.find("Open it in the viewer: `timesink '/data/run1/trace.json' --finding 1`") != std::string::npos);
    }

    void devicesOnlyWithActivity()
    {
        model::TraceBuilder b;
        b.metadata().format = "kineto";
        for (int i = 0; i < 8; ++i)
            b.metadata().devices.push_back(model::Device {model::DeviceKind::Gpu, i, "NVIDIA A100"});
        const auto host = b.hostThread();
        const auto gpu = b.deviceStream(3, 7);
        b.step(host, 1, 0, 100);
        b.slice(gpu, model::SliceCategory::Kernel, "k", 10, 20);
        const auto trace = b.finalize();
        const report::ReportModel m = report::buildReportModel(*trace, analysis::AnalysisResult {});
        QCOMPARE(m.summary.devices.size(), std::size_t(1));
        QCOMPARE(m.summary.devices[0].index, 3);
        QVERIFY(markdown(m).find("- **Devices:** gpu 3 (NVIDIA A100)\n") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestReportBreakdown)
#include "tst_reportbreakdown.moc"
