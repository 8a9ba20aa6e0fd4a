/* boot.js: when the page script starts (joined last, outside the function
 * `start` that holds every other module: assets/concat.cmake). The page's
 * loader adds provenance.js from its <head>, so the script is fetched and
 * compiled while the HTML is still being read; it starts once the document
 * is parsed, after inflating the texts that came deflated
 * (tl_provpage_deflate_at, src/provpage.h) into window.tlprovInflated,
 * where data.js reads them (null for a text this browser could not
 * inflate).
 */
  function inflateThenStart() {
    var packed = document.querySelectorAll('script[data-deflate]');
    if (!packed.length) { start(); return; }
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
    })).then(start);
  }
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', inflateThenStart);
  } else {
    inflateThenStart();
  }
