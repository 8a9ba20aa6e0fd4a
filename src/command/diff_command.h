/* diff_command.h: `tlparse diff A B`, two runs compared, from a parsed
 * command line to an exit code. A and B are each a trace log or a trace
 * folder (its one log, or its latest with a notice); two folders of rank
 * logs are compared rank by rank into rank_N/. The output folder is
 * checked, staged and published as the main command's (run/outdir.h);
 * each run's report is written by the one-log pipeline into `a/` and `b/`
 * inside it (or rank_N/), then the comparison (emit/run_diff_pages.h).
 * main.c parses argv.
 */
#ifndef TL_DIFF_COMMAND_H
#define TL_DIFF_COMMAND_H

#include <stdbool.h>

typedef struct tl_diff_request {
  const char *path_a, *path_b; /* a trace log or a trace folder each */
  const char *out_dir;         /* -o, "tl_diff" by default */
  const char *custom_header_html;
  bool overwrite, no_browser, provenance, plain_text, verbose, strict;
} tl_diff_request;

/* Writes the comparison and returns the exit code: 0 on success; 1 when
 * an input cannot be read or the output cannot be written (one line
 * naming it, nothing published), and with --strict when a line of either
 * log failed to parse. */
int tl_diff_command(const tl_diff_request *r);

#endif
