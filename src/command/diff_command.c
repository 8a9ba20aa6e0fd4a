/* diff_command.c: `tlparse diff A B` (diff_command.h): the inputs, the
 * output folder, both runs' reports, the comparison, the messages.
 */
#define _XOPEN_SOURCE 700
#include "command/diff_command.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command/report_command.h"
#include "emit/run_diff_pages.h"
#include "multirank/multi_rank.h"
#include "run/outdir.h"
#include "run/pipeline.h"
#include "util/buf.h"
#include "util/cores.h"
#include "util/diag.h"
#include "util/fsutil.h"
#ifdef HAVE_tl_engine
#include "analyze/ts_query.h"
#endif

/* A or B as the log to read (*log, malloc'd); *ranks is the number of
 * rank logs of a folder (a folder of two or more: *log NULL). False after
 * one line naming it. */
static bool resolve(const char *which, const char *path, char **log,
                    size_t *ranks) {
  *log = NULL;
  *ranks = 0;
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr,
            "tlparse: diff: cannot open %s (%s): no such file or "
            "folder\n",
            path, which);
    return false;
  }
  if (S_ISREG(st.st_mode)) {
    *log = tl_xstrdup(path);
    return true;
  }
  if (!S_ISDIR(st.st_mode)) {
    fprintf(stderr,
            "tlparse: diff: %s (%s) is not a regular file or a folder; save "
            "the trace to a file first\n",
            path, which);
    return false;
  }
  size_t n = tl_multi_rank_count_logs(path);
  if (n >= 2) {
    *ranks = n;
    return true;
  }
  char *latest = tl_fs_latest_file(path);
  if (!latest) {
    fprintf(stderr, "tlparse: diff: %s (%s) holds no trace log\n", path, which);
    return false;
  }
  size_t files = tl_fs_count_files(path);
  if (files > 1)
    fprintf(stderr,
            "tlparse: diff: %s (%s) holds %zu logs; comparing the latest, "
            "%s\n",
            path, which, files, latest);
  *log = latest;
  *ranks = n;
  return true;
}

#ifdef HAVE_tl_engine
typedef struct taken {
  tl_run *run;
  const char *folder, *diff_dir;
  bool provenance, done;
} taken;

static void on_report(void *ctx, const tl_store *store) {
  taken *t = ctx;
  tl_run_diff_take(t->run, t->folder, store, t->diff_dir, t->provenance);
  t->done = true;
}

/* One run's report into `staging`/`folder`, kept in *run. */
static bool report_run(const tl_diff_request *r, const char *input,
                       const char *staging, const char *folder, tl_run *run,
                       tl_diag *diag, char *error, size_t error_size) {
  tl_buf out;
  tl_buf_init(&out);
  tl_buf_printf(&out, "%s/%s", staging, folder);
  bool ok = tl_fs_mkdirs(out.data, error, error_size);
  taken t = {run, folder, staging, r->provenance, false};
  if (ok) {
    tl_pipeline_options p = {0};
    p.input = input;
    p.out_dir = out.data;
    p.custom_header_html = r->custom_header_html;
    p.provenance = r->provenance;
    p.plain_text = r->plain_text;
    p.show_progress = isatty(STDERR_FILENO);
    p.workers = tl_cores_usable();
    p.on_report = on_report;
    p.on_report_ctx = &t;
    ok = tl_pipeline_run(&p, diag, error, error_size);
  }
  tl_buf_free(&out);
  return ok && t.done;
}
/* Both runs' reports into `diff_dir`/a and /b and the comparison beside
 * them; adds the inputs' parse failures to *failed. False with one line
 * in `error`. */
static bool compare_logs(const tl_diff_request *r, const char *a, const char *b,
                         const char *staging, const char *diff_dir,
                         tl_run_diff_summary *sum, size_t *failed, char *error,
                         size_t error_size) {
  tl_diag diag_a, diag_b;
  tl_diag_init(&diag_a, a);
  tl_diag_init(&diag_b, b);
  diag_a.verbose = diag_b.verbose = r->verbose;
  /* Paths in the staging folder, gone once the run ends, are named under
   * the output folder the user gave. */
  diag_a.staged = diag_b.staged = staging;
  diag_a.shown = diag_b.shown = r->out_dir;
  tl_run run_a, run_b;
  memset(&run_a, 0, sizeof run_a);
  memset(&run_b, 0, sizeof run_b);
  bool have_a = false, have_b = false;
  bool ok = (have_a = report_run(r, a, diff_dir, "a", &run_a, &diag_a, error,
                                 error_size)) &&
            (have_b = report_run(r, b, diff_dir, "b", &run_b, &diag_b, error,
                                 error_size));
  if (ok)
    ok = tl_run_diff_write(diff_dir, &run_a, &run_b, a, b, sum, error,
                           error_size);
  tl_diag_print_summary(&diag_a);
  tl_diag_print_summary(&diag_b);
  *failed += tl_diag_parse_failures(&diag_a) + tl_diag_parse_failures(&diag_b);
  if (have_a)
    tl_run_free(&run_a);
  if (have_b)
    tl_run_free(&run_b);
  tl_diag_free(&diag_a);
  tl_diag_free(&diag_b);
  tl_ts_query_cache_free();
  return ok;
}

