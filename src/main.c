/* main.c: the command line. Parses argv, prepares the output folder, runs
 * the pipeline (read -> store -> report, src/run/pipeline.c), prints one-line
 * messages, opens the browser.
 * Exit codes: 0 success; 1 environment errors, and with --strict or
 * --strict-compile-id the input failures they name, except with -e, which
 * (as the Rust tool) enforces neither (docs/cli.md).
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "multirank/multi_rank.h"
#include "run/outdir.h"
#include "run/pipeline.h"
#include "util/diag.h"
#include "util/fsutil.h"
#ifdef HAVE_tl_engine
#include "analyze/ts_query.h"
#endif

static const char USAGE[] =
    "usage: tlparse PATH [-o DIR] [--latest] [--overwrite] [--no-browser]\n"
    "               [-i|--inductor-provenance] [--strict] "
    "[--strict-compile-id]\n"
    "               [-p|--plain-text] [-e|--export] [-v|--verbose]\n"
    "               [--custom-header-html HTML]"
    " [--profile TRACE.json[.gz]|DIR]...\n"
    "               [--all-ranks-html [-j N]] [--version] [--help]\n"
    "\n"
    "Turns a TORCH_TRACE structured log into a browsable folder (default\n"
    "tl_out/) with index.html and every artifact; -i adds the provenance\n"
    "highlighter; -e writes the Draft Export Report of a torch.export\n"
    "trace instead; --all-ranks-html reads a folder of rank logs\n"
    "(rank_N/ per rank, N at once with -j, and a landing page).\n"
    "Every flag, exit code and variable: man tlparse.\n";

typedef struct cli {
  const char *path;
  const char *out_dir;
  const char *custom_header_html;
  const char **profiles; /* --profile, in order given (malloc'd array) */
  size_t profile_count;
  bool latest, overwrite, no_browser, provenance, strict, strict_compile_id;
  bool plain_text, verbose, export_report, all_ranks;
  int jobs; /* -j: ranks parsed at once with --all-ranks-html; 0 = cores */
} cli;

enum {
  OPT_LATEST = 256,
  OPT_OVERWRITE,
  OPT_NO_BROWSER,
  OPT_STRICT,
  OPT_STRICT_COMPILE_ID,
  OPT_CUSTOM_HEADER,
  OPT_PROFILE,
  OPT_ALL_RANKS,
  OPT_VERSION,
  OPT_HELP
};

/* Returns -1 to go on, or the exit code to stop with. */
static int parse_args(int argc, char **argv, cli *c) {
  static const struct option options[] = {
      {"out", required_argument, NULL, 'o'},
      {"latest", no_argument, NULL, OPT_LATEST},
      {"overwrite", no_argument, NULL, OPT_OVERWRITE},
      {"no-browser", no_argument, NULL, OPT_NO_BROWSER},
      {"inductor-provenance", no_argument, NULL, 'i'},
      {"strict", no_argument, NULL, OPT_STRICT},
      {"strict-compile-id", no_argument, NULL, OPT_STRICT_COMPILE_ID},
      {"plain-text", no_argument, NULL, 'p'},
      {"verbose", no_argument, NULL, 'v'},
      {"export", no_argument, NULL, 'e'},
      {"custom-header-html", required_argument, NULL, OPT_CUSTOM_HEADER},
      {"profile", required_argument, NULL, OPT_PROFILE},
      {"all-ranks-html", no_argument, NULL, OPT_ALL_RANKS},
      {"jobs", required_argument, NULL, 'j'},
      {"version", no_argument, NULL, OPT_VERSION},
      {"help", no_argument, NULL, OPT_HELP},
      {NULL, 0, NULL, 0}};
  memset(c, 0, sizeof *c);
  c->out_dir = "tl_out";
  int opt;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, "o:ipvehj:", options, NULL)) != -1) {
    switch (opt) {
    case 'o':
      c->out_dir = optarg;
      break;
    case 'i':
      c->provenance = true;
      break;
    case 'p':
      c->plain_text = true;
      break;
    case 'v':
      c->verbose = true;
      break;
    case 'e':
      c->export_report = true;
      break;
    case OPT_LATEST:
      c->latest = true;
      break;
    case OPT_OVERWRITE:
      c->overwrite = true;
      break;
    case OPT_NO_BROWSER:
      c->no_browser = true;
      break;
    case OPT_STRICT:
      c->strict = true;
      break;
    case OPT_STRICT_COMPILE_ID:
      c->strict_compile_id = true;
      break;
    case OPT_CUSTOM_HEADER:
      c->custom_header_html = optarg;
      break;
    case OPT_PROFILE:
      c->profiles = tl_xrealloc(c->profiles,
                                (c->profile_count + 1) * sizeof *c->profiles);
      c->profiles[c->profile_count++] = optarg;
      c->provenance = true; /* the times are shown on the provenance pages */
      break;
    case OPT_ALL_RANKS:
      c->all_ranks = true;
      break;
    case 'j': {
      char *end;
      long jobs = strtol(optarg, &end, 10);
      if (*end || jobs < 1 || jobs > 4096) {
        fprintf(stderr, "tlparse: -j needs a number of ranks, 1 or more\n");
        return 1;
      }
      c->jobs = (int)jobs;
      break;
    }
    case OPT_VERSION:
      printf("tlparse %s\n", TLPARSE_VERSION);
      return 0;
    case 'h':
    case OPT_HELP:
      fputs(USAGE, stdout);
      return 0;
    default:
      if (optopt == OPT_PROFILE)
        fputs("tlparse: --profile needs a value: a torch.profiler trace "
              "(.json or .json.gz) or a folder of them\n",
              stderr);
      else if (optopt == OPT_CUSTOM_HEADER)
        fputs("tlparse: --custom-header-html needs a value\n", stderr);
      else if (optopt > 0 && optopt < 128)
        fprintf(stderr, "tlparse: option -%c needs a value or is unknown\n",
                optopt);
      else
        fprintf(stderr, "tlparse: unknown option %s\n", argv[optind - 1]);
      fputs(USAGE, stderr);
      return 1;
    }
  }
  if (optind >= argc) {
    fputs("tlparse: missing PATH (a trace log, or a folder with --latest)\n",
          stderr);
    fputs(USAGE, stderr);
    return 1;
  }
  if (optind + 1 < argc) {
    fprintf(stderr, "tlparse: unexpected argument %s\n", argv[optind + 1]);
    return 1;
  }
  if (c->export_report && c->profile_count) {
    fputs("tlparse: --profile joins the provenance pages, which -e does not "
          "write\n",
          stderr);
    return 1;
  }
  c->path = argv[optind];
  return -1;
}

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
    execlp("xdg-open", "xdg-open", index_path, (char *)NULL);
    _exit(127);
  }
  if (pid > 0)
    waitpid(pid, NULL, 0);
}

