/* report.c: index.html, compile_directory.json, failures_and_restarts.html
 * and the provenance views, written after the whole trace is stored. */
#include "emit/report.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/compile_directory.h"
#include "emit/metrics_pages.h"
#include "emit/recompile_pages.h"
#include "util/fsutil.h"
#include "util/html.h"
#include "util/intern.h"
#include "util/mapped_text.h"
#include "util/utf8.h"
#include "json/json_print.h"
#ifdef HAVE_tl_engine
#include "join/provenance.h"
#endif
#ifdef HAVE_tl_page
#include "emit/provpage.h"
#endif
#ifdef HAVE_tl_docs
#include "emit/help.h"
#endif
#ifdef HAVE_tl_profile
#include "profile/profile_join.h"
#include "profile/profile_reader.h"
#include "profile/profile_verdicts.h"
#include "profile/profile_view.h"
#endif

static bool is_pre(tl_role r) {
  return r == TL_ROLE_PRE_GRAD || r == TL_ROLE_PRE_GRAD_FALLBACK;
}
static bool is_post(tl_role r) {
  return r == TL_ROLE_POST_GRAD || r == TL_ROLE_POST_GRAD_FALLBACK;
}
static bool is_code(tl_role r) {
  return r == TL_ROLE_OUTPUT_CODE || r == TL_ROLE_AOT_WRAPPER;
}

/* The preferred graph of [from, to): the last of the preferred role, else
 * the last of the fallback role. */
static const tl_artifact *pick_graph(const tl_compile_dir *dir, size_t from,
                                     size_t to, tl_role preferred,
                                     tl_role fallback) {
  const tl_artifact *best = NULL, *second = NULL;
  for (size_t i = from; i < to; i++) {
    const tl_artifact *a = &dir->artifacts.items[i];
    if (a->role == preferred)
      best = a;
    else if (a->role == fallback)
      second = a;
  }
  return best ? best : second;
}

static const tl_artifact *pick_last(const tl_compile_dir *dir, size_t from,
                                    size_t to, bool (*match)(tl_role)) {
  const tl_artifact *found = NULL;
  for (size_t i = from; i < to; i++)
    if (match(dir->artifacts.items[i].role))
      found = &dir->artifacts.items[i];
  return found;
}

static bool is_kernels(tl_role r) { return r == TL_ROLE_AOT_KERNELS; }
static bool is_stack(tl_role r) { return r == TL_ROLE_STACK_TRACES; }
static bool starts_next_view(tl_role r) {
  return is_pre(r) || is_post(r) || r == TL_ROLE_NODE_MAPPINGS;
}

size_t tl_report_choose_views(const tl_compile_dir *dir, tl_view **views) {
  TL_VEC(tl_view) out = {0};
  size_t n = dir->artifacts.count;
  size_t segment_start = 0;
  const tl_artifact *carried_pre = NULL;
  for (size_t i = 0; i < n; i++) {
    if (dir->artifacts.items[i].role != TL_ROLE_NODE_MAPPINGS)
      continue;
    tl_view v = {0};
    v.dir = dir;
    v.mappings = &dir->artifacts.items[i];
    v.pre = pick_graph(dir, segment_start, i, TL_ROLE_PRE_GRAD,
                       TL_ROLE_PRE_GRAD_FALLBACK);
    if (!v.pre)
      v.pre = carried_pre; /* a backward compile reuses the forward's graph */
    carried_pre = v.pre;
    v.post = pick_graph(dir, segment_start, i, TL_ROLE_POST_GRAD,
                        TL_ROLE_POST_GRAD_FALLBACK);
    v.code = pick_last(dir, segment_start, i, is_code);
    v.kernel_code = pick_last(dir, segment_start, i, is_kernels);
    /* What this compilation logs after its mapping: the stack traces, and in
     * early-2025 AOT traces the wrapper and kernel code. */
    size_t end = i + 1;
    while (end < n && !starts_next_view(dir->artifacts.items[end].role))
      end++;
    const tl_artifact *late_code = pick_last(dir, i + 1, end, is_code);
    const tl_artifact *late_kernels = pick_last(dir, i + 1, end, is_kernels);
    if (!v.code && late_code) {
      v.code = late_code;
      if (!v.kernel_code)
        v.kernel_code = late_kernels;
    }
    v.stack_traces = pick_last(dir, i + 1, end, is_stack);
    TL_VEC_PUSH(out, v);
    segment_start = end;
  }
  if (out.count == 0) {
    tl_view v = {0};
    v.dir = dir;
    v.pre = pick_graph(dir, 0, n, TL_ROLE_PRE_GRAD, TL_ROLE_PRE_GRAD_FALLBACK);
    v.post =
        pick_graph(dir, 0, n, TL_ROLE_POST_GRAD, TL_ROLE_POST_GRAD_FALLBACK);
    v.code = pick_last(dir, 0, n, is_code);
    v.kernel_code = pick_last(dir, 0, n, is_kernels);
    TL_VEC_PUSH(out, v);
  }
  for (size_t k = 0; k < out.count; k++) {
    tl_buf name;
    tl_buf_init(&name);
    tl_buf_printf(&name, "provenance_tracking_%s", dir->dir_name);
    if (k + 1 < out.count)
      tl_buf_printf(&name, "_%zu", k);
    out.items[k].name = tl_buf_detach(&name);
  }
  *views = out.items;
  return out.count;
}

#ifdef HAVE_tl_engine
static const char *path_of(const tl_artifact *a) {
  return a ? a->text_path : NULL;
}

/* One view to analyze and write. Views whose artifacts are byte-identical to
 * an earlier view's (the same compilation logged again, as in concatenated or
 * repeated runs) reuse that view's analysis: `original` is the index of the
 * first such view, or the job's own index. */
typedef struct view_job {
  const char *out_dir;
  tl_view *view;
  bool aot;
  size_t original;
  bool has_copies; /* keep `json` for the copies */
  tl_buf json;     /* the view's JSON without layout, kept for the copies */
  char error[512]; /* first problem, reported by the main thread */
  /* Mapping entries of the wrong type: how many, and the first one. */
  size_t malformed;
  char malformed_example[256];
  size_t invalid_utf8; /* sequences written as U+FFFD in the view's JSON */
  const void *profile; /* tl_profile of --profile, or NULL */
  /* {"compile_id", "profile"} for the index's "where the time goes". */
  cJSON *profile_summary;
} view_job;

