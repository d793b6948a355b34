// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/finding.h"
#include "model/trace.h"

namespace timesink::analysis {

/// The platform a trace came from, for writing recommendations in its terms.
/// Decided by the importer's format key first (torch_npu/msprof → CANN, rknn → RKNN), then by the
/// devices: a Kineto trace with AMD devices or HIP runtime calls is ROCm, with no device tracks it is
/// a CPU run, otherwise CUDA. Example: metadata.format == "kineto" with a device "AMD Instinct MI250X"
/// → Platform::PyTorchRocm.
Platform detectPlatform(const model::Trace& trace);

} // namespace timesink::analysis
