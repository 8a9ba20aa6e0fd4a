/* boot.js: when the page script starts (joined last, outside the function
 * `start` that holds every other module: assets/concat.cmake). The page's
 * loader adds provenance.js once the first lines tlparse wrote are on
 * screen (after the first contentful paint; a page too large for a first
 * paint adds it from its <head>, so that it is fetched and compiled while
 * the HTML is still being read); it starts once the load event has passed,
 * after inflating the texts that came deflated
 * (tl_provpage_deflate_at, src/provpage.h) into window.tlprovInflated,
 * where data.js reads them (null for a text this browser could not
 * inflate).
 */
  function inflateThenStart() {
    var packed = document.querySelectorAll('script[data-deflate]');
    if (!packed.length) { inflated = true; go(); return; }
    var texts = {};
    window.tlprovInflated = texts;
    Promise.all([].map.call(packed, function (e) {
      return Promise.resolve().then(function () {
        var b = atob(e.textContent), u = new Uint8Array(b.length);
        for (var i = 0; i < b.length; i++) u[i] = b.charCodeAt(i);
        return new Response(new Blob([u]).stream().pipeThrough(
          new DecompressionStream('deflate-raw'))).arrayBuffer();
      }).then(function (buf) {
        texts[e.id] = new TextDecoder('utf-8', {ignoreBOM: true}).decode(buf);
      }).catch(function () { texts[e.id] = null; });
    })).then(function () { inflated = true; go(); });
  }
  /* The page shows its first lines without a script (src/provpage_paint.c):
   * the script starts once the load event has passed, so that it never
   * holds it, and replaces those lines with its own in one task. Deflated
   * texts are inflated meanwhile, from the end of the parse. A page with a
   * first paint carries only that paint's style rules; the loader adds the
   * whole style sheet (#tlprov-css) with this script, and the script starts
   * once the sheet has loaded (or failed to), so that its panels are never
   * drawn half styled. */
  var loaded = document.readyState === 'complete', inflated = false;
  var sheet = document.getElementById('tlprov-css');
  var styled = !sheet || sheet.sheet !== null;
  function go() { if (loaded && inflated && styled) start(); }
  function whenStyled() { styled = true; go(); }
  if (!styled) {
    sheet.addEventListener('load', whenStyled);
    sheet.addEventListener('error', whenStyled);
  }
  function whenParsed() { inflateThenStart(); }
  if (!loaded) {
    window.addEventListener('load', function () {
      setTimeout(function () { loaded = true; go(); }, 0);
    });
  }
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', whenParsed);
  } else {
    whenParsed();
  }
