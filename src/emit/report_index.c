/* report_index.c: index.html, the page a report opens on: the trace's
 * facts, diagnostics, stack trie, recompiles, where the time goes, the
 * provenance views' links and each compile folder's artifacts, in the
 * Rust tool's order and anchors. Part of emit/'s report (report.h); reads
 * the store and the views, writes one file.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "emit/compile_directory.h"
#include "emit/metrics_pages.h"
#include "emit/report_internal.h"
#include "util/fsutil.h"
#include "util/html.h"
#include "util/intern.h"
#ifdef HAVE_tl_docs
#include "emit/help.h"
#endif
#ifdef HAVE_tl_profile
#include "profile/profile_verdicts.h"
#endif

/* One compile id's files as the Rust index lists them: the path (a link's
 * name), its readable page, the cache marker and the running number. */
static void artifact_list(tl_buf *html, const tl_compile_dir *dir) {
  tl_buf_puts(html, "<ul class=\"artifacts\">\n");
  for (size_t k = 0; k < dir->artifacts.count; k++) {
    const tl_artifact *a = &dir->artifacts.items[k];
    tl_buf_puts(html, "<li>");
    const char *text = a->url || !a->path ? a->name : a->path;
    if (a->url || a->path) {
      tl_buf_puts(html, "<a href=\"");
      if (a->url)
        tl_html_escape_cstr(html, a->url);
      else
        tl_url_path(html, a->path);
      tl_buf_puts(html, "\">");
      tl_html_escape_cstr(html, text);
      tl_buf_puts(html, "</a>");
    } else {
      tl_html_escape_cstr(html, text);
    }
    if (a->readable_path) {
      tl_buf_puts(html, " (<a href=\"");
      tl_url_path(html, a->readable_path);
      tl_buf_puts(html, "\">readable_html</a>)");
    }
    tl_buf_printf(html, " %s <span class=\"num\">(%d)</span>",
                  tl_cache_suffix(a), a->listed_number);
    if (a->text_path && a->path && strcmp(a->text_path, a->path) != 0) {
      tl_buf_puts(html, " <a class=\"raw\" href=\"");
      tl_url_path(html, a->text_path);
      tl_buf_puts(html, "\">exact text</a>");
    }
    tl_buf_puts(html, "</li>\n");
  }
  tl_buf_puts(html, "</ul>\n");
}

#if defined(HAVE_tl_engine) && defined(HAVE_tl_page)
enum { VIEWS_BUILT = 1 };
#else
enum { VIEWS_BUILT = 0 };
#endif

/* "JIT Python", "JIT cpp_wrapper" or "AOTInductor": a view's mode as the
 * index names it (tl_prov_summary.mode). */
static const char *mode_name(const char *mode) {
  if (!mode)
    return NULL;
  if (strcmp(mode, "aot") == 0)
    return "AOTInductor";
  if (strcmp(mode, "jit-cpp-wrapper") == 0)
    return "JIT cpp_wrapper";
  return "JIT Python";
}

/* The frame a compile folder compiled: its first dynamo_start's innermost
 * frame, or NULL. */
static const tl_frame *compiled_frame(const tl_compile_dir *dir) {
  const tl_stack *stack = dir->stacks.count ? &dir->stacks.items[0] : NULL;
  return stack && stack->count ? &stack->frames[stack->count - 1] : NULL;
}

/* The compiled frame of a compile folder as a view's line names it:
 * "forward at model.py:12" (the file's full path on hover). */
static void frame_of(tl_buf *html, const tl_compile_dir *dir) {
  const tl_frame *f = compiled_frame(dir);
  if (!f)
    return;
  const char *file = f->file ? f->file : "(unknown)";
  const char *base = strrchr(file, '/');
  base = base && base[1] ? base + 1 : file;
  tl_buf_puts(html, " · <span class=\"frame\" title=\"");
  tl_html_escape_cut(html, tl_str_from(file), TL_HTML_SHOWN_MAX);
  tl_buf_printf(html, ":%lld\">", f->line);
  tl_html_escape_cut(html, tl_str_from(f->name ? f->name : "?"),
                     TL_HTML_SHOWN_MAX);
  tl_buf_puts(html, " at ");
  tl_html_escape_cut(html, tl_str_from(base), TL_HTML_SHOWN_MAX);
  tl_buf_printf(html, ":%lld</span>", f->line);
}