/* Notes the view's skipped mapping entries (its "malformed" list). */
static void note_malformed(view_job *job, const cJSON *list) {
  const cJSON *first = cJSON_GetArrayItem(list, 0);
  if (!first)
    return;
  job->malformed = (size_t)cJSON_GetArraySize(list);
  const cJSON *section = cJSON_GetObjectItemCaseSensitive(first, "section");
  const cJSON *key = cJSON_GetObjectItemCaseSensitive(first, "key");
  const cJSON *problem = cJSON_GetObjectItemCaseSensitive(first, "problem");
  snprintf(job->malformed_example, sizeof job->malformed_example,
           "%s[\"%.80s\"]: %s",
           cJSON_IsString(section) ? section->valuestring : "",
           cJSON_IsString(key) ? key->valuestring : "",
           cJSON_IsString(problem) ? problem->valuestring : "");
}

static void set_string(cJSON *obj, const char *key, const char *value) {
  cJSON *item = value ? cJSON_CreateString(value) : cJSON_CreateNull();
  if (cJSON_GetObjectItemCaseSensitive(obj, key))
    cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
  else
    cJSON_AddItemToObject(obj, key, item);
}

/* A copy's JSON: the original's analysis (its JSON text) with this view's
 * names. */
static cJSON *copy_view_json(const tl_buf *original, const tl_view *v) {
  cJSON *json = tl_json_parse_printed(tl_buf_str(original));
  set_string(json, "compile_dir", v->dir->dir_name);
  set_string(json, "compile_id", v->dir->display);
  cJSON *art = cJSON_GetObjectItemCaseSensitive(json, "artifacts");
  if (cJSON_IsObject(art)) {
    set_string(art, "pre_grad_graph", path_of(v->pre));
    set_string(art, "post_grad_graph", path_of(v->post));
    set_string(art, "code", path_of(v->code));
    set_string(art, "kernel_code", path_of(v->kernel_code));
    set_string(art, "node_mappings", path_of(v->mappings));
    set_string(art, "kernel_stack_traces", path_of(v->stack_traces));
  }
  return json;
}

static void write_output(view_job *job, const char *suffix, const char *data,
                         size_t len) {
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s%s", job->out_dir, job->view->name, suffix);
  char error[512];
  if (!tl_fs_write_file(path.data, data, len, error, sizeof error) &&
      !job->error[0])
    snprintf(job->error, sizeof job->error, "%s", error);
  tl_buf_free(&path);
}

#ifdef HAVE_tl_page
/* TLPARSE_DEFLATE_AT (docs/cli.md): the size from which a page embeds an
 * artifact text deflated (tl_provpage_deflate_at). */
static void read_deflate_at(void) {
  const char *value = getenv("TLPARSE_DEFLATE_AT");
  if (!value)
    return;
  char *end = NULL;
  errno = 0;
  unsigned long long n = strtoull(value, &end, 10);
  if (*value < '0' || *value > '9' || *end || errno) {
    fprintf(stderr,
            "tlparse: TLPARSE_DEFLATE_AT=%s is not a number of bytes; "
            "texts of %zu bytes or more are deflated\n",
            value, (size_t)TL_PROVPAGE_DEFLATE_AT_DEFAULT);
    return;
  }
  tl_provpage_deflate_at = n > SIZE_MAX ? SIZE_MAX : (size_t)n;
}

/* Renders the view's page straight into its file, a megabyte at a time, so
 * that a page of a huge compile is never held whole. */
static void write_page(view_job *job, const tl_provpage_view *view,
                       const tl_provpage_text_reader *texts) {
  const tl_view *v = job->view;
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s.html", job->out_dir, v->name);
  char error[512];
  tl_fs_writer file;
  if (tl_fs_writer_open(&file, path.data, error, sizeof error)) {
    tl_buf page;
    tl_buf_init(&page);
    tl_buf_drain_into(&page, tl_fs_writer_write, &file);
    if (!v->pre && !v->post && !v->code && !v->kernel_code && !v->mappings &&
        !v->stack_traces)
      tl_provpage_render_empty(&page, view, "index.html",
                               "help.html#highlighter");
    else
      tl_provpage_render_text(&page, view, texts, "index.html",
                              "help.html#highlighter");
    tl_buf_drain(&page);
    tl_buf_free(&page);
    if (tl_fs_writer_close(&file, error, sizeof error))
      error[0] = '\0';
  }
  if (error[0] && !job->error[0])
    snprintf(job->error, sizeof job->error, "%s", error);
  tl_buf_free(&path);
}
#endif

/* The texts a view's analysis reads, each read from its file when the
 * build asks for it and freed when the build lets it go
 * (tl_prov_inputs.load/release; the FX graphs perhaps from a second
 * thread: each text has its own buffer and error). The page reads them
 * again from their files. */
typedef struct view_texts {
  view_job *job;
  const tl_artifact *artifacts[TL_PROV_TEXTS];
  tl_buf texts[TL_PROV_TEXTS];
  tl_mapped_text mapped[TL_PROV_TEXTS]; /* or mapped, when large */
  char errors[TL_PROV_TEXTS][512];
} view_texts;

/* A text of this many bytes or more is mapped (mapped_text.h), so that the
 * analyses passing over it hold only the part they are at. */
enum { MAP_TEXTS_FROM = 1 << 20 };

static tl_str load_text(void *ctx, tl_prov_text t) {
  view_texts *vt = ctx;
  tl_buf_init(&vt->texts[t]);
  const tl_artifact *a = vt->artifacts[t];
  if (!a || !a->text_path)
    return (tl_str){NULL, 0};
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s", vt->job->out_dir, a->text_path);
  tl_str text = {NULL, 0};
  if (tl_mapped_text_open(&vt->mapped[t], path.data, MAP_TEXTS_FROM))
    text = vt->mapped[t].text;
  else if (tl_fs_read_file(path.data, &vt->texts[t], vt->errors[t],
                           sizeof vt->errors[t]))
    text = tl_buf_str(&vt->texts[t]);
  else
    tl_buf_free(&vt->texts[t]); /* what a failed read got */
  tl_buf_free(&path);
  return text;
}

static void release_text(void *ctx, tl_prov_text t) {
  view_texts *vt = ctx;
  tl_buf_free(&vt->texts[t]);
  tl_mapped_text_close(&vt->mapped[t]);
}

#ifdef HAVE_tl_page
/* The page's reader of a view's texts (tl_provpage_text_reader): each
 * artifact's file, a piece at a time. */
typedef struct text_files {
  view_job *job;
  tl_fs_reader file;
  char path[4096]; /* of the open file */
} text_files;

