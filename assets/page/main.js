/* main.js: start (last module): first paint, the deep link of the URL,
 * and window.tlprov, the interface the browser tests drive.
 */
  /* ---- start -------------------------------------------------------------- */
  PANELS.forEach(function (p) { V[p].measure(); });
  showTab('code');
  ['pre', 'post'].forEach(function (p) { V[p].render(true); });
  apply(EMPTY, false);
  applyHash();
  S.started = true;
  /* Build the name tables before the first hover needs them. */
  setTimeout(function () { nodeMap('pre'); nodeMap('post'); }, 0);

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
    readyMs: performance.now() - t0
  };
  if (performance.mark) performance.mark('tlprov-ready');
