// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/finding.h"
#include "model/tracebuilder.h"

#include <vector>

namespace timesink::testing {

/// A small two-step training trace: a host thread with nested ops and launches, a GPU compute stream
/// with kernels launched by flows, a copy engine and a dataloader slice.
///
/// step 1 = [0, 1000), step 2 = [1000, 2000) ns (ProfilerStep markers on the host thread, depth 0).
///   host  : "aten::conv2d" [100, 300) > "cudaLaunchKernel" [120, 140) → kernel "conv_fwd" [200, 400)
///           "aten::relu" [1100, 1200) > "cudaLaunchKernel" [1110, 1120) → kernel "relu_fwd" [1300, 1350)
///           "DataLoader next" [1500, 1900) (dataloader)
///   copy  : HtoD memcpy [500, 700), DtoH memcpy [1600, 1650)
inline model::TracePtr smallTrainingTrace()
{
    using model::SliceCategory;
    model::TraceBuilder b;
    const auto host = b.hostThread("python", 10, 11);
    const auto gpu = b.deviceStream(0, 7);
    const auto copy = b.deviceStream(0, 9, model::DeviceKind::Gpu, model::TrackRole::DeviceCopy);
    b.step(host, 1, 0, 1000);
    b.step(host, 2, 1000, 1000);
    b.slice(host, SliceCategory::HostOp, "aten::conv2d", 100, 200);
    const auto l1 = b.slice(host, SliceCategory::RuntimeApi, "cudaLaunchKernel", 120, 20);
    const auto k1 = b.slice(gpu, SliceCategory::Kernel, "conv_fwd", 200, 200);
    b.addFlow(l1, k1);
    b.slice(host, SliceCategory::HostOp, "aten::relu", 1100, 100);
    const auto l2 = b.slice(host, SliceCategory::RuntimeApi, "cudaLaunchKernel", 1110, 10);
    const auto k2 = b.slice(gpu, SliceCategory::Kernel, "relu_fwd", 1300, 50);
    b.addFlow(l2, k2);
    b.slice(host, SliceCategory::Dataloader, "DataLoader next", 1500, 400);
    b.memcpy(copy, model::MemcpyDirection::HostToDevice, model::HostMemoryKind::Pageable, 500, 200, "Memcpy HtoD");
    b.memcpy(copy, model::MemcpyDirection::DeviceToHost, model::HostMemoryKind::Pinned, 1600, 50, "Memcpy DtoH");
    return b.finalize();
}

/// Finds a slice by name (the first in time), for tests that need a ref into a built trace.
inline model::SliceRef findSlice(const model::Trace& trace, std::string_view name)
{
    for (const model::Track& t : trace.tracks())
        for (std::uint32_t i = 0; i < t.size(); ++i)
            if (trace.str(t.sliceName(i)) == name)
                return model::SliceRef {t.id, model::SliceIndex(i)};
    return {};
}

/// Two hand-made findings over smallTrainingTrace(), as an analysis would report them.
inline std::vector<analysis::Finding> smallFindings(const model::Trace& trace)
{
    analysis::Finding copy;
    copy.kind = "copy_hotspot";
    copy.title = "Pageable host-to-device copy: 200 ns";
    copy.lostNs = 200;
    copy.lostFraction = 0.1;
    copy.occurrences = 1;
    const model::SliceRef memcpy = findSlice(trace, "Memcpy HtoD");
    copy.events = {memcpy};
    copy.evidence = {analysis::EvidenceRange {memcpy.track, 500, 700}};
    copy.perStep = {analysis::StepLoss {0, 1, 200, 1000}};
    copy.explanation = "Pageable memory is staged through a bounce buffer.";
    copy.recommendation = "Use pin_memory=True in the DataLoader.";
    copy.firstTs = 500;

    analysis::Finding loader;
    loader.kind = "dataloader_starvation";
    loader.title = "Dataloader starves the device for 400 ns";
    loader.lostNs = 400;
    loader.lostFraction = 0.2;
    loader.occurrences = 1;
    const model::SliceRef dl = findSlice(trace, "DataLoader next");
    loader.events = {dl};
    loader.evidence = {analysis::EvidenceRange {dl.track, 1500, 1900}};
    loader.perStep = {analysis::StepLoss {1, 2, 400, 1000}};
    loader.explanation = "The device waits while the next batch is prepared.";
    loader.recommendation = "Raise num_workers.";
    loader.details = {analysis::Detail {"num_batches", std::int64_t {1}}};
    loader.firstTs = 1500;
    return {loader, copy};
}

} // namespace timesink::testing
