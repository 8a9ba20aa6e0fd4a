// reveal_check.mjs: does a selection show its links on screen? For each
// provenance page written by `tlparse -i`, at three window sizes, selects
// kernels and lines every way a person can (a real mouse click on a line of
// each panel, #kernel= and #post= links, the kernel table, search + Enter,
// n and p, Esc and the same click again, a window resize while a selection
// is shown) and checks geometry, not classes: in every panel with linked
// lines (derived from the view JSON, not asked of the page), at least one
// linked row's box lies fully inside the panel's visible scroll area and
// inside the window, and a clicked row stays where it was on screen.
// One screenshot per page and window size goes to SHOTS_DIR.
//
//   node tests/browser/reveal_check.mjs --out SHOTS_DIR PAGE.html VIEW.json ...
//
// Each kernel and mapped graph line is tried at one of the three sizes;
// pages with more than 30 kernels are sampled deterministically. Exit 77 =
// chromium or playwright-core missing.
import {
  checkPagePairs, eq, expectCodeLine, expectKernelPost, openPage, screenshot,
} from './lib.mjs';

export const SIZES = [[1600, 1000], [1280, 720], [900, 700]];
const KERNEL_CLICKS = 10; // call sites clicked per page and window size
const LINE_CLICKS = 4;    // pre-grad and post-grad lines clicked per panel and size

// The items of `list` for window size number `round`: every third item, so
// the three sizes together try each item once; when that is more than
// `count`, `count` of them evenly spaced (deterministic).
export function sample(list, count, round) {
  const mine = list.filter((_, i) => i % SIZES.length === round);
  if (mine.length <= count) return mine;
  const out = [], step = mine.length / count;
  for (let i = 0; i < count; i++) out.push(mine[Math.floor(i * step)]);
  return out;
}

function num(obj, k) { return (obj && obj[String(k)]) || []; }
function uniq(list) { return [...new Set(list)].sort((a, b) => a - b); }

// Expected lines per panel when a pre-grad or post-grad line is clicked,
// from the view's line maps (the page's own selection model is not asked).
function expectGraphLine(view, panel, line) {
  const L = view.lines || {};
  if (panel === 'post') {
    return { pre: uniq(num(L.postToPre, line)), post: [], code: uniq(num(L.postToCode, line)),
      kernel: uniq(num(L.postToKernel, line)) };
  }
  const post = uniq(num(L.preToPost, line));
  return { pre: [], post, code: uniq(post.flatMap((p) => num(L.postToCode, p))),
    kernel: uniq(post.flatMap((p) => num(L.postToKernel, p))) };
}

// Expected lines per panel when kernel k is selected: its post-grad lines,
// their pre-grad lines, and its calls (the selection itself, in code).
function expectKernel(view, k) {
  const L = view.lines || {};
  const post = expectKernelPost(view, k);
  return { pre: uniq(post.flatMap((p) => num(L.postToPre, p))), post, code: [], kernel: [] };
}

