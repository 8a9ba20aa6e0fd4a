/* report_command.c: `tlparse PATH` from a parsed command line to an exit
 * code (report_command.h): the input, the output folder, the pipeline or
 * the multi-rank mode, the messages, the browser.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "command/report_command.h"
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

static void open_browser(const char *index_path) {
  const char *display = getenv("DISPLAY");
  const char *wayland = getenv("WAYLAND_DISPLAY");
  if ((!display || !*display) && (!wayland || !*wayland))
    return;
  pid_t pid = fork();
  if (pid == 0) {
    /* Detach fully: the browser must never hold up or fail the run. */
    if (fork() != 0)
      _exit(0);
    freopen("/dev/null", "r", stdin);
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    tl_outdir_restore_file_size_limit_signal();
    execlp("xdg-open", "xdg-open", index_path, (char *)NULL);
    _exit(127);
  }
  if (pid > 0)
    waitpid(pid, NULL, 0);
}

void tl_report_open_browser(const char *out_dir, bool no_browser) {
  const char *ci = getenv("CI");
  if (no_browser || (ci && *ci))
    return;
  tl_buf index;
  tl_buf_init(&index);
  tl_buf_printf(&index, "%s/index.html", out_dir);
  fflush(stdout);
  open_browser(index.data);
  tl_buf_free(&index);
}

/* Opens OUT/index.html unless --no-browser or CI is set. */
static void open_report(const tl_report_request *c) {
  tl_report_open_browser(c->out_dir, c->no_browser);
}

/* Resolves PATH (file, or folder with --latest) into *input (malloc'd).
 * Only a regular file is read: a device, a FIFO or a socket could be
 * endless or never answer. */
static bool resolve_input(const tl_report_request *c, char **input) {
  struct stat st;
  if (stat(c->path, &st) != 0) {
    fprintf(stderr, "tlparse: cannot open %s: no such file or folder\n",
            c->path);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    if (!c->latest) {
      fprintf(stderr,
              "tlparse: %s is a folder; pass --latest to read its most "
              "recently modified file\n",
              c->path);
      return false;
    }
    *input = tl_fs_latest_file(c->path);
    if (!*input) {
      fprintf(stderr, "tlparse: %s has no files to read\n", c->path);
      return false;
    }
    return true;
  }
  if (!S_ISREG(st.st_mode)) {
    fprintf(stderr,
            "tlparse: %s is not a regular file (a device, FIFO or socket); "
            "save the trace to a file first\n",
            c->path);
    return false;
  }
  *input = tl_xstrdup(c->path);
  return true;
}

/* Each --profile names a folder or a regular file that exists, checked
 * before the trace is read (a FIFO or a device could never end). */
static bool check_profiles(const tl_report_request *c) {
  for (size_t i = 0; i < c->profile_count; i++) {
    struct stat st;
    if (stat(c->profiles[i], &st) != 0) {
      fprintf(stderr, "tlparse: --profile %s: cannot open it: %s\n",
              c->profiles[i], strerror(errno));
      return false;
    }
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
      fprintf(stderr,
              "tlparse: --profile %s is not a regular file or a folder (a "
              "device, FIFO or socket); save the trace to a file first\n",
              c->profiles[i]);
      return false;
    }
  }
  return true;
}

/* Everything after the command line: the input, the output folder, the
 * pipeline, the messages; returns the exit code. */
static int run_one(const tl_report_request *cp) {
  const tl_report_request c = *cp;
  char *input = NULL;
  if (!resolve_input(&c, &input))
    return 1;
  if (!check_profiles(&c)) {
    free(input);
    return 1;
  }
  tl_outdir outdir;
  char error[512] = "";
  if (!tl_outdir_check(&outdir, c.out_dir, c.overwrite, input, error,
                       sizeof error) ||
      !tl_outdir_stage(&outdir, error, sizeof error)) {
    fprintf(stderr, "tlparse: %s\n", error);
    tl_outdir_free(&outdir);
    free(input);
    return 1;
  }
  const char *staging = outdir.staging;
  tl_diag diag;
  tl_diag_init(&diag, input);
  diag.verbose = c.verbose;
  /* A copy: publishing or abandoning the staging folder frees its name. */
  char *staged = tl_xstrdup(staging);
  diag.staged = staged;
  diag.shown = c.out_dir;

  tl_pipeline_options pipeline = {0};
  pipeline.input = input;
  pipeline.out_dir = staging;
  pipeline.custom_header_html = c.custom_header_html;
  pipeline.profiles = c.profiles;
  pipeline.profile_count = c.profile_count;
  pipeline.provenance = c.provenance;
  pipeline.plain_text = c.plain_text;
  pipeline.strict_compile_id = c.strict_compile_id;
  pipeline.export_report = c.export_report;
  pipeline.show_progress = isatty(STDERR_FILENO);
  pipeline.workers = tl_cores_usable();
  bool ok = tl_pipeline_run(&pipeline, &diag, error, sizeof error);
  if (ok)
    ok = tl_outdir_publish(&outdir, error, sizeof error);
  tl_diag_print_summary(&diag);
  int exit_code = 0;
  if (!ok) {
    /* The reason, unless the summary above printed it already (an output
     * file that could not be written is also a diagnostic). */
    char *reason = tl_diag_renamed(&diag, error);
    const char *said = diag.examples[TL_DIAG_OUTPUT][0].message;
    if (!said || strcmp(said, reason) != 0)
      fprintf(stderr, "tlparse: %s\n", reason);
    free(reason);
    tl_outdir_abandon(&outdir);
    exit_code = 1;
  } else {
    printf("tlparse: wrote %s/index.html\n", c.out_dir);
    /* As the Rust tool, the export report enforces neither strict mode. */
    if (c.strict && !c.export_report && tl_diag_parse_failures(&diag)) {
      size_t failed = tl_diag_parse_failures(&diag);
      fprintf(stderr, "tlparse: --strict: %zu %s to parse\n", failed,
              failed == 1 ? "line failed" : "lines failed");
      exit_code = 1;
    }
    if (c.strict && diag.counts[TL_DIAG_PROFILE_UNUSABLE]) {
      size_t unusable = diag.counts[TL_DIAG_PROFILE_UNUSABLE];
      fprintf(stderr,
              "tlparse: --strict: %zu profile %s unreadable, truncated, "
              "empty or matching no view\n",
              unusable, unusable == 1 ? "trace" : "traces");
      exit_code = 1;
    }
    if (c.strict_compile_id && !c.export_report &&
        diag.counts[TL_DIAG_NO_COMPILE_ID]) {
      size_t unread = diag.counts[TL_DIAG_NO_COMPILE_ID];
      fprintf(stderr,
              "tlparse: --strict-compile-id: %zu %s with a compile id "
              "that cannot be read\n",
              unread, unread == 1 ? "entry" : "entries");
      exit_code = 1;
    }
    open_report(&c);
  }
  tl_diag_free(&diag);
  free(staged);
#ifdef HAVE_tl_engine
  tl_ts_query_cache_free();
#endif
  tl_outdir_free(&outdir);
  free(input);
  return exit_code;
}