/* One view's link, and what it holds: compile id, frame, mode, kernels and
 * the share of them whose call the code shows. A view of a folder that
 * logged no provenance artifact is listed apart ("none"). */
static void view_links(tl_buf *html, tl_view *views, size_t count) {
  if (!VIEWS_BUILT) {
    if (count)
      tl_buf_puts(html, "<li>This tlparse was built without the provenance "
                        "engine and page.</li>\n");
    return;
  }
  for (size_t i = 0; i < count; i++) {
    const tl_view *v = &views[i];
    const tl_prov_summary *s = &v->summary;
    bool none = !v->mappings && !v->pre && !v->post && !v->code;
    tl_buf_puts(html,
                none ? "<li class=\"none\"><a href=\"" : "<li><a href=\"");
    tl_url_path(html, views[i].name);
    tl_buf_puts(html, ".html\">");
    tl_html_escape_cstr(html, views[i].name);
    tl_buf_puts(html, "</a> <a class=\"raw\" href=\"");
    tl_url_path(html, views[i].name);
    tl_buf_puts(html, ".json\">json</a>");
    tl_buf_puts(html, " <span class=\"facts\">");
    tl_html_escape_cstr(html,
                        v->dir->unknown_id ? "(unknown)" : v->dir->display);
    frame_of(html, v->dir);
    if (none) {
      tl_buf_puts(html, " · <span class=\"note\">no provenance artifacts"
                        "</span></span></li>\n");
      continue;
    }
    const char *mode = mode_name(s->mode);
    if (mode)
      tl_buf_printf(html, " · %s", mode);
    if (!v->mappings)
      tl_buf_puts(html, " · <span class=\"note\">no node mappings</span>");
    else if (s->mode) {
      tl_buf_printf(html, " · %zu %s", s->kernels,
                    s->kernels == 1 ? "kernel" : "kernels");
      if (s->kernels && !s->no_links_reason)
        tl_buf_printf(html, ", %zu linked (%zu %%)", s->kernels_called,
                      s->kernels_called * 100 / s->kernels);
      if (s->no_links_reason) {
        tl_buf_puts(html, " · <span class=\"note\">no links: ");
        tl_html_escape_cstr(html, s->no_links_reason);
        tl_buf_puts(html, "</span>");
      }
    }
    tl_buf_puts(html, "</span></li>\n");
  }
}

/* A help section from docs/help, folded under a one-line summary. */
static void inline_help(tl_buf *html, const char *summary,
                        const char *section_id) {
#ifdef HAVE_tl_docs
  tl_buf_puts(html, "<details class=\"help\"><summary>");
  tl_html_escape_cstr(html, summary);
  tl_buf_puts(html, "</summary>\n");
  tl_help_render_section(html, section_id);
  tl_buf_puts(html, "</details>\n");
#else
  (void)html;
  (void)summary;
  (void)section_id;
#endif
}

static void diagnostics_section(tl_buf *html, const tl_diag *diag) {
  tl_buf_puts(html, "<section id=\"diagnostics\">\n<h2>Diagnostics</h2>\n");
  if (tl_diag_total(diag) == 0) {
    tl_buf_puts(html, "<p>Every line of the trace was read.</p>\n");
  } else {
    tl_buf_puts(html, "<table class=\"diag\">\n<tr><th>what</th><th>count</th>"
                      "<th>first places</th></tr>\n");
    for (int k = 0; k < TL_DIAG_KIND_COUNT; k++) {
      if (!diag->counts[k])
        continue;
      tl_buf_puts(html, "<tr><td>");
      tl_html_escape_cstr(html, tl_diag_kind_title((tl_diag_kind)k));
      tl_buf_printf(html, "</td><td>%zu</td><td><ul>", diag->counts[k]);
      for (int i = 0; i < TL_DIAG_EXAMPLES; i++) {
        const tl_diag_example *e = &diag->examples[k][i];
        if (!e->message)
          break;
        tl_buf_puts(html, "<li><code>");
        tl_html_escape_cstr(html, diag->file_name);
        if (e->line)
          tl_buf_printf(html, ":%zu", e->line);
        tl_buf_puts(html, "</code> ");
        tl_html_escape_cstr(html, e->message);
        tl_buf_puts(html, "</li>");
      }
      tl_buf_puts(html, "</ul></td></tr>\n");
    }
    tl_buf_puts(html, "</table>\n");
  }
  inline_help(html, "What the diagnostics mean", "diagnostics");
  tl_buf_puts(html, "</section>\n");
}

