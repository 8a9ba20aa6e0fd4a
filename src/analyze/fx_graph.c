/* fx_graph.c: FX graph text -> node name and defining line (analyze stage).
 *
 * Input is GraphModule.print_readable output, e.g.
 *     class GraphModule(torch.nn.Module):
 *         def forward(self, x: "f32[8, 10][10, 1]cuda:0"):
 *             relu: "f32[8][1]cuda:0" = torch.ops.aten.relu.default(x)
 *
 * Nodes are the assignments directly in the body of the outermost class's
 * `forward`, then those of the subgraphs print_readable nests in that class
 * (`class true_graph_0(torch.nn.Module):` after the forward, for a
 * torch.cond branch; classes nest as subgraphs do), whose nodes Inductor's
 * mappings name too; placeholders are the outer forward's parameters or the
 * export `;` line. A name keeps its first definition in each graph; the
 * outer graph's comes first, so a subgraph's node never shadows it, and a
 * name defined in several graphs (the mappings name a node by its name
 * alone) keeps every graph's (tl_fx_definitions). A large
 * graph of this shape is parsed a slice of forward's statements at a time
 * (tl_ts_chunker_begin_nested, ts_query.h). Node names are copied into the
 * arena, in text order (a mapped text is never read back whole), and so are
 * the arrays.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/ts_chunk.h"
#include "analyze/ts_query.h"
#include "util/mapped_text.h"

typedef struct capture {
  TSNode node;        /* the name, or the target list (pattern 4) */
  TSNode parent;      /* the parameters / block that holds it */
  TSNode stmt;        /* patterns 3 and 4: the expression_statement */
  TSNode assign;      /* pattern 3: the assignment */
  uint32_t pattern;   /* 2 a parameter, 3 one name, 4 a target list (both
                         read from a block) */
  bool after_inplace; /* its statement follows, on the same line, one that
                         operates in place (inplace_statement) */
} capture;

typedef TL_VEC(capture) capture_vec;

typedef struct fx_def {
  tl_str name;
  int line;
  uint32_t graph; /* 0 the outer forward, else where a nested one's body
                     starts (the same in every chunk; text order) */
  size_t order;   /* text order, so that the first definition wins */
} fx_def;

/* print_readable names the post-grad class of AOT graphs `<lambda>`, which
 * no Python grammar accepts: tree-sitter reads it as `_lambda_` (the same
 * length, so byte offsets still index the real text), through the chunker's
 * patches (tl_ts_chunker_patch): the offsets of the `<` and `>` to read as
 * `_`, ascending. */
typedef TL_VEC(uint32_t) offset_vec;
static void lambda_patches(tl_str text, offset_vec *at) {
  size_t i = 0, next_passed = 0;
  while (i < text.len) {
    tl_text_passing(text.ptr, i, &next_passed);
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
        TL_VEC_PUSH(*at, (uint32_t)(j + 6));
        TL_VEC_PUSH(*at, (uint32_t)close);
      }
    }
    i = eol + 1;
  }
}

