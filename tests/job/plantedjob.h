// SPDX-License-Identifier: MIT
#pragma once

// A generated N-rank Kineto job with a planted straggler and known waiting, for tests and the job bench.
//
// Every rank r, step k (ProfilerStep#k, k = 1..steps) of `stepNs`, on the rank's own clock
//   T = base + r·rankOffsetNs + (k−1)·stepNs + k·r·driftNs   (clock offsets that change from step to step):
//   stream 7:  compute kernel [T, T + c)            c = stragglerComputeNs on the straggler, computeNs elsewhere
//   stream 8:  tail kernel    [T + c, T + c + tailNs)
//   stream 20: ncclKernel_AllReduce… [T + c, T + stepNs)   every rank leaves the all-reduce together
//   stream 9:  `fillerKernels` 1 µs kernels inside [T, T + c) with their cpu_op + cudaLaunchKernel (file size)
// So, on a normal rank: compute = computeNs + tailNs, exposed communication = stepNs − that, waiting (exposed)
// = stragglerComputeNs − computeNs − tailNs; on the straggler: exposed communication stepNs − c − tailNs, no wait.
// With copyNs / idleNs (0 by default, every number above unchanged) each step begins with a copy and an idle gap
// that the compute kernel leaves out: stream 21 memcpy [T, T + copyNs), nothing [T + copyNs, T + copyNs + idleNs),
// and the compute kernel runs [T + copyNs + idleNs, T + c) instead (compute less copyNs + idleNs).

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace timesink::testing {

struct PlantedJob
{
    int ranks = 4;
    int steps = 3;
    int straggler = 2;
    std::int64_t stepNs = 54'000'000;
    std::int64_t computeNs = 30'000'000;
    std::int64_t stragglerComputeNs = 50'000'000;
    std::int64_t tailNs = 2'000'000;
    std::int64_t rankOffsetNs = 3'000'000'000; // rank r's clock runs r·3 s ahead …
    std::int64_t driftNs = 7'000;              // … plus k·r·7 µs in step k
    int fillerKernels = 0;                     // per step
    std::int64_t copyNs = 0;                   // a memcpy at the start of every step …
    std::int64_t idleNs = 0;                   // … then this much device idle before the compute kernel
};

/// Writes rank-0.json … rank-(N−1).json into `dir` (created); returns the paths. Deterministic.
std::vector<std::filesystem::path> writePlantedJob(const std::filesystem::path& dir, const PlantedJob& job);

} // namespace timesink::testing
