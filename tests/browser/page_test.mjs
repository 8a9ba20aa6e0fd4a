// page_test.mjs: browser tests of the provenance highlighter page (ctest
// page_browser). Builds a page for every hand-written case under
// tests/page/cases/<name>/view.json with tl_make_page, runs the generic
// contract checks of lib.mjs on each (screenshots light and dark under
// OUT/shots), then the scenario checks below, whose expected lines were
// derived by reading the case files.
//
//   node page_test.mjs --make-page BIN --cases DIR --out DIR
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  check, checkContract, clickLine, domAgrees, eq, highlighted, launch, openPage,
  readView, results,
} from './lib.mjs';

const opt = {};
for (let i = 2; i < process.argv.length; i += 2) opt[process.argv[i].slice(2)] = process.argv[i + 1];
if (!opt['make-page'] || !opt.cases || !opt.out) {
  console.error('usage: page_test.mjs --make-page BIN --cases DIR --out DIR');
  process.exit(2);
}
mkdirSync(opt.out, { recursive: true });
// Every case twice: as tlparse writes a small page (texts as JSON strings),
// and with every text deflated, as it writes large texts (the loader
// inflates them); the scenarios run on both and expect the same.
const pages = {}, deflated = {};
for (const name of readdirSync(opt.cases).sort()) {
  const view = join(opt.cases, name, 'view.json');
  pages[name] = join(opt.out, `${name}.html`);
  execFileSync(opt['make-page'], [view, pages[name]]);
  deflated[name] = join(opt.out, `${name}-deflated.html`);
  execFileSync(opt['make-page'], [view, deflated[name]],
    { env: { ...process.env, TL_MAKE_PAGE_DEFLATE_AT: '0' } });
}
const NONE = { pre: [], post: [], code: [], kernel: [] };
const sel = (page) => page.evaluate(() => window.tlprov.selected());
const text = (page, css) => page.evaluate((css) =>
  Array.from(document.querySelectorAll(css)).map((e) => e.textContent).join('\n'), css);

