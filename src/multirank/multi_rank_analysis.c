/* multi_rank_analysis.c: the files that join the ranks (parity spec 1.4:
 * chromium_events.json, runtime_estimations.json,
 * chromium_trace_with_runtime.json, collective_schedules.json) written from
 * the rank summaries, and the divergences the landing page reports (1.5,
 * 1.6). Only chromium_events.json reads rank files again, one rank at a
 * time and streamed out, so memory stays bounded by the largest rank.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "multirank/multi_rank_internal.h"
#include "util/fsutil.h"
#include "json/chromium_events.h"
#include "json/json_number.h"
#include "json/json_serde.h"

/* FxHash-64 (rustc-hash 1.x) of (rank: u32, graph: &str), low 32 bits: the
 * Rust tool's thread id for a graph. */
static uint64_t fx_add(uint64_t h, uint64_t word) {
  return ((h << 5 | h >> 59) ^ word) * 0x517cc1b727220a95ULL;
}

uint32_t tl_mr_fxhash_tid(unsigned rank, const char *graph) {
  uint64_t h = fx_add(0, rank);
  const unsigned char *p = (const unsigned char *)graph;
  size_t n = strlen(graph);
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w = 0;
    for (int i = 7; i >= 0; i--)
      w = w << 8 | p[i];
    h = fx_add(h, w);
  }
  if (n >= 4) {
    h = fx_add(h, (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
                      (uint64_t)p[3] << 24);
    p += 4;
    n -= 4;
  }
  for (; n; p++, n--)
    h = fx_add(h, *p);
  h = fx_add(h, 0xff);
  return (uint32_t)h;
}

static bool write_out(const char *out_dir, const char *name, const tl_buf *b,
                      char *error, size_t error_size) {
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s", out_dir, name);
  bool ok = tl_fs_write_file(path.data, b->data, b->len, error, error_size);
  tl_buf_free(&path);
  return ok;
}

static bool open_combined(tl_mr_events *e, const char *out_dir) {
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/chromium_events.json", out_dir);
  e->f = fopen(path.data, "wx");
  if (!e->f)
    snprintf(e->error, sizeof e->error, "cannot write %s: %s", path.data,
             strerror(errno));
  tl_buf_free(&path);
  return e->f != NULL;
}

/* Says why the combined file could not be written: `err` is the errno
 * saved right after the failing call, before any other ran. */
static void write_failed(tl_mr_events *e, const char *out_dir, int err) {
  snprintf(e->error, sizeof e->error,
           "cannot write %s/chromium_events.json: %s", out_dir,
           strerror(err ? err : EIO));
}

/* Appends the events of one rank file (a JSON array) to e->f. */
static bool append_rank_events(tl_mr_events *e, const char *text, size_t n,
                               unsigned rank, const char *out_dir) {
  tl_buf chunk;
  tl_buf_init(&chunk);
  bool ok = true;
  size_t i = tl_chromium_skip_ws(text, 0, n);
  if (i < n && text[i] == '[')
    i = tl_chromium_skip_ws(text, i + 1, n);
  else
    i = n;
  while (ok && i < n && text[i] != ']' && text[i] != '}') {
    size_t end = tl_chromium_value_end(text, i, n), stop = end;
    while (stop > i && strchr(" \n\r\t", text[stop - 1]))
      stop--;
    tl_buf_clear(&chunk);
    tl_buf_puts(&chunk, e->f ? ",\n  " : "[\n  ");
    if (tl_chromium_event_with_pid(&chunk, text, i, stop, rank)) {
      if (!e->f)
        ok = open_combined(e, out_dir);
      if (ok && fwrite(chunk.data, 1, chunk.len, e->f) != chunk.len) {
        write_failed(e, out_dir, errno);
        ok = false;
      }
    }
    i = tl_chromium_skip_ws(text, end < n && text[end] == ',' ? end + 1 : end,
                            n);
  }
  tl_buf_free(&chunk);
  return ok;
}

void tl_mr_events_init(tl_mr_events *e) {
  e->f = NULL;
  e->ok = true;
  e->error[0] = '\0';
}

/* Appends the part file rank `rank`'s child wrote to the open combined
 * file (the first part without its leading comma, after the array's "["). */
static void append_part(tl_mr_events *e, const char *part, unsigned rank,
                        bool first, const char *out_dir) {
  if (first && fputs("[", e->f) == EOF) {
    write_failed(e, out_dir, errno);
    e->ok = false;
    return;
  }
  errno = 0;
  int appended = tl_fs_append_file(e->f, part, first ? 1 : 0);
  int err = errno; /* the failing call's (open's when it could not open) */
  if (appended == -2) {
    write_failed(e, out_dir, err); /* the failing write's, kept for us */
    e->ok = false;
  } else if (appended == -1) {
    /* The part lives only in the staging folder, gone when the job ends
     * (and named after the output folder in messages): say what it held,
     * and its name alone. */
    const char *slash = strrchr(part, '/');
    snprintf(e->error, sizeof e->error,
             "cannot read rank %u's chromium events, staged in %s: %s", rank,
             slash ? slash + 1 : part,
             err ? strerror(err) : "not a regular file");
    e->ok = false;
  }
}

