/* profile.js: "where the time goes" (issue 16). When the view carries a
 * profile (view.profile, written by src/profile_join.c from a torch.profiler
 * trace given with --profile), adds a time column and a heat gutter to every
 * panel, a time column to the kernel table and the "top kernels" and "top
 * model lines" tables. Without a profile it does nothing.
 */
  /* Viridis (perceptually uniform, colour-blind safe), 10 steps. */
  var VIRIDIS = ['#440154', '#482878', '#3e4989', '#31688e', '#26828e',
    '#1f9e89', '#35b779', '#6ece58', '#b5de2b', '#fde725'];
  var PROF = isObj(view.profile) ? view.profile : null;
  var profMatched = !!PROF && isObj(PROF.match) && PROF.match.status === 'matched';
  var profLines = {}, profMax = {};
  function finiteUs(v) { return typeof v === 'number' && isFinite(v) && v >= 0; }
  function fmtUs(v) {
    if (typeof v !== 'number' || !isFinite(v)) return '\u2013';
    return v < 10 ? v.toFixed(2) : v < 1000 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US');
  }
  /* 0..1 -> step of the scale; sqrt so that a few hot lines do not wash
   * out the rest. */
  function heatStep(frac) { return Math.min(9, Math.floor(Math.sqrt(Math.max(0, frac)) * 10)); }
  PANELS.forEach(function (p) {
    var m = new Map(), max = 0;
    var obj = PROF && isObj(PROF.lines) && isObj(PROF.lines[p]) ? PROF.lines[p] : {};
    Object.keys(obj).forEach(function (k) {
      var line = Number(k), v = obj[k];
      if (!inPanel(p, line) || !finiteUs(v) || v <= 0) return;
      m.set(line, v);
      if (v > max) max = v;
    });
    profLines[p] = m;
    profMax[p] = max;
  });
  /* For tests and scripts: what the time column of a line shows. */
  function profileAt(panel, line) {
    if (!profLines[panel]) return null;
    var v = profLines[panel].get(line);
    if (v === undefined) return null;
    return {us: v, text: fmtUs(v), step: heatStep(v / profMax[panel]),
      color: VIRIDIS[heatStep(v / profMax[panel])]};
  }

  if (profMatched) {
    timeCell = function (p, i) {
      var span = document.createElement('span');
      span.className = 't';
      var at = profileAt(p, i);
      if (at) {
        span.textContent = at.text;
        span.style.background = at.color;
        span.style.color = at.step >= 6 ? '#000' : '#fff';
        span.title = at.us + ' \u00b5s of profiled kernel time';
      }
      return span;
    };
    kernelTime = function (k) {
      var o = isObj(PROF.kernels) ? PROF.kernels[k.key] : null;
      return isObj(o) && finiteUs(o.total_us) ? o.total_us : null;
    };
    PANELS.forEach(function (p) {
      if (V[p].m.text !== null) V[p].spacer.style.width = 'calc(' + V[p].spacer.style.width.replace(/^calc\(|\)$/g, '') + ' + 9ch)';
    });
  }

  /* The time summary, top kernels and top model lines under the panels. */
  (function buildTimeSection() {
    if (!PROF) return;
    var det = el('details', 'tp-time');
    det.open = profMatched;
    var region = isObj(PROF.region) ? PROF.region : {};
    var sum = el('summary', null, 'Where the time goes');
    det.appendChild(sum);
    if (!profMatched) {
      var m = isObj(PROF.match) ? PROF.match : {};
      var words = m.status === 'ambiguous' ? 'is ambiguous for' : 'does not match';
      det.appendChild(el('p', 'tp-hint tp-verdict', 'The profile ' + words + ' this view: ' + str(m.reason) + '.'));
      if (typeof m.kernel_names_expected === 'number') {
        var miss = arr(m.missing).map(str);
        det.appendChild(el('p', 'tp-hint tp-evidence', 'Evidence: ' + String(m.kernel_names_found) + ' of ' +
          String(m.kernel_names_expected) + ' Inductor kernel names and ' + String(m.extern_names_found) + ' of ' +
          String(m.extern_names_expected) + ' extern kernel names found; this view is the ' + str(m.view_phase) +
          ' graph' + (miss.length ? '; not found: ' + miss.join(', ') : '') + '.'));
      }
      bottom.appendChild(det);
      return;
    }
    var total = finiteUs(region.total_us) ? region.total_us : 0;
    function pct(v) { return total > 0 && finiteUs(v) ? (100 * v / total).toFixed(1) + '%' : '\u2013'; }
    det.appendChild(el('p', 'tp-region',
      'Profiled ' + fmtUs(total) + ' \u00b5s (' + str(PROF.clock).toUpperCase() + ' clock) over ' +
      String(PROF.calls) + ' calls of ' + str(PROF.match.phase) + ' graph ' + str(PROF.match.graph_key).slice(0, 12) +
      '\u2026' + (PROF.steps ? ', ' + PROF.steps + ' profiler steps (' + fmtUs(region.per_step_us || 0) + ' \u00b5s per step)' : '') +
      ': Inductor kernels ' + pct(region.inductor_us) + ', extern kernels ' + pct(region.extern_us) +
      ', other ' + pct(region.unknown_us) + '.'));
    var gc = isObj(PROF.graph_calls) ? PROF.graph_calls : null;
    if (gc && gc.count) {
      det.appendChild(el('p', 'tp-region tp-calls', 'Graph calls (' + str(gc.clock).toUpperCase() + ' clock): ' + String(gc.count) +
        ', first ' + fmtUs(gc.first_us) + ' \u00b5s' + (gc.count > 1 ? ', then median ' + fmtUs(gc.median_us) +
        ' \u00b5s (min ' + fmtUs(gc.min_us) + ', max ' + fmtUs(gc.max_us) + ')' : '') +
        (gc.far_count ? '; ' + gc.far_count + ' call(s) far from the median (' + fmtUs(gc.far_us) + ' \u00b5s in all)' : '') + '.'));
    }
    var legend = el('div', 'tp-heat-legend');
    legend.appendChild(el('span', null, 'Time column: less '));
    VIRIDIS.forEach(function (c) {
      var sw = el('span', 'tp-swatch');
      sw.style.background = c;
      legend.appendChild(sw);
    });
    legend.appendChild(el('span', null, ' more (per panel, square-root scale; \u00b5s per line, all profiled calls)'));
    det.appendChild(legend);

    /* A horizontal bar chart (inline SVG) of items {label, us, kernel}: the
     * page's scale by the square root of the share of the largest, as the
     * index draws it; clicking a bar selects its kernel. */
    var SVG = 'http://www.w3.org/2000/svg';
    function svgEl(tag, attrs) {
      var e = document.createElementNS(SVG, tag);
      Object.keys(attrs || {}).forEach(function (a) { e.setAttribute(a, attrs[a]); });
      return e;
    }
    function barChart(cls, title, items) {
      if (!items.length) return null;
      var W = 760, LABEL = 330, BAR = 330, ROW = 20, max = items[0].us;
      var fig = el('figure', 'tp-bars ' + cls);
      fig.appendChild(el('figcaption', null, title));
      var svg = svgEl('svg', {viewBox: '0 0 ' + W + ' ' + (items.length * ROW + 4), width: '100%',
        role: 'img', 'aria-label': title, 'font-family': 'sans-serif', 'font-size': '12'});
      svg.style.maxWidth = W + 'px';
      items.forEach(function (it, i) {
        var y = i * ROW + 2, w = max > 0 ? it.us / max * BAR : 0;
        var g = svgEl('g', {'class': 'tp-bar'});
        if (it.kernel !== null) {
          g.dataset.kernel = K[it.kernel].key;
          g.style.cursor = 'pointer';
          g.addEventListener('click', function () { selectKernel(it.kernel); });
        }
        /* the whole row takes the click, not only the painted bar and text */
        g.appendChild(svgEl('rect', {'class': 'tp-bar-row', x: 0, y: y, width: W, height: ROW, fill: 'transparent'}));
        var t = svgEl('title');
        t.textContent = it.label + ': ' + fmtUs(it.us) + ' \u00b5s';
        g.appendChild(t);
        var label = svgEl('text', {x: LABEL - 6, y: y + ROW / 2, 'text-anchor': 'end', 'dominant-baseline': 'middle'});
        var chars = Array.from(it.label);
        label.textContent = chars.length > 48 ? '\u2026' + chars.slice(chars.length - 47).join('') : it.label;
        g.appendChild(label);
        g.appendChild(svgEl('rect', {'class': 'tp-bar-fill', x: LABEL, y: y + 2, width: (w < 1 && it.us > 0 ? 1 : w).toFixed(1),
          height: ROW - 4, fill: VIRIDIS[heatStep(max > 0 ? it.us / max : 0)]}));
        var v = svgEl('text', {x: (LABEL + w + 4).toFixed(1), y: y + ROW / 2, 'dominant-baseline': 'middle'});
        v.textContent = fmtUs(it.us) + ' \u00b5s';
        g.appendChild(v);
        svg.appendChild(g);
      });
      fig.appendChild(svg);
      return fig;
    }
    /* The kernel that gives a model line the most time (its innermost
     * stack frame), or -1. */
    function kernelOfLine(s) {
      var best = -1, bestUs = -1;
      K.forEach(function (k) {
        var o = isObj(PROF.kernels) ? PROF.kernels[k.key] : null;
        if (!isObj(o) || !finiteUs(o.total_us) || o.total_us <= bestUs) return;
        var hit = k.stacks.some(function (t) {
          var f = parseFrames(t);
          return f.length && f[f.length - 1].file === s.file && f[f.length - 1].line === s.line;
        });
        if (hit) { best = k.i; bestUs = o.total_us; }
      });
      return best;
    }
    var topK = K.map(function (k) { return {k: k, o: isObj(PROF.kernels) ? PROF.kernels[k.key] : null}; })
      .filter(function (x) { return isObj(x.o) && finiteUs(x.o.total_us); })
      .sort(function (a, b) { return b.o.total_us - a.o.total_us; })
      .slice(0, 10);
    var topLines = arr(PROF.source_lines).filter(function (x) { return isObj(x) && finiteUs(x.total_us); }).slice(0, 10);
    var charts = el('div', 'tp-charts');
    var kc = barChart('tp-kernel-bars', 'Time per kernel (the 10 hottest)', topK.map(function (x) {
      return {label: x.k.key, us: x.o.total_us, kernel: x.k.i};
    }));
    var lc = barChart('tp-line-bars', 'Time per model line (the 10 hottest)', topLines.map(function (x) {
      var best = kernelOfLine(x);
      return {label: str(x.file).split('/').pop() + ':' + String(x.line), us: x.total_us, kernel: best >= 0 ? best : null};
    }));
    if (kc) charts.appendChild(kc);
    if (lc) charts.appendChild(lc);
    det.appendChild(charts);

    var wrap = el('div', 'tp-tops');
    /* top kernels */
    var kt = el('table', 'tp-ktable tp-topk');
    var kh = el('tr');
    ['Top kernels', 'total \u00b5s', 'calls', 'first', 'median', 'min', 'max', 'far'].forEach(function (h) { kh.appendChild(el('th', null, h)); });
    kt.appendChild(kh);
    topK.forEach(function (x) {
        var row = el('tr');
        row.dataset.kernel = x.k.key;
        row.appendChild(el('td', 'tp-mono', x.k.key));
        row.appendChild(el('td', 'tp-num', fmtUs(x.o.total_us)));
        row.appendChild(el('td', 'tp-num', String(x.o.count)));
        ['first_us', 'median_us', 'min_us', 'max_us'].forEach(function (f) {
          row.appendChild(el('td', 'tp-num', finiteUs(x.o[f]) ? fmtUs(x.o[f]) : '\u2013'));
        });
        var far = el('td', 'tp-num tp-far', x.o.far_count ? '\u26a0 ' + x.o.far_count : '');
        if (x.o.far_count) {
          far.title = x.o.far_count + ' call(s) more than 3\u00d7 or less than \u2153 of the median: ' +
            arr(x.o.far).filter(isObj).map(function (c) { return 'call ' + c.call + ': ' + fmtUs(c.us) + ' \u00b5s'; }).join(', ');
        }
        row.appendChild(far);
        row.addEventListener('click', function () { selectKernel(x.k.i); });
        kt.appendChild(row);
      });
    wrap.appendChild(kt);
    /* top model lines: clicking selects the kernel that gives the line most time */
    var lt = el('table', 'tp-ktable tp-toplines');
    var lh = el('tr');
    ['Model line', 'Code', 'Total \u00b5s', 'Forward \u00b5s', 'Backward \u00b5s'].forEach(function (h) { lh.appendChild(el('th', null, h)); });
    lt.appendChild(lh);
    arr(PROF.source_lines).filter(isObj).slice(0, 10).forEach(function (s) {
      var row = el('tr');
      var where = str(s.file).split('/').pop() + ':' + String(s.line);
      row.appendChild(el('td', 'tp-mono', where));
      row.appendChild(el('td', 'tp-mono', str(s.code)));
      row.appendChild(el('td', 'tp-num', finiteUs(s.total_us) ? fmtUs(s.total_us) : '\u2013'));
      row.appendChild(el('td', 'tp-num', finiteUs(s.fwd_us) ? fmtUs(s.fwd_us) : '\u2013'));
      row.appendChild(el('td', 'tp-num', finiteUs(s.bwd_us) ? fmtUs(s.bwd_us) : '\u2013'));
      row.title = str(s.file);
      var best = kernelOfLine(s);
      if (best >= 0) {
        row.addEventListener('click', function () { selectKernel(best); });
        row.dataset.kernel = K[best].key;
      }
      lt.appendChild(row);
    });
    wrap.appendChild(lt);
    det.appendChild(wrap);
    var gaps = arr(PROF.kernels_without_events).filter(isObj);
    if (gaps.length) {
      det.appendChild(el('p', 'tp-hint tp-gaps', gaps.length + ' kernel(s) of this view have no event in the profile (' +
        gaps.slice(0, 5).map(function (g) { return str(g.key); }).join(', ') + (gaps.length > 5 ? ', \u2026' : '') + '): ' +
        str(PROF.record_hint) + '.'));
    }
    var un = arr(PROF.unmatched).length, probs = arr(PROF.problems);
    if (un || probs.length) {
      var note = el('p', 'tp-hint', (un ? un + ' kernel call(s) of the trace matched no kernel of this view. ' : '') +
        probs.map(function (x) { return isObj(x) ? str(x.what) + ' (' + String(x.count) + ')' : ''; }).join('; '));
      det.appendChild(note);
    }
    bottom.insertBefore(det, bottom.firstChild);
  })();
