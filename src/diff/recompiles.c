/* recompiles.c: the store's folders -> each frame's compiles; two
 * consecutive compiles -> what changed, as JSON (see recompiles.h). */
#include "diff/recompiles.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/fx_diff.h"
#include "diff/guards.h"
#include "diff/recompile_parts.h"
#include "diff/recompile_reasons.h"
#include "diff/shape_words.h"
#include "util/fsutil.h"
#include "json/json_build.h"

/* "-_0_1_1" -> autograd "-", frame 0, compile 1, attempt 1. False for a
 * folder without a frame and a compile id ("-_-_-_-", unknown_<line>). */
static bool read_dir_name(const char *name, char *autograd, size_t size,
                          long long *frame, long long *compile,
                          long long *attempt) {
  const char *us = strchr(name, '_');
  if (!us || (size_t)(us - name) >= size)
    return false;
  memcpy(autograd, name, (size_t)(us - name));
  autograd[us - name] = '\0';
  char *end;
  *frame = strtoll(us + 1, &end, 10);
  if (end == us + 1 || *end != '_')
    return false;
  const char *c = end + 1;
  *compile = strtoll(c, &end, 10);
  if (end == c || *end != '_')
    return false;
  const char *t = end + 1;
  *attempt = strtoll(t, &end, 10);
  if (end == t)
    *attempt = 0; /* "-": no attempt */
  return *end == '\0' || *end == '-';
}

static bool name_starts(const tl_artifact *a, const char *prefix) {
  size_t n = strlen(prefix);
  return strncmp(a->name, prefix, n) == 0 && a->name[n] == '_' &&
         a->name[n + 1] >= '0' && a->name[n + 1] <= '9';
}

/* One session's part of a folder: artifacts[lo, hi) of `dir`, and the
 * session's compilation metrics and dynamo_start stack there (or NULL). */
typedef struct folder {
  const tl_compile_dir *dir;
  char autograd[24];
  long long frame, compile, attempt;
  size_t session, lo, hi;
  size_t order;
  const cJSON *metrics;
  const tl_stack *stack;
} folder;

