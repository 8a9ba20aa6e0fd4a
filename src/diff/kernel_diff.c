/* kernel_diff.c: two compiles' kernels -> pairs by the nodes they come
 * from, each the same or changed, and the kernels of one side only (see
 * kernel_diff.h). */
#include "diff/kernel_diff.h"

#include <stdlib.h>
#include <string.h>

static bool generated(tl_str kind) {
  return tl_str_eq_cstr(kind, "triton") || tl_str_eq_cstr(kind, "cpp") ||
         tl_str_eq_cstr(kind, "combo") || tl_str_eq_cstr(kind, "template");
}

tl_str tl_kernel_fused_ops(const tl_kernel_item *k) {
  tl_str s = k->name;
  if (!generated(k->kind))
    return s;
  size_t i = s.len;
  while (i > 0 && s.ptr[i - 1] >= '0' && s.ptr[i - 1] <= '9')
    i--;
  if (i < s.len && i > 1 && s.ptr[i - 1] == '_')
    s.len = i - 1;
  return s;
}

/* A node name of one side -> its partner's name on the other. */
typedef struct name_pair {
  tl_str from, to;
} name_pair;

static int by_from(const void *x, const void *y) {
  return tl_str_cmp(((const name_pair *)x)->from, ((const name_pair *)y)->from);
}

/* A node of b's kernels: which kernel holds it. */
typedef struct node_of {
  tl_str name;
  size_t kernel;
} node_of;

static int by_node(const void *x, const void *y) {
  const node_of *a = x, *b = y;
  int c = tl_str_cmp(a->name, b->name);
  if (c)
    return c;
  return a->kernel < b->kernel ? -1 : a->kernel > b->kernel;
}

/* A possible pair and how many nodes it shares. */
typedef struct edge {
  size_t a, b, shared;
  bool exact, same_ops;
} edge;

static int by_strength(const void *x, const void *y) {
  const edge *p = x, *q = y;
  if (p->exact != q->exact)
    return p->exact ? -1 : 1;
  if (p->shared != q->shared)
    return p->shared > q->shared ? -1 : 1;
  if (p->same_ops != q->same_ops)
    return p->same_ops ? -1 : 1;
  if (p->a != q->a)
    return p->a < q->a ? -1 : 1;
  return p->b < q->b ? -1 : p->b > q->b;
}

/* A kernel left unpaired, by its fused ops and kind, then its place: the
 * first key of each name before its further ones (a mapping has a key per
 * call, the code one definition), then its definition's line (the code's
 * order, which a mapping's keys need not follow), then its index. */
typedef struct leftover {
  tl_str ops, kind, name;
  size_t repeat; /* keys of the same name before it */
  int first;
  size_t index;
} leftover;

