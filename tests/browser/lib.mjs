// lib.mjs: shared pieces of the provenance page browser tests.
//
// launch()        headless Debian chromium through playwright-core (exits 77
//                 with a message when chromium or playwright-core is missing:
//                 ctest "skipped"; `npm ci` in tests/browser installs it).
// openPage()      opens a page from file://, records page errors, dialogs and
//                 every network request other than the page file itself
//                 (a page loads only staticFiles(): its style and scripts).
// checkContract() the generic checks any provenance page must pass, with the
//                 expected highlights derived from its view JSON (used for the
//                 hand-written cases and for real `tlparse -i` output).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const CHROMIUM = '/usr/bin/chromium';

export async function launch() {
  if (!existsSync(CHROMIUM)) {
    console.log(`SKIP: ${CHROMIUM} is missing (install Debian's chromium)`);
    process.exit(77);
  }
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch (e) {
    console.log('SKIP: playwright-core is not installed (run `npm ci` in tests/browser)');
    process.exit(77);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

// A tiny harness: check(name, ok, detail) prints and counts.
export const results = { passed: 0, failed: 0 };
export function check(name, ok, detail) {
  if (ok) {
    results.passed++;
    console.log(`ok   ${name}`);
  } else {
    results.failed++;
    console.log(`FAIL ${name}${detail === undefined ? '' : ': ' + detail}`);
  }
  return ok;
}
export function eq(name, actual, expected) {
  const a = JSON.stringify(actual), e = JSON.stringify(expected);
  return check(name, a === e, `got ${a}, expected ${e}`);
}

export async function openPage(browser, file, opts = {}) {
  const context = await browser.newContext({
    viewport: opts.viewport || { width: 1500, height: 900 },
    colorScheme: opts.colorScheme || 'light',
  });
  const page = await context.newPage();
  const url = pathToFileURL(file).href;
  const log = { errors: [], dialogs: [], requests: [], console: [] };
  page.on('pageerror', (e) => log.errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') log.console.push(m.text()); });
  page.on('dialog', async (d) => { log.dialogs.push(d.message()); await d.dismiss(); });
  page.on('request', (r) => {
    if (r.url().split('#')[0] !== url) log.requests.push(r.url());
  });
  if (opts.init) await page.addInitScript(opts.init); // runs before the page's scripts
  await page.goto(url + (opts.hash || ''));
  // window.tlprov is the page's <div id="tlprov"> until provenance.js has
  // run, which a page whose texts came deflated starts after the load event.
  await page.waitForFunction(() => typeof (window.tlprov || {}).select === 'function', null,
    { timeout: 10000 });
  // Syntax colours come after the load event (highlight.js loads then).
  await page.waitForFunction(() => !window.tlprov.painted || window.tlprov.painted(), null,
    { timeout: 10000 });
  return { page, context, log, url };
}

// The only files a provenance page may load besides itself: the style and
// the two scripts of the static/ folder beside it (provpage.h), sorted.
export function staticFiles(pageUrl) {
  return ['static/highlight.min.js', 'static/provenance.css', 'static/provenance.js']
    .map((f) => new URL(f, pageUrl).href);
}

// The requests of a page's log that are not its static files.
export function foreignRequests(log, pageUrl) {
  const allowed = new Set(staticFiles(pageUrl));
  return log.requests.filter((u) => !allowed.has(u));
}

export function readView(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

// ---- the expected result of a selection, from the view JSON alone --------
function num(obj, k) { return (obj && obj[String(k)]) || []; }
function uniqSorted(list) { return [...new Set(list)].sort((a, b) => a - b); }

// Expected highlight when the code line `line` (a kernel call site) is
// clicked: post = codeToPost[line] (else the kernels' post nodes), pre = the
// union of postToPre over those, kernel = the kernel-code definitions of the
// kernels called on that line.
export function expectCodeLine(view, line) {
  const L = view.lines || {};
  const ks = (view.kernels || []).filter((k) => (k.calls || []).includes(line));
  let post = num(L.codeToPost, line);
  if (!post.length) {
    // A name that subgraphs define too has every line (node_definitions).
    const defs = (view.node_definitions || {}).post || {};
    post = ks.flatMap((k) => (k.post_nodes || [])
      .flatMap((n) => defs[n] || [(view.nodes.post || {})[n]]))
      .filter((x) => x);
  }
  const pre = post.flatMap((p) => num(L.postToPre, p));
  const kernel = ks.filter((k) => k.definition && k.definition.file === 'kernel_code')
    .map((k) => k.definition.first);
  return { pre: uniqSorted(pre), post: uniqSorted(post), code: [], kernel: uniqSorted(kernel) };
}

// Expected post-grad highlight when kernel `k` is selected (the kernels
// table, #kernel=): each post node's line; for a name that several graphs
// define (node_definitions), the definitions codeToPost links to the
// kernel's calls, else all of them.
export function expectKernelPost(view, k) {
  const L = view.lines || {};
  const defs = (view.node_definitions || {}).post || {};
  const linkedToCalls = new Set((k.calls || []).flatMap((c) => num(L.codeToPost, c)));
  const post = (k.post_nodes || []).flatMap((n) => {
    const all = defs[n] || [(view.nodes.post || {})[n]].filter((x) => x);
    const linked = all.length > 1 ? all.filter((l) => linkedToCalls.has(l)) : [];
    return linked.length ? linked : all;
  });
  return uniqSorted(post);
}

export async function highlighted(page) {
  return page.evaluate(() => window.tlprov.highlighted());
}

// The DOM agrees with highlighted(): every rendered line with class hl is in
// the set, and every line of the set, revealed, carries hl.
export async function domAgrees(page, hl, limit = 8) {
  return page.evaluate(({ hl, limit }) => {
    const bad = [];
    for (const p of Object.keys(hl)) {
      const want = new Set(hl[p]);
      for (const e of document.querySelectorAll(`.ln.hl[data-panel="${p}"]`)) {
        if (!want.has(Number(e.dataset.line))) bad.push(`${p}:${e.dataset.line} extra`);
      }
      for (const line of hl[p].slice(0, limit)) {
        window.tlprov.reveal(p, line);
        const e = document.querySelector(`.ln[data-panel="${p}"][data-line="${line}"]`);
        if (!e || !e.classList.contains('hl')) bad.push(`${p}:${line} missing`);
      }
      if (p === 'kernel' || p === 'code') window.tlprov.reveal('code', 1);
    }
    return bad;
  }, { hl, limit });
}

// Clicks the rendered line like a user would (after scrolling it into view).
export async function clickLine(page, panel, line) {
  await page.evaluate(({ panel, line }) => window.tlprov.reveal(panel, line), { panel, line });
  await page.locator(`.ln[data-panel="${panel}"][data-line="${line}"]`)
    .click({ position: { x: 70, y: 9 } });
}

// The command line of the scripts that check pages tlparse wrote:
//   SCRIPT [--out DIR] PAGE.html VIEW.json [PAGE VIEW ...]
// calls check(browser, name, page, view, out) for each pair (name: the
// output folder's name and the page's, as every tl_out has
// provenance_tracking_-_0_0_0), prints the totals and exits 1 on a failure.
export async function checkPagePairs(script, check) {
  const args = process.argv.slice(2);
  let out = null;
  const pairs = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--out') out = args[++i];
    else pairs.push(args[i]);
  }
  if (!pairs.length || pairs.length % 2) {
    console.error(`usage: ${script} [--out DIR] PAGE.html VIEW.json [PAGE VIEW ...]`);
    process.exit(2);
  }
  const browser = await launch();
  try {
    for (let i = 0; i < pairs.length; i += 2) {
      const name = basename(dirname(resolve(pairs[i]))) + '-' + basename(pairs[i], '.html');
      await check(browser, name, pairs[i], readView(pairs[i + 1]), out);
    }
  } finally {
    await browser.close();
  }
  console.log(`${results.passed} passed, ${results.failed} failed`);
  process.exit(results.failed ? 1 : 0);
}

export async function screenshot(page, dir, name) {
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: `${dir}/${name}.png` });
}

// Generic checks for one page and its view JSON. `name` prefixes messages.
export async function checkContract(browser, name, file, view, shotDir) {
  const { page, context, log, url } = await openPage(browser, file);
  const kernels = (view.kernels || []).filter((k) => (k.calls || []).length);
  const counts = await page.evaluate(() =>
    ['pre', 'post', 'code', 'kernel'].map((p) => window.tlprov.lineCount(p)));
  const arts = view.artifacts || {};
  if (arts.pre_grad_graph || arts.post_grad_graph || arts.code) {
    check(`${name}: page shows panels with lines`, counts[0] + counts[1] + counts[2] > 0,
      JSON.stringify(counts));
  } else {
    // A view without any artifact (a compile folder with nothing to show).
    const banner = await page.evaluate(() =>
      (document.querySelector('.tp-banner') || {}).textContent || '');
    check(`${name}: a view without artifacts says why it has no links`,
      banner.includes(view.no_links_reason || 'INDUCTOR_PROVENANCE=1'), banner);
  }
  for (const k of kernels.slice(0, 20)) {
    const line = k.calls[0];
    await clickLine(page, 'code', line);
    const want = expectCodeLine(view, line);
    eq(`${name}: clicking call site code:${line} of ${k.key} highlights its lines`,
      await highlighted(page), want);
    const sel = await page.evaluate(() => window.tlprov.selected());
    eq(`${name}: code:${line} is the pinned selection`, [sel.panel, sel.lines, sel.pinned],
      ['code', [line], true]);
    eq(`${name}: DOM shows the highlight of code:${line}`, await domAgrees(page, want), []);
  }
  for (const k of kernels.slice(0, 20)) {
    await page.evaluate((key) => window.tlprov.selectKernel(key), k.key);
    eq(`${name}: selecting kernel ${k.key} highlights its post-grad lines`,
      (await highlighted(page)).post, expectKernelPost(view, k));
  }
  if (kernels.length) {
    const k = kernels[0];
    const deep = await openPage(browser, file, { hash: '#kernel=' + k.key });
    const sel = await deep.page.evaluate(() => window.tlprov.selected());
    eq(`${name}: deep link #kernel=${k.key} selects its calls`, [sel.lines, sel.kernels],
      [k.calls, [k.key]]);
    const deep2 = await openPage(browser, file, { hash: '#code=' + k.calls[0] });
    eq(`${name}: deep link #code=${k.calls[0]} restores the highlight`,
      await highlighted(deep2.page), expectCodeLine(view, k.calls[0]));
    await deep.context.close();
    await deep2.context.close();

    await page.keyboard.press('Escape');
    await page.keyboard.press('/');
    await page.keyboard.type(k.key);
    await page.keyboard.press('Enter');
    const found = await page.evaluate(() => window.tlprov.selected());
    eq(`${name}: search for ${k.key} + Enter selects that kernel`, found.kernels, [k.key]);
    eq(`${name}: the URL fragment names the kernel`,
      decodeURIComponent(await page.evaluate(() => location.hash)), '#kernel=' + k.key);

    const withDef = kernels.find((x) => x.definition);
    if (withDef) {
      await clickLine(page, 'code', withDef.calls[0]);
      await page.keyboard.press('g');
      const d = withDef.definition, at = await page.evaluate(() => window.tlprov.selected());
      eq(`${name}: g on the call of ${withDef.key} goes to its definition`,
        [at.panel, at.lines], [d.file === 'kernel_code' ? 'kernel' : 'code', [d.first]]);
      await page.keyboard.press('g');
      const back = await page.evaluate(() => window.tlprov.selected());
      eq(`${name}: g again goes back to the call site`, [back.panel, back.lines],
        ['code', [withDef.calls[0]]]);
    }
  }
  await page.keyboard.press('Escape');
  eq(`${name}: Esc clears every highlight`, await highlighted(page),
    { pre: [], post: [], code: [], kernel: [] });
  eq(`${name}: no line carries hl or sel after Esc`,
    await page.evaluate(() => document.querySelectorAll('.ln.hl, .ln.sel').length), 0);
  if (shotDir) {
    if (kernels.length) await clickLine(page, 'code', kernels[0].calls[0]);
    await screenshot(page, shotDir, `${name}-light`);
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, shotDir, `${name}-dark`);
  }
  eq(`${name}: no script errors`, log.errors.concat(log.console), []);
  eq(`${name}: no dialogs`, log.dialogs, []);
  eq(`${name}: no request but its static files`,
    [...new Set(log.requests)].sort(), staticFiles(url));
  eq(`${name}: nothing injected ran`, await page.evaluate(() => window.pwned), undefined);
  await context.close();
}
