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
import { basename, dirname, resolve } from 'node:path';
import { checkContract, launch, readView, results } from './lib.mjs';

const args = process.argv.slice(2);
let out = null;
const pairs = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--out') out = args[++i];
  else pairs.push(args[i]);
}
if (!pairs.length || pairs.length % 2) {
  console.error('usage: check_pages.mjs [--out DIR] PAGE.html VIEW.json [PAGE VIEW ...]');
  process.exit(2);
}
const browser = await launch();
try {
  for (let i = 0; i < pairs.length; i += 2) {
    // The output folder's name too: every tl_out has provenance_tracking_-_0_0_0.
    const name = basename(dirname(resolve(pairs[i]))) + '-' + basename(pairs[i], '.html');
    await checkContract(browser, name, pairs[i], readView(pairs[i + 1]), out);
  }
} finally {
  await browser.close();
}
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed ? 1 : 0);
