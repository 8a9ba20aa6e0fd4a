// nothing_runs.mjs: opens each page given on the command line in headless
// Chromium and reports, as one JSON line, whether anything from the trace ran.
//
//   node nothing_runs.mjs PAGE.html...
//
// A page "ran something" when it set window.__pwned, opened a dialog
// (alert/confirm/prompt), or has a clickable javascript:/data:/vbscript:
// link. Prints {"page": {"pwned": bool, "dialogs": n, "badLinks": [...],
// "errors": [...]}, ...}. Exit 77 when playwright-core or chromium is absent.
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "browser", "package.json"));
const CHROMIUM = "/usr/bin/chromium";
let playwright;
try {
  playwright = require("playwright-core");
} catch {
  console.log("playwright-core is not installed in tests/browser: skipped");
  process.exit(77);
}
if (!existsSync(CHROMIUM)) {
  console.log(`${CHROMIUM} is absent: skipped`);
  process.exit(77);
}

const browser = await playwright.chromium.launch({
  executablePath: CHROMIUM,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"],
});
const results = {};
try {
  for (const file of process.argv.slice(2)) {
    const page = await browser.newPage();
    const r = { pwned: false, dialogs: 0, badLinks: [], errors: [] };
    page.on("dialog", async (d) => { r.dialogs++; await d.dismiss(); });
    page.on("pageerror", (e) => r.errors.push(String(e.message || e)));
    await page.goto(pathToFileURL(resolve(file)).href, { waitUntil: "load" });
    await page.waitForTimeout(300);
    // Hover and click every element that could carry an event handler.
    r.pwned = await page.evaluate(async () => {
      for (const el of document.querySelectorAll("body *")) {
        for (const type of ["mouseover", "focus", "click"]) {
          if (el.tagName === "A") continue; // navigation is checked below
          el.dispatchEvent(new Event(type, { bubbles: true }));
        }
      }
      await new Promise((ok) => setTimeout(ok, 100));
      return window.__pwned === 1;
    });
    r.badLinks = await page.evaluate(() =>
      [...document.querySelectorAll("a[href], area[href], iframe, embed, object")]
        .map((a) => a.href || a.src || a.data || "")
        .filter((h) => /^\s*(javascript|data|vbscript):/i.test(h)));
    results[file] = r;
    await page.close();
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(results));
