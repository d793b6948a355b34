// SPDX-License-Identifier: MIT
// Snapshots (.tsnap): every fixture written and read back equals its import, column by column; the summary and
// the analysis of both are the same; damaged or foreign snapshots are refused with a message; the cache finds,
// refreshes and trims its entries.
#include "analysis/core/pass.h"
#include "model/snapshotaccess.h"
#include "model/tracebuilder.h"
#include "model/tracerules.h"
#include "parsers/snapshot/snapshot.h"
#include "parsers/snapshot/snapshot.pb.h"
#include "parsers/snapshot/snapshotcache.h"
#include "report/analysis/tracesummary.h"
#include "report/writers/json/jsonwriter.h"
#include "snapshottesthelpers.h"
#include "tests/common/status.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <thread>

using namespace timesink;
using namespace timesink::testing;
namespace fs = std::filesystem;
namespace snap = timesink::parsers::snapshot;

namespace {

model::TracePtr load(const fs::path& path, std::string* error = nullptr)
{
    parsers::ProgressSink progress;
    parsers::ImportResult r = parsers::loadTrace(path, {}, progress);
    if (error)
        *error = r.status().message();
    return r.ok() ? r.value() : nullptr;
}

/// Returns the first difference between two traces (everything but metadata().sourcePath), or "".
std::string difference(const model::Trace& a, const model::Trace& b)
{
    using A = model::SnapshotAccess;
    if (a.strings().size() != b.strings().size())
        return "string count";
    for (std::uint32_t i = 0; i < a.strings().size(); ++i) {
        if (a.str(model::StringId(i)) != b.str(model::StringId(i))
            || b.strings().find(a.str(model::StringId(i))).value != i)
            return "string " + std::to_string(i);
    }
    // The store's columns as they are (values, offsets, schemas), then every set as the API reads it.
    auto sameColumn = [](const auto& x, const auto& y) {
        return x.size() == y.size()
            && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(*x.data())) == 0);
    };
    if (!sameColumn(A::argValueBytes(a.argStore()), A::argValueBytes(b.argStore())))
        return "arg values";
    if (!sameColumn(A::argOffsets(a.argStore()), A::argOffsets(b.argStore())))
        return "arg offsets";
    if (!sameColumn(A::argSetSchemas(a.argStore()), A::argSetSchemas(b.argStore()))
        || !sameColumn(A::argSchemaKeys(a.argStore()), A::argSchemaKeys(b.argStore()))
        || !sameColumn(A::argSchemaOffsets(a.argStore()), A::argSchemaOffsets(b.argStore())))
        return "arg schemas";
    for (std::uint32_t i = 0; i < a.argStore().setCount(); ++i) {
        const model::ArgSet x = a.args(model::ArgSetId(i));
        const model::ArgSet y = b.args(model::ArgSetId(i));
        if (x.size() != y.size() || !std::equal(x.begin(), x.end(), y.begin(), [](model::Arg p, model::Arg q) {
                return p.key == q.key && p.value.type == q.value.type && p.value.rawBits() == q.value.rawBits();
            }))
            return "arg set " + std::to_string(i);
    }
    if (a.tracks().size() != b.tracks().size())
        return "track count";
    for (std::size_t ti = 0; ti < a.tracks().size(); ++ti) {
        const model::Track& x = a.tracks()[ti];
        const model::Track& y = b.tracks()[ti];
        const std::string t = "track " + std::to_string(ti) + ": ";
        if (x.id != y.id || x.name != y.name || x.processName != y.processName || x.threadName != y.threadName
            || x.processKey != y.processKey || x.threadKey != y.threadKey || x.deviceKind != y.deviceKind
            || x.role != y.role || x.deviceIndex != y.deviceIndex || x.streamId != y.streamId
            || x.sortIndex != y.sortIndex || x.startNs() != y.startNs() || x.endNs() != y.endNs()
            || x.busyNs() != y.busyNs() || x.size() != y.size() || x.depthCount() != y.depthCount())
            return t + "fields";
        for (std::uint32_t i = 0; i < x.size(); ++i) {
            if (x.ts(i) != y.ts(i) || x.dur(i) != y.dur(i) || x.sliceName(i) != y.sliceName(i)
                || x.category(i) != y.category(i) || x.rawCategory(i) != y.rawCategory(i) || x.depth(i) != y.depth(i)
                || x.parent(i) != y.parent(i) || x.args(i) != y.args(i) || x.flags(i) != y.flags(i))
                return t + "slice " + std::to_string(i);
        }
        for (std::size_t d = 0; d < x.depthCount(); ++d) {
            if (!std::ranges::equal(x.slicesAtDepth(d), y.slicesAtDepth(d)))
                return t + "depth index " + std::to_string(d);
            const auto& xs = x.summaries(d);
            const auto& ys = y.summaries(d);
            if (xs.size() != ys.size())
                return t + "summary levels";
            for (std::size_t l = 0; l < xs.size(); ++l) {
                if (!std::ranges::equal(xs[l], ys[l], [](const model::SummaryBucket& p, const model::SummaryBucket& q) {
                        return p.start == q.start && p.end == q.end && p.count == q.count && p.dominant == q.dominant
                            && p.busyNs == q.busyNs;
                    }))
                    return t + "summary level " + std::to_string(l);
            }
        }
        if (!std::ranges::equal(x.counterTimes(), y.counterTimes())
            || !std::ranges::equal(x.counterValues(), y.counterValues()))
            return t + "counters";
    }
    if (!std::ranges::equal(a.flows(), b.flows(), [](const model::Flow& p, const model::Flow& q) {
            return p.from == q.from && p.to == q.to && p.kind == q.kind;
        }))
        return "flows";
    if (A::flowsByTarget(a) != A::flowsByTarget(b))
        return "flows by target";
    if (!std::ranges::equal(a.steps(), b.steps(), [](const model::Step& p, const model::Step& q) {
            return p.number == q.number && p.name == q.name && p.start == q.start && p.end == q.end
                && p.marker == q.marker && p.synthetic == q.synthetic;
        }))
        return "steps";
    if (!std::ranges::equal(a.warnings(), b.warnings(),
                            [](const model::ImportWarning& p, const model::ImportWarning& q) {
                                return p.kind == q.kind && p.count == q.count && p.message == q.message;
                            }))
        return "warnings";
    const model::TraceMetadata& m = a.metadata();
    const model::TraceMetadata& n = b.metadata();
    if (m.format != n.format || m.formatVersion != n.formatVersion || m.rank != n.rank || m.worldSize != n.worldSize
        || m.profilerLevel != n.profilerLevel || m.syntheticTimestamps != n.syntheticTimestamps
        || m.properties != n.properties || m.devices.size() != n.devices.size())
        return "metadata";
    if (!std::ranges::equal(m.rankLinks, n.rankLinks, [](const model::RankLink& p, const model::RankLink& q) {
            return p.src == q.src && p.dst == q.dst && p.transport == q.transport && p.bytes == q.bytes
                && p.transitNs == q.transitNs;
        }))
        return "rank links";
    for (std::size_t i = 0; i < m.devices.size(); ++i) {
        if (m.devices[i].kind != n.devices[i].kind || m.devices[i].index != n.devices[i].index
            || m.devices[i].name != n.devices[i].name || m.devices[i].aiCores != n.devices[i].aiCores
            || m.devices[i].aiCoreClockMHz != n.devices[i].aiCoreClockMHz
            || m.devices[i].computeSource != n.devices[i].computeSource
            || m.devices[i].computeUnits != n.devices[i].computeUnits
            || m.devices[i].memoryBytes != n.devices[i].memoryBytes)
            return "device " + std::to_string(i);
    }
    for (int c = 0; c < model::kSliceCategoryCount; ++c) {
        if (a.categoryCount(model::SliceCategory(c)) != b.categoryCount(model::SliceCategory(c)))
            return "category counts";
    }
    if (a.sliceCount() != b.sliceCount() || a.startNs() != b.startNs() || a.endNs() != b.endNs())
        return "extent";
    return {};
}

