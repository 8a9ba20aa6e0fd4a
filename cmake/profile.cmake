# cmake/profile.cmake: "where the time goes" (issue 16), included by
# CMakeLists.txt like the other areas.
#   tl_profile  src/profile/profile_reader.c: torch.profiler Chrome traces (yajl,
#               zlib) -> per-graph kernel time; src/profile/profile_join.c: that
#               summary + one provenance view JSON -> the view's "profile"
#               (src/profile/profile_match.c: which graph, which call);
#               src/profile/profile_verdicts.c: its verdict lines and the
#               index's section; src/profile/profile_view.c: a view's phase
#               and graph key
# yajl and zlib are found by CMakeLists.txt (the core uses yajl too).

add_library(tl_profile STATIC src/profile/profile_reader.c src/profile/profile_events.c
  src/profile/profile_map.c src/profile/profile_join.c src/profile/profile_match.c
  src/profile/profile_verdicts.c src/profile/profile_view.c)
target_link_libraries(tl_profile PUBLIC tl_base PkgConfig::CJSON
  PRIVATE PkgConfig::YAJL PkgConfig::ZLIB m)
tl_warnings(tl_profile)

if(BUILD_TESTING)
  tl_unit_test(profile_test tests/profile/profile_test.c tl_profile)
  # The page with a profile in headless Chromium, the real CPU profile and the
  # generated GPU-shaped and hostile profiles end to end.
  find_package(Python3 COMPONENTS Interpreter)
  if(Python3_FOUND)
    add_test(NAME profile_e2e
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/profile/profile_e2e.py
              --tlparse $<TARGET_FILE:tlparse>
              --work ${CMAKE_BINARY_DIR}/profile-test)
    set_tests_properties(profile_e2e PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
      FIXTURES_SETUP profile_report)
    find_program(TL_NODE node)
    if(TL_NODE)
      # The report profile_e2e wrote from the real CPU profile, in Chromium.
      add_test(NAME profile_browser
        COMMAND ${TL_NODE} ${CMAKE_SOURCE_DIR}/tests/browser/profile_page_test.mjs
                --out ${CMAKE_BINARY_DIR}/profile-test/cpu/out)
      set_tests_properties(profile_browser PROPERTIES SKIP_RETURN_CODE 77
        TIMEOUT 300 FIXTURES_REQUIRED profile_report)
    endif()
  endif()
endif()
