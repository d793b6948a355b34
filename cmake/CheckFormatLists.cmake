# SPDX-License-Identifier: MIT
# cmake -DROOT=<source root> -DDIRS="app|widgets|..." -P CheckFormatLists.cmake
# Fails when a source file under DIRS spells out a list of trace formats: a file-name glob ("*.json", "*.tsnap") or a
# profiler folder pattern ("PROF_*", "*_ascend_pt") in a string literal. Formats are listed once, by the importers'
# describe() (parsers/common/importer.h); the CLI's usage, the GUI's dialogs and the job's folder picking read
# parsers::supportedFormats() and its helpers instead.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "|" ";" DIRS "${DIRS}")
set(_bad "")
set(_count 0)
foreach(_dir ${DIRS})
    file(GLOB_RECURSE _files "${ROOT}/${_dir}/*.h" "${ROOT}/${_dir}/*.cpp")
    foreach(_file ${_files})
        math(EXPR _count "${_count} + 1")
        file(STRINGS "${_file}" _hits REGEX "\"\\*\\.[A-Za-z]|\"PROF_\\*|\"\\*_ascend_pt")
        foreach(_hit ${_hits})
            file(RELATIVE_PATH _rel "${ROOT}" "${_file}")
            string(STRIP "${_hit}" _hit)
            string(APPEND _bad "  ${_rel}: ${_hit}\n")
        endforeach()
    endforeach()
endforeach()
if(_bad)
    message(FATAL_ERROR "formats listed outside the importers' descriptions:\n${_bad}")
endif()
message(STATUS "format lists: ${_count} files checked")
