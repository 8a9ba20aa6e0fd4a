// recompile_page.mjs: a recompile page (recompile_*.html) in headless
// chromium, clicked with the mouse as a person would:
//  - the page loads without a script error or a console error, its summary
//    shows the node and kernel counts of its JSON;
//  - a click on the line number of a changed post-grad node opens the later
//    compile's provenance page with that node selected (#post=LINE), the
//    line marked and on screen;
//  - a click on a kernel's name opens the provenance page with that kernel
//    selected (#kernel=KEY): its call lines selected and on screen, its
//    post-grad nodes highlighted, as the view JSON says;
//  - on a training compile's page, a click on a kernel of the backward
//    opens the backward's provenance page with that kernel selected.
// Screenshots of each step go to SHOTS.
//
//   node tests/browser/recompile_page.mjs OUT_DIR STEM SHOTS
//
// (OUT_DIR: a `tlparse -i` output folder; STEM: "recompile_-_0_0_to_1".)
// Exit 77 = chromium or playwright-core missing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { check, eq, expectKernelPost, launch, readView, results, screenshot } from './lib.mjs';

const [outDir, stem, shots] = process.argv.slice(2);
if (!shots) {
  console.error('usage: recompile_page.mjs OUT_DIR STEM SHOTS');
  process.exit(2);
}
const diff = JSON.parse(readFileSync(join(outDir, `${stem}.json`), 'utf8'));

async function settle(page) {
  await page.evaluate(() => new Promise((done) =>
    requestAnimationFrame(() => requestAnimationFrame(() => done()))));
}

// Whether one of `lines` of `panel` is rendered, marked (selected or
// highlighted) and inside both its panel's visible area and the window.
async function markedOnScreen(page, panel, lines) {
  await settle(page);
  return page.evaluate(({ panel, lines }) => {
    const set = new Set(lines);
    for (const row of document.querySelectorAll(`.ln[data-panel="${panel}"]`)) {
      if (!set.has(Number(row.dataset.line)) || row.offsetParent === null) continue;
      const box = row.closest('.tp-scroller'), b = box.getBoundingClientRect();
      const top = b.top + box.clientTop, bottom = top + box.clientHeight;
      const r = row.getBoundingClientRect();
      const marked = row.classList.contains('sel') || row.classList.contains('hl');
      if (marked && r.top >= top - 0.5 && r.bottom <= bottom + 0.5 && r.top >= 0 &&
          r.bottom <= window.innerHeight + 0.5) return true;
    }
    return false;
  }, { panel, lines });
}

// Opens the recompile page and logs its errors.
async function openDiffPage(browser) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const log = { errors: [], console: [] };
  page.on('pageerror', (e) => log.errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') log.console.push(m.text()); });
  await page.goto(pathToFileURL(join(outDir, `${stem}.html`)).href);
  return { context, page, log };
}

