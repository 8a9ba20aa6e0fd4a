/* multi_rank_driver.c: `tlparse PATH --all-ranks-html` as a program of its
 * own, for the multi-rank tests until main.c takes the flag. It does what
 * main.c must do for the mode, in the same order (docs/multi-rank.md):
 * refuse --latest and -e with it, require a folder with rank logs before
 * any output folder is made, stage, run, publish, and exit 1 on --strict
 * failures, failed ranks or environment errors.
 */
#define _XOPEN_SOURCE 700
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "multi_rank.h"
#include "outdir.h"

typedef struct args {
  const char *path, *out, *header;
  bool all_ranks, latest, export_mode, overwrite, provenance, plain_text;
  bool strict, strict_compile_id, verbose;
  int jobs;
} args;

static int parse(int argc, char **argv, args *a) {
  static const struct option options[] = {
      {"all-ranks-html", no_argument, NULL, 'A'},
      {"latest", no_argument, NULL, 'L'},
      {"export", no_argument, NULL, 'e'},
      {"overwrite", no_argument, NULL, 'O'},
      {"no-browser", no_argument, NULL, 'N'},
      {"inductor-provenance", no_argument, NULL, 'i'},
      {"plain-text", no_argument, NULL, 'p'},
      {"strict", no_argument, NULL, 'S'},
      {"strict-compile-id", no_argument, NULL, 'C'},
      {"verbose", no_argument, NULL, 'v'},
      {"custom-header-html", required_argument, NULL, 'H'},
      {"jobs", required_argument, NULL, 'j'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  memset(a, 0, sizeof *a);
  a->out = "tl_out";
  int opt;
  while ((opt = getopt_long(argc, argv, "o:eipvj:h", options, NULL)) != -1) {
    switch (opt) {
    case 'o':
      a->out = optarg;
      break;
    case 'A':
      a->all_ranks = true;
      break;
    case 'L':
      a->latest = true;
      break;
    case 'e':
      a->export_mode = true;
      break;
    case 'O':
      a->overwrite = true;
      break;
    case 'N':
      break;
    case 'i':
      a->provenance = true;
      break;
    case 'p':
      a->plain_text = true;
      break;
    case 'S':
      a->strict = true;
      break;
    case 'C':
      a->strict_compile_id = true;
      break;
    case 'v':
      a->verbose = true;
      break;
    case 'H':
      a->header = optarg;
      break;
    case 'j':
      a->jobs = atoi(optarg);
      if (a->jobs < 1) {
        fprintf(stderr, "tlparse: -j needs a number of ranks, 1 or more\n");
        return 1;
      }
      break;
    case 'h':
      fputs("usage: multi_rank_driver PATH --all-ranks-html [-o DIR] "
            "[--overwrite] [-j N] ...\n",
            stdout);
      return 0;
    default:
      return 1;
    }
  }
  if (optind + 1 != argc || !a->all_ranks) {
    fputs("usage: multi_rank_driver PATH --all-ranks-html [-o DIR] "
          "[--overwrite] [-j N] [-i] [-p] [--strict] [--strict-compile-id] "
          "[-v] [--custom-header-html HTML]\n",
          stderr);
    return 1;
  }
  a->path = argv[optind];
  return -1;
}

/* The checks main.c makes before anything is created, in this order. */
static int check(const args *a) {
  struct stat st;
  if (a->latest) {
    fputs("tlparse: --latest cannot be used with --all-ranks-html\n", stderr);
    return 1;
  }
  if (a->export_mode) {
    fputs("tlparse: -e/--export cannot be used with --all-ranks-html (run "
          "-e on one rank's log instead)\n",
          stderr);
    return 1;
  }
  if (stat(a->path, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr,
            "tlparse: Input path %s must be a directory when using "
            "--all-ranks-html\n",
            a->path);
    return 1;
  }
  if (tl_multi_rank_count_logs(a->path) == 0) {
    fprintf(stderr, "tlparse: No rank log files found in directory %s\n",
            a->path);
    return 1;
  }
  return -1;
}

int main(int argc, char **argv) {
  args a;
  int code = parse(argc, argv, &a);
  if (code < 0)
    code = check(&a);
  if (code >= 0)
    return code;
  tl_outdir outdir;
  char error[512] = "";
  if (!tl_outdir_check(&outdir, a.out, a.overwrite, a.path, error,
                       sizeof error) ||
      !tl_outdir_stage(&outdir, error, sizeof error)) {
    fprintf(stderr, "tlparse: %s\n", error);
    tl_outdir_free(&outdir);
    return 1;
  }
  tl_multi_rank_options o = {0};
  o.input_dir = a.path;
  o.out_name = a.out;
  o.out_dir = outdir.staging;
  o.custom_header_html = a.header;
  o.provenance = a.provenance;
  o.plain_text = a.plain_text;
  o.strict_compile_id = a.strict_compile_id;
  o.verbose = a.verbose;
  o.jobs = a.jobs;
  o.progress = isatty(STDERR_FILENO);
  tl_multi_rank_result result;
  bool ok = tl_multi_rank_run(&o, &result, error, sizeof error) &&
            tl_outdir_publish(&outdir, error, sizeof error);
  code = 0;
  if (!ok) {
    tl_outdir_abandon(&outdir);
    fprintf(stderr, "tlparse: %s\n", error);
    code = 1;
  } else {
    if (result.failed) {
      fprintf(stderr, "tlparse: %zu of %zu ranks failed (see above)\n",
              result.failed, result.ranks);
      code = 1;
    }
    if (a.strict && result.parse_failures) {
      fprintf(stderr, "tlparse: --strict: %zu lines failed to parse\n",
              result.parse_failures);
      code = 1;
    }
    if (a.strict_compile_id && result.no_compile_id) {
      fprintf(stderr,
              "tlparse: --strict-compile-id: %zu entries had no compile id\n",
              result.no_compile_id);
      code = 1;
    }
  }
  tl_outdir_free(&outdir);
  return code;
}