// In the page: for each panel with expected lines, whether one of them is
// on screen. A panel shares its box with another (code and kernel code): a
// hidden tab is skipped unless `tabs` asks for it. Returns the failures.
function onScreen({ want, needTab }) {
  const bad = [];
  const vw = window.innerWidth, vh = window.innerHeight;
  const inside = (r, box) => r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5 &&
    r.left >= box.left - 0.5 && r.left < box.right;
  for (const p of Object.keys(want)) {
    if (!want[p].length) continue;
    const row = document.querySelector(`[data-panel="${p}"].ln`);
    const box = row && row.closest('.tp-scroller');
    const shown = box && box.offsetParent !== null;
    if (!shown) {
      if (needTab === p) bad.push(`${p}: its tab is not shown`);
      continue;
    }
    const sr = box.getBoundingClientRect();
    const visible = { top: sr.top + box.clientTop, left: sr.left + box.clientLeft };
    visible.bottom = visible.top + box.clientHeight;
    visible.right = visible.left + box.clientWidth;
    const win = { top: 0, left: 0, bottom: vh, right: vw };
    const set = new Set(want[p]);
    let seen = false;
    for (const row of box.querySelectorAll('.ln')) {
      if (!set.has(Number(row.dataset.line))) continue;
      const gutter = row.querySelector('.g').getBoundingClientRect();
      const r = row.getBoundingClientRect();
      const rect = { top: r.top, bottom: r.bottom, left: gutter.left };
      const marked = row.classList.contains('hl') || row.classList.contains('sel');
      if (inside(rect, visible) && inside(rect, win) && marked) {
        seen = true;
        break;
      }
    }
    if (!seen) {
      bad.push(`${p}: none of ${want[p].length} linked lines (${want[p].slice(0, 4)}` +
        `${want[p].length > 4 ? ',…' : ''}) on screen (scrollTop ${box.scrollTop}, ` +
        `height ${box.clientHeight})`);
    }
  }
  return bad;
}

async function settle(page) {
  await page.evaluate(() => new Promise((done) =>
    requestAnimationFrame(() => requestAnimationFrame(() => done()))));
}

async function linksOnScreen(page, want, needTab) {
  await settle(page);
  return page.evaluate(onScreen, { want, needTab });
}

// The screen box of a rendered line, or null.
async function rowBox(page, panel, line) {
  return page.evaluate(({ panel, line }) => {
    const row = document.querySelector(`.ln[data-panel="${panel}"][data-line="${line}"]`);
    if (!row || row.offsetParent === null) return null;
    const r = row.getBoundingClientRect(), box = row.closest('.tp-scroller');
    const b = box.getBoundingClientRect();
    const top = b.top + box.clientTop, bottom = top + box.clientHeight;
    return { x: r.left, y: r.top, h: r.height, inside: r.top >= top - 0.5 &&
      r.bottom <= bottom + 0.5 && r.bottom <= window.innerHeight };
  }, { panel, line });
}

// Scrolls a line into view the way a wheel would leave it (anywhere in the
// panel, here at a per-click position), then clicks it with the mouse.
// Returns the failures: the clicked row must stay where it was.
async function clickAt(page, panel, line, where) {
  await page.evaluate(({ panel, line, where }) => {
    const scroller = document.querySelector(`[data-box] .tp-scroller .ln[data-panel="${panel}"]`)
      ?.closest('.tp-scroller');
    if (!scroller) return;
    const lh = 18, h = scroller.clientHeight;
    const rows = Math.max(1, Math.floor(h / lh) - 1);
    const offset = Math.floor(where * rows) * lh;
    scroller.scrollTop = Math.max(0, (line - 1) * lh - offset);
  }, { panel, line, where });
  await settle(page);
  let box = await rowBox(page, panel, line);
  if (!box || !box.inside) {
    await page.evaluate(({ panel, line }) => window.tlprov.reveal(panel, line), { panel, line });
    await settle(page);
    box = await rowBox(page, panel, line);
  }
  if (!box || !box.inside) return [`${panel}:${line} could not be scrolled into view to click`];
  await page.mouse.click(box.x + 120, box.y + box.h / 2);
  await settle(page);
  const after = await rowBox(page, panel, line);
  if (!after || Math.abs(after.y - box.y) > 0.5 || !after.inside) {
    return [`clicked ${panel}:${line} moved from y=${box.y} to ` +
      `${after ? after.y + (after.inside ? '' : ' (hidden)') : 'gone'}`];
  }
  return [];
}

function graphLines(view, panel) {
  const L = view.lines || {};
  const map = panel === 'pre' ? L.preToPost : L.postToPre;
  return Object.keys(map || {}).map(Number).filter((l) => num(map, l).length)
    .sort((a, b) => a - b);
}