static void free_logs(tl_rank_log *logs, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(logs[i].path);
  free(logs);
}

/* The rank logs of a folder, or NULL after one line when two are of one
 * rank. */
static tl_rank_log *rank_logs(const char *which, const char *dir, size_t *n) {
  tl_rank_log *logs = NULL;
  *n = tl_multi_rank_logs(dir, &logs);
  for (size_t i = 1; i < *n; i++)
    if (logs[i].rank == logs[i - 1].rank) {
      fprintf(stderr,
              "tlparse: diff: %s (%s) holds two logs of rank %u, %s and %s; "
              "keep one of them (or give one log of each run)\n",
              dir, which, logs[i].rank, logs[i - 1].path, logs[i].path);
      free_logs(logs, *n);
      return NULL;
    }
  return logs;
}

/* Two folders of rank logs: the ranks of one number compared, each into
 * rank_N/ of the staging folder; the ranks one run has alone listed. */
static bool compare_ranks(const tl_diff_request *r, const char *staging,
                          const tl_rank_log *la, size_t na,
                          const tl_rank_log *lb, size_t nb,
                          tl_run_diff_summary *total, size_t *failed,
                          char *error, size_t error_size) {
  TL_VEC(tl_run_diff_rank) ranks = {0};
  TL_VEC(unsigned) only_a = {0}, only_b = {0};
  bool ok = true;
  memset(total, 0, sizeof *total);
  for (size_t i = 0, j = 0; ok && (i < na || j < nb);) {
    if (j >= nb || (i < na && la[i].rank < lb[j].rank)) {
      TL_VEC_PUSH(only_a, la[i].rank);
      i++;
      continue;
    }
    if (i >= na || lb[j].rank < la[i].rank) {
      TL_VEC_PUSH(only_b, lb[j].rank);
      j++;
      continue;
    }
    tl_run_diff_rank one = {la[i].rank, {0}};
    tl_buf dir;
    tl_buf_init(&dir);
    tl_buf_printf(&dir, "%s/rank_%u", staging, one.rank);
    ok = tl_fs_mkdirs(dir.data, error, error_size) &&
         compare_logs(r, la[i].path, lb[j].path, staging, dir.data,
                      &one.summary, failed, error, error_size);
    tl_buf_free(&dir);
    if (ok) {
      TL_VEC_PUSH(ranks, one);
      total->compiles_matched += one.summary.compiles_matched;
      total->compiles_changed += one.summary.compiles_changed;
      total->compiles_only_a += one.summary.compiles_only_a;
      total->compiles_only_b += one.summary.compiles_only_b;
    }
    i++;
    j++;
  }
  if (ok)
    ok = tl_run_diff_write_ranks(
        staging, ranks.items, ranks.count, only_a.items, only_a.count,
        only_b.items, only_b.count, r->path_a, r->path_b, error, error_size);
  TL_VEC_FREE(ranks);
  TL_VEC_FREE(only_a);
  TL_VEC_FREE(only_b);
  return ok;
}

/* Which ranks the two folders share: none is refused before anything is
 * written. */
static bool any_common_rank(const tl_rank_log *la, size_t na,
                            const tl_rank_log *lb, size_t nb) {
  for (size_t i = 0, j = 0; i < na && j < nb;) {
    if (la[i].rank == lb[j].rank)
      return true;
    if (la[i].rank < lb[j].rank)
      i++;
    else
      j++;
  }
  return false;
}
#endif

