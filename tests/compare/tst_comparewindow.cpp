// SPDX-License-Identifier: MIT
// File → Compare With…: the shown trace is the baseline, the chosen one is loaded in the background and
// both open in a compare window.
#include "app/gui/mainwindow.h"
#include "model/tracebuilder.h"
#include "widgets/compareview.h"
#include "widgets/operatordiffmodel.h"

#include <QAction>
#include <QApplication>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace timesink;

namespace {

widgets::CompareView* openCompareView()
{
    for (QWidget* w : QApplication::topLevelWidgets()) {
        if (auto* view = qobject_cast<widgets::CompareView*>(w); view && view->isVisible())
            return view;
    }
    return nullptr;
}

/// One ProfilerStep with aten::mm launching a 1 µs kernel: a baseline that shares aten::mm with the A100 fixture.
model::TracePtr baseline()
{
    model::TraceBuilder b;
    b.metadata().format = "kineto";
    const auto host = b.hostThread();
    const auto gpu = b.deviceStream(0, 7);
    b.step(host, 1, 0, 100'000);
    b.slice(host, model::SliceCategory::HostOp, "aten::mm", 100, 5'000);
    b.addFlow(b.slice(host, model::SliceCategory::RuntimeApi, "cudaLaunchKernel", 200, 1'000),
              b.slice(gpu, model::SliceCategory::Kernel, "gemm", 2'000, 1'000));
    return b.finalize();
}

} // namespace

class TestCompareWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.path());
        QCoreApplication::setOrganizationName(QStringLiteral("TimesinkTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_comparewindow"));
    }

    void menuHasCompareActions()
    {
        gui::MainWindow w;
        QVERIFY(w.findChild<QAction*>(QStringLiteral("actionCompareWith")));
        QVERIFY(w.findChild<QAction*>(QStringLiteral("actionCompareWithFolder")));
    }

    void needsABaselineFirst()
    {
        gui::MainWindow w;
        QStringList errors;
        w.setErrorReporter([&errors](const QString& title, const QString&) { errors << title; });
        w.compareWith(QStringLiteral(TIMESINK_FIXTURES_DIR "/torch/hta_a100_trace_diff_control.json.gz"));
        QCOMPARE(errors, QStringList {QStringLiteral("Compare runs")});
        QVERIFY(!w.compareJob());
    }

    void unreadableCandidateIsReported()
    {
        gui::MainWindow w;
        QStringList errors;
        w.setErrorReporter([&errors](const QString& title, const QString&) { errors << title; });
        w.showTrace(gui::LoadedTrace {baseline(), {}, std::nullopt, QStringLiteral("base.json")});
        w.compareWith(m_dir.filePath(QStringLiteral("missing.json")));
        QTRY_COMPARE(errors, QStringList {QStringLiteral("Cannot compare")});
        QVERIFY(!openCompareView());
    }

    void opensACompareWindow()
    {
        gui::MainWindow w;
        QStringList errors;
        w.setErrorReporter([&errors](const QString& title, const QString& message) { errors << title + message; });
        w.showTrace(gui::LoadedTrace {baseline(), {}, std::nullopt, QStringLiteral("base.json")});
        w.compareWith(QStringLiteral(TIMESINK_FIXTURES_DIR "/torch/hta_a100_trace_diff_control.json.gz"));
        widgets::CompareView* view = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((view = openCompareView()) != nullptr, 60000);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
        QVERIFY(view->windowTitle().contains(QStringLiteral("hta_a100_trace_diff_control.json.gz")));
        QCOMPARE(view->result().steps.size(), std::size_t(1)); // one baseline step against the first of six
        // aten::mm is on both sides: 1 µs here, 6.946 ms in ProfilerStep#1009 (tst_comparefixtures).
        const auto& ops = view->operatorModel()->operators();
        auto it = std::find_if(ops.begin(), ops.end(), [](const auto& o) { return o.name == "aten::mm"; });
        QVERIFY(it != ops.end());
        QCOMPARE(it->baselineNs, model::TimeNs(1'000));
        QCOMPARE(it->candidateNs, model::TimeNs(6'946'000));
        view->close(); // WA_DeleteOnClose
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestCompareWindow)
#include "tst_comparewindow.moc"
