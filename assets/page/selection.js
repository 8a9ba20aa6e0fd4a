/* selection.js: what a selection means and how it is applied.
 * compute(sel) turns a selection ({panel, line} or {kernel}) into the lines
 * to highlight per panel and the kernels involved; the state S, the empty
 * result EMPTY and the views V (filled by panels.js) live here, with the
 * actions (preview, pin, clear, selectKernel, go to definition), deep links
 * (#post=12, #kernel=name) and the keyboard. Uses data.js; the DOM it
 * updates is built by panels.js (functions are called only after load).
 */
  /* ---- selection model -------------------------------------------------- */
  /* A selection is {panel, line} or {kernel: index}. Its result: the source
   * lines (class sel), the linked lines per panel (class hl), the kernels
   * involved and their definition ranges (class def). */
  function compute(sel) {
    var r = {sel: sel, src: {panel: sel.panel || 'code', lines: []},
      hl: {pre: new Set(), post: new Set(), code: new Set(), kernel: new Set()},
      ks: []};
    function add(set, list) { if (list) for (var i = 0; i < list.length; i++) set.add(list[i]); }
    function fromPost() { r.hl.post.forEach(function (p) { add(r.hl.pre, postToPre.get(p)); }); }
    function withKernels(ks) {
      r.ks = ks.slice();
      ks.forEach(function (k) {
        add(r.hl.code, K[k].calls);
        var toCalls = null; /* post lines linked to the kernel's calls */
        K[k].post.forEach(function (name) {
          var defs = nodeMap('post').byName.get(name);
          if (!defs || defs.length < 2) { add(r.hl.post, defs); return; }
          /* A name several graphs define: the definitions the engine linked
           * to the kernel's calls (docs/provenance-json.md), else all. */
          if (!toCalls) {
            toCalls = new Set();
            K[k].calls.forEach(function (c) { add(toCalls, codeToPost.get(c)); });
          }
          var linked = defs.filter(function (l) { return toCalls.has(l); });
          add(r.hl.post, linked.length ? linked : defs);
        });
      });
      fromPost();
    }
    var line = sel.line, d;
    if (sel.kernel !== undefined) {
      withKernels([sel.kernel]);
      r.src.lines = K[sel.kernel].calls.slice();
    } else if (sel.panel === 'pre') {
      add(r.hl.post, preToPost.get(line));
      r.hl.post.forEach(function (p) {
        add(r.hl.code, postToCode.get(p));
        add(r.hl.kernel, postToKernel.get(p));
      });
    } else if (sel.panel === 'post') {
      add(r.hl.pre, postToPre.get(line));
      add(r.hl.code, postToCode.get(line));
      add(r.hl.kernel, postToKernel.get(line));
    } else if (sel.panel === 'code') {
      if (codeToPost.has(line)) {
        add(r.hl.post, codeToPost.get(line));
        fromPost();
      } else if (callIdx.has(line)) {
        withKernels(callIdx.get(line));
      } else if ((d = defAt('code', line))) {
        withKernels(d.ks);
      }
    } else if (sel.panel === 'kernel' && (d = defAt('kernel', line))) {
      withKernels(d.ks);
      add(r.hl.post, kernelToPost.get(d.first));
      fromPost();
    } else if (sel.panel === 'kernel' && kernelToPost.has(line)) {
      add(r.hl.post, kernelToPost.get(line));
      fromPost();
    }
    if (sel.kernel === undefined) r.src.lines = [line];
    if (!r.ks.length) {
      var ks = new Set();
      var codeLines = sel.panel === 'code' ? [line] : [];
      r.hl.code.forEach(function (c) { codeLines.push(c); });
      codeLines.forEach(function (c) { add(ks, callIdx.get(c)); });
      r.ks = sorted(ks);
    }
    r.ks.forEach(function (k) {
      var def = K[k].def;
      if (def && def.panel === 'kernel') r.hl.kernel.add(def.first);
    });
    r.src.lines.forEach(function (l) { r.hl[r.src.panel].delete(l); });
    r.defs = {code: [], kernel: []};
    r.ks.forEach(function (k) {
      var def = K[k].def;
      if (def && !r.defs[def.panel].some(function (x) { return x.first === def.first; })) {
        r.defs[def.panel].push(def);
      }
    });
    r.srcSet = new Set(r.src.lines);
    r.empty = !r.ks.length && PANELS.every(function (p) { return !r.hl[p].size; });
    return r;
  }


  /* ---- state ------------------------------------------------------------ */
  var S = {pinned: null, result: null, jumps: [], hoverView: null};
  var EMPTY = {sel: {}, src: {panel: null, lines: []}, srcSet: new Set(), ks: [],
    hl: {pre: new Set(), post: new Set(), code: new Set(), kernel: new Set()},
    defs: {code: [], kernel: []}, empty: true};
  var V = {};  /* panel name -> view (DOM) */
  var LH = 18;


  /* ---- actions ------------------------------------------------------------ */
  function apply(r, pinned) {
    S.result = r;
    PANELS.forEach(function (p) {
      V[p].setTargets(r);
      V[p].applyClasses();
    });
    showNavs();
    updateInfo(r, pinned);
    markKernelRows(r);
  }
  function showNavs() {
    var tab = V.kernel.body.hidden ? 'code' : 'kernel';
    V[tab === 'code' ? 'kernel' : 'code'].nav.hidden = true;
  }
  function preview(p, line) {
    var r = compute({panel: p, line: line});
    apply(r.empty ? EMPTY : r, false);
  }
  function pin(sel, revealSelf) {
    var r = compute(sel);
    if (r.empty) { clear(); return false; }
    S.pinned = sel;
    S.activeView = null;
    apply(r, true);
    PANELS.forEach(function (p) {
      var v = V[p];
      if (p === r.src.panel) {
        if (revealSelf && r.src.lines.length) v.reveal(r.src.lines[0], false);
        return;
      }
      if (!v.targets.length) return;
      /* code and kernel code share a panel: keep the code tab unless only
       * the kernel code has targets, and keep the kernel-code tab a click
       * was made in; the other tab's targets wait behind it (its counter
       * shows them) */
      if (p === 'kernel' && !v.shown() && (r.src.panel === 'code' || V.code.targets.length) ||
          p === 'code' && r.src.panel === 'kernel') {
        v.cur = 0;
        v.updateNav();
        showNavs();
        return;
      }
      if (p === 'kernel') showTab('kernel');
      v.cur = v.nearestTarget();
      v.updateNav();
      v.reveal(v.targets[v.cur], false);
      v.applyClasses();
    });
    setHash(sel);
    return true;
  }
  function clear() {
    S.pinned = null;
    S.jumps = [];
    apply(EMPTY, false);
    setHash(null);
  }
  function selectKernel(k) {
    if (!K[k]) return false;
    return pin({kernel: k}, true);
  }
  /* Where g goes: from a call site to the kernel's definition, from inside a
   * definition back to the call site it came from (or the first call). */
  function jumpTarget(r) {
    var sel = r.sel;
    if (sel.kernel !== undefined) {
      var kd = K[sel.kernel].def;
      return kd ? {panel: kd.panel, line: kd.first} : null;
    }
    if (sel.panel === 'code' && callIdx.has(sel.line)) {
      var ks = callIdx.get(sel.line);
      for (var i = 0; i < ks.length; i++) {
        var d = K[ks[i]].def;
        if (d) return {panel: d.panel, line: d.first};
      }
      return null;
    }
    var def = (sel.panel === 'code' || sel.panel === 'kernel') ? defAt(sel.panel, sel.line) : null;
    if (def) {
      var last = S.jumps[S.jumps.length - 1];
      if (last) return {panel: last.panel, line: last.line, back: true, pop: true};
      for (var j = 0; j < def.ks.length; j++) {
        if (K[def.ks[j]].calls.length) return {panel: 'code', line: K[def.ks[j]].calls[0], back: true};
      }
    }
    return null;
  }
  function goToDefinition() {
    var r = S.pinned ? S.result : null;
    var t = r ? jumpTarget(r) : null;
    if (!t) return false;
    var jumps = S.jumps.slice();
    if (t.pop) jumps.pop();
    else if (!t.back) jumps.push(r.sel.kernel !== undefined ? {panel: 'code', line: K[r.sel.kernel].calls[0] || 0} : r.sel);
    pin({panel: t.panel, line: t.line}, true);
    V[t.panel].reveal(t.line, false);
    S.jumps = jumps.filter(function (j) { return j.line; });
    updateInfo(S.result, true);
    return true;
  }
  function activeView() {
    var order = [S.hoverView, S.activeView, V.code, V.post, V.pre, V.kernel];
    for (var i = 0; i < order.length; i++) {
      var v = order[i];
      if (v && v.shown() && v.targets.length) return v;
    }
    return null;
  }


  /* ---- deep links --------------------------------------------------------- */
  var writingHash = false;
  function setHash(sel) {
    var h = '';
    if (sel && sel.kernel !== undefined) {
      h = '#kernel=' + encodeURIComponent(K[sel.kernel].key).replace(/%3A/g, ':');
    } else if (sel) {
      h = '#' + HASH_KEY[sel.panel] + '=' + sel.line;
    }
    if (h === location.hash || (!h && !location.hash)) return;
    try {
      history.replaceState(null, '', h || location.pathname + location.search);
    } catch (e) {
      writingHash = true;
      location.hash = h;
    }
  }
  function applyHash() {
    if (writingHash) { writingHash = false; return; }
    var h = location.hash.slice(1), eq = h.indexOf('=');
    if (eq < 0) return;
    var key = h.slice(0, eq), val = h.slice(eq + 1);
    try { val = decodeURIComponent(val); } catch (e) { return; }
    if (key === 'kernel') {
      var k = -1;
      for (var i = 0; i < K.length && k < 0; i++) if (K[i].key === val) k = i;
      for (var j = 0; j < K.length && k < 0; j++) if (K[j].name === val) k = j;
      if (k >= 0) selectKernel(k);
      return;
    }
    for (var p in HASH_KEY) {
      if (HASH_KEY[p] !== key) continue;
      var line = Number(val);
      if (!inPanel(p, line)) return;
      if (!pin({panel: p, line: line}, true)) V[p].reveal(line, false);
    }
  }
  window.addEventListener('hashchange', applyHash);

  /* ---- keyboard ----------------------------------------------------------- */
  document.addEventListener('keydown', function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA')) return;
    var v;
    if (e.key === '/') { e.preventDefault(); search.focus(); search.select(); }
    else if (e.key === 'Escape') clear();
    else if (e.key === 'n' && (v = activeView())) v.step(1);
    else if ((e.key === 'p' || e.key === 'N') && (v = activeView())) v.step(-1);
    else if (e.key === 'g') goToDefinition();
  });
  document.addEventListener('mousemove', function (e) {
    S.mouseX = e.clientX;
    S.mouseY = e.clientY;
  }, true);
  document.addEventListener('click', function (e) {
    if (e.target === document.body || e.target === document.documentElement ||
        e.target === panelsEl) clear();
  });
  window.addEventListener('resize', function () {
    PANELS.forEach(function (p) {
      V[p].sync();
      V[p].render(true);
      V[p].updateRuler(S.result || EMPTY);
      V[p].keepShown();
    });
  });
