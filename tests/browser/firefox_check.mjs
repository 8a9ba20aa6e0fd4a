// firefox_check.mjs: the provenance pages in Firefox (Debian's firefox-esr,
// driven through WebDriver BiDi by puppeteer-core), so the page is checked in
// both browsers issue 4 names:
//
//   node tests/browser/firefox_check.mjs PAGE.html VIEW.json [PAGE VIEW ...]
//
// For each page: it opens from file:// with no network request and no script
// error, clicking each kernel call site (up to 12) highlights exactly the
// lines the view JSON links (expectCodeLine, the same rule as the Chromium
// checks) and the DOM agrees, a deep link restores a selection, and Esc
// clears, and nothing from the trace runs (no dialog, no planted global).
// Exit 77 = firefox-esr or puppeteer-core missing.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { check, domAgrees, eq, expectCodeLine, foreignRequests, highlighted, readView, results }
  from './lib.mjs';

const FIREFOX = '/usr/bin/firefox-esr';
const args = process.argv.slice(2);
if (!args.length || args.length % 2) {
  console.error('usage: firefox_check.mjs PAGE.html VIEW.json [PAGE VIEW ...]');
  process.exit(2);
}
if (!existsSync(FIREFOX)) {
  console.log(`SKIP: ${FIREFOX} is missing (install Debian's firefox-esr)`);
  process.exit(77);
}
let puppeteer;
try {
  puppeteer = (await import('puppeteer-core')).default;
} catch (e) {
  console.log('SKIP: puppeteer-core is not installed (run `npm ci` in tests/browser)');
  process.exit(77);
}

const browser = await puppeteer.launch({
  browser: 'firefox', executablePath: FIREFOX, headless: true,
  // No updates, telemetry or captive-portal probes: the page must be the
  // only thing loaded.
  extraPrefsFirefox: {
    'app.update.enabled': false, 'network.captive-portal-service.enabled': false,
    'toolkit.telemetry.enabled': false, 'datareporting.policy.dataSubmissionEnabled': false,
  },
});

async function open(file, hash) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1500, height: 900 });
  const url = pathToFileURL(file).href;
  const log = { errors: [], requests: [], dialogs: [] };
  page.on('pageerror', (e) => log.errors.push(String(e)));
  page.on('dialog', async (d) => { log.dialogs.push(d.message()); await d.dismiss(); });
  // data: URLs (a font inlined in the page's style) are not requests.
  page.on('request', (r) => {
    const u = r.url();
    if (u.split('#')[0] !== url && !u.startsWith('data:')) log.requests.push(u);
  });
  await page.goto(url + (hash || ''));
  await page.waitForFunction(() => typeof (window.tlprov || {}).select === 'function', { timeout: 15000 });
  return { page, log };
}

try {
  for (let i = 0; i < args.length; i += 2) {
    const name = 'firefox ' + args[i].split('/').pop().replace(/\.html$/, '');
    const view = readView(args[i + 1]);
    const { page, log } = await open(args[i]);
    const calls = [...new Set((view.kernels || []).flatMap((k) => k.calls || []))]
      .sort((a, b) => a - b).slice(0, 12);
    for (const line of calls) {
      // A real mouse click on the rendered line, after scrolling it into view.
      const at = await page.evaluate(async (l) => {
        window.tlprov.reveal('code', l);
        const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
        await frame();
        await frame();
        const r = document.querySelector(`.ln[data-panel="code"][data-line="${l}"]`)
          .getBoundingClientRect();
        return { x: r.left + 70, y: r.top + r.height / 2 };
      }, line);
      await page.mouse.click(at.x, at.y);
      const hl = await highlighted(page);
      eq(`${name}: click code:${line} highlights its links`, hl, expectCodeLine(view, line));
      eq(`${name}: DOM shows the highlight of code:${line}`, await domAgrees(page, hl), []);
    }
    await page.keyboard.press('Escape');
    eq(`${name}: Esc clears`, await highlighted(page),
      { pre: [], post: [], code: [], kernel: [] });
    check(`${name}: no script errors`, log.errors.length === 0, log.errors.join('; '));
    check(`${name}: no dialogs`, log.dialogs.length === 0, log.dialogs.join('; '));
    // The hostile cases plant `window.pwned=1` / `window.__pwned=1` in names
    // and code: nothing of the trace may run.
    eq(`${name}: nothing injected ran`,
      await page.evaluate(() => [window.pwned, window.__pwned]), [null, null]);
    const foreign = foreignRequests(log, pathToFileURL(args[i]).href);
    check(`${name}: no request but its static files`, foreign.length === 0, foreign.join(' '));
    await page.close();
    if (calls.length) {
      const line = calls[calls.length - 1];
      const deep = await open(args[i], `#code=${line}`);
      eq(`${name}: deep link #code=${line} restores the highlight`,
        await highlighted(deep.page), expectCodeLine(view, line));
      await deep.page.close();
    }
  }
} finally {
  await browser.close();
}
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed ? 1 : 0);
