# tl_engine_cpp: the AOTInductor C++ analysis (src/analyze/cppcode.c, issue 3).
# Included from cmake/engine.cmake after tl_base, tl_grammars, tl_embed,
# tl_unit_test and tl_ts_query exist. Its one query (grammars/queries/
# cpp_triton.scm, over the Python of launcher comments; the C++ itself is read
# by tree walks, src/analyze/cppcode.c) is embedded here and compiled into
# tl_engine_cpp itself, not tlcore, so the library and its tests link on
# their own.

set(TL_CPP_QUERIES cpp_triton)
set(TL_ENGINE_CPP_EMBED "")
foreach(query ${TL_CPP_QUERIES})
  tl_embed(TL_ENGINE_CPP_EMBED query_${query}
           "${CMAKE_SOURCE_DIR}/grammars/queries/${query}.scm")
endforeach()

add_library(tl_engine_cpp STATIC src/analyze/cppcode.c
  src/analyze/cppcode_handles.c src/analyze/cppcode_kernels.c
  src/analyze/cppcode_launchers.c src/analyze/cppcode_skips.c
  ${TL_ENGINE_CPP_EMBED})
target_include_directories(tl_engine_cpp PUBLIC src)
target_link_libraries(tl_engine_cpp PUBLIC tl_base tl_ts_query tl_grammars
  PkgConfig::TREE_SITTER)
tl_warnings(tl_engine_cpp)

if(BUILD_TESTING)
  # Corpus cases (tests/engine_cpp/cases/*.txt), and the three real AOT
  # wrappers of the shared fixtures (skipped with 77 where absent).
  tl_unit_test(cppcode_corpus tests/engine_cpp/corpus_test.c tl_engine_cpp)
  tl_unit_test(cppcode_fixtures tests/engine_cpp/fixtures_test.c
    tl_engine_cpp)
  # Chunked parsing: the C++ scanner, and both analyses in tiny chunks
  # against the whole text on the cases and the fixtures' wrappers.
  tl_unit_test(cppcode_chunks tests/engine_cpp/chunks_test.c tl_engine_cpp)
endif()