int tl_diff_command(const tl_diff_request *r) {
#ifndef HAVE_tl_engine
  (void)r;
  fputs("tlparse: diff: this tlparse was built without the tree-sitter "
        "engine, which the comparison needs\n",
        stderr);
  return 1;
#else
  char *a = NULL, *b = NULL;
  size_t ranks_a = 0, ranks_b = 0;
  if (!resolve("A", r->path_a, &a, &ranks_a) ||
      !resolve("B", r->path_b, &b, &ranks_b)) {
    free(a);
    return 1;
  }
  /* Rank by rank when a folder holds several rank logs and the other
   * rank logs too (one is a job of one rank). */
  bool by_rank = ranks_a >= 2 || ranks_b >= 2;
  if (by_rank && (!ranks_a || !ranks_b)) {
    const char *many = ranks_a ? r->path_a : r->path_b;
    fprintf(stderr,
            "tlparse: diff: %s (%s) holds %zu rank logs and %s (%s) one log: "
            "give one rank's log of %s (such as "
            "%s/dedicated_log_torch_trace_rank_0.log), or two folders of rank "
            "logs to compare rank by rank\n",
            many, ranks_a ? "A" : "B", ranks_a ? ranks_a : ranks_b,
            ranks_a ? r->path_b : r->path_a, ranks_a ? "B" : "A",
            ranks_a ? "A" : "B", many);
    free(a);
    free(b);
    return 1;
  }
  tl_rank_log *la = NULL, *lb = NULL;
  size_t na = 0, nb = 0;
  if (by_rank) {
    la = rank_logs("A", r->path_a, &na);
    lb = la ? rank_logs("B", r->path_b, &nb) : NULL;
    if (!la || !lb) {
      free_logs(la, na);
      free(a);
      free(b);
      return 1;
    }
    if (!any_common_rank(la, na, lb, nb)) {
      fprintf(stderr,
              "tlparse: diff: %s (A) and %s (B) have no rank in common: "
              "ranks %u to %u and %u to %u\n",
              r->path_a, r->path_b, la[0].rank, la[na - 1].rank, lb[0].rank,
              lb[nb - 1].rank);
      free_logs(la, na);
      free_logs(lb, nb);
      free(a);
      free(b);
      return 1;
    }
  }
  const char *input_a = a ? a : r->path_a, *input_b = b ? b : r->path_b;
  tl_outdir outdir, check_b;
  char error[512] = "";
  bool ok = tl_outdir_check(&check_b, r->out_dir, r->overwrite, input_b, error,
                            sizeof error);
  tl_outdir_free(&check_b);
  if (!ok ||
      !tl_outdir_check(&outdir, r->out_dir, r->overwrite, input_a, error,
                       sizeof error) ||
      !tl_outdir_stage(&outdir, error, sizeof error)) {
    fprintf(stderr, "tlparse: diff: %s\n", error);
    if (ok)
      tl_outdir_free(&outdir);
    free(a);
    free(b);
    free_logs(la, na);
    free_logs(lb, nb);
    return 1;
  }
  tl_run_diff_summary sum;
  size_t failed = 0;
  if (by_rank)
    ok = compare_ranks(r, outdir.staging, la, na, lb, nb, &sum, &failed, error,
                       sizeof error);
  else
    ok = compare_logs(r, a, b, outdir.staging, outdir.staging, &sum, &failed,
                      error, sizeof error);
  bool compared = ok;
  if (ok)
    ok = tl_outdir_publish(&outdir, error, sizeof error);
  int code = 0;
  if (!ok) {
    /* A file of the staging folder is named under the output folder; a
     * failed publish names the staging folder that keeps the comparison. */
    char *reason = tl_renamed_paths(
        error[0] ? error : "the comparison could not be written",
        compared ? NULL : outdir.staging, r->out_dir);
    tl_outdir_abandon(&outdir);
    fprintf(stderr, "tlparse: diff: %s\n", reason);
    free(reason);
    code = 1;
  } else {
    printf("tlparse: diff: %zu compile%s matched, %zu changed; %zu only in "
           "A, %zu only in B\n",
           sum.compiles_matched, sum.compiles_matched == 1 ? "" : "s",
           sum.compiles_changed, sum.compiles_only_a, sum.compiles_only_b);
    printf("tlparse: wrote %s/index.html\n", r->out_dir);
    if (r->strict && failed) {
      fprintf(stderr, "tlparse: --strict: %zu %s to parse\n", failed,
              failed == 1 ? "line failed" : "lines failed");
      code = 1;
    }
    tl_report_open_browser(r->out_dir, r->no_browser);
  }
  tl_outdir_free(&outdir);
  free(a);
  free(b);
  free_logs(la, na);
  free_logs(lb, nb);
  return code;
#endif
}
