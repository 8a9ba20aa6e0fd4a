/* fx_diff.c: two FX graphs -> their nodes aligned by op, each pair the same,
 * renamed or changed (see fx_diff.h). */
#include "diff/fx_diff.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/ts_query.h"

/* A piece of a node's arguments: text as it is, or a reference to the
 * node at index `ref` of the same graph. */
typedef struct piece {
  tl_str text;
  long ref; /* -1: text */
} piece;

typedef struct node {
  tl_fx_side side;
  uint32_t stmt; /* its statement's index among the body's named children */
  size_t pieces_at, pieces_count;
  int op_id; /* the op, as an index into the ops of both graphs */
} node;

typedef struct named {
  tl_str name;
  size_t index; /* the first node of that name */
} named;

typedef struct graph {
  tl_str text;
  TL_VEC(node) nodes;
  TL_VEC(piece) pieces;
  named *names; /* sorted by name, one per name */
  size_t name_count;
} graph;

static tl_str text_of(TSNode n, tl_str text) { return tl_ts_text(n, text); }

static bool is_type(TSNode n, const char *type) {
  return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

/* The annotation without its quotes: `"f32[4][1]cpu"` -> f32[4][1]cpu. */
static tl_str annotation(TSNode type, tl_str text) {
  tl_str s = text_of(type, text);
  if (s.len >= 2 && (s.ptr[0] == '"' || s.ptr[0] == '\'') &&
      s.ptr[s.len - 1] == s.ptr[0])
    return (tl_str){s.ptr + 1, s.len - 2};
  return s;
}

static bool forward_named(TSNode fn, tl_str text) {
  TSNode name = ts_node_child_by_field_name(fn, "name", 4);
  return tl_str_eq_cstr(text_of(name, text), "forward");
}

typedef struct finder {
  tl_str text;
  TSNode found;
} finder;

static bool find_forward_named(TSNode n, void *ctx) {
  finder *f = ctx;
  if (!ts_node_is_null(f->found))
    return false;
  if (is_type(n, "function_definition") && forward_named(n, f->text)) {
    f->found = n;
    return false;
  }
  return !is_type(n, "function_definition");
}

static void add_node(graph *g, tl_str name, tl_str op, tl_str type, tl_str stmt,
                     int line, uint32_t index) {
  node n = {{name, op, type, stmt, line}, index, 0, 0, -1};
  TL_VEC_PUSH(g->nodes, n);
}

static tl_str placeholder_op(tl_arena *arena, tl_str type);

/* The node statements of a forward body: `name: "type" = rhs` or
 * `name = rhs`, one per assignment directly in the body (FX prints
 * `a = b = None` deletions after a `;`: those assign None and are left
 * out). A declaration without a value, `arg12_1: "f32[8, 64]";`, is an
 * input: an AOT graph whose forward takes no parameters declares its
 * flattened inputs so in its body (then unflattens them with
 * `arg12_1, = fx_pytree.tree_flatten_spec(...)`). */
static void read_body(graph *g, TSNode body, tl_arena *arena) {
  uint32_t count = ts_node_named_child_count(body);
  for (uint32_t i = 0; i < count; i++) {
    TSNode stmt = ts_node_named_child(body, i);
    if (!is_type(stmt, "expression_statement"))
      continue;
    TSNode assign = ts_node_named_child(stmt, 0);
    if (!is_type(assign, "assignment"))
      continue;
    TSNode left = ts_node_child_by_field_name(assign, "left", 4);
    TSNode right = ts_node_child_by_field_name(assign, "right", 5);
    TSNode type = ts_node_child_by_field_name(assign, "type", 4);
    if (is_type(left, "identifier") && ts_node_is_null(right) &&
        !ts_node_is_null(type)) {
      tl_str t = annotation(type, g->text);
      add_node(g, text_of(left, g->text), placeholder_op(arena, t), t,
               text_of(assign, g->text), tl_ts_first_line(assign), i);
      continue;
    }
    if (!is_type(left, "identifier") || ts_node_is_null(right) ||
        is_type(right, "none") || is_type(right, "assignment"))
      continue;
    tl_str op;
    if (is_type(right, "call"))
      op = text_of(ts_node_child_by_field_name(right, "function", 8), g->text);
    else
      op = tl_str_from(ts_node_type(right));
    add_node(g, text_of(left, g->text), op,
             ts_node_is_null(type) ? (tl_str){"", 0}
                                   : annotation(type, g->text),
             text_of(assign, g->text), tl_ts_first_line(assign), i);
  }
}

/* A parameter's op: `placeholder`, its dtype and rank read off its
 * annotation (`f32[4, 16][16, 1]cpu` -> "placeholder f32 2d"), so that a
 * parameter added (a symbolic size of a dynamic graph) does not shift the
 * others; a symbolic size's is its symbol (`Sym(s77)` -> "placeholder
 * Sym(s77)"): a size that stays dynamic keeps its symbol, and one that
 * became static is the one whose symbol went. */
static tl_str placeholder_op(tl_arena *arena, tl_str type) {
  size_t i = 0;
  while (i < type.len && type.ptr[i] != '[' && type.ptr[i] != '(')
    i++;
  if (i == type.len || type.ptr[i] == '(') /* Sym(s77): the symbol too */
    return tl_str_from(
        tl_arena_printf(arena, "placeholder %.*s", (int)type.len, type.ptr));
  int rank = 0;
  if (i + 1 < type.len && type.ptr[i + 1] != ']') {
    rank = 1;
    for (size_t k = i + 1; k < type.len && type.ptr[k] != ']'; k++)
      rank += type.ptr[k] == ',';
  }
  return tl_str_from(
      tl_arena_printf(arena, "placeholder %.*s %dd", (int)i, type.ptr, rank));
}

static void read_params(graph *g, TSNode params, tl_arena *arena) {
  uint32_t count = ts_node_named_child_count(params);
  for (uint32_t i = 0; i < count; i++) {
    TSNode p = ts_node_named_child(params, i);
    TSNode name = p, type = {0};
    if (is_type(p, "typed_parameter")) {
      name = ts_node_named_child(p, 0);
      type = ts_node_child_by_field_name(p, "type", 4);
    }
    if (!is_type(name, "identifier"))
      continue;
    tl_str n = text_of(name, g->text);
    if (tl_str_eq_cstr(n, "self"))
      continue;
    tl_str t =
        ts_node_is_null(type) ? (tl_str){"", 0} : annotation(type, g->text);
    add_node(g, n, placeholder_op(arena, t), t, text_of(p, g->text),
             tl_ts_first_line(p), 0);
  }
}

static int by_name(const void *a, const void *b) {
  const named *x = a, *y = b;
  int c = tl_str_cmp(x->name, y->name);
  return c ? c : (x->index < y->index ? -1 : x->index > y->index);
}

/* The names of the nodes, sorted, each with its first node. */
static void index_names(graph *g) {
  size_t n = g->nodes.count, kept = 0;
  g->names = tl_xcalloc(n ? n : 1, sizeof *g->names);
  for (size_t i = 0; i < n; i++)
    g->names[i] = (named){g->nodes.items[i].side.name, i};
  tl_sort(g->names, n, sizeof *g->names, by_name);
  for (size_t i = 0; i < n; i++)
    if (kept == 0 || !tl_str_eq(g->names[kept - 1].name, g->names[i].name))
      g->names[kept++] = g->names[i];
  g->name_count = kept;
}

static long find_name(const graph *g, tl_str name) {
  size_t lo = 0, hi = g->name_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = tl_str_cmp(g->names[mid].name, name);
    if (c == 0)
      return (long)g->names[mid].index;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

typedef struct pieces_ctx {
  graph *g;
  uint32_t from; /* byte of the text not yet in a piece */
} pieces_ctx;

/* The identifiers under a node's right-hand side that name nodes become
 * references; the text between them stays text. */
static bool collect(TSNode n, void *ctx) {
  pieces_ctx *p = ctx;
  if (!is_type(n, "identifier"))
    return true;
  long ref = find_name(p->g, text_of(n, p->g->text));
  if (ref < 0)
    return false;
  uint32_t start = ts_node_start_byte(n);
  if (start > p->from) {
    piece t = {{p->g->text.ptr + p->from, start - p->from}, -1};
    TL_VEC_PUSH(p->g->pieces, t);
  }
  piece r = {{NULL, 0}, ref};
  TL_VEC_PUSH(p->g->pieces, r);
  p->from = ts_node_end_byte(n);
  return false;
}

static void read_graph(graph *g, tl_str text, tl_arena *arena) {
  memset(g, 0, sizeof *g);
  /* print_readable names an AOT graph's class `<lambda>`, which is no
   * Python: read it as `_lambda_` (same length, same offsets). */
  g->text = text;
  for (size_t i = 0; i + 8 <= text.len; i++)
    if (memcmp(text.ptr + i, "<lambda>", 8) == 0) {
      char *copy = tl_arena_strndup(arena, text.ptr, text.len);
      for (size_t k = i; k + 8 <= text.len; k++)
        if (memcmp(copy + k, "<lambda>", 8) == 0)
          copy[k] = copy[k + 7] = '_';
      g->text = (tl_str){copy, text.len};
      break;
    }
  TSTree *tree = tl_ts_parse(tree_sitter_python(), g->text, NULL, 0);
  if (!tree)
    return;
  finder f = {g->text, (TSNode){{0}, 0, 0}};
  tl_ts_walk(ts_tree_root_node(tree), find_forward_named, &f);
  if (!ts_node_is_null(f.found)) {
    read_params(g, ts_node_child_by_field_name(f.found, "parameters", 10),
                arena);
    size_t first_stmt = g->nodes.count;
    TSNode body = ts_node_child_by_field_name(f.found, "body", 4);
    read_body(g, body, arena);
    /* Names, then the references of each statement's right-hand side. */
    index_names(g);
    size_t n = g->nodes.count;
    for (size_t i = first_stmt; i < n; i++) {
      node *nd = &g->nodes.items[i];
      TSNode stmt = ts_node_named_child(body, nd->stmt);
      TSNode assign = ts_node_named_child(stmt, 0);
      TSNode right = ts_node_child_by_field_name(assign, "right", 5);
      nd->pieces_at = g->pieces.count;
      nd->pieces_count = 0;
      if (ts_node_is_null(right)) /* a declared input: no arguments */
        continue;
      if (is_type(right, "call"))
        right = ts_node_child_by_field_name(right, "arguments", 9);
      nd->pieces_at = g->pieces.count;
      pieces_ctx p = {g, ts_node_start_byte(right)};
      tl_ts_walk(right, collect, &p);
      uint32_t end = ts_node_end_byte(right);
      if (end > p.from) {
        piece t = {{g->text.ptr + p.from, end - p.from}, -1};
        TL_VEC_PUSH(g->pieces, t);
      }
      nd->pieces_count = g->pieces.count - nd->pieces_at;
    }
  }
  ts_tree_delete(tree);
}

static void free_graph(graph *g) {
  TL_VEC_FREE(g->nodes);
  TL_VEC_FREE(g->pieces);
  free(g->names);
}

/* ---- alignment ------------------------------------------------------- */

typedef struct op_key {
  tl_str op;
  int *slot;
} op_key;

static int by_op(const void *a, const void *b) {
  return tl_str_cmp(((const op_key *)a)->op, ((const op_key *)b)->op);
}

/* Gives each op of both graphs an id, equal ops the same. */
static void number_ops(graph *a, graph *b) {
  size_t n = a->nodes.count + b->nodes.count, k = 0;
  op_key *keys = tl_xcalloc(n ? n : 1, sizeof *keys);
  for (size_t i = 0; i < a->nodes.count; i++)
    keys[k++] = (op_key){a->nodes.items[i].side.op, &a->nodes.items[i].op_id};
  for (size_t i = 0; i < b->nodes.count; i++)
    keys[k++] = (op_key){b->nodes.items[i].side.op, &b->nodes.items[i].op_id};
  tl_sort(keys, n, sizeof *keys, by_op);
  int id = -1;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || !tl_str_eq(keys[i].op, keys[i - 1].op))
      id++;
    *keys[i].slot = id;
  }
  free(keys);
}