async function checkPage(browser, name, file, view, shotDir) {
  const kernels = (view.kernels || []).filter((k) => (k.calls || []).length);
  for (let round = 0; round < SIZES.length; round++) {
    const [w, h] = SIZES[round], size = `${w}x${h}`;
    const { page, context, log } = await openPage(browser, file, { viewport: { width: w, height: h } });
    const picked = sample(kernels, KERNEL_CLICKS, round);
    for (const [i, k] of picked.entries()) {
      const line = k.calls[0];
      const moved = await clickAt(page, 'code', line, (i % 5) / 4);
      const want = expectCodeLine(view, line);
      eq(`${name} ${size}: click call code:${line} (${k.key}) stays and shows its links`,
        moved.concat(await linksOnScreen(page, { pre: want.pre, post: want.post })), []);
      if (i === 0 && shotDir) await screenshot(page, shotDir, `${name}-${size}`);
    }
    for (const panel of ['pre', 'post']) {
      for (const [i, line] of sample(graphLines(view, panel), LINE_CLICKS, round).entries()) {
        const moved = await clickAt(page, panel, line, ((i + 2) % 5) / 4);
        const want = expectGraphLine(view, panel, line);
        delete want[panel];
        // The kernel-code tab is shown only when the code has no linked line.
        if (want.code.length) delete want.kernel;
        eq(`${name} ${size}: click ${panel}:${line} stays and shows its links`,
          moved.concat(await linksOnScreen(page, want)), []);
      }
    }
    // The AOT kernel-code tab: a click on the first line of a kernel's body
    // links that kernel's post-grad lines (kernelToPost, and the kernel's
    // own nodes) and their pre-grad lines.
    const kernelLines = Object.keys((view.kernel_lines || {}).kernelToPost || {}).map(Number)
      .filter((l) => num(view.kernel_lines.kernelToPost, l).length).sort((a, b) => a - b);
    for (const [i, line] of sample(kernelLines, LINE_CLICKS, round).entries()) {
      await page.locator('.tp-tab[data-tab="kernel"]').click();
      const moved = await clickAt(page, 'kernel', line, ((i + 1) % 5) / 4);
      const owners = (view.kernels || []).filter((k) => k.definition &&
        k.definition.file === 'kernel_code' && k.definition.first <= line &&
        k.definition.last >= line);
      const post = uniq(num(view.kernel_lines.kernelToPost, line)
        .concat(owners.flatMap((k) => expectKernelPost(view, k))));
      const pre = uniq(post.flatMap((p) => num((view.lines || {}).postToPre, p)));
      eq(`${name} ${size}: click kernel code:${line} stays and shows its links`,
        moved.concat(await linksOnScreen(page, { pre, post })), []);
    }
    if (kernelLines.length) await page.locator('.tp-tab[data-tab="code"]').click();
    // The last picked kernel with lines to link in a graph panel.
    const linking = picked.filter((x) => {
      const e = expectCodeLine(view, x.calls[0]);
      return e.pre.length + e.post.length > 0;
    });
    if (linking.length) {
      const k = linking[linking.length - 1];
      // Esc, then the same click again.
      await page.keyboard.press('Escape');
      await settle(page);
      const moved = await clickAt(page, 'code', k.calls[0], 1);
      const want = expectCodeLine(view, k.calls[0]);
      eq(`${name} ${size}: after Esc, clicking code:${k.calls[0]} again shows its links`,
        moved.concat(await linksOnScreen(page, { pre: want.pre, post: want.post })), []);
      // n and p: the current target of the panel they step is on screen.
      for (const key of ['n', 'n', 'p']) {
        await page.keyboard.press(key);
        await settle(page);
        const cur = await page.evaluate(() => {
          const row = document.querySelector('.ln.cur');
          return row ? { panel: row.dataset.panel, line: Number(row.dataset.line) } : null;
        });
        eq(`${name} ${size}: ${key} steps to a linked line on screen`,
          cur ? await linksOnScreen(page, { [cur.panel]: [cur.line] }) : ['no current line'], []);
      }
      // A resize while the selection is shown.
      const [w2, h2] = SIZES[(round + 1) % SIZES.length];
      await page.setViewportSize({ width: w2, height: h2 });
      eq(`${name} ${size}: resized to ${w2}x${h2}, the links of code:${k.calls[0]} stay on screen`,
        await linksOnScreen(page, { pre: want.pre, post: want.post, code: [k.calls[0]] }), []);
      await page.setViewportSize({ width: w, height: h });
      // The kernel table: a click on a kernel's row.
      const tk = picked[Math.floor(picked.length / 2)];
      await page.locator('.tp-kernels summary').click();
      const row = page.locator(`.tp-ktable tbody tr[data-kernel="${CSS_escape(tk.key)}"]`);
      await row.scrollIntoViewIfNeeded();
      await row.click();
      const kw = expectKernel(view, tk);
      eq(`${name} ${size}: kernel table row ${tk.key} shows its calls and links`,
        await linksOnScreen(page, { ...kw, code: tk.calls }, 'code'), []);
      await page.locator('.tp-kernels summary').click();
      // Search and Enter.
      await page.keyboard.press('Escape');
      await page.keyboard.press('/');
      await page.keyboard.type(k.key);
      await page.keyboard.press('Enter');
      const kk = expectKernel(view, k);
      eq(`${name} ${size}: search ${k.key} + Enter shows its calls and links`,
        await linksOnScreen(page, { ...kk, code: k.calls }, 'code'), []);
    }
    // The profile's tables and bar charts (--profile): each clickable row or
    // bar of "Where the time goes" selects its kernel.
    const profiled = await page.evaluate(() => {
      const time = document.querySelector('details.tp-time');
      if (!time) return [];
      time.open = true;
      return Array.from(time.querySelectorAll('[data-kernel]')).map((e, i) => {
        e.dataset.revealIndex = i;
        return e.dataset.kernel;
      });
    });
    for (const [i, key] of profiled.entries()) {
      if (i % SIZES.length !== round) continue;
      const k = kernels.find((x) => x.key === key);
      if (!k) continue;
      await page.keyboard.press('Escape');
      const target = page.locator(`[data-reveal-index="${i}"]`);
      await target.scrollIntoViewIfNeeded();
      await target.click();
      eq(`${name} ${size}: the profile's ${key} (${i}) shows its calls and links`,
        await linksOnScreen(page, { ...expectKernel(view, k), code: k.calls }, 'code'), []);
    }
    eq(`${name} ${size}: no script errors`, log.errors.concat(log.console), []);
    await context.close();
    // Deep links, opened as a fresh page: #kernel= at two sizes, #post= at one.
    if (picked.length && round !== 1) {
      const k = picked[0];
      const deep = await openPage(browser, file,
        { viewport: { width: w, height: h }, hash: '#kernel=' + encodeURIComponent(k.key) });
      eq(`${name} ${size}: #kernel=${k.key} shows its calls and links`,
        await linksOnScreen(deep.page, { ...expectKernel(view, k), code: k.calls }, 'code'), []);
      await deep.context.close();
    }
    const posts = round === 1 ? sample(graphLines(view, 'post'), 1, 0) : [];
    if (posts.length) {
      const deep = await openPage(browser, file,
        { viewport: { width: w, height: h }, hash: '#post=' + posts[0] });
      const want = expectGraphLine(view, 'post', posts[0]);
      if (want.code.length) delete want.kernel;
      want.post = [posts[0]];
      eq(`${name} ${size}: #post=${posts[0]} shows the line and its links`,
        await linksOnScreen(deep.page, want), []);
      await deep.context.close();
    }
  }
}

function CSS_escape(s) { return s.replace(/["\\]/g, '\\$&'); }

if (import.meta.url === `file://${process.argv[1]}`) {
  await checkPagePairs('reveal_check.mjs', checkPage);
}
