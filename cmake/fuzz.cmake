# cmake/fuzz.cmake: fuzz harnesses and the hostile-input suite (issue 7).
# Included by CMakeLists.txt (area "fuzz", after engine/page/docs).
#   default            fuzz_replay_<target>: each harness of tests/fuzz/ linked
#                      with replay_main.c, under ctest, replaying the committed
#                      corpus and crash inputs (and, for the trace harnesses,
#                      the shared fixture logs when present; for export, the
#                      shared export.log).
#   TLPARSE_LIBFUZZER  fuzz_<target>: the same harnesses linked with clang's
#                      -fsanitize=fuzzer (tests/fuzz/run_all.sh sets this up).
# The hostile-trace suite (tests/hostile/) runs the real binary.

option(TLPARSE_LIBFUZZER "Build the libFuzzer harnesses (clang only)" OFF)

set(TL_FUZZ_DIR "${CMAKE_SOURCE_DIR}/tests/fuzz")
set(TL_FUZZ_TARGETS reader trace emit export multirank discovery)
if(TARGET tl_engine)
  list(APPEND TL_FUZZ_TARGETS fx pycode provenance diff)
endif()
if(TARGET tl_engine_cpp)
  list(APPEND TL_FUZZ_TARGETS cppcode)
endif()
# profile.cmake is included after this file: test the area list, not the
# target (tlcore links tl_profile once it exists).
if("profile" IN_LIST TLPARSE_AREAS)
  list(APPEND TL_FUZZ_TARGETS profile)
endif()

function(tl_fuzz_harness target exe)
  target_sources(${exe} PRIVATE "${TL_FUZZ_DIR}/work_dir.c")
  target_include_directories(${exe} PRIVATE "${TL_FUZZ_DIR}")
  target_compile_definitions(${exe} PRIVATE
    TL_FIXTURES_DIR="${TL_FIXTURES_DIR}")
  target_link_libraries(${exe} PRIVATE tlcore)
  tl_warnings(${exe})
endfunction()

if(TLPARSE_LIBFUZZER)
  foreach(t ${TL_FUZZ_TARGETS})
    add_executable(fuzz_${t} "${TL_FUZZ_DIR}/fuzz_${t}.c")
    tl_fuzz_harness(${t} fuzz_${t})
    target_link_options(fuzz_${t} PRIVATE -fsanitize=fuzzer)
  endforeach()
elseif(BUILD_TESTING)
  foreach(t ${TL_FUZZ_TARGETS})
    add_executable(fuzz_replay_${t} "${TL_FUZZ_DIR}/fuzz_${t}.c"
      "${TL_FUZZ_DIR}/replay_main.c")
    tl_fuzz_harness(${t} fuzz_replay_${t})
    set(inputs "${TL_FUZZ_DIR}/corpus/${t}" "${TL_FUZZ_DIR}/crashes/${t}")
    if(t STREQUAL "reader" OR t STREQUAL "trace")
      list(APPEND inputs "${TL_FIXTURES_DIR}")
    elseif(t STREQUAL "export")
      list(APPEND inputs "${TL_FIXTURES_DIR}/export.log")
    endif()
    add_test(NAME fuzz_replay_${t} COMMAND fuzz_replay_${t} ${inputs})
    set_tests_properties(fuzz_replay_${t} PROPERTIES TIMEOUT 600)
  endforeach()
endif()

if(BUILD_TESTING AND NOT TLPARSE_LIBFUZZER)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  find_program(TL_HOSTILE_NODE node)
  set(with_pages 0)
  if(TARGET tl_page AND TARGET tl_engine)
    set(with_pages 1)
  endif()
  add_test(NAME hostile
    COMMAND ${Python3_EXECUTABLE} "${CMAKE_SOURCE_DIR}/tests/hostile/test_hostile.py")
  set_tests_properties(hostile PROPERTIES TIMEOUT 900 ENVIRONMENT
    "TLPARSE=$<TARGET_FILE:tlparse>;TLPARSE_WITH_PAGES=${with_pages};TL_NODE=${TL_HOSTILE_NODE};TLPARSE_TSAN=$<BOOL:${TLPARSE_TSAN}>")
  # The output folder and the process: races, --overwrite, signals, inputs.
  add_test(NAME hostile_output_folder
    COMMAND ${Python3_EXECUTABLE} "${CMAKE_SOURCE_DIR}/tests/hostile/test_output_folder.py")
  # Each run of its big log writes 30,000 files: about 1 s on an idle
  # 2-core machine, up to 90 s at a load of 12 (a build and another suite
  # beside it), where the whole suite passed 600 s.
  set_tests_properties(hostile_output_folder PROPERTIES TIMEOUT 1800
    ENVIRONMENT "TLPARSE=$<TARGET_FILE:tlparse>;TLPARSE_WITH_PAGES=${with_pages};TLPARSE_SANITIZED=$<BOOL:${TLPARSE_SANITIZE}>;TLPARSE_TSAN=$<BOOL:${TLPARSE_TSAN}>")
  # Amplification: output and memory bounded by a multiple of the input.
  add_test(NAME hostile_amplification
    COMMAND ${Python3_EXECUTABLE} "${CMAKE_SOURCE_DIR}/tests/hostile/test_amplification.py")
  set_tests_properties(hostile_amplification PROPERTIES TIMEOUT 600
    ENVIRONMENT "TLPARSE=$<TARGET_FILE:tlparse>;TLPARSE_SANITIZED=$<BOOL:${TLPARSE_SANITIZE}>")
  # The new modes: -e and --all-ranks-html on hostile input, output-path
  # races and signals (20,000 guards write 85 MB of pages).
  add_test(NAME hostile_modes
    COMMAND ${Python3_EXECUTABLE} "${CMAKE_SOURCE_DIR}/tests/hostile/test_modes.py")
  set_tests_properties(hostile_modes PROPERTIES TIMEOUT 900
    ENVIRONMENT "TLPARSE=$<TARGET_FILE:tlparse>;TLPARSE_SANITIZED=$<BOOL:${TLPARSE_SANITIZE}>;TLPARSE_TSAN=$<BOOL:${TLPARSE_TSAN}>")
endif()
