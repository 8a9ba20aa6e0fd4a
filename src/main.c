/* main.c: the command line. Parses argv into a request and hands it to
 * its command (src/command/): `tlparse PATH` writes the report of a log or
 * a folder of rank logs (report_command.h); `tlparse run ... -- CMD` runs
 * CMD with TORCH_TRACE set and then writes the report of what it logged
 * (run_command.h); `tlparse diff A B` compares two runs
 * (diff_command.h). A subcommand is a first word main() checks for.
 * Exit codes: 0 success; 1 environment errors, and with --strict or
 * --strict-compile-id the input failures they name, except with -e, which
 * (as the Rust tool) enforces neither; `run` returns its child's failing
 * status (docs/cli.md).
 */
#define _XOPEN_SOURCE 700
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/ts_alloc.h"
#include "command/diff_command.h"
#include "command/report_command.h"
#include "command/run_command.h"
#include "run/outdir.h"
#include "util/buf.h"

static const char USAGE[] =
    "usage: tlparse PATH [-o DIR] [--latest] [--overwrite] [--no-browser]\n"
    "               [-i|--inductor-provenance] [--strict] "
    "[--strict-compile-id]\n"
    "               [-p|--plain-text] [-e|--export] [-v|--verbose]\n"
    "               [--custom-header-html HTML]"
    " [--profile TRACE.json[.gz]|DIR]...\n"
    "               [--all-ranks-html [-j N]] [--version] [--help]\n"
    "       tlparse run [--trace-dir DIR] [OPTIONS] -- CMD [ARGS...]\n"
    "       tlparse diff A B [-o DIR] [--overwrite] [--no-browser] [-i]\n"
    "               [-p] [-v] [--strict] [--custom-header-html HTML]\n"
    "\n"
    "Turns a TORCH_TRACE structured log into a browsable folder (default\n"
    "tl_out/) with index.html and every artifact; -i adds the provenance\n"
    "highlighter; -e writes the Draft Export Report of a torch.export\n"
    "trace instead; --all-ranks-html reads a folder of rank logs\n"
    "(rank_N/ per rank, N at once with -j, and a landing page).\n"
    "`tlparse run` runs CMD with TORCH_TRACE set to a fresh folder (and\n"
    "INDUCTOR_PROVENANCE=1 with -i), then writes the report of what it\n"
    "logged (several rank logs: the --all-ranks-html report); it exits\n"
    "with CMD's status when CMD failed.\n"
    "`tlparse diff A B` compares two runs (each a trace log or a trace\n"
    "folder), written to DIR (default tl_diff/): compiles matched by\n"
    "function then order, what changed in each, functions only one run\n"
    "compiled, graph breaks that appeared or went.\n"
    "Every flag, exit code and variable: man tlparse.\n";

typedef struct cli {
  tl_report_request report;
  const char **profiles; /* --profile, in order given (malloc'd array) */
  bool run;              /* `tlparse run`: the fields below apply */
  const char *trace_dir; /* --trace-dir */
  char **command;        /* CMD [ARGS...], NULL-terminated (in argv) */
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
  OPT_HELP,
  OPT_TRACE_DIR
};

/* -e writes no provenance page for --profile to join; says so. */
static bool export_with_profile(const cli *c) {
  if (!c->report.export_report || !c->report.profile_count)
    return false;
  fputs("tlparse: --profile joins the provenance pages, which -e does not "
        "write\n",
        stderr);
  return true;
}

/* `tlparse run`: what follows the options is CMD; the options that name
 * the input are the run's own. -1 to go on, else the exit code. */
static int check_run_args(int argc, char **argv, cli *c) {
  if (optind >= argc) {
    fputs("tlparse: run: missing the command to run (tlparse run [OPTIONS] "
          "-- CMD [ARGS...])\n",
          stderr);
    fputs(USAGE, stderr);
    return 1;
  }
  if (c->report.latest || c->report.all_ranks) {
    fprintf(stderr,
            "tlparse: run: %s does not apply: the run reads the logs it "
            "made (several rank logs give the --all-ranks-html report)\n",
            c->report.latest ? "--latest" : "--all-ranks-html");
    return 1;
  }
  if (export_with_profile(c))
    return 1;
  c->command = argv + optind;
  return -1;
}

