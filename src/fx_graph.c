/* fx_graph.c: FX graph text -> node name and defining line (analyze stage).
 *
 * Input is GraphModule.print_readable output, e.g.
 *     class GraphModule(torch.nn.Module):
 *         def forward(self, x: "f32[8, 10][10, 1]cuda:0"):
 *             relu: "f32[8][1]cuda:0" = torch.ops.aten.relu.default(x);  x =
 * None Nodes are the assignments directly in the body of the outermost class's
 * `forward`; placeholders are its parameters or the export `;` line. A large
 * graph of this shape is parsed a slice of forward's statements at a time
 * (tl_ts_chunker_begin_nested, ts_query.h). Results point into the analyzed
 * text; the arrays live in the arena.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "queries.h"
#include "ts_chunk.h"
#include "ts_query.h"

typedef struct capture {
  TSNode node;      /* the name, or the target list (pattern 4) */
  TSNode parent;    /* the parameters / block that holds it */
  TSNode stmt;      /* patterns 3 and 4: the expression_statement */
  TSNode assign;    /* pattern 3: the assignment */
  uint32_t pattern; /* 2 parameter, 3 one name, 4 a target list (the
                       query's pattern 3 with @node.targets) */
} capture;

typedef struct fx_def {
  tl_str name;
  int line;
  size_t order; /* text order, so that the first definition wins */
} fx_def;

/* print_readable names the post-grad class of AOT graphs `<lambda>`, which
 * no Python grammar accepts: the copy handed to tree-sitter spells it
 * `_lambda_` (same length, so byte offsets still index the real text). */
static tl_str sanitize_class_names(tl_arena *arena, tl_str text) {
  char *copy = NULL;
  size_t i = 0;
  while (i < text.len) {
    size_t eol = i;
    while (eol < text.len && text.ptr[eol] != '\n')
      eol++;
    size_t j = i;
    while (j < eol && (text.ptr[j] == ' ' || text.ptr[j] == '\t'))
      j++;
    if (eol - j > 7 && memcmp(text.ptr + j, "class <", 7) == 0) {
      size_t close = j + 7;
      while (close < eol && text.ptr[close] != '>' && text.ptr[close] != '(')
        close++;
      if (close < eol && text.ptr[close] == '>') {
        if (!copy) {
          copy = tl_arena_alloc(arena, text.len + 1);
          memcpy(copy, text.ptr, text.len);
        }
        copy[j + 6] = '_';
        copy[close] = '_';
      }
    }
    i = eol + 1;
  }
  return copy ? (tl_str){copy, text.len} : text;
}