static int def_cmp(const void *a, const void *b) {
  const fx_def *x = a, *y = b;
  int c = tl_str_cmp(x->name, y->name);
  if (c)
    return c;
  if (x->graph != y->graph)
    return x->graph < y->graph ? -1 : 1;
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
typedef TL_VEC(TSNode) node_vec;
typedef TL_VEC(tl_fx_subgraph) subgraph_vec;

/* Where subgraph names go, and the bytes they may still take
 * (tl_subgraph_name). */
typedef struct name_store {
  tl_arena *arena;
  size_t budget;
} name_store;

/* The Python grammar's ids that the reads by field compare with. */
typedef struct fx_syms {
  TSSymbol identifier, class_definition, function_definition, block, parameters,
      expression_statement, assignment, pattern_list, tuple_pattern, module,
      typed_parameter, default_parameter, typed_default_parameter;
  TSFieldId name, body, parameters_field, left, right, type;
} fx_syms;

static fx_syms fx_syms_get(void) {
  const TSLanguage *py = tree_sitter_python();
  return (fx_syms){tl_ts_symbol(py, "identifier"),
                   tl_ts_symbol(py, "class_definition"),
                   tl_ts_symbol(py, "function_definition"),
                   tl_ts_symbol(py, "block"),
                   tl_ts_symbol(py, "parameters"),
                   tl_ts_symbol(py, "expression_statement"),
                   tl_ts_symbol(py, "assignment"),
                   tl_ts_symbol(py, "pattern_list"),
                   tl_ts_symbol(py, "tuple_pattern"),
                   tl_ts_symbol(py, "module"),
                   tl_ts_symbol(py, "typed_parameter"),
                   tl_ts_symbol(py, "default_parameter"),
                   tl_ts_symbol(py, "typed_default_parameter"),
                   tl_ts_field(py, "name"),
                   tl_ts_field(py, "body"),
                   tl_ts_field(py, "parameters"),
                   tl_ts_field(py, "left"),
                   tl_ts_field(py, "right"),
                   tl_ts_field(py, "type")};
}

/* FX writes an in-place operator node as two statements on one line, the
 * operation and then the node's name bound to its target (torch/fx/graph.py,
 * inplace_methods): `x += y;  iadd = x`, `x[i] = v;  setitem = x`. True for
 * such a first statement, one that starts its line: an augmented
 * assignment, or an assignment to a subscript. */
static bool inplace_statement(TSNode stmt, tl_str text, const fx_syms *y) {
  TSNode op = ts_node_named_child(stmt, 0);
  if (ts_node_is_null(op) || follows_semicolon(stmt, text))
    return false;
  if (strcmp(ts_node_type(op), "augmented_assignment") == 0)
    return true;
  if (strcmp(ts_node_type(op), "assignment") != 0)
    return false;
  TSNode left = ts_node_child_by_field_id(op, y->left);
  return !ts_node_is_null(left) && strcmp(ts_node_type(left), "subscript") == 0;
}

static void push_def(def_vec *defs, tl_str text, TSNode name_node, int line,
                     uint32_t graph) {
  fx_def d = {tl_ts_text(name_node, text), line, graph, defs->count};
  if (d.name.len)
    TL_VEC_PUSH(*defs, d);
}

/* The graph whose forward body `block` is, among the `nested` ones (sorted
 * by start, by_start): where it starts (never 0: a class line precedes it);
 * 0 when it is none. */
static uint32_t subgraph_of(TSNode block, const node_vec *nested) {
  uint32_t at = ts_node_start_byte(block);
  size_t lo = 0, hi = nested->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ts_node_start_byte(nested->items[mid]) < at)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < nested->count && ts_node_eq(block, nested->items[lo]) ? at : 0;
}

static int by_start(const void *a, const void *b) {
  uint32_t x = ts_node_start_byte(*(const TSNode *)a);
  uint32_t y = ts_node_start_byte(*(const TSNode *)b);
  return (x > y) - (x < y);
}

/* Collects the definitions under the chosen forward from `caps`: its
 * parameters, and the assignments in its body and in the `nested` bodies. */
static void collect(def_vec *defs, tl_str text, const fx_syms *y,
                    const capture *caps, size_t n, TSNode params, TSNode body,
                    const node_vec *nested) {
  for (size_t i = 0; i < n; i++) {
    const capture *c = &caps[i];
    if (c->pattern == 2) {
      if (!ts_node_eq(c->parent, params))
        continue;
      tl_str name = tl_ts_text(c->node, text);
      if (!tl_str_eq_cstr(name, "self"))
        push_def(defs, text, c->node, tl_ts_first_line(c->node), 0);
      continue;
    }
    uint32_t graph = 0;
    if (!ts_node_eq(c->parent, body) &&
        (graph = subgraph_of(c->parent, nested)) == 0)
      continue;
    TSNode assign = c->assign;
    bool declaration =
        c->pattern == 3 &&
        ts_node_is_null(ts_node_child_by_field_id(assign, y->right)) &&
        !ts_node_is_null(ts_node_child_by_field_id(assign, y->type));
    if (!declaration && !c->after_inplace && follows_semicolon(c->stmt, text))
      continue; /* cleanup names after `;` */
    int line = tl_ts_first_line(c->stmt);
    if (c->pattern == 3) {
      push_def(defs, text, c->node, line, graph);
      continue;
    }
    uint32_t count = ts_node_named_child_count(c->node);
    for (uint32_t k = 0; k < count; k++) {
      TSNode t = ts_node_named_child(c->node, k);
      if (strcmp(ts_node_type(t), "identifier") == 0)
        push_def(defs, text, t, line, graph);
    }
  }
}

/* The first `def forward` among the children of `parent` with both
 * parameters and a body: false when there is none. */