static int by_ops(const void *x, const void *y) {
  const leftover *a = x, *b = y;
  int c = tl_str_cmp(a->ops, b->ops);
  if (!c)
    c = tl_str_cmp(a->kind, b->kind);
  if (c)
    return c;
  if (a->repeat != b->repeat)
    return a->repeat < b->repeat ? -1 : 1;
  if (a->first != b->first)
    return a->first < b->first ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

static int by_name_then_index(const void *x, const void *y) {
  const leftover *a = x, *b = y;
  int c = tl_str_cmp(a->name, b->name);
  if (c)
    return c;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* Sets each leftover's `repeat`, then sorts them by by_ops. */
static void order_leftovers(leftover *l, size_t n) {
  tl_sort(l, n, sizeof *l, by_name_then_index);
  for (size_t i = 0; i < n; i++)
    l[i].repeat =
        i && tl_str_eq(l[i].name, l[i - 1].name) ? l[i - 1].repeat + 1 : 0;
  tl_sort(l, n, sizeof *l, by_ops);
}

static tl_str carried(const name_pair *map, size_t count, tl_str name,
                      bool identity) {
  if (identity)
    return name;
  name_pair key = {name, {0}};
  const name_pair *hit =
      count ? bsearch(&key, map, count, sizeof *map, by_from) : NULL;
  return hit ? hit->to : (tl_str){NULL, 0};
}

/* Whether the nodes of `x`, carried, are exactly those of `y`. */
static bool same_nodes(const tl_kernel_item *x, const tl_kernel_item *y,
                       const name_pair *map, size_t count, bool identity) {
  if (x->node_count != y->node_count)
    return false;
  tl_str *p = tl_xmalloc((x->node_count + 1) * sizeof *p);
  tl_str *q = tl_xmalloc((y->node_count + 1) * sizeof *q);
  bool same = true;
  for (size_t i = 0; i < x->node_count; i++) {
    p[i] = carried(map, count, x->nodes[i], identity);
    q[i] = y->nodes[i];
    if (!p[i].ptr)
      same = false;
  }
  if (same) {
    tl_sort(p, x->node_count, sizeof *p, tl_str_cmp_p);
    tl_sort(q, y->node_count, sizeof *q, tl_str_cmp_p);
    for (size_t i = 0; i < x->node_count && same; i++)
      same = tl_str_eq(p[i], q[i]);
  }
  free(p);
  free(q);
  return same;
}

/* The next line of `s` from `*at`, without its newline. */
static tl_str next_line(tl_str s, size_t *at) {
  size_t start = *at, i = start;
  while (i < s.len && s.ptr[i] != '\n')
    i++;
  *at = i < s.len ? i + 1 : i;
  return (tl_str){s.ptr + start, i - start};
}

/* Whether lines x (of kernel `kx`) and y are the same with each side's own
 * kernel name read as one. */
static bool same_line(tl_str x, tl_str nx, tl_str y, tl_str ny) {
  size_t i = 0, j = 0;
  while (i < x.len || j < y.len) {
    bool ax =
        nx.len && x.len - i >= nx.len && memcmp(x.ptr + i, nx.ptr, nx.len) == 0;
    bool ay =
        ny.len && y.len - j >= ny.len && memcmp(y.ptr + j, ny.ptr, ny.len) == 0;
    if (ax && ay) {
      i += nx.len;
      j += ny.len;
      continue;
    }
    if (ax || ay || i == x.len || j == y.len || x.ptr[i] != y.ptr[j])
      return false;
    i++;
    j++;
  }
  return true;
}

/* Compares the codes of a pair; on a difference, fills the row's first
 * differing lines. */
static bool code_differs(const tl_kernel_item *x, const tl_kernel_item *y,
                         tl_kernel_row *row) {
  size_t i = 0, j = 0;
  for (int k = 0;; k++) {
    bool end_x = i >= x->code.len, end_y = j >= y->code.len;
    if (end_x && end_y)
      return false;
    tl_str lx = end_x ? (tl_str){"", 0} : next_line(x->code, &i);
    tl_str ly = end_y ? (tl_str){"", 0} : next_line(y->code, &j);
    if (end_x || end_y || !same_line(lx, x->name, ly, y->name)) {
      row->before_line = end_x || !x->first ? 0 : x->first + k;
      row->after_line = end_y || !y->first ? 0 : y->first + k;
      row->before_text = lx;
      row->after_text = ly;
      return true;
    }
  }
}

static void judge(const tl_kernel_item *x, const tl_kernel_item *y, bool exact,
                  tl_kernel_row *row) {
  row->renamed = !tl_str_eq(x->name, y->name);
  row->nodes_changed = !exact;
  row->ops_changed =
      !tl_str_eq(tl_kernel_fused_ops(x), tl_kernel_fused_ops(y)) ||
      !tl_str_eq(x->kind, y->kind);
  row->code_changed = code_differs(x, y, row);
  /* Fused ops that differ with the same nodes and code are a new name
   * only: Inductor names a kernel by its nodes' original aten ops, and
   * torch versions spell those differently (view, _unsafe_view). */
  row->change =
      row->nodes_changed || row->code_changed || !tl_str_eq(x->kind, y->kind)
          ? TL_KERNEL_CHANGED
          : TL_KERNEL_SAME;
}

static int by_size(const void *x, const void *y) {
  size_t a = *(const size_t *)x, b = *(const size_t *)y;
  return a < b ? -1 : a > b;
}

/* The b kernels holding node `to`: the run of `index` with that name. */
static void kernels_holding(const node_of *index, size_t count, tl_str to,
                            void (*each)(void *ctx, size_t kernel), void *ctx) {
  size_t lo = 0, hi = count;
  while (lo < hi) { /* the first entry of that name */
    size_t mid = lo + (hi - lo) / 2;
    if (tl_str_cmp(index[mid].name, to) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t m = lo; m < count && tl_str_eq(index[m].name, to); m++)
    each(ctx, index[m].kernel);
}

typedef TL_VEC(size_t) size_vec;

static void push_hit(void *ctx, size_t kernel) {
  size_vec *hits = ctx;
  TL_VEC_PUSH(*hits, kernel);
}

typedef struct pairing {
  const tl_kernel_item *a, *b;
  size_t na, nb;
  const name_pair *map;
  size_t map_count;
  bool identity;
  long *partner_a, *partner_b; /* -1: unpaired */
  bool *exact;                 /* by a's index */
} pairing;

/* Pairs by nodes: every (a, b) that share a node carried over, the exact
 * ones first, then by how many they share; each kernel paired once. */
static void pair_by_nodes(pairing *p) {
  TL_VEC(node_of) index = {0};
  for (size_t j = 0; j < p->nb; j++)
    for (size_t k = 0; k < p->b[j].node_count; k++) {
      node_of n = {p->b[j].nodes[k], j};
      TL_VEC_PUSH(index, n);
    }
  index.count =
      tl_sort_unique(index.items, index.count, sizeof *index.items, by_node);
  TL_VEC(edge) edges = {0};
  size_vec hits = {0};
  for (size_t i = 0; i < p->na; i++) {
    hits.count = 0;
    for (size_t k = 0; k < p->a[i].node_count; k++) {
      tl_str to = carried(p->map, p->map_count, p->a[i].nodes[k], p->identity);
      if (to.ptr)
        kernels_holding(index.items, index.count, to, push_hit, &hits);
    }
    tl_sort(hits.items, hits.count, sizeof *hits.items, by_size);
    for (size_t h = 0; h < hits.count;) {
      size_t e = h;
      while (e < hits.count && hits.items[e] == hits.items[h])
        e++;
      size_t j = hits.items[h];
      edge x = {
          i, j, e - h,
          same_nodes(&p->a[i], &p->b[j], p->map, p->map_count, p->identity),
          tl_str_eq(tl_kernel_fused_ops(&p->a[i]),
                    tl_kernel_fused_ops(&p->b[j]))};
      TL_VEC_PUSH(edges, x);
      h = e;
    }
  }
  tl_sort(edges.items, edges.count, sizeof *edges.items, by_strength);
  for (size_t e = 0; e < edges.count; e++) {
    const edge *x = &edges.items[e];
    if (p->partner_a[x->a] >= 0 || p->partner_b[x->b] >= 0)
      continue;
    p->partner_a[x->a] = (long)x->b;
    p->partner_b[x->b] = (long)x->a;
    p->exact[x->a] = x->exact;
  }
  TL_VEC_FREE(edges);
  TL_VEC_FREE(hits);
  TL_VEC_FREE(index);
}

/* Pairs what is left by fused ops and kind: the k-th kernel of those ops
 * on one side with the k-th on the other. Exact when both have no nodes
 * (nothing to compare). */
static void pair_by_ops(pairing *p) {
  leftover *la = tl_xmalloc((p->na + 1) * sizeof *la);
  leftover *lb = tl_xmalloc((p->nb + 1) * sizeof *lb);
  size_t ca = 0, cb = 0;
  for (size_t i = 0; i < p->na; i++)
    if (p->partner_a[i] < 0)
      la[ca++] = (leftover){tl_kernel_fused_ops(&p->a[i]),
                            p->a[i].kind,
                            p->a[i].name,
                            0,
                            p->a[i].first,
                            i};
  for (size_t j = 0; j < p->nb; j++)
    if (p->partner_b[j] < 0)
      lb[cb++] = (leftover){tl_kernel_fused_ops(&p->b[j]),
                            p->b[j].kind,
                            p->b[j].name,
                            0,
                            p->b[j].first,
                            j};
  order_leftovers(la, ca);
  order_leftovers(lb, cb);
  size_t i = 0, j = 0;
  while (i < ca && j < cb) {
    int c = tl_str_cmp(la[i].ops, lb[j].ops);
    if (!c)
      c = tl_str_cmp(la[i].kind, lb[j].kind);
    if (c < 0) {
      i++;
    } else if (c > 0) {
      j++;
    } else {
      size_t x = la[i].index, y = lb[j].index;
      p->partner_a[x] = (long)y;
      p->partner_b[y] = (long)x;
      p->exact[x] = p->a[x].node_count == 0 && p->b[y].node_count == 0;
      i++;
      j++;
    }
  }
  free(la);
  free(lb);
}

static void count_row(tl_kernel_diff *d, const tl_kernel_row *r) {
  switch (r->change) {
  case TL_KERNEL_SAME:
    if (r->renamed)
      d->renamed++;
    else
      d->same++;
    break;
  case TL_KERNEL_CHANGED:
    d->changed++;
    break;
  case TL_KERNEL_REMOVED:
    d->removed++;
    break;
  case TL_KERNEL_ADDED:
    d->added++;
    break;
  }
}

void tl_kernel_diff_run(const tl_kernel_item *a, size_t na,
                        const tl_kernel_item *b, size_t nb,
                        const tl_fx_diff *post, tl_kernel_diff *out) {
  memset(out, 0, sizeof *out);
  TL_VEC(name_pair) map = {0};
  if (post)
    for (size_t r = 0; r < post->rows.count; r++) {
      const tl_fx_row *row = &post->rows.items[r];
      if (row->before.name.ptr && row->after.name.ptr) {
        name_pair x = {row->before.name, row->after.name};
        TL_VEC_PUSH(map, x);
      }
    }
  tl_sort(map.items, map.count, sizeof *map.items, by_from);
  pairing p = {a,
               b,
               na,
               nb,
               map.items,
               map.count,
               !post,
               tl_xmalloc((na + 1) * sizeof(long)),
               tl_xmalloc((nb + 1) * sizeof(long)),
               tl_xcalloc(na + 1, sizeof(bool))};
  for (size_t i = 0; i < na; i++)
    p.partner_a[i] = -1;
  for (size_t j = 0; j < nb; j++)
    p.partner_b[j] = -1;
  pair_by_nodes(&p);
  pair_by_ops(&p);
  for (size_t j = 0; j < nb; j++) {
    tl_kernel_row r = {0};
    r.after = (long)j;
    r.before = p.partner_b[j];
    if (r.before < 0)
      r.change = TL_KERNEL_ADDED;
    else
      judge(&a[r.before], &b[j], p.exact[r.before], &r);
    TL_VEC_PUSH(out->rows, r);
    count_row(out, &r);
  }
  for (size_t i = 0; i < na; i++)
    if (p.partner_a[i] < 0) {
      tl_kernel_row r = {0};
      r.change = TL_KERNEL_REMOVED;
      r.before = (long)i;
      r.after = -1;
      TL_VEC_PUSH(out->rows, r);
      count_row(out, &r);
    }
  free(p.partner_a);
  free(p.partner_b);
  free(p.exact);
  TL_VEC_FREE(map);
}

void tl_kernel_diff_free(tl_kernel_diff *d) { TL_VEC_FREE(d->rows); }

/* ---- code, line by line ------------------------------------------------ */

/* One side's lines: as they are (shown) and as compared (`key`), with the
 * keys' hashes, and the first line's number in its file (0: none). */
typedef struct side_lines {
  TL_VEC(tl_str) text;
  TL_VEC(size_t) key_at, key_len; /* into `keys` */
  TL_VEC(uint64_t) hash;
  tl_buf keys;
  int first;
} side_lines;

static uint64_t fnv(tl_str s) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < s.len; i++)
    h = (h ^ (unsigned char)s.ptr[i]) * 1099511628211ull;
  return h;
}

static tl_str key_of(const side_lines *l, size_t i) {
  return (tl_str){l->keys.data + l->key_at.items[i], l->key_len.items[i]};
}

static void side_free(side_lines *l) {
  TL_VEC_FREE(l->text);
  TL_VEC_FREE(l->key_at);
  TL_VEC_FREE(l->key_len);
  TL_VEC_FREE(l->hash);
  tl_buf_free(&l->keys);
}

/* Splits `code` into lines, each compared as `key(line)` appends it. */
static void side_read(side_lines *l, tl_str code, int first,
                      void (*key)(tl_buf *out, tl_str line, void *ctx),
                      void *ctx) {
  memset(l, 0, sizeof *l);
  tl_buf_init(&l->keys);
  l->first = first;
  size_t at = 0;
  while (at < code.len) {
    tl_str line = next_line(code, &at);
    size_t from = l->keys.len;
    key(&l->keys, line, ctx);
    TL_VEC_PUSH(l->text, line);
    TL_VEC_PUSH(l->key_at, from);
    TL_VEC_PUSH(l->key_len, l->keys.len - from);
  }
  for (size_t i = 0; i < l->text.count; i++)
    TL_VEC_PUSH(l->hash, fnv(key_of(l, i)));
}

static void push_row(tl_code_rows *out, bool *cut, tl_code_op op, int before,
                     int after, tl_str text) {
  if (out->count >= TL_CODE_DIFF_MAX_ROWS) {
    *cut = true;
    return;
  }
  tl_code_row r = {op, before, after, text};
  TL_VEC_PUSH(*out, r);
}

/* The rows of two sides' lines (see tl_kernel_code_diff). */
static bool diff_sides(const side_lines *x, const side_lines *y,
                       tl_code_rows *out, bool *cut) {
  *cut = false;
  size_t n = x->text.count, m = y->text.count;
  if ((double)(n + 1) * (double)(m + 1) > TL_CODE_DIFF_MAX_CELLS)
    return false;
#define SAME(i, j)                                                             \
  (x->hash.items[i] == y->hash.items[j] &&                                     \
   tl_str_eq(key_of(x, i), key_of(y, j)))
  /* lcs[i][j]: the longest common subsequence of x[i..] and y[j..]. */
  uint32_t *lcs = tl_xcalloc((n + 1) * (m + 1), sizeof *lcs);
#define LCS(i, j) lcs[(size_t)(i) * (m + 1) + (j)]
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      LCS(i, j) = SAME(i, j) ? LCS(i + 1, j + 1) + 1
                             : (LCS(i + 1, j) > LCS(i, j + 1) ? LCS(i + 1, j)
                                                              : LCS(i, j + 1));
  /* The edit script, then each unchanged line kept when it is within
   * TL_CODE_DIFF_CONTEXT lines of a change. */
  TL_VEC(tl_code_row) all = {0};
  int fx = x->first, fy = y->first;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    tl_code_row r = {0};
    if (i < n && j < m && SAME(i, j)) {
      r = (tl_code_row){TL_CODE_SAME, fx ? fx + (int)i : 0,
                        fy ? fy + (int)j : 0, y->text.items[j]};
      i++;
      j++;
    } else if (i < n && (j == m || LCS(i + 1, j) >= LCS(i, j + 1))) {
      r = (tl_code_row){TL_CODE_REMOVED, fx ? fx + (int)i : 0, 0,
                        x->text.items[i]}; /* removed lines before added */
      i++;
    } else {
      r = (tl_code_row){TL_CODE_ADDED, 0, fy ? fy + (int)j : 0,
                        y->text.items[j]};
      j++;
    }
    TL_VEC_PUSH(all, r);
  }
#undef LCS
#undef SAME
  free(lcs);
  size_t last_change = (size_t)-1;
  bool gap = false;
  for (size_t k = 0; k < all.count; k++) {
    if (all.items[k].op != TL_CODE_SAME) {
      last_change = k;
      push_row(out, cut, all.items[k].op, all.items[k].before,
               all.items[k].after, all.items[k].text);
      gap = false;
      continue;
    }
    bool near_before =
        last_change != (size_t)-1 && k - last_change <= TL_CODE_DIFF_CONTEXT;
    bool near_after = false;
    for (size_t q = k + 1;
         q < all.count && q - k <= TL_CODE_DIFF_CONTEXT && !near_after; q++)
      near_after = all.items[q].op != TL_CODE_SAME;
    if (near_before || near_after) {
      push_row(out, cut, TL_CODE_SAME, all.items[k].before, all.items[k].after,
               all.items[k].text);
      gap = false;
    } else if (!gap) {
      push_row(out, cut, TL_CODE_GAP, 0, 0, (tl_str){"", 0});
      gap = true;
    }
  }
  TL_VEC_FREE(all);
  return true;
}

