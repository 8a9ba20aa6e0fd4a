// bench_load.mjs: how soon a provenance page reaches its load event, ours
// beside the Rust tool's page for the same trace (not a test: figures for
// docs/performance.md, "Page load beside the Rust tool"). Each pair is
// loaded RUNS times, the two pages interleaved, in headless chromium at
// 1600x1000; prints per page the median of
//   load    navigation start -> loadEventEnd (Navigation Timing)
//   ready   navigation start -> 'tlprov-ready' (ours: panels rendered and
//           answering input; the Rust page has no such mark)
//   coloured navigation start -> 'tlprov-painted' (ours: highlight.js,
//           loaded after the load event, has coloured the lines on screen)
//   paint   navigation start -> first contentful paint (Paint Timing)
//   script  time spent in script (the Long Animation Frames' script
//           entries are not in every chromium: the CDP Performance
//           domain's ScriptDuration is used)
// and the load events compared pair by pair: load r of ours and load r of
// the Rust page ran one after the other, so their difference leaves out
// what changed on the machine between rounds. The median of those
// differences, with a 95% interval from 2,000 bootstrap resamples of the
// pairs (a fixed seed: the same loads give the same interval), and a
// verdict: "sooner" or "later" when the whole interval is below or above
// zero, "level" when it holds zero (the loads cannot tell the pages
// apart).
//
// With --confirm N, every page whose verdict is "later" is loaded again,
// N fresh pairs, and the second verdict is the one that stands. One pass
// over the 33 examples draws 33 intervals: where the two load events are the same
// in truth, each interval lies above zero by chance 2.5% of the time, so
// about one page in such a run comes out "later" by chance alone. An
// independent second pass lies above zero again by chance with the same
// 2.5%, so a page level in truth is reported later after both with chance
// 0.025 * 0.025, about 2% over 33 pages; a page later in truth stays later.
//
// The machine's load average is printed before and after: other work on
// the machine slows both pages of a pair alike, as their loads alternate.
//
//   node tests/browser/bench_load.mjs [--runs 9] [--confirm 41] NAME OURS.html RUST.html [NAME OURS RUST ...]
// (tests/bench/load_pages.py writes the pages of every example and runs it.)
import { statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { launch } from './lib.mjs';

const args = process.argv.slice(2);
let runs = 9;
let confirmRuns = 0;
const triples = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--runs') runs = Number(args[++i]);
  else if (args[i] === '--confirm') confirmRuns = Number(args[++i]);
  else triples.push(args[i]);
}
if (!triples.length || triples.length % 3) {
  console.error('usage: bench_load.mjs [--runs N] [--confirm N] NAME OURS.html RUST.html ...');
  process.exit(2);
}
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/* The median of `diffs` and its 95% bootstrap interval: `rounds` resamples
 * of as many pairs, drawn with a deterministic generator (xorshift32). */
function medianInterval(diffs, rounds = 2000) {
  let state = 0x9e3779b9;
  const next = () => {
    state ^= state << 13; state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5; state >>>= 0;
    return state;
  };
  const medians = [];
  for (let b = 0; b < rounds; b++) {
    const sample = diffs.map(() => diffs[next() % diffs.length]);
    medians.push(median(sample));
  }
  medians.sort((a, b) => a - b);
  return { median: median(diffs), low: medians[Math.floor(rounds * 0.025)],
    high: medians[Math.ceil(rounds * 0.975) - 1] };
}

function verdict(interval) {
  if (interval.high < 0) return 'sooner';
  if (interval.low > 0) return 'later';
  return 'level';
}
const browser = await launch();

