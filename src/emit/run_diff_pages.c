/* run_diff_pages.c: `tlparse diff`'s index, diff.json and pair pages
 * (run_diff_pages.h). Every text from a trace goes through the escapes of
 * util/html.h. */
#include "emit/run_diff_pages.h"

#ifdef HAVE_tl_engine
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/recompile_pages.h"
#include "emit/report.h"
#include "emit/report_internal.h"
#include "util/fsutil.h"
#include "util/html.h"
#include "json/json_build.h"
#include "json/json_print.h"

/* ---- the runs' provenance pages ---------------------------------------- */

typedef struct page_of {
  const tl_artifact *post; /* a copied post-grad graph */
  size_t order;
  const char *page;
} page_of;

static int by_post(const void *x, const void *y) {
  const page_of *a = x, *b = y;
  uintptr_t p = (uintptr_t)a->post, q = (uintptr_t)b->post;
  if (p != q)
    return p < q ? -1 : 1;
  return a->order < b->order ? -1 : a->order > b->order;
}

/* The artifact of the copied folder `copy` at the place `a` has in `dir`. */
static const tl_artifact *copied(const tl_compile_dir *dir,
                                 const tl_compile_dir *copy,
                                 const tl_artifact *a) {
  return a ? &copy->artifacts.items[a - dir->artifacts.items] : NULL;
}

/* Whether a folder name has a frame id ("-_0_0_0"; not "-_-_-_-"). */
static bool has_frame(const char *name) {
  const char *us = strchr(name, '_');
  return us && us[1] >= '0' && us[1] <= '9';
}

/* The compiles without a compile id (torch.export and AOTInductor log
 * theirs so, into `-_-_-_-`): one per Inductor compilation of the folder
 * (its views, as report.c chooses them), all of one frame of their own. */
static void take_unnamed(tl_run *run, const tl_store *store) {
  size_t first = run->found.compiles.count;
  for (size_t d = 0; d < store->dirs.count; d++) {
    const tl_compile_dir *dir = store->dirs.items[d];
    if (dir->unknown_id || has_frame(dir->dir_name))
      continue;
    const tl_compile_dir *copy = run->view.dirs.items[d];
    tl_view *views = NULL;
    size_t n = tl_report_choose_views(dir, &views);
    for (size_t k = 0; k < n; k++) {
      const tl_view *v = &views[k];
      if (v->post || v->pre || v->code) {
        tl_compile_files c = {0};
        snprintf(c.autograd, sizeof c.autograd, "-");
        c.frame = -1;
        c.session = 1;
        c.compile = (long long)(run->found.compiles.count - first);
        char number[24] = "";
        if (n > 1)
          snprintf(number, sizeof number, " #%zu", k + 1);
        snprintf(c.display, sizeof c.display, "%.60s%.22s", dir->display,
                 number);
        c.home = copy;
        c.pre_grad = copied(dir, copy, v->pre);
        c.post_grad = copied(dir, copy, v->post);
        c.code = copied(dir, copy, v->code);
        c.kernel_code = copied(dir, copy, v->kernel_code);
        c.mappings = copied(dir, copy, v->mappings);
        c.metrics = copy->metrics_by_line.count
                        ? copy->metrics_by_line.items[0].numbers
                        : NULL;
        TL_VEC_PUSH(run->found.compiles, c);
      }
      free(views[k].name);
    }
    free(views);
  }
  size_t count = run->found.compiles.count - first;
  if (!count)
    return;
  tl_run_frame f = {0};
  f.autograd = "-";
  f.frame = -1;
  f.session = 1;
  f.file = f.base = "";
  f.function = TL_RUN_UNNAMED;
  f.first = first;
  f.count = count;
  TL_VEC_PUSH(run->frames, f);
  run->view_pages =
      tl_xrealloc(run->view_pages,
                  (run->found.compiles.count + 1) * sizeof *run->view_pages);
  run->bw_view_pages =
      tl_xrealloc(run->bw_view_pages,
                  (run->found.compiles.count + 1) * sizeof *run->bw_view_pages);
  for (size_t i = first; i < run->found.compiles.count; i++)
    run->view_pages[i] = run->bw_view_pages[i] = NULL;
}

