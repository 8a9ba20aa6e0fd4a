/* data.js: the page's data model (first module of provenance.js).
 * Reads the view JSON and the artifact texts that src/provpage.c embeds and
 * builds, once: per panel a model M[p] (its text and where its lines
 * start, languages of embedded sources, which lines are mapped), the line
 * maps (preToPost, postToPre, codeToPost, postToCode, kernelToPost,
 * postToKernel, read in place), node
 * name <-> line tables (nodeMap) and the kernels K with their call sites
 * (callIdx) and definitions (defAt). Also the small helpers every module
 * uses (el, isObj, arr, str, posInt, sorted). Nothing here touches the DOM
 * beyond reading the data elements.
 */
  var t0 = performance.now();
  var PANELS = ['pre', 'post', 'code', 'kernel'];
  var TITLE = {pre: 'Pre-grad graph', post: 'Post-grad graph',
    code: 'Generated code', kernel: 'Kernel code'};
  var HASH_KEY = {pre: 'pre', post: 'post', code: 'code', kernel: 'kcode'};
  var CHUNK = 200;    /* lines highlighted by one highlight.js call */
  /* highlight.js: ready once its script has loaded or failed to (main.js
   * loads it after the page's load event); ok when it is usable. */
  var HL = {ready: false, ok: false, src: null, painted: false};
  /* Work that can wait until the page has loaded (after its first paint):
   * run as a task of its own once the load event has passed. */
  function afterLoad(fn) {
    if (document.readyState === 'complete') setTimeout(fn, 0);
    else window.addEventListener('load', function () { setTimeout(fn, 0); });
  }
  var OVERSCAN = 12;  /* rows rendered above and below the viewport */
  var HOW_TO = 'To record the mapping, run the program with ' +
    'INDUCTOR_PROVENANCE=1 (or TORCH_COMPILE_DEBUG=1), then run ' +
    'tlparse with -i (--inductor-provenance).';

  /* ---- data ------------------------------------------------------------ */
  function readData(id) {
    var el = document.getElementById(id);
    if (!el) return null;
    try { return JSON.parse(el.textContent); } catch (e) { return null; }
  }
  function isObj(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }
  function arr(v) { return Array.isArray(v) ? v : []; }
  function str(v) { return typeof v === 'string' ? v : ''; }
  function posInt(v) { return typeof v === 'number' && v > 0 && Math.floor(v) === v; }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function sorted(set) {
    return Array.from(set).sort(function (a, b) { return a - b; });
  }

  var view = readData('tlprov-view');
  if (!isObj(view)) view = {};
  var aot = str(view.mode) === 'aot';
  var artifacts = isObj(view.artifacts) ? view.artifacts : {};
  var ART_KEY = {pre: 'pre_grad_graph', post: 'post_grad_graph', code: 'code',
    kernel: 'kernel_code'};

  /* Where each line of a text starts, as offsets (a panel's text may have a
   * million lines: one string each would be a million objects for the
   * garbage collector to mark while the page is used). Line i (1-based)
   * is text[starts[i - 1], starts[i] - 1); a text that ends with a newline
   * has no empty last line. */
  function lineStarts(text) {
    var count = 1, at = -1;
    while ((at = text.indexOf('\n', at + 1)) >= 0) count++;
    if (text.length && text.charCodeAt(text.length - 1) === 10) count--;
    var starts = new Uint32Array(count + 1), i = 1;
    at = -1;
    while (i < count && (at = text.indexOf('\n', at + 1)) >= 0) starts[i++] = at + 1;
    starts[count] = text.length + 1;
    if (text.length && text.charCodeAt(text.length - 1) === 10) starts[count] = text.length;
    return starts;
  }
  function stripCR(s) { return s.charCodeAt(s.length - 1) === 13 ? s.slice(0, -1) : s; }
  /* Line i of a panel's model, without its newline and a carriage return
   * before it; lineLength counts the carriage return. */
  function lineText(m, i) {
    return stripCR(m.text.slice(m.starts[i - 1], m.starts[i] - 1));
  }
  function lineLength(m, i) { return m.starts[i] - 1 - m.starts[i - 1]; }
  /* Lines a..b joined by newlines, without carriage returns before them. */
  function linesText(m, a, b) {
    var t = m.text.slice(m.starts[a - 1], m.starts[b] - 1);
    return m.hasCR ? t.replace(/\r(?=\n|$)/g, '') : t;
  }

  /* A panel's text: a JSON string, or (large texts) deflated, which the
   * page's loader has inflated into window.tlprovInflated (null when this
   * browser could not). */
  function readText(p) {
    var id = 'tlprov-text-' + p, inflated = window.tlprovInflated;
    if (inflated && Object.prototype.hasOwnProperty.call(inflated, id)) return inflated[id];
    return readData(id);
  }
  function isDeflated(p) {
    var e = document.getElementById('tlprov-text-' + p);
    return !!e && e.hasAttribute('data-deflate');
  }

  var M = {};  /* panel name -> model */
  PANELS.forEach(function (p) {
    var text = readText(p);
    if (typeof text !== 'string') text = null;
    var starts = text !== null ? lineStarts(text) : null;
    var n = starts ? starts.length - 1 : 0, maxLen = 0;
    for (var i = 1; i <= n; i++) maxLen = Math.max(maxLen, starts[i] - 1 - starts[i - 1]);
    M[p] = {name: p, text: text, starts: starts, n: n, maxLen: maxLen,
      hasCR: text !== null && text.indexOf('\r') >= 0,
      unreadable: text === null && isDeflated(p),
      lang: (p === 'pre' || p === 'post' || !aot) ? 'python' : 'cpp',
      segs: [], html: new Array(n + 1), done: new Uint8Array(n + 1),
      mapped: new Uint8Array(n + 1), defs: [], defKeys: new Map()};
  });
  function inPanel(p, line) { return posInt(line) && line <= M[p].n; }

  /* Embedded kernel sources highlighted as their own language. */
  arr(view.embedded).forEach(function (e) {
    if (!isObj(e)) return;
    var p = e.file === 'kernel_code' ? 'kernel' : e.file === 'code' ? 'code' : null;
    var lang = str(e.language);
    if (!p || !inPanel(p, e.first) || !posInt(e.last) || e.last < e.first) return;
    M[p].segs.push({first: e.first, last: Math.min(e.last, M[p].n), lang: lang});
  });
  PANELS.forEach(function (p) {
    var segs = M[p].segs.sort(function (a, b) { return a.first - b.first; });
    M[p].segs = segs.filter(function (s, i) { return i === 0 || s.first > segs[i - 1].last; });
  });

  /* A line map of the view ({"11": [4, 7]}), read in place: lookups check
   * the targets, nothing is copied at load. */
  function lineMap(obj, from, to) {
    var raw = isObj(obj) ? obj : {}, n = M[from].n, nTo = M[to].n;
    function ok(t) { return posInt(t) && t <= nTo; }
    function get(line) {
      if (!(line > 0 && line <= n)) return undefined;
      var t = raw[line];
      if (!Array.isArray(t)) return undefined;
      for (var i = 0; i < t.length; i++) {
        if (!ok(t[i])) { t = t.filter(ok); break; }
      }
      return t.length ? t : undefined;
    }
    return {get: get, has: function (line) { return get(line) !== undefined; }};
  }
  var lines = isObj(view.lines) ? view.lines : {};
  var preToPost = lineMap(lines.preToPost, 'pre', 'post');
  var postToPre = lineMap(lines.postToPre, 'post', 'pre');
  var codeToPost = lineMap(lines.codeToPost, 'code', 'post');
  var postToCode = lineMap(lines.postToCode, 'post', 'code');
  /* AOT CPU: post-grad lines <-> first lines of cpp_fused_* bodies in the
   * kernel-code file. */
  var klines = isObj(view.kernel_lines) ? view.kernel_lines : {};
  var kernelToPost = lineMap(klines.kernelToPost, 'kernel', 'post');
  var postToKernel = lineMap(klines.postToKernel, 'post', 'kernel');

  /* Node name -> lines and line -> names, built on first use. A name has
   * several lines when subgraphs nested in the graph define it too
   * (node_definitions); the first is the outer graph's. */
  var nodes = isObj(view.nodes) ? view.nodes : {};
  var nodeDefs = isObj(view.node_definitions) ? view.node_definitions : {};
  var nodeMaps = {};
  function nodeMap(p) {
    if (nodeMaps[p]) return nodeMaps[p];
    var obj = isObj(nodes[p]) ? nodes[p] : {}, byName = new Map(), byLine = new Map();
    var defs = isObj(nodeDefs[p]) ? nodeDefs[p] : {};
    for (var name in obj) {
      var lines = Array.isArray(defs[name]) ? defs[name] : [obj[name]];
      lines = lines.filter(function (l) { return inPanel(p, l); });
      if (!lines.length) continue;
      byName.set(name, lines);
      lines.forEach(function (line) {
        var at = byLine.get(line);
        if (!at) byLine.set(line, [name]);
        else if (at.indexOf(name) < 0) at.push(name);
      });
    }
    return (nodeMaps[p] = {byName: byName, byLine: byLine});
  }

  /* Kernels, their call sites and definitions. */
  var K = [];
  var callIdx = new Map();  /* code line -> kernel indices */
  arr(view.kernels).forEach(function (k) {
    if (!isObj(k)) return;
    var i = K.length, def = null, d = k.definition;
    if (isObj(d)) {
      var p = d.file === 'kernel_code' ? 'kernel' : 'code';
      if (inPanel(p, d.first)) {
        var last = posInt(d.last) && d.last >= d.first ? Math.min(d.last, M[p].n) : d.first;
        def = {panel: p, first: d.first, last: last};
      }
    }
    var kernel = {i: i, key: str(k.key) || str(k.name), name: str(k.name),
      kind: str(k.kind), def: def,
      calls: arr(k.calls).filter(function (c) { return inPanel('code', c); }),
      post: arr(k.post_nodes).filter(function (s) { return typeof s === 'string'; }),
      stacks: arr(k.stack_traces).filter(function (s) { return typeof s === 'string'; })};
    K.push(kernel);
    kernel.calls.forEach(function (c) {
      var at = callIdx.get(c);
      if (at) { if (at.indexOf(i) < 0) at.push(i); } else callIdx.set(c, [i]);
      M.code.mapped[c] = 1;
    });
    if (def) {
      var m = M[def.panel], dkey = def.first + ':' + def.last, found = m.defKeys.get(dkey);
      if (found) found.ks.push(i);
      else {
        found = {first: def.first, last: def.last, ks: [i]};
        m.defs.push(found);
        m.defKeys.set(dkey, found);
      }
      m.mapped[def.first] = 1;
    }
  });
  ['code', 'kernel'].forEach(function (p) {
    M[p].defs.sort(function (a, b) { return a.first - b.first || b.last - a.last; });
  });
  /* Whether a line takes part in a mapping (shown bold). */
  function isMapped(p, i) {
    if (M[p].mapped[i]) return true;
    if (p === 'pre') return preToPost.has(i);
    if (p === 'post') return postToPre.has(i) || postToCode.has(i) || postToKernel.has(i);
    if (p === 'code') return codeToPost.has(i);
    return kernelToPost.has(i);
  }

  /* The innermost definition containing `line`, or null. */
  function defAt(p, line) {
    var defs = M[p].defs, lo = 0, hi = defs.length - 1, idx = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (defs[mid].first <= line) { idx = mid; lo = mid + 1; } else hi = mid - 1;
    }
    var best = null;
    for (var j = idx; j >= 0 && j > idx - 64; j--) {
      var d = defs[j];
      if (d.last >= line && (!best || d.last - d.first < best.last - best.first)) best = d;
    }
    return best;
  }