async function loadOnce(file) {
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  // A page whose load event comes before its first frame has no paint
  // entry yet: wait for it (a page never painted gives "-").
  await page.waitForFunction(() =>
    performance.getEntriesByName('first-contentful-paint').length > 0, null,
  { timeout: 5000 }).catch(() => {});
  // Ours: wait for the colours, which come after the load event.
  await page.waitForFunction(() => !window.tlprov || !window.tlprov.painted ||
    window.tlprov.painted(), null, { timeout: 10000 });
  const m = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const ready = performance.getEntriesByName('tlprov-ready')[0];
    const coloured = performance.getEntriesByName('tlprov-painted')[0];
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    return { load: nav.loadEventEnd, fcp: fcp ? fcp.startTime : null,
      ready: ready ? ready.startTime : null,
      coloured: coloured ? coloured.startTime : null };
  });
  const metrics = (await cdp.send('Performance.getMetrics')).metrics;
  const script = metrics.find((x) => x.name === 'ScriptDuration');
  m.script = script ? script.value * 1000 : null;
  await context.close();
  return m;
}

const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');
const header = '| trace | page KB ours / Rust | load ours / Rust (ms, median) | load ours − Rust, paired (ms, median [95%]) | first paint ours / Rust | ours ready / coloured (ms) | script ours / Rust (ms) |\n' +
  '|---|---|---|---|---|---|---|';

/* Loads the pair `runs` times, interleaved after one warm-up load each,
 * prints its row and returns its verdict. */
async function measurePair(name, ours, rust, runs) {
  const got = { ours: [], rust: [] };
  await loadOnce(ours); await loadOnce(rust); // warm the file cache
  for (let r = 0; r < runs; r++) {
    got.ours.push(await loadOnce(ours));
    got.rust.push(await loadOnce(rust));
  }
  /* A page that never reports a value (no contentful paint before the
   * measure ends) prints "-". */
  const med = (side, key) => {
    const v = got[side].map((m) => m[key]).filter((x) => x !== null &&
                                                       x !== undefined);
    return v.length ? median(v) : null;
  };
  const ms = (x) => (x === null ? '-' : x.toFixed(0));
  const kb = (f) => (statSync(f).size / 1024).toFixed(0);
  const diffs = got.ours.map((m, r) => m.load - got.rust[r].load);
  const interval = medianInterval(diffs);
  const said = verdict(interval);
  const signed = (x) => (x > 0 ? '+' : '') + x.toFixed(1);
  console.log(`| ${name} | ${kb(ours)} / ${kb(rust)} | ${ms(med('ours', 'load'))} / ` +
    `${ms(med('rust', 'load'))} | ${signed(interval.median)} ` +
    `[${signed(interval.low)}, ${signed(interval.high)}] ${said} | ` +
    `${ms(med('ours', 'fcp'))} / ` +
    `${ms(med('rust', 'fcp'))} | ${ms(med('ours', 'ready'))} / ` +
    `${ms(med('ours', 'coloured'))} | ` +
    `${ms(med('ours', 'script'))} / ${ms(med('rust', 'script'))} |`);
  return said;
}
try {
  console.log(`load average at the start: ${load()}`);
  console.log(header);
  const verdicts = { sooner: [], level: [], later: [] };
  const later = [];
  for (let t = 0; t < triples.length; t += 3) {
    const [name, ours, rust] = triples.slice(t, t + 3);
    const said = await measurePair(name, ours, rust, runs);
    verdicts[said].push(name);
    if (said === 'later') later.push([name, ours, rust]);
  }
  for (const [said, names] of Object.entries(verdicts))
    console.log(`${said}: ${names.length}${names.length ? ` (${names.join(', ')})` : ''}`);
  if (confirmRuns > 0 && later.length) {
    console.log(`\nthe pages later at 95%, loaded again (${confirmRuns} fresh pairs each; load average ${load()}):\n`);
    console.log(header);
    const confirmed = [];
    for (const [name, ours, rust] of later)
      if (await measurePair(name, ours, rust, confirmRuns) === 'later')
        confirmed.push(name);
    console.log(`later after a second pass: ${confirmed.length}${confirmed.length ? ` (${confirmed.join(', ')})` : ''}`);
  }
  console.log(`load average at the end: ${load()}`);
} finally {
  await browser.close();
}
