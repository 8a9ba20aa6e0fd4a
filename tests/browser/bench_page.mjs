// bench_page.mjs: speed of the provenance page on a big synthetic view (not a
// test: it prints figures for docs/performance.md, section "Highlighter page").
//
//   node tests/browser/bench_page.mjs --make-page BUILD/tl_make_page \
//        --out BUILD/bench [--lines 100000] [--runs 5]
//
// Generates pre-grad, post-grad and output-code texts of LINES lines each
// (one FX node per graph line, one Triton kernel per 10 post-grad nodes:
// definition block with embedded source + a call site), a view JSON linking
// them, the page (tl_make_page), then opens it in headless chromium RUNS times:
//   open      navigation start -> end of provenance.js (performance.now()),
//             goto() -> window.tlprov defined, as seen by the driver, and the
//             renderer main thread's CPU time in ParseHTML (Chrome trace thread
//             duration; it includes running the inline scripts), which does
//             not grow when other processes compete for the cores
//   hover     one preview update: mouseover dispatched on a rendered line ->
//             classes applied and style/layout flushed (200 lines, all panels)
//   pin       click-pin of a call site: highlight, scroll the other panels to
//             their first target, render and syntax-highlight them
//   scroll    jump a panel to a random place and render it (incl. highlight.js)
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, openPage } from './lib.mjs';

const opt = { lines: '100000', runs: '5' };
for (let i = 2; i < process.argv.length; i += 2) opt[process.argv[i].slice(2)] = process.argv[i + 1];
if (!opt['make-page'] || !opt.out) {
  console.error('usage: bench_page.mjs --make-page BIN --out DIR [--lines N] [--runs R]');
  process.exit(2);
}
const N = Number(opt.lines), RUNS = Number(opt.runs);
mkdirSync(opt.out, { recursive: true });

// ---- the synthetic view ------------------------------------------------------
const HEAD = 2, nodes = N - HEAD;
const pre = ['class GraphModule(torch.nn.Module):',
  '    def forward(self, x: "f32[8, 16][16, 1]cuda:0"):'];
const post = ['class GraphModule(torch.nn.Module):',
  '    def forward(self, primals_1: "f32[8, 16][16, 1]cuda:0"):'];
for (let i = 0; i < nodes; i++) {
  const prev = i ? `n${i - 1}` : 'x';
  pre.push(`        n${i}: "f32[8, 16][16, 1]cuda:0" = torch.ops.aten.mul.Tensor(${prev}, 2.0);  ${prev} = None`);
  const pprev = i ? `p${i - 1}` : 'primals_1';
  post.push(`        p${i}: "f32[8, 16][16, 1]cuda:0" = torch.ops.aten.add.Tensor(${pprev}, 1);  ${pprev} = None`);
}
const preToPost = {}, postToPre = {}, codeToPost = {}, postToCode = {};
for (let i = 0; i < nodes; i++) {
  const targets = [HEAD + i + 1];
  if (i + 1 < nodes) targets.push(HEAD + i + 2);
  preToPost[HEAD + i + 1] = targets;
  for (const t of targets) (postToPre[t] = postToPre[t] || []).push(HEAD + i + 1);
}
// Code: K kernels of 8 definition lines each, then `def call` with 2 lines
// per kernel (handle comment + call), padded to N lines.
const K = Math.floor((N - 4) / 10), code = ['# AOT ID: [\'0_forward\']', ''];
const kernels = [], embedded = [];
for (let k = 0; k < K; k++) {
  const first = code.length + 1, name = `triton_poi_fused_add_${k}`;
  code.push(`${name} = async_compile.triton('${name}', '''`,
    '@triton.jit',
    `def ${name}(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):`,
    '    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:]',
    '    tmp0 = tl.load(in_ptr0 + (xindex), xindex < xnumel)',
    '    tl.store(out_ptr0 + (xindex), tmp0 + 1.0, xindex < xnumel)',
    '\'\'\', device_str=\'cuda\')', '');
  embedded.push({ file: 'code', first: first + 1, last: first + 5, language: 'python' });
  kernels.push({ key: `${name}:${k + 1}`, name, handle: k + 1, kind: 'triton', calls: [],
    definition: { file: 'code', first, last: first + 6 }, post_nodes: [], stack_traces: [] });
}
code.push('def call(args):');
for (let k = 0; k < K; k++) {
  code.push(`    # [Provenance debug handles] ${kernels[k].key}`);
  code.push(`    ${kernels[k].name}.run(buf${k}, buf${k + 1}, 128, stream=stream0)`);
  const line = code.length, posts = [];
  for (let j = k * 10; j < Math.min(nodes, k * 10 + 10); j++) posts.push(HEAD + j + 1);
  kernels[k].calls = [line];
  kernels[k].post_nodes = posts.map((l) => `p${l - HEAD - 1}`);
  codeToPost[line] = posts;
  for (const p of posts) postToCode[p] = [line];
}
while (code.length < N) code.push('    pass');
const view = {
  schema: 1, compile_dir: '-_0_0_0', compile_id: '[0/0]', mode: 'jit', mapping_version: 2,
  artifacts: { pre_grad_graph: 'pre.txt', post_grad_graph: 'post.txt', code: 'code.py',
    kernel_code: null, node_mappings: null },
  lines: { preToPost, postToPre, codeToPost, postToCode },
  nodes: {
    pre: Object.fromEntries(Array.from({ length: nodes }, (_, i) => [`n${i}`, HEAD + i + 1])),
    post: Object.fromEntries(Array.from({ length: nodes }, (_, i) => [`p${i}`, HEAD + i + 1])),
  },
  kernels, embedded, unresolved: { pre_nodes: [], post_nodes: [], kernels: [] },
};
writeFileSync(join(opt.out, 'pre.txt'), pre.join('\n') + '\n');
writeFileSync(join(opt.out, 'post.txt'), post.join('\n') + '\n');
writeFileSync(join(opt.out, 'code.py'), code.join('\n') + '\n');
writeFileSync(join(opt.out, 'view.json'), JSON.stringify(view));
const html = join(opt.out, 'bench.html');
let t = performance.now();
execFileSync(opt['make-page'], [join(opt.out, 'view.json'), html]);
const makeMs = performance.now() - t;

