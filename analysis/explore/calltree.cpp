// SPDX-License-Identifier: MIT
#include "analysis/explore/calltree.h"

#include "analysis/core/callsite.h"
#include "analysis/core/deviceactivity.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace timesink::analysis {

namespace {

bool isHostThread(const model::Track& t)
{
    return !isDeviceTrack(t) && t.role == model::TrackRole::HostThread;
}

bool selected(const RangeSelection& s, model::TrackId id)
{
    return s.tracks.empty() || std::find(s.tracks.begin(), s.tracks.end(), id) != s.tracks.end();
}

/// Device time of the launches CallSiteResolver attributes to `slice` itself.
model::TimeNs ownLaunchedTime(const model::Trace& trace, const CallSiteResolver& resolver, model::SliceRef slice)
{
    model::TimeNs sum = 0;
    for (const model::Flow& f : trace.flowsFrom(slice)) {
        if (f.kind != model::FlowKind::Launch || !isDeviceTrack(trace.track(f.to.track)))
            continue;
        // Counted once, at the launch its call site names (several flows may reach one device task).
        if (resolver.resolve(f.to).launch != slice)
            continue;
        sum += trace.track(f.to.track).dur(f.to.index.value);
    }
    return sum;
}

/// CallTree::deviceOperators: without a single linked launch, each device operation in [a, b] is a top-level node.
/// Derived lanes (an RKNN run's per-core copies of its layers) repeat the device rows and are left out.
void addDeviceOperators(const model::Trace& trace, model::TimeNs a, model::TimeNs b, const RangeSelection& selection,
                        CallTree& tree, std::unordered_map<std::uint64_t, int>& childOf)
{
    if (std::any_of(trace.flows().begin(), trace.flows().end(),
                    [&trace](const model::Flow& f) { return isDeviceLaunch(trace, f); }))
        return; // device work is launched from the host: it is under the host ops
    for (const model::Track& t : trace.tracks()) {
        if (t.empty() || !model::isDeviceTrack(t) || !selected(selection, t.id))
            continue;
        tree.deviceOperators = true;
        t.forEachInside(a, b, [&](std::uint32_t i) {
            if (t.parent(i).isValid())
                return; // a device row's nested slices are parts of their operation
            const model::TimeNs c = std::max<model::TimeNs>(0, std::min(t.end(i), b) - std::max(t.ts(i), a));
            const std::uint64_t key = t.sliceName(i).value; // parent node 0
            auto [it, inserted] = childOf.try_emplace(key, static_cast<int>(tree.nodes.size()));
            if (inserted) {
                CallTreeNode n;
                n.name = t.sliceName(i);
                n.parent = 0;
                n.depth = 1;
                tree.nodes[0].children.push_back(it->second);
                tree.nodes.push_back(n);
            }
            CallTreeNode& n = tree.nodes[static_cast<std::size_t>(it->second)];
            ++n.calls;
            n.deviceSelfNs += c;
            if (!n.maxSlice.isValid() || c > n.maxNs) {
                n.maxNs = c;
                n.maxSlice = {t.id, model::SliceIndex(i)};
            }
        });
    }
}

} // namespace