static bool find_forward(TSNode parent, tl_str text, const fx_syms *y,
                         TSNode *params, TSNode *body) {
  bool found = false;
  tl_ts_children fs;
  tl_ts_children_begin(&fs, parent, 0);
  for (TSNode fn;
       !found && tl_ts_children_next(&fs, y->function_definition, &fn);) {
    bool named = false;
    tl_ts_children ns;
    tl_ts_children_begin(&ns, fn, y->name);
    for (TSNode n; !named && tl_ts_children_next(&ns, y->identifier, &n);)
      named = tl_str_eq_cstr(tl_ts_text(n, text), "forward");
    tl_ts_children_end(&ns);
    if (!named)
      continue;
    tl_ts_children ps;
    tl_ts_children_begin(&ps, fn, y->parameters_field);
    for (TSNode p; !found && tl_ts_children_next(&ps, y->parameters, &p);) {
      tl_ts_children bs;
      tl_ts_children_begin(&bs, fn, y->body);
      if (tl_ts_children_next(&bs, y->block, body)) {
        *params = p;
        found = true;
      }
      tl_ts_children_end(&bs);
    }
    tl_ts_children_end(&ps);
  }
  tl_ts_children_end(&fs);
  return found;
}

/* A class still to look at, and the subgraph it is nested in: the nearest
 * class around it with a forward (an index into the subgraphs found),
 * SIZE_MAX for the outer graph. */
typedef struct pending_class {
  TSNode cls;
  size_t owner;
} pending_class;
typedef TL_VEC(pending_class) pending_vec;

/* Pushes the classes of `block` so that the first in the text is popped
 * first. */
static void push_classes(TSNode block, size_t owner, const fx_syms *y,
                         pending_vec *stack) {
  size_t from = stack->count;
  tl_ts_children cs;
  tl_ts_children_begin(&cs, block, 0);
  for (TSNode cls; tl_ts_children_next(&cs, y->class_definition, &cls);)
    TL_VEC_PUSH(*stack, ((pending_class){cls, owner}));
  tl_ts_children_end(&cs);
  for (size_t a = from, b = stack->count; a + 1 < b; a++, b--) {
    pending_class t = stack->items[a];
    stack->items[a] = stack->items[b - 1];
    stack->items[b - 1] = t;
  }
}

/* The forward bodies of the classes nested in `block` (a class body), and
 * of the classes nested in theirs, and for each its subgraph (subs, in the
 * same order: where it starts, the one it is nested in, its name). In text
 * order, a class before the classes in it (a stack, not recursion: nesting
 * depth comes from the text), as the chunks give them one class after
 * another: the names' budget goes the same way in both. */
static void nested_forwards(TSNode block, tl_str text, const fx_syms *y,
                            name_store *names, node_vec *bodies,
                            subgraph_vec *subs) {
  pending_vec stack = {0};
  size_t first = subs->count;
  push_classes(block, SIZE_MAX, y, &stack);
  while (stack.count) {
    pending_class p = stack.items[--stack.count];
    TSNode name = ts_node_child_by_field_id(p.cls, y->name);
    tl_str own =
        ts_node_is_null(name) ? (tl_str){"", 0} : tl_ts_text(name, text);
    tl_ts_children bs;
    tl_ts_children_begin(&bs, p.cls, y->body);
    for (TSNode b; tl_ts_children_next(&bs, y->block, &b);) {
      TSNode params, body;
      size_t inner = p.owner;
      if (find_forward(b, text, y, &params, &body)) {
        const tl_fx_subgraph *parent =
            p.owner == SIZE_MAX ? NULL : &subs->items[first + p.owner];
        tl_fx_subgraph sub = {
            ts_node_start_byte(body), parent ? parent->graph : 0,
            tl_subgraph_name(names->arena, parent ? &parent->name : NULL, own,
                             &names->budget)};
        TL_VEC_PUSH(*bodies, body);
        TL_VEC_PUSH(*subs, sub);
        inner = subs->count - 1 - first;
      }
      push_classes(b, inner, y, &stack);
    }
    tl_ts_children_end(&bs);
  }
  TL_VEC_FREE(stack);
}

/* In the module: the forward directly inside a top-level class (have[0])
 * and the top-level one (have[1]), the first of each in text order; and the
 * forwards of the subgraph classes nested in have[0]'s class. */
