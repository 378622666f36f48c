# Sanitized tests on every ctest run of the ordinary build.
#
# The ordinary build is optimized and has no sanitizer, as it ships. So that
# the unit and BPF tests still run under AddressSanitizer (leaks included) and
# UndefinedBehaviorSanitizer every time, without a preset nobody runs, this
# configure adds a second, nested build of the same source in
# ${CMAKE_BINARY_DIR}/sanitized (ExternalProject, built by every
# `cmake --build build`, BUILD_ALWAYS) with PL_SANITIZE=ON. PL_SANITIZE is also
# what stops the nesting: a sanitized tree never nests another.
#
# What runs from it:
#  - the unit tests, a second time: every test of the nested tree labelled
#    `unit` becomes `asan_<name>` here (labels unit and asan). The list is
#    derived after each nested build from the nested tree's own CTest files
#    (cmake/sanitized_testlist.cmake), so new unit tests come along by
#    themselves;
#  - with PL_SANITIZED_BPF_TESTS=ON, the BPF tests, only sanitized: tests/bpf registers bpf_<name> with the
#    nested test_<name> executable (PL_SANITIZED_BPF_DIR), which drives the
#    nested, sanitized sensor. The scenario and schema tests keep the ordinary
#    optimized sensor.
# Either way a sanitizer report is fatal: ASAN_OPTIONS and UBSAN_OPTIONS below
# (-fno-sanitize-recover=all in CMakeLists.txt makes UBSan fatal in code).
#
# PL_SANITIZED_TESTS=OFF turns it all off (the BPF tests then run the
# ordinary binaries, as before).

option(PL_SANITIZED_TESTS "Build build/sanitized (ASan+UBSan) and run the unit tests under it" ON)
# The BPF tests too, only sanitized (they replace the ordinary runs, except
# the tests marked ORDINARY in tests/bpf/CMakeLists.txt, each with its
# reason). The sanitized sensor takes 2.5-10x the CPU: the harness gives it
# longer deadlines and a bigger ring buffer (tests/bpf/sensor_harness.h).
option(PL_SANITIZED_BPF_TESTS "Run the BPF tests with the sanitized sensor of build/sanitized" ON)

set(PL_SANITIZED_TESTS_ACTIVE OFF)
set(PL_SANITIZED_BPF_DIR "")
set(PL_ASAN_OPTIONS "detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1")
set(PL_UBSAN_OPTIONS "halt_on_error=1:abort_on_error=1:print_stacktrace=1")
set(PL_SANITIZER_ENV "ASAN_OPTIONS=${PL_ASAN_OPTIONS}" "UBSAN_OPTIONS=${PL_UBSAN_OPTIONS}")
if(NOT PL_SANITIZED_TESTS OR PL_SANITIZE)
  return()
endif()
set(PL_SANITIZED_TESTS_ACTIVE ON)
set(PL_SANITIZED_DIR "${CMAKE_BINARY_DIR}/sanitized")
# Where tests/bpf finds the sanitized test_<name> executables: the nested tree
# mirrors this one.
if(PL_SANITIZED_BPF_TESTS)
  set(PL_SANITIZED_BPF_DIR "${PL_SANITIZED_DIR}/tests/bpf/")
endif()

# The same options as this build: every PL_* option or string in the cache
# (those other engineers add too), the compiler and the user's flags; then the
# sanitizer's own. Debug keeps the checks of FORTIFY_SOURCE out (it hides
# accesses from ASan); -O1 keeps the sanitized sensor fast enough for the BPF
# tests' exact counts while its stacks stay readable.
set(_pl_san_args)
get_cmake_property(_pl_cache_vars CACHE_VARIABLES)
foreach(v IN LISTS _pl_cache_vars)
  if(NOT v MATCHES "^PL_" OR v MATCHES "^PL_SANITIZE")
    continue()
  endif()
  get_property(_t CACHE ${v} PROPERTY TYPE)
  if(_t STREQUAL "BOOL" OR _t STREQUAL "STRING")
    string(REPLACE ";" "|" _val "${${v}}")
    list(APPEND _pl_san_args "-D${v}:${_t}=${_val}")
  endif()
endforeach()
foreach(v IN ITEMS CMAKE_C_COMPILER CMAKE_C_FLAGS CMAKE_EXE_LINKER_FLAGS CMAKE_PREFIX_PATH)
  if(DEFINED ${v} AND NOT "${${v}}" STREQUAL "")
    string(REPLACE ";" "|" _val "${${v}}")
    list(APPEND _pl_san_args "-D${v}=${_val}")
  endif()
endforeach()
list(APPEND _pl_san_args -DPL_SANITIZE=ON -DPL_TESTS=ON -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g -O1")

set(PL_SANITIZED_TESTLIST "${CMAKE_BINARY_DIR}/sanitized-tests.cmake")
include(ExternalProject)
ExternalProject_Add(pl_sanitized
  SOURCE_DIR "${PROJECT_SOURCE_DIR}"
  BINARY_DIR "${PL_SANITIZED_DIR}"
  PREFIX "${CMAKE_BINARY_DIR}/sanitized-ep"
  LIST_SEPARATOR "|"
  CMAKE_ARGS ${_pl_san_args}
  BUILD_ALWAYS TRUE
  INSTALL_COMMAND ""
  TEST_COMMAND "")
# After each nested build: its unit tests, as ctest entries of this tree.
ExternalProject_Add_Step(pl_sanitized testlist
  COMMAND "${CMAKE_COMMAND}" "-DCTEST=${CMAKE_CTEST_COMMAND}" "-DNESTED=${PL_SANITIZED_DIR}"
          "-DOUTER=${CMAKE_BINARY_DIR}" "-DOUT=${PL_SANITIZED_TESTLIST}"
          "-DASAN_OPTIONS=${PL_ASAN_OPTIONS}" "-DUBSAN_OPTIONS=${PL_UBSAN_OPTIONS}"
          -P "${PROJECT_SOURCE_DIR}/cmake/sanitized_testlist.cmake"
  DEPENDEES build
  ALWAYS TRUE
  COMMENT "Listing the sanitized unit tests")

# ctest includes this file each run: the generated list, or a failing test
# saying the nested tree was not built.
file(WRITE "${CMAKE_BINARY_DIR}/sanitized-include.cmake"
"if(EXISTS \"${PL_SANITIZED_TESTLIST}\")
  include(\"${PL_SANITIZED_TESTLIST}\")
else()
  add_test(asan_not_built /bin/sh -c \"echo '${PL_SANITIZED_DIR} is not built: run cmake --build ${CMAKE_BINARY_DIR}' >&2; exit 1\")
  set_tests_properties(asan_not_built PROPERTIES LABELS \"unit;bpf;asan\")
endif()
")
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${CMAKE_BINARY_DIR}/sanitized-include.cmake")
