/* pipeline.h: one trace log into one report folder: read -> store -> report,
 * or, with `export_report`, read -> the Draft Export Report (export_report.c).
 * The command line runs it once; the multi-rank mode runs it once per rank.
 * It writes into a folder that already exists (the caller's staging folder)
 * and leaves publishing, messages and exit codes to the caller.
 */
#ifndef TL_PIPELINE_H
#define TL_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "store/store.h"
#include "util/diag.h"

typedef struct tl_pipeline_options {
  const char *input;   /* the trace log (a regular file) */
  const char *out_dir; /* an existing, empty folder to write into */
  const char *custom_header_html;
  const char *const *profiles; /* --profile traces, in order given */
  size_t profile_count;
  bool provenance, plain_text, strict_compile_id;
  bool export_report; /* -e: only the export report (the rest is unused) */
  bool show_progress; /* a progress bar on stderr for big inputs */
  int workers;        /* threads for the report's views; 1 = no threads */
  /* --all-ranks-html's child: also write each chromium event with "pid" set
   * to chromium_pid into this file (chromium_events.h); NULL: not. */
  const char *chromium_part_path;
  unsigned chromium_pid;
  /* --all-ranks-html's child: the index links the collectives_parity.json
   * the child writes beside it (as the Rust tool's rank index does). */
  bool collectives_parity_link;
  /* --all-ranks-html's child: the folder where the ranks share the
   * analyses of their texts (tl_report_options.shared_analyses); NULL:
   * none. */
  const char *shared_analyses;
  /* Called with the store once the report is written, before the store is
   * freed (`tlparse diff` keeps what it compares); NULL: not. */
  void (*on_report)(void *ctx, const tl_store *store);
  void *on_report_ctx;
} tl_pipeline_options;

/* Reads options->input into options->out_dir. Bad input is counted in
 * *diag (initialised by the caller) and never stops the run; false only for
 * environment errors (cannot read the input, cannot write the output),
 * with one line in error. */
bool tl_pipeline_run(const tl_pipeline_options *options, tl_diag *diag,
                     char *error, size_t error_size);

#endif