/* Opens OUT/index.html unless --no-browser or CI is set. */
static void open_report(const cli *c) {
  const char *ci = getenv("CI");
  if (c->no_browser || (ci && *ci))
    return;
  tl_buf index;
  tl_buf_init(&index);
  tl_buf_printf(&index, "%s/index.html", c->out_dir);
  fflush(stdout);
  open_browser(index.data);
  tl_buf_free(&index);
}

/* Resolves PATH (file, or folder with --latest) into *input (malloc'd).
 * Only a regular file is read: a device, a FIFO or a socket could be
 * endless or never answer. */
static bool resolve_input(const cli *c, char **input) {
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
static bool check_profiles(const cli *c) {
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

static int run(const cli *cp);
static int run_all_ranks(const cli *c);

int main(int argc, char **argv) {
#ifdef __GLIBC__
  /* Blocks of 1 MiB and more (texts, payloads, page buffers) are mapped
   * and unmapped on their own, so freeing one gives its memory back at
   * once. glibc's default raises this threshold to the size of the last
   * such block freed (up to 32 MiB): a view's texts then came from the heap
   * and stayed resident, fragmented, after they were freed. */
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
  cli c;
  int code = parse_args(argc, argv, &c);
  if (code < 0)
    code = c.all_ranks ? run_all_ranks(&c) : run(&c);
  free(c.profiles);
  return code;
}

/* Everything after the command line: the input, the output folder, the
 * pipeline, the messages; returns the exit code. */
static int run(const cli *cp) {
  const cli c = *cp;
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

  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  tl_pipeline_options pipeline = {0};
  pipeline.input = input;
  pipeline.out_dir = staging;
  pipeline.custom_header_html = c.custom_header_html;
  pipeline.profiles = (const char *const *)c.profiles;
  pipeline.profile_count = c.profile_count;
  pipeline.provenance = c.provenance;
  pipeline.plain_text = c.plain_text;
  pipeline.strict_compile_id = c.strict_compile_id;
  pipeline.export_report = c.export_report;
  pipeline.show_progress = isatty(STDERR_FILENO);
  pipeline.workers = cpus > 0 ? (int)cpus : 1;
  bool ok = tl_pipeline_run(&pipeline, &diag, error, sizeof error);
  if (ok)
    ok = tl_outdir_publish(&outdir, error, sizeof error);
  tl_diag_print_summary(&diag);
  int exit_code = 0;
  if (!ok) {
    tl_outdir_abandon(&outdir);
    fprintf(stderr, "tlparse: %s\n", error);
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
#ifdef HAVE_tl_engine
  tl_ts_query_cache_free();
#endif
  tl_outdir_free(&outdir);
  free(input);
  return exit_code;
}

/* The checks of --all-ranks-html, in the Rust tool's order, before any
 * output folder is made; -1 to go on, else the exit code. */
static int check_all_ranks(const cli *c) {
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
static int run_all_ranks(const cli *c) {
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
  bool ok = tl_multi_rank_run(&o, &result, error, sizeof error) &&
            tl_outdir_publish(&outdir, error, sizeof error);
  code = 0;
  if (!ok) {
    tl_outdir_abandon(&outdir);
    fprintf(stderr, "tlparse: %s\n",
            error[0] ? error : "the report could not be written");
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