async function jitScenarios(browser, pages) {
  const { page, context, log } = await openPage(browser, pages.jit);
  // Bold = lines that take part in a mapping.
  eq('jit: mapped lines are bold (class m), others not',
    await page.evaluate(() => ['8', '3'].map((l) =>
      document.querySelector(`.ln[data-panel="pre"][data-line="${l}"]`).classList.contains('m'))),
    [true, false]);
  eq('jit: Triton source inside the string is highlighted as Python',
    await text(page, '.ln[data-panel="code"][data-line="19"] .hljs-keyword'), 'def');

  // Hover previews without scrolling; leaving clears.
  const before = await page.evaluate(() => document.querySelectorAll('.tp-scroller')[2].scrollTop);
  await page.hover('.ln[data-panel="pre"][data-line="11"]', { position: { x: 70, y: 9 } });
  eq('jit: hovering pre:11 previews post 8,13 and code 83', await highlighted(page),
    { pre: [], post: [8, 13], code: [83], kernel: [] });
  eq('jit: hover does not scroll the code panel',
    await page.evaluate(() => document.querySelectorAll('.tp-scroller')[2].scrollTop), before);
  eq('jit: hover does not pin', (await sel(page)).pinned, false);
  await page.mouse.move(700, 880);
  await page.hover('.tp-top h1');
  eq('jit: leaving the panel clears the preview', await highlighted(page), NONE);

  // Click pins; n walks the targets with a counter; marks in the ruler.
  await clickLine(page, 'pre', 14);
  eq('jit: clicking pre:14 highlights post 11,12 and code 86,89', await highlighted(page),
    { pre: [], post: [11, 12], code: [86, 89], kernel: [] });
  eq('jit: DOM agrees for pre:14', await domAgrees(page, await highlighted(page)), []);
  eq('jit: code counter starts at 1/2',
    await text(page, '.tp-nav[data-panel="code"] .tp-count'), '1/2');
  eq('jit: code ruler has one mark per target',
    await page.evaluate(() => document.querySelectorAll('[data-box="code"] .tp-ruler .tp-mark').length), 2);
  await page.hover('.ln[data-panel="post"][data-line="1"]', { position: { x: 70, y: 9 } });
  eq('jit: hovering another line keeps the pinned selection', await highlighted(page),
    { pre: [], post: [11, 12], code: [86, 89], kernel: [] });
  await page.mouse.move(700, 880);
  await page.keyboard.press('n');
  eq('jit: n walks to the second code target',
    [await text(page, '.tp-nav[data-panel="code"] .tp-count'),
      await page.evaluate(() => !!document.querySelector('.ln.cur[data-panel="code"][data-line="89"]'))],
    ['2/2', true]);
  await page.keyboard.press('p');
  eq('jit: p walks back', await text(page, '.tp-nav[data-panel="code"] .tp-count'), '1/2');
  eq('jit: the fragment records the click', await page.evaluate(() => location.hash), '#pre=14');

  // Unmapped line or Esc clears.
  await clickLine(page, 'code', 2);
  eq('jit: clicking an unmapped line clears', await highlighted(page), NONE);
  await clickLine(page, 'post', 13);
  eq('jit: clicking post:13 highlights pre 11 and code 83', await highlighted(page),
    { pre: [11], post: [], code: [83], kernel: [] });
  await page.keyboard.press('Escape');
  eq('jit: Esc clears highlight and fragment',
    [await highlighted(page), await page.evaluate(() => location.hash)], [NONE, '']);

  // Go to definition and back.
  await clickLine(page, 'code', 86);
  await page.keyboard.press('g');
  eq('jit: g from call 86 selects the async_compile block at 35', (await sel(page)).lines, [35]);
  eq('jit: the definition highlights its call, nodes and pre lines', await highlighted(page),
    { pre: [14], post: [11], code: [86], kernel: [] });
  eq('jit: definition lines 35..47 carry def, 48 not',
    await page.evaluate(() => [35, 41, 47, 48].map((l) =>
      document.querySelector(`.ln[data-panel="code"][data-line="${l}"]`).classList.contains('def'))),
    [true, true, true, false]);
  await page.locator('.tp-goto').click();
  eq('jit: the Back button returns to call 86', (await sel(page)).lines, [86]);

  // Stack traces of the selected kernel, kernel table, coverage.
  eq('jit: stack trace of the selected kernel is shown',
    await text(page, '.tp-stacks .tp-frame'), 'model.py:13 in forwardd = a * 3.14');
  await page.locator('.tp-kernels summary').click();
  await page.waitForSelector('.tp-ktable tbody tr');
  // Fused ops from the post-grad node names, pre-grad nodes through
  // postToPre, user lines from the innermost frame of each stack trace.
  eq('jit: kernel table lists every kernel with its ops, pre-grad nodes and user lines',
    await page.evaluate(() => Array.from(document.querySelectorAll('.tp-ktable tbody tr'))
      .map((r) => Array.from(r.cells).map((c) => c.textContent))),
    [['extern_kernels.mm:1', 'extern', '77', 'mm', 'x', '\u2013', 'model.py:11'],
      ['triton_poi_fused_relu_threshold_backward_0:2', 'triton', '83', 'relu, le', 'x_1',
        'code 14\u201330', 'model.py:12, 14'],
      ['triton_poi_fused_mul_1:3', 'triton', '86', 'mul', 'd', 'code 35\u201347', 'model.py:13'],
      ['triton_poi_fused_mul_10:4', 'triton', '89', 'mul', 'd', 'code 52\u201363', '\u2013']]);
  eq('jit: a cut cell keeps the whole text for hover and copy',
    await page.evaluate(() => {
      const c = document.querySelector('.tp-ktable tbody tr[data-kernel^="triton_poi_fused_relu"] .tp-kname');
      return [c.textContent, c.title];
    }), ['triton_poi_fused_relu_threshold_backward_0:2', 'triton_poi_fused_relu_threshold_backward_0:2']);
  await page.locator('.tp-ktable tbody tr[data-kernel="triton_poi_fused_relu_threshold_backward_0:2"]').click();
  // Its two stack traces share their outer frame: shown once, x2, with the
  // inner frames under it; each caret span is marked on its source line.
  eq('jit: shared frames are merged with a count, caret spans marked',
    await page.evaluate(() => Array.from(document.querySelectorAll('.tp-stacks .tp-frame'))
      .map((f) => [f.querySelector('.tp-file').textContent,
        (f.querySelector('.tp-count-badge') || {}).textContent || '',
        (f.querySelector('mark') || {}).textContent || '', f.style.paddingLeft])),
    [['model.py:20 in forward', '\u00d72', 'self.block(x)', '0px'],
      ['model.py:12 in forward', '', 'self.relu(x)', '16px'],
      ['model.py:14 in forward', '', 'x <= 0', '16px']]);
  eq('jit: the bar counts the linked lines and the call',
    await text(page, '.tp-info > .tp-hint'), '\u2192 1 pre, 2 post, 1 call');
  eq('jit: clicking a kernel row selects that kernel',
    [await sel(page), await highlighted(page)],
    [{ panel: 'code', lines: [83], pinned: true,
      kernels: ['triton_poi_fused_relu_threshold_backward_0:2'] },
    { pre: [11], post: [8, 13], code: [], kernel: [] }]);
  check('jit: coverage counts mapped and unresolved names',
    (await text(page, '.tp-coverage')).includes(
      'pre-grad nodes 3 linked, 0 unresolved · post-grad nodes 6 linked, 1 unresolved · ' +
      'kernels 4 linked, 1 unresolved'), await text(page, '.tp-coverage'));
  await page.locator('.tp-unres summary').click();
  eq('jit: unresolved names are listed on demand', await text(page, '.tp-unresolved li'),
    'post-grad nodes: clone_3\nkernels: triton_poi_fused_missing_9:5');

  // Search: names across panels, Enter selects.
  await page.keyboard.press('Escape');
  await page.keyboard.press('/');
  await page.keyboard.type('mul_1');
  eq('jit: search lists the exact node first, then the kernels containing it',
    await text(page, '.tp-results li .tp-mono'),
    'mul_1\ntriton_poi_fused_mul_1:3\ntriton_poi_fused_mul_10:4');
  await page.keyboard.press('Enter');
  eq('jit: Enter selects post node mul_1', [(await sel(page)).lines, await highlighted(page)],
    [[12], { pre: [14], post: [], code: [89], kernel: [] }]);
  await page.keyboard.press('/');
  await page.keyboard.type('triton_poi_fused_mul_1');
  await page.keyboard.press('Enter');
  eq('jit: a bare kernel name finds its handle key first, not mul_10',
    (await sel(page)).kernels, ['triton_poi_fused_mul_1:3']);

  // Dividers resize the panels.
  const w0 = await page.evaluate(() => document.querySelector('[data-box="pre"]').offsetWidth);
  const d = await page.locator('.tp-divider').first().boundingBox();
  await page.mouse.move(d.x + 2, d.y + 100);
  await page.mouse.down();
  await page.mouse.move(d.x - 198, d.y + 100, { steps: 4 });
  await page.mouse.up();
  const w1 = await page.evaluate(() => document.querySelector('[data-box="pre"]').offsetWidth);
  check('jit: dragging the first divider 200px left narrows the pre panel by 200px',
    Math.abs(w0 - w1 - 200) <= 2, `${w0} -> ${w1}`);
  eq('jit: no script errors in the scenarios', log.errors, []);
  await context.close();

  // Deep links restore selections.
  for (const [hash, want, wantSel] of [
    ['#post=13', { pre: [11], post: [], code: [83], kernel: [] }, ['post', [13]]],
    ['#kernel=triton_poi_fused_mul_10:4', { pre: [14], post: [12], code: [], kernel: [] }, ['code', [89]]],
    ['#code=207', NONE, [null, []]],
  ]) {
    const deep = await openPage(browser, pages.jit, { hash });
    const s = await sel(deep.page);
    eq(`jit: deep link ${hash}`, [await highlighted(deep.page), s.panel, s.lines],
      [want, ...wantSel]);
    await deep.context.close();
  }
}

