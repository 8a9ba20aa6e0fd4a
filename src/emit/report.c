/* report.c: the emit stage's driver for the whole run (report.h): chooses
 * and names the provenance views, has them written (report_view_jobs.c),
 * then writes the recompile pages, index.html (report_index.c),
 * compile_directory.json, failures_and_restarts.html and help.html.
 */
#include "emit/report.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emit/compile_directory.h"
#include "emit/metrics_pages.h"
#include "emit/recompile_pages.h"
#include "emit/report_internal.h"
#include "util/html.h"
#ifdef HAVE_tl_engine
#include "analyze/analysis_cache.h"
#endif
#ifdef HAVE_tl_page
#include "emit/provpage.h"
#endif
#ifdef HAVE_tl_docs
#include "emit/help.h"
#endif
#ifdef HAVE_tl_profile
#include "profile/profile_join.h"
#include "profile/profile_reader.h"
#include "profile/profile_verdicts.h"
#endif

/* The views of the run by the post-grad graph each shows, for the
 * recompile pages' links (tl_view_page_fn): sorted once (by graph, then
 * run order), each link found by binary search (a scan per link was
 * quadratic in a frame's compiles). */
typedef struct view_by_post {
  const tl_artifact *post;
  size_t order; /* in the run: the first view of a graph wins */
  const char *name;
} view_by_post;

typedef struct view_list {
  view_by_post *items;
  size_t count;
} view_list;