/* A kernel's line as compared: its own name read as one byte 1. */
static void own_name_key(tl_buf *out, tl_str line, void *ctx) {
  tl_str name = *(const tl_str *)ctx;
  for (size_t i = 0; i < line.len;) {
    if (name.len && line.len - i >= name.len &&
        memcmp(line.ptr + i, name.ptr, name.len) == 0) {
      tl_buf_putc(out, '\1');
      i += name.len;
    } else {
      tl_buf_putc(out, line.ptr[i++]);
    }
  }
}

bool tl_kernel_code_diff(const tl_kernel_item *x, const tl_kernel_item *y,
                         tl_code_rows *out, bool *cut) {
  side_lines a, b;
  side_read(&a, x->code, x->first, own_name_key, (void *)&x->name);
  side_read(&b, y->code, y->first, own_name_key, (void *)&y->name);
  bool ok = diff_sides(&a, &b, out, cut);
  side_free(&a);
  side_free(&b);
  return ok;
}

/* ---- the entry function ------------------------------------------------- */

static bool ident_char(char c, bool first) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (!first && c >= '0' && c <= '9');
}

static bool is_buffer(tl_str w) {
  if (w.len < 4 || memcmp(w.ptr, "buf", 3) != 0)
    return false;
  for (size_t i = 3; i < w.len; i++)
    if (w.ptr[i] < '0' || w.ptr[i] > '9')
      return false;
  return true;
}

