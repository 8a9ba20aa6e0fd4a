/* provenance.c: the join stage. Runs the analyses of one view and joins them
 * through the node mappings into the provenance JSON (docs/provenance-json.md).
 *
 *   {"preToPost": {"x": ["permute", ...]}, "cppCodeToPost":
 *    {"triton_poi_fused_mul_1:2": ["mul"]}, ..., "version": 2.0}
 * Mapping v1 keys are bare kernel names (every call site of the kernel);
 * v2.0 keys are `name:handle` (exactly the call bound to that handle). Line
 * maps are set unions, sorted. Everything lives in one arena per call; the
 * JSON is printed a section at a time into the caller's buffer.
 */
#include <pthread.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "join/provenance.h"
#include "util/mapped_text.h"
#include "json/json_members.h"
#include "json/json_print.h"

/* ---- small collections ------------------------------------------------ */

typedef struct pair {
  int from, to;
} pair;
typedef TL_VEC(pair) pair_vec;

typedef struct named_line {
  tl_str name;
  int line;
  tl_kernel_kind kind; /* call indexes only: */
  tl_str scope;        /* the call's (tl_call_site.scope) */
} named_line;
typedef TL_VEC(named_line) name_vec;

typedef TL_VEC(int) int_vec;
typedef TL_VEC(uint32_t) graph_vec; /* tl_fx_node.graph values */

typedef struct kernel {
  tl_str key, name;
  long long handle; /* -1: none */
  name_vec posts;   /* post node names (line unused) */
  TL_VEC(int) calls;
  /* The post-grad graphs of its cppCodeToPost names (context_of): which
   * definition of a name that several graphs define it means. */
  graph_vec context;
  bool has_context;
  /* The post-grad graphs of its calls' scopes, when the code names its
   * scopes after subgraphs (call_graph); else empty. */
  graph_vec call_graphs;
  /* Resolved once the joins are done (resolve_kernels). */
  const tl_kernel_def *def;
  tl_kernel_kind kind;
} kernel;

/* Key -> kernel index, open addressing; grows at half load. */
typedef struct kernel_table {
  TL_VEC(kernel) items;
  size_t *slots; /* index + 1; 0 = empty */
  size_t cap;
} kernel_table;

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

static int pair_cmp(const void *a, const void *b) {
  const pair *x = a, *y = b;
  if (x->from != y->from)
    return x->from < y->from ? -1 : 1;
  return x->to < y->to ? -1 : x->to > y->to;
}

static int int_cmp(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return x < y ? -1 : x > y;
}

static int named_cmp(const void *a, const void *b) {
  return tl_str_cmp(((const named_line *)a)->name,
                    ((const named_line *)b)->name);
}

/* A NUL-terminated copy of `s` (cJSON takes C strings); the caller frees
 * it. */
static char *c_string(tl_str s) {
  char *copy = tl_xmalloc(s.len + 1);
  memcpy(copy, s.ptr, s.len);
  copy[s.len] = '\0';
  return copy;
}

static cJSON *str_json(tl_str s) {
  char *tmp = c_string(s);
  cJSON *j = cJSON_CreateString(tmp);
  free(tmp);
  return j;
}

static void add_str(cJSON *obj, const char *key, tl_str s) {
  cJSON_AddItemToObject(obj, key, str_json(s));
}

/* {"from": [to, ...]} from pairs: sorted, duplicates dropped; frees them. */
static cJSON *line_map_json(pair_vec *v) {
  cJSON *obj = cJSON_CreateObject();
  if (v->count)
    tl_sort(v->items, v->count, sizeof *v->items, pair_cmp);
  cJSON *arr = NULL;
  for (size_t i = 0; i < v->count; i++) {
    pair p = v->items[i];
    if (i && p.from == v->items[i - 1].from && p.to == v->items[i - 1].to)
      continue;
    if (!i || p.from != v->items[i - 1].from) {
      char key[24];
      snprintf(key, sizeof key, "%d", p.from);
      arr = cJSON_AddArrayToObject(obj, key);
    }
    cJSON_AddItemToArray(arr, cJSON_CreateNumber(p.to));
  }
  TL_VEC_FREE(*v); /* read once: gone before the next map is built */
  return obj;
}