void tl_mr_events_join(tl_mr_events *e, tl_mr_rank *r, const char *out_dir) {
  r->events_joined = true;
  if (!e->ok)
    return;
  tl_buf path;
  tl_buf_init(&path);
  size_t len = 0;
  tl_chromium_part_path(&path, out_dir, r->dir_name);
  /* Written by the rank's child: ",\n  <event>" per event; appended as it
   * is (the first without its comma), by the kernel where it can. */
  struct stat part;
  if (stat(path.data, &part) == 0 && S_ISREG(part.st_mode)) {
    bool first = !e->f;
    if (part.st_size > 0 && first && !open_combined(e, out_dir))
      e->ok = false;
    else if (part.st_size > 0)
      append_part(e, path.data, r->rank, first, out_dir);
  } else {
    tl_buf_clear(&path);
    tl_buf_printf(&path, "%s/%s/chromium_events.json", out_dir, r->dir_name);
    char *text = tl_fs_read_all(path.data, &len);
    if (text)
      e->ok = append_rank_events(e, text, len, r->rank, out_dir);
    free(text);
  }
  tl_buf_free(&path);
}

static bool write_chromium(tl_mr_rank **ranks, size_t count,
                           const char *out_dir, tl_mr_events *e, bool *written,
                           char *error, size_t error_size) {
  for (size_t i = 0; i < count && e->ok; i++)
    if (!ranks[i]->events_joined)
      tl_mr_events_join(e, ranks[i], out_dir);
  bool ok = e->ok;
  if (e->f) {
    int err = fputs("\n]", e->f) == EOF ? errno : 0;
    bool earlier = ferror(e->f); /* a write that failed before */
    if (fclose(e->f) != 0 && !err)
      err = errno;
    if ((err || earlier) && ok) {
      write_failed(e, out_dir, err);
      ok = false;
    }
  }
  if (!ok)
    snprintf(error, error_size, "%s", e->error);
  *written = e->f != NULL;
  e->f = NULL;
  e->ok = ok;
  return ok;
}

static void entry_head(tl_buf *b, const tl_mr_rank *r, const tl_mr_graph *g,
                       bool first) {
  tl_buf_puts(b, first ? "[\n" : ",\n");
  tl_buf_printf(b, "  {\n    \"rank\": %u,\n    \"graph\": ", r->rank);
  tl_json_serde_string(b, tl_str_from(g->dir));
  tl_buf_puts(b, ",\n    \"ops\": [");
}

static void write_estimations(tl_buf *b, tl_mr_rank **ranks, size_t count) {
  for (size_t i = 0; i < count; i++)
    for (size_t j = 0; j < ranks[i]->graphs.count; j++) {
      const tl_mr_graph *g = &ranks[i]->graphs.items[j];
      if (!g->ops.count)
        continue;
      entry_head(b, ranks[i], g, b->len == 0);
      for (size_t k = 0; k < g->ops.count; k++) {
        tl_buf_puts(b, k ? ",\n      {\n        \"name\": "
                         : "\n      {\n        \"name\": ");
        tl_json_serde_string(b, tl_str_from(g->ops.items[k].name));
        tl_buf_puts(b, ",\n        \"estimated_runtime_ns\": ");
        tl_json_double(b, g->ops.items[k].ns);
        tl_buf_puts(b, "\n      }");
      }
      tl_buf_puts(b, "\n    ]\n  }");
    }
  if (b->len)
    tl_buf_puts(b, "\n]");
}

static void write_schedules(tl_buf *b, tl_mr_rank **ranks, size_t count) {
  for (size_t i = 0; i < count; i++)
    for (size_t j = 0; j < ranks[i]->graphs.count; j++) {
      const tl_mr_graph *g = &ranks[i]->graphs.items[j];
      if (!g->sched.count)
        continue;
      entry_head(b, ranks[i], g, b->len == 0);
      for (size_t k = 0; k < g->sched.count; k++) {
        tl_buf_puts(b, k ? ",\n      " : "\n      ");
        tl_json_serde_string(b, tl_str_from(g->sched.items[k]));
      }
      tl_buf_puts(b, "\n    ]\n  }");
    }
  if (b->len)
    tl_buf_puts(b, "\n]");
}

static long long trunc_ns(double ns) {
  if (!(ns > -9.2e18))
    return ns > 0 ? INT64_MAX : 0; /* NaN and huge negatives */
  return ns >= 9.2e18 ? INT64_MAX : (long long)ns;
}

