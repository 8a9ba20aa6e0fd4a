/* report.h: the emit stage for the whole run. After the store has written
 * every artifact, writes index.html, compile_directory.json,
 * failures_and_restarts.html, help.html and, with -i, one provenance view
 * (JSON + highlighter page) per Inductor compilation, choosing which
 * artifacts form each view (see docs/formats.md).
 */
#ifndef TL_REPORT_H
#define TL_REPORT_H

#include <stdbool.h>

#include "join/provenance.h"
#include "store/store.h"
#include "util/diag.h"

typedef struct tl_report_options {
  const char *input_name;         /* shown in the index */
  const char *custom_header_html; /* the user's own HTML, or NULL */
  bool provenance;                /* -i */
  int threads;                    /* provenance views analyzed at once */
  /* --profile: torch.profiler traces (files or folders) joined with each
   * provenance view (profile_join.h); none when profile_count is 0. */
  const char *const *profiles;
  size_t profile_count;
  /* A folder where the views' analyses are shared with other processes
   * (the --all-ranks-html ranks: analysis_cache.h), or NULL. */
  const char *shared_analyses;
} tl_report_options;

/* One provenance view: which artifacts of a compile folder it joins. */
typedef struct tl_view {
  const tl_compile_dir *dir;
  const tl_artifact *pre, *post, *code, *kernel_code, *mappings, *stack_traces;
  char *name; /* "provenance_tracking_-_0_0_0" (+ "_<k>" for earlier views) */
  /* What the index says of it, once written: mode, how many of its
   * kernels the code shows called, why it has no links. */
  tl_prov_summary summary;
} tl_view;

/* Chooses the views of one compile folder (formats doc 2.2, issue 3): one per
 * node-mappings artifact, pairing it with the graphs and code logged since
 * the previous mapping (code logged right after the mapping when none came
 * before, as early-2025 AOTInductor traces do); a folder without mapping
 * gets one view of its last artifacts. Returns the count; *views is malloc'd
 * (free each name, then the array). */
size_t tl_report_choose_views(const tl_compile_dir *dir, tl_view **views);

/* Returns false when an output file could not be written. */
bool tl_report_write(tl_store *store, const tl_report_options *options,
                     tl_diag *diag);

#endif
