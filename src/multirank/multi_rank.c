/* multi_rank.c: the --all-ranks-html driver (see multi_rank.h). Finds the
 * rank logs, runs each rank's one-log pipeline in a forked child (at most
 * `jobs` at once; a child shares nothing with the other ranks and sends
 * back only its diagnostics through a pipe), reads each rank back as it
 * and the ranks before it end (multi_rank_summary.c; the combined events
 * joined then too), aggregates (multi_rank_analysis.c) and writes the
 * landing page (multi_rank_page.c).
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "multirank/multi_rank_internal.h"
#ifdef HAVE_tl_engine
#include "analyze/ts_query.h"
#endif
#ifdef HAVE_tl_docs
#include "emit/help.h" /* the help sections, rendered once for every rank */
#endif
#include "run/outdir.h"
#include "run/pipeline.h"
#include "util/cores.h"
#include "util/fsutil.h"
#include "json/chromium_events.h"

static const char PREFIX[] = "dedicated_log_torch_trace_rank_";

/* The rank of `dedicated_log_torch_trace_rank_<N>[_<anything>].log`: N cut
 * at the first '_', an unsigned 32-bit decimal (as Rust's u32 parse, which
 * takes a leading '+'). */
static bool rank_of(const char *name, unsigned *rank) {
  size_t n = strlen(name), p = sizeof PREFIX - 1;
  if (n < p + 4 || strncmp(name, PREFIX, p) != 0 ||
      strcmp(name + n - 4, ".log") != 0)
    return false;
  const char *s = name + p, *end = name + n - 4;
  const char *cut = memchr(s, '_', (size_t)(end - s));
  if (cut)
    end = cut;
  if (s < end && *s == '+')
    s++;
  if (s == end)
    return false;
  uint64_t v = 0;
  for (; s < end; s++) {
    if (*s < '0' || *s > '9')
      return false;
    v = v * 10 + (uint64_t)(*s - '0');
    if (v > UINT32_MAX)
      return false;
  }
  *rank = (unsigned)v;
  return true;
}

static int cmp_rank(const void *a, const void *b) {
  const tl_mr_rank *x = *(tl_mr_rank *const *)a, *y = *(tl_mr_rank *const *)b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return strcmp(x->file_name, y->file_name);
}

typedef TL_VEC(tl_mr_rank *) rank_list;

/* The rank logs of `dir`, sorted by rank then file name; the second and
 * later files of a rank are marked duplicate and get "rank_N-K". */