static void runtime_events(tl_buf *b, const tl_mr_rank *r,
                           const tl_mr_graph *g) {
  uint32_t tid = tl_mr_fxhash_tid(r->rank, g->dir);
  unsigned long long ts = 0;
  for (size_t k = 0; k < g->ops.count; k++) {
    double ns = g->ops.items[k].ns;
    double d = ceil(ns / 1000.0);
    unsigned long long dur =
        d >= 1 ? (d < 1e18 ? (unsigned long long)d : 1) : 1;
    tl_buf_puts(b, b->len ? ",\n  " : "[\n  ");
    tl_buf_puts(b, "{\n    \"args\": {\n      \"graph\": ");
    tl_json_serde_string(b, tl_str_from(g->dir));
    tl_buf_printf(b,
                  ",\n      \"rank\": %u,\n      \"runtime_ns\": %lld\n    },"
                  "\n    \"cat\": \"runtime\",\n    \"dur\": %llu,\n    "
                  "\"name\": ",
                  r->rank, trunc_ns(ns), dur);
    tl_json_serde_string(b, tl_str_from(g->ops.items[k].name));
    tl_buf_printf(b,
                  ",\n    \"ph\": \"X\",\n    \"pid\": %u,\n    \"tid\": "
                  "%u,\n    \"ts\": %llu\n  }",
                  r->rank, tid, ts);
    ts += dur;
  }
}

static void meta_event(tl_buf *b, const char *name, const char *arg_key,
                       const char *arg_json, unsigned rank, const char *tid) {
  tl_buf_printf(b,
                ",\n  {\n    \"args\": {\n      \"%s\": %s\n    },\n    "
                "\"name\": \"%s\",\n    \"ph\": \"M\",\n    \"pid\": %u",
                arg_key, arg_json, name, rank);
  if (tid)
    tl_buf_printf(b, ",\n    \"tid\": %s", tid);
  tl_buf_puts(b, "\n  }");
}

static bool has_runtime(const tl_mr_rank *r) {
  for (size_t j = 0; j < r->graphs.count; j++)
    if (r->graphs.items[j].ops.count)
      return true;
  return false;
}

static void write_runtime_trace(tl_buf *b, tl_mr_rank **ranks, size_t count) {
  for (size_t i = 0; i < count; i++)
    for (size_t j = 0; j < ranks[i]->graphs.count; j++)
      runtime_events(b, ranks[i], &ranks[i]->graphs.items[j]);
  if (!b->len)
    return;
  char arg[64], tid[32];
  for (size_t i = 0; i < count; i++) {
    if (!has_runtime(ranks[i]))
      continue;
    snprintf(arg, sizeof arg, "\"Rank %u\"", ranks[i]->rank);
    meta_event(b, "process_name", "name", arg, ranks[i]->rank, NULL);
    snprintf(arg, sizeof arg, "%u", ranks[i]->rank);
    meta_event(b, "process_sort_index", "sort_index", arg, ranks[i]->rank,
               NULL);
  }
  tl_buf name;
  tl_buf_init(&name);
  for (size_t i = 0; i < count; i++) {
    unsigned index = 0;
    for (size_t j = 0; j < ranks[i]->graphs.count; j++) {
      const tl_mr_graph *g = &ranks[i]->graphs.items[j];
      if (!g->ops.count)
        continue;
      snprintf(tid, sizeof tid, "%u", tl_mr_fxhash_tid(ranks[i]->rank, g->dir));
      tl_buf_clear(&name);
      tl_buf_puts(&name, "graph ");
      tl_buf_puts(&name, g->dir);
      tl_buf arg_json;
      tl_buf_init(&arg_json);
      tl_json_serde_string(&arg_json, tl_buf_str(&name));
      meta_event(b, "thread_name", "name", arg_json.data, ranks[i]->rank, tid);
      tl_buf_free(&arg_json);
      snprintf(arg, sizeof arg, "%u", index++);
      meta_event(b, "thread_sort_index", "sort_index", arg, ranks[i]->rank,
                 tid);
    }
  }
  tl_buf_free(&name);
  tl_buf_puts(b, "\n]");
}

static bool write_runtime_files(tl_mr_rank **ranks, size_t count,
                                const char *out_dir, tl_mr_analysis *a,
                                char *error, size_t error_size) {
  tl_buf b;
  tl_buf_init(&b);
  bool ok = true;
  write_estimations(&b, ranks, count);
  a->runtime = b.len > 0;
  if (a->runtime)
    ok = write_out(out_dir, "runtime_estimations.json", &b, error, error_size);
  tl_buf_clear(&b);
  write_runtime_trace(&b, ranks, count);
  if (ok && b.len)
    ok = write_out(out_dir, "chromium_trace_with_runtime.json", &b, error,
                   error_size);
  tl_buf_clear(&b);
  write_schedules(&b, ranks, count);
  a->schedules = b.len > 0;
  if (ok && a->schedules)
    ok = write_out(out_dir, "collective_schedules.json", &b, error, error_size);
  tl_buf_free(&b);
  return ok;
}

bool tl_mr_analyze(tl_mr_rank **ranks, size_t count, const char *out_dir,
                   tl_mr_events *events, tl_mr_analysis *a, tl_diag *diag,
                   char *error, size_t error_size) {
  (void)diag;
  memset(a, 0, sizeof *a);
  tl_mr_events none;
  if (!events) {
    tl_mr_events_init(&none);
    events = &none;
  }
  if (!write_chromium(ranks, count, out_dir, events, &a->chromium, error,
                      error_size) ||
      !write_runtime_files(ranks, count, out_dir, a, error, error_size))
    return false;
  tl_mr_decide(ranks, count, a);
  return true;
}