static const char TOGGLE_SCRIPT[] =
    "<script>\nfunction toggleList(toggleItem) {\n"
    "  const nested = toggleItem.parentNode.querySelector('ul');\n"
    "  if (nested) {\n"
    "    nested.style.display = nested.style.display === 'none' ? 'block' : "
    "'none';\n"
    "    toggleItem.classList.toggle('collapsed');\n  }\n}\n</script>\n";

/* The Rust tool's stack trie section, with its colour legend. */
static void stack_trie_section(tl_buf *html, const tl_store *store) {
  tl_buf_puts(
      html,
      "<section id=\"stack-trie\">\n<h2>Stack trie</h2>\n<p>Where in your "
      "program each compilation started: every stack that triggered a PT2 "
      "compilation, merged where stacks share a prefix (most recent call "
      "last); each compile id stands on its last frame.</p>\n"
      "<p>Links to particular compilation are color coded by status: <span "
      "class=\"status-ok\">[Success]</span>, <span class=\"status-break\">"
      "[Success with restart (e.g., graph break)]</span>, <span "
      "class=\"status-empty\">[Empty graph]</span>, <span "
      "class=\"status-error\">[Error]</span>, <span "
      "class=\"status-missing\">[Metrics were missing]</span></p>\n");
  tl_stack_trie_render(html, store);
  tl_buf_puts(html, "</section>\n");
}

/* Rust's "Failures and Restarts" pointer, when there is anything. */
static void failures_section(tl_buf *html, const tl_store *store) {
  if (!store->failure_count)
    return;
  tl_buf_printf(
      html,
      "<section id=\"failures\">\n<h2> Failures and Restarts </h2>\n<p>"
      "Various issues may cause Dynamo to restart its analysis or give up on "
      "compilation entirely, causing graph breaks and fallbacks to eager "
      "mode. This run had <strong><a href=\"failures_and_restarts.html\">%zu "
      "restart(s) and/or compilation failure(s)</a></strong>.</p>\n"
      "</section>\n",
      store->failure_count);
}

static void chromium_section(tl_buf *html, const tl_store *store) {
  if (store->chromium.count)
    tl_buf_puts(html, "<h2> Chromium Events </h2>\n<p>PT2 generates <a "
                      "href=\"chromium_events.json\">Chromium Trace "
                      "Events</a> in JSON on specific events during "
                      "compilation. You can download and view them in a tool "
                      "like <a href=\"https://ui.perfetto.dev/\">Perfetto"
                      "</a>.</p>\n");
  if (store->collectives_parity_link)
    tl_buf_puts(html, "<p><a href=\"collectives_parity.json\">Collectives "
                      "Parity report</a> comparing scheduler and Inductor "
                      "output code collective operations.</p>\n");
  if (store->unknown_count) {
    tl_buf_printf(html, "<p class=\"note\">%zu unknown entr%s (first: <code>",
                  store->unknown_count,
                  store->unknown_count == 1 ? "y" : "ies");
    tl_html_escape_cstr(html, store->first_unknown);
    tl_buf_puts(html, "</code>), not shown here: see <a "
                      "href=\"raw.jsonl\">raw.jsonl</a>.</p>\n");
  }
}

/* One compile folder under "Build products": the Rust anchor (the id) on
 * the first folder of each id, ours (the folder) on every one. */
/* One compile folder's heading, artifacts and views; `first` when no
 * earlier folder has its display name (only the first gets the anchor). */