/* The page of the first view of post-grad graph `post` (NULL: none), in
 * `pages` sorted by graph. */
static const char *page_of_graph(const page_of *pages, size_t count,
                                 const tl_artifact *post) {
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if ((uintptr_t)pages[mid].post < (uintptr_t)post)
      lo = mid + 1;
    else
      hi = mid;
  }
  return post && lo < count && pages[lo].post == post ? pages[lo].page : NULL;
}

void tl_run_diff_take(tl_run *run, const char *folder, const tl_store *store,
                      const char *diff_dir, bool provenance) {
  tl_run_take(run, folder, store, diff_dir);
  take_unnamed(run, store);
  if (!provenance)
    return;
  TL_VEC(page_of) pages = {0};
  for (size_t d = 0; d < store->dirs.count; d++) {
    const tl_compile_dir *dir = store->dirs.items[d];
    const tl_compile_dir *copy = run->view.dirs.items[d];
    tl_view *views = NULL;
    size_t n = tl_report_choose_views(dir, &views);
    tl_report_name_views(store, dir, views, n);
    for (size_t k = 0; k < n; k++) {
      if (views[k].post) {
        size_t at = (size_t)(views[k].post - dir->artifacts.items);
        page_of p = {
            &copy->artifacts.items[at], pages.count,
            tl_arena_printf(&run->arena, "%s/%s", folder, views[k].name)};
        TL_VEC_PUSH(pages, p);
      }
      free(views[k].name);
    }
    free(views);
  }
  tl_sort(pages.items, pages.count, sizeof *pages.items, by_post);
  for (size_t i = 0; i < run->found.compiles.count; i++) {
    const tl_compile_files *c = &run->found.compiles.items[i];
    run->view_pages[i] = page_of_graph(pages.items, pages.count, c->post_grad);
    run->bw_view_pages[i] =
        page_of_graph(pages.items, pages.count, c->bw_post_grad);
  }
  TL_VEC_FREE(pages);
}

/* ---- helpers ----------------------------------------------------------- */

static void esc(tl_buf *h, const char *s) { tl_html_escape_cstr(h, s); }

static bool write_text(const char *dir, const char *name, const tl_buf *text,
                       char *error, size_t error_size) {
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s", dir, name);
  bool ok = tl_fs_write_file(path.data, text->data ? text->data : "", text->len,
                             error, error_size);
  tl_buf_free(&path);
  return ok;
}

static bool write_json(const char *dir, const char *name, const cJSON *o,
                       char *error, size_t error_size) {
  tl_buf text;
  tl_buf_init(&text);
  tl_json_print_tree(&text, o);
  tl_buf_putc(&text, '\n');
  bool ok = write_text(dir, name, &text, error, error_size);
  tl_buf_free(&text);
  return ok;
}

static size_t index_of(const tl_run *r, const tl_compile_files *c) {
  return (size_t)(c - r->found.compiles.items);
}

/* The counts of a graph's summary that are changes (a rename is none). */
static double graph_changes(const cJSON *g) {
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(g, "summary");
  return tl_json_get_num(s, "changed") + tl_json_get_num(s, "added") +
         tl_json_get_num(s, "removed");
}

static double kernel_changes(const cJSON *k) {
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(k, "summary");
  return tl_json_get_num(s, "changed") + tl_json_get_num(s, "added") +
         tl_json_get_num(s, "removed");
}

/* The kernels added, removed, or paired with other post-grad nodes. */
static size_t provenance_changes(const cJSON *k) {
  size_t n = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(k, "kernels")) {
    const char *c = tl_json_get_str(r, "change");
    n += strcmp(c, "added") == 0 || strcmp(c, "removed") == 0 ||
         cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "nodes_changed"));
  }
  return n;
}

static void compile_link(tl_buf *h, const tl_run *r,
                         const tl_compile_files *c) {
  tl_buf_puts(h, "<a href=\"");
  tl_url_path(h, r->folder);
  tl_buf_puts(h, "/index.html#");
  tl_url_path(h, c->home->dir_name);
  tl_buf_puts(h, "\">");
  esc(h, c->display);
  tl_buf_puts(h, "</a>");
}

/* ---- one pair of compiles ---------------------------------------------- */

