// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace timesink::model {

/// Hardware threads of this machine, at least 1.
unsigned hardwareThreads() noexcept;

/// The one way Timesink's libraries start threads (a test, `thread_starts`, greps that no other file does; the GUI's
/// thread-pool jobs go through app/gui/backgroundtask.h).
///
/// A WorkerGroup owns the threads it starts. Whatever a task throws (std::bad_alloc on a worker thread is the usual
/// case, or ArgStore's std::length_error) is kept, and join() rethrows it on the caller's thread, where the load's
/// error handling turns it into a message; the first exception wins. When a task throws, the group's stop function
/// is called (once), so that the other parties of a pipeline stop waiting for the one that failed. The destructor
/// stops and joins without throwing: unwinding never meets a joinable std::thread (which would end the process).
class WorkerGroup
{
public:
    /// stop: how to make every task of this group return soon (close a queue, set a flag); may be empty.
    explicit WorkerGroup(std::function<void()> stop = {});
    ~WorkerGroup();
    WorkerGroup(const WorkerGroup&) = delete;
    WorkerGroup& operator=(const WorkerGroup&) = delete;
    WorkerGroup(WorkerGroup&&) = delete;
    WorkerGroup& operator=(WorkerGroup&&) = delete;

    /// Starts task on a thread of its own; false, with nothing started, when the process cannot have one more.
    bool tryStart(std::function<void()> task);
    /// As tryStart; when no thread can be had, the task runs in join(), on the caller's thread.
    void startOrDefer(std::function<void()> task);
    /// Runs task here, on the caller's thread, with the group's failure handling: what it throws is kept (and the
    /// group stopped) until join() instead of unwinding past threads that still run.
    void runHere(const std::function<void()>& task);
    /// Waits for every thread, runs the deferred tasks, and rethrows the first exception any task threw. The group
    /// can be used again afterwards.
    void join();
    /// Whether a task has thrown so far.
    [[nodiscard]] bool failed() const noexcept { return m_failed.load(std::memory_order_acquire); }
    /// Threads started and not yet joined.
    [[nodiscard]] std::size_t running() const noexcept { return m_threads.size(); }

private:
    void guarded(const std::function<void()>& task) noexcept;
    void joinAll() noexcept;

    std::function<void()> m_stop;
    std::vector<std::thread> m_threads;
    std::vector<std::function<void()>> m_deferred;
    std::mutex m_errorMutex;
    std::exception_ptr m_error;
    std::atomic<bool> m_failed {false};
};

/// fn(i) for every i in [0, n) on up to `threads` threads, this one included, each taking the next index from a
/// shared counter. When fn throws on any thread no further index is handed out, every thread is joined, and the
/// first exception is rethrown here. Without threads to be had it all runs here. fn must only touch what index i
/// owns.
template <typename Fn> void parallelFor(std::size_t n, std::size_t threads, Fn&& fn)
{
    std::atomic<std::size_t> next {0};
    std::atomic<bool> stopped {false};
    WorkerGroup group([&stopped] { stopped.store(true, std::memory_order_relaxed); });
    const std::function<void()> work = [&] {
        for (std::size_t i = next.fetch_add(1); i < n && !stopped.load(std::memory_order_relaxed);
             i = next.fetch_add(1))
            fn(i);
    };
    for (std::size_t t = 1; t < std::min(threads, n); ++t) {
        if (!group.tryStart(work))
            break;
    }
    group.runHere(work);
    group.join();
}

} // namespace timesink::model