/* Parses the options of argv[0..argc) (argv[0] is the program or the
 * subcommand's word); `run` says whether they are `tlparse run`'s. Returns
 * -1 to go on, or the exit code to stop with. */
static int parse_args(int argc, char **argv, bool run, cli *c) {
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
      {"trace-dir", required_argument, NULL, OPT_TRACE_DIR},
      {NULL, 0, NULL, 0}};
  memset(c, 0, sizeof *c);
  c->run = run;
  c->report.out_dir = "tl_out";
  int opt;
  opterr = 0;
  optind = 1;
  /* In `run`, the first word that is no option starts CMD ('+'). */
  const char *shorts = run ? "+o:ipvehj:" : "o:ipvehj:";
  while ((opt = getopt_long(argc, argv, shorts, options, NULL)) != -1) {
    switch (opt) {
    case 'o':
      c->report.out_dir = optarg;
      break;
    case 'i':
      c->report.provenance = true;
      break;
    case 'p':
      c->report.plain_text = true;
      break;
    case 'v':
      c->report.verbose = true;
      break;
    case 'e':
      c->report.export_report = true;
      break;
    case OPT_LATEST:
      c->report.latest = true;
      break;
    case OPT_OVERWRITE:
      c->report.overwrite = true;
      break;
    case OPT_NO_BROWSER:
      c->report.no_browser = true;
      break;
    case OPT_STRICT:
      c->report.strict = true;
      break;
    case OPT_STRICT_COMPILE_ID:
      c->report.strict_compile_id = true;
      break;
    case OPT_CUSTOM_HEADER:
      c->report.custom_header_html = optarg;
      break;
    case OPT_PROFILE:
      c->profiles = tl_xrealloc(c->profiles, (c->report.profile_count + 1) *
                                                 sizeof *c->profiles);
      c->profiles[c->report.profile_count++] = optarg;
      c->report.profiles = c->profiles;
      c->report.provenance =
          true; /* the times are shown on the provenance pages */
      break;
    case OPT_ALL_RANKS:
      c->report.all_ranks = true;
      break;
    case 'j': {
      char *end;
      long jobs = strtol(optarg, &end, 10);
      if (*end || jobs < 1 || jobs > 4096) {
        fprintf(stderr, "tlparse: -j needs a number of ranks, 1 or more\n");
        return 1;
      }
      c->report.jobs = (int)jobs;
      break;
    }
    case OPT_VERSION:
      printf("tlparse %s\n", TLPARSE_VERSION);
      return 0;
    case OPT_TRACE_DIR:
      if (!run) {
        fputs("tlparse: --trace-dir belongs to `tlparse run`\n", stderr);
        return 1;
      }
      c->trace_dir = optarg;
      break;
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
      else if (optopt == OPT_TRACE_DIR)
        fputs("tlparse: --trace-dir needs a folder\n", stderr);
      else if (optopt > 0 && optopt < 128)
        fprintf(stderr, "tlparse: option -%c needs a value or is unknown\n",
                optopt);
      else
        fprintf(stderr, "tlparse: unknown option %s\n", argv[optind - 1]);
      fputs(USAGE, stderr);
      return 1;
    }
  }
  if (run)
    return check_run_args(argc, argv, c);
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
  if (export_with_profile(c))
    return 1;
  c->report.path = argv[optind];
  return -1;
}

/* `tlparse diff A B [OPTIONS]` (argv[0] is "diff"): -1 after filling *d, or
 * the exit code to stop with. */
