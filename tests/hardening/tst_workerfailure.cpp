// SPDX-License-Identifier: MIT
// Allocation failure on worker threads (issue 38): this executable replaces operator new so that, once armed, every
// allocation on a thread other than the test's own throws std::bad_alloc. Each path that starts threads (finalize,
// the Chrome reader's reader and decoders, the snapshot's decompressors, the job's rank workers) must turn that into
// the caller's "out of memory" error (or exception), never std::terminate. Before model/workers.h each of these
// aborted the test executable.
#include "app/job/jobrunner.h"
#include "model/tracebuilder.h"
#include "model/workers.h"
#include "parsers/registry/traceloader.h"
#include "parsers/snapshot/snapshot.h"
#include "tests/common/status.h"

#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <thread>

namespace {

std::atomic<bool> g_armed {false};
std::thread::id g_mainThread; // set before arming: the only thread whose allocations go on succeeding

std::atomic<int> g_slowAllocations {0}; // the test thread's first allocations after arming, each 0.2 ms late

bool failHere()
{
    if (!g_armed.load(std::memory_order_relaxed))
        return false;
    if (std::this_thread::get_id() != g_mainThread)
        return true;
    // The test's thread is held back at first, so that a worker surely takes work (a snapshot section, a batch)
    // before this thread has done it all: otherwise a worker that never allocates would leave the path untested.
    if (g_slowAllocations.fetch_sub(1, std::memory_order_relaxed) > 0)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    return false;
}

void* allocate(std::size_t n)
{
    if (failHere())
        throw std::bad_alloc();
    if (void* p = std::malloc(n == 0 ? 1 : n))
        return p;
    throw std::bad_alloc();
}

void* allocateAligned(std::size_t n, std::align_val_t al)
{
    if (failHere())
        throw std::bad_alloc();
    const auto a = static_cast<std::size_t>(al);
    if (void* p = std::aligned_alloc(a, (std::max<std::size_t>(n, 1) + a - 1) / a * a))
        return p;
    throw std::bad_alloc();
}

/// Arms the failure for its lifetime.
struct Armed
{
    Armed()
    {
        g_mainThread = std::this_thread::get_id();
        g_slowAllocations = 2000;
        g_armed = true;
    }
    ~Armed() { g_armed = false; }
    Armed(const Armed&) = delete;
    Armed& operator=(const Armed&) = delete;
    Armed(Armed&&) = delete;
    Armed& operator=(Armed&&) = delete;
};

const std::filesystem::path kFixtures = TIMESINK_FIXTURES_DIR;
const std::filesystem::path kKineto = kFixtures / "torch/hta_a100_nccl_data.json.gz";

} // namespace

