/* fx_diff.c: two FX graphs -> their nodes aligned by what they are, each
 * pair the same, renamed or changed (see fx_diff.h). */
#include "diff/fx_diff.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/ts_query.h"
#include "util/blob.h"

/* A piece of a node's arguments: text as it is, or a reference to the
 * node at index `ref` of the same graph. */
typedef struct piece {
  tl_str text;
  long ref; /* -1: text */
} piece;

typedef struct node {
  tl_fx_side side;
  uint32_t stmt; /* its statement's index among the body's named children */
  uint32_t at;   /* its first byte in the graph text */
  size_t pieces_at, pieces_count;
  tl_str source_key; /* file name, function and code of its `# File:` */
  tl_str arg_types;  /* the types of the nodes it takes, in order */
  /* Each an index into the values of both graphs, equal values the same;
   * source_id -1 without a source. */
  int op_id, source_id, args_id, type_id, name_id;
} node;

typedef struct named {
  tl_str name;
  size_t index; /* the first node of that name */
} named;

/* A comment of the forward: `# File: m.py:10 in f, code: y = x + 1`. */
typedef struct comment {
  uint32_t at;
  tl_str text;
} comment;

typedef struct graph {
  tl_str text;
  TL_VEC(node) nodes;
  TL_VEC(comment) comments; /* in the text's order */
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

static void add_node(graph *g, tl_str name, tl_str op, tl_str type, TSNode at,
                     uint32_t index) {
  node n = {0};
  n.side = (tl_fx_side){
      name, op, type, text_of(at, g->text), {"", 0}, tl_ts_first_line(at)};
  n.stmt = index;
  n.at = ts_node_start_byte(at);
  n.op_id = n.source_id = n.args_id = n.type_id = n.name_id = -1;
  TL_VEC_PUSH(g->nodes, n);
}

static tl_str placeholder_op(tl_arena *arena, tl_str type);

/* The node statements of a forward body: `name: "type" = rhs` or
 * `name = rhs`, one per assignment directly in the body (FX prints
 * `a = b = None` deletions after a `;`: those assign None and are left
 * out). A declaration without a value, `arg12_1: "f32[8, 64]";`, is an
 * input: an AOT graph whose forward takes no parameters declares its
 * flattened inputs so in its body (then unflattens them with
 * `arg12_1, = fx_pytree.tree_flatten_spec(...)`). The `return` is the
 * output node. */
static void read_body(graph *g, TSNode body, tl_arena *arena) {
  uint32_t count = ts_node_named_child_count(body);
  for (uint32_t i = 0; i < count; i++) {
    TSNode stmt = ts_node_named_child(body, i);
    if (is_type(stmt, "return_statement")) {
      /* FX's output node, `return (mul, add)`: what the graph returns
       * (in a training forward, the tensors it saves for the backward
       * too), named as FX names it. */
      add_node(g, tl_str_from("output"), tl_str_from("output"), (tl_str){"", 0},
               stmt, i);
      continue;
    }
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
      add_node(g, text_of(left, g->text), placeholder_op(arena, t), t, assign,
               i);
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
             assign, i);
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
    add_node(g, n, placeholder_op(arena, t), t, p, 0);
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

/* The comments of the forward, in order (tree-sitter keeps them as extra
 * nodes wherever they fall). */
static bool collect_comments(TSNode n, void *ctx) {
  graph *g = ctx;
  if (is_type(n, "comment")) {
    comment c = {ts_node_start_byte(n), text_of(n, g->text)};
    TL_VEC_PUSH(g->comments, c);
    return false;
  }
  return true;
}

/* What of a `# File:` comment's text (after `# File: `) says where a node
 * comes from: `/w/m.py:10 in f, code: y = x + 1` -> `m.py in f, code: y =
 * x + 1`. The directory and the line number are left out: two runs from
 * other folders, or with a line inserted above, keep their sources. */
static tl_str source_key(tl_arena *arena, tl_str s) {
  size_t head = s.len;
  for (size_t i = 0; i + 8 <= s.len; i++)
    if (memcmp(s.ptr + i, ", code: ", 8) == 0) {
      head = i;
      break;
    }
  size_t in = head; /* the last " in " of the head */
  for (size_t i = head; i >= 4; i--)
    if (memcmp(s.ptr + i - 4, " in ", 4) == 0) {
      in = i - 4;
      break;
    }
  if (in == head) /* not of print_readable's shape: the whole text */
    return s;
  size_t colon = in, base = 0;
  while (colon > 0 && s.ptr[colon - 1] != ':')
    colon--;
  if (colon == 0) /* no line number */
    colon = in + 1;
  for (size_t i = 0; i + 1 < colon; i++)
    if (s.ptr[i] == '/' || s.ptr[i] == '\\')
      base = i + 1;
  return tl_str_from(tl_arena_printf(arena, "%.*s%.*s", (int)(colon - 1 - base),
                                     s.ptr + base, (int)(s.len - in),
                                     s.ptr + in));
}

/* Each statement's source is the last `# File:` comment above it in the
 * forward (print_readable writes one when the source changes); `# No
 * stacktrace found for following nodes` ends it. */
static void give_sources(graph *g, tl_arena *arena) {
  static const char file[] = "# File: ", none[] = "# No stacktrace found";
  size_t c = 0;
  tl_str source = {"", 0}, key = {NULL, 0};
  for (size_t i = 0; i < g->nodes.count; i++) {
    node *n = &g->nodes.items[i];
    for (; c < g->comments.count && g->comments.items[c].at < n->at; c++) {
      tl_str t = g->comments.items[c].text;
      if (tl_str_starts_with(t, file)) {
        source = tl_str_trim(
            (tl_str){t.ptr + sizeof file - 1, t.len - (sizeof file - 1)});
        key = source_key(arena, source);
      } else if (tl_str_starts_with(t, none)) {
        source = (tl_str){"", 0};
        key = (tl_str){NULL, 0};
      }
    }
    n->side.source = source;
    n->source_key = key;
  }
}

/* The types of the nodes each node takes, in order: `f32[4, 8]|f32[8, 16]`
 * for mm(x, w). */
static void give_arg_types(graph *g, tl_arena *arena) {
  tl_buf b;
  tl_buf_init(&b);
  for (size_t i = 0; i < g->nodes.count; i++) {
    node *n = &g->nodes.items[i];
    tl_buf_clear(&b);
    for (size_t k = 0; k < n->pieces_count; k++) {
      const piece *p = &g->pieces.items[n->pieces_at + k];
      if (p->ref < 0)
        continue;
      if (b.len)
        tl_buf_putc(&b, '|');
      tl_buf_append_str(&b, g->nodes.items[p->ref].side.type);
    }
    n->arg_types = tl_arena_str(arena, tl_buf_str(&b));
  }
  tl_buf_free(&b);
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
      TSNode right = is_type(stmt, "return_statement")
                         ? assign /* the returned expression */
                         : ts_node_child_by_field_name(assign, "right", 5);
      nd->pieces_at = g->pieces.count;
      nd->pieces_count = 0;
      if (ts_node_is_null(right)) /* a declared input: no arguments */
        continue;
      if (is_type(right, "call")) {
        /* A method of a node, `linear.sum(-1)`: its op is `.sum`, the node
         * its first argument (the name would make two graphs' ops
         * differ). */
        TSNode fn = ts_node_child_by_field_name(right, "function", 8);
        TSNode object = ts_node_child_by_field_name(fn, "object", 6);
        long ref = is_type(fn, "attribute") && is_type(object, "identifier")
                       ? find_name(g, text_of(object, g->text))
                       : -1;
        if (ref >= 0) {
          tl_str attr =
              text_of(ts_node_child_by_field_name(fn, "attribute", 9), g->text);
          nd->side.op = tl_str_from(
              tl_arena_printf(arena, ".%.*s", (int)attr.len, attr.ptr));
          piece r = {{NULL, 0}, ref};
          TL_VEC_PUSH(g->pieces, r);
        }
        right = ts_node_child_by_field_name(right, "arguments", 9);
      }
      pieces_ctx p = {g, ts_node_start_byte(right)};
      tl_ts_walk(right, collect, &p);
      uint32_t end = ts_node_end_byte(right);
      if (end > p.from) {
        piece t = {{g->text.ptr + p.from, end - p.from}, -1};
        TL_VEC_PUSH(g->pieces, t);
      }
      nd->pieces_count = g->pieces.count - nd->pieces_at;
    }
    tl_ts_walk(f.found, collect_comments, g);
    give_sources(g, arena);
    give_arg_types(g, arena);
  }
  ts_tree_delete(tree);
}