static void find_forwards(TSNode module, tl_str text, const fx_syms *y,
                          name_store *names, TSNode params[2], TSNode body[2],
                          bool have[2], node_vec *nested, subgraph_vec *subs) {
  have[1] = find_forward(module, text, y, &params[1], &body[1]);
  tl_ts_children cs;
  tl_ts_children_begin(&cs, module, 0);
  for (TSNode cls;
       !have[0] && tl_ts_children_next(&cs, y->class_definition, &cls);) {
    tl_ts_children bs;
    tl_ts_children_begin(&bs, cls, y->body);
    for (TSNode b; !have[0] && tl_ts_children_next(&bs, y->block, &b);) {
      have[0] = find_forward(b, text, y, &params[0], &body[0]);
      if (have[0])
        nested_forwards(b, text, y, names, nested, subs);
    }
    tl_ts_children_end(&bs);
  }
  tl_ts_children_end(&cs);
}

/* In a block: the assignments directly in it, as captures 3 (one name)
 * and 4 (a target list): `name: "f32[..]" = rhs` and `name = rhs` (left:
 * an identifier); also the export placeholder line `arg2_1: "f32[..]";
 * arg3_1: "f32[..]"; ` (annotation, no value); and `a, b = rhs` (left: a
 * pattern_list or tuple_pattern: multi-target node lines, the export
 * flatten line). True when a class or function is defined directly in it
 * (the only statements the walk goes into, visit_node). */
static bool block_captures(TSNode block, const fx_syms *y, tl_str text,
                           capture_vec *caps) {
  tl_ts_children ss;
  tl_ts_children_begin(&ss, block, 0);
  bool inplace_before = false; /* the previous statement's line and kind */
  uint32_t previous_row = UINT32_MAX;
  bool definitions = false;
  for (TSNode stmt; tl_ts_children_next(&ss, 0, &stmt);) {
    TSSymbol kind = ts_node_symbol(stmt);
    if (kind != y->expression_statement) {
      definitions |=
          kind == y->class_definition || kind == y->function_definition;
      continue;
    }
    uint32_t row = ts_node_start_point(stmt).row;
    bool after_inplace = inplace_before && previous_row == row;
    inplace_before = inplace_statement(stmt, text, y);
    previous_row = row;
    tl_ts_children as;
    tl_ts_children_begin(&as, stmt, 0);
    for (TSNode assign; tl_ts_children_next(&as, y->assignment, &assign);) {
      tl_ts_children ls;
      tl_ts_children_begin(&ls, assign, y->left);
      for (TSNode left; tl_ts_children_next(&ls, 0, &left);) {
        TSSymbol sym = ts_node_symbol(left);
        capture c = {.node = left,
                     .parent = block,
                     .stmt = stmt,
                     .after_inplace = after_inplace};
        if (sym == y->identifier) {
          c.pattern = 3;
          c.assign = assign;
        } else if (sym == y->pattern_list || sym == y->tuple_pattern) {
          c.pattern = 4;
        } else {
          continue;
        }
        TL_VEC_PUSH(*caps, c);
      }
      tl_ts_children_end(&ls);
    }
    tl_ts_children_end(&as);
  }
  tl_ts_children_end(&ss);
  return definitions;
}

/* In a parameter list: the placeholders, as captures 2 (`self` is dropped
 * later). A name is a child that is an identifier, a typed_parameter whose
 * first named child is one (`x: "f32[8]"`, not `*args: int`), or a
 * default_parameter or typed_default_parameter named by one. */
static void parameter_captures(TSNode list, const fx_syms *y,
                               capture_vec *caps) {
  tl_ts_children ps;
  tl_ts_children_begin(&ps, list, 0);
  for (TSNode p; tl_ts_children_next(&ps, 0, &p);) {
    TSSymbol sym = ts_node_symbol(p);
    capture c = {.pattern = 2, .parent = list};
    if (sym == y->identifier) {
      c.node = p;
      TL_VEC_PUSH(*caps, c);
    } else if (sym == y->typed_parameter) {
      TSNode first = ts_node_named_child(p, 0);
      if (!ts_node_is_null(first) && ts_node_symbol(first) == y->identifier) {
        c.node = first;
        TL_VEC_PUSH(*caps, c);
      }
    } else if (sym == y->default_parameter ||
               sym == y->typed_default_parameter) {
      tl_ts_children ns;
      tl_ts_children_begin(&ns, p, y->name);
      for (TSNode name; tl_ts_children_next(&ns, y->identifier, &name);) {
        c.node = name;
        TL_VEC_PUSH(*caps, c);
      }
      tl_ts_children_end(&ns);
    }
  }
  tl_ts_children_end(&ps);
}

