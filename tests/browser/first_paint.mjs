// first_paint.mjs: the provenance page shows its code before any script
// runs (src/emit/provpage_paint.c), and the script takes it over without moving
// a line. For each page written by `tlparse -i`, at two window sizes:
//  - with JavaScript disabled, each of the three panels shows, fully inside
//    its visible scroll area and the window, rows 1..v of its artifact text
//    with exactly that text (v: the whole rows its panel's height holds, or
//    all lines of a shorter text; the texts are read from the files the
//    view JSON names, split as the page splits them);
//  - with JavaScript, once the script has taken over, rows 1..v have the
//    same text at the same place on screen (no layout shift) and the top
//    bar and the panel heads have the same boxes; then a real click on a
//    kernel call site selects it and highlights the lines the view JSON
//    links to it.
//
//   node tests/browser/first_paint.mjs PAGE.html VIEW.json [PAGE VIEW ...]
//
// Exit 77 = chromium or playwright-core missing.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkPagePairs, check, eq, expectCodeLine, highlighted, openPage } from './lib.mjs';

const SIZES = [[1600, 1000], [900, 700]];
const ART_KEY = { pre: 'pre_grad_graph', post: 'post_grad_graph', code: 'code' };
const LH = 18;

// The lines of a text as the page splits them (data.js, lineStarts and
// lineText): by "\n", no empty line after a final newline, one carriage
// return before a newline dropped, NUL shown as U+FFFD.
function splitLines(text) {
  const ls = text.split('\n');
  if (text.length && text.endsWith('\n')) ls.pop();
  return ls.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l).replace(/\0/g, '\ufffd'));
}

function artifactLines(pagePath, view, panel) {
  const rel = (view.artifacts || {})[ART_KEY[panel]];
  if (typeof rel !== 'string' || !rel) return null;
  return splitLines(readFileSync(join(dirname(pagePath), rel), 'utf8'));
}

// Rows of each panel as the page shows them: line, text, box, and whether
// the box lies fully inside the panel's visible scroll area and the window.
async function shownRows(page) {
  return page.evaluate(() => {
    const out = {};
    for (const p of ['pre', 'post', 'code']) {
      const row1 = document.querySelector(`.ln[data-panel="${p}"]`);
      if (!row1) { out[p] = { rows: [], height: 0 }; continue; }
      const sc = row1.closest('.tp-scroller'), r = sc.getBoundingClientRect();
      const top = r.top + sc.clientTop, bottom = top + sc.clientHeight;
      const rows = [...sc.querySelectorAll('.ln')].map((e) => {
        const b = e.getBoundingClientRect();
        return {
          line: Number(e.dataset.line), text: e.querySelector('.s').textContent,
          x: Math.round(b.x * 100) / 100, y: Math.round(b.y * 100) / 100, h: b.height,
          shown: b.top >= top - 0.5 && b.bottom <= bottom + 0.5 && b.left >= r.left - 0.5 &&
            b.bottom <= window.innerHeight + 0.5,
        };
      });
      out[p] = { rows, height: sc.clientHeight, scrollTop: sc.scrollTop };
    }
    const box = (sel) => {
      const e = document.querySelector(sel);
      if (!e) return null;
      const b = e.getBoundingClientRect();
      return [b.x, b.y, b.width, b.height].map((v) => Math.round(v * 100) / 100);
    };
    out.boxes = {
      top: box('.tp-top'), panels: box('.tp-panels'), bottom: box('.tp-bottom'),
      heads: [...document.querySelectorAll('.tp-phead')].map((e) => {
        const b = e.getBoundingClientRect();
        return [b.y, b.height].map((v) => Math.round(v * 100) / 100);
      }),
    };
    return out;
  });
}

async function checkPage(browser, name, file, view) {
  const expected = {};
  for (const p of Object.keys(ART_KEY)) expected[p] = artifactLines(file, view, p);
  for (const [w, h] of SIZES) {
    const size = `${w}x${h}`;
    // Without JavaScript: the first paint alone.
    const context = await browser.newContext({
      viewport: { width: w, height: h }, javaScriptEnabled: false, colorScheme: 'light',
    });
    const page = await context.newPage();
    await page.goto(pathToFileURL(file).href);
    const still = await shownRows(page);
    eq(`${name} ${size}: no script ran (window.tlprov is the page's element)`,
      await page.evaluate(() => document.getElementById('tlprov').tagName), 'DIV');
    await context.close();
    const firstRows = {};
    for (const p of Object.keys(ART_KEY)) {
      const want = expected[p];
      if (!want) {
        eq(`${name} ${size}: ${p} has no text and no rows`, still[p].rows.length, 0);
        continue;
      }
      const v = Math.min(want.length, Math.floor(still[p].height / LH));
      const shown = still[p].rows.filter((r) => r.shown);
      check(`${name} ${size}: ${p} panel tall enough to show a line`, v > 0, `height ${still[p].height}`);
      eq(`${name} ${size}: without JavaScript, the ${p} panel shows lines 1..${v} with the artifact's text`,
        shown.map((r) => [r.line, r.text]), want.slice(0, v).map((t, i) => [i + 1, t]));
      eq(`${name} ${size}: ${p} rows are ${LH} px apart`,
        shown.filter((r, i) => i && (r.h !== LH || Math.abs(r.y - shown[i - 1].y - LH) > 0.01)).length, 0);
      firstRows[p] = shown;
    }

    // With JavaScript: the script's rows where the first paint put them.
    const { page: live, context: ctx2, log } = await openPage(browser, file,
      { viewport: { width: w, height: h } });
    const after = await shownRows(live);
    for (const p of Object.keys(firstRows)) {
      const lines = new Set(firstRows[p].map((r) => r.line));
      eq(`${name} ${size}: after the script took over, the ${p} panel's first rows have the same text and place`,
        after[p].rows.filter((r) => lines.has(r.line)).map((r) => [r.line, r.text, r.x, r.y, r.shown]),
        firstRows[p].map((r) => [r.line, r.text, r.x, r.y, r.shown]));
    }
    eq(`${name} ${size}: the top bar, the panels' area and heads and the bottom keep their boxes`,
      after.boxes, still.boxes);
    // A real click on the first kernel call site that links somewhere.
    const k = (view.kernels || []).find((x) => (x.calls || []).length &&
      expectCodeLine(view, x.calls[0]).post.length);
    if (k) {
      const line = k.calls[0], want = expectCodeLine(view, line);
      await live.evaluate((l) => window.tlprov.reveal('code', l), line);
      await live.locator(`.ln[data-panel="code"][data-line="${line}"]`)
        .click({ position: { x: 70, y: 9 } });
      const sel = await live.evaluate(() => window.tlprov.selected());
      eq(`${name} ${size}: a click on call site code:${line} pins it`,
        [sel.panel, sel.lines, sel.pinned], ['code', [line], true]);
      const hl = await highlighted(live);
      eq(`${name} ${size}: and highlights its linked lines`,
        { pre: hl.pre, post: hl.post }, { pre: want.pre, post: want.post });
    }
    eq(`${name} ${size}: no page errors`, log.errors.concat(log.console), []);
    await ctx2.close();
  }
}

await checkPagePairs('first_paint.mjs', checkPage);
