// check_pages.mjs: the generic browser checks for provenance pages written by
// `tlparse -i` (or tl_make_page), one line per page in CMake:
//
//   node tests/browser/check_pages.mjs --out SHOTS_DIR \
//        tl_out/provenance_tracking_X.html tl_out/provenance_tracking_X.json ...
//
// For each page: clicks every kernel call site and compares the highlight
// with the one derived from the view JSON (and the DOM classes), follows
// deep links, searches, goes to definition and back, clears with Esc, and
// checks that nothing ran, no dialog opened and no request left the page.
// Screenshots (light and dark) go to SHOTS_DIR as <output folder>-<page>-light.png
// and -dark.png. Exit 77 = chromium or playwright-core missing.
import { checkContract, checkPagePairs } from './lib.mjs';

await checkPagePairs('check_pages.mjs', checkContract);
