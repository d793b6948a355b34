// SPDX-License-Identifier: MIT
#pragma once

// A small analysed trace shared by the report tests: built with the TraceBuilder (no parsing) plus hand-made
// findings, so every number a writer prints is known in advance.

#include "analysis/core/pass.h"
#include "model/tracebuilder.h"

#include <string>
#include <vector>

namespace timesink::testing {

using namespace timesink::model;

struct AnalysedTrace
{
    TracePtr trace;
    analysis::AnalysisResult result;
    TrackId host;
    TrackId gpu;
};

/// Two steps on a host thread, a GPU compute stream and a copy engine.
///   step 1 [0, 1000): dataloader [0,200), kernels [300,500) + [600,650), HtoD copy [500,600), all-reduce [650,750)
///     → compute 250, communication 100, copies 100, dataloader 200, idle 350
///   step 2 [1000, 2000): kernel [1100,1400), copy [1350,1450) (50 ns hidden under the kernel)
///     → compute 300, copies 50, idle 650
/// `base` shifts every timestamp (to test epoch-sized values); `opName` names the first kernel (to test escaping).
inline AnalysedTrace makeAnalysedTrace(TimeNs base = 0, const std::string& opName = "conv_kernel",
                                       const std::string& findingTitle = "Dataloader starves the device in step 1",
                                       const std::string& recommendation = "Raise num_workers and set pin_memory=True")
{
    TraceBuilder b;
    b.metadata().format = "kineto";
    b.metadata().formatVersion = "1.0";
    b.metadata().sourcePath = "/data/run1/trace.json";
    b.metadata().devices.push_back(Device {DeviceKind::Gpu, 0, "NVIDIA A100-SXM4-80GB"});
    const TrackId host = b.hostThread("main", 4242, 4242);
    const TrackId gpu = b.deviceStream(0, 7);
    const TrackId copyEngine = b.deviceStream(0, 8, DeviceKind::Gpu, TrackRole::DeviceCopy);
    b.step(host, 1, base + 0, 1000);
    b.step(host, 2, base + 1000, 1000);
    b.slice(host, SliceCategory::Dataloader, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", base + 0,
            200);
    b.slice(host, SliceCategory::HostOp, "aten::conv2d", base + 200, 100);
    const SliceRef launch = b.slice(host, SliceCategory::RuntimeApi, "cudaLaunchKernel", base + 210, 10);
    const Arg args[] = {
        {b.intern("grid"), ArgValue::fromInt(128)},
        {b.intern("occupancy"), ArgValue::fromDouble(0.5)},
        {b.intern("stream"), ArgValue::fromString(b.intern("7"))},
        {b.intern("sync"), ArgValue::fromBool(true)},
    };
    const SliceRef conv = b.slice(gpu, SliceCategory::Kernel, opName, base + 300, 200, args);
    b.addFlow(launch, conv);
    b.memcpy(copyEngine, MemcpyDirection::HostToDevice, HostMemoryKind::Pageable, base + 500, 100,
             "Memcpy HtoD (Pageable -> Device)");
    b.slice(gpu, SliceCategory::Kernel, "relu_kernel", base + 600, 50);
    b.slice(gpu, SliceCategory::Communication, "ncclKernel_AllReduce", base + 650, 100);
    b.slice(gpu, SliceCategory::Kernel, opName, base + 1100, 300);
    b.memcpy(copyEngine, MemcpyDirection::HostToDevice, HostMemoryKind::Pageable, base + 1350, 100,
             "Memcpy HtoD (Pageable -> Device)");

    AnalysedTrace out;
    out.trace = b.finalize();
    out.host = host;
    out.gpu = gpu;
    out.result.analysedNs = 2000;
    out.result.savingNs = 320;
    out.result.savingFraction = 0.16;

    analysis::Finding starve;
    starve.kind = "dataloader_starvation";
    starve.title = findingTitle;
    starve.lostNs = 200;
    starve.lostFraction = 0.1;
    starve.occurrences = 1;
    starve.perStep = {{0, 1, 200, 1000, 300}};
    starve.savingNs = 300; // re-timing can find more than the idle time lost: the fetch also delays later work
    starve.savingFraction = 0.15;
    starve.savingMethod = "retimed";
    starve.savingRule = "Every DataLoader fetch inside the steps takes no time.";
    starve.evidence = {{gpu, base + 0, base + 200}};
    starve.details = {{"fetches", std::int64_t(1)}, {"share", 0.2}, {"loader", std::string("main process")}};
    starve.explanation = "The device waits while the host fetches the next batch.";
    starve.recommendation = recommendation;
    starve.platform = analysis::Platform::PyTorchCuda;
    starve.firstTs = base + 0;

    analysis::Finding copies;
    copies.kind = "copy_hotspot";
    copies.title = "Pageable host-to-device copies";
    copies.lostNs = 150;
    copies.lostFraction = 0.075;
    copies.occurrences = 2;
    copies.perStep = {{0, 1, 100, 1000, 40}, {1, 2, 50, 1000, 0}};
    copies.savingNs = 40;
    copies.savingFraction = 0.02;
    copies.savingMethod = "retimed";
    copies.savingRule = "These copies become asynchronous.";
    // Overlapping on purpose: evidence ranges of one finding may overlap, the exporters must cope.
    copies.evidence = {{copyEngine, base + 500, base + 600},
                       {copyEngine, base + 1350, base + 1450},
                       {copyEngine, base + 1400, base + 1500}};
    copies.explanation = "Copies from pageable memory are synchronous and do not overlap compute.";
    copies.recommendation = "Use pinned memory (pin_memory=True) and non_blocking=True.";
    copies.platform = analysis::Platform::PyTorchCuda;
    copies.firstTs = base + 500;

    out.result.findings = {starve, copies};
    out.result.notAssessed = {{"cpu_fallback", "no CPU fallback ops in this trace"}};
    analysis::fillTraceFigures(*out.trace, {}, out.result);
    return out;
}

} // namespace timesink::testing
