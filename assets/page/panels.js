/* panels.js: the DOM. Lazy per-chunk syntax highlighting with
 * highlight.js, the virtualised panels (View: only visible rows are in the
 * DOM), tabs and dividers, and the bottom area: selection info, user source
 * (stack traces), the kernel table and the coverage line. Uses data.js and
 * the state of selection.js; profile.js adds its columns through the hooks
 * `gutterFor` and `kernelColumns` defined here.
 */
  /* ---- syntax highlighting (lazy, per chunk, cached) -------------------- */
  function splitHtml(html) {
    var out = [], stack = [], cur = '', i = 0;
    while (i < html.length) {
      var lt = html.indexOf('<', i), nl = html.indexOf('\n', i);
      if (lt < 0) lt = html.length;
      if (nl < 0) nl = html.length;
      if (nl < lt) {
        cur += html.slice(i, nl);
        for (var s = 0; s < stack.length; s++) cur += '</span>';
        out.push(cur);
        cur = stack.join('');
        i = nl + 1;
      } else if (lt < html.length) {
        cur += html.slice(i, lt);
        var gt = html.indexOf('>', lt);
        if (gt < 0) gt = html.length - 1;
        var tag = html.slice(lt, gt + 1);
        if (tag.charAt(1) === '/') stack.pop(); else stack.push(tag);
        cur += tag;
        i = gt + 1;
      } else {
        cur += html.slice(i);
        i = html.length;
      }
    }
    out.push(cur);
    return out;
  }
  function chunkOf(m, line) {
    var a = Math.floor((line - 1) / CHUNK) * CHUNK + 1;
    var b = Math.min(m.n, a + CHUNK - 1), lang = m.lang, segs = m.segs;
    var lo = 0, hi = segs.length - 1, idx = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (segs[mid].first <= line) { idx = mid; lo = mid + 1; } else hi = mid - 1;
    }
    if (idx >= 0 && segs[idx].last >= line) {
      a = Math.max(a, segs[idx].first);
      b = Math.min(b, segs[idx].last);
      lang = segs[idx].lang;
    } else {
      if (idx >= 0) a = Math.max(a, segs[idx].last + 1);
      if (idx + 1 < segs.length) b = Math.min(b, segs[idx + 1].first - 1);
    }
    return {a: a, b: b, lang: lang};
  }
  function highlightChunk(m, c) {
    var total = 0, plain = !HL.ok || !hljs.getLanguage(c.lang);
    for (var i = c.a; i <= c.b && !plain; i++) {
      var len = lineLength(m, i);
      total += len;
      if (len > 4000 || total > 300000) plain = true;
    }
    var parts = null;
    if (!plain) {
      try {
        var text = linesText(m, c.a, c.b);
        parts = splitHtml(hljs.highlight(text, {language: c.lang, ignoreIllegals: true}).value);
        if (parts.length !== c.b - c.a + 1) parts = null;
        /* A carriage return left inside a line: HTML parsing would make it
         * a line break, as text it shows as a space (CSS Text). */
        else if (m.hasCR) parts = parts.map(function (h) { return h.replace(/\r/g, '&#13;'); });
      } catch (e) { parts = null; }
    }
    for (var j = c.a; j <= c.b; j++) {
      m.done[j] = 1;
      m.html[j] = parts ? parts[j - c.a] : null;
    }
  }
  /* highlight.js is loaded after the page's load event (main.js): until
   * it is here, lines show as plain text and are not marked done. */
  function ensureHighlighted(m, a, b) {
    if (!HL.ready) return;
    for (var i = a; i <= b; i++) if (!m.done[i]) highlightChunk(m, chunkOf(m, i));
  }
  function allDone(m, a, b) {
    for (var i = a; i <= b; i++) if (!m.done[i]) return false;
    return true;
  }
  /* After the first paint, newly shown lines appear as plain text at once and
   * get their colours right after the frame, so scrolling and pinning never
   * wait for highlight.js. */
  var pendingViews = new Set(), highlightQueued = false;
  function scheduleHighlight(v) {
    if (!HL.ready) return;
    pendingViews.add(v);
    if (highlightQueued) return;
    highlightQueued = true;
    requestAnimationFrame(function () {
      setTimeout(function () {
        highlightQueued = false;
        var views = Array.from(pendingViews);
        pendingViews.clear();
        views.forEach(function (w) {
          if (!w.shown() || w.last < w.first) return;
          ensureHighlighted(w.m, w.first, w.last);
          w.render(true);
        });
        /* The first colours on screen: the benchmarks read this mark. */
        if (!HL.painted && performance.mark) performance.mark('tlprov-painted');
        HL.painted = true;
      }, 0);
    });
  }


  /* ---- DOM: panels -------------------------------------------------------- */
  /* Hooks that profile.js sets when the view has a profile: a time cell per
   * row (timeCell(panel, line) -> element) and a kernel's time (kernelTime(k)
   * -> µs or null) for a sortable column of the kernel table. */
  var timeCell = null, kernelTime = null;
  var app = document.getElementById('tlprov') || document.body;
  /* The first paint (src/provpage_paint.c) is replaced in this task, so
   * no frame shows anything between; where the reader had scrolled a
   * panel already, main.js scrolls the new one there. */
  var painted = {};
  [].forEach.call(app.querySelectorAll('.tp-pbody[data-panel]'), function (b) {
    var s = b.firstChild;
    if (s && (s.scrollTop || s.scrollLeft)) {
      painted[b.dataset.panel] = {top: s.scrollTop, left: s.scrollLeft};
    }
  });
  /* The coverage line the first paint wrote is kept as it is (the same
   * line fillCoverage would write). */
  var paintedCoverage = app.querySelector('.tp-coverage .tp-legend') ?
    app.querySelector('.tp-coverage') : null;
  app.textContent = '';
  var banner = null;
  var reason = str(view.no_links_reason);
  if (reason || !isObj(view.lines) && Object.keys(view).length) {
    banner = el('div', 'tp-banner');
    banner.appendChild(el('strong', null, 'No provenance links. '));
    var because = reason || 'The view has no line maps';
    if (!/[.!?)]$/.test(because)) because += '.';
    banner.appendChild(el('span', null, because + ' '));
    /* The engine's reason may already name the variables to set. */
    banner.appendChild(el('span', 'tp-howto', because.indexOf('INDUCTOR_PROVENANCE') >= 0
      ? 'Then run tlparse with -i (--inductor-provenance).' : HOW_TO));
    app.appendChild(banner);
  } else if (!Object.keys(view).length) {
    banner = el('div', 'tp-banner', 'This page has no provenance view data. ' + HOW_TO);
    app.appendChild(banner);
  }
  app.appendChild(buildCoverage());
  var panelsEl = el('div', 'tp-panels');
  app.appendChild(panelsEl);

  function artifactLink(p) {
    var path = str(artifacts[ART_KEY[p]]);
    if (!path) return el('span', 'tp-pfile', M[p].text !== null ? '' : '(absent)');
    var a = el('a', 'tp-pfile', path.split('/').pop());
    a.title = path;
    if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(path) && path.charAt(0) !== '/') {
      a.href = path.split('/').map(encodeURIComponent).join('/');
    }
    return a;
  }

  /* One observer for every panel: the sizes of all panels that changed are
   * read first (one layout), then each is rendered, instead of a layout
   * forced by each panel's reading after the previous one's rendering. */
  var resizes = typeof ResizeObserver === 'undefined' ? null :
    new ResizeObserver(function (entries) {
      var views = entries.map(function (e) { return e.target.tpView; });
      views.forEach(function (v) { v.measure(); });
      views.forEach(function (v) {
        v.render(false);
        v.updateRuler(S.result || EMPTY);
        v.keepShown();
      });
    });
  function View(p, box, head) {
    var self = this, m = M[p];
    this.p = p; this.m = m; this.first = 0; this.last = -1; this.rowEls = new Map();
    this.targets = []; this.cur = -1;
    this.body = el('div', 'tp-pbody');
    this.scroller = el('div', 'tp-scroller');
    this.scroller.tabIndex = -1;
    this.spacer = el('div', 'tp-spacer');
    this.rows = el('div', 'tp-rows');
    this.ruler = el('div', 'tp-ruler');
    this.ruler.title = 'Where the linked lines are';
    this.spacer.appendChild(this.rows);
    this.scroller.appendChild(this.spacer);
    this.body.appendChild(this.scroller);
    this.body.appendChild(this.ruler);
    box.appendChild(this.body);
    this.nav = el('span', 'tp-nav');
    this.prevBtn = el('button', 'tp-prev', '\u2039');
    this.prevBtn.title = 'Previous linked line (p)';
    this.count = el('span', 'tp-count');
    this.nextBtn = el('button', 'tp-next', '\u203a');
    this.nextBtn.title = 'Next linked line (n)';
    this.nav.appendChild(this.prevBtn); this.nav.appendChild(this.count);
    this.nav.appendChild(this.nextBtn);
    this.nav.hidden = true;
    this.nav.dataset.panel = p;
    head.appendChild(this.nav);
    if (m.text === null) {
      this.rows.appendChild(el('div', 'tp-empty', m.unreadable ? 'This browser could ' +
        'not inflate the ' + TITLE[p].toLowerCase() + ' (it is stored deflated; ' +
        'DecompressionStream needs Chrome 103, Firefox 113, Safari 16.4 or later).' :
        p === 'kernel' ? 'No kernel code.' :
        'The trace has no ' + TITLE[p].toLowerCase() + ' for this compilation.'));
      this.rows.style.position = 'static';
    } else {
      var digits = String(m.n).length;
      this.scroller.style.setProperty('--gw', (digits + 1) + 'ch');
      this.spacer.style.height = (m.n * LH) + 'px';
      this.spacer.style.width = 'calc(' + (m.maxLen + digits + 4) + 'ch + 24px)';
      this.spacer.style.fontFamily = '"DejaVu Sans Mono", ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
      this.spacer.style.fontSize = '12.5px';
    }
    this.prevBtn.addEventListener('click', function () { self.step(-1); });
    this.nextBtn.addEventListener('click', function () { self.step(1); });
    /* Sizes and scroll offset are cached (kept by a ResizeObserver and the
     * scroll event), so updates never force a synchronous layout. */
    this.top = 0; this.h = 0; this.rh = 0;
    if (resizes) resizes.observe(this.body);
    this.body.tpView = this;
    var pending = false;
    this.scroller.addEventListener('scroll', function () {
      self.top = self.scroller.scrollTop;
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () { pending = false; self.render(false); });
    });
    this.rows.addEventListener('mouseover', function (e) {
      S.hoverView = self;
      var row = e.target.closest ? e.target.closest('.ln') : null;
      if (!row || S.pinned) return;
      /* A mouseover at the last mousemove's position comes from rows
       * changing under a resting pointer (scrolling), not from the user. */
      if (e.clientX === S.mouseX && e.clientY === S.mouseY) return;
      var line = Number(row.dataset.line);
      if (S.result && S.result.sel.panel === p && S.result.sel.line === line) return;
      preview(p, line);
    });
    this.scroller.addEventListener('mouseleave', function () {
      if (S.hoverView === self) S.hoverView = null;
      if (!S.pinned) apply(EMPTY);
    });
    this.scroller.addEventListener('click', function (e) {
      var row = e.target.closest ? e.target.closest('.ln') : null;
      S.jumps = [];
      if (row) pin({panel: p, line: Number(row.dataset.line)}, false);
      else clear();
    });
    this.ruler.addEventListener('click', function (e) {
      var line = Number(e.target.dataset && e.target.dataset.line);
      if (!line) {
        var rect = self.ruler.getBoundingClientRect();
        line = Math.max(1, Math.round((e.clientY - rect.top) / rect.height * m.n));
      }
      self.reveal(line, true);
    });
  }
  View.prototype.measure = function () {
    this.h = this.scroller.clientHeight;
    this.rh = this.ruler.clientHeight;
    this.top = this.scroller.scrollTop;
  };
  View.prototype.shown = function () {
    return this.m.text !== null && !this.body.hidden;
  };
  View.prototype.render = function (force) {
    if (!this.shown()) return;
    var m = this.m, h = this.h || 600;
    var a = Math.max(1, Math.floor(this.top / LH) + 1 - OVERSCAN);
    var b = Math.min(m.n, Math.ceil((this.top + h) / LH) + OVERSCAN);
    if (!force && a === this.first && b === this.last) return;
    if (!S.started) ensureHighlighted(m, a, b);
    else if (!allDone(m, a, b)) scheduleHighlight(this);
    if (a === this.first && b === this.last) {
      /* Same lines: update in place, so the row under a resting mouse
       * pointer stays the same element (no synthetic mouseover). */
      var self = this;
      this.rowEls.forEach(function (row, i) {
        if (m.html[i] != null && !row.hasAttribute('data-hljs')) {
          row.lastChild.innerHTML = m.html[i];
          row.setAttribute('data-hljs', '');
        }
        row.className = self.classFor(i);
      });
      return;
    }
    var frag = document.createDocumentFragment(), map = new Map();
    for (var i = a; i <= b; i++) {
      var row = document.createElement('div');
      row.dataset.panel = this.p;
      row.dataset.line = i;
      row.className = this.classFor(i);
      var g = document.createElement('span');
      g.className = 'g';
      g.textContent = i;
      var s = document.createElement('span');
      s.className = 's';
      if (m.html[i] != null) {
        s.innerHTML = m.html[i];
        row.setAttribute('data-hljs', '');
      } else s.textContent = lineText(m, i);
      row.appendChild(g);
      if (timeCell) row.appendChild(timeCell(this.p, i));
      row.appendChild(s);
      frag.appendChild(row);
      map.set(i, row);
    }
    this.rows.replaceChildren(frag);
    this.rows.style.transform = 'translateY(' + ((a - 1) * LH) + 'px)';
    this.rowEls = map; this.first = a; this.last = b;
  };
  View.prototype.classFor = function (i) {
    var r = S.result || EMPTY, p = this.p, c = 'ln';
    if (isMapped(p, i)) c += ' m';
    var defs = r.defs[p];
    if (defs) for (var j = 0; j < defs.length; j++) {
      if (i >= defs[j].first && i <= defs[j].last) { c += ' def'; break; }
    }
    if (r.hl[p].has(i)) c += ' hl';
    if (r.src.panel === p && r.srcSet.has(i)) c += ' sel';
    if (this.cur >= 0 && this.targets[this.cur] === i) c += ' cur';
    return c;
  };
  View.prototype.applyClasses = function () {
    var self = this;
    this.rowEls.forEach(function (row, i) { row.className = self.classFor(i); });
  };
  View.prototype.setTargets = function (r) {
    this.targets = sorted(r.hl[this.p]);
    this.cur = -1;
    this.updateNav();
    this.updateRuler(r);
  };
  View.prototype.updateNav = function () {
    var n = this.targets.length;
    this.nav.hidden = n === 0;
    this.count.textContent = (this.cur >= 0 ? this.cur + 1 : '\u2013') + '/' + n;
    this.prevBtn.disabled = this.nextBtn.disabled = n === 0;
  };
  View.prototype.updateRuler = function (r) {
    var marks = document.createDocumentFragment(), n = this.m.n;
    var h = this.rh || 400, seen = new Set(), self = this;
    function mark(line, cls) {
      var y = Math.floor((line - 1) / Math.max(1, n) * (h - 3));
      if (seen.has(y + cls)) return;
      seen.add(y + cls);
      var d = el('div', 'tp-mark' + cls);
      d.style.top = y + 'px';
      d.dataset.line = line;
      marks.appendChild(d);
    }
    if (n) {
      this.targets.forEach(function (l) { mark(l, ''); });
      if (r.src.panel === self.p) r.src.lines.forEach(function (l) { mark(l, ' sel'); });
    }
    this.ruler.replaceChildren(marks);
  };
  /* The panel's height and scroll offset as they are now. Called before a
   * reveal decides anything: the cached height can be a frame old (the
   * ResizeObserver reports after layout), and a stale height made a line
   * below the fold look visible. Reading it costs one layout, on a click. */
  View.prototype.sync = function () {
    this.h = this.scroller.clientHeight;
    if (!scrollQueue.has(this)) this.top = this.scroller.scrollTop;
  };
  View.prototype.isVisible = function (line) {
    var top = (line - 1) * LH;
    return this.h > 0 && top >= this.top && top + LH <= this.top + this.h;
  };
  View.prototype.reveal = function (line, force) {
    if (this.m.text === null || !inPanel(this.p, line)) return;
    if (this.p === 'kernel' || this.p === 'code') showTab(this.p);
    this.sync();
    if (force || !this.isVisible(line)) {
      var max = Math.max(0, this.m.n * LH - this.h);
      this.top = Math.min(max, Math.max(0, (line - 1) * LH - Math.floor(this.h / 3)));
      queueScroll(this);
    }
    this.render(true);
  };
  /* The index of the target to show: the first one already fully on
   * screen, else the one nearest to the panel's scroll position, so a new
   * selection moves each panel as little as it can. */
  View.prototype.nearestTarget = function () {
    var t = this.targets, n = t.length;
    if (!n) return -1;
    this.sync();
    var lo = 0, hi = n;
    var firstShown = Math.floor(this.top / LH) + 1;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (t[mid] < firstShown) lo = mid + 1; else hi = mid;
    }
    if (lo < n && this.isVisible(t[lo])) return lo;
    if (lo >= n) return n - 1;
    if (lo === 0) return 0;
    var above = firstShown - t[lo - 1], below = t[lo] - firstShown;
    return above <= below ? lo - 1 : lo;
  };
  /* After a resize, a pinned selection keeps something on screen in this
   * panel: its selected line in the panel it was made in, else one of its
   * linked lines (the current one when n/p chose one). */
  View.prototype.keepShown = function () {
    if (!S.pinned || !this.shown() || !this.h) return;
    var r = S.result || EMPTY, lines = r.src.panel === this.p ? r.src.lines : this.targets;
    if (!lines.length) return;
    for (var i = 0; i < lines.length; i++) if (this.isVisible(lines[i])) return;
    if (r.src.panel !== this.p && this.cur >= 0) this.reveal(this.targets[this.cur], false);
    else if (r.src.panel !== this.p) this.reveal(this.targets[this.nearestTarget()], false);
    else this.reveal(lines[0], false);
  };
  /* Scroll offsets are written after every panel has rendered (one layout
   * for all panels instead of one per panel). */
  var scrollQueue = new Set();
  function queueScroll(v) {
    if (!scrollQueue.size) {
      Promise.resolve().then(function () {
        scrollQueue.forEach(function (w) { w.scroller.scrollTop = w.top; });
        scrollQueue.clear();
      });
    }
    scrollQueue.add(v);
  }
  View.prototype.step = function (delta) {
    var n = this.targets.length;
    if (!n) return;
    this.cur = this.cur < 0 ? (delta > 0 ? 0 : n - 1) : (this.cur + delta + n) % n;
    this.updateNav();
    this.reveal(this.targets[this.cur], false);
    this.applyClasses();
    S.activeView = this;
  };

  function panelBox(title, p) {
    var box = el('section', 'tp-panel');
    box.dataset.box = p;
    var head = el('div', 'tp-phead');
    box.appendChild(head);
    if (title) {
      head.appendChild(el('span', 'tp-ptitle', title));
      head.appendChild(artifactLink(p));
    }
    return {box: box, head: head};
  }
  var boxes = [];
  ['pre', 'post'].forEach(function (p) {
    var b = panelBox(TITLE[p], p);
    V[p] = new View(p, b.box, b.head);
    boxes.push(b.box);
  });
  var codeBox = panelBox(null, 'code'), tabs = {};
  var hasKernelTab = M.kernel.text !== null || M.kernel.defs.length > 0;
  ['code', 'kernel'].forEach(function (p) {
    if (p === 'kernel' && !hasKernelTab) return;
    var t = el('button', 'tp-tab', p === 'code' ? (aot ? 'AOT wrapper code' : 'Output code')
      : 'Kernel code');
    t.dataset.tab = p;
    t.addEventListener('click', function () { showTab(p); });
    tabs[p] = t;
    codeBox.head.appendChild(t);
  });
  var tabFiles = {code: artifactLink('code'), kernel: artifactLink('kernel')};
  codeBox.head.appendChild(tabFiles.code);
  codeBox.head.appendChild(tabFiles.kernel);
  V.code = new View('code', codeBox.box, codeBox.head);
  V.kernel = new View('kernel', codeBox.box, codeBox.head);
  boxes.push(codeBox.box);
  var cid = el('span', 'tp-pfile', str(view.compile_id));
  [V.pre, V.post].forEach(function (v) {
    v.body.parentNode.firstChild.insertBefore(el('span', 'tp-pfile', str(view.compile_id)),
      v.nav);
  });
  codeBox.head.insertBefore(cid, V.code.nav);

  function showTab(p) {
    var other = p === 'code' ? 'kernel' : 'code';
    if (!V[p] || (p === 'kernel' && !hasKernelTab)) return;
    var wasHidden = V[p].body.hidden;
    V[p].body.hidden = false;
    V[other].body.hidden = true;
    if (S.started && (wasHidden || !V[p].h)) V[p].measure();
    V[p].nav.hidden = V[p].targets.length === 0;
    V[other].nav.hidden = true;
    Object.keys(tabs).forEach(function (k) { tabs[k].classList.toggle('active', k === p); });
    tabFiles[p].hidden = false;
    tabFiles[other].hidden = true;
    V[p].render(true);
    V[p].updateRuler(S.result || EMPTY);
  }

  boxes.forEach(function (b, i) {
    if (i) panelsEl.appendChild(makeDivider(i));
    panelsEl.appendChild(b);
  });
  function makeDivider(i) {
    var d = el('div', 'tp-divider');
    d.title = 'Drag to resize the panels';
    d.addEventListener('pointerdown', function (e) {
      var widths = boxes.map(function (b) { return b.getBoundingClientRect().width; });
      var x0 = e.clientX, pair = widths[i - 1] + widths[i];
      d.setPointerCapture(e.pointerId);
      d.classList.add('dragging');
      function move(ev) {
        var left = Math.min(pair - 120, Math.max(120, widths[i - 1] + ev.clientX - x0));
        var w = widths.slice();
        w[i - 1] = left; w[i] = pair - left;
        boxes.forEach(function (b, j) { b.style.flex = w[j] + ' 1 0px'; });
      }
      function up() {
        d.removeEventListener('pointermove', move);
        d.removeEventListener('pointerup', up);
        d.classList.remove('dragging');
        PANELS.forEach(function (p) { V[p].render(true); });
      }
      d.addEventListener('pointermove', move);
      d.addEventListener('pointerup', up);
      e.preventDefault();
    });
    return d;
  }

  /* ---- bottom: selection info, stack traces, kernel table ---------------- */
  var bottom = el('div', 'tp-bottom');
  var info = el('div', 'tp-info');
  var stacks = el('div', 'tp-stacks');
  bottom.appendChild(info);
  bottom.appendChild(stacks);
  app.appendChild(bottom);
  var HINT = 'Hover a bold line to preview its links; click to pin. Keys: / search, ' +
    'n/p next/previous link, g go to definition, Esc clear.';

  /* The frames of a Python stack trace: file, line, function, the source
   * line without its indentation and, from a caret line under it
   * ("    ^^^^" or "~~~^^^~~~"), the columns it marks in that text. */
  function parseFrames(trace) {
    if (trace.indexOf('\n') < 0 && trace.indexOf('\\n') >= 0) trace = trace.split('\\n').join('\n');
    var out = [], ls = trace.split('\n');
    for (var i = 0; i < ls.length; i++) {
      var mt = /^\s*File "(.*)", line (\d+)(?:, in (.*))?\s*$/.exec(ls[i]);
      if (!mt) continue;
      var code = '', span = null;
      if (i + 1 < ls.length && !/^\s*File "/.test(ls[i + 1])) {
        var raw = ls[i + 1], indent = raw.length - raw.replace(/^\s+/, '').length;
        code = raw.trim();
        var marks = i + 2 < ls.length ? ls[i + 2] : '';
        if (/^\s*[\^~]+\s*$/.test(marks) && marks.trim().length) {
          var from = marks.search(/[\^~]/) - indent, to = from + marks.trim().length;
          if (from >= 0 && to <= code.length) span = [from, to];
        }
      }
      out.push({file: mt[1], line: Number(mt[2]), fn: mt[3] || '', code: code, span: span});
    }
    return out;
  }
  function frameKey(f) { return f.file + ':' + f.line + ':' + f.fn + ':' + f.code; }
  function frameEl(f, count) {
    var d = el('span', 'tp-frame');
    var loc = el('span', 'tp-file', f.file.split('/').pop() + ':' + f.line +
      (f.fn ? ' in ' + f.fn : ''));
    loc.title = f.file;
    d.appendChild(loc);
    if (count > 1) {
      var c = el('span', 'tp-count-badge', '\u00d7' + count);
      c.title = 'In ' + count + ' of the kernel\u2019s stack traces';
      d.appendChild(c);
    }
    if (f.code) {
      var code = el('code');
      if (f.span) {
        code.appendChild(document.createTextNode(f.code.slice(0, f.span[0])));
        code.appendChild(el('mark', 'tp-span', f.code.slice(f.span[0], f.span[1])));
        code.appendChild(document.createTextNode(f.code.slice(f.span[1])));
      } else code.textContent = f.code;
      d.appendChild(code);
    }
    return d;
  }
  /* A kernel's stack traces as one tree: frames the traces share (the
   * same file, line, function and source) are shown once, with how many
   * traces pass through them; each level indented under its caller. */
  function stackTree(traces) {
    var root = {kids: new Map(), order: []};
    var loose = [];
    traces.forEach(function (t) {
      var frames = parseFrames(t), at = root;
      if (!frames.length) { loose.push(t); return; }
      frames.forEach(function (f) {
        var key = frameKey(f), node = at.kids.get(key);
        if (!node) {
          node = {f: f, n: 0, kids: new Map(), order: []};
          at.kids.set(key, node);
          at.order.push(node);
        }
        node.n++;
        at = node;
      });
    });
    var box = document.createDocumentFragment();
    (function walk(node, depth) {
      node.order.forEach(function (kid) {
        var row = frameEl(kid.f, kid.n);
        row.style.paddingLeft = (depth * 16) + 'px';
        box.appendChild(row);
        walk(kid, depth + 1);
      });
    })(root, 0);
    loose.forEach(function (t) { box.appendChild(el('code', 'tp-frame', t)); });
    return box;
  }
  /* The user source lines a kernel comes from (the innermost frame of each
   * of its stack traces), per file: "model.py:17-19 (3 lines)". */
  function sourceLines(k) {
    var files = new Map();
    k.stacks.forEach(function (t) {
      var frames = parseFrames(t);
      if (!frames.length) return;
      var f = frames[frames.length - 1];
      if (!files.has(f.file)) files.set(f.file, new Set());
      files.get(f.file).add(f.line);
    });
    var parts = [], all = [];
    files.forEach(function (lines, file) {
      var ls = sorted(lines), base = file.split('/').pop();
      ls.forEach(function (l) { all.push(file + ':' + l); });
      if (ls.length <= 3) parts.push(base + ':' + ls.join(', '));
      else parts.push(base + ':' + ls[0] + '\u2013' + ls[ls.length - 1] + ' (' + ls.length + ' lines)');
    });
    return {text: parts.join('; '), title: all.join('\n')};
  }
  /* The post-grad ops a kernel fuses, from its node names (FX names a
   * node after its op, with a count suffix): "mul \u00d73, add \u00d72, erf". */
  function fusedOps(k) {
    var ops = new Map();
    k.post.forEach(function (name) {
      var op = name.replace(/_\d+$/, '');
      ops.set(op, (ops.get(op) || 0) + 1);
    });
    return Array.from(ops.keys()).map(function (op) {
      var n = ops.get(op);
      return n > 1 ? op + ' \u00d7' + n : op;
    }).join(', ');
  }
  /* The pre-grad nodes a kernel comes from: its post-grad lines' pre-grad
   * lines, named. */
  function preNodes(k) {
    var r = compute({kernel: k.i}), names = [];
    sorted(r.hl.pre).forEach(function (l) {
      (nodeMap('pre').byLine.get(l) || []).forEach(function (n) {
        if (names.indexOf(n) < 0) names.push(n);
      });
    });
    return names;
  }
  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many); }
  /* A table cell whose text is cut to its column's width on screen only
   * (the whole text stays in the cell: hover shows it, copying takes it). */
  function cutCell(text, title, cls) {
    var td = el('td'), span = el('span', 'tp-cut' + (cls ? ' ' + cls : ''), text);
    span.title = title;
    td.appendChild(span);
    return td;
  }
  function describeLine(p, line) {
    var names = p === 'pre' || p === 'post' ? nodeMap(p).byLine.get(line) : null;
    var s = TITLE[p].toLowerCase() + ' line ' + line;
    return names ? s + ': ' + names.join(', ') : s;
  }
  function kernelButton(k) {
    var b = el('button', 'tp-kbtn', K[k].key);
    b.title = 'Select kernel ' + K[k].key + ' (' + K[k].kind + ')';
    b.addEventListener('click', function () { selectKernel(k); });
    return b;
  }
  function updateInfo(r, pinned) {
    info.textContent = '';
    stacks.textContent = '';
    if (!r || r === EMPTY) { info.appendChild(el('span', 'tp-hint', HINT)); return; }
    var sel = r.sel;
    info.appendChild(el('strong', null, sel.kernel !== undefined ? 'Kernel' :
      describeLine(sel.panel, sel.line)));
    info.appendChild(el('span', 'tp-hint', '\u2192 ' + linkCounts(r)));
    r.ks.slice(0, 12).forEach(function (k) { info.appendChild(kernelButton(k)); });
    if (r.ks.length > 12) info.appendChild(el('span', 'tp-hint', '+' + (r.ks.length - 12) + ' more'));
    var jump = jumpTarget(r);
    if (pinned && jump) {
      var b = el('button', 'tp-goto', jump.back ? 'Back to call site (g)' : 'Go to definition (g)');
      b.addEventListener('click', goToDefinition);
      info.appendChild(b);
    }
    if (!pinned) return;
    r.ks.slice(0, 6).forEach(function (k) {
      if (!K[k].stacks.length) return;
      var box = el('div', 'tp-stack');
      box.appendChild(el('div', 'tp-hint', 'User source of ' + K[k].key + ' (' +
        plural(K[k].stacks.length, 'stack trace', 'stack traces') + '):'));
      box.appendChild(stackTree(K[k].stacks));
      stacks.appendChild(box);
    });
  }
  /* "3 pre, 9 post, 1 call": the linked lines of each graph and the code
   * lines involved (the selection's own included), named calls when each
   * is a kernel's call site. */
  function linkCounts(r) {
    var code = new Set(r.hl.code);
    if (r.src.panel === 'code') r.src.lines.forEach(function (l) { code.add(l); });
    var calls = true;
    code.forEach(function (l) { if (!callIdx.has(l)) calls = false; });
    var parts = [r.hl.pre.size + ' pre', r.hl.post.size + ' post',
      calls ? plural(code.size, 'call', 'calls') : plural(code.size, 'code line', 'code lines')];
    if (r.hl.kernel.size) parts.push(plural(r.hl.kernel.size, 'kernel code line', 'kernel code lines'));
    return parts.join(', ');
  }

  var kdetails = el('details', 'tp-kernels');
  kdetails.appendChild(el('summary', null, 'Kernels (' + K.length + ')'));
  bottom.appendChild(kdetails);
  var kbuilt = false, krows = [];
  kdetails.addEventListener('toggle', function () {
    if (!kdetails.open || kbuilt) return;
    kbuilt = true;
    var table = el('table', 'tp-ktable'), thead = el('thead'), tr = el('tr');
    ['Kernel', 'Kind', 'Call lines', 'Fused post-grad ops', 'Pre-grad nodes', 'Definition',
      'User source'].forEach(function (h) { tr.appendChild(el('th', null, h)); });
    var tbody = el('tbody');
    if (kernelTime) {
      var th = el('th', 'tp-sort', 'Time (\u00b5s) \u25be');
      th.title = 'Sort by time';
      var desc = true;
      th.addEventListener('click', function () {
        desc = !desc;
        th.textContent = 'Time (\u00b5s) ' + (desc ? '\u25be' : '\u25b4');
        krows.slice().sort(function (a, b) {
          var d = Number(b.dataset.us || -1) - Number(a.dataset.us || -1);
          return desc ? d : -d;
        }).forEach(function (row) { tbody.appendChild(row); });
      });
      tr.insertBefore(th, tr.children[1]);
    }
    thead.appendChild(tr);
    table.appendChild(thead);
    K.forEach(function (k) {
      var row = el('tr');
      row.dataset.kernel = k.key;
      /* Long names are cut on screen only: the cell holds the whole name,
       * so hovering shows it and copying takes it. */
      row.appendChild(cutCell(k.key, k.key, 'tp-mono tp-kname'));
      if (kernelTime) {
        var us = kernelTime(k);
        row.appendChild(el('td', 'tp-num', us === null ? '\u2013' : fmtUs(us)));
        if (us !== null) row.dataset.us = us;
      }
      row.appendChild(el('td', null, k.kind));
      row.appendChild(el('td', null, k.calls.join(', ') || '\u2013'));
      row.appendChild(cutCell(k.post.length ? fusedOps(k) : '\u2013',
        plural(k.post.length, 'post-grad node', 'post-grad nodes') +
        (k.post.length ? ': ' + k.post.join(', ') : '')));
      var pre = preNodes(k);
      row.appendChild(cutCell(pre.length ? pre.join(', ') : '\u2013',
        plural(pre.length, 'pre-grad node', 'pre-grad nodes') +
        (pre.length ? ': ' + pre.join(', ') : '')));
      row.appendChild(el('td', null, k.def ? (k.def.panel === 'kernel' ? 'kernel code ' : 'code ') +
        k.def.first + '\u2013' + k.def.last : '\u2013'));
      var src = sourceLines(k);
      row.appendChild(cutCell(src.text || '\u2013', src.title));
      row.addEventListener('click', function () { selectKernel(k.i); });
      tbody.appendChild(row);
      krows.push(row);
    });
    if (kernelTime) {
      krows.slice().sort(function (a, b) {
        return Number(b.dataset.us || -1) - Number(a.dataset.us || -1);
      }).forEach(function (row) { tbody.appendChild(row); });
    }
    table.appendChild(tbody);
    kdetails.appendChild(table);
    markKernelRows(S.result);
  });
  function markKernelRows(r) {
    var ks = new Set(r ? r.ks : []);
    krows.forEach(function (row, i) { row.classList.toggle('active', ks.has(i)); });
  }

  function countKeys(obj) { return isObj(obj) ? Object.keys(obj).length : 0; }
  /* The coverage line is filled once the page has loaded (counting the
   * nodes of a big view takes a few tens of ms), unless the first paint
   * wrote it (src/provpage_paint.c, put_coverage). */
  function buildCoverage() {
    if (paintedCoverage) return paintedCoverage;
    var d = el('div', 'tp-coverage');
    d.textContent = '\u00a0';
    afterLoad(function () { fillCoverage(d); });
    return d;
  }
  function fillCoverage(d) {
    d.textContent = '';
    var un = isObj(view.unresolved) ? view.unresolved : {};
    var linkedKernels = 0;
    arr(view.kernels).forEach(function (k) { if (isObj(k) && arr(k.calls).length) linkedKernels++; });
    var parts = [
      ['pre-grad nodes', countKeys(nodes.pre), arr(un.pre_nodes)],
      ['post-grad nodes', countKeys(nodes.post), arr(un.post_nodes)],
      ['kernels', linkedKernels, arr(un.kernels)]];
    var legend = el('span', 'tp-legend');
    legend.appendChild(el('span', 'ln-sel', 'selected'));
    legend.appendChild(el('span', 'ln-hl', 'linked'));
    legend.appendChild(el('span', 'ln-def', 'kernel definition'));
    d.appendChild(legend);
    d.appendChild(el('span', null, 'Linked: '));
    var all = [];
    parts.forEach(function (x, i) {
      d.appendChild(el('span', 'tp-cov', (i ? ' \u00b7 ' : '') + x[0] + ' ' + x[1] +
        ' linked, ' + x[2].length + ' unresolved'));
      x[2].forEach(function (n) { if (typeof n === 'string') all.push([x[0], n]); });
    });
    if (view.mapping_version !== undefined && view.mapping_version !== null) {
      d.appendChild(el('span', null, ' \u00b7 mapping v' + String(view.mapping_version)));
    }
    if (all.length) {
      var det = el('details', 'tp-unres');
      det.appendChild(el('summary', null, ' show unresolved names'));
      var ul = el('ul', 'tp-unresolved');
      all.forEach(function (x) { ul.appendChild(el('li', null, x[0] + ': ' + x[1])); });
      det.appendChild(ul);
      d.appendChild(document.createTextNode(' '));
      d.appendChild(det);
    }
  }
