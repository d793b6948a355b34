// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>

namespace timesink::analysis {

/// Cooperative cancellation shared between the caller and running passes.
class CancelToken
{
public:
    void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }
    [[nodiscard]] bool cancelled() const { return m_cancelled.load(std::memory_order_relaxed); }

private:
    std::atomic<bool> m_cancelled {false};
};

} // namespace timesink::analysis
