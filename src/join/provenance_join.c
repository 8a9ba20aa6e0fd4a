/* provenance_join.c: the joins of one view. Pairs the lines of the two FX
 * graphs, the code and the kernel code through the node mappings' sections,
 * each name resolved to the definition its mapping entry means (a name that
 * several graphs define is told apart by the entry's other names), and
 * finds each kernel's call lines, definition and kind. Fills the view of
 * provenance_internal.h; provenance.c prints it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "join/provenance_internal.h"

static uint64_t hash_str(tl_str s) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < s.len; i++)
    h = (h ^ (unsigned char)s.ptr[i]) * 1099511628211ull;
  return h;
}

static void table_grow(kernel_table *t) {
  size_t cap = t->cap ? t->cap * 2 : 64;
  size_t *slots = tl_xcalloc(cap, sizeof *slots);
  for (size_t i = 0; i < t->items.count; i++) {
    size_t h = hash_str(t->items.items[i].key) & (cap - 1);
    while (slots[h])
      h = (h + 1) & (cap - 1);
    slots[h] = i + 1;
  }
  free(t->slots);
  t->slots = slots;
  t->cap = cap;
}

/* The kernel of `key`, created (with its name and handle split at the last
 * ':') when `create`; NULL when absent and not created. */
static kernel *table_get(kernel_table *t, tl_str key, bool create) {
  if (t->cap) {
    size_t h = hash_str(key) & (t->cap - 1);
    while (t->slots[h]) {
      kernel *k = &t->items.items[t->slots[h] - 1];
      if (tl_str_eq(k->key, key))
        return k;
      h = (h + 1) & (t->cap - 1);
    }
  }
  if (!create)
    return NULL;
  if (2 * (t->items.count + 1) > t->cap)
    table_grow(t);
  kernel k;
  memset(&k, 0, sizeof k);
  k.key = key;
  k.name = key;
  k.handle = -1;
  size_t i = key.len;
  while (i > 0 && key.ptr[i - 1] >= '0' && key.ptr[i - 1] <= '9')
    i--;
  if (i < key.len && i > 1 && key.ptr[i - 1] == ':' && key.len - i < 18) {
    k.name = (tl_str){key.ptr, i - 1};
    k.handle = strtoll(key.ptr + i, NULL, 10);
  }
  TL_VEC_PUSH(t->items, k);
  size_t h = hash_str(key) & (t->cap - 1);
  while (t->slots[h])
    h = (h + 1) & (t->cap - 1);
  t->slots[h] = t->items.count;
  return &t->items.items[t->items.count - 1];
}

static int int_cmp(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return x < y ? -1 : x > y;
}

static int named_cmp(const void *a, const void *b) {
  return tl_str_cmp(((const named_line *)a)->name,
                    ((const named_line *)b)->name);
}

/* Sorts by name and drops repeated names (keeping one). */
void tl_pj_unique_names(name_vec *v) {
  v->count = tl_sort_unique(v->items, v->count, sizeof *v->items, named_cmp);
}

static calls_by index_calls(tl_arena *a, const tl_code_analysis *c,
                            bool by_handle) {
  calls_by out = {tl_arena_alloc(a, (c->call_count + 1) * sizeof(named_line)),
                  0};
  for (size_t i = 0; i < c->call_count; i++) {
    tl_str k = by_handle ? c->calls[i].handle_key : c->calls[i].name;
    if (k.len)
      out.items[out.count++] = (named_line){
          k, c->calls[i].line, c->calls[i].kind, c->calls[i].scope};
  }
  tl_sort(out.items, out.count, sizeof *out.items, named_cmp);
  return out;
}

/* A name is defined once in each graph of a panel: the outer forward and
 * the subgraph classes nested in it (tl_fx_definitions). The mapping names
 * a node by its name alone, so when several graphs define it, the other
 * names of the same mapping entry tell which is meant: the context is the
 * set of graphs of the entry's names that one graph alone defines, sorted.
 * An entry whose names span more graphs than MAX_CONTEXT tells nothing
 * (an empty context), and a name that would link more definitions than
 * MAX_LINKED links its first (the outer graph's when it has one): both keep
 * the joins linear in the mapping, whatever the graphs hold. */