/* Notes a problem with a text at page time, unless one is noted already. */
static void note_text_error(text_files *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note_text_error(text_files *t, const char *fmt, ...) {
  if (t->job->error[0])
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->job->error, sizeof t->job->error, fmt, ap);
  va_end(ap);
}

static bool open_text_file(void *ctx, const char *which, size_t *size) {
  text_files *t = ctx;
  const tl_view *v = t->job->view;
  const tl_artifact *a = strcmp(which, "pre") == 0      ? v->pre
                         : strcmp(which, "post") == 0   ? v->post
                         : strcmp(which, "code") == 0   ? v->code
                         : strcmp(which, "kernel") == 0 ? v->kernel_code
                                                        : NULL;
  tl_fs_reader_close(&t->file);
  if (!a || !a->text_path)
    return false;
  snprintf(t->path, sizeof t->path, "%s/%s", t->job->out_dir, a->text_path);
  char error[512];
  bool ok = tl_fs_reader_open(&t->file, t->path, error, sizeof error);
  if (!ok)
    note_text_error(t, "%s", error);
  *size = t->file.size;
  return ok;
}

static size_t read_text_file(void *ctx, char *buf, size_t cap) {
  text_files *t = ctx;
  return tl_fs_reader_read(&t->file, buf, cap);
}

static bool text_file_failed(void *ctx) {
  text_files *t = ctx;
  if (t->file.failed)
    note_text_error(t,
                    "cannot read %.400s whole (a read error, or it changed "
                    "while read)",
                    t->path);
  return t->file.failed;
}
#endif

/* Writes the view's JSON file from its text (cJSON_Print's layout), the
 * text first made valid UTF-8 in place: names from the trace may hold any
 * bytes, and the file, the page (which embeds this text) and a copy's JSON
 * must not. */
static void write_view_json(view_job *job, tl_buf *text) {
  if (tl_utf8_valid_prefix(tl_buf_str(text)) != text->len) {
    tl_buf valid;
    tl_buf_init(&valid);
    job->invalid_utf8 = tl_utf8_repair(&valid, tl_buf_str(text));
    tl_buf_free(text);
    *text = valid;
  }
  write_output(job, ".json", text->data, text->len);
}

/* Analyzes (or copies) one view, renders its page and writes both files;
 * touches no shared state but its own job and, read-only, its original's
 * JSON. The view's JSON is text throughout (tl_provenance_write): a cJSON
 * tree of it, several times its size, is made only for a copy or a
 * profile join. */
static void run_view_job(view_job *job, view_job *jobs) {
  tl_view *v = job->view;
  tl_prov_inputs in = {0};
  in.compile_dir = v->dir->dir_name;
  in.compile_id = v->dir->display;
  in.aot = job->aot;
  bool copy = job->original != (size_t)(job - jobs);
  tl_buf text; /* the view's JSON */
  tl_buf_init(&text);
  cJSON *json = NULL;
  if (copy) {
    json = copy_view_json(&jobs[job->original].json, v);
  } else {
    view_texts texts = {.job = job,
                        .artifacts = {v->pre, v->post, v->code, v->kernel_code,
                                      v->mappings, v->stack_traces}};
    in.pre_path = path_of(v->pre);
    in.post_path = path_of(v->post);
    in.code_path = path_of(v->code);
    in.kernel_code_path = path_of(v->kernel_code);
    in.mappings_path = path_of(v->mappings);
    in.stack_traces_path = path_of(v->stack_traces);
    in.load = load_text;
    in.release = release_text;
    in.texts_ctx = &texts;
    in.summary = &v->summary;
    cJSON *malformed = NULL;
    tl_provenance_write(&in, &text, &malformed);
    for (int t = 0; t < TL_PROV_TEXTS; t++) {
      tl_buf_free(&texts.texts[t]); /* any the build did not let go */
      tl_mapped_text_close(&texts.mapped[t]);
      if (texts.errors[t][0]) /* the last in artifact order, as before */
        snprintf(job->error, sizeof job->error, "%s", texts.errors[t]);
    }
    note_malformed(job, malformed);
    cJSON_Delete(malformed);
  }
#ifdef HAVE_tl_profile
  if (job->profile) { /* "where the time goes" (profile_join.h) */
    if (!json)
      json = tl_json_parse_printed(tl_buf_str(&text));
    cJSON_DeleteItemFromObjectCaseSensitive(json, "profile");
    tl_profile_view_facts facts;
    tl_profile_view_facts_read(job->out_dir, v->dir, v->mappings, v->pre,
                               v->post, job->aot, &facts);
    cJSON_AddItemToObject(json, "profile",
                          tl_profile_join(job->profile, json, &facts));
    tl_profile_view_facts_free(&facts);
  }
#endif
  if (json) {
    tl_buf_clear(&text);
    tl_json_print_tree(&text, json);
  }
  write_view_json(job, &text);
  /* The page embeds the JSON without its layout: made in place. */
  tl_json_compact(&text, tl_buf_str(&text));
#ifdef HAVE_tl_page
  text_files files = {job, {NULL, 0, 0, false}, ""};
  tl_provpage_text_reader texts = {open_text_file, read_text_file,
                                   text_file_failed, &files};
  tl_provpage_view page_view = {v->dir->display, v->dir->dir_name,
                                tl_buf_str(&text)};
  write_page(job, &page_view, &texts);
  tl_fs_reader_close(&files.file);
#endif
#ifdef HAVE_tl_profile
  if (job->profile) { /* written: the index takes the profile over */
    job->profile_summary = cJSON_CreateObject();
    cJSON_AddStringToObject(job->profile_summary, "compile_id",
                            v->dir->display);
    cJSON_AddStringToObject(job->profile_summary, "view", v->name);
    cJSON_AddItemToObject(
        job->profile_summary, "profile",
        cJSON_DetachItemFromObjectCaseSensitive(json, "profile"));
  }
#endif
  cJSON_Delete(json);
  if (job->has_copies)
    job->json = text;
  else
    tl_buf_free(&text);
}

typedef struct job_queue {
  view_job *jobs;
  size_t *order; /* indices to run, in turn */
  size_t count;
  size_t next;
  pthread_mutex_t lock;
} job_queue;

static void *view_worker(void *arg) {
  job_queue *q = arg;
  for (;;) {
    pthread_mutex_lock(&q->lock);
    size_t i = q->next++;
    pthread_mutex_unlock(&q->lock);
    if (i >= q->count)
      return NULL;
    run_view_job(&q->jobs[q->order[i]], q->jobs);
  }
}