/* The folder of a side, relative to the diff's folder. */
static void set_folder(cJSON *side, const tl_run *r,
                       const tl_compile_files *c) {
  tl_buf f;
  tl_buf_init(&f);
  tl_buf_printf(&f, "%s/%s", r->folder, c->home->dir_name);
  cJSON_ReplaceItemInObjectCaseSensitive(side, "folder",
                                         cJSON_CreateString(f.data));
  tl_buf_free(&f);
}

/* The comparison of compile `a` of run A with `b` of run B: the recompile
 * pages' JSON without the reasons (which say why B compiled again, not how
 * it differs from A), the folders relative to the diff's, the guards that
 * differ only in object ids left out. */
static cJSON *pair_diff(const char *diff_dir, const tl_run *ra,
                        const tl_compile_files *a, const tl_run *rb,
                        const tl_compile_files *b) {
  cJSON *d = tl_recompile_diff(diff_dir, a, b, NULL);
  cJSON_DeleteItemFromObjectCaseSensitive(d, "reasons");
  cJSON_DeleteItemFromObjectCaseSensitive(d, "frame");
  tl_run_guards_without_ids(cJSON_GetObjectItemCaseSensitive(d, "guards"));
  set_folder(cJSON_GetObjectItemCaseSensitive(d, "before"), ra, a);
  set_folder(cJSON_GetObjectItemCaseSensitive(d, "after"), rb, b);
  return d;
}

static void pair_page(tl_buf *h, const tl_run *ra, const tl_compile_files *a,
                      const tl_run *rb, const tl_compile_files *b,
                      const tl_run_frame *fa, const cJSON *diff,
                      const char *stem) {
  tl_buf title;
  tl_buf_init(&title);
  tl_run_frame_label(&title, fa);
  tl_buf_printf(&title, ": %s in A vs %s in B", a->display, b->display);
  tl_html_page_begin(h, title.data, "a/");
  tl_buf_puts(h, "<p><a href=\"index.html\">&larr; the comparison</a> · "
                 "<a href=\"");
  tl_url_path(h, stem);
  tl_buf_puts(h, ".json\">this diff as JSON</a> · <a href=\"a/help.html#"
                 "recompiles\">how to read it</a></p>\n<h1>");
  esc(h, title.data);
  tl_buf_puts(h, "</h1>\n<p>");
  compile_link(h, ra, a);
  tl_buf_puts(h, " of run A, then ");
  compile_link(h, rb, b);
  tl_buf_puts(h, " of run B (the same function, its compiles in order).</p>\n");
  double ids = tl_json_get_num(cJSON_GetObjectItemCaseSensitive(diff, "guards"),
                               "ids_only");
  if (ids > 0)
    tl_buf_printf(h,
                  "<p class=\"note\">%.0f guard%s that differ only in an "
                  "object or type id (which differ between any two "
                  "processes) are left out below.</p>\n",
                  ids, ids == 1 ? "" : "s");
  tl_compile_diff_body(
      h, diff, ra->view_pages[index_of(ra, a)], rb->view_pages[index_of(rb, b)],
      ra->bw_view_pages[index_of(ra, a)], rb->bw_view_pages[index_of(rb, b)]);
  tl_html_page_end(h);
  tl_buf_free(&title);
}

/* ---- the index and diff.json ------------------------------------------- */

static cJSON *run_json(const tl_run *r, const char *input) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "input", input);
  tl_buf index;
  tl_buf_init(&index);
  tl_buf_printf(&index, "%s/index.html", r->folder);
  cJSON_AddStringToObject(o, "report", index.data);
  tl_buf_free(&index);
  cJSON_AddNumberToObject(o, "frames", (double)r->frames.count);
  size_t compiles = 0;
  for (size_t i = 0; i < r->frames.count; i++)
    compiles += r->frames.items[i].count;
  cJSON_AddNumberToObject(o, "compiles", (double)compiles);
  cJSON_AddNumberToObject(o, "graph_breaks", (double)r->breaks.count);
  cJSON_AddNumberToObject(o, "sessions",
                          (double)(r->found.sessions ? r->found.sessions : 1));
  return o;
}