/* ---- a graph's nodes kept in the analysis cache ------------------------ */

/* What read_graph finds, as one blob: counts and numbers as 64-bit words,
 * each string as its length (UINT64_MAX: no pointer) and its bytes. The
 * comments are spent once the sources are given; the names are indexed
 * again on the way back. */
static void serialize_graph(tl_buf *b, const graph *g) {
  tl_blob_put_u64(b, g->nodes.count);
  for (size_t i = 0; i < g->nodes.count; i++) {
    const node *n = &g->nodes.items[i];
    tl_blob_put_str(b, n->side.name);
    tl_blob_put_str(b, n->side.op);
    tl_blob_put_str(b, n->side.type);
    tl_blob_put_str(b, n->side.text);
    tl_blob_put_str(b, n->side.source);
    tl_blob_put_u64(b, (uint64_t)(int64_t)n->side.line);
    tl_blob_put_u64(b, n->stmt);
    tl_blob_put_u64(b, n->at);
    tl_blob_put_u64(b, n->pieces_at);
    tl_blob_put_u64(b, n->pieces_count);
    tl_blob_put_str(b, n->source_key);
    tl_blob_put_str(b, n->arg_types);
  }
  tl_blob_put_u64(b, g->pieces.count);
  for (size_t i = 0; i < g->pieces.count; i++) {
    tl_blob_put_str(b, g->pieces.items[i].text);
    tl_blob_put_u64(b, (uint64_t)(int64_t)g->pieces.items[i].ref);
  }
}

