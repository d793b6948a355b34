// SPDX-License-Identifier: MIT
#include "analysis/core/finding.h"

#include "analysis/core/textformat.h"

#include <cstdio>

namespace timesink::analysis {

bool rankBefore(const Finding& a, const Finding& b)
{
    if (a.savingNs != b.savingNs)
        return a.savingNs > b.savingNs;
    if (a.lostNs != b.lostNs)
        return a.lostNs > b.lostNs;
    if (a.kind != b.kind)
        return a.kind < b.kind;
    if (a.firstTs != b.firstTs)
        return a.firstTs < b.firstTs;
    // Equal on every documented key (e.g. two copy call sites with identical cost): the title keeps
    // the order independent of pass internals such as hash-map iteration.
    return a.title < b.title;
}

std::string_view platformLabel(Platform p)
{
    switch (p) {
    case Platform::PyTorchCuda:
        return "PyTorch on CUDA";
    case Platform::PyTorchRocm:
        return "PyTorch on ROCm";
    case Platform::TorchNpuCann:
        return "torch_npu on CANN";
    case Platform::Rknn:
        return "RKNN";
    case Platform::Cpu:
        return "PyTorch on CPU";
    case Platform::Generic:
        break;
    }
    return "generic";
}

std::string detailText(const Detail& d)
{
    if (const auto* i = std::get_if<std::int64_t>(&d.value))
        return std::to_string(*i);
    if (const auto* x = std::get_if<double>(&d.value))
        return formatGeneral(*x);
    return std::get<std::string>(d.value);
}

std::string kindLabel(std::string_view kind)
{
    // Kinds whose id does not read well with the generic rule (an acronym, a hyphen).
    if (kind == "low_mac_usage")
        return "Low MAC usage";
    if (kind == "core_imbalance")
        return "NPU core imbalance";
    if (kind == "memory_bound")
        return "Memory-bound layers";
    std::string label = cleanText(kind);
    for (char& c : label) {
        if (c == '_')
            c = ' ';
    }
    if (!label.empty() && label[0] >= 'a' && label[0] <= 'z')
        label[0] = static_cast<char>(label[0] - 'a' + 'A');
    return label;
}

} // namespace timesink::analysis