async function aotScenarios(browser, pages) {
  const { page, context } = await openPage(browser, pages.aot_cpu);
  await clickLine(page, 'pre', 8);
  eq('aot: pre:8 reaches post 8-10, call 35 and the kernel body at kernel:2',
    await highlighted(page), { pre: [], post: [8, 9, 10], code: [35], kernel: [2] });
  eq('aot: the code tab stays shown', await page.evaluate(() =>
    [!!document.querySelector('.ln[data-panel="code"][data-line="35"]'),
      !!document.querySelector('.ln[data-panel="kernel"]')]), [true, false]);
  await clickLine(page, 'code', 35);
  await page.keyboard.press('g');
  eq('aot: g opens the kernel-code tab at cpp_fused_gelu_0',
    [await sel(page), await highlighted(page)],
    [{ panel: 'kernel', lines: [2], pinned: true, kernels: ['cpp_fused_gelu_0:2'] },
      { pre: [8], post: [8, 9, 10], code: [35], kernel: [] }]);
  eq('aot: kernel tab rows show the definition range',
    await page.evaluate(() => [2, 16].map((l) =>
      document.querySelector(`.ln[data-panel="kernel"][data-line="${l}"]`).className)),
    ['ln m def sel', 'ln def']);
  eq('aot: stack trace without trailing newline is parsed',
    await text(page, '.tp-stacks .tp-frame'),
    'model.py:21 in forwardz = torch.nn.functional.gelu(y)');
  await page.keyboard.press('g');
  eq('aot: g goes back to the call site in the wrapper tab',
    [(await sel(page)).panel, (await sel(page)).lines,
      await page.evaluate(() => !!document.querySelector('.ln[data-panel="code"][data-line="35"]'))],
    ['code', [35], true]);
  await context.close();
  const deep = await openPage(browser, pages.aot_cpu, { hash: '#kcode=5' });
  eq('aot: #kcode=5 (inside the kernel body) selects that kernel',
    [(await sel(deep.page)).kernels, await highlighted(deep.page)],
    [['cpp_fused_gelu_0:2'], { pre: [8], post: [8, 9, 10], code: [35], kernel: [2] }]);
  await deep.context.close();
}