static void run_jobs(view_job *jobs, size_t *order, size_t count, int threads) {
  job_queue q = {jobs, order, count, 0, PTHREAD_MUTEX_INITIALIZER};
  int extra = threads > 1 && count > 1 ? threads - 1 : 0;
  pthread_t tids[16];
  if (extra > 16)
    extra = 16;
  int started = 0;
  for (int t = 0; t < extra; t++)
    if (pthread_create(&tids[started], NULL, view_worker, &q) == 0)
      started++;
  view_worker(&q);
  for (int t = 0; t < started; t++)
    pthread_join(tids[t], NULL);
}

/* The identity of a view's content: the md5s of its artifacts. */
static void view_key(const view_job *job, char *key, size_t size) {
  const tl_view *v = job->view;
  const tl_artifact *parts[] = {v->pre,         v->post,     v->code,
                                v->kernel_code, v->mappings, v->stack_traces};
  size_t n = 0;
  key[n++] = job->aot ? 'a' : 'j';
  for (size_t i = 0; i < sizeof parts / sizeof *parts && n + 34 < size; i++) {
    const char *md5 = parts[i] ? parts[i]->md5 : "";
    size_t len = strlen(md5);
    memcpy(key + n, md5, len);
    n += len;
    key[n++] = '|';
  }
  key[n] = '\0';
}

static char (*sort_keys)[256];
static int by_key(const void *a, const void *b) {
  size_t i = *(const size_t *)a, j = *(const size_t *)b;
  int c = strcmp(sort_keys[i], sort_keys[j]);
  return c ? c : (i < j ? -1 : i > j);
}

/* Analyzes the views on `threads` threads: first every distinct view, then
 * the copies of repeated ones; each worker writes its view's files. With a
 * profile, summaries[i] gets view i's {"compile_id", "profile"}. */
static void write_views(tl_store *store, tl_view *views, size_t count,
                        int threads, const void *profile, cJSON **summaries,
                        tl_diag *diag) {
  view_job *jobs = tl_xcalloc(count ? count : 1, sizeof *jobs);
  char(*keys)[256] = tl_xcalloc(count ? count : 1, sizeof *keys);
  size_t *order = tl_xcalloc(count ? count : 1, sizeof *order);
  for (size_t i = 0; i < count; i++) {
    jobs[i].out_dir = store->out_dir;
    jobs[i].view = &views[i];
    jobs[i].aot = views[i].code && views[i].code->role == TL_ROLE_AOT_WRAPPER;
    jobs[i].original = i;
    jobs[i].profile = profile;
    view_key(&jobs[i], keys[i], sizeof keys[i]);
    order[i] = i;
  }
  /* Sorting is not thread-safe through sort_keys, but this runs before any
   * worker starts. */
  sort_keys = keys;
  tl_sort(order, count, sizeof *order, by_key);
  sort_keys = NULL;
  for (size_t k = 1; k < count; k++) {
    size_t prev = order[k - 1], cur = order[k];
    if (strcmp(keys[prev], keys[cur]) == 0) {
      jobs[cur].original = jobs[prev].original;
      jobs[jobs[cur].original].has_copies = true;
    }
  }
  size_t distinct = 0, copies = 0;
  for (size_t i = 0; i < count; i++)
    if (jobs[i].original == i)
      order[distinct++] = i;
  run_jobs(jobs, order, distinct, threads);
  for (size_t i = 0; i < count; i++)
    if (jobs[i].original != i) {
      order[copies++] = i;
      views[i].summary = jobs[jobs[i].original].view->summary;
    }
  run_jobs(jobs, order, copies, threads);
  for (size_t i = 0; i < count; i++) {
    if (jobs[i].error[0])
      tl_diag_add(diag, TL_DIAG_PROVENANCE, 0, "%s: %s", views[i].name,
                  jobs[i].error);
    if (jobs[i].invalid_utf8)
      tl_diag_add(diag, TL_DIAG_PROVENANCE,
                  views[i].mappings ? views[i].mappings->line : 0,
                  "%s.json: %zu invalid UTF-8 sequence%s in names written "
                  "as U+FFFD",
                  views[i].name, jobs[i].invalid_utf8,
                  jobs[i].invalid_utf8 == 1 ? "" : "s");
    if (jobs[i].malformed)
      tl_diag_add(diag, TL_DIAG_PROVENANCE, views[i].mappings->line,
                  "node mappings: %zu entr%s of the wrong type skipped, "
                  "first %s",
                  jobs[i].malformed, jobs[i].malformed == 1 ? "y" : "ies",
                  jobs[i].malformed_example);
    tl_buf_free(&jobs[i].json);
    summaries[i] = jobs[i].profile_summary;
  }
  free(order);
  free(keys);
  free(jobs);
}
#endif

/* One compile id's files as the Rust index lists them: the path (a link's
 * name), its readable page, the cache marker and the running number. */
static void artifact_list(tl_buf *html, const tl_compile_dir *dir) {
  tl_buf_puts(html, "<ul class=\"artifacts\">\n");
  for (size_t k = 0; k < dir->artifacts.count; k++) {
    const tl_artifact *a = &dir->artifacts.items[k];
    tl_buf_puts(html, "<li>");
    const char *text = a->url || !a->path ? a->name : a->path;
    if (a->url || a->path) {
      tl_buf_puts(html, "<a href=\"");
      if (a->url)
        tl_html_escape_cstr(html, a->url);
      else
        tl_url_path(html, a->path);
      tl_buf_puts(html, "\">");
      tl_html_escape_cstr(html, text);
      tl_buf_puts(html, "</a>");
    } else {
      tl_html_escape_cstr(html, text);
    }
    if (a->readable_path) {
      tl_buf_puts(html, " (<a href=\"");
      tl_url_path(html, a->readable_path);
      tl_buf_puts(html, "\">readable_html</a>)");
    }
    tl_buf_printf(html, " %s <span class=\"num\">(%d)</span>",
                  tl_cache_suffix(a), a->listed_number);
    if (a->text_path && a->path && strcmp(a->text_path, a->path) != 0) {
      tl_buf_puts(html, " <a class=\"raw\" href=\"");
      tl_url_path(html, a->text_path);
      tl_buf_puts(html, "\">exact text</a>");
    }
    tl_buf_puts(html, "</li>\n");
  }
  tl_buf_puts(html, "</ul>\n");
}

#if defined(HAVE_tl_engine) && defined(HAVE_tl_page)
enum { VIEWS_BUILT = 1 };
#else
enum { VIEWS_BUILT = 0 };
#endif

