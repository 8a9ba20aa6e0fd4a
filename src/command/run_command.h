/* run_command.h: `tlparse run [options] -- CMD [ARGS...]`, one command from
 * a script to its report. Makes a fresh trace folder, runs CMD with
 * TORCH_TRACE set to it (and INDUCTOR_PROVENANCE=1 with -i), forwards
 * SIGINT, SIGTERM and SIGHUP to CMD's process group while it runs
 * (run/outdir.h), then writes the report of whatever CMD logged through
 * report_command.h: one log, the one-log report; several rank logs, the
 * --all-ranks-html report. The caller (main.c) owns nothing it passes.
 */
#ifndef TL_RUN_COMMAND_H
#define TL_RUN_COMMAND_H

#include "command/report_command.h"

typedef struct tl_run_request {
  tl_report_request report; /* the options; path and all_ranks are set here */
  const char *trace_dir;    /* --trace-dir, or NULL: a new temporary folder */
  char *const *argv;        /* CMD and its arguments, NULL-terminated */
} tl_run_request;

/* Runs the command (see the header comment) and returns the exit code: the
 * child's when it failed (its exit status, or 128+N when signal N ended
 * it), after the report was written; else the report's. A CMD that cannot
 * be found or run: one line, nothing written, 127 (126: not executable). */
int tl_run_command(const tl_run_request *r);

#endif
