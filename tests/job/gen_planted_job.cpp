// SPDX-License-Identifier: MIT
// Writes the planted job of tests/job/plantedjob.h for the job bench:
//   gen_planted_job DIR RANKS FILLER_KERNELS_PER_STEP [COPY_US IDLE_US [STEP_US STRAGGLER STRAGGLER_COMPUTE_US]]
// (COPY_US / IDLE_US: a copy and an idle gap at the start of every step, PlantedJob::copyNs / idleNs; the last three
// give a second job to compare with: PlantedJob::stepNs, straggler, stragglerComputeNs.)
#include "plantedjob.h"

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv)
{
    if (argc != 4 && argc != 6 && argc != 9) {
        std::fprintf(stderr,
                     "usage: %s DIR RANKS FILLER_KERNELS_PER_STEP [COPY_US IDLE_US [STEP_US STRAGGLER "
                     "STRAGGLER_COMPUTE_US]]\n",
                     argv[0]);
        return 1;
    }
    timesink::testing::PlantedJob job;
    job.ranks = std::atoi(argv[2]);
    job.straggler = job.ranks / 2;
    job.fillerKernels = std::atoi(argv[3]);
    if (argc >= 6) {
        job.copyNs = std::atoll(argv[4]) * 1000;
        job.idleNs = std::atoll(argv[5]) * 1000;
    }
    if (argc == 9) {
        job.stepNs = std::atoll(argv[6]) * 1000;
        job.straggler = std::atoi(argv[7]);
        job.stragglerComputeNs = std::atoll(argv[8]) * 1000;
    }
    if (job.ranks < 1 || job.straggler < 0 || job.straggler >= job.ranks
        || job.stragglerComputeNs + job.tailNs > job.stepNs || job.fillerKernels < 0 || job.copyNs < 0 || job.idleNs < 0
        || job.copyNs + job.idleNs >= job.computeNs) {
        std::fprintf(stderr,
                     "RANKS must be at least 1, STRAGGLER a rank, the straggler's compute and tail within a step, "
                     "COPY_US + IDLE_US below the compute time\n");
        return 1;
    }
    timesink::testing::writePlantedJob(argv[1], job);
    return 0;
}