/* The checks of --all-ranks-html, in the Rust tool's order, before any
 * output folder is made; -1 to go on, else the exit code. */
static int check_all_ranks(const tl_report_request *c) {
  if (c->latest) {
    fputs("tlparse: --latest cannot be used with --all-ranks-html\n", stderr);
    return 1;
  }
  if (c->export_report) {
    fputs("tlparse: -e/--export cannot be used with --all-ranks-html (run "
          "-e on one rank's log instead)\n",
          stderr);
    return 1;
  }
  if (c->profile_count) {
    fputs("tlparse: --profile cannot be used with --all-ranks-html (run it "
          "on one rank's log with that rank's profile)\n",
          stderr);
    return 1;
  }
  struct stat st;
  if (stat(c->path, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr,
            "tlparse: Input path %s must be a directory when using "
            "--all-ranks-html\n",
            c->path);
    return 1;
  }
  if (tl_multi_rank_count_logs(c->path) == 0) {
    fprintf(stderr, "tlparse: No rank log files found in directory %s\n",
            c->path);
    return 1;
  }
  return -1;
}

/* --all-ranks-html: every rank's report and the landing page
 * (src/multirank/multi_rank.h); returns the exit code. */
static int run_all_ranks(const tl_report_request *c) {
  int code = check_all_ranks(c);
  if (code >= 0)
    return code;
  tl_outdir outdir;
  char error[512] = "";
  if (!tl_outdir_check(&outdir, c->out_dir, c->overwrite, c->path, error,
                       sizeof error) ||
      !tl_outdir_stage(&outdir, error, sizeof error)) {
    fprintf(stderr, "tlparse: %s\n", error);
    tl_outdir_free(&outdir);
    return 1;
  }
  tl_multi_rank_options o = {0};
  o.input_dir = c->path;
  o.out_name = c->out_dir;
  o.out_dir = outdir.staging;
  o.custom_header_html = c->custom_header_html;
  o.provenance = c->provenance;
  o.plain_text = c->plain_text;
  o.strict_compile_id = c->strict_compile_id;
  o.verbose = c->verbose;
  o.jobs = c->jobs;
  o.progress = isatty(STDERR_FILENO);
  tl_multi_rank_result result;
  bool ran = tl_multi_rank_run(&o, &result, error, sizeof error);
  bool ok = ran && tl_outdir_publish(&outdir, error, sizeof error);
  code = 0;
  if (!ok) {
    /* A file of the staging folder is named under the output folder; a
     * failed publish names the staging folder that keeps the report. */
    char *reason =
        tl_renamed_paths(error[0] ? error : "the report could not be written",
                         ran ? NULL : outdir.staging, c->out_dir);
    tl_outdir_abandon(&outdir);
    fprintf(stderr, "tlparse: %s\n", reason);
    free(reason);
    code = 1;
  } else {
    if (result.failed) {
      fprintf(stderr, "tlparse: %zu of %zu ranks failed (see above)\n",
              result.failed, result.ranks);
      code = 1;
    }
    if (c->strict && result.parse_failures) {
      fprintf(stderr, "tlparse: --strict: %zu %s to parse\n",
              result.parse_failures,
              result.parse_failures == 1 ? "line failed" : "lines failed");
      code = 1;
    }
    if (c->strict_compile_id && result.no_compile_id) {
      fprintf(stderr,
              "tlparse: --strict-compile-id: %zu %s with a compile id "
              "that cannot be read\n",
              result.no_compile_id,
              result.no_compile_id == 1 ? "entry" : "entries");
      code = 1;
    }
    open_report(c);
  }
  tl_outdir_free(&outdir);
  return code;
}

int tl_report_command(const tl_report_request *r) {
  return r->all_ranks ? run_all_ranks(r) : run_one(r);
}
