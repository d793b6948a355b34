// SPDX-License-Identifier: MIT
// Writes the planted job of tests/job/plantedjob.h for the job bench:
//   gen_planted_job DIR RANKS FILLER_KERNELS_PER_STEP
#include "plantedjob.h"

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s DIR RANKS FILLER_KERNELS_PER_STEP\n", argv[0]);
        return 1;
    }
    timesink::testing::PlantedJob job;
    job.ranks = std::atoi(argv[2]);
    job.straggler = job.ranks / 2;
    job.fillerKernels = std::atoi(argv[3]);
    if (job.ranks < 1 || job.fillerKernels < 0) {
        std::fprintf(stderr, "RANKS must be at least 1\n");
        return 1;
    }
    timesink::testing::writePlantedJob(argv[1], job);
    return 0;
}
