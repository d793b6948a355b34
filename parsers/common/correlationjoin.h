// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace timesink::parsers {

/// The correlation join of an importer: a host launch (a runtime call, a framework op) and the device activities it
/// started share a correlation id (Kineto's `args.correlation`, msprof's connectionId). One launch may start many
/// activities (CUDA-graph replays, the tasks of one msprof connection), so this is a join, not a one-to-one match.
///
///   CorrelationJoin join;
///   join.addLaunch(12, hostCall);          // any order
///   join.addActivity(12, kernel);
///   join.join([&](model::SliceRef launch, model::SliceRef activity) { builder.addFlow(launch, activity, kind); });
///
/// A writer that lists launches before their activities in increasing id order (Kineto) can link while it reads:
/// launchSoFar() answers while the launches came in that order, and link() records the id as linked.
/// After join(), launch() finds any id's launch and linked() tells whether an id linked an activity.
class CorrelationJoin
{
public:
    using Entry = std::pair<std::int64_t, model::SliceRef>;

    void addLaunch(std::int64_t id, model::SliceRef launch)
    {
        if (!m_launches.empty() && m_launches.back().first > id)
            m_launchesSorted = false;
        m_launches.emplace_back(id, launch);
    }
    void addActivity(std::int64_t id, model::SliceRef activity) { m_activities.emplace_back(id, activity); }

    /// The launch with this id when launches have come in increasing id order so far, else nullptr.
    [[nodiscard]] const model::SliceRef* launchSoFar(std::int64_t id) const
    {
        return m_launchesSorted ? find(id) : nullptr;
    }
    /// Records that `id` linked an activity outside join() (see launchSoFar()).
    void link(std::int64_t id) { m_linked.push_back(id); }

    /// Which launches of an id an activity is linked to: the first (Kineto: one runtime call per correlation), or
    /// every one (msprof: a connection's CANN API and its framework op both launched its tasks).
    enum class Launches : std::uint8_t { First, Every };

    /// Pairs every activity added with the launch(es) of its id, calling f(launch, activity) in activity-id order,
    /// and drops the activities. The launches stay for launch().
    template <typename F> void join(F&& f, Launches which = Launches::First)
    {
        auto byId = [](const Entry& a, const Entry& b) { return a.first < b.first; };
        std::sort(m_launches.begin(), m_launches.end(), byId);
        m_launchesSorted = true;
        std::sort(m_activities.begin(), m_activities.end(), byId);
        std::size_t h = 0;
        for (const auto& [id, activity] : m_activities) {
            while (h < m_launches.size() && m_launches[h].first < id)
                ++h;
            if (h < m_launches.size() && m_launches[h].first == id) {
                f(m_launches[h].second, activity);
                for (std::size_t more = h + 1;
                     which == Launches::Every && more < m_launches.size() && m_launches[more].first == id; ++more)
                    f(m_launches[more].second, activity);
                m_linked.push_back(id);
            }
        }
        std::sort(m_linked.begin(), m_linked.end());
        m_linked.erase(std::unique(m_linked.begin(), m_linked.end()), m_linked.end());
        m_activities = {};
    }

    /// After join(): the launch with this id, or nullptr.
    [[nodiscard]] const model::SliceRef* launch(std::int64_t id) const { return find(id); }
    /// After join(): whether an activity was linked to the launch of this id.
    [[nodiscard]] bool linked(std::int64_t id) const
    {
        return std::binary_search(m_linked.begin(), m_linked.end(), id);
    }

    void clear()
    {
        m_launches = {};
        m_activities = {};
        m_linked = {};
        m_launchesSorted = true;
    }

private:
    [[nodiscard]] const model::SliceRef* find(std::int64_t id) const
    {
        auto it = std::lower_bound(m_launches.begin(), m_launches.end(), id,
                                   [](const Entry& a, std::int64_t c) { return a.first < c; });
        return it != m_launches.end() && it->first == id ? &it->second : nullptr;
    }

    std::vector<Entry> m_launches;
    std::vector<Entry> m_activities;
    std::vector<std::int64_t> m_linked;
    bool m_launchesSorted = true;
};

} // namespace timesink::parsers
