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
//
// Issue 50, a DLRM-style front (none by default, every number above unchanged): with allToAllNs > 0 each step first
// runs an embedding kernel, then an all-to-all made of ncclDevKernel_SendRecv kernels (launched by cudaLaunchKernel
// inside one record_param_comms "all_to_all" of process group "0", ranks 0..N−1); with tpSize > 1 then a
// tensor-parallel all-reduce in groups of tpSize consecutive ranks (process group "tp<g>", its ranks on the kernel's
// args, as Kineto writes them). Each part ends on every rank of its group together:
//   stream 7:  embedding [T, T + e)           e = embedNs, + allToAllLateNs on allToAllStraggler
//   stream 20: SendRecv  [T + e, T + A)       A = embedNs + allToAllLateNs + allToAllNs
//   stream 7:  TP matmul [T + A, T + A + m)   m = tpComputeNs, + tpLateNs on tpStraggler
//   stream 22: AllReduce [T + A + m, T + B)   B = A + tpComputeNs + tpLateNs + tpNs
// and the layout above follows from T + B: c counts from there, the all-reduce still ends at T + stepNs.
// So a rank of the all-to-all waits allToAllLateNs for its straggler, a rank of tpStraggler's group waits tpLateNs
// for it, and the ranks of the other tensor-parallel groups wait for nobody there.

//
// Issue 50, a pipeline (none by default, every number above unchanged): with pipelineComputeNs = F > 0 each step
// (after the DLRM-style front) runs the forward of a 4-stage-like pipeline over ranks 0 → 1 → … → N−1: stage r
// receives the activations from r − 1, computes f_r (F, + pipelineSlowNs = D on pipelineSlowStage), sends them to
// r + 1. Each send/recv is an ncclDevKernel_SendRecv on stream 23 launched inside a record_param_comms "send" or
// "recv" of process group "pp" (ranks 0..N−1) whose `Rank` is the peer's rank in the group and `Seq` the step
// number, as ProcessGroupNCCL records them. With x = pipelineTransferNs, R_0 = T, R_r = R_{r−1} + f_{r−1} + x:
//   stream 7:  stage compute [R_r, R_r + f_r)
//   stream 23: recv from r − 1 [T + r·F + (r−1)·x, R_r)         (posted when an unslowed sender would send)
//   stream 23: send to r + 1   [R_r + f_r, R_{r+1})             (always x long)
// and the layout above follows from T + N·F + (N−1)·x + D. So with D on stage s < N − 1, every stage r > s receives
// D late: its recv lasts x + D against the sender's x, it waits D, and its sender r − 1 arrived last and caused it.
// pipelineDropRecvRank's recv in step pipelineDropRecvStep is not written (a counterpart missing from the trace).
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
    std::int64_t allToAllNs = 0;               // > 0: the DLRM-style front above
    std::int64_t embedNs = 4'000'000;
    int allToAllStraggler = 1;
    std::int64_t allToAllLateNs = 6'000'000;
    int tpSize = 0; // > 1: tensor-parallel groups of this many consecutive ranks
    std::int64_t tpComputeNs = 3'000'000;
    int tpStraggler = 3;
    std::int64_t tpLateNs = 5'000'000;
    std::int64_t tpNs = 1'000'000;
    /// > 0: the tensor-parallel all-reduce says its size as Kineto does (`In msg nelems` = `Out msg nelems` = this,
    /// `dtype` Float): tpNelems × 4 bytes, for the job's bandwidth.
    std::int64_t tpNelems = 0;
    /// ≥ 0: this rank starts every step lateStartNs after the others (everything in its step moves with it) and
    /// ends it with them: its step is lateStartNs shorter, and the others wait for it in the all-reduce.
    int lateStartRank = -1;
    std::int64_t lateStartNs = 0;
    std::int64_t pipelineComputeNs = 0; // > 0: the pipeline above
    std::int64_t pipelineTransferNs = 1'000'000;
    int pipelineSlowStage = 1;
    std::int64_t pipelineSlowNs = 8'000'000;
    int pipelineDropRecvRank = -1;
    int pipelineDropRecvStep = 2;
};

/// Writes rank-0.json … rank-(N−1).json into `dir` (created); returns the paths. Deterministic.
std::vector<std::filesystem::path> writePlantedJob(const std::filesystem::path& dir, const PlantedJob& job);

} // namespace timesink::testing