static void compile_item(tl_buf *html, const tl_store *store, size_t i,
                         bool first, const tl_report_options *options,
                         tl_view *views, size_t view_count) {
  const tl_compile_dir *dir = store->dirs.items[i];
  tl_buf_puts(html, "<div class=\"compile\" id=\"");
  tl_html_escape_cstr(html, dir->dir_name);
  tl_buf_puts(html, "\">\n<h3><a");
  if (first) {
    tl_buf_puts(html, " id=\"");
    tl_html_escape_cstr(html, dir->unknown_id ? "(unknown)" : dir->display);
    tl_buf_puts(html, "\"");
  }
  tl_buf_puts(html, ">");
  tl_html_escape_cstr(html, dir->unknown_id ? "(unknown)" : dir->display);
  tl_buf_puts(html, "</a> <span class=\"dir\">");
  tl_html_escape_cstr(html, dir->dir_name);
  tl_buf_puts(html, "</span>");
  /* The compiled frame: "model.py:12 in f". */
  const tl_frame *last = compiled_frame(dir);
  if (last) {
    tl_buf_puts(html, " <span class=\"frame\">");
    tl_html_escape_cut(html, tl_str_from(last->file ? last->file : "(unknown)"),
                       TL_HTML_SHOWN_MAX);
    tl_buf_printf(html, ":%lld in ", last->line);
    tl_html_escape_cstr(html, last->name ? last->name : "");
    tl_buf_puts(html, "</span>");
  }
  if (dir->fail_type) {
    tl_buf_puts(html, " <span class=\"fail\">");
    tl_html_escape_cstr(html, dir->fail_type);
    tl_buf_puts(html, "</span>");
  }
  tl_buf_puts(html, "</h3>\n");
  artifact_list(html, dir);
  if (options->provenance) {
    tl_buf_puts(html, "<ul class=\"views\">\n");
    view_links(html, views, view_count);
    tl_buf_puts(html, "</ul>\n");
  }
  tl_buf_puts(html, "</div>\n");
}
/* "Where the time goes" (profile_join.h) over the views that have one. */
static void time_section(tl_buf *html, const time_summaries *time) {
#ifdef HAVE_tl_profile
  const cJSON **views =
      tl_xcalloc(time->count ? time->count : 1, sizeof *views);
  char **hrefs = tl_xcalloc(time->count ? time->count : 1, sizeof *hrefs);
  size_t n = 0;
  for (size_t i = 0; i < time->count; i++) {
    if (!time->summaries[i])
      continue;
    tl_buf href;
    tl_buf_init(&href);
    tl_url_path(&href, time->views[i].name);
    tl_buf_puts(&href, ".html");
    hrefs[n] = tl_buf_detach(&href);
    views[n++] = time->summaries[i];
  }
  tl_profile_where_time_goes(html, views, (const char *const *)hrefs, n);
  for (size_t i = 0; i < n; i++)
    free(hrefs[i]);
  free(hrefs);
  free(views);
#else
  (void)html;
  (void)time;
#endif
}

/* The torch version the trace logs (artifact torch_version, payload
 * {"pytorch_version": "2.13.0+cpu", ...}), read back from its file, as
 * " Recorded with torch <code>V</code>." on the index; nothing when the
 * trace has none (torch before 2.6) or it holds no such string. */
static void torch_version_sentence(tl_buf *html, const tl_store *store) {
  for (size_t i = 0; i < store->dirs.count; i++) {
    const tl_compile_dir *d = store->dirs.items[i];
    for (size_t j = 0; j < d->artifacts.count; j++) {
      const tl_artifact *a = &d->artifacts.items[j];
      if (strncmp(a->name, "torch_version_", 14) != 0 || !a->path)
        continue;
      tl_buf path, text;
      tl_buf_init(&path);
      tl_buf_init(&text);
      tl_buf_printf(&path, "%s/%s", store->out_dir,
                    a->text_path ? a->text_path : a->path);
      char error[256];
      cJSON *json = tl_fs_read_file(path.data, &text, error, sizeof error)
                        ? cJSON_ParseWithLength(text.data, text.len)
                        : NULL;
      const cJSON *v =
          cJSON_GetObjectItemCaseSensitive(json, "pytorch_version");
      if (cJSON_IsString(v)) {
        tl_buf_puts(html, " Recorded with torch <code>");
        tl_html_escape_cstr(html, v->valuestring);
        tl_buf_puts(html, "</code>.");
      }
      cJSON_Delete(json);
      tl_buf_free(&path);
      tl_buf_free(&text);
      return;
    }
  }
}

