// guide_shots.mjs: makes the screenshots of docs/user-guide.md from the
// traces recorded with torch 2.13 under examples/rec-*, in Debian's headless
// chromium through playwright-core (as the browser tests do, lib.mjs).
//
//   node tests/browser/guide_shots.mjs [--tlparse build/tlparse] [--out docs/images]
//
// Paths are taken from the repository root, whatever the current folder. The
// traces are passed to tlparse by paths relative to the root, so the pages
// show `examples/rec-jit-cpu/trace.log`, not a path of the machine; the
// reports are written into a temporary folder that is removed afterwards.
//
// Writes (the plain pages whole at 1100 px wide, the highlighter pages at
// 1500x1000):
//   index.png             the index of examples/rec-jit-cpu/trace.log (-i)
//   highlighter.png       its provenance page of [0/0] with the last call of
//                         cpp_fused_add_gelu_native_layer_norm_1 (handle 6)
//                         clicked: the third block lights up in all panels
//   highlighter-dark.png  the same in the dark theme
//   draft-export.png      the Draft Export Report (-e) of examples/rec-draft-export
//   multi-rank.png        the --all-ranks-html landing page of examples/rec-gloo-2rank
//   profile.png           the highlighter of examples/rec-profile with --profile:
//                         "Where the time goes", the top model line clicked
//   run-diff.png          `tlparse diff` of examples/rec-change-before and
//                         rec-change-after: the comparison's index
// The cache markers (❌, ✅) of the index need an emoji font
// (Debian: fonts-noto-color-emoji).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launch, openPage } from './lib.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const opt = { tlparse: 'build/tlparse', out: 'docs/images' };
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i].replace(/^--/, '');
  if (!(k in opt) || process.argv[i + 1] === undefined) {
    console.error('usage: guide_shots.mjs [--tlparse BIN] [--out DIR]');
    process.exit(2);
  }
  opt[k] = process.argv[i + 1];
}
const bin = resolve(ROOT, opt.tlparse);
const outDir = resolve(ROOT, opt.out);
const work = mkdtempSync(join(tmpdir(), 'guide-shots-'));

// tlparse ARGS..., run from the repository root into work/NAME.
function report(name, ...args) {
  const dir = join(work, name);
  execFileSync(bin, [...args, '-o', dir, '--overwrite', '--no-browser'],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return dir;
}

async function shot(page, name, fullPage = false) {
  const path = join(outDir, name);
  await page.screenshot({ path, fullPage });
  console.log(`wrote ${opt.out}/${name}`);
}

// A plain report page (not the highlighter): no window.tlprov to wait for.
// Shot as a whole (fullPage), at least 400 px high.
async function plainPage(browser, file) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 400 }, colorScheme: 'light' });
  const page = await context.newPage();
  await page.goto(pathToFileURL(file).href);
  return { page, context };
}

// The kernel call the guide walks through: the last cpp_fused_* call.
const KERNEL = 'cpp_fused_add_gelu_native_layer_norm_1:6';

const browser = await launch();
try {
  const jit = report('jit', 'examples/rec-jit-cpu/trace.log', '-i');
  {
    const { page, context } = await plainPage(browser, join(jit, 'index.html'));
    await shot(page, 'index.png', true);
    await context.close();
  }
  const view = JSON.parse(readFileSync(join(jit, 'provenance_tracking_-_0_0_0.json'), 'utf8'));
  const kernel = view.kernels.find((k) => k.key === KERNEL);
  if (!kernel || !(kernel.calls || []).length) throw new Error(`${KERNEL} has no call in the view of [0/0]`);
  for (const scheme of ['light', 'dark']) {
    const { page, context } = await openPage(browser, join(jit, 'provenance_tracking_-_0_0_0.html'),
      { colorScheme: scheme });
    await page.setViewportSize({ width: 1500, height: 1000 });
    const line = kernel.calls[0];
    await page.evaluate((l) => window.tlprov.reveal('code', l), line);
    await page.locator(`.ln[data-panel="code"][data-line="${line}"]`).click({ position: { x: 70, y: 9 } });
    // The bar under the panels that lists the model lines opens with the
    // selection and makes the panels shorter; bring the first linked line of
    // each graph panel back into view (as a reader would scroll).
    await page.evaluate(() => {
      const hl = window.tlprov.highlighted();
      window.tlprov.reveal('pre', hl.pre[0]);
      window.tlprov.reveal('post', hl.post[0]);
    });
    await page.waitForTimeout(300);
    await shot(page, scheme === 'light' ? 'highlighter.png' : 'highlighter-dark.png');
    await context.close();
  }

  const exp = report('export', 'examples/rec-draft-export/trace.log', '-e');
  {
    const { page, context } = await plainPage(browser, join(exp, 'index.html'));
    await shot(page, 'draft-export.png', true);
    await context.close();
  }

  const ranks = report('ranks', 'examples/rec-gloo-2rank', '--all-ranks-html', '-i');
  {
    const { page, context } = await plainPage(browser, join(ranks, 'index.html'));
    await shot(page, 'multi-rank.png', true);
    await context.close();
  }

  const prof = report('profile', 'examples/rec-profile/trace.log',
    '--profile', 'examples/rec-profile/profile.json.gz');
  {
    const { page, context } = await openPage(browser, join(prof, 'provenance_tracking_-_0_0_0.html'));
    await page.setViewportSize({ width: 1500, height: 1000 });
    await page.click('.tp-toplines tr[data-kernel]');
    await page.evaluate(() => {
      const hl = window.tlprov.highlighted();
      window.tlprov.reveal('pre', hl.pre[0]);
      window.tlprov.reveal('post', hl.post[0]);
    });
    await page.waitForTimeout(300);
    await shot(page, 'profile.png');
    await context.close();
  }

  const diff = report('diff', 'diff', 'examples/rec-change-before/trace.log',
    'examples/rec-change-after/trace.log', '-i');
  {
    const { page, context } = await plainPage(browser, join(diff, 'index.html'));
    await shot(page, 'run-diff.png', true);
    await context.close();
  }
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
