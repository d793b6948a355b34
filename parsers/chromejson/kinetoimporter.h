// SPDX-License-Identifier: MIT
#pragma once

#include "parsers/common/importer.h"

namespace timesink::parsers::chromejson {

/// torch.profiler / Kineto Chrome-trace JSON (`.json`, `.json.gz`, `.json.zst`), including the legacy
/// autograd-profiler bare array (`pid: "CPU functions"`, no `cat`), streamed through ChromeEventReader.
///
/// What becomes what:
///  * `X` events (and `B`/`E` pairs matched per thread) → slices. Host vs device is decided by `cat`, never by
///    pid (pid 0 is GPU 0 and also unresolved Python threads). Device work goes to one track per (device,
///    stream); `gpu_user_annotation` to a Synthetic "annotations" track per device and `cuda_sync` to a
///    Synthetic "sync" track per device, so neither nests the kernels of a stream.
///  * Categories: cpu_op → HostOp, python_function → PythonFrame, cuda_runtime/cuda_driver → RuntimeApi,
///    kernel → Kernel (nccl/rccl kernels → Communication), gpu_memcpy → Memcpy with direction and host memory
///    from the name ("Memcpy HtoD (Pageable -> Device)") or ROCm's `kind` arg, gpu_memset → Memset,
///    cuda_sync → Sync, user_annotation → Annotation, `ProfilerStep#N` on the host → Step (plus a model
///    Step), `enumerate(DataLoader)#…` → Dataloader, `record_param_comms`/`nccl:*` → Communication.
///  * Flows: `s`/`f` pairs (ac2g, fwdbwd, legacy async_gpu), plus host→device links from `args.correlation`
///    (runtime call ↔ device activity) when flows are missing or lopsided; both are deduplicated.
///  * `C` → counter tracks, `[memory]` instants → a per-device "allocated" counter, `M` → names and order.
///  * Device and stream of a device activity: `args.device` / `args.stream` when present, else pid / tid.
///  * Traces written by `timesink-cli export`: a `thread_name` with `lane_of` makes that thread (an overlap
///    lane) part of the named thread's track, and the `timesink.finding` slices (exported findings) are left out
///    with the warning "exported_findings_skipped".
///  * `ts` exact to the ns from its decimal text, plus `baseTimeNanoseconds` when present (wherever it
///    appears in the file).
class KinetoImporter : public Importer
{
public:
    [[nodiscard]] std::string_view id() const override { return "chromejson"; }
    [[nodiscard]] FormatDescription describe() const override;
    [[nodiscard]] int probe(const SourceProbe& source) const override;
    ImportResult import(const SourceProbe& source, const ImportOptions& options, ProgressSink& progress) override;
};

} // namespace timesink::parsers::chromejson
