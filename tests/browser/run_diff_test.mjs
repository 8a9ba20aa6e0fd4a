// run_diff_test.mjs: `tlparse diff` on the two recordings of one model
// before and after a change (examples/rec-change-before, -after), driven
// in headless Chromium as a person would: the comparison page renders
// without a script or console error and says what changed; a click on a
// pair's "what changed" opens its page; a click on the line number of a
// changed post-grad node of run B opens B's provenance page with that node
// selected (the line read from the view's JSON, not from the page).
//
//   node run_diff_test.mjs --tlparse BUILD/tlparse --work DIR
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { check, eq, launch, results } from './lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const arg = (name) => args[args.indexOf(name) + 1];
const tlparse = resolve(arg('--tlparse'));
const work = resolve(arg('--work'));
const examples = join(here, '..', '..', 'examples');

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const out = join(work, 'diff');
execFileSync(tlparse, ['diff', join(examples, 'rec-change-before', 'trace.log'),
  join(examples, 'rec-change-after', 'trace.log'), '-i', '-o', out, '--no-browser'],
{ env: { ...process.env, CI: '1' }, stdio: ['ignore', 'ignore', 'inherit'] });
const diff = JSON.parse(readFileSync(join(out, 'diff.json'), 'utf8'));

const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
const page = await context.newPage();
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });

// The comparison.
await page.goto(pathToFileURL(join(out, 'index.html')).href);
const summary = await page.locator('p.diff-summary').innerText();
const s = diff.summary;
check('index: the summary counts are diff.json\'s',
  summary.includes(`${s.compiles_matched} compiles matched, ${s.compiles_changed} of them changed`)
  && summary.includes(`${s.graph_breaks_moved} moved`), summary);
eq('index: one moved graph break, as a person reads it',
  await page.locator('li.break.moved').allInnerTexts(),
  ['Graph break moved from change_model.py:29 to change_model.py:33: '
    + diff.frames.find((f) => f.function === 'forward').graph_breaks[0].reason]);
eq('index: the functions only one run compiled',
  (await page.locator('li.frame.only-b > b').allInnerTexts()).length, s.frames_only_b);

// A click on the first pair's "what changed".
const forward = diff.frames.find((f) => f.function === 'forward');
const pair = forward.pairs[0];
await Promise.all([page.waitForURL(/compile_-_0_0_vs_-_0_0\.html$/),
  page.locator('a.pair').first().click()]);
const pairJson = JSON.parse(readFileSync(join(out, pair.diff), 'utf8'));
check('pair page: its title names both compiles',
  (await page.locator('h1').innerText()).includes(`${pair.a} in A vs ${pair.b} in B`));
eq('pair page: the kernels table lists the added kernels',
  await page.locator('xpath=//h2[@id="kernels"]/following-sibling::table[1]')
    .locator('tr.added td:nth-child(3) code').allInnerTexts(),
  pairJson.kernels.kernels.filter((k) => k.change === 'added').map((k) => k.after.name));

// The changed post-grad nodes of B whose line the view links: from the JSON.
const table = page.locator('xpath=//h2[text()="Post-grad graph"]/following-sibling::table[1]');
const viewPage = (await table.locator('td:nth-child(3) a.num').first().getAttribute('href'))
  .split('#')[0];
check('pair page: B\'s lines link B\'s provenance page', viewPage.startsWith('b/'), viewPage);
const view = JSON.parse(readFileSync(join(out, viewPage.replace(/\.html$/, '.json')), 'utf8'));
const linked = new Set(Object.values(view.nodes.post));
const rows = pairJson.graphs.post_grad.nodes.filter((r) => r.change !== 'same'
  && r.after && linked.has(r.after.line));
check('pair page: some changed post-grad node of B has a linked line', rows.length > 0);
const target = rows[rows.length - 1].after;
const link = table.locator(`tr:not(.same) td:nth-child(3) a.num[href$="#post=${target.line}"]`)
  .first();
await Promise.all([page.waitForURL(/provenance_tracking_.*#post=/), link.click()]);
await page.waitForFunction(() => typeof (window.tlprov || {}).selected === 'function',
  null, { timeout: 10000 });
const selected = await page.evaluate(() => window.tlprov.selected());
eq('provenance page: the clicked node is selected',
  [selected.panel, selected.lines.includes(target.line)], ['post', true]);
eq('no script or console errors on the three pages', errors, []);

await browser.close();
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed ? 1 : 0);