void tl_code_words_key(tl_code_words *e, tl_buf *out, tl_str line) {
  for (size_t i = 0; i < line.len;) {
    if (!ident_char(line.ptr[i], true) ||
        (i && ident_char(line.ptr[i - 1], false))) {
      tl_buf_putc(out, line.ptr[i++]);
      continue;
    }
    size_t w = i;
    while (i < line.len && ident_char(line.ptr[i], false))
      i++;
    tl_str word = {line.ptr + w, i - w};
    if (is_buffer(word)) {
      size_t k = 0;
      while (k < e->buffers.count && !tl_str_eq(e->buffers.items[k], word))
        k++;
      if (k == e->buffers.count)
        TL_VEC_PUSH(e->buffers, word);
      tl_buf_printf(out, "\1buf%zu", k);
      continue;
    }
    size_t lo = 0, hi = e->count;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      int c = tl_str_cmp(e->names[mid], word);
      if (c < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    tl_buf_append_str(
        out, lo < e->count && tl_str_eq(e->names[lo], word) ? e->as[lo] : word);
  }
}

/* An entry line as compared (side_read's key). */
static void entry_key(tl_buf *out, tl_str line, void *ctx) {
  tl_code_words_key(ctx, out, line);
}

typedef struct rename {
  tl_str name, as;
} rename;

static int by_rename_name(const void *x, const void *y) {
  return tl_str_cmp(((const rename *)x)->name, ((const rename *)y)->name);
}

void tl_code_words_init(tl_code_words *w, const tl_kernel_item *ka,
                        const tl_kernel_item *kb, const tl_kernel_diff *kernels,
                        bool later) {
  memset(w, 0, sizeof *w);
  TL_VEC(rename) r = {0};
  for (size_t i = 0; later && i < kernels->rows.count; i++) {
    const tl_kernel_row *row = &kernels->rows.items[i];
    if (row->before >= 0 && row->after >= 0 && row->renamed) {
      rename x = {kb[row->after].name, ka[row->before].name};
      TL_VEC_PUSH(r, x);
    }
  }
  tl_sort(r.items, r.count, sizeof *r.items, by_rename_name);
  w->names = tl_xmalloc((r.count + 1) * sizeof *w->names);
  w->as = tl_xmalloc((r.count + 1) * sizeof *w->as);
  for (size_t i = 0; i < r.count; i++)
    if (!w->count || !tl_str_eq(w->names[w->count - 1], r.items[i].name)) {
      w->names[w->count] = r.items[i].name;
      w->as[w->count++] = r.items[i].as;
    }
  TL_VEC_FREE(r);
}

void tl_code_words_free(tl_code_words *w) {
  free(w->names);
  free(w->as);
  TL_VEC_FREE(w->buffers);
}

bool tl_entry_code_diff(tl_str a, int a_first, tl_str b, int b_first,
                        const tl_kernel_item *ka, const tl_kernel_item *kb,
                        const tl_kernel_diff *kernels, tl_code_rows *out,
                        bool *cut) {
  tl_code_words ea, eb;
  tl_code_words_init(&ea, ka, kb, kernels, false);
  tl_code_words_init(&eb, ka, kb, kernels, true);
  side_lines x, y;
  side_read(&x, a, a_first, entry_key, &ea);
  side_read(&y, b, b_first, entry_key, &eb);
  bool ok = diff_sides(&x, &y, out, cut);
  side_free(&x);
  side_free(&y);
  tl_code_words_free(&ea);
  tl_code_words_free(&eb);
  return ok;
}
