# cmake/engine.cmake: the analyze and join stages (included by CMakeLists.txt).
#   tl_ts_query  src/analyze/ts_query.c: compile embedded .scm queries, run them, read
#                captures by name; src/analyze/ts_chunk.c: parse long texts in chunks
#                (its scanners in src/analyze/ts_chunk_cpp.c and ts_chunk_py.c), src/analyze/ts_heads.c:
#                C++ without its function bodies; all also used by
#                tl_engine_cpp
#   tl_engine    FX graph and Python output code analyzers, the cache of their
#                results by text, provenance join,
#                the recompile diffs (src/diff/)
# The C++ analyzer lives in cmake/engine_cpp.cmake (tl_engine_cpp); when that
# target exists, tl_engine links it and provenance.c gets HAVE_CPPCODE.

add_library(tl_ts_query STATIC src/analyze/ts_query.c src/analyze/ts_chunk.c src/analyze/ts_chunk_cpp.c
  src/analyze/ts_chunk_py.c
  src/analyze/ts_heads.c
  src/analyze/analysis.c)
target_link_libraries(tl_ts_query PUBLIC tl_base tl_grammars
  PkgConfig::TREE_SITTER)
tl_warnings(tl_ts_query)

include(${CMAKE_SOURCE_DIR}/cmake/engine_cpp.cmake OPTIONAL)

# One resource per query file, compiled into tl_engine itself.
set(TL_ENGINE_QUERIES pycode_triton)
set(TL_ENGINE_QUERY_SOURCES "")
foreach(q ${TL_ENGINE_QUERIES})
  tl_embed(TL_ENGINE_QUERY_SOURCES query_${q}
           "${CMAKE_SOURCE_DIR}/grammars/queries/${q}.scm")
endforeach()

add_library(tl_engine STATIC
  src/analyze/analysis_cache.c
  src/analyze/fx_graph.c
  src/analyze/pycode.c
  src/analyze/pycode_resolve.c
  src/join/provenance.c
  src/join/provenance_join.c
  src/diff/fx_diff.c
  src/diff/guards.c
  src/diff/recompile_reasons.c
  src/diff/recompiles.c
  src/diff/compile_files.c
  src/diff/compile_kernels.c
  src/diff/kernel_diff.c
  src/diff/code_rest.c
  src/diff/recompile_parts.c
  src/diff/shape_words.c
  src/diff/run_diff.c
  ${TL_ENGINE_QUERY_SOURCES})
target_link_libraries(tl_engine PUBLIC tl_ts_query tl_base tl_grammars
  PkgConfig::TREE_SITTER PkgConfig::CJSON Threads::Threads)
if(TARGET tl_engine_cpp)
  target_link_libraries(tl_engine PUBLIC tl_engine_cpp)
  target_compile_definitions(tl_engine PRIVATE HAVE_CPPCODE)
endif()
tl_warnings(tl_engine)

# Unit tests: corpus case files per analyzer, the join on small inputs, and
# the join on the five provenance fixtures against reviewed expected JSON.
tl_unit_test(engine_corpus tests/engine/test_corpus.c tl_engine)
tl_unit_test(engine_provenance tests/engine/test_provenance.c tl_engine)
# Chunked parsing (src/analyze/ts_chunk.c): the Python scanner, and pycode.c in tiny
# chunks against the whole text on the corpus and the fixtures' output code.
tl_unit_test(engine_chunks tests/engine/test_chunks.c tl_engine)
# The recompile diffs' readers (src/diff/): reasons, guards, graphs.
tl_unit_test(diff_test tests/diff/diff_test.c tl_engine)
# The cache of analyses by their texts (src/analyze/analysis_cache.c): hits,
# misses, eviction at the bound, hash collisions, the shared folder.
tl_unit_test(engine_analysis_cache tests/engine/test_analysis_cache.c tl_engine)
if(BUILD_TESTING AND TARGET tl_engine_cpp)
  # The cpp_wrapper cases need the C++ analyzer.
  foreach(t engine_provenance engine_corpus engine_chunks diff_test)
    target_compile_definitions(${t} PRIVATE HAVE_CPPCODE)
  endforeach()
endif()
