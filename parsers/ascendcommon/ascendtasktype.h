// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

#include <string_view>

namespace timesink::parsers {

/// How an Ascend device task maps into the model.
struct AscendTaskClass
{
    model::SliceCategory category = model::SliceCategory::Other;
    model::MemcpyDirection direction = model::MemcpyDirection::None;
    /// A host↔device copy over PCIe whose direction must come from the launching API (PCIE_DMA_SQE, or a
    /// MEMCPY_ASYNC without an engine hint).
    bool hostDeviceCopy = false;
};

/// Classifies a device task from what the exports say about it:
///   `taskType`  the low-level type: trace_view `Task Type` (`PCIE_DMA_SQE`, `EVENT_WAIT_SQE`, `Other` …) or the
///               DB's `TASK.taskType` (`KERNEL_AICORE`, `KERNEL_AIVEC`, `MEMCPY_ASYNC`, `Notify Wait` …);
///   `coreType`  the accelerator view when known: kernel_details `Accelerator Core`, op_summary `Task Type`,
///               `COMPUTE_TASK_INFO.taskType` (`AI_CORE`, `AI_VECTOR_CORE`, `MIX_AIC`, `MIX_AIV`, `AI_CPU`, `HCCL`);
///   `name`      the task name (`MEMCPY_ASYNC`, `EVENT_RECORD`, `aclnnReduceSum_CastAiCpu_Cast`).
///
///   ("AI_CORE", "", "Conv2D1")              → Kernel
///   ("KERNEL_AIVEC", "AI_VECTOR_CORE", "x") → Kernel
///   ("AI_CPU", "", "…CastAiCpu…")           → FallbackOp
///   ("PCIE_DMA_SQE", "", "MEMCPY_ASYNC")    → Memcpy, hostDeviceCopy (direction from the launcher)
///   ("SDMA_SQE", "", "MEMCPY_ASYNC")        → Memcpy DeviceToDevice
///   ("SDMA", "", "SDMA")                    → Memcpy DeviceToDevice
///   ("EVENT_WAIT_SQE", "", "EVENT_WAIT")    → Sync;  ("Notify Wait", …) → Sync
///   ("Other", "", "Conv2D")                 → Kernel (Jan-2024 traces label compute tasks `Other`)
AscendTaskClass classifyAscendTask(std::string_view taskType, std::string_view coreType, std::string_view name);

/// Direction of a host↔device copy from the name of the API or framework op that launched it, when the name
/// says (`acl_memcpy_host_to_device`, `aclrtMemcpyHostToDevice`, `…d2h…`); None otherwise.
model::MemcpyDirection copyDirectionFromLauncher(std::string_view launcherName);

/// The framework-level category of a torch_npu host slice, from its name and source category:
///   "ProfilerStep#50" → Step;  "enumerate(DataLoader)#…__next__" → Dataloader;  cat python_function → PythonFrame;
///   everything else (cpu_op, enqueue, dequeue, torch ops) → HostOp.
model::SliceCategory classifyAscendHostOp(std::string_view name, std::string_view rawCategory);

/// Parses the step number of "ProfilerStep#50" → 50; -1 when the name is not a step marker.
std::int64_t profilerStepNumber(std::string_view name);

} // namespace timesink::parsers