/* "JIT Python", "JIT cpp_wrapper" or "AOTInductor": a view's mode as the
 * index names it (tl_prov_summary.mode). */
static const char *mode_name(const char *mode) {
  if (!mode)
    return NULL;
  if (strcmp(mode, "aot") == 0)
    return "AOTInductor";
  if (strcmp(mode, "jit-cpp-wrapper") == 0)
    return "JIT cpp_wrapper";
  return "JIT Python";
}

/* The frame a compile folder compiled: its first dynamo_start's innermost
 * frame, or NULL. */
static const tl_frame *compiled_frame(const tl_compile_dir *dir) {
  const tl_stack *stack = dir->stacks.count ? &dir->stacks.items[0] : NULL;
  return stack && stack->count ? &stack->frames[stack->count - 1] : NULL;
}

/* The compiled frame of a compile folder as a view's line names it:
 * "forward at model.py:12" (the file's full path on hover). */
static void frame_of(tl_buf *html, const tl_compile_dir *dir) {
  const tl_frame *f = compiled_frame(dir);
  if (!f)
    return;
  const char *file = f->file ? f->file : "(unknown)";
  const char *base = strrchr(file, '/');
  base = base && base[1] ? base + 1 : file;
  tl_buf_puts(html, " · <span class=\"frame\" title=\"");
  tl_html_escape_cut(html, tl_str_from(file), TL_HTML_SHOWN_MAX);
  tl_buf_printf(html, ":%lld\">", f->line);
  tl_html_escape_cut(html, tl_str_from(f->name ? f->name : "?"),
                     TL_HTML_SHOWN_MAX);
  tl_buf_puts(html, " at ");
  tl_html_escape_cut(html, tl_str_from(base), TL_HTML_SHOWN_MAX);
  tl_buf_printf(html, ":%lld</span>", f->line);
}

/* One view's link, and what it holds: compile id, frame, mode, kernels and
 * the share of them whose call the code shows. A view of a folder that
 * logged no provenance artifact is listed apart ("none"). */
static void view_links(tl_buf *html, tl_view *views, size_t count) {
  if (!VIEWS_BUILT) {
    if (count)
      tl_buf_puts(html, "<li>This tlparse was built without the provenance "
                        "engine and page.</li>\n");
    return;
  }
  for (size_t i = 0; i < count; i++) {
    const tl_view *v = &views[i];
    const tl_prov_summary *s = &v->summary;
    bool none = !v->mappings && !v->pre && !v->post && !v->code;
    tl_buf_puts(html,
                none ? "<li class=\"none\"><a href=\"" : "<li><a href=\"");
    tl_url_path(html, views[i].name);
    tl_buf_puts(html, ".html\">");
    tl_html_escape_cstr(html, views[i].name);
    tl_buf_puts(html, "</a> <a class=\"raw\" href=\"");
    tl_url_path(html, views[i].name);
    tl_buf_puts(html, ".json\">json</a>");
    tl_buf_puts(html, " <span class=\"facts\">");
    tl_html_escape_cstr(html,
                        v->dir->unknown_id ? "(unknown)" : v->dir->display);
    frame_of(html, v->dir);
    if (none) {
      tl_buf_puts(html, " · <span class=\"note\">no provenance artifacts"
                        "</span></span></li>\n");
      continue;
    }
    const char *mode = mode_name(s->mode);
    if (mode)
      tl_buf_printf(html, " · %s", mode);
    if (!v->mappings)
      tl_buf_puts(html, " · <span class=\"note\">no node mappings</span>");
    else if (s->mode) {
      tl_buf_printf(html, " · %zu %s", s->kernels,
                    s->kernels == 1 ? "kernel" : "kernels");
      if (s->kernels && !s->no_links_reason)
        tl_buf_printf(html, ", %zu linked (%zu %%)", s->kernels_called,
                      s->kernels_called * 100 / s->kernels);
      if (s->no_links_reason) {
        tl_buf_puts(html, " · <span class=\"note\">no links: ");
        tl_html_escape_cstr(html, s->no_links_reason);
        tl_buf_puts(html, "</span>");
      }
    }
    tl_buf_puts(html, "</span></li>\n");
  }
}

/* A help section from docs/help, folded under a one-line summary. */
static void inline_help(tl_buf *html, const char *summary,
                        const char *section_id) {
#ifdef HAVE_tl_docs
  tl_buf_puts(html, "<details class=\"help\"><summary>");
  tl_html_escape_cstr(html, summary);
  tl_buf_puts(html, "</summary>\n");
  tl_help_render_section(html, section_id);
  tl_buf_puts(html, "</details>\n");
#else
  (void)html;
  (void)summary;
  (void)section_id;
#endif
}

static void diagnostics_section(tl_buf *html, const tl_diag *diag) {
  tl_buf_puts(html, "<section id=\"diagnostics\">\n<h2>Diagnostics</h2>\n");
  if (tl_diag_total(diag) == 0) {
    tl_buf_puts(html, "<p>Every line of the trace was read.</p>\n");
  } else {
    tl_buf_puts(html, "<table class=\"diag\">\n<tr><th>what</th><th>count</th>"
                      "<th>first places</th></tr>\n");
    for (int k = 0; k < TL_DIAG_KIND_COUNT; k++) {
      if (!diag->counts[k])
        continue;
      tl_buf_puts(html, "<tr><td>");
      tl_html_escape_cstr(html, tl_diag_kind_title((tl_diag_kind)k));
      tl_buf_printf(html, "</td><td>%zu</td><td><ul>", diag->counts[k]);
      for (int i = 0; i < TL_DIAG_EXAMPLES; i++) {
        const tl_diag_example *e = &diag->examples[k][i];
        if (!e->message)
          break;
        tl_buf_puts(html, "<li><code>");
        tl_html_escape_cstr(html, diag->file_name);
        if (e->line)
          tl_buf_printf(html, ":%zu", e->line);
        tl_buf_puts(html, "</code> ");
        tl_html_escape_cstr(html, e->message);
        tl_buf_puts(html, "</li>");
      }
      tl_buf_puts(html, "</ul></td></tr>\n");
    }
    tl_buf_puts(html, "</table>\n");
  }
  inline_help(html, "What the diagnostics mean", "diagnostics");
  tl_buf_puts(html, "</section>\n");
}