static cJSON *frame_side(const tl_run *r, const tl_run_frame *f) {
  if (!f)
    return cJSON_CreateNull();
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "frame", (double)f->frame);
  cJSON_AddStringToObject(o, "autograd", f->autograd);
  cJSON_AddStringToObject(o, "file", f->file);
  cJSON_AddNumberToObject(o, "line", (double)f->line);
  cJSON *ids = cJSON_AddArrayToObject(o, "compiles");
  for (size_t k = 0; k < f->count; k++)
    cJSON_AddItemToArray(
        ids, cJSON_CreateString(r->found.compiles.items[f->first + k].display));
  return o;
}

/* The graphs of a pair's comparison, in the order diff.json lists them. */
static const char *const GRAPHS[] = {"dynamo", "pre_grad", "post_grad",
                                     "backward", "backward_post_grad"};

static cJSON *kernel_summary(const cJSON *k) {
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(k, "available"))
             ? cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(k, "summary"),
                               true)
             : cJSON_CreateNull();
}

static cJSON *graph_summary(const cJSON *g) {
  if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "available")))
    return cJSON_CreateNull();
  return cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(g, "summary"), true);
}

/* The index line of one pair of compiles. */
static void pair_line(tl_buf *h, const tl_run *ra, const tl_compile_files *a,
                      const tl_run *rb, const tl_compile_files *b,
                      const cJSON *diff, const char *stem, bool changed) {
  tl_buf_printf(h, "<li class=\"%s\">", changed ? "changed" : "same");
  compile_link(h, ra, a);
  tl_buf_puts(h, " vs ");
  compile_link(h, rb, b);
  tl_buf_puts(h, ": <a class=\"pair\" href=\"");
  tl_url_path(h, stem);
  tl_buf_printf(h, ".html\">%s</a>", changed ? "what changed" : "the same");
  const cJSON *graphs = cJSON_GetObjectItemCaseSensitive(diff, "graphs");
  static const char *const names[] = {"dynamo", "pre_grad", "post_grad"};
  static const char *const shown[] = {"Dynamo", "pre-grad", "post-grad"};
  tl_buf_puts(h, " <span class=\"note\">(");
  const cJSON *guards = cJSON_GetObjectItemCaseSensitive(diff, "guards");
  tl_buf_printf(
      h, "guards: %d differ",
      cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(guards, "changes")));
  for (int g = 0; g < 3; g++) {
    const cJSON *gr = cJSON_GetObjectItemCaseSensitive(graphs, names[g]);
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(gr, "available")))
      continue;
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(gr, "summary");
    tl_buf_printf(h, "; %s: %.0f changed, %.0f added, %.0f removed", shown[g],
                  tl_json_get_num(s, "changed"), tl_json_get_num(s, "added"),
                  tl_json_get_num(s, "removed"));
  }
  const cJSON *k = cJSON_GetObjectItemCaseSensitive(diff, "kernels");
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(k, "available"))) {
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(k, "summary");
    tl_buf_printf(h, "; kernels: %.0f changed, %.0f added, %.0f removed",
                  tl_json_get_num(s, "changed"), tl_json_get_num(s, "added"),
                  tl_json_get_num(s, "removed"));
  }
  tl_buf_puts(h, ")</span></li>\n");
}

static void breaks_list(tl_buf *h, const cJSON *changes) {
  if (!cJSON_GetArraySize(changes))
    return;
  tl_buf_puts(h, "<ul class=\"breaks\">\n");
  const cJSON *c;
  cJSON_ArrayForEach(c, changes) {
    const char *change = tl_json_get_str(c, "change");
    const cJSON *before = cJSON_GetObjectItemCaseSensitive(c, "before");
    const cJSON *after = cJSON_GetObjectItemCaseSensitive(c, "after");
    tl_buf_puts(h, "<li class=\"break ");
    esc(h, change);
    tl_buf_puts(h, "\">Graph break ");
    if (strcmp(change, "moved") == 0) {
      tl_buf_puts(h, "moved from <code>");
      esc(h, tl_json_get_str(before, "where"));
      tl_buf_puts(h, "</code> to <code>");
      esc(h, tl_json_get_str(after, "where"));
      tl_buf_puts(h, "</code>");
    } else {
      const cJSON *side = cJSON_IsObject(after) ? after : before;
      tl_buf_puts(h, strcmp(change, "appeared") == 0 ? "appeared in B"
                                                     : "gone in B");
      tl_buf_puts(h, " at <code>");
      esc(h, tl_json_get_str(side, "where"));
      tl_buf_puts(h, "</code>");
    }
    tl_buf_puts(h, ": ");
    tl_html_escape_cut(h, tl_str_from(tl_json_get_str(c, "reason")),
                       TL_HTML_SHOWN_MAX);
    tl_buf_puts(h, "</li>\n");
  }
  tl_buf_puts(h, "</ul>\n");
}

