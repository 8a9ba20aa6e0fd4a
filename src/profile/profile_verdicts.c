/* profile_verdicts.c: what a profile join says to a person (see
 * profile_verdicts.h): the one-line verdicts on stderr and the index (a view
 * the profile does not match, kernels no event gave time, a profile file
 * unread or unmatched) and the index's "where the time goes" section, both
 * read from the "profile" objects tl_profile_join wrote into the views.
 */
#include "profile/profile_verdicts.h"

#include "profile/profile_join.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile_map.h"
#include "util/html.h"

static const cJSON *get(const cJSON *obj, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static const char *get_str(const cJSON *obj, const char *key) {
  const cJSON *v = get(obj, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* ---- verdicts ------------------------------------------------------------ */
static double number_of(const cJSON *obj, const char *key);

/* The words for a match status, on stderr, the index and the page. */
static const char *status_text(const char *status) {
  if (!status)
    return "not joined";
  if (strcmp(status, "matched") == 0)
    return "matches";
  if (strcmp(status, "ambiguous") == 0)
    return "is ambiguous";
  return "does not match";
}

bool tl_profile_view_verdict(const cJSON *summary, tl_buf *line) {
  const cJSON *prof = get(summary, "profile");
  const cJSON *match = get(prof, "match");
  const char *status = get_str(match, "status");
  if (!prof || (status && strcmp(status, "matched") == 0))
    return false;
  if (number_of(match, "kernel_names_expected") == 0 &&
      number_of(match, "extern_names_expected") == 0)
    return false; /* a view without kernels has nothing to time */
  const cJSON *files = get(prof, "files");
  int nf = cJSON_GetArraySize(files);
  const cJSON *f0 = cJSON_GetArrayItem(files, 0);
  tl_buf_printf(
      line, "profile %s%s: ", cJSON_IsString(f0) ? f0->valuestring : "(none)",
      nf > 1 ? " (and the other profile files)" : "");
  const char *view = get_str(summary, "view");
  const char *cid = get_str(summary, "compile_id");
  tl_buf_printf(line, "view %s %s %s: %s", view ? view : "?", cid ? cid : "",
                status_text(status),
                get_str(match, "reason") ? get_str(match, "reason") : "");
  return true;
}

bool tl_profile_view_gaps(const cJSON *summary, tl_buf *line) {
  const cJSON *prof = get(summary, "profile");
  const cJSON *list = get(prof, "kernels_without_events");
  int n = cJSON_GetArraySize(list);
  if (!n)
    return false;
  const cJSON *files = get(prof, "files");
  const cJSON *f0 = cJSON_GetArrayItem(files, 0);
  const char *view = get_str(summary, "view");
  tl_buf_printf(
      line, "profile %s: view %s %s: %d kernel(s) without events (",
      cJSON_IsString(f0) ? f0->valuestring : "(none)", view ? view : "?",
      get_str(summary, "compile_id") ? get_str(summary, "compile_id") : "", n);
  const cJSON *it;
  int shown = 0;
  cJSON_ArrayForEach(it, list) {
    if (shown == 3) {
      tl_buf_puts(line, ", ...");
      break;
    }
    tl_buf_printf(line, "%s%s", shown++ ? ", " : "",
                  get_str(it, "key") ? get_str(it, "key") : "?");
  }
  tl_buf_printf(line, "): %s",
                get_str(prof, "record_hint") ? get_str(prof, "record_hint")
                                             : "");
  return true;
}

bool tl_profile_file_verdict(const tl_profile *p, size_t f,
                             const cJSON *const *summaries, size_t count,
                             tl_buf *line) {
  const tl_prof_file *file = &p->files.items[f];
  switch (file->state) {
  case TL_PROF_FILE_DUPLICATE:
    return false;
  case TL_PROF_FILE_UNREADABLE:
  case TL_PROF_FILE_EMPTY:
  case TL_PROF_FILE_INVALID:
  case TL_PROF_FILE_TRUNCATED:
    tl_buf_printf(line, "profile %s: %s", file->path,
                  file->why ? file->why : "unusable");
    return true;
  case TL_PROF_FILE_READ:
    break;
  }
  /* The matches name their files as the JSON does: valid UTF-8. */
  cJSON *path = tl_prof_valid_string(file->path);
  bool matched = false;
  for (size_t i = 0; i < count && !matched; i++) {
    const cJSON *match = get(get(summaries[i], "profile"), "match");
    const char *status = get_str(match, "status");
    if (!status || strcmp(status, "matched") != 0)
      continue;
    const cJSON *it;
    cJSON_ArrayForEach(it, get(match, "files")) {
      if (cJSON_IsString(it) && strcmp(it->valuestring, path->valuestring) == 0)
        matched = true;
    }
  }
  cJSON_Delete(path);
  if (matched)
    return false;
  tl_buf_printf(line,
                "profile %s: matches no provenance view of this trace (each "
                "view's profile.match says why: kernel names found, phase, "
                "compile id, graph key)",
                file->path);
  return true;
}

/* ---- the index's "where the time goes" ------------------------------------
 */
typedef struct hot {
  const char *label, *detail;
  double total, fwd, bwd;
  const char *href;   /* a page to open, or NULL */
  const char *kernel; /* ... with this kernel selected, or NULL */
  double best;        /* the time the page `href` gives it */
} hot;

static int hot_desc(const void *a, const void *b) {
  double x = ((const hot *)a)->total, y = ((const hot *)b)->total;
  return (x < y) - (x > y);
}

static double number_of(const cJSON *obj, const char *key) {
  const cJSON *v = get(obj, key);
  return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* A link to kernel `key` on the page `href` (#kernel=, as selection.js
 * writes it), or the plain name when there is no safe page. */
static void kernel_link(tl_buf *html, const char *href, const char *key) {
  if (!href || !tl_url_is_safe(tl_str_from(href))) {
    tl_html_escape_cstr(html, key);
    return;
  }
  tl_buf_puts(html, "<a href=\"");
  tl_html_escape_cstr(html, href);
  tl_buf_puts(html, "#kernel=");
  tl_url_fragment_value(html, key);
  tl_buf_puts(html, "\">");
  tl_html_escape_cstr(html, key);
  tl_buf_puts(html, "</a>");
}

/* µs as the page writes them (profile.js fmtUs): 2 decimals under 10, 1
 * under 1000, else a whole number with thousands separated by commas. */
static void fmt_us(tl_buf *out, double v) {
  if (!isfinite(v)) {
    tl_buf_puts(out, "\u2013");
    return;
  }
  if (v < 10) {
    tl_buf_printf(out, "%.2f", v);
    return;
  }
  if (v < 1000) {
    tl_buf_printf(out, "%.1f", v);
    return;
  }
  char digits[32];
  snprintf(digits, sizeof digits, "%.0f", floor(v + 0.5));
  size_t n = strlen(digits);
  for (size_t i = 0; i < n; i++) {
    if (i && (n - i) % 3 == 0)
      tl_buf_putc(out, ',');
    tl_buf_putc(out, digits[i]);
  }
}

static void td_us(tl_buf *out, double v) {
  tl_buf_puts(out, "<td class=\"num\">");
  fmt_us(out, v);
  tl_buf_puts(out, "</td>");
}

/* One row per view with a profile: its compile, its graph calls, the
 * region's split and its three hottest kernels (of the kernels the trace
 * gave time). */
static void compile_rows(tl_buf *html, const cJSON *const *views,
                         const char *const *hrefs, size_t count) {
  tl_buf_puts(html, "<table class=\"profile-top\" id=\"time-per-compile\"><tr>"
                    "<th>Compile</th><th>Graph calls</th><th>Profiled µs</th>"
                    "<th>Inductor µs</th><th>Extern µs</th><th>Other µs</th>"
                    "<th>Top three kernels (µs)</th></tr>\n");
  for (size_t v = 0; v < count; v++) {
    const cJSON *prof = get(views[v], "profile");
    if (!prof)
      continue;
    const char *href = hrefs ? hrefs[v] : NULL;
    const char *cid = get_str(views[v], "compile_id");
    tl_buf_puts(html, "<tr><td>");
    if (href && tl_url_is_safe(tl_str_from(href))) {
      tl_buf_puts(html, "<a href=\"");
      tl_html_escape_cstr(html, href);
      tl_buf_puts(html, "\">");
      tl_html_escape_cstr(html, cid ? cid : "(no compile id)");
      tl_buf_puts(html, "</a>");
    } else {
      tl_html_escape_cstr(html, cid ? cid : "(no compile id)");
    }
    const cJSON *match = get(prof, "match");
    const char *status = get_str(match, "status");
    const char *phase = get_str(match, "phase");
    if (phase) {
      tl_buf_puts(html, " <span class=\"note\">");
      tl_html_escape_cstr(html, phase);
      tl_buf_puts(html, "</span>");
    }
    tl_buf_puts(html, "</td>");
    if (!status || strcmp(status, "matched") != 0) {
      const char *reason = get_str(match, "reason");
      tl_buf_puts(html, "<td colspan=\"6\">");
      tl_html_escape_cstr(html, status_text(status));
      if (reason) {
        tl_buf_puts(html, ": ");
        tl_html_escape_cstr(html, reason);
      }
      tl_buf_puts(html, "</td></tr>\n");
      continue;
    }
    const cJSON *region = get(prof, "region");
    const cJSON *gc = get(prof, "graph_calls");
    double n_calls = number_of(gc, "count");
    tl_buf_printf(html, "<td class=\"num\">%.0f", n_calls);
    if (n_calls >= 1) {
      tl_buf_puts(html, " (first ");
      fmt_us(html, number_of(gc, "first_us"));
      if (n_calls > 1) {
        tl_buf_puts(html, ", median ");
        fmt_us(html, number_of(gc, "median_us"));
      }
      tl_buf_puts(html, " µs");
      if (number_of(gc, "far_count") > 0)
        tl_buf_printf(html, "; %.0f far from the median",
                      number_of(gc, "far_count"));
      tl_buf_puts(html, ")");
    }
    tl_buf_puts(html, "</td>");
    td_us(html, number_of(region, "total_us"));
    td_us(html, number_of(region, "inductor_us"));
    td_us(html, number_of(region, "extern_us"));
    td_us(html, number_of(region, "unknown_us"));
    tl_buf_puts(html, "<td style=\"overflow-wrap:anywhere\">");
    TL_VEC(hot) top = {0};
    const cJSON *it;
    cJSON_ArrayForEach(it, get(prof, "kernels")) {
      hot h = {it->string, NULL, number_of(it, "total_us"), 0, 0, NULL,
               NULL,       0};
      TL_VEC_PUSH(top, h);
    }
    tl_sort(top.items, top.count, sizeof(hot), hot_desc);
    for (size_t i = 0; i < top.count && i < 3; i++) {
      if (i)
        tl_buf_puts(html, "<br>");
      kernel_link(html, href, top.items[i].label);
      tl_buf_putc(html, ' ');
      fmt_us(html, top.items[i].total);
    }
    if (!top.count)
      tl_buf_puts(html, "no kernel events");
    TL_VEC_FREE(top);
    int gaps = cJSON_GetArraySize(get(prof, "kernels_without_events"));
    const char *hint = get_str(prof, "record_hint");
    if (gaps && hint) {
      tl_buf_printf(html,
                    "<br><span class=\"note\">%d kernel(s) without "
                    "events: ",
                    gaps);
      tl_html_escape_cstr(html, hint);
      tl_buf_puts(html, "</span>");
    }
    tl_buf_puts(html, "</td></tr>\n");
  }
  tl_buf_puts(html, "</table>\n");
}

/* The page's Viridis scale (profile.js), by the square root of the share of
 * the largest value, as the time columns are coloured. */
static const char *const VIRIDIS[10] = {
    "#440154", "#482878", "#3e4989", "#31688e", "#26828e",
    "#1f9e89", "#35b779", "#6ece58", "#b5de2b", "#fde725"};

static const char *heat(double v, double max) {
  double f = max > 0 && v > 0 ? sqrt(v / max) : 0;
  int step = (int)(f * 10);
  return VIRIDIS[step < 0 ? 0 : step > 9 ? 9 : step];
}

/* An href: the page, and "#kernel=<key>" (encoded as selection.js reads it)
 * when a kernel is given; false (nothing written) for an unsafe page. */
static bool bar_href(tl_buf *html, const char *href, const char *kernel) {
  if (!href || !tl_url_is_safe(tl_str_from(href)))
    return false;
  tl_html_escape_cstr(html, href);
  if (kernel) {
    tl_buf_puts(html, "#kernel=");
    tl_url_fragment_value(html, kernel);
  }
  return true;
}

/* A horizontal bar chart (inline SVG) of the first `n` items, sorted by
 * total: a label, a bar coloured and sized by the total, the µs; each bar
 * a link to its page (with its kernel selected) where it has one. */
static void bar_chart(tl_buf *html, const char *id, const char *title,
                      const hot *items, size_t n) {
  enum { W = 760, LABEL = 330, BAR = 330, ROW = 20 };
  if (!n)
    return;
  double max = items[0].total;
  tl_buf_printf(html,
                "<figure class=\"profile-bars\" id=\"%s\"><figcaption>%s"
                "</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
                "viewBox=\"0 0 %d %zu\" width=\"100%%\" "
                "style=\"max-width:%dpx\" role=\"img\" aria-label=\"%s\" "
                "font-family=\"sans-serif\" font-size=\"12\">\n",
                id, title, W, n * ROW + 4, W, title);
  for (size_t i = 0; i < n; i++) {
    const hot *h = &items[i];
    double y = (double)i * ROW + 2;
    double w = max > 0 ? h->total / max * BAR : 0;
    bool linked = h->href && tl_url_is_safe(tl_str_from(h->href));
    if (linked) {
      tl_buf_puts(html, "<a href=\"");
      bar_href(html, h->href, h->kernel);
      tl_buf_puts(html, "\">");
    }
    tl_buf_printf(html,
                  "<g class=\"bar\"><rect class=\"row\" x=\"0\" y=\"%.0f\" "
                  "width=\"%d\" height=\"%d\" fill=\"transparent\"/><title>",
                  y, W, ROW);
    tl_html_escape_cstr(html, h->label);
    tl_buf_puts(html, ": ");
    fmt_us(html, h->total);
    tl_buf_puts(html, " µs</title>");
    /* the label's end (a path's file and line) when it is long */
    const char *label = h->label;
    size_t len = strlen(label);
    tl_buf_printf(html,
                  "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\" "
                  "dominant-baseline=\"middle\">",
                  LABEL - 6, y + ROW / 2.0);
    if (len > 48) {
      const char *tail = label + len - 47;
      while (((unsigned char)*tail & 0xC0) == 0x80) /* a whole character */
        tail++;
      tl_buf_puts(html, "…");
      tl_html_escape_cstr(html, tail);
    } else {
      tl_html_escape_cstr(html, label);
    }
    tl_buf_printf(html,
                  "</text><rect class=\"fill\" x=\"%d\" y=\"%.0f\" "
                  "width=\"%.1f\" "
                  "height=\"%d\" fill=\"%s\"/>",
                  LABEL, y + 2, w < 1 && h->total > 0 ? 1.0 : w, ROW - 4,
                  heat(h->total, max));
    tl_buf_printf(html,
                  "<text x=\"%.1f\" y=\"%.0f\" dominant-baseline=\"middle\">",
                  LABEL + w + 4, y + ROW / 2.0);
    fmt_us(html, h->total);
    tl_buf_puts(html, " µs</text></g>");
    if (linked)
      tl_buf_puts(html, "</a>");
    tl_buf_putc(html, '\n');
  }
  tl_buf_puts(html, "</svg></figure>\n");
}

/* The hottest kernels over all views, each with its page. */
static void kernel_bars(tl_buf *html, const cJSON *const *views,
                        const char *const *hrefs, size_t count) {
  TL_VEC(hot) top = {0};
  for (size_t v = 0; v < count; v++) {
    const cJSON *prof = get(views[v], "profile"), *it;
    const char *status = get_str(get(prof, "match"), "status");
    if (!status || strcmp(status, "matched") != 0)
      continue;
    cJSON_ArrayForEach(it, get(prof, "kernels")) {
      hot h = {it->string, NULL, number_of(it, "total_us"),
               0,          0,    hrefs ? hrefs[v] : NULL,
               it->string, 0};
      TL_VEC_PUSH(top, h);
    }
  }
  tl_sort(top.items, top.count, sizeof(hot), hot_desc);
  bar_chart(html, "kernel-bars", "Time per kernel (the 10 hottest)", top.items,
            top.count < 10 ? top.count : 10);
  TL_VEC_FREE(top);
}

void tl_profile_where_time_goes(tl_buf *html, const cJSON *const *views,
                                const char *const *hrefs, size_t count) {
  size_t profiled = 0;
  TL_VEC(hot) lines = {0};
  tl_strtab line_ids = {0}; /* "file:line" -> index in lines */
  for (size_t v = 0; v < count; v++) {
    const cJSON *prof = get(views[v], "profile"), *it;
    if (!prof)
      continue;
    profiled++;
    cJSON_ArrayForEach(it, get(prof, "source_lines")) {
      char key[1024];
      snprintf(key, sizeof key, "%s:%d",
               get_str(it, "file") ? get_str(it, "file") : "",
               cJSON_IsNumber(get(it, "line")) ? get(it, "line")->valueint : 0);
      int32_t id = tl_strtab_intern(&line_ids, key, strlen(key));
      hot *h = (size_t)id < lines.count ? &lines.items[id] : NULL;
      if (!h) {
        hot n = {tl_xstrdup(key), get_str(it, "code"), 0, 0, 0, NULL, NULL, -1};
        TL_VEC_PUSH(lines, n);
        h = &lines.items[lines.count - 1];
      }
      if (number_of(it, "total_us") > h->best) {
        h->best = number_of(it, "total_us");
        h->href = hrefs ? hrefs[v] : NULL;
      }
      h->total += number_of(it, "total_us");
      h->fwd += number_of(it, "fwd_us");
      h->bwd += number_of(it, "bwd_us");
    }
  }
  tl_strtab_free(&line_ids);
  if (!profiled)
    return;
  tl_buf_puts(html,
              "<section id=\"where-time-goes\">\n<h2>Where the time goes</h2>\n"
              "<p>From <code>--profile</code>: per compilation, the profiled "
              "time of its graph calls, split into Inductor kernels, extern "
              "kernels and the rest, and its three hottest kernels (each "
              "opens its page with the kernel selected).</p>\n");
  compile_rows(html, views, hrefs, count);
  kernel_bars(html, views, hrefs, count);
  if (lines.count) {
    tl_sort(lines.items, lines.count, sizeof(hot), hot_desc);
    bar_chart(html, "line-bars", "Time per model line (the 10 hottest)",
              lines.items, lines.count < 10 ? lines.count : 10);
    tl_buf_puts(html, "<table class=\"profile-top\" id=\"time-per-line\"><tr>"
                      "<th>Model line</th><th>Code</th><th>Total µs</th>"
                      "<th>Forward µs</th><th>Backward µs</th></tr>\n");
    for (size_t i = 0; i < lines.count && i < 20; i++) {
      hot *h = &lines.items[i];
      tl_buf_puts(html, "<tr><td>");
      tl_html_escape_cstr(html, h->label);
      tl_buf_puts(html, "</td><td style=\"overflow-wrap:anywhere\"><code>");
      tl_html_escape_cstr(html, h->detail ? h->detail : "");
      tl_buf_puts(html, "</code></td>");
      td_us(html, h->total);
      td_us(html, h->fwd);
      td_us(html, h->bwd);
      tl_buf_puts(html, "</tr>\n");
    }
    tl_buf_puts(html, "</table>\n");
  }
  tl_buf_puts(html, "</section>\n");
  for (size_t i = 0; i < lines.count; i++)
    free((char *)lines.items[i].label);
  TL_VEC_FREE(lines);
}
