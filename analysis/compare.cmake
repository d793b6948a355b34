# SPDX-License-Identifier: MIT
# The run comparison (analysis/compare*.cpp), included by analysis/CMakeLists.txt after timesink_analysis exists.
# The default operator-name map lives in resources/opmap/default.tsv so users can read and copy it; it is embedded
# into the library as a generated header so the CLI and the GUI work without an installed resources folder.
file(GLOB _timesink_compare_sources CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/compare*.cpp")
target_sources(timesink_analysis PRIVATE ${_timesink_compare_sources})

set(_timesink_opmap "${PROJECT_SOURCE_DIR}/resources/opmap/default.tsv")
file(READ "${_timesink_opmap}" TIMESINK_DEFAULT_OPMAP)
string(FIND "${TIMESINK_DEFAULT_OPMAP}" ")timesink_opmap\"" _timesink_opmap_clash)
if(NOT _timesink_opmap_clash EQUAL -1)
    message(FATAL_ERROR "${_timesink_opmap} must not contain the raw-string delimiter ')timesink_opmap\"'")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_timesink_opmap}")
configure_file("${CMAKE_CURRENT_LIST_DIR}/compareopmapdefault.h.in"
               "${PROJECT_BINARY_DIR}/generated/compare/analysis/compareopmapdefault.h" @ONLY)
target_include_directories(timesink_analysis PRIVATE "${PROJECT_BINARY_DIR}/generated/compare")
install(FILES "${_timesink_opmap}" DESTINATION share/timesink/opmap)