/* Sorts by name and drops repeated names (keeping one). */
static void unique_names(name_vec *v) {
  v->count = tl_sort_unique(v->items, v->count, sizeof *v->items, named_cmp);
}

/* ---- the view --------------------------------------------------------- */

typedef struct calls_by {
  named_line *items; /* sorted by name */
  size_t count;
} calls_by;

typedef struct view {
  tl_arena arena;
  tl_arena graph_arena; /* the FX graphs' results (filled by another thread) */
  tl_fx_graph pre, post;
  tl_code_analysis code;
  calls_by by_name, by_handle;
  const tl_kernel_def **defs; /* sorted by name, kernel-code bodies first */
  bool v2;
  name_vec pre_names, post_names; /* every name the mapping mentions */
  kernel_table kernels;
  pair_vec pre_to_post, post_to_pre, code_to_post, post_to_code;
  pair_vec kernel_to_post, post_to_kernel;
  cJSON *malformed; /* mapping entries of the wrong type, skipped */
  /* "node_definitions" pre and post, built while the graphs' tables are
   * here (definitions_json) */
  cJSON *definitions[2];
  graph_vec context; /* scratch of the joins */
  int_vec lines_a, lines_b;
  /* The post-grad subgraphs that the code has a scope of, sorted by name
   * (index_lifted). */
  const tl_fx_subgraph **lifted;
  size_t lifted_count;
} view;

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
static kernel *kernel_of(view *v, tl_str key) {
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

static const char *json_type_name(const cJSON *j) {
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
static void malformed_type(view *v, const char *section, const char *key,
                           const char *problem, const char *type);
static void malformed(view *v, const char *section, const char *key,
                      const char *problem, const cJSON *value) {
  malformed_type(v, section, key, problem, json_type_name(value));
}

static void malformed_type(view *v, const char *section, const char *key,
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
static void join_graphs(view *v, const cJSON *map, bool from_pre) {
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
static void join_code_to_post(view *v, const cJSON *code_to_post) {
  const cJSON *entry, *item;
  cJSON_ArrayForEach(entry, code_to_post) {
    if (!is_name_list(v, "cppCodeToPost", entry))
      continue;
    kernel *k = kernel_of(v, tl_str_from(entry->string));
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
static void join_post_to_code(view *v, const cJSON *post_to_code) {
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
      kernel *k = kernel_of(v, json_str(item));
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

/* Post names of a kernel, in mapping order, without repeats. */
static int by_name_then_line(const void *a, const void *b) {
  const named_line *x = a, *y = b;
  int c = tl_str_cmp(x->name, y->name);
  return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Post names of a kernel, in mapping order, without repeats: a sorted copy
 * (by name, then position) marks each name's first place. */
static cJSON *posts_json(kernel *k) {
  size_t n = k->posts.count;
  named_line *sorted = tl_xcalloc(n ? n : 1, sizeof *sorted);
  bool *keep = tl_xcalloc(n ? n : 1, sizeof *keep);
  for (size_t i = 0; i < n; i++) {
    sorted[i].name = k->posts.items[i].name;
    sorted[i].line = (int)i; /* the position in the mapping */
  }
  tl_sort(sorted, n, sizeof *sorted, by_name_then_line);
  for (size_t i = 0; i < n; i++)
    if (i == 0 || !tl_str_eq(sorted[i].name, sorted[i - 1].name))
      keep[sorted[i].line] = true;
  cJSON *arr = cJSON_CreateArray();
  for (size_t i = 0; i < n; i++)
    if (keep[i])
      cJSON_AddItemToArray(arr, str_json(k->posts.items[i].name));
  free(sorted);
  free(keep);
  return arr;
}

/* Each kernel's definition and kind, once every kernel is known. */
static void resolve_kernels(view *v) {
  for (size_t i = 0; i < v->kernels.items.count; i++) {
    kernel *k = &v->kernels.items.items[i];
    k->def = definition_of(v, k->name);
    k->kind = kind_of(v, k);
  }
}

static cJSON *kernel_json(kernel *k, const cJSON *traces) {
  cJSON *o = cJSON_CreateObject();
  add_str(o, "key", k->key);
  add_str(o, "name", k->name);
  if (k->handle >= 0)
    cJSON_AddNumberToObject(o, "handle", (double)k->handle);
  else
    cJSON_AddNullToObject(o, "handle");
  cJSON_AddStringToObject(o, "kind", tl_kernel_kind_name(k->kind));
  cJSON *calls = cJSON_AddArrayToObject(o, "calls");
  for (size_t i = 0; i < k->calls.count; i++)
    if (!i || k->calls.items[i] != k->calls.items[i - 1])
      cJSON_AddItemToArray(calls, cJSON_CreateNumber(k->calls.items[i]));
  const tl_kernel_def *d = k->def;
  if (d) {
    cJSON *def = cJSON_AddObjectToObject(o, "definition");
    cJSON_AddStringToObject(def, "file", tl_code_file_name(d->file));
    cJSON_AddNumberToObject(def, "first", d->first);
    cJSON_AddNumberToObject(def, "last", d->last);
  } else {
    cJSON_AddNullToObject(o, "definition");
  }
  cJSON_AddItemToObject(o, "post_nodes", posts_json(k));
  cJSON *st = cJSON_AddArrayToObject(o, "stack_traces");
  char *key = c_string(k->key);
  const cJSON *t = traces ? cJSON_GetObjectItemCaseSensitive(traces, key) : 0;
  free(key);
  const cJSON *s;
  if (cJSON_IsString(t))
    cJSON_AddItemToArray(st, cJSON_CreateString(t->valuestring));
  else if (cJSON_IsArray(t))
    cJSON_ArrayForEach(s, t) if (cJSON_IsString(s))
        cJSON_AddItemToArray(st, cJSON_CreateString(s->valuestring));
  return o;
}

static cJSON *path_json(const char *path) {
  return path ? cJSON_CreateString(path) : cJSON_CreateNull();
}

/* {"name": line} of the resolved names (sorted, unique: unique_names); the
 * unresolved ones, sorted. */
static void names_json(const name_vec *names, cJSON *resolved,
                       cJSON *unresolved) {
  for (size_t i = 0; i < names->count; i++) {
    named_line n = names->items[i];
    char *key = c_string(n.name);
    if (n.line)
      cJSON_AddNumberToObject(resolved, key, n.line);
    else
      cJSON_AddItemToArray(unresolved, cJSON_CreateString(key));
    free(key);
  }
}

/* {"name": [line, ...]} of the names the mapping mentions (sorted, unique:
 * unique_names) that several graphs of `g` define, every definition, the
 * outer graph's first. */
static cJSON *definitions_json(const name_vec *names, const tl_fx_graph *g) {
  cJSON *out = cJSON_CreateObject();
  for (size_t i = 0; i < names->count; i++) {
    size_t count;
    const tl_fx_node *defs = tl_fx_definitions(g, names->items[i].name, &count);
    if (count < 2)
      continue;
    char *key = c_string(names->items[i].name);
    cJSON *lines = cJSON_AddArrayToObject(out, key);
    for (size_t j = 0; j < count; j++)
      cJSON_AddItemToArray(lines, cJSON_CreateNumber(defs[j].line));
    free(key);
  }
  return out;
}

static int kernel_key_cmp(const void *a, const void *b) {
  return tl_str_cmp(*(const tl_str *)a, *(const tl_str *)b);
}

/* The view's sections after its head, each printed as soon as it is built
 * (a huge compile's view as one cJSON tree was several times its text).
 * `malformed` (when not NULL) gets a copy of the "malformed" list. */
static void emit(view *v, tl_json_printer *p, const cJSON *traces,
                 cJSON **malformed) {
  tl_json_print_open(p, "lines", false);
  tl_json_print_item(p, "preToPost", line_map_json(&v->pre_to_post));
  tl_json_print_item(p, "postToPre", line_map_json(&v->post_to_pre));
  tl_json_print_item(p, "codeToPost", line_map_json(&v->code_to_post));
  tl_json_print_item(p, "postToCode", line_map_json(&v->post_to_code));
  tl_json_print_close(p);
  tl_json_print_open(p, "kernel_lines", false);
  tl_json_print_item(p, "kernelToPost", line_map_json(&v->kernel_to_post));
  tl_json_print_item(p, "postToKernel", line_map_json(&v->post_to_kernel));
  tl_json_print_close(p);
  cJSON *unres = cJSON_CreateObject(); /* printed after the kernels */
  cJSON *un_pre = cJSON_AddArrayToObject(unres, "pre_nodes");
  cJSON *un_post = cJSON_AddArrayToObject(unres, "post_nodes");
  cJSON *un_k = cJSON_AddArrayToObject(unres, "kernels");
  tl_json_print_open(p, "nodes", false);
  cJSON *pre = cJSON_CreateObject();
  names_json(&v->pre_names, pre, un_pre);
  tl_json_print_item(p, "pre", pre);
  cJSON *post = cJSON_CreateObject();
  names_json(&v->post_names, post, un_post);
  tl_json_print_item(p, "post", post);
  tl_json_print_close(p);
  tl_json_print_open(p, "node_definitions", false);
  tl_json_print_item(p, "pre", v->definitions[0]);
  tl_json_print_item(p, "post", v->definitions[1]);
  v->definitions[0] = v->definitions[1] = NULL;
  tl_json_print_close(p);
  size_t nk = v->kernels.items.count;
  tl_str *missing = tl_xmalloc((nk + 1) * sizeof *missing);
  size_t nm = 0;
  tl_json_print_open(p, "kernels", true);
  for (size_t i = 0; i < nk; i++) {
    kernel *k = &v->kernels.items.items[i];
    tl_json_print_item(p, NULL, kernel_json(k, traces));
    if (!k->calls.count)
      missing[nm++] = k->key;
  }
  tl_json_print_close(p);
  tl_sort(missing, nm, sizeof *missing, kernel_key_cmp);
  for (size_t i = 0; i < nm; i++)
    cJSON_AddItemToArray(un_k, str_json(missing[i]));
  free(missing);
  tl_json_print_item(p, "unresolved", unres);
  cJSON *list = v->malformed ? v->malformed : cJSON_CreateArray();
  v->malformed = NULL;
  if (malformed)
    *malformed = cJSON_Duplicate(list, true);
  tl_json_print_item(p, "malformed", list);
  tl_json_print_open(p, "embedded", true);
  for (size_t i = 0; i < v->code.embedded_count; i++) {
    const tl_embedded *e = &v->code.embedded[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", tl_code_file_name(e->file));
    cJSON_AddNumberToObject(o, "first", e->first);
    cJSON_AddNumberToObject(o, "last", e->last);
    cJSON_AddStringToObject(o, "language", e->language ? e->language : "");
    tl_json_print_item(p, NULL, o);
  }
  tl_json_print_close(p);
  cJSON *entry = cJSON_CreateNull();
  if (v->code.entry_first) {
    cJSON_Delete(entry);
    entry = cJSON_CreateObject();
    cJSON_AddNumberToObject(entry, "first", v->code.entry_first);
    cJSON_AddNumberToObject(entry, "last", v->code.entry_last);
  }
  tl_json_print_item(p, "entry", entry);
}

/* ---- the node mappings, a section at a time ----------------------------- */

/* The mapping's members the join reads: its four sections and "version". */
enum { PRE_TO_POST, POST_TO_PRE, CODE_TO_POST, POST_TO_CODE, VERSION, MEMBERS };
static const char *const MEMBER_KEYS[MEMBERS] = {
    "preToPost", "postToPre", "cppCodeToPost", "postToCppCode", "version"};

/* The node mappings' text, read member by member (json_members.h): a cJSON
 * tree of the whole is about three times the text (37 MB for the 92 MB
 * compile's), so each section is parsed only when its join runs, and freed
 * after it. Of a repeated key the first member counts, as
 * cJSON_GetObjectItemCaseSensitive finds it. */
typedef struct mapping {
  tl_str text;               /* until the joins are done */
  bool present;              /* the artifact was there */
  bool object;               /* a valid JSON object */
  tl_str at[MEMBERS];        /* each member's value text; ptr NULL: absent */
  const char *type[MEMBERS]; /* its type, for the "not an object" report */
  bool filled[MEMBERS];      /* a section that is an object with members */
  bool v2;                   /* "version" a number >= 2 */
} mapping;

static void note_member(void *ctx, const char *key, tl_str value_text,
                        const cJSON *value) {
  mapping *m = ctx;
  for (int k = 0; k < MEMBERS; k++) {
    if (m->at[k].ptr || strcmp(key, MEMBER_KEYS[k]) != 0)
      continue;
    m->at[k] = value_text;
    m->type[k] = json_type_name(value);
    m->filled[k] = cJSON_IsObject(value) && value->child;
    if (k == VERSION)
      m->v2 = cJSON_IsNumber(value) && value->valuedouble >= 2.0;
  }
  tl_text_passed(value_text.ptr + value_text.len); /* a mapped text's pages */
}

static bool has_content(const mapping *m) {
  return m->filled[PRE_TO_POST] || m->filled[POST_TO_PRE] ||
         m->filled[CODE_TO_POST] || m->filled[POST_TO_CODE];
}

/* A section that is there but not an object is reported, and skipped. */
static void check_section(view *v, const mapping *m, int k) {
  if (m->object && m->at[k].ptr && strcmp(m->type[k], "an object") != 0)
    malformed_type(v, MEMBER_KEYS[k], NULL, "%s, not an object", m->type[k]);
}

/* Section k parsed for its join; NULL when absent or not an object. */
static cJSON *section(const mapping *m, int k) {
  if (!m->object || !m->at[k].ptr || strcmp(m->type[k], "an object") != 0)
    return NULL;
  return tl_json_parse_printed(m->at[k]); /* it parsed once: only memory */
}

/* Text `t` of the view: loaded now when the caller loads them, else the
 * one it gave. */
static tl_str text_of(const tl_prov_inputs *in, tl_prov_text t) {
  if (in->load)
    return in->load(in->texts_ctx, t);
  switch (t) {
  case TL_PROV_PRE:
    return in->pre_graph;
  case TL_PROV_POST:
    return in->post_graph;
  case TL_PROV_CODE:
    return in->code;
  case TL_PROV_KERNEL_CODE:
    return in->kernel_code;
  case TL_PROV_MAPPINGS:
    return in->node_mappings;
  case TL_PROV_STACK_TRACES:
    return in->stack_traces;
  case TL_PROV_TEXTS:
    break;
  }
  return (tl_str){NULL, 0};
}

/* Done with text `t` (loaded by text_of). */
static void done_with(const tl_prov_inputs *in, tl_prov_text t) {
  if (in->load && in->release)
    in->release(in->texts_ctx, t);
}

/* The analyses' results may point into the texts; these copies of what
 * still does let each text go as soon as it is analyzed. */
static tl_str own_name(tl_arena *a, tl_str text, tl_str name) {
  bool in_text = name.ptr && text.ptr && name.ptr >= text.ptr &&
                 name.ptr <= text.ptr + text.len;
  return in_text ? tl_arena_str(a, name) : name;
}

static void own_fx_names(tl_arena *a, tl_fx_graph *g, tl_str text) {
  for (size_t i = 0; i < g->node_count; i++)
    g->nodes[i].name = own_name(a, text, g->nodes[i].name);
}

static void own_code_names(tl_arena *a, tl_code_analysis *c, tl_str text,
                           size_t defs_from, size_t calls_from) {
  for (size_t i = defs_from; i < c->def_count; i++)
    c->defs[i].name = own_name(a, text, c->defs[i].name);
  for (size_t i = calls_from; i < c->call_count; i++) {
    c->calls[i].name = own_name(a, text, c->calls[i].name);
    if (c->calls[i].handle_key.len)
      c->calls[i].handle_key = own_name(a, text, c->calls[i].handle_key);
  }
}

/* Text t parsed as JSON (NULL when absent or not JSON); the text is let
 * go. */
static cJSON *parse_text(const tl_prov_inputs *in, tl_prov_text t) {
  tl_str s = text_of(in, t);
  cJSON *j = s.ptr ? cJSON_ParseWithLength(s.ptr, s.len) : NULL;
  if (s.ptr)
    done_with(in, t);
  return j;
}

/* The two FX graphs, analyzed into their own arena (possibly on another
 * thread while the code is analyzed). */
typedef struct graph_job {
  const tl_prov_inputs *in;
  view *v;
} graph_job;

/* After a graph text of this size, the memory its parse freed goes back
 * to the system (malloc_trim, glibc): the parse's trees, freed chunk by
 * chunk among the graph's arena blocks, otherwise stay resident in the
 * graph thread's malloc arena while the next graph and the code are
 * analyzed (14 MB of the 120 MB JIT compile's peak). So does the node
 * mappings' cJSON tree, about three times its text, once the joins are
 * done (19 MB of the 92 MB AOT compile's peak, under the view's JSON). */
enum { TRIM_AFTER = 1 << 20 };

static void trim_after(size_t text_size) {
#ifdef __GLIBC__
  if (text_size >= TRIM_AFTER)
    malloc_trim(0);
#else
  (void)text_size;
#endif
}

static void analyze_graph(graph_job *job, tl_prov_text t, tl_fx_graph *out) {
  tl_str text = text_of(job->in, t);
  if (!text.ptr)
    return;
  tl_fx_analyze(&job->v->graph_arena, text, out);
  own_fx_names(&job->v->graph_arena, out, text);
  done_with(job->in, t);
  trim_after(text.len);
}

static void *analyze_graphs(void *arg) {
  graph_job *job = arg;
  analyze_graph(job, TL_PROV_PRE, &job->v->pre);
  analyze_graph(job, TL_PROV_POST, &job->v->post);
  return NULL;
}

/* Below this much code, a second thread for the graphs costs more than it
 * saves. */
enum { PARALLEL_GRAPHS_MIN_CODE = 1 << 20 };

static void analyze(view *v, const tl_prov_inputs *in) {
  graph_job job = {in, v};
  pthread_t graphs;
#ifdef HAVE_CPPCODE
  bool code_analyzed = true;
#else
  bool code_analyzed = !in->aot; /* no C++ analyzer: not even read */
#endif
  tl_str code = code_analyzed ? text_of(in, TL_PROV_CODE) : (tl_str){0};
  bool has_graphs = in->load ? in->pre_path || in->post_path
                             : in->pre_graph.ptr || in->post_graph.ptr;
  bool worth_a_thread = code.len >= PARALLEL_GRAPHS_MIN_CODE;
  bool threaded = has_graphs && worth_a_thread &&
                  pthread_create(&graphs, NULL, analyze_graphs, &job) == 0;
  if (!threaded)
    analyze_graphs(&job);
  if (!in->aot && code.ptr)
    tl_pycode_analyze(&v->arena, code, &v->code);
#ifdef HAVE_CPPCODE
  if (in->aot && code.ptr)
    tl_cppcode_analyze(&v->arena, code, &v->code);
#endif
  own_code_names(&v->arena, &v->code, code, 0, 0);
  if (code.ptr)
    done_with(in, TL_PROV_CODE);
  trim_after(code.len); /* the analysis' own state, freed */
#ifdef HAVE_CPPCODE
  tl_str kernels = in->aot ? text_of(in, TL_PROV_KERNEL_CODE) : (tl_str){0};
  if (kernels.ptr) {
    /* Its bodies are added, or replace a wrapper's declaration: the names
     * now in the kernel code are copied. */
    tl_cppkernels_analyze(&v->arena, kernels, &v->code);
    own_code_names(&v->arena, &v->code, kernels, 0, v->code.call_count);
    done_with(in, TL_PROV_KERNEL_CODE);
  }
#endif
  if (threaded)
    pthread_join(graphs, NULL);
  v->by_name = index_calls(&v->arena, &v->code, false);
  v->by_handle = index_calls(&v->arena, &v->code, true);
  index_defs(v);
  index_lifted(v);
}

void tl_provenance_write(const tl_prov_inputs *in, tl_buf *out,
                         cJSON **malformed) {
  view v;
  memset(&v, 0, sizeof v);
  tl_arena_init(&v.arena);
  tl_arena_init(&v.graph_arena);
  /* The analyses first: the mapping's cJSON tree (about three times its
   * text) is not in memory beside the texts being analyzed. */
  analyze(&v, in);
  mapping map;
  memset(&map, 0, sizeof map);
  map.text = text_of(in, TL_PROV_MAPPINGS);
  map.present = map.text.ptr != NULL;
  if (map.present)
    map.object =
        tl_json_members(map.text, note_member, &map) == TL_JSON_MEMBERS_OBJECT;
  if (map.present && !map.object)
    done_with(in, TL_PROV_MAPPINGS);
  const char *reason = NULL;
  if (!map.present)
    reason = "no node mappings in this compilation (record them with "
             "INDUCTOR_PROVENANCE=1 or TORCH_COMPILE_DEBUG=1)";
  else if (!map.object)
    reason = "the node mappings are not a valid JSON object";
  else if (!has_content(&map))
    reason = "the node mappings are empty";
#ifndef HAVE_CPPCODE
  if (!reason && in->aot)
    reason = "C++ analyzer not built";
#endif
  v.v2 = map.object && map.v2;
  /* JIT code of cpp_wrapper=True (its kernels are called from C++ in a
   * Python string): "mode" says so, and a build without the C++ analyzer
   * says why that C++ gives no links. */
  const char *mode = in->aot ? "aot" : "jit";
  const char *shown_reason = reason;
  if (v.code.cpp_wrapper) {
    mode = "jit-cpp-wrapper";
#ifndef HAVE_CPPCODE
    if (!reason)
      shown_reason = "C++ analyzer not built";
#endif
  }

  tl_json_printer p;
  tl_json_printer_init(&p, out);
  tl_json_print_open(&p, NULL, false);
  tl_json_print_item(&p, "schema", cJSON_CreateNumber(1));
  tl_json_print_item(&p, "compile_dir", path_json(in->compile_dir));
  tl_json_print_item(&p, "compile_id", path_json(in->compile_id));
  tl_json_print_item(&p, "mode", cJSON_CreateString(mode));
  tl_json_print_item(&p, "mapping_version",
                     map.object ? cJSON_CreateNumber(v.v2 ? 2 : 1)
                                : cJSON_CreateNull());
  tl_json_print_open(&p, "artifacts", false);
  tl_json_print_item(&p, "pre_grad_graph", path_json(in->pre_path));
  tl_json_print_item(&p, "post_grad_graph", path_json(in->post_path));
  tl_json_print_item(&p, "code", path_json(in->code_path));
  tl_json_print_item(&p, "kernel_code", path_json(in->kernel_code_path));
  tl_json_print_item(&p, "node_mappings", path_json(in->mappings_path));
  tl_json_print_item(&p, "kernel_stack_traces",
                     path_json(in->stack_traces_path));
  tl_json_print_close(&p);
  tl_json_print_item(&p, "no_links_reason", path_json(shown_reason));

  cJSON *traces = parse_text(in, TL_PROV_STACK_TRACES);
  /* Each section parsed for its join and freed after it; the kernel
   * sections' types checked first, postToCppCode before cppCodeToPost: the
   * order GCC builds gave the view's "malformed" list when the two checks
   * were arguments of one call (an order C leaves unspecified; clang
   * builds listed them the other way). */
  check_section(&v, &map, PRE_TO_POST);
  cJSON *sec = section(&map, PRE_TO_POST);
  join_graphs(&v, sec, true);
  cJSON_Delete(sec);
  check_section(&v, &map, POST_TO_PRE);
  sec = section(&map, POST_TO_PRE);
  join_graphs(&v, sec, false);
  cJSON_Delete(sec);
  check_section(&v, &map, POST_TO_CODE);
  check_section(&v, &map, CODE_TO_POST);
  sec = section(&map, CODE_TO_POST);
  join_code_to_post(&v, sec);
  cJSON_Delete(sec);
  sec = section(&map, POST_TO_CODE);
  join_post_to_code(&v, sec);
  cJSON_Delete(sec);
  if (map.object)
    done_with(in, TL_PROV_MAPPINGS);
  if (cJSON_IsObject(traces)) { /* kernels known only by their traces */
    const cJSON *t;
    cJSON_ArrayForEach(t, traces) kernel_of(&v, tl_str_from(t->string));
  }
  /* Every name the JSON needs is copied (node_line, kernel_of): the
   * sections' trees, about three times their text, are gone before the
   * JSON is written, and their memory goes back to the system. */
  trim_after(map.text.len);
  /* The graphs' node tables are read by the joins only (node names come
   * from the mapping): gone before the view's JSON is written. */
  resolve_kernels(&v);
  unique_names(&v.pre_names);
  unique_names(&v.post_names);
  v.definitions[0] = definitions_json(&v.pre_names, &v.pre);
  v.definitions[1] = definitions_json(&v.post_names, &v.post);
  tl_arena_free(&v.graph_arena);
  memset(&v.pre, 0, sizeof v.pre);
  memset(&v.post, 0, sizeof v.post);
  emit(&v, &p, cJSON_IsObject(traces) ? traces : NULL, malformed);
  tl_json_print_close(&p);
  if (in->summary) {
    in->summary->mode = mode;
    in->summary->no_links_reason = shown_reason;
    in->summary->kernels = v.kernels.items.count;
    in->summary->kernels_called = 0;
    for (size_t i = 0; i < v.kernels.items.count; i++)
      in->summary->kernels_called += v.kernels.items.items[i].calls.count > 0;
  }

  for (size_t i = 0; i < v.kernels.items.count; i++) {
    TL_VEC_FREE(v.kernels.items.items[i].posts);
    TL_VEC_FREE(v.kernels.items.items[i].calls);
    TL_VEC_FREE(v.kernels.items.items[i].context);
    TL_VEC_FREE(v.kernels.items.items[i].call_graphs);
  }
  TL_VEC_FREE(v.context);
  TL_VEC_FREE(v.lines_a);
  TL_VEC_FREE(v.lines_b);
  TL_VEC_FREE(v.kernels.items);
  free(v.kernels.slots);
  TL_VEC_FREE(v.pre_names);
  TL_VEC_FREE(v.post_names);
  TL_VEC_FREE(v.pre_to_post);
  TL_VEC_FREE(v.post_to_pre);
  TL_VEC_FREE(v.code_to_post);
  TL_VEC_FREE(v.post_to_code);
  TL_VEC_FREE(v.kernel_to_post);
  TL_VEC_FREE(v.post_to_kernel);
  cJSON_Delete(traces);
  tl_arena_free(&v.arena);
}

cJSON *tl_provenance_build(const tl_prov_inputs *in) {
  tl_buf text;
  tl_buf_init(&text);
  tl_provenance_write(in, &text, NULL);
  cJSON *json = tl_json_parse_printed(tl_buf_str(&text));
  tl_buf_free(&text);
  return json;
}