async function hostileScenarios(browser, pages) {
  const { page, context, log } = await openPage(browser, pages.hostile);
  await clickLine(page, 'code', 9);
  await page.locator('.tp-unres summary').click();
  await page.locator('.tp-kernels summary').click();
  await page.keyboard.press('/');
  await page.keyboard.type('<img');
  // Scripts: the view and four texts (data), the loader, and the two it
  // added from static/; nothing from the trace made a script element.
  eq('hostile: names and code render as text', await page.evaluate(() => [
    document.querySelector('.ln[data-panel="pre"][data-line="3"] .s').textContent,
    document.title,
    document.querySelectorAll('img, svg, iframe').length,
    document.scripts.length]),
  ['        a_</script><script>window.pwned=1</script>: "f32[2]cpu" = x + 1',
    'Provenance [0/0]</title><script>window.pwned=10</script> -_0_0_0 - tlparse', 0, 8]);
  check('hostile: U+2028 stays inside its line',
    (await text(page, '.ln[data-panel="code"][data-line="3"]')).includes('[\u2028]'));
  check('hostile: unresolved names are text',
    (await text(page, '.tp-unresolved')).includes('<img src=x onerror=window.pwned=11>'));
  await page.waitForTimeout(200);
  eq('hostile: nothing ran and no dialog opened',
    [await page.evaluate(() => window.pwned), log.dialogs, log.errors], [undefined, [], []]);
  await context.close();
}