static const char TOGGLE_SCRIPT[] =
    "<script>\nfunction toggleList(toggleItem) {\n"
    "  const nested = toggleItem.parentNode.querySelector('ul');\n"
    "  if (nested) {\n"
    "    nested.style.display = nested.style.display === 'none' ? 'block' : "
    "'none';\n"
    "    toggleItem.classList.toggle('collapsed');\n  }\n}\n</script>\n";

/* The Rust tool's stack trie section, with its colour legend. */
static void stack_trie_section(tl_buf *html, const tl_store *store) {
  tl_buf_puts(
      html,
      "<section id=\"stack-trie\">\n<h2>Stack trie</h2>\n<p>Where in your "
      "program each compilation started: every stack that triggered a PT2 "
      "compilation, merged where stacks share a prefix (most recent call "
      "last); each compile id stands on its last frame.</p>\n"
      "<p>Links to particular compilation are color coded by status: <span "
      "class=\"status-ok\">[Success]</span>, <span class=\"status-break\">"
      "[Success with restart (e.g., graph break)]</span>, <span "
      "class=\"status-empty\">[Empty graph]</span>, <span "
      "class=\"status-error\">[Error]</span>, <span "
      "class=\"status-missing\">[Metrics were missing]</span></p>\n");
  tl_stack_trie_render(html, store);
  tl_buf_puts(html, "</section>\n");
}

/* Rust's "Failures and Restarts" pointer, when there is anything. */
static void failures_section(tl_buf *html, const tl_store *store) {
  if (!store->failure_count)
    return;
  tl_buf_printf(
      html,
      "<section id=\"failures\">\n<h2> Failures and Restarts </h2>\n<p>"
      "Various issues may cause Dynamo to restart its analysis or give up on "
      "compilation entirely, causing graph breaks and fallbacks to eager "
      "mode. This run had <strong><a href=\"failures_and_restarts.html\">%zu "
      "restart(s) and/or compilation failure(s)</a></strong>.</p>\n"
      "</section>\n",
      store->failure_count);
}

static void chromium_section(tl_buf *html, const tl_store *store) {
  if (store->chromium.count)
    tl_buf_puts(html, "<h2> Chromium Events </h2>\n<p>PT2 generates <a "
                      "href=\"chromium_events.json\">Chromium Trace "
                      "Events</a> in JSON on specific events during "
                      "compilation. You can download and view them in a tool "
                      "like <a href=\"https://ui.perfetto.dev/\">Perfetto"
                      "</a>.</p>\n");
  if (store->collectives_parity_link)
    tl_buf_puts(html, "<p><a href=\"collectives_parity.json\">Collectives "
                      "Parity report</a> comparing scheduler and Inductor "
                      "output code collective operations.</p>\n");
  if (store->unknown_count) {
    tl_buf_printf(html, "<p class=\"note\">%zu unknown entr%s (first: <code>",
                  store->unknown_count,
                  store->unknown_count == 1 ? "y" : "ies");
    tl_html_escape_cstr(html, store->first_unknown);
    tl_buf_puts(html, "</code>), not shown here: see <a "
                      "href=\"raw.jsonl\">raw.jsonl</a>.</p>\n");
  }
}

/* One compile folder under "Build products": the Rust anchor (the id) on
 * the first folder of each id, ours (the folder) on every one. */
/* One compile folder's heading, artifacts and views; `first` when no
 * earlier folder has its display name (only the first gets the anchor). */
static void compile_item(tl_buf *html, const tl_store *store, size_t i,
                         bool first, const tl_report_options *options,
                         tl_view *views, size_t view_count) {
  const tl_compile_dir *dir = store->dirs.items[i];
  tl_buf_puts(html, "<div class=\"compile\" id=\"");
  tl_html_escape_cstr(html, dir->dir_name);
  tl_buf_puts(html, "\">\n<h3><a");
  if (first) {
    tl_buf_puts(html, " id=\"");
    tl_html_escape_cstr(html, dir->unknown_id ? "(unknown)" : dir->display);
    tl_buf_puts(html, "\"");
  }
  tl_buf_puts(html, ">");
  tl_html_escape_cstr(html, dir->unknown_id ? "(unknown)" : dir->display);
  tl_buf_puts(html, "</a> <span class=\"dir\">");
  tl_html_escape_cstr(html, dir->dir_name);
  tl_buf_puts(html, "</span>");
  /* The compiled frame: "model.py:12 in f". */
  const tl_frame *last = compiled_frame(dir);
  if (last) {
    tl_buf_puts(html, " <span class=\"frame\">");
    tl_html_escape_cut(html, tl_str_from(last->file ? last->file : "(unknown)"),
                       TL_HTML_SHOWN_MAX);
    tl_buf_printf(html, ":%lld in ", last->line);
    tl_html_escape_cstr(html, last->name ? last->name : "");
    tl_buf_puts(html, "</span>");
  }
  if (dir->fail_type) {
    tl_buf_puts(html, " <span class=\"fail\">");
    tl_html_escape_cstr(html, dir->fail_type);
    tl_buf_puts(html, "</span>");
  }
  tl_buf_puts(html, "</h3>\n");
  artifact_list(html, dir);
  if (options->provenance) {
    tl_buf_puts(html, "<ul class=\"views\">\n");
    view_links(html, views, view_count);
    tl_buf_puts(html, "</ul>\n");
  }
  tl_buf_puts(html, "</div>\n");
}

/* The profiled views' summaries (write_views), in the order of `views`. */
typedef struct time_summaries {
  const tl_view *views;
  cJSON **summaries;
  size_t count;
} time_summaries;

/* "Where the time goes" (profile_join.h) over the views that have one. */
static void time_section(tl_buf *html, const time_summaries *time) {
#ifdef HAVE_tl_profile
  const cJSON **views =
      tl_xcalloc(time->count ? time->count : 1, sizeof *views);
  char **hrefs = tl_xcalloc(time->count ? time->count : 1, sizeof *hrefs);
  size_t n = 0;
  for (size_t i = 0; i < time->count; i++) {
    if (!time->summaries[i])
      continue;
    tl_buf href;
    tl_buf_init(&href);
    tl_url_path(&href, time->views[i].name);
    tl_buf_puts(&href, ".html");
    hrefs[n] = tl_buf_detach(&href);
    views[n++] = time->summaries[i];
  }
  tl_profile_where_time_goes(html, views, (const char *const *)hrefs, n);
  for (size_t i = 0; i < n; i++)
    free(hrefs[i]);
  free(hrefs);
  free(views);
#else
  (void)html;
  (void)time;
#endif
}