static void only_list(tl_buf *h, const tl_run *r, const tl_run_frame *f,
                      size_t from, const char *run_name) {
  if (from >= f->count)
    return;
  tl_buf_printf(h, "<li class=\"only\">Only in %s: ", run_name);
  for (size_t k = from; k < f->count; k++) {
    if (k > from)
      tl_buf_puts(h, ", ");
    compile_link(h, r, &r->found.compiles.items[f->first + k]);
  }
  tl_buf_puts(h, "</li>\n");
}

static cJSON *summary_json(const tl_run_diff_summary *sum) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "frames_matched", (double)sum->frames_matched);
  cJSON_AddNumberToObject(o, "frames_only_a", (double)sum->frames_only_a);
  cJSON_AddNumberToObject(o, "frames_only_b", (double)sum->frames_only_b);
  cJSON_AddNumberToObject(o, "compiles_matched", (double)sum->compiles_matched);
  cJSON_AddNumberToObject(o, "compiles_changed", (double)sum->compiles_changed);
  cJSON_AddNumberToObject(o, "compiles_only_a", (double)sum->compiles_only_a);
  cJSON_AddNumberToObject(o, "compiles_only_b", (double)sum->compiles_only_b);
  cJSON_AddNumberToObject(o, "graph_breaks_appeared",
                          (double)sum->breaks_appeared);
  cJSON_AddNumberToObject(o, "graph_breaks_gone", (double)sum->breaks_gone);
  cJSON_AddNumberToObject(o, "graph_breaks_moved", (double)sum->breaks_moved);
  cJSON_AddNumberToObject(o, "kernels_changed", (double)sum->kernels_changed);
  cJSON_AddNumberToObject(o, "kernels_provenance_changed",
                          (double)sum->kernels_provenance_changed);
  return o;
}

static void rank_list_html(tl_buf *h, const char *label, const unsigned *ranks,
                           size_t count) {
  if (!count)
    return;
  tl_buf_printf(h, "<p class=\"only\">Ranks only in %s:", label);
  for (size_t i = 0; i < count; i++)
    tl_buf_printf(h, "%s %u", i ? "," : "", ranks[i]);
  tl_buf_puts(h, ".</p>\n");
}