static bool discover(const char *dir, rank_list *out) {
  DIR *d = opendir(dir);
  if (!d)
    return false;
  struct dirent *e;
  tl_buf path;
  tl_buf_init(&path);
  while ((e = readdir(d)) != NULL) {
    unsigned rank;
    struct stat st;
    if (!rank_of(e->d_name, &rank))
      continue;
    tl_buf_clear(&path);
    tl_buf_printf(&path, "%s/%s", dir, e->d_name);
    if (stat(path.data, &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    tl_mr_rank *r = tl_xcalloc(1, sizeof *r);
    r->rank = rank;
    r->path = tl_xstrdup(path.data);
    r->file_name = tl_xstrdup(e->d_name);
    TL_VEC_PUSH(*out, r);
  }
  closedir(d);
  tl_sort(out->items, out->count, sizeof *out->items, cmp_rank);
  unsigned copy = 1;
  for (size_t i = 0; i < out->count; i++) {
    tl_mr_rank *r = out->items[i];
    r->duplicate = i > 0 && out->items[i - 1]->rank == r->rank;
    copy = r->duplicate ? copy + 1 : 1;
    tl_buf_clear(&path);
    tl_buf_printf(&path, r->duplicate ? "rank_%u-%u" : "rank_%u", r->rank,
                  copy);
    r->dir_name = tl_xstrdup(path.data);
  }
  tl_buf_free(&path);
  return true;
}

static void ranks_free(rank_list *ranks) {
  for (size_t i = 0; i < ranks->count; i++) {
    tl_mr_rank_free(ranks->items[i]);
    free(ranks->items[i]);
  }
  TL_VEC_FREE(*ranks);
}

size_t tl_multi_rank_count_logs(const char *dir) {
  rank_list ranks = {0};
  discover(dir, &ranks);
  size_t n = ranks.count;
  ranks_free(&ranks);
  return n;
}

size_t tl_multi_rank_logs(const char *dir, tl_rank_log **logs) {
  rank_list ranks = {0};
  discover(dir, &ranks);
  *logs = tl_xcalloc(ranks.count + 1, sizeof **logs);
  for (size_t i = 0; i < ranks.count; i++)
    (*logs)[i] =
        (tl_rank_log){ranks.items[i]->rank, tl_xstrdup(ranks.items[i]->path)};
  size_t n = ranks.count;
  ranks_free(&ranks);
  return n;
}

/* ---- the child: one rank's pipeline, its diagnostics sent back ---- */

static void put(tl_buf *b, const void *data, size_t len) {
  tl_buf_append(b, data, len);
}

static void encode_diag(tl_buf *b, const tl_diag *d, const char *error) {
  for (uint32_t k = 0; k < TL_DIAG_KIND_COUNT; k++) {
    uint64_t count = d->counts[k];
    uint32_t shown = 0;
    while (shown < TL_DIAG_EXAMPLES && d->examples[k][shown].message)
      shown++;
    put(b, &count, sizeof count);
    put(b, &shown, sizeof shown);
    for (uint32_t i = 0; i < shown; i++) {
      uint64_t line = d->examples[k][i].line;
      uint32_t len = (uint32_t)strlen(d->examples[k][i].message);
      put(b, &line, sizeof line);
      put(b, &len, sizeof len);
      put(b, d->examples[k][i].message, len);
    }
  }
  uint32_t len = (uint32_t)strlen(error);
  put(b, &len, sizeof len);
  put(b, error, len);
}

static bool write_all(int fd, const char *data, size_t len) {
  while (len) {
    ssize_t n = write(fd, data, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    len -= (size_t)n;
  }
  return true;
}

/* The folder where the rank children share the analyses of their texts
 * (ranks usually log the same graphs and code): made in the staging
 * folder before the first child starts, removed once the last has ended,
 * so it never reaches the report (a signal removes the staging folder
 * whole). Set by the parent only, read by the children it forks. */
static const char *shared_analyses;

static int run_child(const tl_multi_rank_options *o, tl_mr_rank *r, int workers,
                     int fd) {
  tl_buf rank_dir, msg;
  tl_buf_init(&rank_dir);
  tl_buf_init(&msg);
  tl_buf_printf(&rank_dir, "%s/%s", o->out_dir, r->dir_name);
  tl_diag diag, quiet;
  tl_diag_init(&diag, r->path);
  tl_diag_init(&quiet, r->path);
  diag.verbose = o->verbose;
  /* Paths in the staging folder, gone once the job ends, are named under
   * the output folder the user gave. */
  diag.staged = quiet.staged = o->out_dir;
  diag.shown = quiet.shown = o->out_name;
  tl_pipeline_options p = {0};
  p.input = r->path;
  p.out_dir = rank_dir.data;
  p.custom_header_html = o->custom_header_html;
  p.provenance = o->provenance;
  p.plain_text = o->plain_text;
  p.strict_compile_id = o->strict_compile_id;
  p.workers = workers;
  p.collectives_parity_link = true; /* written below, after the report */
  p.shared_analyses = shared_analyses;
  /* The rank's events in the combined file's form, written here while the
   * ranks run in parallel, so the parent only joins bytes. */
  tl_buf part;
  tl_buf_init(&part);
  if (!r->duplicate) {
    tl_chromium_part_path(&part, o->out_dir, r->dir_name);
    p.chromium_part_path = part.data;
    p.chromium_pid = r->rank;
  }
  char error[512] = "";
  bool ok = tl_pipeline_run(&p, &diag, error, sizeof error);
  if (ok) {
    tl_mr_summary_read(r, o->out_dir, o->plain_text, &quiet);
    ok = tl_mr_parity_write(r, rank_dir.data, o->plain_text, error,
                            sizeof error);
  }
  tl_buf_free(&part);
  encode_diag(&msg, &diag, error);
  /* The summary, unless its read had something to say: the parent then
   * reads the rank's files itself, and reports it in its place. */
  uint8_t sent_summary = ok && tl_diag_total(&quiet) == 0;
  put(&msg, &sent_summary, 1);
  if (sent_summary)
    tl_mr_summary_encode(&msg, r);
  bool sent = write_all(fd, msg.data, msg.len);
  close(fd);
  return ok && sent ? 0 : 1;
}

typedef struct slot {
  pid_t pid;
  int fd;
  tl_mr_rank *rank;
  tl_buf data;
} slot;

/* The parent's run_all arrays, freed by a child before it exits (a child
 * leaves through _exit, so nothing else would). */
static void *parent_arrays[2];
static size_t parent_slots;

static pid_t start_child(const tl_multi_rank_options *o, tl_mr_rank *r,
                         int workers, int *fd) {
  int p[2];
  if (pipe(p) != 0)
    return -1;
  fflush(NULL);
  /* The parent cleans up the staging folder on a signal, killing its
   * children first (outdir.h); a child only dies, and dies with its
   * parent. */
  pid_t pid = tl_outdir_fork();
  if (pid == 0) {
    close(p[0]);
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    int code = run_child(o, r, workers, p[1]);
#ifdef HAVE_tl_engine
    tl_ts_stats_print(); /* TLPARSE_STATS=1: this rank's parse */
#endif
    slot *slots = parent_arrays[0];
    for (size_t i = 0; i < parent_slots; i++)
      free(slots[i].data.data);
    free(parent_arrays[0]);
    free(parent_arrays[1]);
    fflush(NULL);
    _exit(code);
  }
  close(p[1]);
  if (pid < 0) {
    close(p[0]);
    return -1;
  }
  *fd = p[0];
  return pid;
}

/* ---- the parent: children at most `jobs` at once ---- */

static bool take(const tl_buf *b, size_t *at, void *out, size_t len) {
  if (b->len - *at < len)
    return false;
  memcpy(out, b->data + *at, len);
  *at += len;
  return true;
}

static bool decode_diag_into(tl_diag *d, const tl_buf *b, size_t *at,
                             char *error, size_t error_size);

/* Fills r->diag from the child's message (left NULL when it tells no
 * diagnostic); the child's error, if any, in `error`; *at past them. False
 * when the message is cut short (what came before the cut is kept). */
static bool decode_diag(tl_mr_rank *r, const tl_buf *b, size_t *at, char *error,
                        size_t error_size) {
  tl_diag d;
  tl_diag_init(&d, r->path);
  bool whole = decode_diag_into(&d, b, at, error, error_size);
  if (tl_diag_total(&d) == 0) {
    tl_diag_free(&d);
    return whole;
  }
  r->diag = tl_xmalloc(sizeof *r->diag);
  *r->diag = d;
  return whole;
}

static bool decode_diag_into(tl_diag *d, const tl_buf *b, size_t *at_out,
                             char *error, size_t error_size) {
  size_t at = 0;
  for (int k = 0; k < TL_DIAG_KIND_COUNT; k++) {
    uint64_t count;
    uint32_t shown;
    if (!take(b, &at, &count, sizeof count) ||
        !take(b, &at, &shown, sizeof shown) || shown > TL_DIAG_EXAMPLES)
      return false;
    d->counts[k] = (size_t)count;
    for (uint32_t i = 0; i < shown; i++) {
      uint64_t line;
      uint32_t len;
      if (!take(b, &at, &line, sizeof line) ||
          !take(b, &at, &len, sizeof len) || b->len - at < len)
        return false;
      d->examples[k][i].line = (size_t)line;
      d->examples[k][i].message = tl_xmalloc(len + 1);
      take(b, &at, d->examples[k][i].message, len);
      d->examples[k][i].message[len] = '\0';
    }
  }
  uint32_t len;
  if (!take(b, &at, &len, sizeof len) || b->len - at < len)
    return false;
  snprintf(error, error_size, "%.*s", (int)len, b->data + at);
  *at_out = at + len;
  return true;
}

/* A failed rank's folder holds a partial report: it is removed from the
 * staging folder (we made it), so that the report never presents it as
 * whole; the landing page lists the rank as failed, without a link. */
static void drop_rank_folder(const tl_multi_rank_options *o, tl_mr_rank *r,
                             tl_diag *mode) {
  tl_buf dir;
  tl_buf_init(&dir);
  tl_buf_printf(&dir, "%s/%s", o->out_dir, r->dir_name);
  char error[512];
  if (!tl_fs_remove_tree(dir.data, error, sizeof error)) {
    mode->file_name = r->path;
    tl_diag_add(mode, TL_DIAG_OUTPUT, 0, "rank %u: %s", r->rank, error);
  }
  tl_buf_free(&dir);
}

/* `why` (malloc'd) with each path inside the staging folder named from
 * the report's top (`rank_1/-_0_0_0/x.txt`), as the landing page and the
 * user know it: the staging folder's name is gone once the report is
 * published. Not tl_renamed_paths, which names such a path under the
 * output folder (`OUT/rank_1/...`): the landing page, inside OUT, shows
 * these words, and the diagnostic line says them the same way. */
static char *without_staging(const char *why, const char *staging) {
  tl_buf b;
  tl_buf_init(&b);
  size_t n = strlen(staging);
  for (const char *at; (at = strstr(why, staging)) && at[n] == '/';
       why = at + n + 1)
    tl_buf_append(&b, why, (size_t)(at - why));
  tl_buf_puts(&b, why);
  return tl_buf_detach(&b);
}

static void finish(const tl_multi_rank_options *o, slot *s, int status,
                   tl_diag *mode, size_t done, size_t total) {
  tl_mr_rank *r = s->rank;
  char error[512] = "", why[600] = "";
  size_t at = 0;
  bool whole = decode_diag(r, &s->data, &at, error, sizeof error);
  if (WIFSIGNALED(status))
    snprintf(why, sizeof why, "its parse crashed (signal %d, %s)",
             WTERMSIG(status), strsignal(WTERMSIG(status)));
  else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !whole)
    snprintf(why, sizeof why, "its parse failed: %s",
             error[0] ? error : "no report written");
  /* The summary the child read, when it sent one (read_ended reads the
   * rank's files otherwise). */
  if (!why[0] && at < s->data.len && s->data.data[at] == 1) {
    at++;
    r->summary_early = tl_mr_summary_decode(r, s->data.data, s->data.len, &at);
  }
  if (why[0]) {
    r->failed = true;
    r->failure = without_staging(why, o->out_dir);
    mode->file_name = r->path;
    tl_diag_add(mode, TL_DIAG_OUTPUT, 0,
                "rank %u: %s; its partial report is left out", r->rank,
                r->failure);
    drop_rank_folder(o, r, mode);
  }
  if (o->progress)
    fprintf(stderr, "tlparse: [%zu/%zu] rank %u %s\n", done, total, r->rank,
            r->failed ? "failed" : "done");
  tl_buf_free(&s->data);
  r->ended = true;
}

static void read_slot(slot *s) {
  char chunk[65536];
  ssize_t n = read(s->fd, chunk, sizeof chunk);
  if (n > 0) {
    tl_buf_append(&s->data, chunk, (size_t)n);
  } else if (n == 0 || errno != EINTR) {
    close(s->fd);
    s->fd = -1;
  }
}

static int wait_child(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  tl_outdir_child_ended(pid);
  return status;
}

/* Starts the rank's child; a rank that cannot start is failed at once. */
static bool launch(const tl_multi_rank_options *o, tl_mr_rank *r, int workers,
                   slot *s, tl_diag *mode) {
  tl_buf dir;
  tl_buf_init(&dir);
  tl_buf_printf(&dir, "%s/%s", o->out_dir, r->dir_name);
  int fd = -1;
  pid_t pid = -1;
  if (mkdir(dir.data, 0777) == 0)
    pid = start_child(o, r, workers, &fd);
  if (pid < 0) {
    r->failed = true;
    r->failure = tl_xstrdup(strerror(errno));
    mode->file_name = r->path;
    tl_diag_add(mode, TL_DIAG_OUTPUT, 0, "rank %u: cannot start (%s)", r->rank,
                r->failure);
    drop_rank_folder(o, r, mode);
    r->ended = true;
  }
  tl_buf_free(&dir);
  if (pid < 0)
    return false;
  *s = (slot){pid, fd, r, {0}};
  tl_buf_init(&s->data);
  return true;
}

/* The ranks read back while others still run, in ascending order as each
 * and every rank before it have ended, so that the parent's share is not
 * all left for after the last child: each summary (as its child sent it,
 * else read from the rank's files and kept when the read says nothing; one
 * that does is read again by aggregate(), where its diagnostics are
 * reported in their place), and each rank's events joined into
 * chromium_events.json up to the first rank not yet known to be
 * aggregated. */
typedef struct early_reads {
  size_t next;  /* the first rank not yet looked at */
  bool joining; /* every rank before `next` decided */
  tl_mr_events events;
} early_reads;

static void join_events(const tl_multi_rank_options *o, early_reads *e,
                        tl_mr_rank *r, tl_buf *part) {
  tl_mr_events_join(&e->events, r, o->out_dir);
  tl_chromium_part_path(part, o->out_dir, r->dir_name);
  unlink(part->data);
}

static void read_ended(const tl_multi_rank_options *o, rank_list *ranks,
                       early_reads *e) {
  tl_buf part;
  tl_buf_init(&part);
  for (; e->next < ranks->count && ranks->items[e->next]->ended; e->next++) {
    tl_mr_rank *r = ranks->items[e->next];
    if (r->duplicate || r->failed)
      continue;
    if (r->summary_early) { /* sent by its child */
      if (e->joining && r->summary)
        join_events(o, e, r, &part);
      continue;
    }
    tl_diag scratch;
    tl_diag_init(&scratch, o->input_dir);
    tl_mr_summary_read(r, o->out_dir, o->plain_text, &scratch);
    if (tl_diag_total(&scratch) == 0) {
      r->summary_early = true;
    } else {
      tl_mr_summary_clear(r);
      e->joining = false;
    }
    tl_diag_free(&scratch);
    if (e->joining && r->summary)
      join_events(o, e, r, &part);
  }
  tl_buf_free(&part);
}

static void run_all(const tl_multi_rank_options *o, rank_list *ranks,
                    tl_diag *mode, early_reads *early) {
  size_t cores = (size_t)tl_cores_usable();
  size_t jobs = o->jobs > 0 ? (size_t)o->jobs : cores;
  if (jobs > ranks->count)
    jobs = ranks->count;
  int workers = (int)(cores / (jobs ? jobs : 1));
  workers = workers > 0 ? workers : 1;
  slot *slots = tl_xcalloc(jobs ? jobs : 1, sizeof *slots);
  struct pollfd *fds = tl_xcalloc(jobs ? jobs : 1, sizeof *fds);
  parent_arrays[0] = slots;
  parent_arrays[1] = fds;
  parent_slots = jobs;
  size_t next = 0, running = 0, done = 0;
  while (next < ranks->count || running) {
    while (running < jobs && next < ranks->count) {
      if (launch(o, ranks->items[next], workers, &slots[running], mode))
        running++;
      else
        done++;
      next++;
    }
    read_ended(o, ranks, early);
    for (size_t i = 0; i < running; i++)
      fds[i] = (struct pollfd){slots[i].fd, POLLIN, 0};
    if (running && poll(fds, running, -1) < 0 && errno != EINTR) {
      /* poll itself failed (out of memory): read each child's pipe in
       * turn, blocking until it writes or ends, so that no child is left
       * running or unreaped and every rank is still reported. */
      for (size_t i = 0; i < running; i++)
        fds[i].revents = POLLIN;
    }
    for (size_t i = 0; i < running; i++) {
      if (!fds[i].revents)
        continue;
      read_slot(&slots[i]);
      if (slots[i].fd >= 0)
        continue;
      finish(o, &slots[i], wait_child(slots[i].pid), mode, ++done,
             ranks->count);
      slots[i] = slots[--running];
      memset(&slots[running], 0, sizeof *slots);
      fds[i] = fds[running];
      i--;
    }
  }
  free(slots);
  free(fds);
}

static void print_join(const char *out, const char *name) {
  size_t n = strlen(out);
  printf("%s%s%s\n", out, n && out[n - 1] == '/' ? "" : "/", name);
}

static bool aggregate(const tl_multi_rank_options *o, rank_list *ranks,
                      tl_diag *mode, tl_mr_events *events, tl_mr_analysis *a,
                      char *error, size_t error_size) {
  tl_mr_rank **use = tl_xcalloc(ranks->count + 1, sizeof *use);
  size_t n = 0;
  for (size_t i = 0; i < ranks->count; i++) {
    tl_mr_rank *r = ranks->items[i];
    if (r->duplicate) {
      mode->file_name = r->path;
      tl_diag_add(mode, TL_DIAG_OUTPUT, 0,
                  "a second log of rank %u (the first is %s): its report is "
                  "%s/, left out of the cross-rank analyses",
                  r->rank, ranks->items[i - 1]->file_name, r->dir_name);
    }
    if (r->duplicate || r->failed)
      continue;
    mode->file_name = o->input_dir;
    if (!r->summary_early)
      tl_mr_summary_read(r, o->out_dir, o->plain_text, mode);
    if (r->summary)
      use[n++] = r;
  }
  bool ok =
      tl_mr_analyze(use, n, o->out_dir, events, a, mode, error, error_size);
  free(use);
  /* The children's event files are joined (or not used): none is left in
   * the report. */
  tl_buf part;
  tl_buf_init(&part);
  for (size_t i = 0; i < ranks->count; i++) {
    tl_chromium_part_path(&part, o->out_dir, ranks->items[i]->dir_name);
    unlink(part.data);
  }
  tl_buf_free(&part);
  return ok;
}

/* The rank children's heap kept grown: each record's buffers (a payload's
 * re-written JSON, a page) are allocated and freed in turn, and with
 * glibc's defaults a free that left more than 128 KiB at the heap's top
 * gave it back (brk) and the next record took it again, page fault by page
 * fault. With 4 MiB of pad the heap grows 4 MiB at a time and keeps 4 MiB
 * when it is trimmed: the 64-rank job's page faults fall from 79,000 to
 * 49,000, and the peak stays where it was (a child's few MiB). Set in the
 * parent, inherited by each child it forks. */
static void keep_heap_grown(void) {
#ifdef __GLIBC__
  mallopt(M_TOP_PAD, 4 << 20);
#endif
}

bool tl_multi_rank_run(const tl_multi_rank_options *o,
                       tl_multi_rank_result *result, char *error,
                       size_t error_size) {
  memset(result, 0, sizeof *result);
  keep_heap_grown();
#ifdef HAVE_tl_docs
  tl_help_prepare();
#endif
  rank_list ranks = {0};
  if (!discover(o->input_dir, &ranks)) {
    snprintf(error, error_size, "cannot list %s: %s", o->input_dir,
             strerror(errno));
    return false;
  }
  for (size_t i = 0; i < ranks.count; i++) {
    printf("Processing rank %u \u2192 ", ranks.items[i]->rank);
    print_join(o->out_name, ranks.items[i]->dir_name);
  }
  fflush(stdout);
  tl_diag mode;
  tl_diag_init(&mode, o->input_dir);
  mode.verbose = true; /* each mode diagnostic is one line, printed once */
  tl_buf shared;
  tl_buf_init(&shared);
  tl_buf_printf(&shared, "%s/.analyses", o->out_dir);
  if (mkdir(shared.data, 0700) == 0)
    shared_analyses = shared.data;
  early_reads early;
  early.next = 0;
  early.joining = true;
  tl_mr_events_init(&early.events);
  run_all(o, &ranks, &mode, &early);
  if (shared_analyses) {
    char why[512];
    if (!tl_fs_remove_tree(shared_analyses, why, sizeof why))
      tl_diag_add(&mode, TL_DIAG_OUTPUT, 0, "%s", why);
    shared_analyses = NULL;
  }
  tl_buf_free(&shared);
  size_t failed = 0;
  for (size_t i = 0; i < ranks.count; i++)
    failed += ranks.items[i]->failed;
  tl_mr_analysis a;
  memset(&a, 0, sizeof a);
  bool ok = false;
  if (ranks.count && failed == ranks.count) /* nothing whole to publish */
    snprintf(error, error_size,
             "every rank failed (see above): no report "
             "written");
  else
    ok = aggregate(o, &ranks, &mode, &early.events, &a, error, error_size) &&
         tl_mr_page_write(o, ranks.items, ranks.count, &a, error, error_size);
  for (size_t i = 0; i < ranks.count; i++) {
    tl_mr_rank *r = ranks.items[i];
    if (r->diag) {
      tl_diag_print_summary(r->diag);
      result->parse_failures += tl_diag_parse_failures(r->diag);
      result->no_compile_id += r->diag->counts[TL_DIAG_NO_COMPILE_ID];
    }
    result->failed += r->failed;
  }
  result->ranks = ranks.count;
  result->problems = tl_diag_total(&mode);
  if (ok) {
    if (a.runtime) {
      printf("Runtime estimations: ");
      print_join(o->out_name, "runtime_estimations.json");
    }
    if (a.schedules) {
      printf("Collective schedules: ");
      print_join(o->out_name, "collective_schedules.json");
    }
    printf("Multi-rank report generated under %s\n", o->out_name);
    printf("Individual pages: rank_*/index.html\n");
  }
  tl_mr_analysis_free(&a);
  tl_diag_free(&mode);
  ranks_free(&ranks);
  return ok;
}