enum { MAX_CONTEXT = 64, MAX_LINKED = 8 };

static int graph_cmp(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static bool has_graph(const graph_vec *graphs, uint32_t graph) {
  return graphs->count && bsearch(&graph, graphs->items, graphs->count,
                                  sizeof graph, graph_cmp) != NULL;
}

static void context_of(const tl_fx_graph *g, const cJSON *names,
                       graph_vec *graphs) {
  graphs->count = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, names) {
    if (!cJSON_IsString(item) || !item->valuestring)
      continue;
    size_t count;
    const tl_fx_node *d =
        tl_fx_definitions(g, tl_str_from(item->valuestring), &count);
    if (count == 1)
      TL_VEC_PUSH(*graphs, d->graph);
  }
  size_t kept = tl_sort_unique(graphs->items, graphs->count,
                               sizeof *graphs->items, graph_cmp);
  graphs->count = kept <= MAX_CONTEXT ? kept : 0;
}

/* Records that the mapping names node `name` of one graph; returns its
 * definitions, `*count` of them (NULL and 0 when the graph has none). The
 * name is copied: the mapping's tree is freed before the view's JSON is
 * built. */
static const tl_fx_node *node_defs(view *v, bool pre, tl_str name,
                                   size_t *count) {
  const tl_fx_node *defs =
      tl_fx_definitions(pre ? &v->pre : &v->post, name, count);
  named_line n = {tl_arena_str(&v->arena, name),
                  defs ? defs->line : 0,
                  TL_KERNEL_UNKNOWN,
                  {NULL, 0}};
  name_vec *names = pre ? &v->pre_names : &v->post_names;
  TL_VEC_PUSH(*names, n);
  return defs;
}

/* Sets `lines` to those of the definitions meant: the only one; else, with
 * a context, those in the context's subgraphs, or else the outer graph's
 * when the context holds it; else every one; the first alone past
 * MAX_LINKED. `defs` are sorted by graph, the outer one (0) first. */
static void meant_lines(const tl_fx_node *defs, size_t count,
                        const graph_vec *context, int_vec *lines) {
  lines->count = 0;
  if (count > 1 && context && context->count) {
    if (count <= context->count) {
      for (size_t i = 0; i < count; i++)
        if (defs[i].graph != 0 && has_graph(context, defs[i].graph))
          TL_VEC_PUSH(*lines, defs[i].line);
    } else {
      for (size_t k = 0; k < context->count; k++) {
        uint32_t g = context->items[k];
        size_t lo = 0, hi = count; /* defs[lo]: the first of graph >= g */
        while (lo < hi) {
          size_t mid = lo + (hi - lo) / 2;
          if (defs[mid].graph < g)
            lo = mid + 1;
          else
            hi = mid;
        }
        if (g != 0 && lo < count && defs[lo].graph == g)
          TL_VEC_PUSH(*lines, defs[lo].line);
      }
    }
    if (!lines->count && defs[0].graph == 0 && has_graph(context, 0))
      TL_VEC_PUSH(*lines, defs[0].line);
  }
  if (!lines->count)
    for (size_t i = 0; i < count && i <= MAX_LINKED; i++)
      TL_VEC_PUSH(*lines, defs[i].line);
  if (lines->count > MAX_LINKED)
    lines->count = 1;
}

static tl_str json_str(const cJSON *j) {
  return cJSON_IsString(j) && j->valuestring ? tl_str_from(j->valuestring)
                                             : (tl_str){"", 0};
}

