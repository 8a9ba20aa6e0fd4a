/* provenance.c: the join stage's entry. Writes the provenance JSON of one
 * view (docs/provenance-json.md): loads and analyzes its texts (the FX
 * graphs on a second thread beside a large code), reads the node mappings
 * member by member, hands each section to the joins of provenance_join.c,
 * and prints their results a section at a time into the caller's buffer.
 *
 *   {"preToPost": {"x": ["permute", ...]}, "cppCodeToPost":
 *    {"triton_poi_fused_mul_1:2": ["mul"]}, ..., "version": 2.0}
 * Mapping v1 keys are bare kernel names (every call site of the kernel);
 * v2.0 keys are `name:handle` (exactly the call bound to that handle). Line
 * maps are set unions, sorted. Everything lives in one arena per call.
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
#include "join/provenance_internal.h"
#include "util/cores.h"
#include "util/mapped_text.h"
#include "json/json_build.h"
#include "json/json_members.h"
#include "json/json_print.h"

/* ---- JSON output ------------------------------------------------------ */

static int pair_cmp(const void *a, const void *b) {
  const pair *x = a, *y = b;
  if (x->from != y->from)
    return x->from < y->from ? -1 : 1;
  return x->to < y->to ? -1 : x->to > y->to;
}

/* A NUL-terminated copy of `s` (cJSON takes C strings); the caller frees
 * it. */
static char *c_string(tl_str s) {
  char *copy = tl_xmalloc(s.len + 1);
  memcpy(copy, s.ptr, s.len);
  copy[s.len] = '\0';
  return copy;
}

/* The member `name`, {"from": [to, ...]}, from pairs: sorted, duplicates
 * dropped; frees them. Printed as it is built, without a cJSON tree (a
 * node per number made, printed and freed was a tenth of a view's
 * instructions). */
static void print_line_map(tl_json_printer *out, const char *name,
                           pair_vec *v) {
  tl_json_print_open(out, name, false);
  if (v->count)
    tl_sort(v->items, v->count, sizeof *v->items, pair_cmp);
  for (size_t i = 0; i < v->count; i++) {
    pair p = v->items[i];
    if (i && p.from == v->items[i - 1].from && p.to == v->items[i - 1].to)
      continue;
    if (!i || p.from != v->items[i - 1].from) {
      if (i)
        tl_json_print_close(out);
      char key[24];
      snprintf(key, sizeof key, "%d", p.from);
      tl_json_print_open(out, key, true);
    }
    tl_json_print_int(out, NULL, p.to);
  }
  if (v->count)
    tl_json_print_close(out);
  tl_json_print_close(out);
  TL_VEC_FREE(*v); /* read once: gone before the next map is built */
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
      cJSON_AddItemToArray(arr, tl_json_str(k->posts.items[i].name));
  free(sorted);
  free(keep);
  return arr;
}

static cJSON *kernel_json(kernel *k, const cJSON *traces) {
  cJSON *o = cJSON_CreateObject();
  tl_json_add_str(o, "key", k->key);
  tl_json_add_str(o, "name", k->name);
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

/* {"name": line} of the resolved names (sorted, unique: tl_pj_unique_names);
 * the unresolved ones, sorted. */
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
 * tl_pj_unique_names) that several graphs of `g` define, every definition, the
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
  print_line_map(p, "preToPost", &v->pre_to_post);
  print_line_map(p, "postToPre", &v->post_to_pre);
  print_line_map(p, "codeToPost", &v->code_to_post);
  print_line_map(p, "postToCode", &v->post_to_code);
  tl_json_print_close(p);
  tl_json_print_open(p, "kernel_lines", false);
  print_line_map(p, "kernelToPost", &v->kernel_to_post);
  print_line_map(p, "postToKernel", &v->post_to_kernel);
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
    cJSON_AddItemToArray(un_k, tl_json_str(missing[i]));
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
    m->type[k] = tl_pj_json_type_name(value);
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
    tl_pj_malformed_type(v, MEMBER_KEYS[k], NULL, "%s, not an object",
                         m->type[k]);
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
  tl_analysis_cache *cache = job->in->cache;
  if (!tl_analysis_cache_get_fx(cache, text, &job->v->graph_arena, out)) {
    tl_fx_analyze(&job->v->graph_arena, text, out);
    own_fx_names(&job->v->graph_arena, out, text);
    tl_analysis_cache_put_fx(cache, text, out);
  }
  done_with(job->in, t);
  trim_after(text.len);
}

static void analyze_graphs(graph_job *job) {
  analyze_graph(job, TL_PROV_PRE, &job->v->pre);
  analyze_graph(job, TL_PROV_POST, &job->v->post);
}

static void *graphs_thread(void *arg) {
  tl_cores_busy_begin();
  analyze_graphs(arg);
  tl_cores_busy_end();
  return NULL;
}

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
  bool worth_a_thread = code.len >= TL_CORES_HELPER_CODE_MIN;
  bool threaded = has_graphs && worth_a_thread &&
                  pthread_create(&graphs, NULL, graphs_thread, &job) == 0;
  if (!threaded)
    analyze_graphs(&job);
  /* The wrapper's analysis is kept before the kernel code's is added. */
  tl_analysis_kind kind = in->aot ? TL_ANALYSIS_CPPCODE : TL_ANALYSIS_PYCODE;
  if (!code.ptr ||
      !tl_analysis_cache_get_code(in->cache, kind, code, &v->arena, &v->code)) {
    if (!in->aot && code.ptr)
      tl_pycode_analyze(&v->arena, code, &v->code);
#ifdef HAVE_CPPCODE
    if (in->aot && code.ptr)
      tl_cppcode_analyze(&v->arena, code, &v->code);
#endif
    own_code_names(&v->arena, &v->code, code, 0, 0);
    if (code.ptr)
      tl_analysis_cache_put_code(in->cache, kind, code, &v->code);
  }
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
  tl_pj_index(v);
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
  tl_pj_join_graphs(&v, sec, true);
  cJSON_Delete(sec);
  check_section(&v, &map, POST_TO_PRE);
  sec = section(&map, POST_TO_PRE);
  tl_pj_join_graphs(&v, sec, false);
  cJSON_Delete(sec);
  check_section(&v, &map, POST_TO_CODE);
  check_section(&v, &map, CODE_TO_POST);
  sec = section(&map, CODE_TO_POST);
  tl_pj_join_code_to_post(&v, sec);
  cJSON_Delete(sec);
  sec = section(&map, POST_TO_CODE);
  tl_pj_join_post_to_code(&v, sec);
  cJSON_Delete(sec);
  if (map.object)
    done_with(in, TL_PROV_MAPPINGS);
  if (cJSON_IsObject(traces)) { /* kernels known only by their traces */
    const cJSON *t;
    cJSON_ArrayForEach(t, traces) tl_pj_kernel_of(&v, tl_str_from(t->string));
  }
  /* Every name the JSON needs is copied (node_line, tl_pj_kernel_of): the
   * sections' trees, about three times their text, are gone before the
   * JSON is written, and their memory goes back to the system. */
  trim_after(map.text.len);
  /* The graphs' node tables are read by the joins only (node names come
   * from the mapping): gone before the view's JSON is written. */
  tl_pj_resolve_kernels(&v);
  tl_pj_unique_names(&v.pre_names);
  tl_pj_unique_names(&v.post_names);
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
