# SPDX-License-Identifier: MIT
# One helper for libraries, one for tests, so flags stay uniform across targets.

function(timesink_set_warnings target)
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
    if(TIMESINK_WERROR)
        target_compile_options(${target} PRIVATE -Werror)
    endif()
endfunction()

# timesink_add_library(NAME SOURCES ... [QT])
function(timesink_add_library name)
    cmake_parse_arguments(ARG "QT" "" "SOURCES" ${ARGN})
    add_library(${name} STATIC ${ARG_SOURCES})
    target_compile_features(${name} PUBLIC cxx_std_20)
    target_include_directories(${name} PUBLIC "${PROJECT_SOURCE_DIR}")
    timesink_set_warnings(${name})
    if(ARG_QT)
        set_target_properties(${name} PROPERTIES AUTOMOC ON)
        target_compile_definitions(${name} PRIVATE QT_NO_CAST_FROM_ASCII QT_NO_CAST_TO_ASCII QT_USE_QSTRINGBUILDER
                                                   QT_NO_FOREACH)
    endif()
endfunction()

# timesink_add_test(NAME SOURCES ... LIBS ... LABELS ... [GUI])
# Every test is a Qt Test executable registered with CTest; GUI tests run on the offscreen platform.
function(timesink_add_test name)
    cmake_parse_arguments(ARG "GUI" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
    add_executable(${name} ${ARG_SOURCES})
    set_target_properties(${name} PROPERTIES AUTOMOC ON)
    target_link_libraries(${name} PRIVATE Qt6::Test ${ARG_LIBS})
    target_compile_definitions(${name} PRIVATE TIMESINK_FIXTURES_DIR="${TIMESINK_FIXTURES_DIR}"
                                               TIMESINK_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    timesink_set_warnings(${name})
    # The product's code is what the ci preset optimises and tests; a test's own code (assertions, fixtures, expected
    # tables) is not worth optimising: -O0 compiles it in ~40 % less time, and .ci/run has a budget. A benchmark's own
    # code is measured, so it keeps the preset's optimisation.
    if(NOT "bench" IN_LIST ARG_LABELS)
        target_compile_options(${name} PRIVATE $<$<CONFIG:RelWithDebInfo>:-O0>)
        # The Qt, standard and JSON headers, parsed once for all tests (timesink_add_test_pch); a benchmark's -O2
        # would not match them.
        if(TARGET timesink_testpch)
            target_precompile_headers(${name} REUSE_FROM timesink_testpch)
            # AUTOMOC's mocs_compilation.cpp is (nearly) empty: loading the header would cost it more than it saves.
            set_source_files_properties("${CMAKE_CURRENT_BINARY_DIR}/${name}_autogen/mocs_compilation.cpp"
                                        PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
        endif()
    endif()
    add_test(NAME ${name} COMMAND ${name})
    if(NOT ARG_TIMEOUT)
        set(ARG_TIMEOUT 300)
    endif()
    set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT})
    timesink_isolate_test(${name})
    # Qt Test's own watchdog stops a test function after 300 s whatever ctest allows: the two agree, so that a slow
    # machine (the sanitizer suite on two busy cores) meets ctest's TIMEOUT, not a "fatal error" from Qt at 300 s.
    math(EXPR _qtest_ms "${ARG_TIMEOUT} * 1000")
    set_property(TEST ${name} APPEND PROPERTY ENVIRONMENT "QTEST_FUNCTION_TIMEOUT=${_qtest_ms}")
    if(ARG_GUI)
        set_tests_properties(${name} PROPERTIES ENVIRONMENT_MODIFICATION "QT_QPA_PLATFORM=set:offscreen")
    endif()
    timesink_test_cost(${name})
endfunction()

# timesink_add_test_pch(): the precompiled header that every test but the benchmarks reuses (TIMESINK_TEST_PCH):
# QtCore as <QTest> includes it, the standard library and nlohmann/json, about 2 s of each test's 5 s of compile
# time at -O0, parsed once instead of ~85 times per build. Only headers from outside the project, so that editing
# the project never rebuilds it. GCC uses a precompiled header only where the macros defined when it was made are
# defined alike (CMake adds -Winvalid-pch, an error under -Werror): its target therefore defines only what every
# test defines (Qt6::Core's; not Qt6::Test's QT_TESTCASE_BUILDDIR, which differs per folder) and compiles like a
# test (-O0 in RelWithDebInfo). The header is force-included first, before the test's own includes, which then
# add nothing: what a test sees is what it included, plus declarations it did not ask for. ccache caches these
# compilations only with `sloppiness = pch_defines,time_macros` (docs/HACKING.md).
function(timesink_add_test_pch)
    if(NOT TIMESINK_TEST_PCH)
        return()
    endif()
    set(_source "${CMAKE_CURRENT_BINARY_DIR}/timesink_testpch.cpp")
    file(CONFIGURE OUTPUT "${_source}" CONTENT "// The precompiled header's own translation unit (timesink_add_test_pch).\n")
    add_library(timesink_testpch OBJECT "${_source}")
    target_link_libraries(timesink_testpch PRIVATE Qt6::Core nlohmann_json::nlohmann_json)
    timesink_set_warnings(timesink_testpch)
    target_compile_options(timesink_testpch PRIVATE $<$<CONFIG:RelWithDebInfo>:-O0>)
    target_precompile_headers(timesink_testpch PRIVATE
        # What <QTest> includes from QtCore (qtest.h and qtestcase.h themselves test QT_TESTCASE_BUILDDIR and
        # QT_WIDGETS_LIB, which differ between tests), and what most tests include beside it.
        <QAbstractItemModel> <QBitArray> <QByteArray> <QCborArray> <QCborMap> <QCborValue> <QCoreApplication>
        <QDateTime> <QDir> <QFile> <QMetaObject> <QMetaType> <QObject> <QPoint> <QProcess> <QRect>
        <QSharedPointer> <QSize> <QString> <QStringList> <QTemporaryDir> <QThread> <QUrl> <QUuid> <QVariant>
        <algorithm> <cstdint> <cstring> <filesystem> <fstream> <memory> <sstream> <string> <vector>
        <nlohmann/json.hpp>)
endfunction()

# timesink_isolate_test(NAME): the test (and every CLI or GUI it starts) gets a cache, config and data home of its
# own in the build tree, never the user's (~/.cache/timesink holds the snapshot cache, ~/.config the GUI's
# settings). Call it in the directory that adds the test. Tests that need an empty or a populated cache make
# their own temporary one on top of this.
function(timesink_isolate_test name)
    set(_home "${CMAKE_BINARY_DIR}/test-home/${name}")
    set_tests_properties(${name} PROPERTIES ENVIRONMENT
                         "XDG_CACHE_HOME=${_home}/cache;XDG_CONFIG_HOME=${_home}/config;XDG_DATA_HOME=${_home}/data")
endfunction()

# timesink_test_cost(NAME): the test's COST from TIMESINK_TEST_COSTS (NAME=SECONDS items, tests/CMakeLists.txt), so
# that ctest starts the long tests first. Call it in the directory that adds the test.
function(timesink_test_cost name)
    foreach(item IN LISTS TIMESINK_TEST_COSTS)
        if(item MATCHES "^${name}=([0-9]+)$")
            set_tests_properties(${name} PROPERTIES COST ${CMAKE_MATCH_1})
        endif()
    endforeach()
endfunction()