/* ---- the code of subgraphs ---------------------------------------------
 * Inductor's Python wrapper lifts each subgraph into a function of the code
 * named after it (`def true_graph_0(args):`, `def repeated_subgraph0`; a
 * nested one's name joins its parents', tl_fx_subgraph.name) and calls the
 * subgraph's kernels there, the outer graph's elsewhere (`call`, a
 * partition's function); the C++ wrappers (AOT, cpp_wrapper) inline it in
 * a block that opens with `// subgraph: true_graph_0`. Either is a call's
 * scope (tl_call_site.scope). So when the code has a scope named after a
 * post-grad subgraph, the scope a kernel is called in tells which graph's
 * nodes its mapping names (called_lines); code without one (no subgraph,
 * or older code) tells nothing. */
static const uint32_t NOT_LIFTED = UINT32_MAX;

static int lifted_cmp(const void *a, const void *b) {
  const tl_fx_subgraph *x = *(const tl_fx_subgraph *const *)a;
  const tl_fx_subgraph *y = *(const tl_fx_subgraph *const *)b;
  int c = tl_str_cmp(x->name, y->name);
  return c ? c : (x->graph > y->graph) - (x->graph < y->graph);
}

static int scope_cmp(const void *key, const void *elem) {
  return tl_str_cmp(*(const tl_str *)key, *(const tl_str *)elem);
}

static void index_lifted(view *v) {
  size_t n = v->post.subgraph_count;
  const tl_fx_subgraph **lifted =
      tl_arena_alloc(&v->arena, (n + 1) * sizeof *lifted);
  size_t count = 0;
  for (size_t i = 0; i < n; i++) {
    const tl_fx_subgraph *s = &v->post.subgraphs[i];
    if (s->name.len && v->code.scope_count &&
        bsearch(&s->name, v->code.scopes, v->code.scope_count,
                sizeof *v->code.scopes, scope_cmp))
      lifted[count++] = s;
  }
  tl_sort(lifted, count, sizeof *lifted, lifted_cmp);
  v->lifted = lifted;
  v->lifted_count = count;
}

/* The post-grad graph whose kernels a scope of the code calls: the
 * subgraph named after it, else the outer graph (0); NOT_LIFTED when no
 * scope of the code is named after a subgraph. (Two subgraph classes of one
 * qualified name, `a` in `b` and `b_a` beside it, cannot both have their
 * own scope: the first in the text is taken.) */