/* Myers' greedy shortest edit script between a[lo_a..hi_a) and
 * b[lo_b..hi_b) by op id: fills match_a/match_b with the partner index (or
 * -1). Keeps, for the way back, the 2d+1 diagonals of each step d: at most
 * TL_FX_DIFF_MAX_EDITS steps (32 MB); false when more would be needed. */
static bool myers(const graph *a, const graph *b, size_t lo_a, size_t hi_a,
                  size_t lo_b, size_t hi_b, long *match_a, long *match_b) {
  long n = (long)(hi_a - lo_a), m = (long)(hi_b - lo_b);
  long max = n + m < TL_FX_DIFF_MAX_EDITS ? n + m : TL_FX_DIFF_MAX_EDITS;
  long offset = max + 1;
  long *v = tl_xcalloc((size_t)(2 * max + 3), sizeof *v);
  long **trace = tl_xcalloc((size_t)max + 1, sizeof *trace);
  long found = -1;
  for (long d = 0; d <= max && found < 0; d++) {
    /* V before step d, diagonals -d..d (trace[d][k + d]). */
    trace[d] = tl_xmalloc((size_t)(2 * d + 1) * sizeof **trace);
    memcpy(trace[d], v + offset - d, (size_t)(2 * d + 1) * sizeof *v);
    for (long k = -d; k <= d; k += 2) {
      long x;
      if (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
        x = v[offset + k + 1];
      else
        x = v[offset + k - 1] + 1;
      long y = x - k;
      while (x < n && y < m &&
             a->nodes.items[lo_a + (size_t)x].op_id ==
                 b->nodes.items[lo_b + (size_t)y].op_id)
        x++, y++;
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  long x = n, y = m;
  for (long d = found; d > 0; d--) {
    const long *pv = trace[d]; /* pv[k + d]: diagonal k after step d - 1 */
    long k = x - y, prev_k;
    if (k == -d || (k != d && pv[k - 1 + d] < pv[k + 1 + d]))
      prev_k = k + 1;
    else
      prev_k = k - 1;
    long prev_x = pv[prev_k + d], prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) {
      x--, y--;
      match_a[lo_a + (size_t)x] = (long)(lo_b + (size_t)y);
      match_b[lo_b + (size_t)y] = (long)(lo_a + (size_t)x);
    }
    x = prev_x, y = prev_y;
  }
  while (found >= 0 && x > 0 && y > 0) {
    x--, y--;
    match_a[lo_a + (size_t)x] = (long)(lo_b + (size_t)y);
    match_b[lo_b + (size_t)y] = (long)(lo_a + (size_t)x);
  }
  for (long d = 0; d <= max; d++)
    free(trace[d]);
  free(trace);
  free(v);
  return found >= 0;
}

/* Do the pieces of nodes i (of a) and j (of b) agree, references read
 * through the alignment? */
static bool same_args(const graph *a, const graph *b, const node *x,
                      const node *y, const long *match_a) {
  if (x->pieces_count != y->pieces_count)
    return false;
  for (size_t k = 0; k < x->pieces_count; k++) {
    const piece *p = &a->pieces.items[x->pieces_at + k];
    const piece *q = &b->pieces.items[y->pieces_at + k];
    if ((p->ref < 0) != (q->ref < 0))
      return false;
    if (p->ref < 0 ? !tl_str_eq(p->text, q->text) : match_a[p->ref] != q->ref)
      return false;
  }
  return true;
}

void tl_fx_diff_texts(tl_arena *arena, tl_str ta, tl_str tb, tl_fx_diff *out) {
  memset(out, 0, sizeof *out);
  graph a, b;
  read_graph(&a, ta, arena);
  read_graph(&b, tb, arena);
  number_ops(&a, &b);
  size_t na = a.nodes.count, nb = b.nodes.count;
  long *match_a = tl_xmalloc((na ? na : 1) * sizeof *match_a);
  long *match_b = tl_xmalloc((nb ? nb : 1) * sizeof *match_b);
  for (size_t i = 0; i < na; i++)
    match_a[i] = -1;
  for (size_t j = 0; j < nb; j++)
    match_b[j] = -1;
  /* The common ends first: most graphs compared differ in a few places. */
  size_t head = 0;
  while (head < na && head < nb &&
         a.nodes.items[head].op_id == b.nodes.items[head].op_id) {
    match_a[head] = (long)head;
    match_b[head] = (long)head;
    head++;
  }
  size_t tail = 0;
  while (tail < na - head && tail < nb - head &&
         a.nodes.items[na - 1 - tail].op_id ==
             b.nodes.items[nb - 1 - tail].op_id) {
    match_a[na - 1 - tail] = (long)(nb - 1 - tail);
    match_b[nb - 1 - tail] = (long)(na - 1 - tail);
    tail++;
  }
  if (!myers(&a, &b, head, na - tail, head, nb - tail, match_a, match_b))
    out->too_large = true;
  /* Rows in graph order: walk both, a removed run before an added one. */
  size_t i = 0, j = 0;
  while (i < na || j < nb) {
    tl_fx_row row = {0};
    if (i < na && match_a[i] < 0) {
      row.change = TL_FX_REMOVED;
      row.before = a.nodes.items[i++].side;
      out->removed++;
    } else if (j < nb && match_b[j] < 0) {
      row.change = TL_FX_ADDED;
      row.after = b.nodes.items[j++].side;
      out->added++;
    } else {
      const node *x = &a.nodes.items[i], *y = &b.nodes.items[j];
      row.before = x->side;
      row.after = y->side;
      row.renamed = !tl_str_eq(x->side.name, y->side.name);
      row.type_changed = !tl_str_eq(x->side.type, y->side.type);
      row.args_changed = !same_args(&a, &b, x, y, match_a);
      row.change =
          row.type_changed || row.args_changed ? TL_FX_CHANGED : TL_FX_SAME;
      if (row.change == TL_FX_CHANGED)
        out->changed++;
      else if (row.renamed)
        out->renamed++;
      else
        out->same++;
      i++, j++;
    }
    TL_VEC_PUSH(out->rows, row);
  }
  free(match_a);
  free(match_b);
  free_graph(&a);
  free_graph(&b);
}

void tl_fx_diff_free(tl_fx_diff *d) { TL_VEC_FREE(d->rows); }
