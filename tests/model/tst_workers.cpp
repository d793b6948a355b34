// SPDX-License-Identifier: MIT
// model/workers.h: the one way the libraries start threads. A task's exception reaches join() on the caller's
// thread, the group's stop function runs once when a task fails, and nothing aborts on the way (issue 38).
#include "model/workers.h"

#include <QTest>

#include <atomic>
#include <chrono>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

using timesink::model::parallelFor;
using timesink::model::WorkerGroup;

class TestWorkers : public QObject
{
    Q_OBJECT

private slots:
    void parallelForVisitsEveryIndexOnce()
    {
        for (const std::size_t threads : {std::size_t(1), std::size_t(2), std::size_t(8)}) {
            std::vector<std::atomic<int>> seen(1000);
            parallelFor(seen.size(), threads, [&](std::size_t i) { seen[i].fetch_add(1); });
            for (const auto& s : seen)
                QCOMPARE(s.load(), 1);
        }
        parallelFor(0, 4, [](std::size_t) { QFAIL("no index in an empty range"); });
    }

    // An allocation failure on a worker stops the hand-out of indices and is rethrown here, after every join.
    void parallelForRethrowsAWorkersFailure()
    {
        std::atomic<std::size_t> ran {0};
        bool thrown = false;
        // Each index takes a while: a process's first throw can take a millisecond (unwind tables), long enough for
        // other threads to run through thousands of instant indices before the stop.
        constexpr std::size_t kIndices = 20000;
        try {
            parallelFor(kIndices, 4, [&](std::size_t i) {
                ran.fetch_add(1);
                if (i == 10)
                    throw std::bad_alloc();
                std::this_thread::sleep_for(std::chrono::microseconds(50));
            });
        } catch (const std::bad_alloc&) {
            thrown = true;
        }
        QVERIFY(thrown);
        QVERIFY2(ran.load() < kIndices / 2, "indices went on being handed out after the failure");
    }

    // The first exception wins; the stop function runs once, so that the others stop waiting for the failed one.
    void groupRethrowsTheFirstAndStopsTheRest()
    {
        std::atomic<bool> stop {false};
        std::atomic<int> stops {0};
        WorkerGroup group([&] {
            stops.fetch_add(1);
            stop = true;
        });
        // A pipeline party that only returns when stopped: without the stop function join() would hang.
        QVERIFY(group.tryStart([&] {
            while (!stop)
                std::this_thread::yield();
        }));
        QVERIFY(group.tryStart([] { throw std::length_error("too many args"); }));
        group.runHere([] { throw std::runtime_error("second"); });
        QVERIFY(group.failed());
        QString what;
        try {
            group.join();
        } catch (const std::exception& e) {
            what = QString::fromUtf8(e.what());
        }
        // Which failure came first depends on the threads; exactly one of them is reported.
        QVERIFY2(what == QStringLiteral("too many args") || what == QStringLiteral("second"), qPrintable(what));
        QCOMPARE(stops.load(), 1);
        QCOMPARE(group.running(), std::size_t(0));
        QVERIFY(!group.failed()); // usable again
        group.join();             // nothing left to report
    }

    // Deferred tasks run in join(), on the caller's thread, with the same failure handling.
    void startOrDeferRunsTheTaskByJoin()
    {
        WorkerGroup group;
        std::atomic<int> ran {0};
        group.startOrDefer([&] { ran.fetch_add(1); });
        group.join();
        QCOMPARE(ran.load(), 1);
        group.startOrDefer([] { throw std::bad_alloc(); });
        QVERIFY_THROWS_EXCEPTION(std::bad_alloc, group.join());
    }

    // Destroyed while a task runs (the caller unwinding from its own exception): the group stops and joins, and
    // the task's failure is dropped rather than ending the process.
    void destructorStopsAndJoins()
    {
        std::atomic<bool> stop {false};
        bool caught = false;
        try {
            WorkerGroup group([&] { stop = true; });
            QVERIFY(group.tryStart([&] {
                while (!stop)
                    std::this_thread::yield();
                throw std::bad_alloc();
            }));
            throw std::runtime_error("the caller fails first");
        } catch (const std::runtime_error&) {
            caught = true;
        }
        QVERIFY(caught);
        QVERIFY(stop.load());
    }
};

QTEST_APPLESS_MAIN(TestWorkers)
#include "tst_workers.moc"
