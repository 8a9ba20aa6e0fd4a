/* profile_join.c: a profile summary + one provenance view -> the view's
 * "profile" object (see profile_join.h; rules in docs/provenance-json.md).
 *
 * 1. Which graph: the summary's graphs of the view's compile id, scored by
 *    how many of the view's kernel names they ran; one best (key, phase) or
 *    the view says "ambiguous" / "unmatched" and gets no times.
 * 2. Which call: the k-th event named N in a graph call is the k-th call
 *    line (in code order) of the view's kernels that the trace names N.
 *    (Steps 1 and 2 are profile_match.c's.)
 * 3. Then times flow from calls to kernels, nodes, lines and source lines,
 *    each split evenly where one thing feeds several.
 */
#include "profile/profile_join.h"

#include "profile/profile_join_internal.h"
#include "profile/profile_map.h"
#include "util/html.h"
#include "util/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cJSON *get(const cJSON *obj, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static const char *get_str(const cJSON *obj, const char *key) {
  const cJSON *v = get(obj, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A string of the profile reader's own (a file's path, a problem's text)
 * as valid UTF-8: a path may hold any bytes, and the JSON and page must
 * not. (Event names are made valid as they are read.) */
cJSON *tl_prof_valid_string(const char *s) {
  tl_str text = tl_str_from(s);
  if (tl_utf8_valid_prefix(text) == text.len)
    return cJSON_CreateString(s);
  tl_buf valid;
  tl_buf_init(&valid);
  tl_utf8_repair(&valid, text);
  cJSON *j = cJSON_CreateString(valid.data);
  tl_buf_free(&valid);
  return j;
}

/* The trace's name for a view kernel: Inductor kernels keep their name;
 * extern_kernels.mm -> aten::mm; torch.ops.aten.add.Tensor -> aten::add;
 * the C shim's aoti_torch_cpu_addmm_out keeps its name (its event has it,
 * torch 2.13). */
static char *profile_name(const char *name, const char *kind, bool *is_extern) {
  tl_buf out;
  tl_buf_init(&out);
  *is_extern = true;
  if (starts(name, "extern_kernels.")) {
    tl_buf_printf(&out, "aten::%s", name + strlen("extern_kernels."));
  } else if (starts(name, "torch.ops.")) {
    const char *ns = name + strlen("torch.ops.");
    const char *dot = strchr(ns, '.');
    if (dot) {
      const char *op = dot + 1, *end = strchr(op, '.');
      size_t oplen = end ? (size_t)(end - op) : strlen(op);
      tl_buf_printf(&out, "%.*s::%.*s", (int)(dot - ns), ns, (int)oplen, op);
    } else {
      tl_buf_puts(&out, name);
    }
  } else if (starts(name, "aoti_torch_")) {
    tl_buf_puts(&out, name); /* the C shim records its own event */
  } else {
    *is_extern =
        kind && (strcmp(kind, "extern") == 0 || strcmp(kind, "fallback") == 0 ||
                 strcmp(kind, "shim") == 0);
    tl_buf_puts(&out, name);
  }
  return tl_buf_detach(&out);
}

/* "[0/0]" or "[0/0_1]" -> "0/0" (a region names its compile id without
 * brackets or attempt). */
static void bare_compile_id(const char *display, char *out, size_t size) {
  size_t n = 0;
  for (const char *s = display ? display : ""; *s && n + 1 < size; s++) {
    if (*s == '[' || *s == ']')
      continue;
    out[n++] = *s;
  }
  out[n] = '\0';
  char *us = strrchr(out, '_');
  if (us && us[1] && strspn(us + 1, "0123456789") == strlen(us + 1))
    *us = '\0';
}

static double us(double ns) { return round(ns) / 1000.0; }

/* Adds `ns` to the number `key` of a small object (or adds it). */
static void add_num(cJSON *obj, const char *key, double ns) {
  cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (item)
    cJSON_SetNumberValue(item, item->valuedouble + ns);
  else
    cJSON_AddNumberToObject(obj, key, ns);
}

/* A cJSON object with its members found by hash (cJSON's own lookup walks
 * the members: a join over n nodes would take n^2). The first member of a
 * name wins, as in cJSON_GetObjectItem. */
typedef struct jx {
  cJSON *obj;
  tl_strtab keys;
  TL_VEC(cJSON *) items; /* by key id */
} jx;

static void jx_put(jx *x, const char *key, cJSON *item) {
  int32_t id = tl_strtab_intern(&x->keys, key, strlen(key));
  if ((size_t)id == x->items.count)
    TL_VEC_PUSH(x->items, item);
}

static void jx_open(jx *x, cJSON *obj) {
  memset(x, 0, sizeof *x);
  x->obj = obj;
  for (cJSON *it = obj ? obj->child : NULL; it; it = it->next)
    if (it->string)
      jx_put(x, it->string, it);
}

static cJSON *jx_get(const jx *x, const char *key) {
  if (!key)
    return NULL;
  int32_t id = tl_strtab_find(&x->keys, key, strlen(key));
  return id >= 0 ? x->items.items[id] : NULL;
}

static void jx_close(jx *x) {
  tl_strtab_free(&x->keys);
  TL_VEC_FREE(x->items);
}

/* A number-keyed accumulator ({"12": µs}) kept as a cJSON object. */
static void add_at(jx *x, const char *key, double ns) {
  cJSON *item = jx_get(x, key);
  if (item) {
    cJSON_SetNumberValue(item, item->valuedouble + ns);
  } else {
    item = cJSON_CreateNumber(ns);
    cJSON_AddItemToObject(x->obj, key, item);
    jx_put(x, key, item);
  }
}

static void add_line(jx *x, int line, double ns) {
  char key[24];
  snprintf(key, sizeof key, "%d", line);
  add_at(x, key, ns);
}

/* Converts every value of an accumulator from ns to µs. */
static void to_us(cJSON *obj) {
  for (cJSON *it = obj ? obj->child : NULL; it; it = it->next)
    if (cJSON_IsNumber(it))
      cJSON_SetNumberValue(it, us(it->valuedouble));
}

/* The innermost frame of a Python stack trace string: file, line, code. */
static bool innermost_frame(const char *trace, tl_buf *key, tl_buf *code) {
  const char *best = NULL;
  for (const char *s = strstr(trace, "File \""); s;
       s = strstr(s + 1, "File \""))
    best = s;
  if (!best)
    return false;
  const char *fstart = best + 6, *fend = strchr(fstart, '"');
  if (!fend)
    return false;
  const char *ln = strstr(fend, ", line ");
  if (!ln)
    return false;
  long line = strtol(ln + 7, NULL, 10);
  tl_buf_clear(key);
  tl_buf_printf(key, "%.*s:%ld", (int)(fend - fstart), fstart, line);
  tl_buf_clear(code);
  const char *nl = strchr(ln, '\n');
  if (nl) {
    const char *c = nl + 1;
    while (*c == ' ')
      c++;
    const char *end = strchr(c, '\n');
    tl_buf_append(code, c, end ? (size_t)(end - c) : strlen(c));
  }
  return true;
}

/* "kernels_without_events": the view's kernels that no event of the
 * matched graphs gave time, and "record_hint": how to record them. */
static void add_gaps(cJSON *out, const vkernel *ks, const cJSON **vkjson,
                     size_t nk, const graph_list *graphs, bool gpu) {
  cJSON *list = cJSON_AddArrayToObject(out, "kernels_without_events");
  bool cpp = false, triton = false, cpp_events = false, gpu_events = false;
  for (size_t g = 0; g < graphs->count; g++) {
    cpp_events = cpp_events || graph_has(graphs->items[g], "cpp_");
    gpu_events = gpu_events || graphs->items[g]->gpu_total_ns > 0;
  }
  for (size_t i = 0; i < nk; i++) {
    if (ks[i].count)
      continue;
    const char *kind = get_str(vkjson[i], "kind");
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "key", ks[i].key);
    cJSON_AddStringToObject(o, "kind", kind ? kind : "");
    cJSON_AddItemToArray(list, o);
    cpp = cpp || (kind && strcmp(kind, "cpp") == 0);
    triton = triton || (kind && (strcmp(kind, "triton") == 0 ||
                                 strcmp(kind, "template") == 0 ||
                                 strcmp(kind, "combo") == 0));
  }
  const char *hint = NULL;
  if (cpp && !cpp_events)
    hint = "the profile has no event of a C++ kernel: on CPU, record it with "
           "torch._inductor.config.cpp.enable_kernel_profile = True";
  else if (triton && !gpu_events && !gpu)
    hint = "the profile has no GPU kernel activity for this graph: record it "
           "with ProfilerActivity.CUDA in the profiler's activities";
  else if (cJSON_GetArraySize(list))
    hint = "these kernels ran no event in the profiled calls (not called, "
           "or their events were not recorded)";
  if (hint)
    cJSON_AddStringToObject(out, "record_hint", hint);
  else
    cJSON_AddNullToObject(out, "record_hint");
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The statistics of `n` calls (ns each, in the order run), on `o`: the
 * first call apart (first_us: it holds the warm-up), and over the calls
 * after it (all of them when there is one): median_us, min_us, max_us; the
 * calls far from that median (more than FAR times it, or less than 1/FAR of
 * it): far_count, far_us (their total), far (up to 10 of them: call index
 * from 0, µs). */
enum { FAR = 3, FAR_LISTED = 10 };
static void add_stats(cJSON *o, const double *v, size_t n) {
  if (!n) {
    cJSON_AddNullToObject(o, "first_us");
    cJSON_AddNullToObject(o, "median_us");
    cJSON_AddNullToObject(o, "min_us");
    cJSON_AddNullToObject(o, "max_us");
    cJSON_AddNumberToObject(o, "far_count", 0);
    cJSON_AddNumberToObject(o, "far_us", 0);
    cJSON_AddArrayToObject(o, "far");
    return;
  }
  const double *rest = n > 1 ? v + 1 : v;
  size_t m = n > 1 ? n - 1 : n;
  double *sorted = tl_xmalloc(m * sizeof *sorted);
  memcpy(sorted, rest, m * sizeof *sorted);
  tl_sort(sorted, m, sizeof *sorted, cmp_double);
  double median =
      m % 2 ? sorted[m / 2] : (sorted[m / 2 - 1] + sorted[m / 2]) / 2.0;
  cJSON_AddNumberToObject(o, "first_us", us(v[0]));
  cJSON_AddNumberToObject(o, "median_us", us(median));
  cJSON_AddNumberToObject(o, "min_us", us(sorted[0]));
  cJSON_AddNumberToObject(o, "max_us", us(sorted[m - 1]));
  free(sorted);
  cJSON *far = cJSON_CreateArray();
  size_t far_count = 0;
  double far_ns = 0;
  for (size_t i = 0; i < m; i++) {
    if (!(rest[i] > FAR * median || rest[i] * FAR < median))
      continue;
    far_count++;
    far_ns += rest[i];
    if (far_count <= FAR_LISTED) {
      cJSON *c = cJSON_CreateObject();
      cJSON_AddNumberToObject(c, "call", (double)(i + (n > 1)));
      cJSON_AddNumberToObject(c, "us", us(rest[i]));
      cJSON_AddItemToArray(far, c);
    }
  }
  cJSON_AddNumberToObject(o, "far_count", (double)far_count);
  cJSON_AddNumberToObject(o, "far_us", us(far_ns));
  cJSON_AddItemToObject(o, "far", far);
}

static void add_problems(cJSON *obj, const tl_profile *p) {
  cJSON *list = cJSON_AddArrayToObject(obj, "problems");
  for (size_t i = 0; i < p->problems.count; i++) {
    const tl_prof_problem *pr = &p->problems.items[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "what", pr->what);
    cJSON_AddNumberToObject(o, "count", (double)pr->count);
    cJSON_AddItemToObject(o, "first", tl_prof_valid_string(pr->example));
    cJSON_AddItemToArray(list, o);
  }
}

/* Step 3 for one kernel's time: nodes, pre-grad lines, source lines. */
typedef struct sinks {
  jx post_nodes, pre_nodes, post_lines, pre_lines, sources;
  jx nodes_post, post_to_pre;
  const char **pre_at; /* pre-grad line -> node name */
  int pre_lines_n;
  double without_post, without_pre, without_source;
  bool backward;
  const tl_profile_view_facts *facts; /* pre-grad line -> model line */
} sinks;

static void add_source(sinks *s, const char *key, const char *code, double ns);

/* The model line of pre-grad line `l` (its `# File:` comment), or -1. */
static int source_of(const sinks *s, int l) {
  const tl_profile_view_facts *f = s->facts;
  if (!f || l <= 0 || (size_t)l >= f->pre_source.count)
    return -1;
  return f->pre_source.items[l] - 1;
}

/* Step 3 for one kernel: its time to its post-grad nodes (evenly), each
 * node's share to its pre-grad lines (evenly), each pre-grad line's to its
 * model line. Returns the part that reached a model line. */
static double spread_nodes(sinks *s, const vkernel *k, double ns) {
  double placed = 0;
  if (!k->post.count) {
    s->without_post += ns;
    s->without_pre += ns;
    return 0;
  }
  double part = ns / (double)k->post.count;
  for (size_t i = 0; i < k->post.count; i++) {
    add_at(&s->post_nodes, k->post.items[i], part);
    const cJSON *line = jx_get(&s->nodes_post, k->post.items[i]);
    if (!cJSON_IsNumber(line)) {
      s->without_pre += part;
      continue;
    }
    add_line(&s->post_lines, line->valueint, part);
    char key[24];
    snprintf(key, sizeof key, "%d", line->valueint);
    const cJSON *pres = jx_get(&s->post_to_pre, key);
    int n = cJSON_GetArraySize(pres);
    if (!n) {
      s->without_pre += part;
      continue;
    }
    const cJSON *pl;
    cJSON_ArrayForEach(pl, pres) {
      if (!cJSON_IsNumber(pl))
        continue;
      add_line(&s->pre_lines, pl->valueint, part / n);
      int l = pl->valueint;
      int src = source_of(s, l);
      if (src >= 0) {
        const tl_prof_source *ms = &s->facts->sources.items[src];
        add_source(s, ms->key, ms->code, part / n);
        placed += part / n;
      }
      const char *name = l > 0 && l < s->pre_lines_n ? s->pre_at[l] : NULL;
      if (name)
        add_at(&s->pre_nodes, name, part / n);
    }
  }
  return placed;
}

/* Adds `ns` to model line `key` ("file:line"), with its code. */
static void add_source(sinks *s, const char *key, const char *code, double ns) {
  cJSON *entry = jx_get(&s->sources, key);
  if (!entry) {
    entry = cJSON_AddObjectToObject(s->sources.obj, key);
    jx_put(&s->sources, key, entry);
    cJSON_AddStringToObject(entry, "code", code ? code : "");
    cJSON_AddNumberToObject(entry, "total_us", 0);
    cJSON_AddNumberToObject(entry, "fwd_us", 0);
    cJSON_AddNumberToObject(entry, "bwd_us", 0);
  }
  add_num(entry, "total_us", ns);
  add_num(entry, s->backward ? "bwd_us" : "fwd_us", ns);
}

/* The part of a kernel's time that reached no pre-grad line with a model
 * line: split evenly between its stack traces, each share to the trace's
 * innermost frame (a line that is several traces' gets a share for each). */
static void spread_sources(sinks *s, const cJSON *vk, double ns) {
  const cJSON *traces = get(vk, "stack_traces"), *t;
  tl_buf key, code;
  tl_buf_init(&key);
  tl_buf_init(&code);
  int n = 0;
  cJSON_ArrayForEach(t, traces) {
    if (cJSON_IsString(t) && innermost_frame(t->valuestring, &key, &code))
      n++;
  }
  cJSON_ArrayForEach(t, traces) {
    if (cJSON_IsString(t) && innermost_frame(t->valuestring, &key, &code))
      add_source(s, key.data, code.data, ns / n);
  }
  if (!n)
    s->without_source += ns;
  tl_buf_free(&key);
  tl_buf_free(&code);
}

static int by_total_desc(const void *a, const void *b) {
  const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
  double dx = get(x, "total_us")->valuedouble,
         dy = get(y, "total_us")->valuedouble;
  return (dx < dy) - (dx > dy);
}

/* {"file:line": {...}} -> sorted [{file, line, code, total_us, ...}]. */
static cJSON *source_list(cJSON *sources) {
  TL_VEC(cJSON *) items = {0};
  for (cJSON *it = sources->child; it; it = it->next) {
    const char *colon = strrchr(it->string, ':');
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", "");
    if (colon) {
      char *file = tl_xstrdup(it->string);
      file[colon - it->string] = '\0';
      cJSON_ReplaceItemInObjectCaseSensitive(o, "file",
                                             cJSON_CreateString(file));
      free(file);
    }
    cJSON_AddNumberToObject(o, "line", colon ? atoi(colon + 1) : 0);
    cJSON_AddStringToObject(o, "code", get_str(it, "code"));
    cJSON_AddNumberToObject(o, "total_us",
                            us(get(it, "total_us")->valuedouble));
    cJSON_AddNumberToObject(o, "fwd_us", us(get(it, "fwd_us")->valuedouble));
    cJSON_AddNumberToObject(o, "bwd_us", us(get(it, "bwd_us")->valuedouble));
    TL_VEC_PUSH(items, o);
  }
  tl_sort(items.items, items.count, sizeof *items.items, by_total_desc);
  cJSON *list = cJSON_CreateArray();
  for (size_t i = 0; i < items.count; i++)
    cJSON_AddItemToArray(list, items.items[i]);
  TL_VEC_FREE(items);
  return list;
}

cJSON *tl_profile_join(const tl_profile *p, const cJSON *view,
                       const tl_profile_view_facts *facts) {
  cJSON *out = cJSON_CreateObject();
  cJSON_AddNumberToObject(out, "schema", 1);
  cJSON_AddStringToObject(out, "unit", "us");
  cJSON *files = cJSON_AddArrayToObject(out, "files");
  for (size_t i = 0; i < p->files.count; i++)
    cJSON_AddItemToArray(files, tl_prof_valid_string(p->files.items[i].path));
  cJSON_AddNumberToObject(out, "steps", (double)p->steps);
  add_problems(out, p);

  /* The view's kernels. */
  const cJSON *vks = get(view, "kernels"), *vk;
  size_t nk = (size_t)cJSON_GetArraySize(vks);
  vkernel *ks = tl_xcalloc(nk + 1, sizeof *ks);
  const cJSON **vkjson = tl_xcalloc(nk + 1, sizeof *vkjson);
  size_t k = 0;
  cJSON_ArrayForEach(vk, vks) {
    vkernel *x = &ks[k];
    vkjson[k++] = vk;
    const char *name = get_str(vk, "name");
    x->key = get_str(vk, "key");
    if (!x->key)
      x->key = name ? name : "";
    x->pname =
        profile_name(name ? name : x->key, get_str(vk, "kind"), &x->is_extern);
    const cJSON *c;
    cJSON_ArrayForEach(c, get(vk, "calls")) if (cJSON_IsNumber(c))
        TL_VEC_PUSH(x->calls, c->valueint);
    cJSON_ArrayForEach(c, get(vk, "post_nodes")) if (cJSON_IsString(c))
        TL_VEC_PUSH(x->post, c->valuestring);
    const cJSON *def = get(vk, "definition");
    const char *file = get_str(def, "file");
    const cJSON *first = get(def, "first");
    if (file && strcmp(file, "kernel_code") == 0 && cJSON_IsNumber(first))
      x->kernel_def = first->valueint;
  }

  char cid[128];
  bare_compile_id(get_str(view, "compile_id"), cid, sizeof cid);
  cJSON *match = cJSON_AddObjectToObject(out, "match");
  graph_list graphs = {0};
  name_index ix = {0};
  tl_prof_index_names(&ix, ks, nk);
  bool ambiguous;
  char why_buf[600];
  const char *why = tl_prof_choose_graphs(p, &ix, cid, facts, &graphs, match,
                                          &ambiguous, why_buf, sizeof why_buf);
  cJSON_AddStringToObject(match, "status",
                          why ? (ambiguous ? "ambiguous" : "unmatched")
                              : "matched");
  if (why)
    cJSON_AddStringToObject(match, "reason", why);

  bool gpu = false;
  uint64_t calls = 0;
  double cpu_total = 0, gpu_total = 0, gpu_unknown = 0;
  for (size_t i = 0; i < graphs.count; i++) {
    gpu = gpu || graphs.items[i]->gpu_total_ns > 0;
    calls += graphs.items[i]->calls;
    cpu_total += (double)graphs.items[i]->cpu_total_ns;
    gpu_total += (double)graphs.items[i]->gpu_total_ns;
    gpu_unknown += (double)graphs.items[i]->gpu_unknown_ns;
  }
  cJSON_AddStringToObject(out, "clock", gpu ? "gpu" : "cpu");
  cJSON_AddNumberToObject(out, "calls", (double)calls);
  {
    TL_VEC(double) each = {0};
    for (size_t i = 0; i < graphs.count; i++) {
      const tl_prof_graph *g = graphs.items[i];
      for (size_t c = 0; c < g->call_ns.count; c++) {
        uint32_t ord = c < g->call_ordinal.count ? g->call_ordinal.items[c] : 0;
        double gpu_ns =
            ord < g->gpu_call_ns.count ? (double)g->gpu_call_ns.items[ord] : 0;
        TL_VEC_PUSH(each, gpu ? gpu_ns : (double)g->call_ns.items[c]);
      }
    }
    cJSON *gc = cJSON_AddObjectToObject(out, "graph_calls");
    cJSON_AddStringToObject(gc, "clock", gpu ? "gpu" : "cpu");
    cJSON_AddNumberToObject(gc, "count", (double)each.count);
    double sum = 0;
    for (size_t i = 0; i < each.count; i++)
      sum += each.items[i];
    cJSON_AddNumberToObject(gc, "total_us", us(sum));
    add_stats(gc, each.items, each.count);
    TL_VEC_FREE(each);
  }

  /* Build the line -> pre-grad node table once. */
  sinks s = {0};
  cJSON *lines = cJSON_CreateObject();
  jx code_lines, kernel_lines;
  jx_open(&s.post_nodes, cJSON_CreateObject());
  jx_open(&s.pre_nodes, cJSON_CreateObject());
  jx_open(&s.post_lines, cJSON_AddObjectToObject(lines, "post"));
  jx_open(&s.pre_lines, cJSON_AddObjectToObject(lines, "pre"));
  jx_open(&code_lines, cJSON_AddObjectToObject(lines, "code"));
  jx_open(&kernel_lines, cJSON_AddObjectToObject(lines, "kernel"));
  jx_open(&s.sources, cJSON_CreateObject());
  jx_open(&s.nodes_post, (cJSON *)get(get(view, "nodes"), "post"));
  jx_open(&s.post_to_pre, (cJSON *)get(get(view, "lines"), "postToPre"));
  s.backward = graphs.count && graphs.items[0]->phase == TL_PROF_BACKWARD;
  s.facts = facts;
  const cJSON *pre_nodes = get(get(view, "nodes"), "pre"), *pn;
  int max_pre = 0;
  cJSON_ArrayForEach(
      pn, pre_nodes) if (cJSON_IsNumber(pn) && pn->valueint > max_pre &&
                         pn->valueint < 10000000) max_pre = pn->valueint;
  s.pre_lines_n = max_pre + 1;
  s.pre_at = tl_xcalloc((size_t)s.pre_lines_n, sizeof *s.pre_at);
  cJSON_ArrayForEach(pn, pre_nodes) if (cJSON_IsNumber(pn) &&
                                        pn->valueint > 0 &&
                                        pn->valueint < s.pre_lines_n &&
                                        !s.pre_at[pn->valueint])
      s.pre_at[pn->valueint] = pn->string;

  double inductor = 0, ext = 0, cpu_inductor = 0, cpu_ext = 0;
  cJSON *unmatched = cJSON_CreateArray();
  size_t *at = tl_xcalloc(nk + 1, sizeof *at);
  for (size_t gi = 0; gi < graphs.count; gi++) {
    const tl_prof_graph *g = graphs.items[gi];
    for (size_t i = 0; i < nk; i++)
      ks[i].base = ks[i].per_call.count;
    for (size_t si = 0; si < g->slots.count; si++) {
      const tl_prof_slot *sl = &g->slots.items[si];
      double ns = (double)(gpu ? sl->gpu_ns : sl->cpu_ns);
      uint64_t count = gpu ? sl->gpu_count : sl->cpu_count;
      (sl->is_extern ? &ext : &inductor)[0] += ns;
      (sl->is_extern ? &cpu_ext : &cpu_inductor)[0] += (double)sl->cpu_ns;
      size_t n_at;
      int line = tl_prof_call_of(&ix, sl->name, sl->occurrence, at, &n_at);
      if (line < 0) {
        cJSON *u = cJSON_CreateObject();
        cJSON_AddStringToObject(u, "name", sl->name);
        cJSON_AddNumberToObject(u, "occurrence", sl->occurrence);
        cJSON_AddStringToObject(u, "kind",
                                sl->is_extern ? "extern" : "inductor");
        cJSON_AddNumberToObject(u, "total_us", us(ns));
        cJSON_AddNumberToObject(u, "count", (double)count);
        bool known = tl_strtab_find(&ix.tab, sl->name, strlen(sl->name)) >= 0;
        bool run = strcmp(g->key, "AOTInductor") == 0;
        cJSON_AddStringToObject(
            u, "reason",
            !known ? "no kernel of this view has this name"
            : run  ? "the trace calls it more often per run than the code "
                     "has call lines: several calls of the AOTInductor model "
                     "inside one event are read as one run (profile each "
                     "call in its own ProfilerStep or record_function)"
                   : "the trace calls it more often per graph call than the "
                     "code has call lines");
        cJSON_AddItemToArray(unmatched, u);
        continue;
      }
      if (line > 0)
        add_line(&code_lines, line, ns);
      for (size_t j = 0; j < n_at; j++) {
        vkernel *x = &ks[at[j]];
        x->ns += ns / (double)n_at;
        x->count += count;
        if ((int)n_at > x->shared_by)
          x->shared_by = (int)n_at;
        const int64_t *each = gpu ? sl->gpu_calls.items : sl->cpu_calls.items;
        size_t n_each = gpu ? sl->gpu_calls.count : sl->cpu_calls.count;
        for (size_t c = 0; c < n_each; c++) {
          while (x->per_call.count <= x->base + c)
            TL_VEC_PUSH(x->per_call, 0.0);
          x->per_call.items[x->base + c] += (double)each[c] / (double)n_at;
        }
      }
    }
  }
  free(at);
  for (size_t i = 0; i < nk; i++) {
    if (!ks[i].count)
      continue;
    double rest = ks[i].ns - spread_nodes(&s, &ks[i], ks[i].ns);
    if (rest > ks[i].ns * 1e-9)
      spread_sources(&s, vkjson[i], rest);
    if (ks[i].kernel_def)
      add_line(&kernel_lines, ks[i].kernel_def, ks[i].ns);
  }

  cJSON *region = cJSON_AddObjectToObject(out, "region");
  double total = gpu ? gpu_total : cpu_total;
  double unknown = gpu ? gpu_unknown : cpu_total - inductor - ext;
  cJSON_AddNumberToObject(region, "total_us", us(total));
  cJSON_AddNumberToObject(region, "inductor_us", us(inductor));
  cJSON_AddNumberToObject(region, "extern_us", us(ext));
  cJSON_AddNumberToObject(region, "unknown_us", us(unknown));
  cJSON_AddNumberToObject(region, "cpu_total_us", us(cpu_total));
  cJSON_AddNumberToObject(region, "cpu_inductor_us", us(cpu_inductor));
  cJSON_AddNumberToObject(region, "cpu_extern_us", us(cpu_ext));
  if (p->steps)
    cJSON_AddNumberToObject(region, "per_step_us",
                            us(total / (double)p->steps));
  else
    cJSON_AddNullToObject(region, "per_step_us");

  cJSON *kernels = cJSON_AddObjectToObject(out, "kernels");
  for (size_t i = 0; i < nk; i++) {
    if (!ks[i].count)
      continue;
    cJSON *o = cJSON_AddObjectToObject(kernels, ks[i].key);
    if (!o)
      continue;
    cJSON_AddNumberToObject(o, "total_us", us(ks[i].ns));
    cJSON_AddNumberToObject(o, "count", (double)ks[i].count);
    cJSON_AddNumberToObject(o, "mean_us", us(ks[i].ns / (double)ks[i].count));
    if (p->steps)
      cJSON_AddNumberToObject(o, "per_step_us",
                              us(ks[i].ns / (double)p->steps));
    cJSON_AddNumberToObject(o, "shared_by", ks[i].shared_by);
    add_stats(o, ks[i].per_call.items, ks[i].per_call.count);
  }
  if (graphs.count)
    add_gaps(out, ks, vkjson, nk, &graphs, gpu);
  to_us(s.post_nodes.obj);
  to_us(s.pre_nodes.obj);
  to_us(s.post_lines.obj);
  to_us(s.pre_lines.obj);
  to_us(code_lines.obj);
  to_us(kernel_lines.obj);
  cJSON_AddItemToObject(out, "post_nodes", s.post_nodes.obj);
  cJSON_AddItemToObject(out, "pre_nodes", s.pre_nodes.obj);
  cJSON_AddNumberToObject(out, "without_post_node_us", us(s.without_post));
  cJSON_AddNumberToObject(out, "without_pre_node_us", us(s.without_pre));
  cJSON_AddNumberToObject(out, "without_source_line_us", us(s.without_source));
  cJSON_AddItemToObject(out, "lines", lines);
  cJSON_AddItemToObject(out, "source_lines", source_list(s.sources.obj));
  cJSON_Delete(s.sources.obj);
  jx *all[] = {&s.post_nodes,  &s.pre_nodes, &s.post_lines,
               &s.pre_lines,   &s.sources,   &s.nodes_post,
               &s.post_to_pre, &code_lines,  &kernel_lines};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    jx_close(all[i]);
  cJSON_AddItemToObject(out, "unmatched", unmatched);

  for (size_t i = 0; i < nk; i++) {
    TL_VEC_FREE(ks[i].per_call);
    free(ks[i].pname);
    TL_VEC_FREE(ks[i].calls);
    TL_VEC_FREE(ks[i].post);
  }
  free(ks);
  free(vkjson);
  free(s.pre_at);
  tl_prof_free_names(&ix);
  TL_VEC_FREE(graphs);
  return out;
}
