/* run_diff_pages.h: the report of `tlparse diff A B` (docs/run-diff-json.md)
 * beside the two runs' own reports (`a/`, `b/`): index.html, which lists
 * the frames the runs compiled, matched (diff/run_diff.h), with what
 * changed; diff.json, the same for scripts; and for each pair of matched
 * compiles a page and a JSON file (`compile_-_0_0_vs_-_0_0.html`, `.json`)
 * with the comparison the recompile pages make (recompile_pages.h), the
 * guards that differ only in object ids left out; for two jobs compared
 * rank by rank, a landing page over the ranks' folders. Every text from a
 * trace is escaped.
 */
#ifndef TL_RUN_DIFF_PAGES_H
#define TL_RUN_DIFF_PAGES_H

#include <stdbool.h>
#include <stddef.h>

#include "diff/run_diff.h"

/* tl_run_take, and with `provenance` each compile's provenance page (the
 * report's views, as report.c names them). Call it while `store` is alive:
 * the pipeline's on_report. */
void tl_run_diff_take(tl_run *run, const char *folder, const tl_store *store,
                      const char *diff_dir, bool provenance);

typedef struct tl_run_diff_summary {
  size_t frames_matched, frames_only_a, frames_only_b;
  size_t compiles_matched, compiles_changed, compiles_only_a, compiles_only_b;
  size_t breaks_appeared, breaks_gone, breaks_moved;
  size_t kernels_changed; /* changed, added or removed, over the pairs */
  /* of those, added, removed or made from other post-grad nodes */
  size_t kernels_provenance_changed;
} tl_run_diff_summary;

/* Writes the diff's files into `diff_dir` (the runs' reports are in it
 * already); `input_a`, `input_b` are shown as given. False with one line in
 * `error` when a file cannot be written. */
bool tl_run_diff_write(const char *diff_dir, const tl_run *a, const tl_run *b,
                       const char *input_a, const char *input_b,
                       tl_run_diff_summary *summary, char *error,
                       size_t error_size);

/* One rank of two folders of rank logs, compared into rank_N/. */
typedef struct tl_run_diff_rank {
  unsigned rank;
  tl_run_diff_summary summary;
} tl_run_diff_rank;

/* The landing page and diff.json of two folders of rank logs compared rank
 * by rank (each in rank_N/, written by tl_run_diff_write): the ranks
 * compared, sorted, with their counts; the ranks only one run has. */
bool tl_run_diff_write_ranks(const char *diff_dir,
                             const tl_run_diff_rank *ranks, size_t count,
                             const unsigned *only_a, size_t count_a,
                             const unsigned *only_b, size_t count_b,
                             const char *input_a, const char *input_b,
                             char *error, size_t error_size);

#endif