static int by_compile(const void *a, const void *b) {
  const folder *x = a, *y = b;
  if (x->session != y->session)
    return x->session < y->session ? -1 : 1;
  int c = strcmp(x->autograd, y->autograd);
  if (c)
    return c;
  if (x->frame != y->frame)
    return x->frame < y->frame ? -1 : 1;
  if (x->compile != y->compile)
    return x->compile < y->compile ? -1 : 1;
  if (x->attempt != y->attempt) /* the last attempt first */
    return x->attempt > y->attempt ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* The first artifact of the folder's part matching `is`, or NULL. */
static const tl_artifact *first(const folder *f,
                                bool (*is)(const tl_artifact *)) {
  for (size_t i = f->lo; i < f->hi; i++)
    if (f->dir->artifacts.items[i].text_path && is(&f->dir->artifacts.items[i]))
      return &f->dir->artifacts.items[i];
  return NULL;
}

static bool is_reasons(const tl_artifact *a) {
  return name_starts(a, "recompile_reasons");
}
static bool is_guards(const tl_artifact *a) {
  return name_starts(a, "dynamo_cpp_guards_str");
}
static bool is_dynamo(const tl_artifact *a) {
  return name_starts(a, "dynamo_output_graph");
}
static bool is_aot_backward(const tl_artifact *a) {
  return name_starts(a, "aot_backward_graph");
}
static bool is_pre(const tl_artifact *a) { return a->role == TL_ROLE_PRE_GRAD; }
static bool is_pre_fallback(const tl_artifact *a) {
  return a->role == TL_ROLE_PRE_GRAD_FALLBACK;
}
static bool is_post(const tl_artifact *a) {
  return a->role == TL_ROLE_POST_GRAD;
}
static bool is_post_fallback(const tl_artifact *a) {
  return a->role == TL_ROLE_POST_GRAD_FALLBACK;
}

static bool is_code(const tl_artifact *a) {
  return a->role == TL_ROLE_OUTPUT_CODE || a->role == TL_ROLE_AOT_WRAPPER;
}

/* The first artifact after index `from` of the folder's part for which
 * `is` holds, before the next post-grad graph; NULL when none. */
static const tl_artifact *after(const folder *f, size_t from,
                                bool (*is)(const tl_artifact *)) {
  for (size_t i = from + 1; i < f->hi; i++) {
    const tl_artifact *a = &f->dir->artifacts.items[i];
    if (is_post(a) || is_post_fallback(a))
      return NULL;
    if (a->text_path && is(a))
      return a;
  }
  return NULL;
}

static bool is_kernel_code(const tl_artifact *a) {
  return a->role == TL_ROLE_AOT_KERNELS;
}
static bool is_mappings(const tl_artifact *a) {
  return a->role == TL_ROLE_NODE_MAPPINGS;
}

/* The code, kernel code and mappings of the compilation that logged the
 * post-grad graph (found in the folder part `f`); in a training compile,
 * the backward's compilation after it. */
static void take_compilation(tl_compile_files *c, const folder *f) {
  const tl_artifact *items = f->dir->artifacts.items;
  size_t at = (size_t)(c->post_grad - items);
  c->code = after(f, at, is_code);
  c->kernel_code = after(f, at, is_kernel_code);
  c->mappings = after(f, at, is_mappings);
  for (size_t i = at + 1; c->aot_backward && i < f->hi; i++)
    if (items[i].role == c->post_grad->role && items[i].text_path) {
      c->bw_post_grad = &items[i];
      c->bw_code = after(f, i, is_code);
      c->bw_kernel_code = after(f, i, is_kernel_code);
      c->bw_mappings = after(f, i, is_mappings);
      break;
    }
}

/* Fills the slot from the folder's part when still empty; true when it
 * did (the slot then points into that part's artifacts). */
static bool take(const tl_artifact **slot, const folder *f,
                 bool (*is)(const tl_artifact *)) {
  if (*slot)
    return false;
  *slot = first(f, is);
  return *slot != NULL;
}

/* ---- sessions ---------------------------------------------------------- */

static int by_id_then_line(const void *x, const void *y) {
  const tl_session_start *a = x, *b = y;
  if (a->frame != b->frame)
    return a->frame < b->frame ? -1 : 1;
  if (a->compile != b->compile)
    return a->compile < b->compile ? -1 : 1;
  return a->line < b->line ? -1 : a->line > b->line;
}

typedef struct start_ref {
  size_t line, start; /* index in the starts sorted by id */
} start_ref;

static int by_line(const void *x, const void *y) {
  const start_ref *a = x, *b = y;
  if (a->line != b->line)
    return a->line < b->line ? -1 : 1;
  return a->start < b->start ? -1 : a->start > b->start;
}

/* Every dynamo_start of a folder with a compile id, and the sessions they
 * make (see tl_session_start). */
static void find_sessions(const tl_store *store, tl_recompiles *out) {
  for (size_t i = 0; i < store->dirs.count; i++) {
    const tl_compile_dir *d = store->dirs.items[i];
    char autograd[24];
    long long frame, compile, attempt;
    if (d->unknown_id || !read_dir_name(d->dir_name, autograd, sizeof autograd,
                                        &frame, &compile, &attempt))
      continue;
    for (size_t k = 0; k < d->starts.count; k++) {
      tl_session_start s = {frame, compile, 1, d->starts.items[k].line};
      TL_VEC_PUSH(out->starts, s);
    }
  }
  size_t n = out->starts.count;
  tl_session_start *starts = out->starts.items;
  tl_sort(starts, n, sizeof *starts, by_id_then_line);
  /* In log order: a compile id started again in the current session
   * begins the next one, and so does [0/0] after any other id (see
   * tl_session_start). last[k]: the last session that started the id of
   * starts[k]'s run (kept at the run's first index). */
  start_ref *refs = tl_xcalloc(n + 1, sizeof *refs);
  size_t *run_first = tl_xcalloc(n + 1, sizeof *run_first);
  size_t *last = tl_xcalloc(n + 1, sizeof *last);
  for (size_t k = 0; k < n; k++) {
    refs[k] = (start_ref){starts[k].line, k};
    run_first[k] = k && starts[k].frame == starts[k - 1].frame &&
                           starts[k].compile == starts[k - 1].compile
                       ? run_first[k - 1]
                       : k;
  }
  tl_sort(refs, n, sizeof *refs, by_line);
  size_t session = 1;
  bool begun = false; /* the current session started some id */
  for (size_t k = 0; k < n; k++) {
    tl_session_start *s = &starts[refs[k].start];
    size_t *seen = &last[run_first[refs[k].start]];
    if (*seen == session || (begun && s->frame == 0 && s->compile == 0)) {
      session++;
      TL_VEC_PUSH(out->session_lines, refs[k].line);
    }
    *seen = session;
    begun = true;
    s->session = session;
  }
  out->sessions = session;
  free(refs);
  free(run_first);
  free(last);
}

size_t tl_recompiles_session(const tl_recompiles *r, long long frame,
                             long long compile, size_t line) {
  /* The session of the line: one more than the later sessions begun at or
   * before it. */
  size_t lo = 0, hi = r->session_lines.count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (r->session_lines.items[mid] <= line)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t session = lo + 1;
  /* The id's starts (sessions grow with their lines): the last of them in
   * that session or before, by binary search (an id may be started in
   * every one of thousands of sessions). */
  const tl_session_start *s = r->starts.items;
  tl_session_start probe = {frame, compile, 0, 0};
  lo = 0;
  hi = r->starts.count;
  while (lo < hi) { /* the first start of the id */
    size_t mid = lo + (hi - lo) / 2;
    if (by_id_then_line(&s[mid], &probe) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t end = lo;
  hi = r->starts.count;
  while (end < hi) { /* past the id's last start */
    size_t mid = end + (hi - end) / 2;
    if (s[mid].frame == frame && s[mid].compile == compile)
      end = mid + 1;
    else
      hi = mid;
  }
  hi = end;
  while (lo < hi) { /* the first of the id's starts after `session` */
    size_t mid = lo + (hi - lo) / 2;
    if (s[mid].session <= session)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t found = 0;
  if (lo > 0 && s[lo - 1].frame == frame && s[lo - 1].compile == compile &&
      s[lo - 1].session <= session)
    found = s[lo - 1].session;
  return found ? found : session;
}

static int by_size(const void *x, const void *y) {
  size_t a = *(const size_t *)x, b = *(const size_t *)y;
  return a < b ? -1 : a > b;
}

/* The folder's parts, one per session that logged into it: its artifacts
 * split by their sessions (which grow with the line), and the sessions of
 * its dynamo_starts and metrics that logged no artifact. */
static void split_folder(const tl_recompiles *r, folder x, folder **f,
                         size_t *k, size_t *cap) {
  const tl_compile_dir *d = x.dir;
  size_t na = d->artifacts.count, ns = d->starts.count,
         nm = d->metrics_by_line.count;
  /* Each entry's session, found once. */
  size_t *art = tl_xmalloc((na + 1) * sizeof *art);
  size_t *start = tl_xmalloc((ns + 1) * sizeof *start);
  size_t *met = tl_xmalloc((nm + 1) * sizeof *met);
  for (size_t i = 0; i < na; i++)
    art[i] = tl_recompiles_session(r, x.frame, x.compile,
                                   d->artifacts.items[i].line);
  for (size_t i = 0; i < ns; i++)
    start[i] =
        tl_recompiles_session(r, x.frame, x.compile, d->starts.items[i].line);
  for (size_t i = 0; i < nm; i++)
    met[i] = tl_recompiles_session(r, x.frame, x.compile,
                                   d->metrics_by_line.items[i].line);
  TL_VEC(size_t) sessions = {0};
  for (size_t i = 0; i < na; i++)
    if (!i || art[i] != art[i - 1])
      TL_VEC_PUSH(sessions, art[i]);
  for (size_t i = 0; i < ns; i++)
    TL_VEC_PUSH(sessions, start[i]);
  for (size_t i = 0; i < nm; i++)
    TL_VEC_PUSH(sessions, met[i]);
  if (!sessions.count) /* nothing with a line: the first session */
    TL_VEC_PUSH(sessions, (size_t)1);
  tl_sort(sessions.items, sessions.count, sizeof *sessions.items, by_size);
  size_t at = 0, m = 0, st = 0;
  for (size_t i = 0; i < sessions.count; i++) {
    if (i && sessions.items[i] == sessions.items[i - 1])
      continue;
    folder part = x;
    part.session = sessions.items[i];
    while (at < na && art[at] < part.session)
      at++;
    part.lo = part.hi = at;
    while (part.hi < na && art[part.hi] == part.session)
      part.hi++;
    at = part.hi;
    /* the first metrics and stack of the session (both in line order) */
    for (; m < nm && met[m] <= part.session; m++)
      if (met[m] == part.session && !part.metrics)
        part.metrics = d->metrics_by_line.items[m].numbers;
    for (; st < ns && start[st] <= part.session; st++)
      if (start[st] == part.session && !part.stack &&
          d->starts.items[st].stack != SIZE_MAX)
        part.stack = &d->stacks.items[d->starts.items[st].stack];
    if (*k == *cap) {
      *cap = *cap ? 2 * *cap : 16;
      *f = tl_xrealloc(*f, *cap * sizeof **f);
    }
    (*f)[(*k)++] = part;
  }
  TL_VEC_FREE(sessions);
  free(art);
  free(start);
  free(met);
}

void tl_recompiles_find(const tl_store *store, tl_recompiles *out) {
  memset(out, 0, sizeof *out);
  find_sessions(store, out);
  size_t n = store->dirs.count, k = 0, cap = 0;
  folder *f = NULL;
  for (size_t i = 0; i < n; i++) {
    folder x = {store->dirs.items[i], "", 0, 0, 0, 1, 0, 0, i, NULL, NULL};
    if (!store->dirs.items[i]->unknown_id &&
        read_dir_name(store->dirs.items[i]->dir_name, x.autograd,
                      sizeof x.autograd, &x.frame, &x.compile, &x.attempt))
      split_folder(out, x, &f, &k, &cap);
  }
  tl_sort(f, k, sizeof *f, by_compile);
  for (size_t i = 0; i < k;) {
    size_t j = i;
    tl_compile_files c = {0};
    snprintf(c.autograd, sizeof c.autograd, "%s", f[i].autograd);
    c.frame = f[i].frame;
    c.compile = f[i].compile;
    c.session = f[i].session;
    const folder *post_from = NULL; /* the part the post-grad graph is in */
    char number[32] = "";
    if (c.session > 1)
      snprintf(number, sizeof number, " #%zu", c.session);
    if (strcmp(c.autograd, "-") == 0)
      snprintf(c.display, sizeof c.display, "[%lld/%lld]%s", c.frame, c.compile,
               number);
    else
      snprintf(c.display, sizeof c.display, "[!%s/%lld/%lld]%s", c.autograd,
               c.frame, c.compile, number);
    for (; j < k && f[j].session == f[i].session && f[j].frame == f[i].frame &&
           f[j].compile == f[i].compile &&
           strcmp(f[j].autograd, f[i].autograd) == 0;
         j++) {
      const folder *d = &f[j];
      take(&c.reasons, d, is_reasons);
      take(&c.guards, d, is_guards);
      take(&c.dynamo_graph, d, is_dynamo);
      take(&c.aot_backward, d, is_aot_backward);
      take(&c.pre_grad, d, is_pre);
      if (take(&c.post_grad, d, is_post))
        post_from = d;
      if (!c.home && (first(d, is_dynamo) || first(d, is_post) ||
                      first(d, is_post_fallback)))
        c.home = d->dir;
      if (!c.stack)
        c.stack = d->stack;
    }
    for (size_t x = i; x < j; x++) { /* cache hits: the fallbacks */
      take(&c.pre_grad, &f[x], is_pre_fallback);
      if (take(&c.post_grad, &f[x], is_post_fallback))
        post_from = &f[x];
    }
    if (!c.home)
      c.home = f[j - 1].dir; /* attempt 0 comes last in this order */
    if (post_from)
      take_compilation(&c, post_from);
    for (size_t x = j; x > i && !c.metrics; x--)
      c.metrics = f[x - 1].metrics; /* attempt 0 first */
    TL_VEC_PUSH(out->compiles, c);
    i = j;
  }
  free(f);
  for (size_t i = 0; i < out->compiles.count;) {
    size_t j = i + 1;
    const tl_compile_files *c = &out->compiles.items[i];
    while (j < out->compiles.count &&
           out->compiles.items[j].session == c->session &&
           out->compiles.items[j].frame == c->frame &&
           strcmp(out->compiles.items[j].autograd, c->autograd) == 0)
      j++;
    if (j - i >= 2) {
      tl_recompiled_frame fr = {i, j - i};
      TL_VEC_PUSH(out->frames, fr);
    }
    i = j;
  }
}

void tl_recompiles_free(tl_recompiles *r) {
  TL_VEC_FREE(r->compiles);
  TL_VEC_FREE(r->frames);
  TL_VEC_FREE(r->session_lines);
  TL_VEC_FREE(r->starts);
}

void tl_recompile_stem(const tl_compile_files *a, const tl_compile_files *b,
                       char *out, size_t size) {
  char session[32] = "";
  if (b->session > 1)
    snprintf(session, sizeof session, "_session_%zu", b->session);
  snprintf(out, size, "recompile_%s_%lld_%lld_to_%lld%s", a->autograd, a->frame,
           a->compile, b->compile, session);
}

/* ---- JSON ---------------------------------------------------------------
 */
static void add_opt_str(cJSON *o, const char *key, tl_str s) {
  if (s.len)
    tl_json_add_str(o, key, s);
}

cJSON *tl_recompile_reasons_json(tl_compile_reader *files,
                                 const tl_compile_files *b) {
  cJSON *list = cJSON_CreateArray();
  tl_compile_file_text t;
  tl_compile_file_read(files, b->reasons, &t);
  tl_recompile_reasons reasons = {0};
  /* A JSON array of lines (several earlier compiles failed), or the lines. */
  tl_buf lines;
  tl_buf_init(&lines);
  cJSON *array = t.ok ? cJSON_ParseWithLength(t.text.data, t.text.len) : NULL;
  const cJSON *line;
  if (cJSON_IsArray(array)) {
    cJSON_ArrayForEach(line, array) {
      if (cJSON_IsString(line))
        tl_buf_printf(&lines, "%s\n", line->valuestring);
    }
  } else if (t.ok) {
    tl_buf_append(&lines, t.text.data, t.text.len);
  }
  cJSON_Delete(array);
  tl_recompile_reasons_read(tl_buf_str(&lines), &reasons);
  tl_buf words;
  tl_buf_init(&words);
  for (size_t i = 0; i < reasons.count; i++) {
    const tl_recompile_reason *r = &reasons.items[i];
    cJSON *o = cJSON_CreateObject();
    tl_json_add_str(o, "earlier", r->earlier);
    cJSON_AddStringToObject(o, "kind", tl_reason_kind_name(r->kind));
    tl_json_add_str(o, "text", r->text);
    tl_buf_clear(&words);
    tl_recompile_reason_words_in(&words, r, b->session);
    cJSON_AddStringToObject(o, "words", words.data);
    add_opt_str(o, "subject", r->subject);
    add_opt_str(o, "what", r->what);
    add_opt_str(o, "index", r->index);
    add_opt_str(o, "expected", r->expected);
    add_opt_str(o, "actual", r->actual);
    add_opt_str(o, "where", r->where);
    cJSON_AddItemToArray(list, o);
  }
  tl_buf_free(&words);
  tl_buf_free(&lines);
  TL_VEC_FREE(reasons);
  tl_buf_free(&t.text);
  return list;
}

static const char *guard_change_name(tl_guard_change c) {
  return c == TL_GUARD_REMOVED ? "removed"
         : c == TL_GUARD_ADDED ? "added"
                               : "changed";
}

static cJSON *guards_json(tl_compile_reader *files, const tl_compile_files *a,
                          const tl_compile_files *b) {
  cJSON *o = cJSON_CreateObject();
  tl_compile_file_text ta, tb;
  tl_compile_file_read(files, a->guards, &ta);
  tl_compile_file_read(files, b->guards, &tb);
  cJSON_AddBoolToObject(o, "available", ta.ok && tb.ok);
  tl_guards ga = {0}, gb = {0};
  tl_guards_read(tl_buf_str(&ta.text), &ga);
  tl_guards_read(tl_buf_str(&tb.text), &gb);
  cJSON_AddNumberToObject(o, "before_count", (double)ga.count);
  cJSON_AddNumberToObject(o, "after_count", (double)gb.count);
  tl_guard_diff d = {0};
  tl_guards_diff(&ga, &gb, &d);
  cJSON *changes = cJSON_AddArrayToObject(o, "changes");
  tl_buf words;
  tl_buf_init(&words);
  for (size_t i = 0; i < d.count; i++) {
    const tl_guard_diff_item *it = &d.items[i];
    const tl_guard *g = it->after ? it->after : it->before;
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "change", guard_change_name(it->change));
    tl_json_add_str(c, "kind", g->kind);
    tl_json_add_str(c, "source", g->source);
    if (it->before)
      tl_json_add_str(c, "before", it->before->code);
    if (it->after)
      tl_json_add_str(c, "after", it->after->code);
    tl_buf_clear(&words);
    if (it->before && it->after &&
        tl_guard_shape_words(&words, it->before->code, it->after->code))
      cJSON_AddStringToObject(c, "shape_change", words.data);
    add_opt_str(c, "where", g->comment);
    cJSON_AddItemToArray(changes, c);
  }
  tl_buf_free(&words);
  TL_VEC_FREE(d);
  TL_VEC_FREE(ga);
  TL_VEC_FREE(gb);
  tl_buf_free(&ta.text);
  tl_buf_free(&tb.text);
  return o;
}

static const char *fx_change_name(tl_fx_change c) {
  switch (c) {
  case TL_FX_SAME:
    return "same";
  case TL_FX_CHANGED:
    return "changed";
  case TL_FX_REMOVED:
    return "removed";
  case TL_FX_ADDED:
    break;
  }
  return "added";
}

static cJSON *side_json(const tl_fx_side *s) {
  cJSON *o = cJSON_CreateObject();
  tl_json_add_str(o, "name", s->name);
  tl_json_add_str(o, "op", s->op);
  tl_json_add_str(o, "type", s->type);
  cJSON_AddNumberToObject(o, "line", s->line);
  tl_json_add_str(o, "text", s->text);
  if (s->source.len)
    tl_json_add_str(o, "source", s->source);
  else
    cJSON_AddNullToObject(o, "source");
  return o;
}

/* A graph comparison and what its rows point into, kept for the kernels'
 * alignment. */
typedef struct graph_work {
  tl_compile_file_text ta, tb;
  tl_arena arena;
  tl_fx_diff d;
  bool ok;
} graph_work;

static void graph_work_free(graph_work *w) {
  if (w->ok) {
    tl_fx_diff_free(&w->d);
    tl_arena_free(&w->arena);
  }
  tl_buf_free(&w->ta.text);
  tl_buf_free(&w->tb.text);
}

static cJSON *graph_json(tl_compile_reader *files, const tl_artifact *a,
                         const tl_artifact *b, tl_analysis_cache *cache,
                         graph_work *w) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddItemToObject(
      o, "before", a ? cJSON_CreateString(a->text_path) : cJSON_CreateNull());
  cJSON_AddItemToObject(
      o, "after", b ? cJSON_CreateString(b->text_path) : cJSON_CreateNull());
  memset(w, 0, sizeof *w);
  tl_compile_file_read(files, a, &w->ta);
  tl_compile_file_read(files, b, &w->tb);
  if (!w->ta.ok || !w->tb.ok) {
    cJSON_AddBoolToObject(o, "available", false);
    return o;
  }
  cJSON_AddBoolToObject(o, "available", true);
  w->ok = true;
  tl_arena_init(&w->arena);
  tl_fx_diff *d = &w->d;
  tl_fx_diff_texts_cached(&w->arena, cache, tl_buf_str(&w->ta.text),
                          tl_buf_str(&w->tb.text), d);
  cJSON *sum = cJSON_AddObjectToObject(o, "summary");
  cJSON_AddNumberToObject(sum, "same", (double)d->same);
  cJSON_AddNumberToObject(sum, "renamed", (double)d->renamed);
  cJSON_AddNumberToObject(sum, "changed", (double)d->changed);
  cJSON_AddNumberToObject(sum, "removed", (double)d->removed);
  cJSON_AddNumberToObject(sum, "added", (double)d->added);
  cJSON_AddStringToObject(o, "aligned_by", d->by_op_only ? "op" : "score");
  cJSON_AddBoolToObject(o, "too_many_edits", d->too_large);
  cJSON *rows = cJSON_AddArrayToObject(o, "nodes");
  tl_buf words;
  tl_buf_init(&words);
  for (size_t i = 0; i < d->rows.count; i++) {
    const tl_fx_row *r = &d->rows.items[i];
    cJSON *row = cJSON_CreateObject();
    cJSON_AddStringToObject(row, "change", fx_change_name(r->change));
    if (r->change == TL_FX_SAME || r->change == TL_FX_CHANGED)
      cJSON_AddBoolToObject(row, "renamed", r->renamed);
    if (r->change == TL_FX_CHANGED) {
      cJSON_AddBoolToObject(row, "type_changed", r->type_changed);
      cJSON_AddBoolToObject(row, "args_changed", r->args_changed);
      tl_buf_clear(&words);
      if (r->type_changed &&
          tl_shape_change_words(&words, r->before.type, r->after.type))
        cJSON_AddStringToObject(row, "type_change", words.data);
    }
    cJSON_AddItemToObject(row, "before",
                          r->before.name.ptr ? side_json(&r->before)
                                             : cJSON_CreateNull());
    cJSON_AddItemToObject(row, "after",
                          r->after.name.ptr ? side_json(&r->after)
                                            : cJSON_CreateNull());
    cJSON_AddItemToArray(rows, row);
  }
  tl_buf_free(&words);
  return o;
}

static cJSON *compile_json(const tl_compile_files *c) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "compile_id", c->display);
  cJSON_AddStringToObject(o, "folder", c->home->dir_name);
  cJSON_AddNumberToObject(o, "session", (double)(c->session ? c->session : 1));
  return o;
}