static int by_post(const void *a, const void *b) {
  const view_by_post *x = a, *y = b;
  uintptr_t p = (uintptr_t)x->post, q = (uintptr_t)y->post;
  if (p != q)
    return p < q ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static void view_list_init(view_list *v, const tl_view *views, size_t count) {
  v->items = tl_xcalloc(count ? count : 1, sizeof *v->items);
  v->count = 0;
  for (size_t i = 0; i < count; i++)
    if (views[i].post)
      v->items[v->count++] = (view_by_post){views[i].post, i, views[i].name};
  tl_sort(v->items, v->count, sizeof *v->items, by_post);
}

static const char *view_page(void *ctx, const tl_artifact *post) {
  const view_list *v = ctx;
  size_t lo = 0, hi = v->count;
  while (lo < hi) { /* the first entry of `post` */
    size_t mid = lo + (hi - lo) / 2;
    if ((uintptr_t)v->items[mid].post < (uintptr_t)post)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < v->count && v->items[lo].post == post ? v->items[lo].name : NULL;
}

static void write_failures(tl_store *store) {
  tl_buf html;
  tl_buf_init(&html);
  tl_failures_page_render(&html, &store->failure_rows, store->failure_count);
  tl_store_write(store, "failures_and_restarts.html", html.data, html.len);
  tl_buf_free(&html);
}

static void write_help(tl_store *store) {
  tl_buf html;
  tl_buf_init(&html);
#ifdef HAVE_tl_docs
  tl_help_render_page(&html);
#else
  tl_html_page_begin(&html, "tlparse help", "");
  tl_buf_puts(&html, "<p>Help was not built into this binary.</p>\n");
  tl_html_page_end(&html);
#endif
  tl_store_write(store, "help.html", html.data, html.len);
  tl_buf_free(&html);
}

#ifdef HAVE_tl_page
/* The style and script every provenance page loads from static/. */
static void write_page_static(tl_store *store) {
  tl_buf css;
  tl_buf_init(&css);
  tl_str js;
  tl_provpage_static(&css, &js);
  tl_store_write(store, TL_PROVPAGE_STATIC "provenance.css", css.data, css.len);
  tl_store_write(store, TL_PROVPAGE_STATIC "provenance.js", js.ptr, js.len);
  tl_buf_free(&css);
}
#endif
#ifdef HAVE_tl_profile
/* The profile's verdicts as diagnostics: each view it does not match (with
 * its evidence), and each file that is unreadable, truncated, empty or
 * matches no view (what --strict fails on; profile_join.h). */
static void profile_verdicts(const tl_profile *profile, cJSON **summaries,
                             size_t count, tl_diag *diag) {
  const cJSON **views = tl_xcalloc(count ? count : 1, sizeof *views);
  size_t n = 0;
  for (size_t i = 0; i < count; i++)
    if (summaries[i])
      views[n++] = summaries[i];
  tl_buf line;
  tl_buf_init(&line);
  for (size_t i = 0; i < n; i++) {
    tl_buf_clear(&line);
    if (tl_profile_view_verdict(views[i], &line))
      tl_diag_add(diag, TL_DIAG_PROFILE_MISMATCH, 0, "%s", line.data);
    tl_buf_clear(&line);
    if (tl_profile_view_gaps(views[i], &line))
      tl_diag_add(diag, TL_DIAG_PROFILE, 0, "%s", line.data);
  }
  for (size_t f = 0; f < profile->files.count; f++) {
    tl_buf_clear(&line);
    if (tl_profile_file_verdict(profile, f, views, n, &line))
      tl_diag_add(diag, TL_DIAG_PROFILE_UNUSABLE, 0, "%s", line.data);
  }
  tl_buf_free(&line);
  free(views);
}
#endif

bool tl_report_write(tl_store *store, const tl_report_options *options,
                     tl_diag *diag) {
  size_t dirs = store->dirs.count;
  tl_view **dir_views = tl_xcalloc(dirs ? dirs : 1, sizeof *dir_views);
  size_t *counts = tl_xcalloc(dirs ? dirs : 1, sizeof *counts);
  TL_VEC(tl_view) all = {0};
  cJSON **summaries = NULL;
  /* A text analyzed or read once is not again: with -i, by the views (a
   * recompile's unchanged graph, a graph compiled twice); by the recompile
   * diffs, which read each compile's code and graphs again, and each
   * compile of a chain for two diffs; other ranks' texts through the
   * shared folder. */
  struct tl_analysis_cache *cache = NULL;
#ifdef HAVE_tl_engine
  cache = tl_analysis_cache_new(TL_ANALYSIS_CACHE_BOUND, NULL);
  if (options->shared_analyses)
    tl_analysis_cache_share(cache, options->shared_analyses);
#endif
  if (options->provenance) {
#ifdef HAVE_tl_page
    tl_report_read_deflate_at();
#endif
    for (size_t i = 0; i < dirs; i++) {
      counts[i] = tl_report_choose_views(store->dirs.items[i], &dir_views[i]);
      tl_report_name_views(store, store->dirs.items[i], dir_views[i],
                           counts[i]);
      for (size_t k = 0; k < counts[i]; k++)
        TL_VEC_PUSH(all, dir_views[i][k]);
    }
#ifdef HAVE_tl_profile
    tl_profile *profile =
        options->profile_count
            ? tl_profile_read(options->profiles, options->profile_count)
            : NULL;
    for (size_t i = 0; profile && i < profile->problems.count; i++)
      tl_diag_add(diag, TL_DIAG_PROFILE, 0, "profile: %s (%llu): first %s",
                  profile->problems.items[i].what,
                  (unsigned long long)profile->problems.items[i].count,
                  profile->problems.items[i].example);
#else
    void *profile = NULL;
    if (options->profile_count)
      tl_diag_add(diag, TL_DIAG_PROFILE, 0,
                  "--profile ignored: this tlparse was built without it");
#endif
    summaries = tl_xcalloc(all.count ? all.count : 1, sizeof *summaries);
#ifdef HAVE_tl_page
    write_page_static(store);
#endif
#ifdef HAVE_tl_engine
    tl_report_write_views(store, all.items, all.count, options->threads,
                          profile, cache, summaries, diag);
    /* The index lists each folder's views with what writing them found. */
    for (size_t i = 0, j = 0; i < dirs; i++)
      for (size_t k = 0; k < counts[i]; k++)
        dir_views[i][k] = all.items[j++];
#endif
#ifdef HAVE_tl_profile
    if (profile)
      profile_verdicts(profile, summaries, all.count, diag);
    tl_profile_free(profile);
#endif
  }
  time_summaries time = {all.items, summaries, summaries ? all.count : 0};
  tl_buf recompiles;
  tl_buf_init(&recompiles);
  view_list views;
  view_list_init(&views, all.items, all.count);
  tl_recompile_pages_write(store, &recompiles,
                           options->provenance ? view_page : NULL, &views,
                           cache);
  free(views.items);
#ifdef HAVE_tl_engine
  if (cache) {
    tl_report_print_cache_stats(cache);
    tl_analysis_cache_free(cache);
  }
#endif
  tl_report_write_index(store, options, diag, dir_views, counts, &time,
                        &recompiles);
  tl_buf_free(&recompiles);
  for (size_t i = 0; i < time.count; i++)
    cJSON_Delete(summaries[i]);
  free(summaries);
  TL_VEC_FREE(all);
  tl_compile_directory_write(store);
  write_failures(store);
  write_help(store);
  for (size_t i = 0; i < dirs; i++) {
    for (size_t k = 0; k < counts[i]; k++)
      free(dir_views[i][k].name);
    free(dir_views[i]);
  }
  free(dir_views);
  free(counts);
  return !store->failed;
}
