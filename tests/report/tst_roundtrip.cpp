// SPDX-License-Identifier: MIT
// Counts that must survive an export: `info` counts the flows that link two slices, which is exactly what the
// exporters write, and says how many could not be linked.
#include "report/chromejsonexporter.h"
#include "report/tracesummary.h"
#include "tests/common/fixtures.h"

#include <QTest>

#include <sstream>

using namespace timesink;

class TestRoundTrip : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // python3 over hta_a100_nccl_data: "s" events carry 4405 distinct ids (3862 ac2g + 543 fwdbwd), "f" events
    // 9195; 4317 ids have both ends. The model keeps a flow for every "f" (8496 after binding), so `info` said
    // 8496 while both exporters write 4317.
    void infoCountsLinkedFlows()
    {
        LOAD_FIXTURE(trace, std::string("torch/hta_a100_nccl_data.json.gz"));
        QCOMPARE(report::linkedFlowCount(*trace), std::size_t(4317));
        const auto j = report::traceSummaryJson(*trace);
        QCOMPARE(j.at("flows").get<std::size_t>(), std::size_t(4317));
        const std::size_t unlinked = trace->flows().size() - 4317;
        QVERIFY(unlinked > 0);
        QCOMPARE(j.at("unlinked_flows").get<std::size_t>(), unlinked);
        bool warned = false;
        for (const auto& w : j.at("warnings"))
            warned = warned || (w.at("kind") == "unlinked_flows" && w.at("count").get<std::size_t>() == unlinked);
        QVERIFY(warned);

        std::ostringstream out;
        std::string error;
        report::ChromeJsonExporter exporter(*trace, {});
        QVERIFY2(exporter.write(out, error), error.c_str());
        const std::string text = out.str();
        std::size_t starts = 0;
        for (std::size_t p = text.find("{\"ph\":\"s\""); p != std::string::npos; p = text.find("{\"ph\":\"s\"", p + 1))
            ++starts;
        QCOMPARE(starts, std::size_t(4317));
    }
};

QTEST_GUILESS_MAIN(TestRoundTrip)
#include "tst_roundtrip.moc"
