# Joins the page script's modules into one script: MODULES become the body
# of the function `start` (so they share its scope and nothing leaks into
# window except what main.js exports), and BOOT, after it in the same outer
# function, decides when `start` runs. Run as:
#   cmake -DOUTPUT=.. -DMODULES="a.js|b.js" -DBOOT=boot.js -P concat.cmake
# The order of MODULES is the order of execution (src/page.cmake lists it).
set(text "/* provenance.js: behaviour of the provenance highlighter page (issue 4),
 * joined by the build (assets/concat.cmake) from assets/page/*.js:
 * data, selection, panels, search, profile, main, and boot. Reads the view JSON and
 * artifact texts that src/provpage.c embeds, builds the panels (pre, post,
 * code and the AOT kernel-code tab), and links them through the view's line
 * maps. Safety: trace text reaches the DOM only through textContent or
 * highlight.js output of that text (escaped by it). Tests drive it through
 * window.tlprov (select, clear, reveal, highlighted, profile).
 */
(function () {
  'use strict';
  function start() {
")
string(REPLACE "|" ";" MODULES "${MODULES}")
foreach(module IN LISTS MODULES)
  get_filename_component(name "${module}" NAME)
  file(READ "${module}" body)
  string(APPEND text "\n  /* ==== ${name} ==== */\n" "${body}")
endforeach()
file(READ "${BOOT}" boot)
get_filename_component(boot_name "${BOOT}" NAME)
string(APPEND text "  }\n\n  /* ==== ${boot_name} ==== */\n" "${boot}" "})();\n")
file(WRITE "${OUTPUT}.tmp" "${text}")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
