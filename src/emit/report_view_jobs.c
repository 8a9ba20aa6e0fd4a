/* report_view_jobs.c: writes the provenance views of -i: each view
 * analyzed (join/), joined with the --profile traces, and written as its
 * JSON and highlighter page by a pool of worker threads, a view repeated
 * byte for byte copied from its first analysis. Part of emit/'s report
 * (report.h); each worker touches only its own job.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "emit/report_internal.h"
#include "util/cores.h"
#include "util/fsutil.h"
#include "util/mapped_text.h"
#include "util/utf8.h"
#include "json/json_print.h"
#ifdef HAVE_tl_page
#include "emit/provpage.h"
#endif
#ifdef HAVE_tl_profile
#include "profile/profile_join.h"
#include "profile/profile_view.h"
#endif

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
  /* The first of the view's own files (page, JSON) that could not be
   * written: an output error, which fails the run as any other does. */
  char write_error[512];
  /* Mapping entries of the wrong type: how many, and the first one. */
  size_t malformed;
  char malformed_example[256];
  size_t invalid_utf8; /* sequences written as U+FFFD in the view's JSON */
  const void *profile; /* tl_profile of --profile, or NULL */
  /* {"compile_id", "profile"} for the index's "where the time goes". */
  cJSON *profile_summary;
  tl_analysis_cache *cache; /* the run's, shared by the workers */
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
      !job->write_error[0])
    snprintf(job->write_error, sizeof job->write_error, "%s", error);
  tl_buf_free(&path);
}

#ifdef HAVE_tl_page
/* TLPARSE_DEFLATE_AT (docs/cli.md): the size from which a page embeds an
 * artifact text deflated (tl_provpage_deflate_at). */
void tl_report_read_deflate_at(void) {
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
  if (error[0] && !job->write_error[0])
    snprintf(job->write_error, sizeof job->write_error, "%s", error);
  tl_buf_free(&path);
}
#endif

/* The texts a view's analysis reads, each read from its file when the
 * build asks for it. A large one is mapped, and given back when the build
 * lets it go (tl_prov_inputs.load/release; the FX graphs perhaps from a
 * second thread: each text has its own buffer and error); the page reads
 * it again from its file, a piece at a time. One below MAP_TEXTS_FROM is
 * kept until the page is written, which reads it from here: each small
 * text's file is opened and read once per view. */
typedef struct view_texts {
  view_job *job;
  const tl_artifact *artifacts[TL_PROV_TEXTS];
  tl_buf texts[TL_PROV_TEXTS];
  bool read[TL_PROV_TEXTS];             /* texts[t] holds the whole file */
  tl_mapped_text mapped[TL_PROV_TEXTS]; /* or mapped, when large */
  char errors[TL_PROV_TEXTS][512];
} view_texts;

/* A text of this many bytes or more is mapped (mapped_text.h), so that the
 * analyses passing over it hold only the part they are at. */
enum { MAP_TEXTS_FROM = 1 << 20 };

static tl_str load_text(void *ctx, tl_prov_text t) {
  view_texts *vt = ctx;
  if (vt->read[t]) /* kept from an earlier load */
    return tl_buf_str(&vt->texts[t]);
  tl_buf_init(&vt->texts[t]);
  const tl_artifact *a = vt->artifacts[t];
  if (!a || !a->text_path)
    return (tl_str){NULL, 0};
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s", vt->job->out_dir, a->text_path);
  tl_str text = {NULL, 0};
  int how =
      tl_mapped_text_load(&vt->mapped[t], &vt->texts[t], path.data,
                          MAP_TEXTS_FROM, vt->errors[t], sizeof vt->errors[t]);
  if (how > 0) {
    text = vt->mapped[t].text;
  } else if (how == 0) {
    vt->read[t] = true;
    text = tl_buf_str(&vt->texts[t]);
  } else {
    tl_buf_free(&vt->texts[t]); /* what a failed read got */
  }
  tl_buf_free(&path);
  return text;
}

static void release_text(void *ctx, tl_prov_text t) {
  view_texts *vt = ctx;
  if (!vt->read[t])
    tl_buf_free(&vt->texts[t]);
  tl_mapped_text_close(&vt->mapped[t]);
}

static void free_texts(view_texts *vt) {
  for (int t = 0; t < TL_PROV_TEXTS; t++) {
    tl_buf_free(&vt->texts[t]);
    vt->read[t] = false;
    tl_mapped_text_close(&vt->mapped[t]);
  }
}

#ifdef HAVE_tl_page
/* The page's reader of a view's texts (tl_provpage_text_reader): each
 * artifact's file, a piece at a time. */
typedef struct deflate_ahead deflate_ahead;
typedef struct text_files {
  view_job *job;
  const view_texts *kept;     /* the texts the analysis read, or NULL */
  tl_str text;                /* the open text, when kept */
  size_t at;                  /* how far it has been read */
  tl_fs_reader file;          /* else the open file */
  char path[4096];            /* of the open file */
  bool quiet;                 /* another thread's reader: notes no error */
  const deflate_ahead *ahead; /* panels deflated ahead, or NULL */
} text_files;

