// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace timesink::parsers {

/// Pairs Chrome-trace duration events (`ph:"B"` / `ph:"E"`) per thread, for every dialect's sink (Kineto, the
/// Ascend timeline). Each thread has a stack: begin() pushes what the sink wants back when the slice closes
/// (`Open`: its start, name, args…), end() pops the latest open B of the same thread. The matcher knows no
/// warnings and no model: an E with nothing open (end() gives nullopt) and the B's still open at the end of the
/// trace (drainOpen()) go back to the caller, who warns and decides what to keep.
///
/// `thread` is the sink's own key for "the same thread" (Kineto: the track the event lands on; Ascend: its dense
/// (pid, tid) index). The stacks live in an ordered map so drainOpen() hands them out in a fixed order (threads
/// ascending, outermost B first), which keeps an import's output independent of hashing.
///
/// Example, one thread: B a@0, B b@1, E@2, E@5 → end() gives b (closed at 2), then a (closed at 5).
template <typename Open> class BeginEndMatcher
{
public:
    void begin(std::uint64_t thread, Open open) { m_stacks[thread].push_back(std::move(open)); }

    /// The latest B still open on `thread`, removed from its stack; nullopt when none is open there.
    std::optional<Open> end(std::uint64_t thread)
    {
        auto it = m_stacks.find(thread);
        if (it == m_stacks.end() || it->second.empty())
            return std::nullopt;
        std::optional<Open> open(std::move(it->second.back()));
        it->second.pop_back();
        return open;
    }

    /// B's open now, on every thread.
    [[nodiscard]] std::size_t openCount() const
    {
        std::size_t n = 0;
        for (const auto& [thread, stack] : m_stacks)
            n += stack.size();
        return n;
    }

    /// Calls `fn(std::uint64_t thread, Open& open)` for every B still open (threads ascending, outermost first),
    /// then forgets them all.
    template <typename Fn> void drainOpen(Fn&& fn)
    {
        for (auto& [thread, stack] : m_stacks)
            for (Open& open : stack)
                fn(thread, open);
        m_stacks.clear();
    }

private:
    std::map<std::uint64_t, std::vector<Open>> m_stacks;
};

} // namespace timesink::parsers
