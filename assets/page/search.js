/* search.js: the search box (/): node names of both graphs and kernel
 * keys, ranked exact > prefix > substring; choosing a result selects it
 * through selection.js.
 */
  /* ---- search ------------------------------------------------------------- */
  var searchBox = document.getElementById('tp-search-box') || app;
  searchBox.textContent = '';  /* the first paint's disabled box */
  var search = el('input', 'tp-search');
  search.type = 'search';
  search.placeholder = 'Search nodes and kernels (/)';
  search.setAttribute('aria-label', 'Search nodes and kernels');
  var results = el('ul', 'tp-results');
  results.hidden = true;
  searchBox.appendChild(search);
  searchBox.appendChild(results);
  var index = null, matches = [], active = 0;
  function buildIndex() {
    index = [];
    ['pre', 'post'].forEach(function (p) {
      nodeMap(p).byName.forEach(function (lines, name) {
        lines.forEach(function (line) {
          index.push({label: name, lc: name.toLowerCase(), kind: p, line: line});
        });
      });
    });
    K.forEach(function (k) { index.push({label: k.key, lc: k.key.toLowerCase(), kind: 'kernel', k: k.i}); });
  }
  function runSearch() {
    if (!index) buildIndex();
    var q = search.value.trim().toLowerCase();
    matches = [];
    if (q) {
      index.forEach(function (e) {
        var at = e.lc.indexOf(q);
        if (at < 0) return;
        var rank = e.lc === q ? 0 : at === 0 ? 1 : 2;
        if (e.kind === 'kernel' && rank && e.lc.lastIndexOf(':') === q.length &&
            e.lc.slice(0, q.length) === q) rank = 0;
        matches.push({e: e, rank: rank});
      });
      matches.sort(function (a, b) {
        return a.rank - b.rank || a.e.label.length - b.e.label.length ||
          (a.e.label < b.e.label ? -1 : a.e.label > b.e.label ? 1 : 0);
      });
    }
    active = 0;
    showResults();
  }
  function showResults() {
    results.textContent = '';
    results.hidden = !search.value.trim();
    if (!matches.length) { results.appendChild(el('li', 'tp-none', 'No node or kernel matches')); return; }
    matches.slice(0, 50).forEach(function (m, i) {
      var li = el('li', i === active ? 'active' : '');
      li.appendChild(el('span', 'tp-kind', m.e.kind === 'kernel' ? 'kernel' : m.e.kind + '-grad'));
      li.appendChild(el('span', 'tp-mono', m.e.label));
      if (m.e.line) li.appendChild(el('span', 'tp-hint', '  line ' + m.e.line));
      li.addEventListener('mousedown', function (ev) { ev.preventDefault(); choose(i); });
      results.appendChild(li);
    });
    if (matches.length > 50) results.appendChild(el('li', 'tp-none', (matches.length - 50) + ' more\u2026'));
  }
  function choose(i) {
    var m = matches[i];
    if (!m) return;
    results.hidden = true;
    search.blur();
    if (m.e.kind === 'kernel') selectKernel(m.e.k);
    else if (!pin({panel: m.e.kind, line: m.e.line}, true)) V[m.e.kind].reveal(m.e.line, false);
  }
  search.addEventListener('input', runSearch);
  search.addEventListener('blur', function () { results.hidden = true; });
  search.addEventListener('focus', function () { if (search.value.trim()) runSearch(); });
  search.addEventListener('keydown', function (e) {
    if (e.key === 'Enter') { e.preventDefault(); choose(active); }
    else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      var n = Math.min(matches.length, 50);
      if (n) { active = (active + (e.key === 'ArrowDown' ? 1 : n - 1)) % n; showResults(); }
    } else if (e.key === 'Escape') {
      search.value = ''; results.hidden = true; search.blur();
    }
  });
