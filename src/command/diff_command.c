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
#include "util/diag.h"
#include "util/fsutil.h"
#ifdef HAVE_tl_engine
#include "analyze/ts_query.h"
#endif

/* The regular files directly in `dir`. */
static size_t count_files(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    tl_buf path;
    tl_buf_init(&path);
    tl_buf_printf(&path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (lstat(path.data, &st) == 0 && S_ISREG(st.st_mode))
      n++;
    tl_buf_free(&path);
  }
  closedir(d);
  return n;
}

/* A or B as the log to read (malloc'd), or NULL after one line naming it. */
static char *resolve(const char *which, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr,
            "tlparse: diff: cannot open %s (%s): no such file or "
            "folder\n",
            path, which);
    return NULL;
  }
  if (S_ISREG(st.st_mode))
    return tl_xstrdup(path);
  if (!S_ISDIR(st.st_mode)) {
    fprintf(stderr,
            "tlparse: diff: %s (%s) is not a regular file or a folder; save "
            "the trace to a file first\n",
            path, which);
    return NULL;
  }
  size_t ranks = tl_multi_rank_count_logs(path);
  if (ranks >= 2) {
    fprintf(stderr,
            "tlparse: diff: %s (%s) holds %zu rank logs; tlparse diff "
            "compares one log with one log: give one rank's log of each run "
            "(such as %s/dedicated_log_torch_trace_rank_0.log)\n",
            path, which, ranks, path);
    return NULL;
  }
  char *latest = tl_fs_latest_file(path);
  if (!latest) {
    fprintf(stderr, "tlparse: diff: %s (%s) holds no trace log\n", path, which);
    return NULL;
  }
  size_t files = count_files(path);
  if (files > 1)
    fprintf(stderr,
            "tlparse: diff: %s (%s) holds %zu logs; comparing the latest, "
            "%s\n",
            path, which, files, latest);
  return latest;
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
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    tl_pipeline_options p = {0};
    p.input = input;
    p.out_dir = out.data;
    p.custom_header_html = r->custom_header_html;
    p.provenance = r->provenance;
    p.plain_text = r->plain_text;
    p.show_progress = isatty(STDERR_FILENO);
    p.workers = cpus > 0 ? (int)cpus : 1;
    p.on_report = on_report;
    p.on_report_ctx = &t;
    ok = tl_pipeline_run(&p, diag, error, error_size);
  }
  tl_buf_free(&out);
  return ok && t.done;
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
  char *a = resolve("A", r->path_a);
  char *b = a ? resolve("B", r->path_b) : NULL;
  if (!a || !b) {
    free(a);
    return 1;
  }
  tl_outdir outdir, check_b;
  char error[512] = "";
  bool ok = tl_outdir_check(&check_b, r->out_dir, r->overwrite, b, error,
                            sizeof error);
  tl_outdir_free(&check_b);
  if (!ok ||
      !tl_outdir_check(&outdir, r->out_dir, r->overwrite, a, error,
                       sizeof error) ||
      !tl_outdir_stage(&outdir, error, sizeof error)) {
    fprintf(stderr, "tlparse: diff: %s\n", error);
    if (ok)
      tl_outdir_free(&outdir);
    free(a);
    free(b);
    return 1;
  }
  tl_diag diag_a, diag_b;
  tl_diag_init(&diag_a, a);
  tl_diag_init(&diag_b, b);
  diag_a.verbose = diag_b.verbose = r->verbose;
  tl_run run_a, run_b;
  memset(&run_a, 0, sizeof run_a);
  memset(&run_b, 0, sizeof run_b);
  bool have_a = false, have_b = false;
  ok = (have_a = report_run(r, a, outdir.staging, "a", &run_a, &diag_a, error,
                            sizeof error)) &&
       (have_b = report_run(r, b, outdir.staging, "b", &run_b, &diag_b, error,
                            sizeof error));
  tl_run_diff_summary sum;
  if (ok)
    ok = tl_run_diff_write(outdir.staging, &run_a, &run_b, r->path_a, r->path_b,
                           &sum, error, sizeof error);
  if (ok)
    ok = tl_outdir_publish(&outdir, error, sizeof error);
  tl_diag_print_summary(&diag_a);
  tl_diag_print_summary(&diag_b);
  int code = 0;
  if (!ok) {
    tl_outdir_abandon(&outdir);
    fprintf(stderr, "tlparse: diff: %s\n",
            error[0] ? error : "the comparison could not be written");
    code = 1;
  } else {
    printf("tlparse: diff: %zu compile%s matched, %zu changed; %zu only in "
           "A, %zu only in B\n",
           sum.compiles_matched, sum.compiles_matched == 1 ? "" : "s",
           sum.compiles_changed, sum.compiles_only_a, sum.compiles_only_b);
    printf("tlparse: wrote %s/index.html\n", r->out_dir);
    size_t failed =
        tl_diag_parse_failures(&diag_a) + tl_diag_parse_failures(&diag_b);
    if (r->strict && failed) {
      fprintf(stderr, "tlparse: --strict: %zu %s to parse\n", failed,
              failed == 1 ? "line failed" : "lines failed");
      code = 1;
    }
    tl_report_open_browser(r->out_dir, r->no_browser);
  }
  if (have_a)
    tl_run_free(&run_a);
  if (have_b)
    tl_run_free(&run_b);
  tl_diag_free(&diag_a);
  tl_diag_free(&diag_b);
  tl_ts_query_cache_free();
  tl_outdir_free(&outdir);
  free(a);
  free(b);
  return code;
#endif
}