cJSON *tl_recompile_diff_files(tl_compile_reader *files,
                               const tl_compile_files *a,
                               const tl_compile_files *b,
                               tl_analysis_cache *cache) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "schema", 1);
  cJSON_AddNumberToObject(o, "frame", (double)b->frame);
  cJSON_AddItemToObject(o, "before", compile_json(a));
  cJSON_AddItemToObject(o, "after", compile_json(b));
  cJSON *summary = cJSON_AddObjectToObject(o, "summary");
  cJSON_AddItemToObject(o, "reasons", tl_recompile_reasons_json(files, b));
  cJSON_AddItemToObject(o, "guards", guards_json(files, a, b));
  cJSON *graphs = cJSON_AddObjectToObject(o, "graphs");
  graph_work w;
  cJSON_AddItemToObject(
      graphs, "dynamo",
      graph_json(files, a->dynamo_graph, b->dynamo_graph, cache, &w));
  graph_work_free(&w);
  cJSON_AddItemToObject(graphs, "pre_grad",
                        graph_json(files, a->pre_grad, b->pre_grad, cache, &w));
  graph_work_free(&w);
  cJSON_AddItemToObject(
      graphs, "post_grad",
      graph_json(files, a->post_grad, b->post_grad, cache, &w));
  cJSON_AddItemToObject(
      o, "kernels",
      tl_recompile_kernels_json(files, a, b, w.ok ? &w.d : NULL, cache));
  graph_work_free(&w);
  /* A training compile's backward, compared as the forward is. */
  cJSON_AddItemToObject(
      graphs, "backward",
      graph_json(files, a->aot_backward, b->aot_backward, cache, &w));
  graph_work_free(&w);
  cJSON_AddItemToObject(
      graphs, "backward_post_grad",
      graph_json(files, a->bw_post_grad, b->bw_post_grad, cache, &w));
  tl_compile_files bw_a = tl_compile_files_backward(a),
                   bw_b = tl_compile_files_backward(b);
  cJSON_AddItemToObject(o, "backward_kernels",
                        tl_recompile_kernels_json(files, &bw_a, &bw_b,
                                                  w.ok ? &w.d : NULL, cache));
  graph_work_free(&w);
  cJSON_AddItemToObject(o, "metrics", tl_recompile_metrics_json(a, b));
  tl_recompile_summarize(o, summary);
  return o;
}

cJSON *tl_recompile_diff(const char *out_dir, const tl_compile_files *a,
                         const tl_compile_files *b, tl_analysis_cache *cache) {
  tl_compile_reader files;
  tl_compile_reader_init(&files, out_dir);
  cJSON *diff = tl_recompile_diff_files(&files, a, b, cache);
  tl_compile_reader_free(&files);
  return diff;
}
