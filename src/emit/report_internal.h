/* report_internal.h: what the rooms of emit/'s report share, private to
 * emit/: naming the views (report_views.c), writing them on the worker
 * pool (report_view_jobs.c) and writing index.html (report_index.c), each
 * called once by the driver tl_report_write (report.c).
 */
#ifndef TL_REPORT_INTERNAL_H
#define TL_REPORT_INTERNAL_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "emit/report.h"

struct tl_analysis_cache; /* analyze/analysis_cache.h */

/* Renames a folder's views (from tl_report_choose_views) as the Rust tool
 * names them where its name differs from the folder's (report_views.c). */
void tl_report_name_views(const tl_store *store, const tl_compile_dir *dir,
                          tl_view *views, size_t count);

#ifdef HAVE_tl_page
/* Reads TLPARSE_DEFLATE_AT into tl_provpage_deflate_at; a bad value is
 * named on stderr and the default kept. */
void tl_report_read_deflate_at(void);
#endif

#ifdef HAVE_tl_engine
/* Analyzes the views on `threads` threads: first every distinct view, then
 * the copies of repeated ones; each worker writes its view's files. A text
 * analyzed once is not analyzed again: `cache` (a tl_analysis_cache, the
 * run's, shared by the workers) gives what it holds, perhaps from another
 * process sharing its folder. With a profile (a tl_profile), summaries[i]
 * gets view i's {"compile_id", "profile"}. Problems go to `diag`. */
void tl_report_write_views(tl_store *store, tl_view *views, size_t count,
                           int threads, const void *profile,
                           struct tl_analysis_cache *cache, cJSON **summaries,
                           tl_diag *diag);
/* TLPARSE_STATS=1: what the run's cache of analyses did, on stderr (beside
 * ts_query.c's parse line). */
void tl_report_print_cache_stats(struct tl_analysis_cache *cache);
#endif

/* The profiled views' summaries (tl_report_write_views), in the order of
 * `views`. */
typedef struct time_summaries {
  const tl_view *views;
  cJSON **summaries;
  size_t count;
} time_summaries;

/* Writes index.html: dir_views[i] holds the dir_view_counts[i] views of
 * the store's folder i; `recompiles` is the recompiles section's HTML. */
void tl_report_write_index(tl_store *store, const tl_report_options *options,
                           const tl_diag *diag, tl_view **dir_views,
                           size_t *dir_view_counts, const time_summaries *time,
                           const tl_buf *recompiles);

#endif
