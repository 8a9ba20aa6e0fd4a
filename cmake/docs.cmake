# docs.cmake: the docs area, included by the top-level CMakeLists.txt.
#   tl_docs   the report's help (docs/help/*.md), embedded and rendered with
#             libcmark (src/emit/help.c)
#   tl_man    the man page tlparse.1, made from docs/cli.md by tl_mkman
#             (cmark's man renderer) and installed into share/man/man1
#   tests     help and man-page unit tests; the trace generator's checks
#             (tests/tracegen, Python 3 standard library)

# Help sections: embedded here and compiled into tl_docs itself (not into
# tlcore), so that tl_docs and its tests link on their own.
set(TL_HELP_SECTIONS compile-ids artifacts highlighter recompiles diagnostics)
set(TL_HELP_EMBED_SOURCES "")
foreach(section ${TL_HELP_SECTIONS})
  string(REPLACE "-" "_" res "help_${section}")
  tl_embed(TL_HELP_EMBED_SOURCES ${res}
           "${CMAKE_SOURCE_DIR}/docs/help/${section}.md")
endforeach()

add_library(tl_docs STATIC src/emit/help.c ${TL_HELP_EMBED_SOURCES})
target_include_directories(tl_docs PUBLIC src)
target_link_libraries(tl_docs PUBLIC tl_base PkgConfig::CMARK)
tl_warnings(tl_docs)

# The man page, generated at build time from docs/cli.md.
add_executable(tl_mkman src/emit/mkman.c)
target_link_libraries(tl_mkman PRIVATE PkgConfig::CMARK)
tl_warnings(tl_mkman)
set(TL_MAN_PAGE "${CMAKE_BINARY_DIR}/tlparse.1")
add_custom_command(OUTPUT "${TL_MAN_PAGE}"
  COMMAND tl_mkman "${CMAKE_SOURCE_DIR}/docs/cli.md" "${TL_MAN_PAGE}"
          "${PROJECT_VERSION}"
  DEPENDS tl_mkman "${CMAKE_SOURCE_DIR}/docs/cli.md"
  COMMENT "Generating man page tlparse.1")
add_custom_target(tl_man ALL DEPENDS "${TL_MAN_PAGE}")
install(FILES "${TL_MAN_PAGE}" DESTINATION share/man/man1)

if(BUILD_TESTING)
  tl_unit_test(help_test tests/help/test_help.c tl_docs)
  tl_unit_test(man_test tests/help/test_man.c)
  if(TARGET man_test)
    add_dependencies(man_test tl_man)
    target_compile_definitions(man_test PRIVATE
      TL_MAN_PAGE="${TL_MAN_PAGE}")
  endif()

  # The trace generator and its checker (Python 3, standard library only):
  # the checker must catch damaged logs, the generator must be
  # deterministic and its every md5 and mapping name must verify, and each
  # committed example must be exactly what its README's command writes.
  find_package(Python3 COMPONENTS Interpreter)
  if(Python3_Interpreter_FOUND)
    set(TL_TRACEGEN "${CMAKE_SOURCE_DIR}/tests/tracegen")
    add_test(NAME tracegen_checker_finds_damage
      COMMAND Python3::Interpreter "${TL_TRACEGEN}/check_trace.py"
              --self-test)
    foreach(shape jit-cuda jit-cpu aot-cuda aot-cpu combo)
      add_test(NAME tracegen_${shape}_v1_frames
        COMMAND Python3::Interpreter "${TL_TRACEGEN}/check_trace.py"
                --gen "--shape ${shape} --layers 5 --mapping-version 1 --frames 3 --stack-traces --chromium-events --seed 7")
      set(readme_path "${CMAKE_SOURCE_DIR}/examples/${shape}/README.md")
      set(cmd "")
      if(EXISTS "${readme_path}")
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                     "${readme_path}")
        file(READ "${readme_path}" readme)
        string(REGEX MATCH
               "gen_trace.py ([^`\n]*) -o examples/${shape}/trace.log"
               cmd "${readme}")
      endif()
      if(cmd)
        add_test(NAME tracegen_example_${shape}
          COMMAND Python3::Interpreter "${TL_TRACEGEN}/check_trace.py"
                  --gen "${CMAKE_MATCH_1}"
                  --expect "${CMAKE_SOURCE_DIR}/examples/${shape}/trace.log")
      endif()
    endforeach()
    add_test(NAME tracegen_scales_to_10000_layers
      COMMAND Python3::Interpreter "${TL_TRACEGEN}/check_trace.py"
              --gen "--shape aot-cuda --layers 10000 --stack-traces")
  else()
    message(STATUS "python3 not found: the trace generator tests are skipped")
  endif()
endif()
