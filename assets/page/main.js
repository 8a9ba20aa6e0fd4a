/* main.js: start (last module): first paint, the deep link of the URL,
 * and window.tlprov, the interface the browser tests drive.
 */
  /* ---- start -------------------------------------------------------------- */
  /* The first render estimates each panel's height from the window's
   * (read without a layout) less the bars above and below the panels
   * (first-paint.css: the bottom area is 26vh, clamped to 84..280 px):
   * asking the panels for theirs here would lay the page out once before
   * its rows are in and once after. The ResizeObserver measures them after
   * the first layout and renders what the estimate missed. */
  var wh = window.innerHeight;
  PANELS.forEach(function (p) {
    V[p].h = Math.max(LH * 8, wh - Math.min(280, Math.max(84, 0.26 * wh)) - 90);
  });
  Object.keys(painted).forEach(function (p) {
    if (!V[p] || !V[p].shown()) return;
    V[p].top = painted[p].top;
    V[p].scroller.scrollLeft = painted[p].left;
    queueScroll(V[p]);
  });
  showTab('code');
  ['pre', 'post'].forEach(function (p) { V[p].render(true); });
  apply(EMPTY, false);
  applyHash();
  S.started = true;
  /* Build the name tables before the first hover needs them. */
  afterLoad(function () { nodeMap('pre'); nodeMap('post'); });

  /* Syntax colours come after the page has loaded: highlight.js (125 KB to
   * compile, and its languages to register) is added once the load event
   * has passed, then the lines on screen are coloured; until then they are
   * plain text. Without it (static/highlight.min.js missing) they stay
   * plain and the coverage line says why. */
  function highlighterLoaded(ok) {
    HL.ready = true;
    HL.ok = ok && typeof hljs !== 'undefined';
    if (!HL.ok) {
      var cov = document.querySelector('.tp-coverage');
      if (cov) cov.appendChild(el('span', 'tp-hint', ' \u00b7 no syntax colours (' +
        (HL.src || 'highlight.min.js') + ' could not be loaded)'));
    }
    PANELS.forEach(function (p) { scheduleHighlight(V[p]); });
  }
  function loadHighlighter() {
    if (typeof hljs !== 'undefined') { highlighterLoaded(true); return; }
    var loader = document.querySelector('script[data-static]');
    HL.src = (loader ? loader.getAttribute('data-static') : 'static/') + 'highlight.min.js';
    var s = document.createElement('script');
    s.src = HL.src;
    s.onload = function () { highlighterLoaded(true); };
    s.onerror = function () { highlighterLoaded(false); };
    document.body.appendChild(s);
  }
  afterLoad(loadHighlighter);

  function highlighted() {
    var r = S.result || EMPTY, out = {};
    PANELS.forEach(function (p) { out[p] = sorted(r.hl[p]); });
    return out;
  }
  window.tlprov = {
    select: function (panel, line) {
      if (!V[panel] || !inPanel(panel, line)) return false;
      var ok = pin({panel: panel, line: line}, true);
      if (!ok) V[panel].reveal(line, false);
      return ok;
    },
    selectKernel: function (key) {
      for (var i = 0; i < K.length; i++) if (K[i].key === key) return selectKernel(i);
      return false;
    },
    clear: clear,
    reveal: function (panel, line) {
      if (!V[panel] || !inPanel(panel, line)) return false;
      V[panel].reveal(line, false);
      return true;
    },
    highlighted: highlighted,
    selected: function () {
      var r = S.result || EMPTY;
      return {panel: r.src.panel, lines: r.src.lines.slice(), pinned: !!S.pinned,
        kernels: r.ks.map(function (k) { return K[k].key; })};
    },
    targets: function (panel) { return V[panel] ? V[panel].targets.slice() : []; },
    next: function (panel) { if (V[panel]) V[panel].step(1); },
    prev: function (panel) { if (V[panel]) V[panel].step(-1); },
    goToDefinition: goToDefinition,
    lineCount: function (panel) { return M[panel] ? M[panel].n : 0; },
    profile: profileAt,
    readyMs: performance.now() - t0,
    /* true once highlight.js has come (or failed to) and the lines on
     * screen have their colours: the browser tests wait for it */
    painted: function () { return HL.ready && !highlightQueued && !pendingViews.size; }
  };
  if (performance.mark) performance.mark('tlprov-ready');