// NOLINTBEGIN(misc-new-delete-overloads, cert-dcl54-cpp): the replaceable global forms, each paired with free()
void* operator new(std::size_t n)
{
    return allocate(n);
}
void* operator new[](std::size_t n)
{
    return allocate(n);
}
void* operator new(std::size_t n, std::align_val_t al)
{
    return allocateAligned(n, al);
}
void* operator new[](std::size_t n, std::align_val_t al)
{
    return allocateAligned(n, al);
}
void operator delete(void* p) noexcept
{
    std::free(p);
}
void operator delete[](void* p) noexcept
{
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept
{
    std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept
{
    std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept
{
    std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept
{
    std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept
{
    std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept
{
    std::free(p);
}
// The nothrow forms too (std::stable_sort's temporary buffer uses them): left to the runtime, they would pair its
// allocator with the free() above, which AddressSanitizer reports as a mismatch.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept
{
    try {
        return allocate(n);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept
{
    try {
        return allocate(n);
    } catch (...) {
        return nullptr;
    }
}
void* operator new(std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept
{
    try {
        return allocateAligned(n, al);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept
{
    try {
        return allocateAligned(n, al);
    } catch (...) {
        return nullptr;
    }
}
void operator delete(void* p, const std::nothrow_t&) noexcept
{
    std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept
{
    std::free(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept
{
    std::free(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept
{
    std::free(p);
}
// NOLINTEND(misc-new-delete-overloads, cert-dcl54-cpp)

using namespace timesink;

namespace {

// 1.2 M slices on four host threads, added out of order: finalize has sorting to do on a few threads, and the
// snapshot of it has tens of 2 MiB sections to decompress.
void addManySlices(model::TraceBuilder& b)
{
    std::vector<model::TrackId> tracks;
    for (int t = 0; t < 4; ++t)
        tracks.push_back(b.hostThread("main", 1, t + 1));
    for (int i = 300000; i-- > 0;) {
        for (const model::TrackId track : tracks)
            b.slice(track, model::SliceCategory::HostOp, i % 7 == 0 ? "aten::mm" : "aten::add", std::int64_t(i) * 10,
                    5);
    }
}

} // namespace

class TestWorkerFailure : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        if (model::hardwareThreads() < 2)
            QSKIP("one hardware thread: the libraries start no workers to fail");
    }

    // The injection itself works: a worker's allocation fails, the test thread's does not.
    void injectionFailsWorkersOnly()
    {
        const Armed armed;
        std::vector<int> here(16); // the test's thread allocates as usual
        QCOMPARE(here.size(), std::size_t(16));
        model::WorkerGroup group;
        QVERIFY(group.tryStart([] { (void)std::vector<int>(64); }));
        QVERIFY_THROWS_EXCEPTION(std::bad_alloc, group.join());
    }

    // finalize() sorts the tracks on a few threads once there are a million slices or more.
    void finalizeWorkers()
    {
        model::TraceBuilder b;
        addManySlices(b);
        const Armed armed;
        QVERIFY_THROWS_EXCEPTION(std::bad_alloc, (void)b.finalize());
    }

    // The Chrome reader's reader thread and decoders: loadTrace() answers with its "out of memory" message.
    void chromeReaderWorkers()
    {
        parsers::ImportOptions options;
        options.threads = 2;
        parsers::ProgressSink progress;
        parsers::ImportResult result;
        {
            const Armed armed;
            result = parsers::loadTrace(kKineto, options, progress);
        }
        QVERIFY(!result.ok());
        QVERIFY2(result.status().message().find("out of memory") != std::string::npos,
                 result.status().message().c_str());
        QVERIFY2(result.status().message().find("hta_a100_nccl_data") != std::string::npos,
                 result.status().message().c_str());
        // And the same call, unarmed, loads the trace: the failure left nothing behind.
        result = parsers::loadTrace(kKineto, options, progress);
        QVERIFY2(result.ok(), result.status().message().c_str());
    }

    // A snapshot's sections are decompressed on a few threads (a big trace: many sections, so a worker surely
    // takes some).
    void snapshotWorkers()
    {
        model::TraceBuilder b;
        addManySlices(b);
        const model::TracePtr trace = b.finalize();
        QTemporaryDir dir;
        const std::filesystem::path file = std::filesystem::path(dir.path().toStdString()) / "trace.tsnap";
        const model::Expected<parsers::snapshot::SourceIdentity> source = parsers::snapshot::identifySource(kKineto);
        QVERIFY_OK(source);
        QVERIFY_OK(parsers::snapshot::writeSnapshot(*trace, source.value(), file));
        parsers::ImportOptions options;
        options.threads = 2;
        parsers::ProgressSink progress;
        parsers::ImportResult result;
        {
            const Armed armed;
            result = parsers::loadTrace(file, options, progress);
        }
        QVERIFY(!result.ok());
        QVERIFY2(result.status().message().find("out of memory") != std::string::npos,
                 result.status().message().c_str());
        result = parsers::loadTrace(file, options, progress);
        QVERIFY2(result.ok(), result.status().message().c_str());
    }

    // The job's rank workers: each rank's failure is that rank's "out of memory" error, or the job's exception on
    // this thread; never an abort.
    void jobWorkers()
    {
        const std::vector<app::JobInput> inputs {{kKineto, false}, {kKineto, false}};
        app::JobRunOptions options;
        options.threads = 2;
        bool thrown = false;
        app::JobRun run;
        {
            const Armed armed;
            try {
                run = app::runJob(inputs, options, nullptr, {});
            } catch (const std::bad_alloc&) {
                thrown = true;
            }
        }
        if (!thrown) {
            QCOMPARE(run.errors.size(), std::size_t(2));
            for (const std::string& e : run.errors)
                QVERIFY2(e.find("out of memory") != std::string::npos, e.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestWorkerFailure)
#include "tst_workerfailure.moc"
