/* report_command.h: `tlparse PATH` as a whole, from a parsed command line
 * to an exit code: the input resolved (a log, or a folder's latest with
 * --latest), the output folder checked, staged and published
 * (run/outdir.h), the one-log pipeline (run/pipeline.h) or the
 * --all-ranks-html mode (multirank/multi_rank.h) run, the one-line
 * messages printed and the browser opened. main.c runs it for PATH;
 * run_command.c runs it on the folder its child logged into.
 */
#ifndef TL_REPORT_COMMAND_H
#define TL_REPORT_COMMAND_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tl_report_request {
  const char *path;    /* a trace log, or a folder (--latest, all ranks) */
  const char *out_dir; /* -o, "tl_out" by default */
  const char *custom_header_html;
  const char *const *profiles; /* --profile, in order given (borrowed) */
  size_t profile_count;
  bool latest, overwrite, no_browser, provenance, strict, strict_compile_id;
  bool plain_text, verbose, export_report, all_ranks;
  int jobs; /* -j: ranks parsed at once with --all-ranks-html; 0 = cores */
} tl_report_request;

/* Writes the report `r` asks for (the one-log report, or the multi-rank
 * report when r->all_ranks) and returns the exit code: 0 on success; 1 on
 * an environment error, and with --strict or --strict-compile-id the input
 * failures they name (docs/cli.md). Messages go to stdout and stderr. */
int tl_report_command(const tl_report_request *r);

/* Opens OUT/index.html with xdg-open, detached, unless `no_browser`, the
 * CI variable is set or there is no display. */
void tl_report_open_browser(const char *out_dir, bool no_browser);

#endif