/* The graph of a blob, its strings in `arena`; false (and no nodes) when
 * the blob is short. */
static bool deserialize_graph(graph *g, tl_str text, tl_str blob,
                              tl_arena *arena) {
  memset(g, 0, sizeof *g);
  g->text = text;
  tl_blob_reader r = tl_blob_reader_of(blob, arena);
  uint64_t count = tl_blob_get_u64(&r);
  for (uint64_t i = 0; r.ok && i < count; i++) {
    node n = {0};
    n.side.name = tl_blob_get_str(&r);
    n.side.op = tl_blob_get_str(&r);
    n.side.type = tl_blob_get_str(&r);
    n.side.text = tl_blob_get_str(&r);
    n.side.source = tl_blob_get_str(&r);
    n.side.line = (int)(int64_t)tl_blob_get_u64(&r);
    n.stmt = (uint32_t)tl_blob_get_u64(&r);
    n.at = (uint32_t)tl_blob_get_u64(&r);
    n.pieces_at = (size_t)tl_blob_get_u64(&r);
    n.pieces_count = (size_t)tl_blob_get_u64(&r);
    n.source_key = tl_blob_get_str(&r);
    n.arg_types = tl_blob_get_str(&r);
    n.op_id = n.source_id = n.args_id = n.type_id = n.name_id = -1;
    TL_VEC_PUSH(g->nodes, n);
  }
  count = tl_blob_get_u64(&r);
  for (uint64_t i = 0; r.ok && i < count; i++) {
    piece p;
    p.text = tl_blob_get_str(&r);
    p.ref = (long)(int64_t)tl_blob_get_u64(&r);
    TL_VEC_PUSH(g->pieces, p);
  }
  if (!r.ok || r.at != blob.len) {
    TL_VEC_FREE(g->nodes);
    TL_VEC_FREE(g->pieces);
    return false;
  }
  index_names(g);
  return true;
}