CallTree buildCallTree(const model::Trace& trace, const CallTreeOptions& options)
{
    CallTree tree;
    tree.nodes.emplace_back();
    const model::TimeNs a = std::min(options.selection.start, options.selection.end);
    const model::TimeNs b = std::max(options.selection.start, options.selection.end);
    const CallSiteResolver resolver(trace);
    std::unordered_map<std::uint64_t, int> childOf; // (parent node << 32 | name) → node
    // The node of each placed slice, by slice index from the track's lowest placed one (-1: not placed). Direct
    // addressing: a hash map of every host slice held ~0.4 GB at 10 GB, twice (the flame graph and the table).
    std::vector<int> nodeOfSlice;
    for (const model::Track& t : trace.tracks()) {
        if (t.empty() || !isHostThread(t) || !selected(options.selection, t.id))
            continue;
        std::uint32_t lo = std::numeric_limits<std::uint32_t>::max();
        std::uint32_t hi = 0;
        t.forEachInside(a, b, [&](std::uint32_t i) {
            lo = std::min(lo, i);
            hi = std::max(hi, i);
        });
        if (lo > hi)
            continue;
        nodeOfSlice.assign(hi - lo + 1, -1);
        // Depth by depth, so a slice's parent has its node before the slice is placed.
        t.forEachInside(a, b, [&](std::uint32_t i) {
            int parentNode = 0;
            if (t.parent(i).isValid()) {
                const std::uint32_t p = t.parent(i).value;
                if (p >= lo && p <= hi && nodeOfSlice[p - lo] >= 0)
                    parentNode = nodeOfSlice[p - lo];
            }
            const model::TimeNs device = ownLaunchedTime(trace, resolver, {t.id, model::SliceIndex(i)});
            // An operator the host ran in the device's place (an RKNN layer on the CPU) is one too.
            if (options.frameworkOpsOnly && t.category(i) != model::SliceCategory::HostOp
                && t.category(i) != model::SliceCategory::FallbackOp) {
                nodeOfSlice[i - lo] = parentNode; // transparent: time and launches belong to the enclosing op
                if (parentNode == 0)
                    tree.unattributedDeviceNs += device;
                else
                    tree.nodes[static_cast<std::size_t>(parentNode)].deviceSelfNs += device;
                return;
            }
            const model::TimeNs c = std::max<model::TimeNs>(0, std::min(t.end(i), b) - std::max(t.ts(i), a));
            const std::uint64_t key = (static_cast<std::uint64_t>(parentNode) << 32) | t.sliceName(i).value;
            auto [it, inserted] = childOf.try_emplace(key, static_cast<int>(tree.nodes.size()));
            if (inserted) {
                CallTreeNode n;
                n.name = t.sliceName(i);
                n.parent = parentNode;
                n.depth = tree.nodes[static_cast<std::size_t>(parentNode)].depth + 1;
                tree.nodes[static_cast<std::size_t>(parentNode)].children.push_back(it->second);
                tree.nodes.push_back(n);
            }
            const int node = it->second;
            nodeOfSlice[i - lo] = node;
            CallTreeNode& n = tree.nodes[static_cast<std::size_t>(node)];
            ++n.calls;
            n.totalNs += c;
            n.selfNs += c;
            n.deviceSelfNs += device;
            if (!n.maxSlice.isValid() || c > n.maxNs) {
                n.maxNs = c;
                n.maxSlice = {t.id, model::SliceIndex(i)};
            }
            if (parentNode != 0)
                tree.nodes[static_cast<std::size_t>(parentNode)].selfNs -= c;
        });
    }
    addDeviceOperators(trace, a, b, options.selection, tree, childOf);
    // Children come after their parents: one backward sweep sums the inclusive figures.
    for (std::size_t n = tree.nodes.size(); n-- > 1;) {
        CallTreeNode& node = tree.nodes[n];
        node.selfNs = std::max<model::TimeNs>(0, node.selfNs); // a partially overlapping child can overshoot
        node.deviceNs += node.deviceSelfNs;
        CallTreeNode& parent = tree.nodes[static_cast<std::size_t>(node.parent)];
        parent.deviceNs += node.deviceNs;
        if (node.parent == 0) {
            parent.totalNs += node.totalNs;
            parent.calls += node.calls;
        }
    }
    tree.nodes[0].deviceNs += tree.unattributedDeviceNs;
    return tree;
}

