# SPDX-License-Identifier: MIT
# Runs `timesink-cli analyze INPUT --format json -o OUT`, then scripts/checks/host_before_first.py, which recomputes
# each step's host activity before its first collective from the raw trace and fails on any difference.
execute_process(COMMAND "${CLI}" analyze "${INPUT}" --format json -o "${OUT}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "timesink-cli analyze ${INPUT} failed: ${rc}")
endif()
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${INPUT}" "${OUT}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "host_before_first.py ${INPUT} disagrees with the report")
endif()
