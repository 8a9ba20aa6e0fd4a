// profile_page_test.mjs: the highlighter page with a profile (ctest
// profile_browser, after profile_e2e wrote the report of the real CPU
// profile). Selecting a kernel shows, in the time column of its call line
// and of the post-grad lines it feeds, the numbers of the view's "profile";
// the gutter colour follows the legend; tables sort and select.
//
//   node profile_page_test.mjs --out DIR   (DIR: the report folder)
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { check, eq, foreignRequests, launch, openPage, results } from './lib.mjs';

const opt = {};
for (let i = 2; i < process.argv.length; i += 2) opt[process.argv[i].slice(2)] = process.argv[i + 1];
const fmt = (v) => v < 10 ? v.toFixed(2) : v < 1000 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US');

const browser = await launch();
try {
  const names = readdirSync(opt.out).filter((n) => /^provenance_tracking_.*\.json$/.test(n));
  let tested = 0;
  for (const name of names) {
    const view = JSON.parse(readFileSync(join(opt.out, name), 'utf8'));
    const prof = view.profile;
    if (!prof || prof.match.status !== 'matched') continue;
    tested++;
    const { page, context, log, url } = await openPage(browser, join(opt.out, name.replace(/\.json$/, '.html')));
    // the hottest kernel, selected as a user would: from the top-kernels table
    const hottest = Object.entries(prof.kernels).sort((a, b) => b[1].total_us - a[1].total_us)[0][0];
    eq(`${name}: top kernels table starts with the hottest kernel`,
      await page.evaluate(() => document.querySelector('.tp-topk tr[data-kernel]').dataset.kernel), hottest);
    // its row: total, calls, first, median, min, max as the JSON has them
    const o = prof.kernels[hottest];
    eq(`${name}: the hottest kernel's row shows its calls and statistics`,
      await page.evaluate(() => Array.from(document.querySelector('.tp-topk tr[data-kernel]').cells).slice(1, 8).map((c) => c.textContent)),
      [fmt(o.total_us), String(o.count), fmt(o.first_us), fmt(o.median_us), fmt(o.min_us), fmt(o.max_us), o.far_count ? `\u26a0 ${o.far_count}` : '']);
    const gc = prof.graph_calls;
    eq(`${name}: the graph calls line`, await page.evaluate(() => document.querySelector('.tp-calls').textContent),
      `Graph calls (${gc.clock.toUpperCase()} clock): ${gc.count}, first ${fmt(gc.first_us)} \u00b5s, then median ${fmt(gc.median_us)} \u00b5s (min ${fmt(gc.min_us)}, max ${fmt(gc.max_us)}).`);
    await page.click('.tp-topk tr[data-kernel]');
    eq(`${name}: clicking it selects it`, (await page.evaluate(() => window.tlprov.selected())).kernels, [hottest]);
    const kernel = view.kernels.find((k) => k.key === hottest);
    const line = kernel.calls[0];
    await page.evaluate((l) => window.tlprov.reveal('code', l), line);
    await page.waitForTimeout(100);
    const cell = await page.evaluate((l) => {
      const t = document.querySelector(`.ln[data-panel="code"][data-line="${l}"] .t`);
      return t ? { text: t.textContent, bg: getComputedStyle(t).backgroundColor } : null;
    }, line);
    const want = prof.lines.code[String(line)];
    eq(`${name}: time column of call line ${line} shows its µs`, cell && cell.text, fmt(want));
    const at = await page.evaluate((l) => window.tlprov.profile('code', l), line);
    check(`${name}: the hottest call line has the hottest colour of the legend`,
      cell && at.step === 9 && cell.bg === 'rgb(253, 231, 37)', JSON.stringify([cell, at]));
    // the post-grad lines it feeds show their attributed time
    const hl = (await page.evaluate(() => window.tlprov.highlighted())).post;
    for (const l of hl.slice(0, 3)) {
      await page.evaluate((x) => window.tlprov.reveal('post', x), l);
      await page.waitForTimeout(50);
      const txt = await page.evaluate((x) => {
        const t = document.querySelector(`.ln[data-panel="post"][data-line="${x}"] .t`);
        return t ? t.textContent : null;
      }, l);
      eq(`${name}: post line ${l} shows its µs`, txt, fmt(prof.lines.post[String(l)]));
    }
    // the bar charts: the hottest kernels in order, coloured by the legend's
    // scale; clicking a bar selects its kernel
    const bars = await page.evaluate(() => Array.from(document.querySelectorAll('.tp-kernel-bars g.tp-bar')).map((g) =>
      ({ kernel: g.dataset.kernel, fill: g.querySelector('rect.tp-bar-fill').getAttribute('fill'), text: g.querySelectorAll('text')[1].textContent })));
    const order = Object.entries(prof.kernels).sort((a, b) => b[1].total_us - a[1].total_us).slice(0, 10);
    eq(`${name}: kernel bars are the hottest kernels, in order`, bars.map((b) => [b.kernel, b.text]),
      order.map(([k, o]) => [k, `${fmt(o.total_us)} \u00b5s`]));
    eq(`${name}: the hottest bar has the hottest colour`, bars[0].fill, '#fde725');
    await page.click('.tp-kernel-bars g.tp-bar:nth-of-type(2)');
    eq(`${name}: clicking the second bar selects its kernel`, (await page.evaluate(() => window.tlprov.selected())).kernels, [order[1][0]]);
    const lineBars = await page.evaluate(() => document.querySelectorAll('.tp-line-bars g.tp-bar').length);
    eq(`${name}: one bar per model line (up to 10)`, lineBars, Math.min(10, prof.source_lines.length));
    // the kernel table: a time column, sorted by time, re-sortable
    await page.click('.tp-kernels summary');
    await page.waitForSelector('.tp-kernels tbody tr');
    const korder = await page.evaluate(() =>
      Array.from(document.querySelectorAll('.tp-kernels tbody tr')).map((r) => Number(r.dataset.us || -1)));
    check(`${name}: kernel table sorted by time`,
      korder.length === view.kernels.length && JSON.stringify(korder) === JSON.stringify(korder.slice().sort((a, b) => b - a)), korder);
    await page.click('.tp-sort');
    const order2 = await page.evaluate(() =>
      Array.from(document.querySelectorAll('.tp-kernels tbody tr')).map((r) => Number(r.dataset.us || -1)));
    eq(`${name}: clicking the header sorts ascending`, order2, korder.slice().reverse());
    // top model lines: clicking selects a kernel of that line
    await page.click('.tp-toplines tr[data-kernel]');
    check(`${name}: clicking a top model line selects a kernel`,
      (await page.evaluate(() => window.tlprov.selected())).kernels.length === 1);
    eq(`${name}: no script errors or foreign requests`,
      [log.errors, foreignRequests(log, url)], [[], []]);
    await context.close();
    // The index's "where the time goes" links the hottest kernel to this
    // page with #kernel=: following the link selects it.
    const htmlName = name.replace(/\.json$/, '.html');
    const index = readFileSync(join(opt.out, 'index.html'), 'utf8');
    const row = index.split('<tr>').find((r) => r.includes(`<a href="${htmlName}">`));
    const link = row && row.match(/<a href="([^"]*#kernel=[^"]*)">/);
    check(`${name}: the index's time row links its hottest kernel`, !!link, row);
    if (link) {
      const hash = link[1].slice(link[1].indexOf('#'));
      const opened = await openPage(browser, join(opt.out, htmlName), { hash });
      await opened.page.waitForTimeout(100);
      eq(`${name}: the index's link ${hash} selects the hottest kernel`,
        (await opened.page.evaluate(() => window.tlprov.selected())).kernels, [hottest]);
      await opened.context.close();
    }
  }
  check('both the forward and the backward page were tested', tested === 2, tested);
  // A profile of another model (profile_e2e's match/b-with-a): the page
  // says "does not match" with the evidence and shows no times.
  const other = join(opt.out, '..', '..', 'match', 'b-with-a');
  let refused = 0;
  for (const name of readdirSync(other).filter((n) => /^provenance_tracking_.*\.json$/.test(n))) {
    const view = JSON.parse(readFileSync(join(other, name), 'utf8'));
    if (!view.kernels.length) continue;
    refused++;
    const m = view.profile.match;
    const { page, context } = await openPage(browser, join(other, name.replace(/\.json$/, '.html')));
    eq(`${name} (another model's profile): the verdict`, await page.evaluate(() => document.querySelector('.tp-verdict').textContent),
      `The profile does not match this view: ${m.reason}.`);
    eq(`${name} (another model's profile): the evidence`, await page.evaluate(() => document.querySelector('.tp-evidence').textContent),
      `Evidence: ${m.kernel_names_found} of ${m.kernel_names_expected} Inductor kernel names and ${m.extern_names_found} of ` +
      `${m.extern_names_expected} extern kernel names found; this view is the ${m.view_phase} graph` +
      (m.missing.length ? `; not found: ${m.missing.join(', ')}` : '') + '.');
    eq(`${name} (another model's profile): no time column, no bars`,
      await page.evaluate(() => [document.querySelectorAll('.ln .t:not(:empty)').length, document.querySelectorAll('.tp-bar').length]), [0, 0]);
    await context.close();
  }
  check('the page of another model\'s profile was tested', refused === 1, refused);
} finally {
  await browser.close();
}
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed ? 1 : 0);
