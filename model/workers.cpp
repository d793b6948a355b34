// SPDX-License-Identifier: MIT
#include "model/workers.h"

#include <system_error>
#include <utility>

namespace timesink::model {

unsigned hardwareThreads() noexcept
{
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1U : hw;
}

WorkerGroup::WorkerGroup(std::function<void()> stop)
    : m_stop(std::move(stop))
{
}

WorkerGroup::~WorkerGroup()
{
    if (!m_threads.empty() && m_stop) {
        try {
            m_stop();
        } catch (...) { // NOLINT(bugprone-empty-catch): a destructor must not throw; the join below still happens
        }
    }
    joinAll();
}

void WorkerGroup::guarded(const std::function<void()>& task) noexcept
{
    try {
        task();
    } catch (...) {
        bool first = false;
        {
            const std::lock_guard lock(m_errorMutex);
            if (!m_error) {
                m_error = std::current_exception();
                first = true;
            }
        }
        m_failed.store(true, std::memory_order_release);
        if (first && m_stop) {
            try {
                m_stop();
            } catch (...) { // NOLINT(bugprone-empty-catch): the first exception is the one reported
            }
        }
    }
}

bool WorkerGroup::tryStart(std::function<void()> task)
{
    try {
        m_threads.emplace_back([this, task = std::move(task)] { guarded(task); });
    } catch (const std::system_error&) {
        return false; // the process is at its thread limit
    }
    return true;
}

void WorkerGroup::startOrDefer(std::function<void()> task)
{
    // A copy stays here until the thread is known to run: tryStart consumes its argument either way.
    std::function<void()> keep = task;
    if (!tryStart(std::move(task)))
        m_deferred.push_back(std::move(keep));
}

void WorkerGroup::runHere(const std::function<void()>& task)
{
    guarded(task);
}

void WorkerGroup::joinAll() noexcept
{
    for (std::thread& t : m_threads) {
        if (t.joinable())
            t.join();
    }
    m_threads.clear();
}

void WorkerGroup::join()
{
    joinAll();
    std::vector<std::function<void()>> deferred = std::move(m_deferred);
    m_deferred.clear();
    for (const std::function<void()>& task : deferred) {
        if (!failed())
            guarded(task);
    }
    std::exception_ptr error;
    {
        const std::lock_guard lock(m_errorMutex);
        error = std::exchange(m_error, nullptr);
    }
    m_failed.store(false, std::memory_order_release);
    if (error)
        std::rethrow_exception(error);
}

} // namespace timesink::model