async function noMappingScenarios(browser, pages) {
  const { page, context } = await openPage(browser, pages.no_mapping);
  const banner = await text(page, '.tp-banner');
  check('no_mapping: the banner says why and how to record the mapping',
    banner.includes('no inductor_provenance_tracking_node_mappings artifact') &&
    banner.includes('INDUCTOR_PROVENANCE=1') && banner.includes('TORCH_COMPILE_DEBUG=1') &&
    banner.includes('-i'), banner);
  eq('no_mapping: panels still render; the absent one says so', [
    await page.evaluate(() => window.tlprov.lineCount('pre')),
    await text(page, '[data-box="post"] .tp-empty')],
  [5, 'The trace has no post-grad graph for this compilation.']);
  await clickLine(page, 'pre', 3);
  eq('no_mapping: clicking a line highlights nothing', await highlighted(page), NONE);
  await context.close();
}

// The page's policy, tried as if some trace text had been mis-escaped:
// script elements planted in the HTML (one naming a file of static/, one
// inline) must not run, while the loader's scripts do. And a page whose
// static/ folder is missing says so instead of staying blank.
async function policyScenarios(browser) {
  const dir = join(opt.out, 'planted');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'static'), { recursive: true });
  for (const f of ['highlight.min.js', 'provenance.js', 'provenance.css']) {
    writeFileSync(join(dir, 'static', f), readFileSync(join(opt.out, 'static', f)));
  }
  writeFileSync(join(dir, 'static', 'planted.js'), 'window.pwned = "file";\n');
  const html = readFileSync(pages.jit, 'utf8').replace('<div id="tlprov"',
    '<script src="static/planted.js"></script><script>window.pwned = "inline";</script>' +
    '<img src="x" onerror="window.pwned = \'handler\'"><div id="tlprov"');
  writeFileSync(join(dir, 'jit.html'), html);
  const { page, context } = await openPage(browser, join(dir, 'jit.html'));
  eq('policy: planted script elements do not run; the loader\'s scripts do',
    await page.evaluate(() => [window.pwned, window.tlprov.lineCount('pre') > 0]),
    [undefined, true]);
  await context.close();

  const bare = join(opt.out, 'no-static');
  rmSync(bare, { recursive: true, force: true });
  mkdirSync(bare);
  writeFileSync(join(bare, 'jit.html'), readFileSync(pages.jit));
  const context2 = await browser.newContext();
  const page2 = await context2.newPage();
  await page2.goto(pathToFileURL(join(bare, 'jit.html')).href);
  await page2.waitForFunction(() => document.querySelector('.tp-info').textContent
    .includes('provenance.js'), null, { timeout: 10000 }).catch(() => {});
  eq('policy: without static/ the page says what is missing, under the lines it shows',
    await page2.evaluate(() => [document.querySelector('.tp-info').textContent,
      document.querySelector('.ln[data-panel="pre"][data-line="1"]') !== null]),
    ['The highlighter cannot start: static/provenance.js is missing beside this page.', true]);
  await context2.close();

  // Without static/highlight.min.js the page works in plain text and says
  // why it has no colours.
  const plain = join(opt.out, 'no-hljs');
  rmSync(plain, { recursive: true, force: true });
  mkdirSync(join(plain, 'static'), { recursive: true });
  for (const f of ['provenance.js', 'provenance.css']) {
    writeFileSync(join(plain, 'static', f), readFileSync(join(opt.out, 'static', f)));
  }
  writeFileSync(join(plain, 'jit.html'), readFileSync(pages.jit));
  const p3 = await openPage(browser, join(plain, 'jit.html'));
  await clickLine(p3.page, 'pre', 14);
  eq('policy: without highlight.min.js the page links in plain text and says why',
    [await highlighted(p3.page), await p3.page.evaluate(() =>
      [document.querySelectorAll('[class^="hljs-"]').length,
        document.querySelector('.tp-coverage').textContent.includes(
          'no syntax colours (static/highlight.min.js could not be loaded)')])],
    [{ pre: [], post: [11, 12], code: [86, 89], kernel: [] }, [0, true]]);
  await p3.context.close();
}

