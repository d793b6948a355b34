# SPDX-License-Identifier: MIT
# Timeline paint time over a 5 M-slice trace built with TraceBuilder (GUI builds only); included from
# tests/bench/CMakeLists.txt. Run from an optimised build: bench_timeline [slices] [repeats].
if(TIMESINK_BUILD_GUI)
    timesink_add_test(bench_timeline SOURCES bench_timeline.cpp LIBS timesink_widgets LABELS bench GUI TIMEOUT 900)
endif()
