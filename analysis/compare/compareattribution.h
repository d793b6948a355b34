// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/kernelclass.h"
#include "model/trace.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::analysis {

/// Which framework operator each piece of device work belongs to, so that operator times can be
/// compared across runs and vendors. Built once from a frozen trace; read-only afterwards.
///
/// **Work** is a slice on a device track (role DeviceCompute, DeviceCopy or Communication) of category
/// Kernel, Memcpy, Memset, Communication or FallbackOp that is not nested in another such slice on its
/// track (HCCL sub-tasks count through their collective), plus FallbackOp slices on any track. A
/// communication slice inside a longer one on another communication lane of the same process (Ascend
/// "Plane" sub-tasks under the "Group" op), and a copy inside a collective of the same operator (the SDMA
/// tasks an Ascend all-reduce issues), are part of that collective and not counted again.
///
/// **Attribution** of a work slice, first rule that answers wins:
///  1. an incoming flow that is not forward→backward (Kineto `ac2g` / legacy `async_gpu` runtime call →
///     kernel, torch_npu `async_npu` op → task, Ascend `HostToDevice` CANN call → task) leads to a
///     launching slice, which is resolved as below;
///  2. the work slice's `External id` arg names a host op with the same `External id`, or its
///     `correlation` arg names a runtime call with the same `correlation` (flows can be missing);
///  3. otherwise the work is its own operator (RKNN layers, device tasks without a link).
/// A launching slice resolves to the **operator**: among the HostOp slices that contain it on its track
/// (itself included), the *outermost dispatcher operator*, i.e. a name of the form `namespace::op`
/// (`aten::conv2d`, `npu::npu_dtype_cast`, `c10d::allreduce_`; not `autograd::engine::evaluate_function: …`
/// nor `DistributedDataParallel.forward`); without one, the innermost HostOp. A launching slice with no
/// HostOp around it (an Ascend CANN call, a torch_npu `Dequeue@…` slice) follows its own incoming flows
/// (task-queue `Dequeue` ← `Enqueue`) and, failing that, the slice at the same time on a host track of
/// another process with the same thread id (CANN lane → Python task-queue thread), up to four hops.
///   cudaLaunchKernel inside aten::cudnn_convolution inside aten::_convolution inside aten::conv2d
///     → the kernel is attributed to aten::conv2d.
///
/// A trace without any work (CPU-only) is timed on the host: each outermost dispatcher operator (or, when
/// the trace has none, each top-level HostOp) counts its own duration.
///
/// **Steps**: attributed work counts in the step whose host window contains its operator's start (device work
/// launched in step N that finishes after the step's end still belongs to step N); other work counts in the
/// step whose analysis window (StepClock, as `analyze` counts) contains its own start, so device work queued
/// before the first step is no step's. A trace without markers (one synthetic step) is compared whole.
class CompareAttribution
{
public:
    explicit CompareAttribution(const model::Trace& trace);

    /// One timed item: a work slice (device mode) or an operator slice (host mode).
    struct Item
    {
        model::SliceRef slice;    // the work slice, or the operator slice in host mode
        model::SliceRef op;       // the operator it is attributed to; invalid when the work is its own operator
        model::TimeNs stepTimeNs; // the time that decides its step
        model::TimeNs durNs;
        std::uint32_t name; // index into names()
        /// What the work does (kernelclass.h); in host mode the class of the operator's name.
        KernelClass cls = KernelClass::Other;
        /// Unlinked work named by its raw slice name (no operator type kept by the importer): a vendor kernel
        /// name (`sm90_xmma_gemm_…`, `Cijk_…`) that can never match across vendors.
        bool rawName = false;
    };

    /// Totals of one operator name (as it appears in this trace) over some steps.
    struct Total
    {
        model::TimeNs ns = 0;
        std::uint64_t calls = 0;  // distinct operator instances (or work slices that are their own operator)
        std::uint64_t slices = 0; // timed slices (kernels, tasks, layers)
        /// What a view highlights: each operator slice and the device work attributed to it (or the
        /// work slices that are their own operator).
        std::vector<model::SliceRef> occurrences;
        /// For a group of unlinked raw kernel names (groupUnlinkedByClass): the names in it, sorted.
        std::vector<std::string> rawNames;
    };

    /// Device work of one kernel class over some steps (device mode only).
    struct ClassTotal
    {
        model::TimeNs ns = 0;
        std::uint64_t slices = 0;
    };

    /// True when the trace holds device work; otherwise operators are timed on the host.
    [[nodiscard]] bool deviceTimed() const { return m_deviceTimed; }
    [[nodiscard]] std::span<const Item> items() const { return m_items; }
    [[nodiscard]] const std::vector<std::string>& names() const { return m_names; }
    /// Work slices (device mode) that were attributed to a framework operator, and all of them.
    [[nodiscard]] std::uint64_t attributedCount() const { return m_attributed; }

    /// Per operator name, over the steps with these indices (into trace.steps()). With `groupable`, unlinked work
    /// that only has its raw kernel name (Item::rawName) and whose name `groupable` accepts is totalled under
    /// unlinkedGroupName(class) instead, its names kept in Total::rawNames (the comparison groups the names the
    /// operator-name map does not know).
    [[nodiscard]] std::map<std::string, Total, std::less<>>
    totals(std::span<const std::size_t> stepIndices, const std::function<bool(std::string_view)>& groupable = {}) const;
    /// Device work per kernel class over the same steps as totals() counts them (empty in host mode).
    [[nodiscard]] std::array<ClassTotal, kKernelClassCount> classTotals(std::span<const std::size_t> stepIndices) const;
    /// "unlinked GEMM kernels": the operator row of unlinked raw kernels of one class.
    static std::string unlinkedGroupName(KernelClass c);

    /// True for a dispatcher operator name `namespace::op` (identifier characters, one namespace).
    static bool isDispatcherOpName(std::string_view name);

private:
    void dropCopiesInsideTheirCollective();
    /// Per item: whether it counts in one of the steps with these indices (the step rule of the class comment).
    [[nodiscard]] std::vector<char> inSteps(std::span<const std::size_t> stepIndices) const;
    /// Per item: the index of its step, or no step (computed on first use: a StepClock costs a pass over the trace).
    [[nodiscard]] const std::vector<std::optional<std::size_t>>& itemSteps() const;
    mutable std::optional<std::vector<std::optional<std::size_t>>> m_itemSteps;

    const model::Trace& m_trace;
    std::vector<Item> m_items;
    std::vector<std::string> m_names;
    std::uint64_t m_attributed = 0;
    bool m_deviceTimed = false;
};

} // namespace timesink::analysis
