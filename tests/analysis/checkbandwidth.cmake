# SPDX-License-Identifier: MIT
# Runs `timesink-cli analyze INPUT --format json -o OUT` (MODE kineto or ascend) or `timesink-cli job INPUT --format
# json -o OUT` (MODE job: INPUT a folder of rank-N.json.gz), then scripts/checks/collective_bandwidth.py, which
# recomputes the bandwidth from the raw files and fails on any difference.
if(MODE STREQUAL "job")
    execute_process(COMMAND "${CLI}" job "${INPUT}" --format json -o "${OUT}" RESULT_VARIABLE rc)
    file(GLOB ranks "${INPUT}/rank-*.json*")
    list(SORT ranks)
    set(args job "${OUT}" ${ranks})
else()
    execute_process(COMMAND "${CLI}" analyze "${INPUT}" --format json -o "${OUT}" RESULT_VARIABLE rc)
    set(args "${MODE}" "${INPUT}" "${OUT}")
endif()
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "timesink-cli ${MODE} ${INPUT} failed: ${rc}")
endif()
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" ${args} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "collective_bandwidth.py ${MODE} ${INPUT} disagrees with the report")
endif()