CallTree invertCallTree(const CallTree& topDown)
{
    CallTree inv;
    inv.bottomUp = true;
    inv.unattributedDeviceNs = topDown.unattributedDeviceNs;
    inv.nodes.emplace_back();
    std::unordered_map<std::uint64_t, int> childOf;
    for (std::size_t n = 1; n < topDown.nodes.size(); ++n) {
        const CallTreeNode& leaf = topDown.nodes[n];
        int at = 0;
        for (int cur = static_cast<int>(n); cur > 0; cur = topDown.nodes[static_cast<std::size_t>(cur)].parent) {
            const CallTreeNode& frame = topDown.nodes[static_cast<std::size_t>(cur)];
            const std::uint64_t key = (static_cast<std::uint64_t>(at) << 32) | frame.name.value;
            auto [it, inserted] = childOf.try_emplace(key, static_cast<int>(inv.nodes.size()));
            if (inserted) {
                CallTreeNode c;
                c.name = frame.name;
                c.parent = at;
                c.depth = inv.nodes[static_cast<std::size_t>(at)].depth + 1;
                inv.nodes[static_cast<std::size_t>(at)].children.push_back(it->second);
                inv.nodes.push_back(c);
            }
            at = it->second;
            CallTreeNode& node = inv.nodes[static_cast<std::size_t>(at)];
            node.calls += leaf.calls;
            node.totalNs += leaf.selfNs;
            node.deviceNs += leaf.deviceSelfNs;
            if (cur == static_cast<int>(n)) {
                node.selfNs += leaf.selfNs;
                node.deviceSelfNs += leaf.deviceSelfNs;
                if (!node.maxSlice.isValid() || leaf.maxNs > node.maxNs) {
                    node.maxNs = leaf.maxNs;
                    node.maxSlice = leaf.maxSlice;
                }
            }
        }
    }
    inv.nodes[0].totalNs = topDown.root().totalNs;
    inv.nodes[0].calls = topDown.root().calls;
    inv.nodes[0].deviceNs = topDown.root().deviceNs;
    return inv;
}

std::vector<OperatorRow> flattenOperators(const CallTree& topDown)
{
    std::vector<OperatorRow> rows;
    std::unordered_map<std::uint32_t, std::size_t> rowOf;
    for (std::size_t n = 1; n < topDown.nodes.size(); ++n) {
        const CallTreeNode& node = topDown.nodes[n];
        auto [it, inserted] = rowOf.try_emplace(node.name.value, rows.size());
        if (inserted) {
            rows.emplace_back();
            rows.back().name = node.name;
        }
        OperatorRow& row = rows[it->second];
        row.calls += node.calls;
        row.selfNs += node.selfNs;
        bool nested = false; // inside a call of the same name: its time is already in that call's
        for (int p = node.parent; p > 0 && !nested; p = topDown.nodes[static_cast<std::size_t>(p)].parent)
            nested = topDown.nodes[static_cast<std::size_t>(p)].name == node.name;
        if (!nested) {
            row.hostNs += node.totalNs;
            row.deviceNs += node.deviceNs;
        }
        if (!row.maxSlice.isValid() || node.maxNs > row.maxNs) {
            row.maxNs = node.maxNs;
            row.maxSlice = node.maxSlice;
        }
    }
    std::sort(rows.begin(), rows.end(), [](const OperatorRow& x, const OperatorRow& y) {
        return x.hostNs != y.hostNs ? x.hostNs > y.hostNs : x.name.value < y.name.value;
    });
    return rows;
}

std::vector<model::SliceRef> launchedDeviceWork(const model::Trace& trace, model::SliceRef hostSlice)
{
    std::vector<model::SliceRef> out;
    if (!hostSlice.isValid() || hostSlice.track.value >= trace.tracks().size())
        return out;
    const model::Track& t = trace.track(hostSlice.track);
    const std::uint32_t root = hostSlice.index.value;
    if (root >= t.size())
        return out;
    const auto collect = [&](std::uint32_t i) {
        for (const model::Flow& f : trace.flowsFrom({t.id, model::SliceIndex(i)})) {
            if (f.kind == model::FlowKind::Launch && isDeviceTrack(trace.track(f.to.track)))
                out.push_back(f.to);
        }
    };
    collect(root);
    t.forEachInRange(
        t.ts(root), t.end(root),
        [&](std::uint32_t k) {
            // Nested in `root`: its parent chain reaches it.
            model::SliceIndex p = t.parent(k);
            while (p.isValid() && t.depth(p.value) > t.depth(root))
                p = t.parent(p.value);
            if (p.isValid() && p.value == root)
                collect(k);
        },
        t.depth(root) + 1u);
    std::sort(out.begin(), out.end(), [&trace](const model::SliceRef& x, const model::SliceRef& y) {
        const model::TimeNs tx = trace.track(x.track).ts(x.index.value);
        const model::TimeNs ty = trace.track(y.track).ts(y.index.value);
        return tx != ty ? tx < ty : x < y;
    });
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

} // namespace timesink::analysis