/* What one chunk's walk gathers (visit_node). */
typedef struct fx_walk {
  fx_syms y;
  tl_str text;
  name_store *names;
  bool with_params;
  capture_vec caps;
  TSNode fwd_params[2], fwd_body[2];
  bool have[2];
  node_vec nested;   /* forward bodies of the subgraph classes in have[0]'s */
  subgraph_vec subs; /* and those subgraphs (nested_forwards) */
} fx_walk;

/* The nodes of a chunk's tree that can hold the forward, in text order:
 * the module's forwards, the parameters and the blocks' assignments (a
 * walk, not a query: compiling the query it replaced cost 5 to 10 ms a
 * run). */
static bool visit_node(TSNode n, void *ctx) {
  fx_walk *w = ctx;
  TSSymbol sym = ts_node_symbol(n);
  if (sym == w->y.module) {
    if (!w->have[0] && !w->have[1])
      find_forwards(n, w->text, &w->y, w->names, w->fwd_params, w->fwd_body,
                    w->have, &w->nested, &w->subs);
  } else if (sym == w->y.parameters) {
    if (w->with_params)
      parameter_captures(n, &w->y, &w->caps);
  } else if (sym == w->y.block) {
    /* A forward's body of statements alone is gone through once. */
    return block_captures(n, &w->y, w->text, &w->caps);
  }
  /* Only the forward's parameters and body block are kept (collect), and
   * they sit in a function_definition in the module or in a top-level
   * class's block: the walk never goes into statements or expressions. */
  return sym == w->y.module || sym == w->y.class_definition ||
         sym == w->y.function_definition;
}

/* Adds the definitions under one chunk's forward to `defs`; the parameters
 * only when `with_params` (later chunks repeat the `def forward(...)` line
 * as their header), and not the body's for a slice of the parameters or a
 * subgraph class (whose chunks repeat the body's first statement). */
static void collect_tree(def_vec *defs, subgraph_vec *subs, name_store *names,
                         const fx_syms *y, TSTree *tree, tl_str text,
                         bool with_params, bool params_only,
                         bool classes_only) {
  fx_walk w;
  memset(&w, 0, sizeof w);
  w.y = *y;
  w.text = text;
  w.names = names;
  w.with_params = with_params;
  tl_ts_walk(ts_tree_root_node(tree), visit_node, &w);
  int chosen = w.have[0] ? 0 : w.have[1] ? 1 : -1;
  node_vec none = {0};
  tl_sort(w.nested.items, w.nested.count, sizeof *w.nested.items, by_start);
  if (chosen >= 0)
    collect(defs, text, y, w.caps.items, w.caps.count, w.fwd_params[chosen],
            params_only || classes_only ? (TSNode){{0}, 0, 0}
                                        : w.fwd_body[chosen],
            chosen == 0 && !params_only ? &w.nested : &none);
  if (chosen == 0 && !params_only)
    for (size_t i = 0; i < w.subs.count; i++)
      TL_VEC_PUSH(*subs, w.subs.items[i]);
  TL_VEC_FREE(w.caps);
  TL_VEC_FREE(w.nested);
  TL_VEC_FREE(w.subs);
}

static int subgraph_cmp(const void *a, const void *b) {
  uint32_t x = ((const tl_fx_subgraph *)a)->graph;
  uint32_t y = ((const tl_fx_subgraph *)b)->graph;
  return (x > y) - (x < y);
}