static int parse_diff_args(int argc, char **argv, tl_diff_request *d) {
  static const struct option options[] = {
      {"out", required_argument, NULL, 'o'},
      {"overwrite", no_argument, NULL, OPT_OVERWRITE},
      {"no-browser", no_argument, NULL, OPT_NO_BROWSER},
      {"inductor-provenance", no_argument, NULL, 'i'},
      {"strict", no_argument, NULL, OPT_STRICT},
      {"plain-text", no_argument, NULL, 'p'},
      {"verbose", no_argument, NULL, 'v'},
      {"custom-header-html", required_argument, NULL, OPT_CUSTOM_HEADER},
      {"help", no_argument, NULL, OPT_HELP},
      {NULL, 0, NULL, 0}};
  memset(d, 0, sizeof *d);
  d->out_dir = "tl_diff";
  const char *paths[2] = {NULL, NULL};
  size_t npaths = 0;
  opterr = 0;
  optind = 1;
  int opt;
  /* '-': the two paths may come before or after the options. */
  while ((opt = getopt_long(argc, argv, "-o:ipvh", options, NULL)) != -1) {
    switch (opt) {
    case 1:
      if (npaths == 2) {
        fprintf(stderr,
                "tlparse: diff: unexpected argument %s (give two "
                "runs, A and B)\n",
                optarg);
        return 1;
      }
      paths[npaths++] = optarg;
      break;
    case 'o':
      d->out_dir = optarg;
      break;
    case 'i':
      d->provenance = true;
      break;
    case 'p':
      d->plain_text = true;
      break;
    case 'v':
      d->verbose = true;
      break;
    case OPT_OVERWRITE:
      d->overwrite = true;
      break;
    case OPT_NO_BROWSER:
      d->no_browser = true;
      break;
    case OPT_STRICT:
      d->strict = true;
      break;
    case OPT_CUSTOM_HEADER:
      d->custom_header_html = optarg;
      break;
    case 'h':
    case OPT_HELP:
      fputs(USAGE, stdout);
      return 0;
    default:
      if (optopt == 'o' || optopt == OPT_CUSTOM_HEADER)
        fprintf(stderr, "tlparse: diff: %s needs a value\n",
                optopt == 'o' ? "-o" : "--custom-header-html");
      else if (optopt > 0 && optopt < 128)
        fprintf(stderr, "tlparse: diff: unknown option -%c\n", optopt);
      else
        fprintf(stderr, "tlparse: diff: unknown option %s\n", argv[optind - 1]);
      fputs(USAGE, stderr);
      return 1;
    }
  }
  while (optind < argc && npaths < 2) /* after "--" */
    paths[npaths++] = argv[optind++];
  if (optind < argc) {
    fprintf(stderr,
            "tlparse: diff: unexpected argument %s (give two runs, "
            "A and B)\n",
            argv[optind]);
    return 1;
  }
  if (npaths < 2) {
    fprintf(stderr,
            "tlparse: diff: missing %s (tlparse diff A B: each a "
            "trace log or a trace folder)\n",
            npaths ? "B" : "A and B");
    fputs(USAGE, stderr);
    return 1;
  }
  d->path_a = paths[0];
  d->path_b = paths[1];
  return -1;
}

int main(int argc, char **argv) {
#ifdef __GLIBC__
  /* Blocks of 1 MiB and more (texts, payloads, page buffers) are mapped
   * and unmapped on their own, so freeing one gives its memory back at
   * once. glibc's default raises this threshold to the size of the last
   * such block freed (up to 32 MiB): a view's texts then came from the heap
   * and stayed resident, fragmented, after they were freed. */
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
  tl_ts_library_allocator_install(); /* before any thread parses */
  tl_outdir_ignore_file_size_limit_signal();
  /* The subcommands: a first word that names one (a log of that name is
   * read as ./NAME). */
  if (argc > 1 && strcmp(argv[1], "diff") == 0) {
    tl_diff_request d;
    int code = parse_diff_args(argc - 1, argv + 1, &d);
    return code < 0 ? tl_diff_command(&d) : code;
  }
  bool run = argc > 1 && strcmp(argv[1], "run") == 0;
  cli c;
  int code = run ? parse_args(argc - 1, argv + 1, true, &c)
                 : parse_args(argc, argv, false, &c);
  if (code < 0 && c.run) {
    tl_run_request r = {c.report, c.trace_dir, c.command};
    code = tl_run_command(&r);
  } else if (code < 0) {
    code = tl_report_command(&c.report);
  }
  free(c.profiles);
  return code;
}