/* Notes a problem with a text at page time, unless one is noted already. */
static void note_text_error(text_files *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note_text_error(text_files *t, const char *fmt, ...) {
  if (t->quiet || t->job->error[0])
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
  t->text = (tl_str){NULL, 0};
  if (!a || !a->text_path)
    return false;
  for (int k = 0; t->kept && k < TL_PROV_TEXTS; k++)
    if (t->kept->artifacts[k] == a && t->kept->read[k]) {
      t->text = tl_buf_str(&t->kept->texts[k]);
      t->at = 0;
      *size = t->text.len;
      return true;
    }
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
  if (t->text.ptr) {
    size_t n = t->text.len - t->at < cap ? t->text.len - t->at : cap;
    memcpy(buf, t->text.ptr + t->at, n);
    t->at += n;
    return n;
  }
  return tl_fs_reader_read(&t->file, buf, cap);
}

static bool text_file_failed(void *ctx) {
  text_files *t = ctx;
  if (!t->text.ptr && t->file.failed)
    note_text_error(t,
                    "cannot read %.400s whole (a read error, or it changed "
                    "while read)",
                    t->path);
  return !t->text.ptr && t->file.failed;
}

/* A large view's panels deflated ahead (tl_provpage_deflate_read), as its
 * page embeds them, by a thread that waits for an idle core while the view
 * is analyzed: on two cores, once the view's FX graphs are done while its
 * code is still parsed, or once both are done while the view's thread
 * joins them and writes the view's JSON. The page, written on the view's
 * thread after that, then copies the bytes instead of deflating them there
 * (docs/performance.md, "The floors"). The view's thread gives the helper
 * up when the page is due; a panel it has not made is deflated then, as
 * before. Only for a view whose code is TL_CORES_HELPER_CODE_MIN bytes or
 * more: a smaller one's page deflates little. */
enum { AHEAD_PANELS = 4 };
static const char *const ahead_panel[AHEAD_PANELS] = {"code", "post", "pre",
                                                      "kernel"};

struct deflate_ahead {
  view_job *job;
  pthread_t thread;
  bool started;
  atomic_bool give_up;
  tl_buf made[AHEAD_PANELS];
  bool whole[AHEAD_PANELS]; /* made[i] is the panel's, read whole */
};

static void *deflate_ahead_thread(void *arg) {
  deflate_ahead *a = arg;
  if (!tl_cores_claim_idle(&a->give_up))
    return NULL;
  text_files files = {.job = a->job, .quiet = true};
  tl_provpage_text_reader reader = {open_text_file, read_text_file,
                                    text_file_failed, &files, NULL};
  for (int i = 0; i < AHEAD_PANELS && !atomic_load(&a->give_up); i++) {
    a->whole[i] =
        tl_provpage_deflate_read(&a->made[i], &reader, ahead_panel[i]);
    if (!a->whole[i])
      tl_buf_free(&a->made[i]);
  }
  tl_fs_reader_close(&files.file);
  tl_cores_busy_end();
  return NULL;
}

/* Starts the helper for a view analyzed here (`analyzed`; a copy's page
 * deflates what it reads) whose code text is TL_CORES_HELPER_CODE_MIN bytes or
 * more, when the process may run on more than one core. */
static void deflate_ahead_start(deflate_ahead *a, view_job *job,
                                bool analyzed) {
  memset(a, 0, sizeof *a);
  a->job = job;
  atomic_init(&a->give_up, false);
  for (int i = 0; i < AHEAD_PANELS; i++)
    tl_buf_init(&a->made[i]);
  const tl_artifact *code = job->view->code;
  struct stat st;
  char path[4096];
  if (!analyzed || !code || !code->text_path || tl_cores_usable() < 2)
    return;
  snprintf(path, sizeof path, "%s/%s", job->out_dir, code->text_path);
  if (stat(path, &st) != 0 || st.st_size < TL_CORES_HELPER_CODE_MIN)
    return;
  a->started = pthread_create(&a->thread, NULL, deflate_ahead_thread, a) == 0;
}

/* Gives the helper up and joins it: what it made is the page's to take. */
static void deflate_ahead_stop(deflate_ahead *a) {
  if (!a->started)
    return;
  atomic_store(&a->give_up, true);
  tl_cores_wake();
  pthread_join(a->thread, NULL);
  a->started = false;
}

static void deflate_ahead_free(deflate_ahead *a) {
  deflate_ahead_stop(a);
  for (int i = 0; i < AHEAD_PANELS; i++)
    tl_buf_free(&a->made[i]);
}

/* tl_provpage_text_reader.deflated: a panel the helper made. */
static bool deflated_ahead(void *ctx, const char *which, tl_str *made) {
  const deflate_ahead *a = ((text_files *)ctx)->ahead;
  for (int i = 0; a && i < AHEAD_PANELS; i++)
    if (a->whole[i] && strcmp(which, ahead_panel[i]) == 0) {
      *made = tl_buf_str(&a->made[i]);
      return true;
    }
  return false;
}
#endif

/* Writes the view's JSON file from its text (cJSON_Print's layout), the
 * text first made valid UTF-8 in place: names from the trace may hold any
 * bytes, and the file, the page (which embeds this text) and a copy's JSON
 * must not. */
static void write_view_json(view_job *job, tl_buf *text) {
  job->invalid_utf8 = tl_utf8_repair_in_place(text);
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
  view_texts texts = {.job = job,
                      .artifacts = {v->pre, v->post, v->code, v->kernel_code,
                                    v->mappings, v->stack_traces}};
#ifdef HAVE_tl_page
  deflate_ahead ahead;
  deflate_ahead_start(&ahead, job, !copy);
#endif
  if (copy) {
    json = copy_view_json(&jobs[job->original].json, v);
  } else {
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
    in.cache = job->cache;
    cJSON *malformed = NULL;
    tl_provenance_write(&in, &text, &malformed);
    for (int t = 0; t < TL_PROV_TEXTS; t++) {
      tl_mapped_text_close(&texts.mapped[t]); /* any the build kept */
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
  deflate_ahead_stop(&ahead);
  text_files files = {
      .job = job, .kept = copy ? NULL : &texts, .ahead = &ahead};
  tl_provpage_text_reader reader = {open_text_file, read_text_file,
                                    text_file_failed, &files, deflated_ahead};
  tl_provpage_view page_view = {v->dir->display, v->dir->dir_name,
                                tl_buf_str(&text)};
  write_page(job, &page_view, &reader);
  tl_fs_reader_close(&files.file);
  deflate_ahead_free(&ahead);
#endif
  free_texts(&texts);
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
  tl_cores_busy_begin();
  for (;;) {
    pthread_mutex_lock(&q->lock);
    size_t i = q->next++;
    pthread_mutex_unlock(&q->lock);
    if (i >= q->count)
      break;
    run_view_job(&q->jobs[q->order[i]], q->jobs);
  }
  tl_cores_busy_end();
  return NULL;
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

/* The identity of a view's content: the md5s of its artifacts. An artifact
 * whose md5 was not computed (payload lines kept after an entry without
 * has_payload) has no identity to share, so its view gets a key of its own
 * (`index`) and is analyzed, never copied from another. */
static void view_key(const view_job *job, size_t index, char *key,
                     size_t size) {
  const tl_view *v = job->view;
  const tl_artifact *parts[] = {v->pre,         v->post,     v->code,
                                v->kernel_code, v->mappings, v->stack_traces};
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
    if (parts[i] && !parts[i]->md5[0]) {
      snprintf(key, size, "#%zu", index);
      return;
    }
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

void tl_report_print_cache_stats(tl_analysis_cache *cache) {
  const char *stats = getenv("TLPARSE_STATS");
  if (!stats || strcmp(stats, "1") != 0)
    return;
  tl_analysis_cache_stats s = tl_analysis_cache_stats_of(cache);
  fprintf(stderr,
          "tlparse: stats: analysis cache: %zu hits (%zu from other "
          "ranks), %zu misses, %zu collisions, %zu evictions, %zu entries "
          "of %zu bytes\n",
          s.hits, s.shared_hits, s.misses, s.collisions, s.evictions, s.entries,
          s.bytes);
}

/* Analyzes the views on `threads` threads: first every distinct view, then
 * the copies of repeated ones; each worker writes its view's files. With a
 * profile, summaries[i] gets view i's {"compile_id", "profile"}. */
void tl_report_write_views(tl_store *store, tl_view *views, size_t count,
                           int threads, const void *profile,
                           tl_analysis_cache *cache, cJSON **summaries,
                           tl_diag *diag) {
  view_job *jobs = tl_xcalloc(count ? count : 1, sizeof *jobs);
  char(*keys)[256] = tl_xcalloc(count ? count : 1, sizeof *keys);
  size_t *order = tl_xcalloc(count ? count : 1, sizeof *order);
  for (size_t i = 0; i < count; i++) {
    jobs[i].cache = cache;
    jobs[i].out_dir = store->out_dir;
    jobs[i].view = &views[i];
    jobs[i].aot = views[i].code && views[i].code->role == TL_ROLE_AOT_WRAPPER;
    jobs[i].original = i;
    jobs[i].profile = profile;
    view_key(&jobs[i], i, keys[i], sizeof keys[i]);
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
    if (jobs[i].write_error[0]) {
      tl_diag_add(diag, TL_DIAG_OUTPUT, 0, "%s", jobs[i].write_error);
      if (!store->failed) {
        store->failed = true;
        snprintf(store->error, sizeof store->error, "%s", jobs[i].write_error);
      }
    }
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