static uint32_t call_graph(const view *v, tl_str scope) {
  if (!v->lifted_count)
    return NOT_LIFTED;
  size_t lo = 0, hi = v->lifted_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (tl_str_cmp(v->lifted[mid]->name, scope) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < v->lifted_count && tl_str_eq(v->lifted[lo]->name, scope)
             ? v->lifted[lo]->graph
             : 0;
}

/* Appends the lines of every entry named `name` to `k->calls`, and the
 * graphs of their scopes to `k->call_graphs` (sorted, one each; none past
 * MAX_CONTEXT). */
static void lines_of(const view *v, const calls_by *idx, tl_str name,
                     kernel *k) {
  size_t lo = 0, hi = idx->count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (tl_str_cmp(idx->items[mid].name, name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (; lo < idx->count && tl_str_eq(idx->items[lo].name, name); lo++) {
    TL_VEC_PUSH(k->calls, idx->items[lo].line);
    uint32_t g = call_graph(v, idx->items[lo].scope);
    if (g != NOT_LIFTED)
      TL_VEC_PUSH(k->call_graphs, g);
  }
  graph_vec *gs = &k->call_graphs;
  size_t kept =
      tl_sort_unique(gs->items, gs->count, sizeof *gs->items, graph_cmp);
  gs->count = kept <= MAX_CONTEXT ? kept : 0;
}

/* The definition of graph `graph` among `defs` (sorted by graph), or NULL. */
static const tl_fx_node *definition_in(const tl_fx_node *defs, size_t count,
                                       uint32_t graph) {
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (defs[mid].graph < graph)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < count && defs[lo].graph == graph ? &defs[lo] : NULL;
}

/* A subgraph's kernel is also mapped to the nodes that run it in the graphs
 * around (the `cond` and `gt` of the graph that holds the branch): a name
 * the graph does not define is read in the graph it is nested in, and so
 * on outwards. At most MAX_NESTING graphs are looked at for one name, over
 * all the kernel's call graphs, and a name that would link more than
 * MAX_LINKED definitions links its first, as by the names (meant_lines):
 * the join stays linear in the mapping whatever the graphs hold. */
enum { MAX_NESTING = 64 };

/* Sets `lines` to the definitions of a name (`defs`, `count` > 1) that a
 * kernel called in `call_graphs` means: in each of those graphs, the
 * nearest one outwards that defines it (see above); false, with no lines,
 * when none does. */
static bool called_lines(const tl_fx_graph *post, const tl_fx_node *defs,
                         size_t count, const graph_vec *call_graphs,
                         int_vec *lines) {
  lines->count = 0;
  size_t looked = 0;
  for (size_t i = 0; i < call_graphs->count; i++) {
    uint32_t graph = call_graphs->items[i];
    while (looked++ < MAX_NESTING) {
      const tl_fx_node *d = definition_in(defs, count, graph);
      if (d) {
        TL_VEC_PUSH(*lines, d->line);
        break;
      }
      const tl_fx_subgraph *sub = tl_fx_subgraph_of(post, graph);
      if (!sub)
        break;
      graph = sub->parent;
    }
  }
  size_t kept =
      tl_sort_unique(lines->items, lines->count, sizeof *lines->items, int_cmp);
  lines->count = kept <= MAX_LINKED ? kept : 1;
  return kept > 0;
}

/* The post-grad lines a kernel's name means: by the scopes it is called
 * in (called_lines), else by the other names of its mapping entry
 * (meant_lines). */
static void kernel_lines(const view *v, const kernel *k, const tl_fx_node *defs,
                         size_t count, int_vec *lines) {
  if (count > 1 && k->call_graphs.count &&
      called_lines(&v->post, defs, count, &k->call_graphs, lines))
    return;
  meant_lines(defs, count, k->has_context ? &k->context : NULL, lines);
}

/* A kernel seen in the mapping: resolves its call lines once. */
kernel *tl_pj_kernel_of(view *v, tl_str key) {
  kernel *k = table_get(&v->kernels, key, false);
  if (k)
    return k;
  /* A copy of the key: the mapping's tree goes before the JSON is built. */
  k = table_get(&v->kernels, tl_arena_str(&v->arena, key), true);
  if (v->v2 && k->handle >= 0)
    lines_of(v, &v->by_handle, k->key, k);
  else
    lines_of(v, &v->by_name, k->name, k);
  if (k->calls.count)
    tl_sort(k->calls.items, k->calls.count, sizeof(int), int_cmp);
  return k;
}

static int def_ptr_cmp(const void *a, const void *b) {
  const tl_kernel_def *x = *(const tl_kernel_def *const *)a;
  const tl_kernel_def *y = *(const tl_kernel_def *const *)b;
  int c = tl_str_cmp(x->name, y->name);
  if (c)
    return c;
  if (x->file != y->file) /* a body in the kernel code wins */
    return x->file == TL_CODE_KERNELS ? -1 : 1;
  return x < y ? -1 : x > y; /* then text order */
}

static void index_defs(view *v) {
  v->defs =
      tl_arena_alloc(&v->arena, (v->code.def_count + 1) * sizeof *v->defs);
  for (size_t i = 0; i < v->code.def_count; i++)
    v->defs[i] = &v->code.defs[i];
  tl_sort(v->defs, v->code.def_count, sizeof *v->defs, def_ptr_cmp);
}

/* The kernel's definition: its body in the kernel code, else the first
 * definition in the code; NULL when none. */
static const tl_kernel_def *definition_of(const view *v, tl_str name) {
  size_t lo = 0, hi = v->code.def_count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (tl_str_cmp(v->defs[mid]->name, name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < v->code.def_count && tl_str_eq(v->defs[lo]->name, name)
             ? v->defs[lo]
             : NULL;
}

const char *tl_pj_json_type_name(const cJSON *j) {
  if (cJSON_IsString(j))
    return "a string";
  if (cJSON_IsNumber(j))
    return "a number";
  if (cJSON_IsBool(j))
    return "a boolean";
  if (cJSON_IsNull(j))
    return "null";
  if (cJSON_IsObject(j))
    return "an object";
  return "a list";
}

/* Records a mapping entry of the wrong type, which the join skips:
 * {"section": "preToPost", "key": "relu", "problem": "..."}. */
static void malformed(view *v, const char *section, const char *key,
                      const char *problem, const cJSON *value) {
  tl_pj_malformed_type(v, section, key, problem, tl_pj_json_type_name(value));
}

void tl_pj_malformed_type(view *v, const char *section, const char *key,
                          const char *problem, const char *type) {
  if (!v->malformed)
    v->malformed = cJSON_CreateArray();
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "section", section);
  cJSON_AddStringToObject(o, "key", key ? key : "");
  char text[96];
  snprintf(text, sizeof text, problem, type);
  cJSON_AddStringToObject(o, "problem", text);
  cJSON_AddItemToArray(v->malformed, o);
}

/* Whether a mapping entry is a list of names; reports it when not. */
static bool is_name_list(view *v, const char *section, const cJSON *entry) {
  if (!cJSON_IsArray(entry)) {
    malformed(v, section, entry->string, "%s, not a list of names", entry);
    return false;
  }
  const cJSON *item;
  cJSON_ArrayForEach(item, entry) {
    if (!cJSON_IsString(item))
      malformed(v, section, entry->string, "a list holding %s, not a name",
                item);
  }
  return true;
}

/* pre <-> post: `map` is {"node": ["node", ...]}; from_pre tells the side.
 * The key has no context in its own graph: every definition of it links. */
void tl_pj_join_graphs(view *v, const cJSON *map, bool from_pre) {
  const char *section = from_pre ? "preToPost" : "postToPre";
  const cJSON *entry;
  cJSON_ArrayForEach(entry, map) {
    if (!is_name_list(v, section, entry))
      continue;
    size_t count;
    const tl_fx_node *defs =
        node_defs(v, from_pre, tl_str_from(entry->string), &count);
    meant_lines(defs, count, NULL, &v->lines_a);
    context_of(from_pre ? &v->post : &v->pre, entry, &v->context);
    const cJSON *to;
    cJSON_ArrayForEach(to, entry) {
      if (!cJSON_IsString(to))
        continue;
      defs = node_defs(v, !from_pre, json_str(to), &count);
      meant_lines(defs, count, &v->context, &v->lines_b);
      pair_vec *pairs = from_pre ? &v->pre_to_post : &v->post_to_pre;
      for (size_t i = 0; i < v->lines_a.count; i++)
        for (size_t j = 0; j < v->lines_b.count; j++)
          TL_VEC_PUSH(*pairs,
                      ((pair){v->lines_a.items[i], v->lines_b.items[j]}));
    }
  }
}

static void add_kernel_pairs(view *v, kernel *k, int post, bool to_post) {
  if (!post)
    return;
  pair_vec *code = to_post ? &v->code_to_post : &v->post_to_code;
  for (size_t i = 0; i < k->calls.count; i++) {
    pair p = to_post ? (pair){k->calls.items[i], post}
                     : (pair){post, k->calls.items[i]};
    TL_VEC_PUSH(*code, p);
  }
  const tl_kernel_def *d = definition_of(v, k->name);
  pair_vec *kern = to_post ? &v->kernel_to_post : &v->post_to_kernel;
  if (d && d->file == TL_CODE_KERNELS) {
    pair p = to_post ? (pair){d->first, post} : (pair){post, d->first};
    TL_VEC_PUSH(*kern, p);
  }
}

/* code -> post: `code_to_post` is {"kernel key": ["node", ...]}. The
 * kernel's names are its context (kernel.context). */
void tl_pj_join_code_to_post(view *v, const cJSON *code_to_post) {
  const cJSON *entry, *item;
  cJSON_ArrayForEach(entry, code_to_post) {
    if (!is_name_list(v, "cppCodeToPost", entry))
      continue;
    kernel *k = tl_pj_kernel_of(v, tl_str_from(entry->string));
    if (!k->has_context) { /* a repeated key keeps its first context */
      context_of(&v->post, entry, &k->context);
      k->has_context = true;
    }
    cJSON_ArrayForEach(item, entry) {
      if (!cJSON_IsString(item))
        continue;
      size_t count;
      const tl_fx_node *defs = node_defs(v, false, json_str(item), &count);
      kernel_lines(v, k, defs, count, &v->lines_a);
      tl_str post = v->post_names.items[v->post_names.count - 1].name;
      TL_VEC_PUSH(k->posts,
                  ((named_line){post, 0, TL_KERNEL_UNKNOWN, {NULL, 0}}));
      for (size_t i = 0; i < v->lines_a.count; i++)
        add_kernel_pairs(v, k, v->lines_a.items[i], true);
    }
  }
}

/* post -> code: `post_to_code` is {"node": ["kernel key", ...]}. For each
 * kernel, the definition its own names point to (its context). */
void tl_pj_join_post_to_code(view *v, const cJSON *post_to_code) {
  const cJSON *entry, *item;
  cJSON_ArrayForEach(entry, post_to_code) {
    if (!is_name_list(v, "postToCppCode", entry))
      continue;
    size_t count;
    const tl_fx_node *defs =
        node_defs(v, false, tl_str_from(entry->string), &count);
    tl_str post = v->post_names.items[v->post_names.count - 1].name;
    cJSON_ArrayForEach(item, entry) {
      if (!cJSON_IsString(item))
        continue;
      kernel *k = tl_pj_kernel_of(v, json_str(item));
      TL_VEC_PUSH(k->posts,
                  ((named_line){post, 0, TL_KERNEL_UNKNOWN, {NULL, 0}}));
      kernel_lines(v, k, defs, count, &v->lines_a);
      for (size_t i = 0; i < v->lines_a.count; i++)
        add_kernel_pairs(v, k, v->lines_a.items[i], false);
    }
  }
}

/* ---- JSON output ------------------------------------------------------ */

static tl_kernel_kind kind_by_name(tl_str n) {
  if (tl_str_starts_with(n, "extern_kernels."))
    return TL_KERNEL_EXTERN;
  if (tl_str_starts_with(n, "torch.ops."))
    return TL_KERNEL_FALLBACK;
  if (tl_str_starts_with(n, "aoti_torch_"))
    return TL_KERNEL_SHIM;
  if (tl_str_starts_with(n, "triton_tem_"))
    return TL_KERNEL_TEMPLATE;
  if (tl_str_starts_with(n, "triton_"))
    return TL_KERNEL_TRITON;
  if (tl_str_starts_with(n, "cpp_"))
    return TL_KERNEL_CPP;
  return TL_KERNEL_UNKNOWN;
}

static tl_kernel_kind kind_of(const view *v, const kernel *k) {
  const tl_kernel_def *d = definition_of(v, k->name);
  if (d)
    return d->kind;
  const calls_by *idx = &v->by_name;
  size_t lo = 0, hi = idx->count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (tl_str_cmp(idx->items[mid].name, k->name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < idx->count && tl_str_eq(idx->items[lo].name, k->name))
    return idx->items[lo].kind;
  return kind_by_name(k->name);
}

/* Each kernel's definition and kind, once every kernel is known. */
void tl_pj_resolve_kernels(view *v) {
  for (size_t i = 0; i < v->kernels.items.count; i++) {
    kernel *k = &v->kernels.items.items[i];
    k->def = definition_of(v, k->name);
    k->kind = kind_of(v, k);
  }
}

void tl_pj_index(view *v) {
  v->by_name = index_calls(&v->arena, &v->code, false);
  v->by_handle = index_calls(&v->arena, &v->code, true);
  index_defs(v);
  index_lifted(v);
}