/* The torch version the trace logs (artifact torch_version, payload
 * {"pytorch_version": "2.13.0+cpu", ...}), read back from its file, as
 * " Recorded with torch <code>V</code>." on the index; nothing when the
 * trace has none (torch before 2.6) or it holds no such string. */
static void torch_version_sentence(tl_buf *html, const tl_store *store) {
  for (size_t i = 0; i < store->dirs.count; i++) {
    const tl_compile_dir *d = store->dirs.items[i];
    for (size_t j = 0; j < d->artifacts.count; j++) {
      const tl_artifact *a = &d->artifacts.items[j];
      if (strncmp(a->name, "torch_version_", 14) != 0 || !a->path)
        continue;
      tl_buf path, text;
      tl_buf_init(&path);
      tl_buf_init(&text);
      tl_buf_printf(&path, "%s/%s", store->out_dir,
                    a->text_path ? a->text_path : a->path);
      char error[256];
      cJSON *json = tl_fs_read_file(path.data, &text, error, sizeof error)
                        ? cJSON_ParseWithLength(text.data, text.len)
                        : NULL;
      const cJSON *v =
          cJSON_GetObjectItemCaseSensitive(json, "pytorch_version");
      if (cJSON_IsString(v)) {
        tl_buf_puts(html, " Recorded with torch <code>");
        tl_html_escape_cstr(html, v->valuestring);
        tl_buf_puts(html, "</code>.");
      }
      cJSON_Delete(json);
      tl_buf_free(&path);
      tl_buf_free(&text);
      return;
    }
  }
}

/* The views of the run, for the recompile pages' links (tl_view_page_fn):
 * the view showing a post-grad graph. */
typedef struct view_list {
  const tl_view *items;
  size_t count;
} view_list;

static const char *view_page(void *ctx, const tl_artifact *post) {
  const view_list *v = ctx;
  for (size_t i = 0; i < v->count; i++)
    if (v->items[i].post == post)
      return v->items[i].name;
  return NULL;
}

static void write_index(tl_store *store, const tl_report_options *options,
                        const tl_diag *diag, tl_view **dir_views,
                        size_t *dir_view_counts, const time_summaries *time,
                        const tl_buf *recompiles) {
  tl_buf html;
  tl_buf_init(&html);
  tl_html_page_begin(&html, "tlparse report", "");
  if (options->custom_header_html)
    tl_buf_puts(&html, options->custom_header_html); /* the user's own HTML */
  tl_buf_puts(&html, TOGGLE_SCRIPT);
  tl_buf_puts(&html,
              "<h1>tlparse report</h1>\n<p class=\"input\">Trace: <code>");
  tl_html_escape_cstr(&html, options->input_name);
  tl_buf_printf(&html, "</code>, %zu %s, %zu compile %s.", store->record_count,
                store->record_count == 1 ? "entry" : "entries",
                store->dirs.count,
                store->dirs.count == 1 ? "folder" : "folders");
  torch_version_sentence(&html, store);
  tl_buf_puts(
      &html,
      " <a href=\"help.html\">Help</a> · <a href=\"failures_and_restarts."
      "html\">Failures and restarts</a> · <a href=\"chromium_events."
      "json\">chromium_events.json</a> (load in Perfetto) · <a "
      "href=\"raw.jsonl\">raw.jsonl</a> · <a "
      "href=\"compile_directory.json\">compile_directory.json</a></p>\n");
  diagnostics_section(&html, diag);
  stack_trie_section(&html, store);
  failures_section(&html, store);
  tl_buf_append(&html, recompiles->data, recompiles->len);
  time_section(&html, time);
  if (options->provenance) {
    tl_buf_puts(&html,
                "<section id=\"provenance\">\n<h2>Provenance Tracking"
                "</h2>\n<p>Three linked panels per Inductor compilation: "
                "pre-grad graph, post-grad graph and generated code "
                "(<a href=\"help.html#highlighter\">how to read "
                "them</a>).</p>\n<ul>\n");
    for (size_t i = 0; i < store->dirs.count; i++)
      view_links(&html, dir_views[i], dir_view_counts[i]);
    tl_buf_puts(&html, "</ul>\n</section>\n");
  }
  tl_buf_puts(&html, "<section id=\"compiles\">\n<h2>IR dumps</h2>\n"
                     "<p>The intermediate products of each compilation, by "
                     "compile id in log order, each with its running "
                     "number.</p>\n");
  inline_help(&html, "What a compile id like [0/1_1] means", "compile-ids");
  inline_help(&html, "What the artifacts are", "artifacts");
  chromium_section(&html, store);
  tl_buf_puts(&html, "<p>Build products below:</p>\n");
  /* Display names seen, for the anchors: a set, not a scan of the earlier
   * folders (quadratic in compile folders). */
  tl_intern seen = {0};
  for (size_t i = 0; i < store->dirs.count; i++) {
    size_t before = seen.count;
    tl_intern_get(&seen, store->dirs.items[i]->display);
    compile_item(&html, store, i, seen.count > before, options, dir_views[i],
                 dir_view_counts[i]);
  }
  tl_intern_free(&seen);
  tl_buf_puts(&html, "</section>\n");
  if (store->unknown_stacks.count) {
    tl_buf_puts(&html,
                "<section id=\"unknown-stacks\">\n<h2>Unknown stacks</h2>\n"
                "<p>Stacks logged beside entries rather than by a compile "
                "(torch.export's guards and expressions, for example), "
                "merged by common prefix; each ends in (unknown).</p>\n");
    tl_unknown_stack_trie_render(&html, store);
    tl_buf_puts(&html, "</section>\n");
  }
  tl_html_page_end(&html);
  tl_store_write(store, "index.html", html.data, html.len);
  tl_buf_free(&html);
}

static void write_failures(tl_store *store) {
  tl_buf html;
  tl_buf_init(&html);
  tl_failures_page_render(&html, &store->failure_rows, store->failure_count);
  tl_store_write(store, "failures_and_restarts.html", html.data, html.len);
  tl_buf_free(&html);
}

static void write_help(tl_store *store) {
  tl_buf html;
  tl_buf_init(&html);
#ifdef HAVE_tl_docs
  tl_help_render_page(&html);
#else
  tl_html_page_begin(&html, "tlparse help", "");
  tl_buf_puts(&html, "<p>Help was not built into this binary.</p>\n");
  tl_html_page_end(&html);
#endif
  tl_store_write(store, "help.html", html.data, html.len);
  tl_buf_free(&html);
}