/// A small trace with every kind of content: nesting, args of each type, flows, counters, steps, warnings.
model::TracePtr smallTrace()
{
    model::TraceBuilder b;
    b.metadata().format = "kineto";
    b.metadata().sourcePath = "small.json";
    b.metadata().devices.push_back(model::Device {model::DeviceKind::Gpu, 0, "A100"});
    b.metadata().devices.back().computeUnits = 108; // Kineto's numSms and totalGlobalMem (format version 6)
    b.metadata().devices.back().memoryBytes = 42297524224;
    b.metadata().properties.emplace_back("key", "value");
    b.metadata().rankLinks.push_back({0, 1, "HCCS", 61210624, 3883938});
    b.metadata().rankLinks.push_back({0, 2, "RDMA", 1000, 500});
    const auto host = b.hostThread("main");
    const auto gpu = b.deviceStream(0, 7);
    const model::Arg args[] = {{b.intern("int"), model::ArgValue::fromInt(-5)},
                               {b.intern("dbl"), model::ArgValue::fromDouble(2.5)},
                               {b.intern("bool"), model::ArgValue::fromBool(true)},
                               {b.intern("str"), model::ArgValue::fromString(b.intern("text"))}};
    b.step(host, 1, 0, 1000);
    const auto outer = b.slice(host, model::SliceCategory::HostOp, "aten::conv2d", 10, 500, args);
    const auto launch = b.slice(host, model::SliceCategory::RuntimeApi, "cudaLaunchKernel", 20, 10);
    const auto kernel = b.slice(gpu, model::SliceCategory::Kernel, "conv", 40, 300);
    b.addFlow(launch, kernel);
    (void)outer;
    b.memcpy(gpu, model::MemcpyDirection::HostToDevice, model::HostMemoryKind::Pinned, 400, 20);
    model::TrackInfo counterInfo;
    counterInfo.name = "mem";
    counterInfo.role = model::TrackRole::Counter;
    const auto counter = b.addTrack(counterInfo);
    b.addCounterSample(counter, 5, 1.5);
    b.addCounterSample(counter, 15, 2.5);
    b.warn(model::ImportWarningKind::BadTs, "a timestamp was not a number", 3);
    return b.finalize();
}