/* read_graph through the cache: a text read before (by this process or, with
 * a shared folder, by another) is not parsed again. */
static void read_graph_cached(graph *g, tl_str text, tl_arena *arena,
                              tl_analysis_cache *cache) {
  if (!tl_analysis_cache_wants(cache, text.len)) {
    read_graph(g, text, arena);
    return;
  }
  tl_buf blob;
  tl_buf_init(&blob);
  if (tl_analysis_cache_get_blob(cache, TL_ANALYSIS_FX_DIFF_GRAPH, text,
                                 &blob) &&
      deserialize_graph(g, text, tl_buf_str(&blob), arena)) {
    tl_buf_free(&blob);
    return;
  }
  read_graph(g, text, arena);
  tl_buf_clear(&blob);
  serialize_graph(&blob, g);
  tl_analysis_cache_put_blob(cache, TL_ANALYSIS_FX_DIFF_GRAPH, text, blob.data,
                             blob.len);
  tl_buf_free(&blob);
}

static void free_graph(graph *g) {
  TL_VEC_FREE(g->nodes);
  TL_VEC_FREE(g->pieces);
  TL_VEC_FREE(g->comments);
  free(g->names);
}

/* ---- alignment ------------------------------------------------------- */

typedef struct str_key {
  tl_str str;
  int *slot;
} str_key;

static int by_str(const void *a, const void *b) {
  return tl_str_cmp(((const str_key *)a)->str, ((const str_key *)b)->str);
}

/* The field of a node numbered by number_nodes. */
typedef enum node_field { OP, SOURCE, ARGS, TYPE, NAME } node_field;

static str_key field_key(node *n, node_field f) {
  switch (f) {
  case OP:
    return (str_key){n->side.op, &n->op_id};
  case SOURCE:
    return (str_key){n->source_key, &n->source_id};
  case ARGS:
    return (str_key){n->arg_types, &n->args_id};
  case TYPE:
    return (str_key){n->side.type, &n->type_id};
  case NAME:
    break;
  }
  return (str_key){n->side.name, &n->name_id};
}

/* Gives one field of each node of both graphs an id, equal values the
 * same (a missing source keeps -1). */
static void number_nodes(graph *a, graph *b, node_field f) {
  size_t n = a->nodes.count + b->nodes.count, k = 0;
  str_key *keys = tl_xcalloc(n ? n : 1, sizeof *keys);
  for (size_t i = 0; i < a->nodes.count + b->nodes.count; i++) {
    node *nd = i < a->nodes.count ? &a->nodes.items[i]
                                  : &b->nodes.items[i - a->nodes.count];
    str_key key = field_key(nd, f);
    if (key.str.ptr)
      keys[k++] = key;
  }
  tl_sort(keys, k, sizeof *keys, by_str);
  int id = -1;
  for (size_t i = 0; i < k; i++) {
    if (i == 0 || !tl_str_eq(keys[i].str, keys[i - 1].str))
      id++;
    *keys[i].slot = id;
  }
  free(keys);
}

/* How well two nodes of the same op agree besides: 8 for the same source,
 * 4 for the same argument types, 2 for the same type, 1 for the same name
 * (Dynamo names a parameter after its source, `L_self_modules_fc_
 * parameters_weight_`: among pairings otherwise equal, the one that keeps
 * names). */
static int agreement(const node *x, const node *y) {
  return (x->source_id >= 0 && x->source_id == y->source_id ? 8 : 0) +
         (x->args_id == y->args_id ? 4 : 0) +
         (x->type_id == y->type_id ? 2 : 0) +
         (x->name_id == y->name_id ? 1 : 0);
}

static bool identical(const node *x, const node *y) {
  return x->op_id == y->op_id && x->source_id == y->source_id &&
         x->args_id == y->args_id && x->type_id == y->type_id &&
         x->name_id == y->name_id;
}

/* The alignment of a[lo_a..hi_a) and b[lo_b..hi_b) that pairs the most
 * nodes of the same op, and of those the one whose pairs agree the most
 * (the sum of agreement): each pair weighs W + agreement, W past what
 * the agreements of a whole alignment can add up to. A table of suffixes,
 * read from the start, so that of equal alignments the earlier partner is
 * taken. The caller keeps (n + 1)(m + 1) within TL_FX_DIFF_MAX_CELLS. */
