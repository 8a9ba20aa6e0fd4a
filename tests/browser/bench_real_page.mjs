// bench_real_page.mjs: speed of one provenance page tlparse wrote for a real
// or generated trace (not a test: figures for docs/performance.md, "The page
// at scale"). Opens PAGE in headless chromium RUNS times and prints:
//   open    navigation start -> the 'tlprov-ready' mark (provenance.js done:
//           panels rendered, highlighted and answering input), with two
//           steps of Navigation Timing on the way: the file read (responseEnd)
//           and the HTML parsed (domInteractive)
//   paint   navigation start -> first contentful paint
//   heap    the renderer's JS heap after open (performance.memory)
//   pin     tlprov.select on a call site of the code panel, up to the layout
//           flush (30 call sites spread over the panel, read from the view
//           JSON beside the page here, not in the page, whose heap they
//           would grow)
//
//   node tests/browser/bench_real_page.mjs --page OUT/provenance_tracking_X.html [--runs 3]
//     [--all]  also print every pin's time
import { statSync } from 'node:fs';
import { launch, openPage, readView } from './lib.mjs';

const opt = { runs: '3' };
for (let i = 2; i < process.argv.length; i++) {
  const key = process.argv[i].slice(2);
  opt[key] = key === 'all' ? true : process.argv[++i];
}
if (!opt.page) {
  console.error('usage: bench_real_page.mjs --page FILE.html [--runs R]');
  process.exit(2);
}
const stats = (xs) => {
  const s = xs.slice().sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
};
const mb = statSync(opt.page).size / 1e6;
const allCalls = Object.keys(readView(opt.page.replace(/\.html$/, '.json')).lines.codeToPost || {})
  .map(Number).sort((a, b) => a - b);
const calls = [];
for (let i = 0; i < 30 && allCalls.length; i++) calls.push(allCalls[Math.floor((i + 0.5) / 30 * allCalls.length)]);
const browser = await launch();
try {
  for (let r = 0; r < Number(opt.runs); r++) {
    const { page, context } = await openPage(browser, opt.page);
    const m = await page.evaluate(async (calls) => {
      const ready = performance.getEntriesByName('tlprov-ready')[0];
      const coloured = performance.getEntriesByName('tlprov-painted')[0];
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      const frame = () => new Promise((res) => requestAnimationFrame(() => res()));
      const pin = [];
      for (const line of calls) {
        await frame();
        const t1 = performance.now();
        window.tlprov.select('code', line);
        await Promise.resolve();
        void document.body.offsetHeight;
        pin.push(performance.now() - t1);
      }
      const nav = performance.getEntriesByType('navigation')[0];
      return { open: ready ? ready.startTime : -1, paint: fcp ? fcp.startTime : -1,
        coloured: coloured ? coloured.startTime : ready ? ready.startTime : -1,
        load: nav.loadEventEnd,
        read: nav.responseEnd, parsed: nav.domInteractive,
        heap: performance.memory ? performance.memory.usedJSHeapSize / 1048576 : -1,
        pin };
    }, calls);
    const p = stats(m.pin);
    console.log(`${mb.toFixed(1)} MB page, run ${r + 1}: open ${m.open.toFixed(0)} ms ` +
      `(file read ${m.read.toFixed(0)}, HTML parsed ${m.parsed.toFixed(0)}), ` +
      `first paint ${m.paint.toFixed(0)} ms, load event ${m.load.toFixed(0)} ms, ` +
      `coloured ${m.coloured.toFixed(0)} ms, JS heap ${m.heap.toFixed(0)} MiB, ` +
      `pin median ${p.median.toFixed(1)} / max ${p.max.toFixed(1)} ms over ${m.pin.length} of ${allCalls.length} call sites` +
      (opt.all ? `\n  pins ${m.pin.map((x) => x.toFixed(1)).join(' ')}` : ''));
    await context.close();
  }
} finally {
  await browser.close();
}