void tl_fx_analyze(tl_arena *arena, tl_str text, tl_fx_graph *out) {
  memset(out, 0, sizeof *out);
  if (!text.ptr || text.len == 0 || text.len > UINT32_MAX)
    return;
  offset_vec patches = {0};
  lambda_patches(text, &patches);
  char *underscores = tl_xmalloc(patches.count + 1);
  memset(underscores, '_', patches.count);
  tl_ts_stats_parsed(text.len);
  /* A large forward is parsed a slice of body statements at a time, each
   * under the class and `def forward` header lines (see ts_query.h). */
  tl_ts_cuts cuts = {0};
  tl_ts_forward fwd = {0, 0, 0, 0};
  if (text.len > tl_ts_chunk_limit &&
      !tl_ts_python_forward_cuts(text, &cuts, &fwd))
    cuts.count = 0;
  tl_ts_chunker ch;
  tl_ts_chunker_begin_nested(&ch, tree_sitter_python(), text, cuts, fwd);
  tl_ts_chunker_patch(&ch, patches.items, underscores, patches.count);
  fx_syms y = fx_syms_get();
  def_vec defs = {0};
  subgraph_vec subs = {0};
  name_store names = {arena, tl_subgraph_budget(text.len)};
  bool restart, first = true;
  for (TSTree *tree; (tree = tl_ts_chunker_next(&ch, &restart));) {
    if (restart) {
      defs.count = subs.count = 0;
      names.budget = tl_subgraph_budget(text.len);
      first = true;
    }
    collect_tree(&defs, &subs, &names, &y, tree, text,
                 (first || ch.params_chunk) && !ch.class_chunk, ch.params_chunk,
                 ch.class_chunk);
    first = false;
    ts_tree_delete(tree);
  }
  tl_ts_chunker_end(&ch);
  TL_VEC_FREE(patches);
  free(underscores);

  /* The names, copied in text order before they are sorted: a sort over
   * names in the text reads it everywhere again (a mapped text would be
   * resident whole, mapped_text.h). */
  size_t next_passed = 0;
  for (size_t i = 0; i < defs.count; i++) {
    size_t at = (size_t)(defs.items[i].name.ptr - text.ptr);
    if (defs.items[i].name.ptr >= text.ptr && at < text.len)
      tl_text_passing(text.ptr, at, &next_passed);
    defs.items[i].name = tl_arena_str(arena, defs.items[i].name);
  }
  if (defs.count) {
    tl_sort(defs.items, defs.count, sizeof *defs.items, def_cmp);
    out->nodes = tl_arena_alloc(arena, defs.count * sizeof *out->nodes);
    for (size_t i = 0; i < defs.count; i++) {
      if (i && tl_str_eq(defs.items[i - 1].name, defs.items[i].name) &&
          defs.items[i - 1].graph == defs.items[i].graph)
        continue; /* a later definition of the same name in its graph */
      out->nodes[out->node_count++] = (tl_fx_node){
          defs.items[i].name, defs.items[i].line, defs.items[i].graph};
    }
  }
  TL_VEC_FREE(defs);
  /* Every chunk with the forward sees the same classes (a class chunk its
   * own, the whole text all): one each, by where it starts. */
  size_t kept =
      tl_sort_unique(subs.items, subs.count, sizeof *subs.items, subgraph_cmp);
  if (kept) {
    out->subgraphs = tl_arena_alloc(arena, kept * sizeof *out->subgraphs);
    memcpy(out->subgraphs, subs.items, kept * sizeof *out->subgraphs);
    out->subgraph_count = kept;
  }
  TL_VEC_FREE(subs);
}

const tl_fx_subgraph *tl_fx_subgraph_of(const tl_fx_graph *graph, uint32_t id) {
  if (!graph || !graph->subgraph_count || id == 0)
    return NULL;
  tl_fx_subgraph key = {id, 0, {"", 0}};
  return bsearch(&key, graph->subgraphs, graph->subgraph_count,
                 sizeof *graph->subgraphs, subgraph_cmp);
}

static int node_key_cmp(const void *key, const void *elem) {
  return tl_str_cmp(*(const tl_str *)key, ((const tl_fx_node *)elem)->name);
}

const tl_fx_node *tl_fx_definitions(const tl_fx_graph *graph, tl_str name,
                                    size_t *count) {
  *count = 0;
  if (!graph || !graph->node_count)
    return NULL;
  size_t lo = 0, hi = graph->node_count;
  while (lo < hi) { /* the first node not before `name` */
    size_t mid = lo + (hi - lo) / 2;
    if (node_key_cmp(&name, &graph->nodes[mid]) > 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t end = lo, top = graph->node_count; /* the first node after it */
  while (end < top) {
    size_t mid = end + (top - end) / 2;
    if (node_key_cmp(&name, &graph->nodes[mid]) >= 0)
      end = mid + 1;
    else
      top = mid;
  }
  *count = end - lo;
  return *count ? &graph->nodes[lo] : NULL;
}

int tl_fx_lookup(const tl_fx_graph *graph, tl_str name) {
  size_t count;
  const tl_fx_node *first = tl_fx_definitions(graph, name, &count);
  return first ? first->line : 0;
}
