// SPDX-License-Identifier: MIT
#include "model/tracebuilder.h"
#include "model/trackname.h"

#include <QTest>

using namespace timesink::model;

namespace {
std::string nameOf(const Trace& t, TrackId track, std::uint32_t i)
{
    return std::string(t.str(t.track(track).sliceName(i)));
}
} // namespace

class TestTraceBuilder : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sortsAndNests()
    {
        TraceBuilder b;
        const TrackId host = b.hostThread();
        // Added out of order on purpose.
        b.slice(host, SliceCategory::HostOp, "child2", 60, 20);
        b.slice(host, SliceCategory::HostOp, "outer", 0, 100);
        b.slice(host, SliceCategory::HostOp, "child1", 10, 30);
        b.slice(host, SliceCategory::HostOp, "grandchild", 10, 5);
        b.slice(host, SliceCategory::HostOp, "next", 100, 10);
        TracePtr t = b.finalize();
        const Track& tr = t->track(host);
        QCOMPARE(tr.size(), std::size_t(5));
        QCOMPARE(nameOf(*t, host, 0), std::string("outer"));
        QCOMPARE(nameOf(*t, host, 1), std::string("child1"));
        QCOMPARE(nameOf(*t, host, 2), std::string("grandchild"));
        QCOMPARE(nameOf(*t, host, 3), std::string("child2"));
        QCOMPARE(nameOf(*t, host, 4), std::string("next"));
        QCOMPARE(tr.depth(0), std::uint16_t(0));
        QCOMPARE(tr.depth(1), std::uint16_t(1));
        QCOMPARE(tr.depth(2), std::uint16_t(2));
        QCOMPARE(tr.depth(3), std::uint16_t(1));
        QCOMPARE(tr.depth(4), std::uint16_t(0)); // starts exactly where outer ends: a sibling, not a child
        QCOMPARE(tr.parent(2).value, 1U);
        QCOMPARE(tr.parent(3).value, 0U);
        QVERIFY(!tr.parent(0).isValid());
        QCOMPARE(tr.depthCount(), std::size_t(3));
        QCOMPARE(tr.busyNs(), TimeNs(110));
        QCOMPARE(t->startNs(), TimeNs(0));
        QCOMPARE(t->endNs(), TimeNs(110));
    }

    void partialOverlapKeepsDepthsDisjoint()
    {
        TraceBuilder b;
        const TrackId host = b.hostThread();
        b.slice(host, SliceCategory::HostOp, "a", 0, 100);
        b.slice(host, SliceCategory::HostOp, "b", 50, 100); // overlaps a's end
        b.slice(host, SliceCategory::HostOp, "c", 120, 10); // inside b only
        TracePtr t = b.finalize();
        const Track& tr = t->track(host);
        QCOMPARE(tr.depth(1), std::uint16_t(1));
        QVERIFY(!tr.parent(1).isValid());
        QVERIFY(tr.flags(1) & SliceFlags::kPartialOverlap);
        QCOMPARE(tr.parent(2).value, 1U);
        for (std::size_t d = 0; d < tr.depthCount(); ++d) {
            const auto idx = tr.slicesAtDepth(d);
            for (std::size_t k = 1; k < idx.size(); ++k)
                QVERIFY(tr.end(idx[k - 1]) <= tr.ts(idx[k]));
        }
    }

    void rangeQueriesAndHitTesting_data()
    {
        QTest::addColumn<qint64>("t0");
        QTest::addColumn<qint64>("t1");
        QTest::addColumn<int>("expected");
        QTest::newRow("all") << qint64(0) << qint64(1000) << 10;
        QTest::newRow("before") << qint64(-50) << qint64(-1) << 0;
        QTest::newRow("after") << qint64(1000) << qint64(2000) << 0;
        QTest::newRow("one inside") << qint64(205) << qint64(206) << 1;
        QTest::newRow("gap") << qint64(251) << qint64(299) << 0;
        QTest::newRow("touch end") << qint64(250) << qint64(250) << 1;
        QTest::newRow("span three") << qint64(240) << qint64(410) << 3;
    }
    void rangeQueriesAndHitTesting()
    {
        QFETCH(qint64, t0);
        QFETCH(qint64, t1);
        QFETCH(int, expected);
        TraceBuilder b;
        const TrackId gpu = b.deviceStream(0, 7);
        for (int i = 0; i < 10; ++i)
            b.slice(gpu, SliceCategory::Kernel, "k", i * 100, 50);
        TracePtr t = b.finalize();
        const auto [first, last] = t->track(gpu).rangeAtDepth(0, t0, t1);
        QCOMPARE(int(last - first), expected);
        QCOMPARE(t->track(gpu).sliceAt(225).value, 2U);
        QVERIFY(!t->track(gpu).sliceAt(260).isValid());
    }

    void flowsAreRemappedAfterSorting()
    {
        TraceBuilder b;
        const TrackId host = b.hostThread();
        const TrackId gpu = b.deviceStream(0, 7);
        const SliceRef k2 = b.slice(gpu, SliceCategory::Kernel, "k2", 500, 10);
        const SliceRef k1 = b.slice(gpu, SliceCategory::Kernel, "k1", 100, 10);
        const SliceRef l2 = b.slice(host, SliceCategory::RuntimeApi, "launch2", 50, 5);
        const SliceRef l1 = b.slice(host, SliceCategory::RuntimeApi, "launch1", 10, 5);
        b.addFlow(l1, k1);
        b.addFlow(l2, k2);
        b.addFlowAt(host, 52, gpu, 500, FlowKind::Launch, true);   // duplicate of l2 → k2, deduplicated
        b.addFlowAt(host, 5000, gpu, 500, FlowKind::Launch, true); // no slice at 5000
        TracePtr t = b.finalize();
        QCOMPARE(t->flows().size(), std::size_t(2));
        const auto from = t->flowsFrom(SliceRef {host, SliceIndex(0)}); // launch1 sorts first
        QCOMPARE(from.size(), std::size_t(1));
        QCOMPARE(nameOf(*t, gpu, from[0].to.index.value), std::string("k1"));
        const auto to = t->flowsTo(SliceRef {gpu, SliceIndex(1)});
        QCOMPARE(to.size(), std::size_t(1));
        QCOMPARE(nameOf(*t, host, t->flows()[to[0]].from.index.value), std::string("launch2"));
        QCOMPARE(t->warnings().size(), std::size_t(1));
        QCOMPARE(t->warnings()[0].kind, std::string("flow_unresolved"));
        QCOMPARE(t->warnings()[0].count, std::uint64_t(1));
    }

    void syntheticStepWhenNoMarkers()
    {
        TraceBuilder b;
        const TrackId host = b.hostThread();
        b.slice(host, SliceCategory::HostOp, "op", 1000, 500);
        TracePtr t = b.finalize();
        QCOMPARE(t->steps().size(), std::size_t(1));
        QVERIFY(t->steps()[0].synthetic);
        QCOMPARE(t->steps()[0].start, TimeNs(1000));
        QCOMPARE(t->steps()[0].end, TimeNs(1500));
    }

    void stepsAndCounts()
    {
        TraceBuilder b;
        const TrackId host = b.hostThread();
        const TrackId gpu = b.deviceStream(0, 7);
        b.step(host, 12, 1000, 100);
        b.step(host, 11, 0, 900);
        b.memcpy(gpu, MemcpyDirection::HostToDevice, HostMemoryKind::Pageable, 10, 5);
        TracePtr t = b.finalize();
        QCOMPARE(t->steps().size(), std::size_t(2));
        QCOMPARE(t->steps()[0].number, std::int64_t(11));
        QVERIFY(t->steps()[0].marker.isValid());
        QCOMPARE(t->str(t->track(host).sliceName(t->steps()[0].marker.index.value)),
                 std::string_view("ProfilerStep#11"));
        QCOMPARE(t->categoryCount(SliceCategory::Step), std::uint64_t(2));
        QCOMPARE(t->categoryCount(SliceCategory::Memcpy), std::uint64_t(1));
        QCOMPARE(t->track(gpu).direction(0), MemcpyDirection::HostToDevice);
        QCOMPARE(t->track(gpu).hostMemory(0), HostMemoryKind::Pageable);
        QCOMPARE(t->sliceCount(), std::size_t(3));
    }

    void summariesCoverEverySlice()
    {
        TraceBuilder b;
        const TrackId gpu = b.deviceStream(0, 7);
        const int n = 10000;
        for (int i = 0; i < n; ++i)
            b.slice(gpu, i % 3 ? SliceCategory::Kernel : SliceCategory::Memcpy, "k", i * 10, 4);
        TracePtr t = b.finalize();
        const auto& levels = t->track(gpu).summaries(0);
        QVERIFY(levels.size() >= 3);
        QCOMPARE(levels.back().size(), std::size_t(1));
        for (const auto& level : levels) {
            std::uint64_t count = 0;
            TimeNs busy = 0;
            for (const SummaryBucket& bucket : level) {
                count += bucket.count;
                busy += bucket.busyNs;
            }
            QCOMPARE(count, std::uint64_t(n));
            QCOMPARE(busy, TimeNs(4) * n);
        }
        QCOMPARE(levels.back().front().dominant, SliceCategory::Kernel);
        QCOMPARE(levels.back().front().start, TimeNs(0));
        QCOMPARE(levels.back().front().end, TimeNs((n - 1) * 10 + 4));
    }

    void warningsAreCountedByKind()
    {
        TraceBuilder b;
        b.warn(ImportWarningKind::BadTs, "first message");
        b.warn(ImportWarningKind::BadTs, "second message", 4);
        b.warn(ImportWarningKind::Truncated, "cut");
        QCOMPARE(b.warningCount(ImportWarningKind::BadTs), std::uint64_t(5));
        TracePtr t = b.finalize();
        QCOMPARE(t->warnings().size(), std::size_t(2));
        QCOMPARE(t->warnings()[0].message, std::string("first message"));
        QCOMPARE(t->warnings()[0].count, std::uint64_t(5));
    }

    void counterSamplesSorted()
    {
        TraceBuilder b;
        const TrackId c = b.addTrack(TrackInfo {"HBM", "NPU 0", "", "", "", DeviceKind::Npu, TrackRole::Counter});
        b.addCounterSample(c, 30, 3.0);
        b.addCounterSample(c, 10, 1.0);
        TracePtr t = b.finalize();
        QCOMPARE(t->track(c).counterTimes()[0], TimeNs(10));
        QCOMPARE(t->track(c).counterValues()[1], 3.0);
        QCOMPARE(t->startNs(), TimeNs(10));
        QCOMPARE(t->endNs(), TimeNs(30));
    }

    void disjointClocksAreReported()
    {
        TraceBuilder b;
        const TrackId gpu = b.deviceStream(0, 7);
        const TrackId host = b.hostThread();
        const TrackId stray
            = b.addTrack(TrackInfo {"MSTX", "Host", "", "", "", DeviceKind::Cpu, TrackRole::HostThread});
        const TimeNs epoch = 1'698'220'811'392'354'694;
        for (int i = 0; i < 10; ++i) {
            b.slice(gpu, SliceCategory::Kernel, "k", epoch + i * 1000, 500);
            b.slice(host, SliceCategory::HostOp, "op", epoch + i * 1000 - 100, 50);
        }
        b.slice(stray, SliceCategory::Annotation, "mark", epoch + TimeNs(2) * 86'400'000'000'000, 10);
        TracePtr t = b.finalize();
        QCOMPARE(t->warnings().size(), std::size_t(1));
        QCOMPARE(t->warnings()[0].kind, std::string("disjoint_clocks"));
        QCOMPARE(t->warnings()[0].count, std::uint64_t(1));
        QVERIFY(t->warnings()[0].message.find("Host/MSTX") != std::string::npos);
        QVERIFY(t->warnings()[0].message.find("172800 s") != std::string::npos);

        TraceBuilder near; // one hour apart is one clock
        const TrackId a = near.hostThread();
        const TrackId c = near.deviceStream(0, 1);
        near.slice(a, SliceCategory::HostOp, "op", epoch, 10);
        near.slice(c, SliceCategory::Kernel, "k", epoch + 3'600'000'000'000, 10);
        QVERIFY(near.finalize()->warnings().empty());
    }

    void sortsRunsAndShuffledInputAlike()
    {
        // The same 20000 slices added in three ascending runs (merged) and shuffled (the stable_sort fallback) must
        // come out identically ordered, identical slices in the order they were added (told apart by name).
        std::vector<std::pair<TimeNs, int>> slices; // (ts, id)
        for (int i = 0; i < 20000; ++i)
            slices.emplace_back(TimeNs(i / 2) * 10, i); // pairs of identical ts and dur
        auto build = [&](const std::vector<std::pair<TimeNs, int>>& order) {
            TraceBuilder b;
            const TrackId gpu = b.deviceStream(0, 1);
            for (const auto& [ts, id] : order)
                b.slice(gpu, SliceCategory::Kernel, std::to_string(id), ts, 5);
            TracePtr t = b.finalize();
            std::vector<std::string> names;
            for (std::uint32_t i = 0; i < t->track(gpu).size(); ++i)
                names.push_back(nameOf(*t, gpu, i));
            return names;
        };
        std::vector<std::pair<TimeNs, int>> runs;
        for (int r = 0; r < 3; ++r)
            for (std::size_t i = static_cast<std::size_t>(r); i < slices.size(); i += 3)
                runs.push_back(slices[i]);
        std::vector<std::pair<TimeNs, int>> shuffled = slices;
        std::uint64_t seed = 99;
        for (std::size_t i = shuffled.size(); i > 1; --i) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            std::swap(shuffled[i - 1], shuffled[(seed >> 33) % i]);
        }
        for (const auto* order : {&runs, &shuffled}) {
            std::vector<std::size_t> addedAt(slices.size());
            for (std::size_t k = 0; k < order->size(); ++k)
                addedAt[static_cast<std::size_t>((*order)[k].second)] = k;
            const auto names = build(*order);
            QCOMPARE(names.size(), slices.size());
            for (std::size_t i = 0; i + 1 < names.size(); ++i) {
                const int a = std::stoi(names[i]);
                const int b = std::stoi(names[i + 1]);
                QVERIFY(a / 2 <= b / 2); // by time
                if (a / 2 == b / 2)      // identical slices: in the order they were added
                    QVERIFY(addedAt[static_cast<std::size_t>(a)] < addedAt[static_cast<std::size_t>(b)]);
            }
        }
    }

    void manyTimeAddressedFlowsBindInOrder()
    {
        // Enough flows for finalize to bind them on several threads: every flow must land on the slices that
        // enclose its ends, in the order added, and the ones that hit no slice are counted once.
        constexpr int kLaunches = 600000;
        TraceBuilder b;
        const TrackId host = b.hostThread();
        const TrackId gpu = b.deviceStream(0, 1);
        for (int i = 0; i < kLaunches; ++i) {
            b.slice(host, SliceCategory::RuntimeApi, "launch", TimeNs(i) * 100, 10);
            b.slice(gpu, SliceCategory::Kernel, "k", TimeNs(i) * 100 + 50, 20);
        }
        for (int i = 0; i < kLaunches; ++i) // inside the launch, inside the kernel
            b.addFlowAt(host, TimeNs(i) * 100 + 5, gpu, TimeNs(i) * 100 + 60, FlowKind::Launch, true);
        b.addFlowAt(host, 95, gpu, 60, FlowKind::Launch, true); // starts in a gap: unresolved
        TracePtr t = b.finalize();
        QCOMPARE(t->flows().size(), std::size_t(kLaunches));
        for (int i = 0; i < kLaunches; i += 9973) {
            const Flow& f = t->flows()[static_cast<std::size_t>(i)];
            QCOMPARE(f.from.index.value, std::uint32_t(i));
            QCOMPARE(f.to.index.value, std::uint32_t(i));
            QCOMPARE(t->flowsTo(f.to), (std::vector<std::uint32_t> {std::uint32_t(i)}));
        }
        QCOMPARE(t->warnings().size(), std::size_t(1));
        QCOMPARE(t->warnings()[0].kind, std::string("flow_unresolved"));
        QCOMPARE(t->warnings()[0].count, std::uint64_t(1));
    }

    void packedPendingFlowsKeepEveryField()
    {
        // Time-addressed flows wait packed until finalize binds them (differences from the flow before, restarted
        // every few thousand flows): tracks that change or repeat, all kinds, both binding rules, times that go
        // back, and flows with an invalid track must all come out as added, over several chunks and threads.
        constexpr int kSlices = 3000;
        TraceBuilder b;
        const std::vector<TrackId> hosts {b.hostThread("a", 1, 1), b.hostThread("b", 1, 2), b.hostThread("c", 2, 3)};
        const std::vector<TrackId> gpus {b.deviceStream(0, 1), b.deviceStream(0, 2)};
        for (int i = 0; i < kSlices; ++i) {
            for (const TrackId h : hosts)
                b.slice(h, SliceCategory::RuntimeApi, "launch", TimeNs(i) * 1000, 100);
            for (const TrackId g : gpus)
                b.slice(g, SliceCategory::Kernel, "k", TimeNs(i) * 1000 + 500, 200);
        }
        struct Expected
        {
            SliceRef from;
            SliceRef to;
            FlowKind kind;
        };
        std::vector<Expected> expected;
        std::uint64_t invalid = 0;
        std::uint64_t seed = 12345;
        auto next = [&seed] {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            return static_cast<std::uint32_t>(seed >> 33);
        };
        const FlowKind kinds[] = {FlowKind::Launch, FlowKind::ForwardBackward, FlowKind::Other};
        for (int n = 0; n < 20000; ++n) {
            const std::uint32_t from = next() % kSlices;
            const std::uint32_t to = next() % kSlices;
            const std::size_t h
                = next() % 4 == 0 ? next() % hosts.size() : static_cast<std::size_t>(n / 500) % hosts.size();
            const std::size_t g = next() % gpus.size();
            const FlowKind kind = kinds[next() % 3];
            const bool enclosing = next() % 2 == 0;
            // Enclosing: a time inside the kernel; otherwise just before it (the next top-level slice).
            const TimeNs toTs = TimeNs(to) * 1000 + (enclosing ? 600 : 450);
            if (n % 997 == 0) {
                b.addFlowAt(TrackId(), TimeNs(from) * 1000 + 50, gpus[g], toTs, kind, enclosing);
                ++invalid;
                continue;
            }
            b.addFlowAt(hosts[h], TimeNs(from) * 1000 + 50, gpus[g], toTs, kind, enclosing);
            expected.push_back({SliceRef {hosts[h], SliceIndex(from)}, SliceRef {gpus[g], SliceIndex(to)}, kind});
        }
        TracePtr t = b.finalize();
        // finalize orders flows by (from, to), stably, and keeps the first of identical pairs.
        std::stable_sort(expected.begin(), expected.end(), [](const Expected& x, const Expected& y) {
            return x.from != y.from ? x.from < y.from : x.to < y.to;
        });
        expected.erase(
            std::unique(expected.begin(), expected.end(),
                        [](const Expected& x, const Expected& y) { return x.from == y.from && x.to == y.to; }),
            expected.end());
        QCOMPARE(t->flows().size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            const Flow& f = t->flows()[i];
            QVERIFY2(f.from == expected[i].from && f.to == expected[i].to && f.kind == expected[i].kind,
                     qPrintable(QString::number(i)));
        }
        QCOMPARE(t->warnings().size(), std::size_t(1));
        QCOMPARE(t->warnings()[0].kind, std::string("flow_unresolved"));
        QCOMPARE(t->warnings()[0].count, invalid);
    }

    void flowsAddedConcurrentlyBindAsIfAddedThen()
    {
        // A job of addFlowsConcurrently() adds flows on its own thread while slices are still added; finalize()
        // takes them after those of addFlowAt(), with its warnings. The result must be what adding them all in
        // that order on one thread gives: over several chunks, with the builder's own flows not a whole number of
        // chunks (the job's are then re-packed after them) and with none (taken as they are).
        constexpr int kSlices = 5000;
        auto build = [&](bool concurrent, int ownFlows) {
            TraceBuilder b;
            const TrackId host = b.hostThread();
            const TrackId gpu = b.deviceStream(0, 1);
            auto addSlices = [&](int first, int last) {
                for (int i = first; i < last; ++i) {
                    b.slice(host, SliceCategory::RuntimeApi, "launch", TimeNs(i) * 100, 10);
                    b.slice(gpu, SliceCategory::Kernel, "k", TimeNs(i) * 100 + 50, 20);
                }
            };
            auto jobFlows = [host, gpu](auto& target) {
                for (int i = kSlices - 1; i >= 0; i -= 2) // backwards: times that go down
                    target.addFlowAt(host, TimeNs(i) * 100 + 5, gpu, TimeNs(i) * 100 + 60, FlowKind::Other, true);
                target.addFlowAt(host, 95, gpu, 60, FlowKind::Launch, true); // in a gap: unresolved at binding
            };
            addSlices(0, kSlices / 2);
            for (int i = 0; i < ownFlows; ++i)
                b.addFlowAt(host, TimeNs(i) * 100 + 5, gpu, TimeNs(i) * 100 + 60, FlowKind::Launch, true);
            if (concurrent) {
                b.addFlowsConcurrently([&jobFlows](TraceBuilder::FlowFeed& feed) {
                    jobFlows(feed);
                    feed.warn(ImportWarningKind::FlowIncomplete, "from the job", 3);
                });
                addSlices(kSlices / 2, kSlices); // the builder goes on meanwhile
            } else {
                addSlices(kSlices / 2, kSlices);
                jobFlows(b);
                b.warn(ImportWarningKind::FlowIncomplete, "from the job", 3);
            }
            return b.finalize();
        };
        for (const int own : {0, 4097, 8192}) {
            const TracePtr expected = build(false, own);
            const TracePtr actual = build(true, own);
            QCOMPARE(actual->flows().size(), expected->flows().size());
            QVERIFY(actual->flows().size() >= std::size_t(kSlices / 2));
            for (std::size_t i = 0; i < expected->flows().size(); ++i) {
                const Flow& x = expected->flows()[i];
                const Flow& y = actual->flows()[i];
                QVERIFY2(x.from == y.from && x.to == y.to && x.kind == y.kind, qPrintable(QString::number(i)));
            }
            QCOMPARE(actual->warnings().size(), expected->warnings().size());
            for (std::size_t i = 0; i < expected->warnings().size(); ++i) {
                QCOMPARE(actual->warnings()[i].kind, expected->warnings()[i].kind);
                QCOMPARE(actual->warnings()[i].count, expected->warnings()[i].count);
                QCOMPARE(actual->warnings()[i].message, expected->warnings()[i].message);
            }
        }
    }

    void aFlowJobsExceptionReachesFinalize()
    {
        TraceBuilder b;
        const TrackId host = b.hostThread();
        b.slice(host, SliceCategory::HostOp, "op", 0, 10);
        b.addFlowsConcurrently([](TraceBuilder::FlowFeed&) { throw std::bad_alloc(); });
        bool thrown = false;
        try {
            (void)b.finalize();
        } catch (const std::bad_alloc&) {
            thrown = true;
        }
        QVERIFY(thrown);
    }

    void cursorLookupsMatchBinarySearch()
    {
        // Nested slices three deep with gaps, zero-length slices and equal starts; every time in the span looked
        // up through one cursor in ascending, descending and scattered order must answer as sliceAt(t) does.
        TraceBuilder b;
        const TrackId host = b.hostThread();
        for (int step = 0; step < 40; ++step) {
            const TimeNs base = step * 1000;
            b.slice(host, SliceCategory::Step, "step", base, 900);
            b.slice(host, SliceCategory::HostOp, "op", base + 10, 300);
            b.slice(host, SliceCategory::RuntimeApi, "launch", base + 10, 50);
            b.slice(host, SliceCategory::RuntimeApi, "sync", base + 200, 0);
            b.slice(host, SliceCategory::HostOp, "op2", base + 400, 450);
        }
        TracePtr t = b.finalize();
        const Track& tr = t->track(host);
        QCOMPARE(tr.depthCount(), std::size_t(3));
        std::vector<TimeNs> times;
        for (TimeNs x = -5; x <= 40'005; x += 5)
            times.push_back(x);
        std::vector<std::vector<TimeNs>> orders {times, {times.rbegin(), times.rend()}, times};
        std::uint64_t seed = 12345; // a fixed shuffle, so a failure repeats
        for (std::size_t i = orders[2].size(); i > 1; --i) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            std::swap(orders[2][i - 1], orders[2][(seed >> 33) % i]);
        }
        for (const auto& order : orders) {
            Track::Cursor cursor;
            for (const TimeNs x : order) {
                const SliceIndex expected = tr.sliceAt(x);
                const SliceIndex actual = tr.sliceAt(x, cursor);
                if (actual != expected)
                    QFAIL(qPrintable(QStringLiteral("t=%1: cursor %2, binary search %3")
                                         .arg(x)
                                         .arg(actual.value)
                                         .arg(expected.value)));
            }
        }
        Track::Cursor cursor;
        QCOMPARE(nameOf(*t, host, tr.sliceAt(25, cursor).value), std::string("launch"));
        QCOMPARE(nameOf(*t, host, tr.sliceAt(200, cursor).value), std::string("sync"));
        QCOMPARE(nameOf(*t, host, tr.sliceAt(350, cursor).value), std::string("step"));
        QVERIFY(!tr.sliceAt(950, cursor).isValid());
    }

    void sliceSizeBudget()
    {
        QVERIFY(kBytesPerSlice <= 48);
        TraceBuilder b;
        const TrackId gpu = b.deviceStream(0, 7);
        const int n = 100000;
        for (int i = 0; i < n; ++i)
            b.slice(gpu, SliceCategory::Kernel, "k", i * 10, 4);
        TracePtr t = b.finalize();
        QVERIFY2(t->track(gpu).bytesUsed() / n < 64, "per-slice memory must stay under 64 bytes");
    }

    // model/trackname.h: the one name of a track for people, with and without its process.
    void trackNames()
    {
        const auto info
            = [](std::string_view name, std::string_view process, std::string_view thread, std::string_view threadKey) {
                  TrackInfo i;
                  i.name = name;
                  i.processName = process;
                  i.threadName = thread;
                  i.threadKey = threadKey;
                  return i;
              };
        TraceBuilder b;
        const TrackId named = b.addTrack(info("stream 7", "GPU 0", "", ""));
        const TrackId thread = b.addTrack(info("", "", "MainThread", "12"));
        const TrackId keyed = b.addTrack(info("", "python (1)", "", "34"));
        const TrackId bare = b.addTrack(TrackInfo {});
        for (const TrackId t : {named, thread, keyed, bare})
            b.slice(t, SliceCategory::HostOp, "x", 0, 1);
        TracePtr trace = b.finalize();
        QCOMPARE(trackName(*trace, trace->track(named)), std::string("stream 7"));
        QCOMPARE(trackDisplayName(*trace, trace->track(named)), std::string("GPU 0 / stream 7"));
        QCOMPARE(trackName(*trace, trace->track(thread)), std::string("MainThread"));
        QCOMPARE(trackDisplayName(*trace, trace->track(thread)), std::string("MainThread"));
        QCOMPARE(trackDisplayName(*trace, trace->track(keyed)), std::string("python (1) / thread 34"));
        QCOMPARE(trackName(*trace, trace->track(bare)), "track " + std::to_string(bare.value));
    }

    // The platform: what an importer sets is kept; a Generic trace gets the one its devices show (inferPlatform).
    void platformFromImporterOrDevices()
    {
        const auto build = [](DeviceKind kind, std::string_view deviceName, std::string_view launch, Platform set) {
            TraceBuilder b;
            b.metadata().format = "kineto";
            b.metadata().platform = set;
            if (!deviceName.empty())
                b.metadata().devices.push_back(Device {kind, 0, std::string(deviceName)});
            const TrackId host = b.hostThread();
            b.slice(host, SliceCategory::RuntimeApi, launch, 0, 5);
            if (kind != DeviceKind::Cpu)
                b.slice(b.deviceStream(0, 7, kind), SliceCategory::Kernel, "k", 10, 5);
            return b.finalize()->metadata().platform;
        };
        QCOMPARE(build(DeviceKind::Gpu, "NVIDIA A100", "cudaLaunchKernel", Platform::Generic), Platform::PyTorchCuda);
        QCOMPARE(build(DeviceKind::Gpu, "AMD Instinct MI250X", "hipLaunchKernel", Platform::Generic),
                 Platform::PyTorchRocm);
        QCOMPARE(build(DeviceKind::Gpu, "", "hipLaunchKernel", Platform::Generic), Platform::PyTorchRocm);
        QCOMPARE(build(DeviceKind::Npu, "Ascend910B", "aclnnAdd", Platform::Generic), Platform::TorchNpuCann);
        QCOMPARE(build(DeviceKind::EdgeNpu, "RK3588", "rknn_run", Platform::Generic), Platform::Rknn);
        QCOMPARE(build(DeviceKind::Cpu, "", "aten::add", Platform::Generic), Platform::Cpu);
        // An importer's word stands, even with nothing on a device (an msprof export of host calls only).
        QCOMPARE(build(DeviceKind::Cpu, "", "aclnnAdd", Platform::TorchNpuCann), Platform::TorchNpuCann);
        QCOMPARE(platformFromKey(platformKey(Platform::PyTorchRocm)), Platform::PyTorchRocm);
        QCOMPARE(platformFromKey("no such platform"), Platform::Generic);
    }

    // Flow::isLinked / Trace::linkedFlowCount: a flow counts when it joins two different slices.
    void linkedFlows()
    {
        TraceBuilder b;
        const TrackId host = b.hostThread();
        const TrackId gpu = b.deviceStream(0, 7);
        const SliceRef launch = b.slice(host, SliceCategory::RuntimeApi, "cudaLaunchKernel", 0, 5);
        const SliceRef kernel = b.slice(gpu, SliceCategory::Kernel, "k", 10, 5);
        b.addFlow(launch, kernel);
        TracePtr t = b.finalize();
        QCOMPARE(t->linkedFlowCount(), std::size_t(1));
        QVERIFY(t->flows()[0].isLinked());
        QVERIFY(!(Flow {launch, launch, FlowKind::Other}).isLinked());
        QVERIFY(!(Flow {launch, SliceRef {}, FlowKind::Launch}).isLinked());
    }
};

QTEST_APPLESS_MAIN(TestTraceBuilder)
#include "tst_tracebuilder.moc"