// A deflated page in a browser that cannot inflate says so in its panels
// (DecompressionStream is removed before the loader runs) and still starts.
async function deflateScenarios(browser) {
  const { page, context } = await openPage(browser, deflated.jit, {
    init: () => { delete window.DecompressionStream; } });
  eq('deflate: a panel this browser cannot inflate says why',
    await page.evaluate(() => document.querySelector('[data-box="code"] .tp-empty').textContent),
    'This browser could not inflate the generated code (it is stored deflated; ' +
    'DecompressionStream needs Chrome 103, Firefox 113, Safari 16.4 or later).');
  eq('deflate: the page still starts, every panel (all deflated here) saying so',
    await page.evaluate(() => ['pre', 'post', 'code'].map((p) => [window.tlprov.lineCount(p),
      document.querySelector(`[data-box="${p}"] .tp-empty`).textContent.slice(0, 36)])),
    [[0, 'This browser could not inflate the p'], [0, 'This browser could not inflate the p'],
      [0, 'This browser could not inflate the g']]);
  await context.close();
}

// Every panel shows its artifact's lines as written: a carriage return
// before a newline is dropped, a final newline ends the last line (it
// starts no empty one), and the rows on screen hold the file's text
// (tests/page/cases/line_endings: CRLF, a lone CR line, no final newline).
async function linesAsWritten(browser, label, name, file) {
  const view = readView(join(opt.cases, name, 'view.json'));
  const { page, context } = await openPage(browser, file);
  const panels = [['pre', 'pre_grad_graph'], ['post', 'post_grad_graph'], ['code', 'code'],
    ['kernel', 'kernel_code']];
  for (const [p, key] of panels) {
    const path = (view.artifacts || {})[key];
    if (!path) continue;
    let lines = readFileSync(join(opt.cases, name, path), 'utf8').split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    lines = lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
    const got = await page.evaluate((p) => ({
      n: window.tlprov.lineCount(p),
      rows: Array.from(document.querySelectorAll(`.ln[data-panel="${p}"]`)).map((r) =>
        [Number(r.dataset.line), r.querySelector('.s').textContent]),
    }), p);
    eq(`${label}: ${p} has the ${lines.length} lines of ${path}`, got.n, lines.length);
    eq(`${label}: ${p} rows show the lines of ${path}`, got.rows,
      got.rows.map(([l]) => [l, lines[l - 1]]));
  }
  await context.close();
}

const browser = await launch();
try {
  for (const name of Object.keys(pages)) {
    await linesAsWritten(browser, name, name, pages[name]);
    await linesAsWritten(browser, name + '-deflated', name, deflated[name]);
  }
  for (const name of Object.keys(pages)) {
    await checkContract(browser, name, pages[name],
      readView(join(opt.cases, name, 'view.json')), join(opt.out, 'shots'));
  }
  for (const [form, set] of [['plain', pages], ['deflated', deflated]]) {
    console.log(`-- scenarios on the ${form} pages`);
    await jitScenarios(browser, set);
    await aotScenarios(browser, set);
    await hostileScenarios(browser, set);
    await noMappingScenarios(browser, set);
  }
  for (const name of Object.keys(deflated)) {
    await checkContract(browser, name + '-deflated', deflated[name],
      readView(join(opt.cases, name, 'view.json')), join(opt.out, 'shots'));
  }
  await policyScenarios(browser);
  await deflateScenarios(browser);
} finally {
  await browser.close();
}
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed ? 1 : 0);