static int def_cmp(const void *a, const void *b) {
  const fx_def *x = a, *y = b;
  int c = tl_str_cmp(x->name, y->name);
  if (c)
    return c;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* True when `stmt` does not start its line, i.e. it follows a `;` (the
 * `x = y = None` cleanup after a node). Looks only at the bytes between the
 * line start and the statement. */
static bool follows_semicolon(TSNode stmt, tl_str text) {
  uint32_t start = ts_node_start_byte(stmt);
  uint32_t col = ts_node_start_point(stmt).column;
  if (start > text.len || col > start)
    return false;
  for (uint32_t i = start - col; i < start; i++)
    if (text.ptr[i] != ' ' && text.ptr[i] != '\t')
      return true;
  return false;
}

typedef TL_VEC(fx_def) def_vec;

static void push_def(def_vec *defs, tl_str text, TSNode name_node, int line) {
  fx_def d = {tl_ts_text(name_node, text), line, defs->count};
  if (d.name.len)
    TL_VEC_PUSH(*defs, d);
}

/* Collects the definitions under the chosen forward from `caps`. */
static void collect(def_vec *defs, tl_str text, const capture *caps, size_t n,
                    TSNode params, TSNode body) {
  for (size_t i = 0; i < n; i++) {
    const capture *c = &caps[i];
    if (c->pattern == 2) {
      if (!ts_node_eq(c->parent, params))
        continue;
      tl_str name = tl_ts_text(c->node, text);
      if (!tl_str_eq_cstr(name, "self"))
        push_def(defs, text, c->node, tl_ts_first_line(c->node));
      continue;
    }
    if (!ts_node_eq(c->parent, body))
      continue;
    TSNode assign = c->assign;
    bool declaration =
        c->pattern == 3 &&
        ts_node_is_null(ts_node_child_by_field_name(assign, "right", 5)) &&
        !ts_node_is_null(ts_node_child_by_field_name(assign, "type", 4));
    if (!declaration && follows_semicolon(c->stmt, text))
      continue; /* cleanup names after `;` */
    int line = tl_ts_first_line(c->stmt);
    if (c->pattern == 3) {
      push_def(defs, text, c->node, line);
      continue;
    }
    uint32_t count = ts_node_named_child_count(c->node);
    for (uint32_t k = 0; k < count; k++) {
      TSNode t = ts_node_named_child(c->node, k);
      if (strcmp(ts_node_type(t), "identifier") == 0)
        push_def(defs, text, t, line);
    }
  }
}

typedef struct fx_ids {
  uint32_t params, body, param, name, targets, stmt, list, block, assign;
} fx_ids;

/* Runs fx_graph.scm over one chunk's tree and adds the definitions under
 * its forward to `defs`; the parameters only when `with_params` (later
 * chunks repeat the `def forward(...)` line as their header). */
static void collect_tree(def_vec *defs, const tl_ts_query *q, const fx_ids *id,
                         TSTree *tree, tl_str text, tl_str parsed,
                         bool with_params) {
  TL_VEC(capture) caps = {0};
  TSNode fwd_params[2], fwd_body[2];
  memset(fwd_params, 0, sizeof fwd_params);
  memset(fwd_body, 0, sizeof fwd_body);
  bool have[2] = {false, false};
  tl_ts_iter it;
  tl_ts_iter_begin(&it, q, ts_tree_root_node(tree), parsed);
  while (tl_ts_iter_next(&it)) {
    uint32_t p = tl_ts_iter_pattern(&it);
    capture c = {.pattern = p};
    if (p <= 1) {
      if (!have[p] && tl_ts_iter_get(&it, id->params, &fwd_params[p]) &&
          tl_ts_iter_get(&it, id->body, &fwd_body[p]))
        have[p] = true;
    } else if (p == 2) {
      if (with_params && tl_ts_iter_get(&it, id->param, &c.node) &&
          tl_ts_iter_get(&it, id->list, &c.parent))
        TL_VEC_PUSH(caps, c);
    } else if (tl_ts_iter_get(&it, id->stmt, &c.stmt) &&
               tl_ts_iter_get(&it, id->block, &c.parent)) {
      /* Pattern 3 names one node or a target list; `capture` tells them
       * apart as 3 and 4. */
      if (tl_ts_iter_get(&it, id->name, &c.node))
        tl_ts_iter_get(&it, id->assign, &c.assign);
      else if (tl_ts_iter_get(&it, id->targets, &c.node))
        c.pattern = 4;
      else
        continue;
      TL_VEC_PUSH(caps, c);
    }
  }
  tl_ts_iter_end(&it);
  int chosen = have[0] ? 0 : have[1] ? 1 : -1;
  if (chosen >= 0)
    collect(defs, text, caps.items, caps.count, fwd_params[chosen],
            fwd_body[chosen]);
  TL_VEC_FREE(caps);
}

bool tl_fx_query_is_compiled(void) {
  return tl_ts_query_is_compiled(tree_sitter_python(), TL_RES(query_fx_graph));
}

void tl_fx_analyze(tl_arena *arena, tl_str text, tl_fx_graph *out) {
  out->nodes = NULL;
  out->node_count = 0;
  if (!text.ptr || text.len == 0 || text.len > UINT32_MAX)
    return;
  tl_str parsed = sanitize_class_names(arena, text);
  tl_ts_query q;
  tl_ts_query_init(&q, tree_sitter_python(), TL_RES(query_fx_graph),
                   "fx_graph.scm");
  fx_ids id = {
      tl_ts_query_capture(&q, "forward.params"),
      tl_ts_query_capture(&q, "forward.body"),
      tl_ts_query_capture(&q, "param.name"),
      tl_ts_query_capture(&q, "node.name"),
      tl_ts_query_capture(&q, "node.targets"),
      tl_ts_query_capture(&q, "node.stmt"),
      tl_ts_query_capture(&q, "param.list"),
      tl_ts_query_capture(&q, "node.block"),
      tl_ts_query_capture(&q, "node.assign"),
  };
  /* A large forward is parsed a slice of body statements at a time, each
   * under the class and `def forward` header lines (see ts_query.h). */
  tl_ts_cuts cuts = {0};
  tl_ts_forward fwd = {0, 0, 0};
  if (parsed.len > tl_ts_chunk_limit &&
      !tl_ts_python_forward_cuts(parsed, &cuts, &fwd))
    cuts.count = 0;
  tl_ts_chunker ch;
  tl_ts_chunker_begin_nested(&ch, tree_sitter_python(), parsed, cuts, fwd);
  def_vec defs = {0};
  bool restart, first = true;
  for (TSTree *tree; (tree = tl_ts_chunker_next(&ch, &restart));) {
    if (restart) {
      defs.count = 0;
      first = true;
    }
    collect_tree(&defs, &q, &id, tree, text, parsed, first);
    first = false;
    ts_tree_delete(tree);
  }
  tl_ts_chunker_end(&ch);

  if (defs.count) {
    tl_sort(defs.items, defs.count, sizeof *defs.items, def_cmp);
    out->nodes = tl_arena_alloc(arena, defs.count * sizeof *out->nodes);
    for (size_t i = 0; i < defs.count; i++) {
      if (out->node_count &&
          tl_str_eq(out->nodes[out->node_count - 1].name, defs.items[i].name))
        continue; /* a later definition of the same name */
      out->nodes[out->node_count++] =
          (tl_fx_node){defs.items[i].name, defs.items[i].line};
    }
  }
  TL_VEC_FREE(defs);
  tl_ts_query_free(&q);
}

static int node_key_cmp(const void *key, const void *elem) {
  return tl_str_cmp(*(const tl_str *)key, ((const tl_fx_node *)elem)->name);
}

int tl_fx_lookup(const tl_fx_graph *graph, tl_str name) {
  if (!graph || !graph->node_count)
    return 0;
  const tl_fx_node *n = bsearch(&name, graph->nodes, graph->node_count,
                                sizeof *graph->nodes, node_key_cmp);
  return n ? n->line : 0;
}