bool tl_run_diff_write_ranks(const char *diff_dir,
                             const tl_run_diff_rank *ranks, size_t count,
                             const unsigned *only_a, size_t count_a,
                             const unsigned *only_b, size_t count_b,
                             const char *input_a, const char *input_b,
                             char *error, size_t error_size) {
  cJSON *top = cJSON_CreateObject();
  cJSON_AddNumberToObject(top, "schema", 1);
  cJSON_AddStringToObject(top, "a", input_a);
  cJSON_AddStringToObject(top, "b", input_b);
  cJSON *list = cJSON_AddArrayToObject(top, "ranks");
  tl_buf h;
  tl_buf_init(&h);
  /* The style sheet of the first rank's run A (there is one: the command
   * refuses two folders without a rank in common). */
  tl_buf css;
  tl_buf_init(&css);
  tl_buf_printf(&css, "rank_%u/a/", count ? ranks[0].rank : 0);
  tl_html_page_begin(&h, "tlparse diff: two jobs, rank by rank", css.data);
  tl_buf_free(&css);
  tl_buf_puts(&h, "<p><a href=\"diff.json\">this comparison as JSON</a></p>"
                  "\n<h1>Two jobs compared, rank by rank</h1>\n<p>A: <code>");
  esc(&h, input_a);
  tl_buf_puts(&h, "</code><br>B: <code>");
  esc(&h, input_b);
  tl_buf_puts(&h, "</code></p>\n<p class=\"help\">Rank N of A is compared "
                  "with rank N of B, each as two runs are compared (its own "
                  "page, in rank_N/).</p>\n<ul class=\"ranks\">\n");
  for (size_t i = 0; i < count; i++) {
    const tl_run_diff_summary *s = &ranks[i].summary;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "rank", ranks[i].rank);
    tl_buf path;
    tl_buf_init(&path);
    tl_buf_printf(&path, "rank_%u/diff.json", ranks[i].rank);
    cJSON_AddStringToObject(o, "diff", path.data);
    tl_buf_free(&path);
    cJSON_AddItemToObject(o, "summary", summary_json(s));
    cJSON_AddItemToArray(list, o);
    tl_buf_printf(&h,
                  "<li><a href=\"rank_%u/index.html\">rank %u</a>: %zu "
                  "compile%s matched, %zu changed; %zu only in A, %zu only "
                  "in B; graph breaks %zu appeared, %zu gone, %zu "
                  "moved</li>\n",
                  ranks[i].rank, ranks[i].rank, s->compiles_matched,
                  s->compiles_matched == 1 ? "" : "s", s->compiles_changed,
                  s->compiles_only_a, s->compiles_only_b, s->breaks_appeared,
                  s->breaks_gone, s->breaks_moved);
  }
  tl_buf_puts(&h, "</ul>\n");
  rank_list_html(&h, "A", only_a, count_a);
  rank_list_html(&h, "B", only_b, count_b);
  tl_html_page_end(&h);
  cJSON *oa = cJSON_AddArrayToObject(top, "ranks_only_a");
  cJSON *ob = cJSON_AddArrayToObject(top, "ranks_only_b");
  for (size_t i = 0; i < count_a; i++)
    cJSON_AddItemToArray(oa, cJSON_CreateNumber(only_a[i]));
  for (size_t i = 0; i < count_b; i++)
    cJSON_AddItemToArray(ob, cJSON_CreateNumber(only_b[i]));
  bool ok = write_json(diff_dir, "diff.json", top, error, error_size) &&
            write_text(diff_dir, "index.html", &h, error, error_size);
  tl_buf_free(&h);
  cJSON_Delete(top);
  return ok;
}

