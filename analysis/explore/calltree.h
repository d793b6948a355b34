// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/explore/rangestats.h"
#include "model/trace.h"

#include <vector>

namespace timesink::analysis {

/// One node of a call tree: a call path of host slices (top-down) or of callers (bottom-up).
struct CallTreeNode
{
    model::StringId name;
    int parent = -1;           // -1 for the root
    int depth = 0;             // root 0, its children 1, …
    std::vector<int> children; // in order of first appearance
    std::uint64_t calls = 0;
    model::TimeNs totalNs = 0;      // host time, inclusive (each slice counted by its part inside the range)
    model::TimeNs selfNs = 0;       // host time not in child nodes
    model::TimeNs deviceNs = 0;     // device time launched from this node or below
    model::TimeNs deviceSelfNs = 0; // device time launched by this node's own slices (or by excluded slices in them)
    model::TimeNs maxNs = 0;        // the slowest instance
    model::SliceRef maxSlice;
};

/// Host call stacks aggregated by path, with the device time their launches caused.
///
/// Device time: a device slice reached by a launch flow is attributed once, to the host slice that
/// CallSiteResolver names as its launch (the runtime call when there is one, so torch_npu's second flow from
/// the framework op does not count it twice), wherever the device slice ran (it usually runs after the
/// range). With `frameworkOpsOnly`, slices other than framework ops (runtime calls, Python frames) are not
/// nodes: their time is their op's self time, and what they launched is their op's device time.
///
/// Example (smallTrainingTrace): aten::conv2d [100, 300) > cudaLaunchKernel [120, 140) → conv_fwd (200 ns)
///   top-down, all host slices: root > aten::conv2d {total 200, self 180, device 200}
///                                     > cudaLaunchKernel {total 20, self 20, device 200, deviceSelf 200}
struct CallTree
{
    std::vector<CallTreeNode> nodes; // nodes[0] is the root; a child always comes after its parent
    bool bottomUp = false;
    /// Device time launched by host slices that are under no node (frameworkOpsOnly: launches outside ops).
    model::TimeNs unattributedDeviceNs = 0;
    /// The trace links no device work to a host launch (an RKNN run, a device-only msprof export): the device's own
    /// operations are nodes at the top of the tree, by name, with their time in the range as device time (host
    /// time 0), so an edge NPU's layers make an operator table of op types (Conv, MaxPool, …).
    bool deviceOperators = false;
    [[nodiscard]] const CallTreeNode& root() const { return nodes.front(); }
};

struct CallTreeOptions
{
    RangeSelection selection;      // tracks empty: every host thread; device tracks are never nodes
    bool frameworkOpsOnly = false; // framework ops and host fallback ops (HostOp, FallbackOp) are the nodes
};

/// The top-down tree of the host slices in the selection.
CallTree buildCallTree(const model::Trace& trace, const CallTreeOptions& options);
/// The bottom-up (inverted) tree: level 1 is every function by its self time, below each its callers.
/// A node's totalNs is the self time of the function at its level-1 ancestor reached through this caller
/// chain, deviceNs likewise with device self time; selfNs is set on level 1 only.
CallTree invertCallTree(const CallTree& topDown);

/// One framework operator over a whole selection (the flat operator table).
struct OperatorRow
{
    model::StringId name;
    std::uint64_t calls = 0;
    model::TimeNs hostNs = 0; // inclusive; a call nested in a call of the same name is not counted twice
    model::TimeNs selfNs = 0;
    model::TimeNs deviceNs = 0; // launched device time, inclusive, with the same rule
    model::TimeNs maxNs = 0;
    model::SliceRef maxSlice; // the slowest call: where a double-click jumps
    [[nodiscard]] model::TimeNs meanNs() const { return calls ? hostNs / static_cast<model::TimeNs>(calls) : 0; }
};

/// Every name of a top-down tree as one row, by host time descending (then name id).
std::vector<OperatorRow> flattenOperators(const CallTree& topDown);

/// The device slices that `hostSlice` and the slices nested in it launched (by launch flows), in time order.
/// What "select launched device work" highlights.
std::vector<model::SliceRef> launchedDeviceWork(const model::Trace& trace, model::SliceRef hostSlice);

} // namespace timesink::analysis
