/* recompile_pages.h: for each frame that compiled more than once, a page
 * and a JSON file per recompile (what changed from the compile before, see
 * diff/recompiles.h), and the index's "Recompiles" section that says why in
 * words and links them.
 */
#ifndef TL_RECOMPILE_PAGES_H
#define TL_RECOMPILE_PAGES_H

#include <cjson/cJSON.h>

#include "store/store.h"
#include "util/buf.h"

struct tl_analysis_cache; /* analyze/analysis_cache.h */

/* The provenance page (file name without .html) that shows the post-grad
 * graph `post`, or NULL: the diff page links its nodes there. */
typedef const char *(*tl_view_page_fn)(void *ctx, const tl_artifact *post);

/* Writes `recompile_*.html` and `.json` for every recompile in `store` and
 * appends the index's section to `section` (nothing when no frame
 * recompiled). `view_page` may be NULL (no provenance pages). `cache` (a
 * tl_analysis_cache, or NULL) gives the code analyses the provenance views
 * made and keeps those made here, so a compile's code, read again for each
 * recompile it is part of, is analyzed once. */
void tl_recompile_pages_write(tl_store *store, tl_buf *section,
                              tl_view_page_fn view_page, void *ctx,
                              struct tl_analysis_cache *cache);

/* The body of a page comparing two compiles (the JSON of
 * tl_recompile_diff): the summary, the reasons when the JSON has them, the
 * guards that differ, the three graphs node by node, the kernels, a
 * training compile's backward graphs and kernels (when either compile
 * logged a backward) and the metrics; lines and kernels linked to the
 * provenance pages `page_a` and `page_b`, the backward's to `bw_page_a`
 * and `bw_page_b` (file names without .html; NULL: not linked). The
 * recompile pages and `tlparse diff`'s pages show it. */
void tl_compile_diff_body(tl_buf *h, const cJSON *diff, const char *page_a,
                          const char *page_b, const char *bw_page_a,
                          const char *bw_page_b);

#endif
