# tl_page: the provenance highlighter page (emit stage, issue 4).
# Included by the top-level CMakeLists.txt after tl_base, tl_embed and
# tl_unit_test exist. The page's own assets are embedded here and compiled
# into tl_page itself (not tlcore), so tl_page links on its own; the shared
# highlight.js resources are compiled in too (an archive member is only
# linked where its symbol is still undefined, so tlcore's copy never clashes).

# The page script is one module per concern (assets/page/), joined in this
# order into the one script the page inlines (its CSP hash covers the whole).
set(TL_PAGE_MODULES data selection panels search profile main)
set(TL_PAGE_MODULE_FILES "")
foreach(m ${TL_PAGE_MODULES})
  list(APPEND TL_PAGE_MODULE_FILES "${CMAKE_SOURCE_DIR}/assets/page/${m}.js")
endforeach()
set(TL_PAGE_JS "${CMAKE_BINARY_DIR}/assets/provenance.js")
string(REPLACE ";" "|" TL_PAGE_MODULE_ARG "${TL_PAGE_MODULE_FILES}")
# boot.js decides when the modules run (after the document is parsed).
set(TL_PAGE_BOOT "${CMAKE_SOURCE_DIR}/assets/page/boot.js")
add_custom_command(OUTPUT "${TL_PAGE_JS}"
  COMMAND ${CMAKE_COMMAND} -E make_directory "${CMAKE_BINARY_DIR}/assets"
  COMMAND ${CMAKE_COMMAND} "-DMODULES=${TL_PAGE_MODULE_ARG}"
          "-DBOOT=${TL_PAGE_BOOT}"
          -DOUTPUT=${TL_PAGE_JS} -P "${CMAKE_SOURCE_DIR}/assets/concat.cmake"
  DEPENDS ${TL_PAGE_MODULE_FILES} "${TL_PAGE_BOOT}"
          "${CMAKE_SOURCE_DIR}/assets/concat.cmake"
  COMMENT "Joining the page script's modules" VERBATIM)

set(TL_PAGE_EMBED "")
tl_embed(TL_PAGE_EMBED prov_js "${TL_PAGE_JS}")
tl_embed(TL_PAGE_EMBED prov_first_css "${CMAKE_SOURCE_DIR}/assets/first-paint.css")
tl_embed(TL_PAGE_EMBED prov_css "${CMAKE_SOURCE_DIR}/assets/provenance.css")

add_library(tl_page STATIC src/emit/provpage.c src/emit/provpage_paint.c ${TL_PAGE_EMBED}
  "${CMAKE_BINARY_DIR}/embed/hljs_js.c"
  "${CMAKE_BINARY_DIR}/embed/hljs_light_css.c"
  "${CMAKE_BINARY_DIR}/embed/hljs_dark_css.c")
target_include_directories(tl_page PUBLIC src)
target_link_libraries(tl_page PUBLIC tl_base PkgConfig::CJSON
  PRIVATE PkgConfig::LIBMD PkgConfig::ZLIB)
tl_warnings(tl_page)

if(BUILD_TESTING)
  tl_unit_test(provpage_test tests/page/provpage_test.c tl_page)
  target_link_libraries(provpage_test PRIVATE PkgConfig::ZLIB)

  # make_page: builds a page from a view JSON whose artifact paths are
  # relative to the JSON's folder (the tl_out layout); used by the browser
  # tests and the benchmark.
  add_executable(tl_make_page tests/page/make_page.c)
  target_link_libraries(tl_make_page PRIVATE tl_page)
  tl_warnings(tl_make_page)

  # Browser tests: build the pages of tests/page/cases and drive them in
  # headless Chromium (exit 77 = skipped when chromium or node is missing).
  find_program(TL_NODE node)
  if(TL_NODE)
    add_test(NAME page_browser
      COMMAND ${TL_NODE} ${CMAKE_SOURCE_DIR}/tests/browser/page_test.mjs
              --make-page $<TARGET_FILE:tl_make_page>
              --cases ${CMAKE_SOURCE_DIR}/tests/page/cases
              --out ${CMAKE_BINARY_DIR}/page-test)
    set_tests_properties(page_browser PROPERTIES SKIP_RETURN_CODE 77
      TIMEOUT 300)
  endif()
endif()