std::string summaryWithoutPath(const model::Trace& t)
{
    auto j = report::traceSummaryJson(t);
    j.erase("path");
    return j.dump(2);
}

} // namespace

Q_DECLARE_METATYPE(std::function<void(timesink::model::Trace&)>)

class TestSnapshot : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void smallTraceRoundTrip()
    {
        QTemporaryDir dir;
        const auto trace = smallTrace();
        const fs::path file = dir.filePath(QStringLiteral("small.tsnap")).toStdString();
        std::string error;
        QVERIFY_OK(snap::writeSnapshot(*trace, {"/x/small.json", 1, 2, 3}, file));
        const auto back = load(file, &error);
        QVERIFY2(back, error.c_str());
        QCOMPARE(difference(*trace, *back), std::string());
        QCOMPARE(back->metadata().sourcePath, file.string());
        const std::optional<model::ArgValue> s
            = back->arg(model::SliceRef {model::TrackId(0), model::SliceIndex(1)}, "str");
        QVERIFY(s && s->type == model::ArgValue::Type::String);
        QCOMPARE(back->str(model::StringId(s->s)), std::string_view("text"));

        const model::Expected<snap::SourceIdentity> header = snap::readSnapshotSource(file);
        QVERIFY_OK(header);
        const snap::SourceIdentity& recorded = header.value();
        QCOMPARE(recorded.path, std::string("/x/small.json"));
        QCOMPARE(recorded.size, std::uint64_t(1));
        QCOMPARE(recorded.mtimeNs, std::int64_t(2));
        QCOMPARE(recorded.contentHash, std::uint64_t(3));
    }

    // The bytes depend only on the trace (padding is zeroed), so two writes are identical.
    void deterministic()
    {
        QTemporaryDir dir;
        const auto trace = smallTrace();
        const fs::path a = dir.filePath(QStringLiteral("a.tsnap")).toStdString();
        const fs::path b = dir.filePath(QStringLiteral("b.tsnap")).toStdString();
        QVERIFY_OK(snap::writeSnapshot(*trace, {}, a));
        QVERIFY_OK(snap::writeSnapshot(*trace, {}, b));
        QVERIFY(readFile(a) == readFile(b));
    }

    void fixtures_data()
    {
        QTest::addColumn<QString>("fixture");
        const auto all = allFixtures();
        QVERIFY(all.size() >= 30);
        for (const std::string& f : all)
            QTest::newRow(f.c_str()) << QString::fromStdString(f);
    }
    // Every fixture: the snapshot reads back to the same model, and the summary and the findings are the same.
    void fixtures()
    {
        QFETCH(QString, fixture);
        const fs::path source = fs::path(TIMESINK_FIXTURES_DIR) / fixture.toStdString();
        std::string error;
        const auto trace = load(source, &error);
        QVERIFY2(trace, error.c_str());
        // What the importers build obeys the rules the reader enforces on files (model/tracerules.h).
        QCOMPARE(model::traceStructureIssue(*trace), std::string());
        const model::Expected<snap::SourceIdentity> id = snap::identifySource(source);
        QVERIFY_OK(id);
        QTemporaryDir dir;
        const fs::path file = dir.filePath(QStringLiteral("f.tsnap")).toStdString();
        QVERIFY_OK(snap::writeSnapshot(*trace, id.value(), file));
        const auto back = load(file, &error);
        QVERIFY2(back, error.c_str());
        QCOMPARE(difference(*trace, *back), std::string());
        QCOMPARE(summaryWithoutPath(*back), summaryWithoutPath(*trace));
        analysis::CancelToken cancel;
        const auto fa = analysis::analyze(*trace, {}, cancel).findings;
        const auto fb = analysis::analyze(*back, {}, cancel).findings;
        QCOMPARE(fb.size(), fa.size());
        for (std::size_t i = 0; i < fa.size(); ++i) {
            QCOMPARE(fb[i].kind, fa[i].kind);
            QCOMPARE(fb[i].title, fa[i].title);
            QCOMPARE(fb[i].lostNs, fa[i].lostNs);
        }
    }

    // Another format version, a cut file, flipped bytes, a foreign file: refused with a message, never a crash.
    void refusals()
    {
        QTemporaryDir dir;
        const auto trace = smallTrace();
        const fs::path good = dir.filePath(QStringLiteral("good.tsnap")).toStdString();
        std::string error;
        QVERIFY_OK(snap::writeSnapshot(*trace, {}, good));
        const std::string bytes = readFile(good);
        const fs::path bad = dir.filePath(QStringLiteral("bad.tsnap")).toStdString();
        auto refused = [&](const std::string& content, const char* expected) {
            writeFile(bad, content);
            parsers::ProgressSink progress;
            const auto r = snap::readSnapshot(bad, {}, progress);
            if (r.ok())
                return std::string("accepted");
            if (r.status().message().find(bad.string()) == std::string::npos
                || r.status().message().find(expected) == std::string::npos)
                return "message: " + r.status().message();
            return std::string();
        };
        std::string older = bytes;
        older[8] = 0;
        QCOMPARE(refused(older, "written by an older Timesink"), std::string());
        std::string newer = bytes;
        newer[8] = char(snap::kFormatVersion + 1);
        QCOMPARE(refused(newer, "written by a newer Timesink"), std::string());
        QCOMPARE(refused(bytes.substr(0, bytes.size() - 1), "truncated"), std::string());
        QCOMPARE(refused(bytes.substr(0, 20), "not a Timesink snapshot"), std::string());
        QCOMPARE(refused(std::string("{\"traceEvents\": []}"), "not a Timesink snapshot"), std::string());
        std::string header = bytes;
        header[header.size() - 3] ^= 0x40;
        QCOMPARE(refused(header, "corrupt"), std::string());
        // Every byte of the column sections flipped in turn (the small trace's are a few hundred bytes).
        std::uint64_t headerOffset;
        std::memcpy(&headerOffset, bytes.data() + 16, 8);
        for (std::size_t i = snap::kPreambleBytes; i < headerOffset; ++i) {
            std::string flipped = bytes;
            flipped[i] ^= 0x5a;
            const std::string why = refused(flipped, "corrupt");
            QVERIFY2(why.empty(), (std::to_string(i) + ": " + why).c_str());
        }
        // Every cut point: refused (as truncated or as no snapshot), never accepted.
        for (std::size_t n = 0; n < bytes.size(); n += 7)
            QVERIFY(refused(bytes.substr(0, n), "") != "accepted");
        // Through the loader, a refused snapshot is an error naming the file.
        writeFile(bad, older);
        QVERIFY(!load(bad, &error));
        QVERIFY(error.find("bad.tsnap") != std::string::npos);
    }

    /// Track descriptors in the header that point outside the trace: refused. The header is edited through its
    /// schema and its hash recomputed, so that only the reader's own checks stand in the way.
    void hostileTrackDescriptors()
    {
        QTemporaryDir dir;
        const auto trace = smallTrace();
        const fs::path good = dir.filePath(QStringLiteral("good.tsnap")).toStdString();
        QVERIFY_OK(snap::writeSnapshot(*trace, {}, good));
        const std::string bytes = readFile(good);
        std::uint64_t headerOffset = 0;
        std::uint64_t headerSize = 0;
        std::memcpy(&headerOffset, bytes.data() + 16, 8);
        std::memcpy(&headerSize, bytes.data() + 24, 8);
        snap::pb::Header header;
        QVERIFY(header.ParseFromString(bytes.substr(headerOffset, headerSize)));
        QVERIFY(header.tracks_size() > 0);
        const fs::path edited = dir.filePath(QStringLiteral("edited.tsnap")).toStdString();
        auto read = [&](const std::function<void(snap::pb::Track&)>& edit) {
            snap::pb::Header h = header;
            edit(*h.mutable_tracks(0));
            std::string headerBytes;
            h.SerializeToString(&headerBytes);
            std::string file = bytes.substr(0, headerOffset) + headerBytes;
            const std::uint64_t size = headerBytes.size();
            const std::uint64_t hash = snap::hash64(headerBytes);
            std::memcpy(file.data() + 24, &size, 8);
            std::memcpy(file.data() + 32, &hash, 8);
            writeFile(edited, file);
            parsers::ProgressSink progress;
            return snap::readSnapshot(edited, {}, progress);
        };
        // The rewrite alone leaves a snapshot that reads.
        QVERIFY(read([](snap::pb::Track&) {}).ok());
        const auto strings = static_cast<std::uint32_t>(trace->strings().size());
        const std::vector<std::pair<const char*, std::function<void(snap::pb::Track&)>>> edits {
            {"device kind past EdgeNpu", [](snap::pb::Track& t) { t.set_device_kind(4); }},
            {"device kind 256 (0 once narrowed)", [](snap::pb::Track& t) { t.set_device_kind(256); }},
            {"role past Synthetic", [](snap::pb::Track& t) { t.set_role(6); }},
            {"name past the string pool", [strings](snap::pb::Track& t) { t.set_name(strings); }},
            {"process name past the string pool", [strings](snap::pb::Track& t) { t.set_process_name(strings); }},
            {"thread name past the string pool", [strings](snap::pb::Track& t) { t.set_thread_name(strings); }},
            {"process key past the string pool", [strings](snap::pb::Track& t) { t.set_process_key(strings); }},
            {"thread key past the string pool", [strings](snap::pb::Track& t) { t.set_thread_key(strings); }},
        };
        for (const auto& [what, edit] : edits) {
            const parsers::ImportResult r = read(edit);
            QVERIFY2(!r.ok(), what);
            QVERIFY2(r.status().message().find("the snapshot is corrupt (track 0)") != std::string::npos,
                     (std::string(what) + ": " + r.status().message()).c_str());
        }
    }

    /// Columns that pass every index check but break the trace's rules (issue 49): a slice that is its own parent
    /// or a parent cycle (the analyses walked it forever), times beyond ±2^62 ns, a backwards step, extents that
    /// lie. Each is written by the ordinary writer, so only the reader's rules stand in the way, and refused with
    /// a message naming the file. With TIMESINK_WRITE_HOSTILE_SNAPSHOTS=DIR the files are also written to DIR, with
    /// the unedited one (how fuzz_analyze's regression inputs in tests/fuzz/analyze/ were made).
    void hostileStructure_data()
    {
        using A = model::SnapshotAccess;
        using Edit = std::function<void(model::Trace&)>;
        QTest::addColumn<Edit>("edit");
        QTest::addColumn<QString>("expected");
        auto host = [](model::Trace& t) -> model::Track& { return A::tracks(t)[0]; };
        constexpr model::TimeNs kMax = std::numeric_limits<model::TimeNs>::max();
        constexpr model::TimeNs kMin = std::numeric_limits<model::TimeNs>::min();
        QTest::newRow("self parent") << Edit([host](model::Trace& t) { A::parent(host(t))[2] = 2; })
                                     << QStringLiteral("has parent 2, not an earlier slice");
        QTest::newRow("parent cycle") << Edit([host](model::Trace& t) {
            A::parent(host(t))[1] = 2;
            A::parent(host(t))[2] = 1;
        }) << QStringLiteral("not an earlier slice");
        QTest::newRow("slice of INT64_MAX ns")
            << Edit([host](model::Trace& t) { A::dur(host(t))[2] = kMax; }) << QStringLiteral("outside ±2^62 ns");
        QTest::newRow("negative duration") << Edit([host](model::Trace& t) { A::dur(host(t))[2] = -5; })
                                           << QStringLiteral("outside ±2^62 ns or negative");
        QTest::newRow("child outside parent")
            << Edit([host](model::Trace& t) { A::dur(host(t))[2] = 900; }) << QStringLiteral("not inside its parent");
        QTest::newRow("out of order") << Edit([host](model::Trace& t) { A::ts(host(t))[2] = 1; })
                                      << QStringLiteral("out of order");
        QTest::newRow("step backwards") << Edit([](model::Trace& t) { A::steps(t)[0].end = -1000; })
                                        << QStringLiteral("step 0 runs from");
        QTest::newRow("step from INT64_MIN") << Edit([](model::Trace& t) { A::steps(t)[0].start = kMin; })
                                             << QStringLiteral("outside ±2^62 ns or backwards");
        QTest::newRow("trace span -1") << Edit([](model::Trace& t) { A::end(t) = A::start(t) - 1; })
                                       << QStringLiteral("the trace claims to span");
        QTest::newRow("track extent") << Edit([host](model::Trace& t) { A::trackEnd(host(t)) = kMax; })
                                      << QStringLiteral("track 0 claims to span");
        QTest::newRow("busy time") << Edit([host](model::Trace& t) { A::busy(host(t)) = -1; })
                                   << QStringLiteral("ns busy");
    }
    void hostileStructure()
    {
        using Edit = std::function<void(model::Trace&)>;
        QFETCH(Edit, edit);
        QFETCH(QString, expected);
        const auto trace = smallTrace();
        // The small trace's host track: step marker 0 [0, 1000), aten::conv2d 1 [10, 510), launch 2 [20, 30).
        const model::Track& host = trace->tracks()[0];
        QCOMPARE(host.size(), std::size_t(3));
        QCOMPARE(host.parent(2).value, 1U);
        auto hostile = std::const_pointer_cast<model::Trace>(trace); // this test's own copy, not shared
        edit(*hostile);
        QTemporaryDir dir;
        const fs::path file = dir.filePath(QStringLiteral("hostile.tsnap")).toStdString();
        QVERIFY_OK(snap::writeSnapshot(*hostile, {}, file));
        if (const char* out = std::getenv("TIMESINK_WRITE_HOSTILE_SNAPSHOTS")) {
            std::string name = QTest::currentDataTag();
            std::replace_if(
                name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
            writeFile(fs::path(out) / ("hostile_" + name + ".tsnap"), readFile(file));
            const fs::path unedited = fs::path(out) / "small_trace.tsnap";
            QVERIFY_OK(snap::writeSnapshot(*smallTrace(), {}, unedited));
        }
        parsers::ProgressSink progress;
        const parsers::ImportResult r = snap::readSnapshot(file, {}, progress);
        QVERIFY2(!r.ok(), "accepted");
        QVERIFY2(r.status().message().find(file.string()) != std::string::npos, r.status().message().c_str());
        QVERIFY2(r.status().message().find("the snapshot is corrupt (") != std::string::npos,
                 r.status().message().c_str());
        QVERIFY2(r.status().message().find(expected.toStdString()) != std::string::npos, r.status().message().c_str());
    }

    void cache()
    {
        QTemporaryDir dir;
        const fs::path source = dir.filePath(QStringLiteral("trace.json")).toStdString();
        fs::copy_file(fs::path(TIMESINK_FIXTURES_DIR) / "torch/torch_cpu_legacy_resnet18_train_2steps.json", source);
        const auto trace = load(source);
        QVERIFY(trace);
        const model::Expected<snap::SourceIdentity> identified = snap::identifySource(source);
        QVERIFY_OK(identified);
        const snap::SourceIdentity id = identified.value();
        snap::SnapshotCache cache(dir.filePath(QStringLiteral("cache")).toStdString());
        parsers::ProgressSink progress;
        auto miss = cache.load(id, "shown.json", {}, progress);
        QVERIFY(!miss.ok());
        QVERIFY(miss.status().message().empty());
        QVERIFY_OK(cache.store(*trace, id));
        QVERIFY(fs::exists(cache.entryFor(id)));
        auto hit = cache.load(id, "shown.json", {}, progress);
        QVERIFY2(hit.ok(), hit.status().message().c_str());
        QCOMPARE(hit.value()->metadata().sourcePath, std::string("shown.json"));
        QCOMPARE(difference(*trace, *hit.value()), std::string());

        // A changed source (same size, new time) makes the entry stale: not used, and removed.
        fs::last_write_time(source, fs::last_write_time(source) + std::chrono::seconds(5));
        const model::Expected<snap::SourceIdentity> identifiedAgain = snap::identifySource(source);
        QVERIFY_OK(identifiedAgain);
        const snap::SourceIdentity changed = identifiedAgain.value();
        QVERIFY(!changed.sameContents(id));
        auto stale = cache.load(changed, "shown.json", {}, progress);
        QVERIFY(!stale.ok());
        QVERIFY(stale.status().message().find("out of date") != std::string::npos);
        QVERIFY(!fs::exists(cache.entryFor(id)));

        // An entry another build of Timesink wrote (importers may have changed since) is not used, and removed;
        // an explicit .tsnap from that build still opens.
        QVERIFY(snap::writerIdentity().find(" importer ") != std::string::npos);
        QVERIFY_OK(snap::writeSnapshot(*trace, changed, cache.entryFor(changed), "timesink 0.0.9 importer 0123"));
        auto otherBuild = cache.load(changed, "shown.json", {}, progress);
        QVERIFY(!otherBuild.ok());
        QVERIFY2(otherBuild.status().message().find("another Timesink build (timesink 0.0.9 importer 0123)")
                     != std::string::npos,
                 otherBuild.status().message().c_str());
        QVERIFY(!fs::exists(cache.entryFor(changed)));
        const fs::path exported = dir.filePath(QStringLiteral("older.tsnap")).toStdString();
        QVERIFY_OK(snap::writeSnapshot(*trace, changed, exported, "timesink 0.0.9 importer 0123"));
        QVERIFY(load(exported));
        QVERIFY_OK(cache.store(*trace, changed));
        QVERIFY(cache.load(changed, "shown.json", {}, progress).ok());

        // A damaged entry is refused and removed.
        QVERIFY_OK(cache.store(*trace, changed));
        const std::string entry = readFile(cache.entryFor(changed));
        writeFile(cache.entryFor(changed), entry.substr(0, entry.size() / 2));
        auto damaged = cache.load(changed, "shown.json", {}, progress);
        QVERIFY(!damaged.ok());
        QVERIFY(!damaged.status().message().empty());
        QVERIFY(!fs::exists(cache.entryFor(changed)));

        // LRU: with room for two entries, storing a third removes the least recently used one.
        QVERIFY_OK(cache.store(*trace, changed));
        const std::uint64_t one = fs::file_size(cache.entryFor(changed));
        snap::SnapshotCache small(cache.directory(), one * 2 + one / 2);
        snap::SourceIdentity b = changed, c = changed;
        b.path += ".b";
        c.path += ".c";
        const auto older = fs::file_time_type::clock::now() - std::chrono::hours(2);
        fs::last_write_time(cache.entryFor(changed), older);
        QVERIFY_OK(small.store(*trace, b));
        fs::last_write_time(small.entryFor(b), older + std::chrono::hours(1));
        QVERIFY(small.load(changed, "x", {}, progress).ok()); // a hit makes `changed` the most recent
        QVERIFY_OK(small.store(*trace, c));
        QVERIFY(fs::exists(small.entryFor(changed)));
        QVERIFY(!fs::exists(small.entryFor(b)));
        QVERIFY(fs::exists(small.entryFor(c)));
        QVERIFY(small.sizeOnDisk() <= small.capacityBytes());
        QVERIFY_OK(small.clear());
        QCOMPARE(small.sizeOnDisk(), std::uint64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestSnapshot)
#include "tst_snapshot.moc"
