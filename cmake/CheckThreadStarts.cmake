# SPDX-License-Identifier: MIT
# cmake -DROOT=<source root> -DALLOWED="model/workers.h|model/workers.cpp|..." -P CheckThreadStarts.cmake
# Fails when a source file of the product (not tests/, fuzz/ or build trees) starts a thread any other way than
# through model/workers.h (WorkerGroup, parallelFor) or the GUI's app/gui/backgroundtask.h: those two join, and hand
# a worker's exception (std::bad_alloc above all) to the caller's thread, where it becomes an error message instead
# of std::terminate. ALLOWED lists the files that may use the primitives.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "|" ";" ALLOWED "${ALLOWED}")
set(_patterns "std::thread" "std::jthread" "std::async" "QtConcurrent::" "pthread_create" "QThread::create"
              "QThreadPool" "std::launch::")
set(_bad "")
set(_count 0)
foreach(_dir model parsers analysis report exporters widgets app)
    file(GLOB_RECURSE _files "${ROOT}/${_dir}/*.h" "${ROOT}/${_dir}/*.cpp" "${ROOT}/${_dir}/*.h.in")
    foreach(_file ${_files})
        file(RELATIVE_PATH _rel "${ROOT}" "${_file}")
        if(_rel IN_LIST ALLOWED)
            continue()
        endif()
        math(EXPR _count "${_count} + 1")
        file(READ "${_file}" _text)
        foreach(_pattern ${_patterns})
            string(FIND "${_text}" "${_pattern}" _at)
            if(NOT _at EQUAL -1)
                string(APPEND _bad "  ${_rel}: ${_pattern}\n")
            endif()
        endforeach()
    endforeach()
endforeach()
if(_bad)
    message(FATAL_ERROR "threads started outside model/workers.h and app/gui/backgroundtask.h:\n${_bad}")
endif()
message(STATUS "thread starts: ${_count} files checked")