void tl_report_write_index(tl_store *store, const tl_report_options *options,
                           const tl_diag *diag, tl_view **dir_views,
                           size_t *dir_view_counts, const time_summaries *time,
                           const tl_buf *recompiles) {
  tl_buf html;
  tl_buf_init(&html);
  tl_html_page_begin(&html, "tlparse report", "");
  if (options->custom_header_html)
    tl_buf_puts(&html, options->custom_header_html); /* the user's own HTML */
  tl_buf_puts(&html, TOGGLE_SCRIPT);
  tl_buf_puts(&html,
              "<h1>tlparse report</h1>\n<p class=\"input\">Trace: <code>");
  tl_html_escape_cstr(&html, options->input_name);
  tl_buf_printf(&html, "</code>, %zu %s, %zu compile %s.", store->record_count,
                store->record_count == 1 ? "entry" : "entries",
                store->dirs.count,
                store->dirs.count == 1 ? "folder" : "folders");
  torch_version_sentence(&html, store);
  tl_buf_puts(
      &html,
      " <a href=\"help.html\">Help</a> · <a href=\"failures_and_restarts."
      "html\">Failures and restarts</a> · <a href=\"chromium_events."
      "json\">chromium_events.json</a> (load in Perfetto) · <a "
      "href=\"raw.jsonl\">raw.jsonl</a> · <a "
      "href=\"compile_directory.json\">compile_directory.json</a></p>\n");
  diagnostics_section(&html, diag);
  stack_trie_section(&html, store);
  failures_section(&html, store);
  tl_buf_append(&html, recompiles->data, recompiles->len);
  time_section(&html, time);
  if (options->provenance) {
    tl_buf_puts(&html,
                "<section id=\"provenance\">\n<h2>Provenance Tracking"
                "</h2>\n<p>Three linked panels per Inductor compilation: "
                "pre-grad graph, post-grad graph and generated code "
                "(<a href=\"help.html#highlighter\">how to read "
                "them</a>).</p>\n<ul>\n");
    for (size_t i = 0; i < store->dirs.count; i++)
      view_links(&html, dir_views[i], dir_view_counts[i]);
    tl_buf_puts(&html, "</ul>\n</section>\n");
  }
  tl_buf_puts(&html, "<section id=\"compiles\">\n<h2>IR dumps</h2>\n"
                     "<p>The intermediate products of each compilation, by "
                     "compile id in log order, each with its running "
                     "number.</p>\n");
  inline_help(&html, "What a compile id like [0/1_1] means", "compile-ids");
  inline_help(&html, "What the artifacts are", "artifacts");
  chromium_section(&html, store);
  tl_buf_puts(&html, "<p>Build products below:</p>\n");
  /* Display names seen, for the anchors: a set, not a scan of the earlier
   * folders (quadratic in compile folders). */
  tl_intern seen = {0};
  for (size_t i = 0; i < store->dirs.count; i++) {
    size_t before = seen.count;
    tl_intern_get(&seen, store->dirs.items[i]->display);
    compile_item(&html, store, i, seen.count > before, options, dir_views[i],
                 dir_view_counts[i]);
  }
  tl_intern_free(&seen);
  tl_buf_puts(&html, "</section>\n");
  if (store->unknown_stacks.count) {
    tl_buf_puts(&html,
                "<section id=\"unknown-stacks\">\n<h2>Unknown stacks</h2>\n"
                "<p>Stacks logged beside entries rather than by a compile "
                "(torch.export's guards and expressions, for example), "
                "merged by common prefix; each ends in (unknown).</p>\n");
    tl_unknown_stack_trie_render(&html, store);
    tl_buf_puts(&html, "</section>\n");
  }
  tl_html_page_end(&html);
  tl_store_write(store, "index.html", html.data, html.len);
  tl_buf_free(&html);
}