#ifdef HAVE_tl_page
/* The style and script every provenance page loads from static/. */
static void write_page_static(tl_store *store) {
  tl_buf css;
  tl_buf_init(&css);
  tl_str js;
  tl_provpage_static(&css, &js);
  tl_store_write(store, TL_PROVPAGE_STATIC "provenance.css", css.data, css.len);
  tl_store_write(store, TL_PROVPAGE_STATIC "provenance.js", js.ptr, js.len);
  tl_buf_free(&css);
}
#endif

/* The Rust tool names a folder's provenance page by its compile id, with a
 * missing attempt read as 0: `-_0_1_-` gets provenance_tracking_-_0_1_0.
 * Writes that name into `out` when it differs from the folder's and no
 * folder of the store has it (a folder `-_0_1_0` keeps its own page). */
static bool rust_view_base(const tl_store *store, const tl_compile_dir *dir,
                           tl_buf *out) {
  size_t n = strlen(dir->dir_name);
  if (dir->unknown_id || n < 4 || strcmp(dir->dir_name + n - 2, "_-") != 0 ||
      dir->dir_name[n - 3] == '-')
    return false;
  tl_buf_clear(out);
  tl_buf_append(out, dir->dir_name, n - 1);
  tl_buf_putc(out, '0');
  for (size_t i = 0; i < store->dirs.count; i++)
    if (strcmp(store->dirs.items[i]->dir_name, out->data) == 0)
      return false;
  return true;
}

static void rename_views(const tl_store *store, const tl_compile_dir *dir,
                         tl_view *views, size_t count) {
  tl_buf base;
  tl_buf_init(&base);
  if (rust_view_base(store, dir, &base)) {
    for (size_t k = 0; k < count; k++) {
      tl_buf name;
      tl_buf_init(&name);
      tl_buf_printf(&name, "provenance_tracking_%s", base.data);
      if (k + 1 < count)
        tl_buf_printf(&name, "_%zu", k);
      free(views[k].name);
      views[k].name = tl_buf_detach(&name);
    }
  }
  tl_buf_free(&base);
}

#ifdef HAVE_tl_profile
/* The profile's verdicts as diagnostics: each view it does not match (with
 * its evidence), and each file that is unreadable, truncated, empty or
 * matches no view (what --strict fails on; profile_join.h). */
static void profile_verdicts(const tl_profile *profile, cJSON **summaries,
                             size_t count, tl_diag *diag) {
  const cJSON **views = tl_xcalloc(count ? count : 1, sizeof *views);
  size_t n = 0;
  for (size_t i = 0; i < count; i++)
    if (summaries[i])
      views[n++] = summaries[i];
  tl_buf line;
  tl_buf_init(&line);
  for (size_t i = 0; i < n; i++) {
    tl_buf_clear(&line);
    if (tl_profile_view_verdict(views[i], &line))
      tl_diag_add(diag, TL_DIAG_PROFILE_MISMATCH, 0, "%s", line.data);
    tl_buf_clear(&line);
    if (tl_profile_view_gaps(views[i], &line))
      tl_diag_add(diag, TL_DIAG_PROFILE, 0, "%s", line.data);
  }
  for (size_t f = 0; f < profile->files.count; f++) {
    tl_buf_clear(&line);
    if (tl_profile_file_verdict(profile, f, views, n, &line))
      tl_diag_add(diag, TL_DIAG_PROFILE_UNUSABLE, 0, "%s", line.data);
  }
  tl_buf_free(&line);
  free(views);
}
#endif

bool tl_report_write(tl_store *store, const tl_report_options *options,
                     tl_diag *diag) {
  size_t dirs = store->dirs.count;
  tl_view **dir_views = tl_xcalloc(dirs ? dirs : 1, sizeof *dir_views);
  size_t *counts = tl_xcalloc(dirs ? dirs : 1, sizeof *counts);
  TL_VEC(tl_view) all = {0};
  cJSON **summaries = NULL;
  if (options->provenance) {
#ifdef HAVE_tl_page
    read_deflate_at();
#endif
    for (size_t i = 0; i < dirs; i++) {
      counts[i] = tl_report_choose_views(store->dirs.items[i], &dir_views[i]);
      rename_views(store, store->dirs.items[i], dir_views[i], counts[i]);
      for (size_t k = 0; k < counts[i]; k++)
        TL_VEC_PUSH(all, dir_views[i][k]);
    }
#ifdef HAVE_tl_profile
    tl_profile *profile =
        options->profile_count
            ? tl_profile_read(options->profiles, options->profile_count)
            : NULL;
    for (size_t i = 0; profile && i < profile->problems.count; i++)
      tl_diag_add(diag, TL_DIAG_PROFILE, 0, "profile: %s (%llu): first %s",
                  profile->problems.items[i].what,
                  (unsigned long long)profile->problems.items[i].count,
                  profile->problems.items[i].example);
#else
    void *profile = NULL;
    if (options->profile_count)
      tl_diag_add(diag, TL_DIAG_PROFILE, 0,
                  "--profile ignored: this tlparse was built without it");
#endif
    summaries = tl_xcalloc(all.count ? all.count : 1, sizeof *summaries);
#ifdef HAVE_tl_page
    write_page_static(store);
#endif
#ifdef HAVE_tl_engine
    write_views(store, all.items, all.count, options->threads, profile,
                summaries, diag);
    /* The index lists each folder's views with what writing them found. */
    for (size_t i = 0, j = 0; i < dirs; i++)
      for (size_t k = 0; k < counts[i]; k++)
        dir_views[i][k] = all.items[j++];
#endif
#ifdef HAVE_tl_profile
    if (profile)
      profile_verdicts(profile, summaries, all.count, diag);
    tl_profile_free(profile);
#endif
  }
  time_summaries time = {all.items, summaries, summaries ? all.count : 0};
  tl_buf recompiles;
  tl_buf_init(&recompiles);
  view_list views = {all.items, all.count};
  tl_recompile_pages_write(store, &recompiles,
                           options->provenance ? view_page : NULL, &views);
  write_index(store, options, diag, dir_views, counts, &time, &recompiles);
  tl_buf_free(&recompiles);
  for (size_t i = 0; i < time.count; i++)
    cJSON_Delete(summaries[i]);
  free(summaries);
  TL_VEC_FREE(all);
  tl_compile_directory_write(store);
  write_failures(store);
  write_help(store);
  for (size_t i = 0; i < dirs; i++) {
    for (size_t k = 0; k < counts[i]; k++)
      free(dir_views[i][k].name);
    free(dir_views[i]);
  }
  free(dir_views);
  free(counts);
  return !store->failed;
}