bool tl_run_diff_write(const char *diff_dir, const tl_run *a, const tl_run *b,
                       const char *input_a, const char *input_b,
                       tl_run_diff_summary *sum, char *error,
                       size_t error_size) {
  memset(sum, 0, sizeof *sum);
  tl_run_match m;
  tl_run_match_frames(a, b, &m);
  cJSON *top = cJSON_CreateObject();
  cJSON_AddNumberToObject(top, "schema", 1);
  cJSON_AddItemToObject(top, "a", run_json(a, input_a));
  cJSON_AddItemToObject(top, "b", run_json(b, input_b));
  cJSON_AddObjectToObject(top, "summary"); /* filled in at the end */
  cJSON *frames = cJSON_AddArrayToObject(top, "frames");
  tl_buf body, page;
  tl_buf_init(&body);
  tl_buf_init(&page);
  bool ok = true;
  for (size_t i = 0; i < m.frames.count && ok; i++) {
    const tl_run_frame *fa = m.frames.items[i].a, *fb = m.frames.items[i].b;
    const tl_run_frame *f = fa ? fa : fb;
    cJSON *fj = cJSON_CreateObject();
    cJSON_AddItemToArray(frames, fj);
    cJSON_AddStringToObject(fj, "function", f->function);
    cJSON_AddStringToObject(fj, "file", f->base);
    cJSON_AddNumberToObject(fj, "session", (double)f->session);
    cJSON_AddStringToObject(fj, "status",
                            fa && fb ? "matched"
                            : fa     ? "only_a"
                                     : "only_b");
    cJSON_AddItemToObject(fj, "a", frame_side(a, fa));
    cJSON_AddItemToObject(fj, "b", frame_side(b, fb));
    size_t same_breaks = 0;
    cJSON *breaks = tl_run_breaks_diff(a, fa, b, fb, &same_breaks);
    cJSON_AddNumberToObject(fj, "graph_breaks_same", (double)same_breaks);
    cJSON_AddItemToObject(fj, "graph_breaks", breaks);
    const cJSON *br;
    cJSON_ArrayForEach(br, breaks) {
      const char *c = tl_json_get_str(br, "change");
      if (strcmp(c, "appeared") == 0)
        sum->breaks_appeared++;
      else if (strcmp(c, "gone") == 0)
        sum->breaks_gone++;
      else
        sum->breaks_moved++;
    }
    cJSON *pairs = cJSON_AddArrayToObject(fj, "pairs");
    size_t n = fa && fb ? (fa->count < fb->count ? fa->count : fb->count) : 0;
    if (fa && fb)
      sum->frames_matched++;
    else if (fa)
      sum->frames_only_a++;
    else
      sum->frames_only_b++;
    sum->compiles_matched += n;
    sum->compiles_only_a += fa ? fa->count - n : 0;
    sum->compiles_only_b += fb ? fb->count - n : 0;
    tl_buf_printf(&body, "<li class=\"frame %s\" id=\"frame-%zu\"><b>",
                  fa && fb ? "matched"
                  : fa     ? "only-a"
                           : "only-b",
                  i);
    tl_buf label;
    tl_buf_init(&label);
    tl_run_frame_label(&label, f);
    esc(&body, label.data);
    tl_buf_free(&label);
    tl_buf_puts(&body, "</b>");
    if (!fa || !fb)
      tl_buf_printf(&body,
                    " <span class=\"note\">compiled only in run %s "
                    "(%zu compile%s)</span>",
                    fa ? "A" : "B", f->count, f->count == 1 ? "" : "s");
    tl_buf_puts(&body, "\n");
    breaks_list(&body, breaks);
    tl_buf_puts(&body, "<ul>\n");
    for (size_t k = 0; k < n && ok; k++) {
      const tl_compile_files *ca = &a->found.compiles.items[fa->first + k];
      const tl_compile_files *cb = &b->found.compiles.items[fb->first + k];
      char stem[256];
      tl_run_pair_stem(ca, cb, stem, sizeof stem);
      cJSON *d = pair_diff(diff_dir, a, ca, b, cb);
      const cJSON *graphs = cJSON_GetObjectItemCaseSensitive(d, "graphs");
      const cJSON *guards = cJSON_GetObjectItemCaseSensitive(d, "guards");
      const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(d, "kernels");
      const cJSON *bw_kernels =
          cJSON_GetObjectItemCaseSensitive(d, "backward_kernels");
      double kc = kernel_changes(kernels);
      bool changed = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
                         guards, "changes")) > 0 ||
                     kc > 0 || kernel_changes(bw_kernels) > 0;
      for (size_t g = 0; g < sizeof GRAPHS / sizeof *GRAPHS; g++)
        changed = changed || graph_changes(cJSON_GetObjectItemCaseSensitive(
                                 graphs, GRAPHS[g])) > 0;
      sum->compiles_changed += changed;
      sum->kernels_changed += (size_t)kc;
      sum->kernels_provenance_changed += provenance_changes(kernels);
      cJSON *pj = cJSON_CreateObject();
      cJSON_AddStringToObject(pj, "a", ca->display);
      cJSON_AddStringToObject(pj, "b", cb->display);
      tl_buf file;
      tl_buf_init(&file);
      tl_buf_printf(&file, "%s.json", stem);
      cJSON_AddStringToObject(pj, "diff", file.data);
      cJSON_AddBoolToObject(pj, "changed", changed);
      cJSON_AddNumberToObject(
          pj, "guards_differ",
          cJSON_GetArraySize(
              cJSON_GetObjectItemCaseSensitive(guards, "changes")));
      cJSON *gs = cJSON_AddObjectToObject(pj, "graphs");
      for (size_t g = 0; g < sizeof GRAPHS / sizeof *GRAPHS; g++)
        cJSON_AddItemToObject(
            gs, GRAPHS[g],
            graph_summary(cJSON_GetObjectItemCaseSensitive(graphs, GRAPHS[g])));
      cJSON_AddItemToObject(pj, "kernels", kernel_summary(kernels));
      cJSON_AddItemToObject(pj, "backward_kernels", kernel_summary(bw_kernels));
      cJSON_AddItemToArray(pairs, pj);
      ok = write_json(diff_dir, file.data, d, error, error_size);
      tl_buf_clear(&page);
      pair_page(&page, a, ca, b, cb, fa, d, stem);
      tl_buf_clear(&file);
      tl_buf_printf(&file, "%s.html", stem);
      ok = ok && write_text(diff_dir, file.data, &page, error, error_size);
      tl_buf_free(&file);
      pair_line(&body, a, ca, b, cb, d, stem, changed);
      cJSON_Delete(d);
    }
    cJSON *oa = cJSON_AddArrayToObject(fj, "only_a");
    cJSON *ob = cJSON_AddArrayToObject(fj, "only_b");
    for (size_t k = n; fa && k < fa->count; k++)
      cJSON_AddItemToArray(
          oa,
          cJSON_CreateString(a->found.compiles.items[fa->first + k].display));
    for (size_t k = n; fb && k < fb->count; k++)
      cJSON_AddItemToArray(
          ob,
          cJSON_CreateString(b->found.compiles.items[fb->first + k].display));
    if (fa)
      only_list(&body, a, fa, n, "A");
    if (fb)
      only_list(&body, b, fb, n, "B");
    tl_buf_puts(&body, "</ul></li>\n");
  }
  cJSON_ReplaceItemInObjectCaseSensitive(top, "summary", summary_json(sum));
  if (ok)
    ok = write_json(diff_dir, "diff.json", top, error, error_size);
  if (ok) {
    tl_buf_clear(&page);
    tl_html_page_begin(&page, "tlparse diff", "a/");
    tl_buf_puts(&page, "<p><a href=\"diff.json\">this comparison as JSON</a>"
                       " · <a href=\"a/index.html\">run A's report</a> · "
                       "<a href=\"b/index.html\">run B's report</a></p>\n"
                       "<h1>Two runs compared</h1>\n<p>A: <code>");
    esc(&page, input_a);
    tl_buf_puts(&page, "</code><br>B: <code>");
    esc(&page, input_b);
    tl_buf_printf(
        &page,
        "</code></p>\n<p class=\"diff-summary\">%zu function%s compiled by "
        "both runs, %zu only by A, %zu only by B; %zu compile%s matched, "
        "%zu of them changed; %zu only in A, %zu only in B. Graph breaks: "
        "%zu appeared, %zu gone, %zu moved. Kernels that differ "
        "(changed, added or removed): %zu; of them added, removed or made "
        "from other nodes: %zu.</p>\n",
        sum->frames_matched, sum->frames_matched == 1 ? "" : "s",
        sum->frames_only_a, sum->frames_only_b, sum->compiles_matched,
        sum->compiles_matched == 1 ? "" : "s", sum->compiles_changed,
        sum->compiles_only_a, sum->compiles_only_b, sum->breaks_appeared,
        sum->breaks_gone, sum->breaks_moved, sum->kernels_changed,
        sum->kernels_provenance_changed);
    tl_buf_puts(&page,
                "<p class=\"help\">Compiles are matched by the function "
                "Dynamo compiled (its file name, without folders, and its "
                "name; several such functions by path and first line), then "
                "in compile order within it. Each pair is compared as the "
                "recompile pages compare two compiles of one frame: the "
                "guards (object and type ids aside: they differ between "
                "any two processes), the Dynamo, pre-grad and post-grad "
                "graphs node by node (a renamed node is no change), the "
                "kernels by the post-grad nodes they come from (a "
                "renumbered kernel is no change) and the compilation "
                "metrics. With -i, lines and kernels link each run's "
                "provenance pages.</p>\n");
    if (!m.frames.count)
      tl_buf_puts(&page, "<p>Neither run compiled anything.</p>\n");
    else
      tl_buf_puts(&page,
                  "<h2>Compiled functions</h2>\n<ul class=\"frames\">\n");
    tl_buf_append(&page, body.data ? body.data : "", body.len);
    if (m.frames.count)
      tl_buf_puts(&page, "</ul>\n");
    tl_html_page_end(&page);
    ok = write_text(diff_dir, "index.html", &page, error, error_size);
  }
  tl_buf_free(&body);
  tl_buf_free(&page);
  cJSON_Delete(top);
  tl_run_match_free(&m);
  return ok;
}
#endif
