// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/intervals.h"

#include <cstdint>

namespace timesink::analysis {

/// A step's activity is exact while each of its lists holds at most this many pieces; beyond, its resolution is
/// the step's duration divided by this (at least 1 ns).
inline constexpr model::TimeNs kStepActivityDivisions = 2048;

/// When, inside one step window, the device computed, copied and sat idle: what the job's rank lanes draw
/// (analysis/job/job.h stepLanes). Times are relative to the window's start; every list is canonical and lies in
/// [0, window length). Communication is not here, apart from its measured split below: a step's collectives carry
/// it (CommunicationProfile).
/// * compute: device compute that is not communication (kernels, device fallback tasks, uncategorised device
///   tasks: DeviceActivity::compute);
/// * copy: copies and memsets that no compute overlaps (DeviceActivity::copy − compute);
/// * idle: the window less device busy time (DeviceActivity::busy), the same busy time the breakdown and the
///   idle-based passes use.
/// A step carries a picture, not every kernel. While each list holds at most kStepActivityDivisions pieces they
/// are exact (`resolutionNs` 1): compute adds up to the step's device compute, idle to its device idle time.
/// Beyond that, `resolutionNs` is the window length / kStepActivityDivisions: each list has its gaps shorter than
/// that filled (closeGaps), and idle is the window less the busy time with those gaps filled, so each list has at
/// most kStepActivityDivisions + 1 pieces. Either way the three lists never overlap.
/// Example: window [100, 2148) (resolution 1 ns), a kernel [100, 140), a copy [130, 160) → compute {[0, 40)},
///   copy {[40, 60)}, idle {[60, 2048)}.
/// Where the rank measured how its exposed communication split (wait tasks or communication.json: HCCL), the step
/// also carries that split, so a job's lanes draw the same waiting and idle the rank's own analysis counts
/// (CommunicationProfile::wait and ::idle inside the window): `communicationSplit` true and
/// * communicationWait: exposed communication waiting for peers;
/// * communicationIdle: exposed communication idle inside the collectives (no plane task running), less the wait.
/// They count towards the same piece limit and take the same resolution as the lists above; at resolution 1 they
/// add up to the step's waiting and idle-in-collective figures (StepCommunication::waitNs, ::idleNs). Without a
/// measured split (NCCL, or a report written before the field) both are empty and `communicationSplit` false.
struct StepActivity
{
    model::TimeNs resolutionNs = 0;
    IntervalList compute;
    IntervalList copy;
    IntervalList idle;
    bool communicationSplit = false;
    IntervalList communicationWait;
    IntervalList communicationIdle;
};

} // namespace timesink::analysis