// Follows a link with a real mouse click and waits for the provenance page.
async function clickThrough(page, link) {
  await link.scrollIntoViewIfNeeded();
  // The middle of its first line box (a long name wraps: the middle of
  // its bounding box may fall between the lines).
  const box = await link.evaluate((e) => {
    const r = e.getClientRects()[0];
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
  const target = new URL(await link.getAttribute('href'), page.url()).href;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.waitForURL(target, { waitUntil: 'load', timeout: 10000 });
  await page.waitForFunction(() => typeof (window.tlprov || {}).select === 'function', null,
    { timeout: 10000 });
  await page.waitForFunction(() => !window.tlprov.painted || window.tlprov.painted(), null,
    { timeout: 10000 });
}

function viewOf(pageUrl) {
  const file = decodeURIComponent(new URL(pageUrl).pathname).replace(/\.html$/, '.json');
  return readView(file);
}

const browser = await launch();
try {
  // The summary.
  const { context, page, log } = await openDiffPage(browser);
  const s = diff.summary;
  const text = await page.locator('#summary').innerText();
  check('the summary counts the nodes as the JSON does', text.includes(
    `${s.nodes.changed} changed, ${s.nodes.added} added, ${s.nodes.removed} removed`), text);
  check('the summary counts the kernels as the JSON does', text.includes(
    `Kernels: ${s.kernels.changed} changed, ${s.kernels.added} added, ` +
    `${s.kernels.removed} removed`), text);
  await screenshot(page, shots, `${stem}-page`);

  // A changed post-grad node of the later compile (else an added one)
  // that its provenance page links (a node the mappings name).
  const cell = (change, line) => page.locator('h2:text("Post-grad graph") + p + table ' +
    `tr.${change} td:nth-child(3) a.num:text-is("${line}")`).first();
  let node = null, nodeLink = null;
  for (const change of ['changed', 'added']) {
    for (const r of diff.graphs.post_grad.nodes) {
      if (node || r.change !== change || !r.after) continue;
      const link = cell(change, r.after.line);
      if (!await link.count()) continue;
      const href = await link.getAttribute('href');
      const v = readView(join(outDir, href.split('#')[0].replace(/\.html$/, '.json')));
      if ((v.nodes.post || {})[r.after.name] === r.after.line) {
        node = r;
        nodeLink = link;
      }
    }
  }
  if (!check('a changed or added node links a page that knows it', node !== null)) process.exit(1);
  const line = node.after.line;
  await clickThrough(page, nodeLink);
  eq('the node click opens #post=LINE', new URL(page.url()).hash, `#post=${line}`);
  const sel = await page.evaluate(() => window.tlprov.selected());
  eq('the node is selected', [sel.panel, sel.lines], ['post', [line]]);
  check('the selected node is on screen', await markedOnScreen(page, 'post', [line]));
  await screenshot(page, shots, `${stem}-node`);
  eq('no script errors (node)', log.errors, []);
  eq('no console errors (node)', log.console, []);

  // A kernel of the later compile: the first changed one, else renamed.
  await page.goBack();
  const row = diff.kernels.kernels.find((r) => r.change === 'changed' && r.after) ||
    diff.kernels.kernels.find((r) => r.renamed && r.after);
  const key = row.after.key;
  const kernelLink = page.locator('#kernels + p + table td:nth-child(3) ' +
    `a.kernel[href$="#kernel=${key}"]`);
  check('the kernel has a link', await kernelLink.count() === 1, key);
  await clickThrough(page, kernelLink.first());
  eq('the kernel click opens #kernel=KEY', decodeURIComponent(new URL(page.url()).hash),
    `#kernel=${key}`);
  const view = viewOf(page.url());
  const k = view.kernels.find((x) => x.key === key);
  const ksel = await page.evaluate(() => window.tlprov.selected());
  eq('the kernel is selected', ksel.kernels, [key]);
  eq('its calls are the selection', [ksel.panel, ksel.lines], ['code', k.calls]);
  const hl = await page.evaluate(() => window.tlprov.highlighted());
  eq('its post-grad nodes are highlighted', hl.post, expectKernelPost(view, k));
  check('a call of the kernel is on screen', await markedOnScreen(page, 'code', k.calls));
  check('a node of the kernel is on screen', await markedOnScreen(page, 'post', hl.post));
  await screenshot(page, shots, `${stem}-kernel`);
  eq('no script errors (kernel)', log.errors, []);
  eq('no console errors (kernel)', log.console, []);

  // A training compile: a kernel of the later compile's backward opens
  // the backward's provenance page with it selected.
  const bw = (diff.backward_kernels || {}).kernels || [];
  const bwRow = bw.find((r) => r.after && r.before && r.after.post_nodes.length);
  if (bwRow) {
    await page.goBack();
    const bs = diff.summary.backward;
    const summary = await page.locator('#summary').innerText();
    check('the summary counts the backward kernels as the JSON does', summary.includes(
      `Backward kernels: ${bs.kernels.changed} changed, ${bs.kernels.added} added, ` +
      `${bs.kernels.removed} removed`), summary);
    const bwKey = bwRow.after.key;
    const bwLink = page.locator('#backward-kernels + p + table td:nth-child(3) ' +
      `a.kernel[href$="#kernel=${bwKey}"]`);
    check('the backward kernel has a link', await bwLink.count() === 1, bwKey);
    const forwardPage = (await kernelLink.first().getAttribute('href')).split('#')[0];
    const backwardPage = (await bwLink.first().getAttribute('href')).split('#')[0];
    check('it links the backward\'s page, not the forward\'s',
      backwardPage !== forwardPage, backwardPage);
    await clickThrough(page, bwLink.first());
    const bview = viewOf(page.url());
    const bk = bview.kernels.find((x) => x.key === bwKey);
    const bsel = await page.evaluate(() => window.tlprov.selected());
    eq('the backward kernel is selected', bsel.kernels, [bwKey]);
    eq('its calls are the selection', [bsel.panel, bsel.lines], ['code', bk.calls]);
    check('a call of the backward kernel is on screen',
      await markedOnScreen(page, 'code', bk.calls));
    await screenshot(page, shots, `${stem}-backward-kernel`);
    eq('no script errors (backward kernel)', log.errors, []);
    eq('no console errors (backward kernel)', log.console, []);
  }
  await context.close();
} finally {
  await browser.close();
}
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed ? 1 : 0);