// ---- measurements ------------------------------------------------------------
function stats(xs) {
  const s = xs.slice().sort((a, b) => a - b);
  const pick = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: pick(0.5), p95: pick(0.95), max: s[s.length - 1] };
}
const f = (x) => x.toFixed(1);
// Main-thread CPU from the first request to the 'tlprov-ready' mark.
async function traceOpen(browser) {
  const ctx = await browser.newContext({ viewport: { width: 1500, height: 900 } });
  const page = await ctx.newPage();
  const client = await ctx.newCDPSession(page);
  const events = [];
  client.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const done = new Promise((res) => client.once('Tracing.tracingComplete', res));
  await client.send('Tracing.start', { transferMode: 'ReportEvents', traceConfig: {
    includedCategories: ['devtools.timeline', 'blink.user_timing', '__metadata'] } });
  await page.goto(pathToFileURL(html).href);
  await page.waitForFunction(() => typeof (window.tlprov || {}).select === 'function');
  await client.send('Tracing.end');
  await done;
  await ctx.close();
  const main = new Set(events.filter((e) => e.name === 'thread_name' &&
    e.args.name === 'CrRendererMain').map((e) => e.pid + ':' + e.tid));
  const mark = events.find((e) => e.name === 'tlprov-ready');
  const onMain = events.filter((e) => main.has(e.pid + ':' + e.tid) && e.ph === 'X' &&
    mark && e.ts <= mark.ts).sort((a, b) => a.ts - b.ts);
  let parse = 0, script = 0;
  for (const e of onMain) {
    if (e.name === 'ParseHTML') parse += e.tdur || 0;
    if (e.name === 'EvaluateScript') script += e.tdur || 0;
  }
  return { parse: parse / 1000, script: script / 1000 };
}
const browser = await launch();
const runs = [];
try {
  for (let r = 0; r < RUNS; r++) {
    const cpu = await traceOpen(browser);
    const t0 = performance.now();
    const { page, context, log } = await openPage(browser, html);
    const gotoMs = performance.now() - t0;
    const m = await page.evaluate(async () => {
      const nav = performance.getEntriesByType('navigation')[0];
      const readyAt = performance.now(); // first evaluate runs after the script
      const frame = () => new Promise((res) => requestAnimationFrame(() => res()));
      const hover = [];
      for (let i = 0; i < 200; i++) {
        const rows = document.querySelectorAll('.ln[data-panel]');
        const row = rows[(i * 37) % rows.length];
        const t1 = performance.now();
        row.dispatchEvent(new MouseEvent('mouseover', { bubbles: true, clientX: i + 1, clientY: 1 }));
        void document.body.offsetHeight; // flush style and layout
        hover.push(performance.now() - t1);
      }
      const pin = [], scroll = [];
      const calls = Object.keys(JSON.parse(document.getElementById('tlprov-view').textContent)
        .lines.codeToPost).map(Number);
      for (let i = 0; i < 30; i++) {
        const line = calls[Math.floor((i + 0.5) / 30 * calls.length)];
        await frame();
        const t1 = performance.now();
        window.tlprov.select('code', line);
        await Promise.resolve(); // the queued scroll writes
        void document.body.offsetHeight;
        pin.push(performance.now() - t1);
      }
      window.tlprov.clear();
      const sc = document.querySelectorAll('.tp-scroller');
      for (let i = 0; i < 30; i++) {
        const s = sc[i % 3];
        await frame();
        const t1 = performance.now();
        s.scrollTop = ((i * 7919) % 1000) / 1000 * s.scrollHeight;
        s.dispatchEvent(new Event('scroll'));
        await frame();
        scroll.push(performance.now() - t1);
      }
      return { scriptEnd: readyAt, domInteractive: nav.domInteractive,
        script: window.tlprov.readyMs, hover, pin, scroll };
    });
    runs.push({ gotoMs, ...m, cpu, errors: log.errors.length });
    await context.close();
  }
} finally {
  await browser.close();
}
const size = statSync(html).size / 1e6;
console.log(`page: ${N} lines per panel, ${K} kernels, ${size.toFixed(1)} MB; ` +
  `tl_make_page ${f(makeMs)} ms`);
for (const r of runs) {
  console.log(`open: goto->ready ${f(r.gotoMs)} ms, nav->ready ${f(r.scriptEnd)} ms ` +
    `(HTML parsed at ${f(r.domInteractive)} ms, provenance.js ${f(r.script)} ms); ` +
    `main-thread CPU: ParseHTML ${f(r.cpu.parse)} ms incl. scripts ${f(r.cpu.script)} ms; ` +
    `hover ${JSON.stringify(stats(r.hover), (k, v) => typeof v === 'number' ? +v.toFixed(2) : v)}; ` +
    `pin ${JSON.stringify(stats(r.pin), (k, v) => typeof v === 'number' ? +v.toFixed(2) : v)}; ` +
    `scroll ${JSON.stringify(stats(r.scroll), (k, v) => typeof v === 'number' ? +v.toFixed(2) : v)}; ` +
    `errors ${r.errors}`);
}