static void scored(const graph *a, const graph *b, size_t lo_a, size_t hi_a,
                   size_t lo_b, size_t hi_b, long *match_a, long *match_b) {
  size_t n = hi_a - lo_a, m = hi_b - lo_b, w = m + 1;
  /* Nothing to pair; an empty graph has no nodes to point into. */
  if (n == 0 || m == 0)
    return;
  int32_t big = 16 * (int32_t)((n < m ? n : m) + 1);
  int32_t *t = tl_xcalloc((n + 1) * w, sizeof *t);
  const node *x = a->nodes.items + lo_a, *y = b->nodes.items + lo_b;
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;) {
      int32_t best = t[(i + 1) * w + j];
      if (t[i * w + j + 1] > best)
        best = t[i * w + j + 1];
      if (x[i].op_id == y[j].op_id) {
        int32_t pair = t[(i + 1) * w + j + 1] + big + agreement(&x[i], &y[j]);
        if (pair > best)
          best = pair;
      }
      t[i * w + j] = best;
    }
  size_t i = 0, j = 0;
  while (i < n && j < m) {
    if (x[i].op_id == y[j].op_id &&
        t[i * w + j] ==
            t[(i + 1) * w + j + 1] + big + agreement(&x[i], &y[j])) {
      match_a[lo_a + i] = (long)(lo_b + j);
      match_b[lo_b + j] = (long)(lo_a + i);
      i++, j++;
    } else if (t[i * w + j] == t[(i + 1) * w + j])
      i++;
    else
      j++;
  }
  free(t);
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
  tl_fx_diff_texts_cached(arena, NULL, ta, tb, out);
}

void tl_fx_diff_texts_cached(tl_arena *arena, tl_analysis_cache *cache,
                             tl_str ta, tl_str tb, tl_fx_diff *out) {
  memset(out, 0, sizeof *out);
  graph a, b;
  read_graph_cached(&a, ta, arena, cache);
  read_graph_cached(&b, tb, arena, cache);
  number_nodes(&a, &b, OP);
  number_nodes(&a, &b, SOURCE);
  number_nodes(&a, &b, ARGS);
  number_nodes(&a, &b, TYPE);
  number_nodes(&a, &b, NAME);
  size_t na = a.nodes.count, nb = b.nodes.count;
  long *match_a = tl_xmalloc((na ? na : 1) * sizeof *match_a);
  long *match_b = tl_xmalloc((nb ? nb : 1) * sizeof *match_b);
  for (size_t i = 0; i < na; i++)
    match_a[i] = -1;
  for (size_t j = 0; j < nb; j++)
    match_b[j] = -1;
  /* The common ends first, where each node is its partner's twin (op,
   * source, argument types and type): most graphs compared differ in a few
   * places, and a twin is the best partner either could have. */
  size_t head = 0;
  while (head < na && head < nb &&
         identical(&a.nodes.items[head], &b.nodes.items[head])) {
    match_a[head] = (long)head;
    match_b[head] = (long)head;
    head++;
  }
  size_t tail = 0;
  while (
      tail < na - head && tail < nb - head &&
      identical(&a.nodes.items[na - 1 - tail], &b.nodes.items[nb - 1 - tail])) {
    match_a[na - 1 - tail] = (long)(nb - 1 - tail);
    match_b[nb - 1 - tail] = (long)(na - 1 - tail);
    tail++;
  }
  size_t mid_a = na - tail - head, mid_b = nb - tail - head;
  if ((mid_a + 1) * (mid_b + 1) <= TL_FX_DIFF_MAX_CELLS)
    scored(&a, &b, head, na - tail, head, nb - tail, match_a, match_b);
  else {
    out->by_op_only = true;
    if (!myers(&a, &b, head, na - tail, head, nb - tail, match_a, match_b))
      out->too_large = true;
  }
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
