/* recompile_pages.c: the recompile pages, their JSON and the index's
 * "Recompiles" section, rendered from diff/recompiles.h's JSON (see
 * recompile_pages.h). Every text from the trace goes through
 * tl_html_escape. */
#include "emit/recompile_pages.h"

#ifdef HAVE_tl_engine
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/recompiles.h"
#include "util/html.h"
#include "json/json_build.h"
#include "json/json_print.h"

static void esc(tl_buf *h, const char *s) { tl_html_escape_cstr(h, s); }

/* The reasons as a list of sentences, each with the logged text. */
static void reasons_list(tl_buf *h, const cJSON *reasons) {
  if (!cJSON_GetArraySize(reasons)) {
    tl_buf_puts(h, "<p class=\"note\">The trace logged no recompile reasons "
                   "for this compile.</p>\n");
    return;
  }
  tl_buf_puts(h, "<ul class=\"reasons\">\n");
  const cJSON *r;
  cJSON_ArrayForEach(r, reasons) {
    tl_buf_puts(h, "<li>");
    esc(h, tl_json_get_str(r, "words"));
    tl_buf_puts(h, " <span class=\"note\">(logged: <code>");
    esc(h, tl_json_get_str(r, "earlier"));
    tl_buf_puts(h, ": ");
    esc(h, tl_json_get_str(r, "text"));
    tl_buf_puts(h, "</code>)</span></li>\n");
  }
  tl_buf_puts(h, "</ul>\n");
}

/* Whether a byte belongs to a word of guard code (a name or a number; any
 * byte of a UTF-8 sequence too, so that a mark never splits a character). */
static bool word_byte(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

/* A guard code cut into tokens (each word whole, any other byte alone),
 * each with whether it differs from the other side's code. */
typedef struct code_tokens {
  tl_str code;
  size_t count;
  size_t *start; /* [count + 1]: the last is the code's length */
  bool *differs;
} code_tokens;

static void cut_tokens(code_tokens *t, tl_str code) {
  t->code = code;
  t->count = 0;
  t->start = tl_xmalloc((code.len + 1) * sizeof *t->start);
  t->differs = tl_xcalloc(code.len + 1, sizeof *t->differs);
  for (size_t i = 0; i < code.len;) {
    t->start[t->count++] = i;
    if (!word_byte((unsigned char)code.ptr[i++]))
      continue;
    while (i < code.len && word_byte((unsigned char)code.ptr[i]))
      i++;
  }
  t->start[t->count] = code.len;
}

static bool same_token(const code_tokens *a, size_t i, const code_tokens *b,
                       size_t j) {
  size_t la = a->start[i + 1] - a->start[i], lb = b->start[j + 1] - b->start[j];
  return la == lb &&
         memcmp(a->code.ptr + a->start[i], b->code.ptr + b->start[j], la) == 0;
}

/* Beyond this many token pairs between the codes' common first and last
 * tokens, the whole stretch between them is marked (a longest common
 * subsequence of the tokens would take that many cells). */
enum { MARK_CELLS = 1 << 16 };

/* Whether a token is punctuation or space (no word byte). */
static bool punctuation(const code_tokens *t, size_t i) {
  return !word_byte((unsigned char)t->code.ptr[t->start[i]]);
}

/* Marks, on both sides, each run of common tokens that is all punctuation
 * and space and lies between two differences: `size=[6, 16]` against
 * `size=[2, 4, 16]` reads `[6, ` / `[2, 4, ` marked, where the common
 * subsequence alone marked `6` against `2` and `4, ` apart. The tokens left
 * unmarked stay the same on the two sides. */
static void join_differences(code_tokens *a, code_tokens *b) {
  /* The alignment in turn: differences (of a, of b), then a run of common
   * tokens (as many on each side: the unmarked tokens pair up in order). */
  size_t i = 0, j = 0;
  bool after_difference = false;
  while (i < a->count || j < b->count) {
    if ((i < a->count && a->differs[i]) || (j < b->count && b->differs[j])) {
      while (i < a->count && a->differs[i])
        i++;
      while (j < b->count && b->differs[j])
        j++;
      after_difference = true;
      continue;
    }
    size_t ri = i, rj = j;
    bool all_punctuation = true;
    while (i < a->count && j < b->count && !a->differs[i] && !b->differs[j]) {
      all_punctuation = all_punctuation && punctuation(a, i);
      i++, j++;
    }
    bool before_difference =
        (i < a->count && a->differs[i]) || (j < b->count && b->differs[j]);
    if (after_difference && before_difference && all_punctuation) {
      for (size_t k = ri; k < i; k++)
        a->differs[k] = true;
      for (size_t k = rj; k < j; k++)
        b->differs[k] = true;
    }
    after_difference = false;
  }
}

/* Marks the tokens of `a` and `b` that are not in one longest common
 * subsequence of their tokens: what a changed guard changed
 * (`size=[2, 4], stride=[4, 1]` and `size=[3, 4], stride=[8, 1]` differ in
 * `2`/`3` and `4`/`8`), then joins differences that only punctuation
 * parts (join_differences). */
static void mark_differences(code_tokens *a, code_tokens *b) {
  size_t p = 0, na = a->count, nb = b->count;
  while (p < na && p < nb && same_token(a, p, b, p))
    p++;
  while (na > p && nb > p && same_token(a, na - 1, b, nb - 1))
    na--, nb--;
  size_t n = na - p, m = nb - p;
  if (n == 0 || m == 0 || (n + 1) * (m + 1) > MARK_CELLS) {
    for (size_t i = p; i < na; i++)
      a->differs[i] = true;
    for (size_t j = p; j < nb; j++)
      b->differs[j] = true;
    return;
  }
  /* lcs[i][j]: the longest common subsequence of a's tokens from p + i and
   * b's from p + j (to na, nb). */
  unsigned short *lcs = tl_xcalloc((n + 1) * (m + 1), sizeof *lcs);
#define LCS(i, j) lcs[(i) * (m + 1) + (j)]
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      LCS(i, j) = same_token(a, p + i, b, p + j)
                      ? (unsigned short)(LCS(i + 1, j + 1) + 1)
                  : LCS(i + 1, j) >= LCS(i, j + 1) ? LCS(i + 1, j)
                                                   : LCS(i, j + 1);
  size_t i = 0, j = 0;
  while (i < n && j < m) {
    if (same_token(a, p + i, b, p + j)) /* in the LCS: LCS(i + 1, j + 1) + 1 */
      i++, j++;
    else if (LCS(i + 1, j) >= LCS(i, j + 1))
      a->differs[p + i++] = true;
    else
      b->differs[p + j++] = true;
  }
  for (; i < n; i++)
    a->differs[p + i] = true;
  for (; j < m; j++)
    b->differs[p + j] = true;
#undef LCS
  free(lcs);
  join_differences(a, b);
}

/* A guard's code, each run of differing tokens in a <mark>. */
static void marked_code(tl_buf *h, const code_tokens *t) {
  tl_buf_puts(h, "<code>");
  for (size_t i = 0; i < t->count;) {
    size_t j = i;
    while (j < t->count && t->differs[j] == t->differs[i])
      j++;
    tl_str run = {t->code.ptr + t->start[i], t->start[j] - t->start[i]};
    if (t->differs[i])
      tl_buf_puts(h, "<mark>");
    tl_html_escape(h, run);
    if (t->differs[i])
      tl_buf_puts(h, "</mark>");
    i = j;
  }
  tl_buf_puts(h, "</code>");
}

static void free_tokens(code_tokens *t) {
  free(t->start);
  free(t->differs);
}

static void guards_table(tl_buf *h, const cJSON *guards) {
  tl_buf_puts(h, "<h2>Guards that differ</h2>\n");
  if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(guards, "available"))) {
    tl_buf_puts(h, "<p class=\"note\">One of the compiles logged no guards "
                   "(dynamo_cpp_guards_str).</p>\n");
    return;
  }
  const cJSON *changes = cJSON_GetObjectItemCaseSensitive(guards, "changes");
  tl_buf_printf(h,
                "<p>%.0f guards before, %.0f after; %d differ (the same kind "
                "and code on the same source is the same guard).</p>\n",
                tl_json_get_num(guards, "before_count"),
                tl_json_get_num(guards, "after_count"),
                cJSON_GetArraySize(changes));
  if (!cJSON_GetArraySize(changes))
    return;
  tl_buf_puts(h, "<table class=\"diff guards\">\n<tr><th></th><th>kind</th>"
                 "<th>source</th><th>before</th><th>after</th>"
                 "<th>user line</th></tr>\n");
  const cJSON *c;
  cJSON_ArrayForEach(c, changes) {
    tl_buf_puts(h, "<tr class=\"");
    esc(h, tl_json_get_str(c, "change"));
    tl_buf_puts(h, "\"><td>");
    esc(h, tl_json_get_str(c, "change"));
    tl_buf_puts(h, "</td><td>");
    esc(h, tl_json_get_str(c, "kind"));
    if (*tl_json_get_str(c, "shape_change")) {
      tl_buf_puts(h, "<br><span class=\"shape\">");
      esc(h, tl_json_get_str(c, "shape_change"));
      tl_buf_puts(h, "</span>");
    }
    tl_buf_puts(h, "</td><td><code>");
    esc(h, tl_json_get_str(c, "source"));
    /* A changed guard's two codes with what differs marked; an added or
     * removed guard's code as it is. */
    code_tokens before, after;
    cut_tokens(&before, tl_str_from(tl_json_get_str(c, "before")));
    cut_tokens(&after, tl_str_from(tl_json_get_str(c, "after")));
    if (before.count && after.count)
      mark_differences(&before, &after);
    tl_buf_puts(h, "</code></td><td>");
    marked_code(h, &before);
    tl_buf_puts(h, "</td><td>");
    marked_code(h, &after);
    free_tokens(&before);
    free_tokens(&after);
    tl_buf_puts(h, "</td><td class=\"note\">");
    esc(h, tl_json_get_str(c, "where"));
    tl_buf_puts(h, "</td></tr>\n");
  }
  tl_buf_puts(h, "</table>\n");
}

/* One side of a node row: its line, linked to the provenance page when
 * there is one, and its statement. */
static void side_cell(tl_buf *h, const cJSON *side, const char *page,
                      const char *panel) {
  tl_buf_puts(h, "<td>");
  if (cJSON_IsObject(side)) {
    int line = (int)tl_json_get_num(side, "line");
    if (page) {
      tl_buf_puts(h, "<a class=\"num\" href=\"");
      tl_url_path(h, page);
      tl_buf_printf(h, ".html#%s=%d\">%d</a> ", panel, line, line);
    } else {
      tl_buf_printf(h, "<span class=\"num\">%d</span> ", line);
    }
    tl_buf_puts(h, "<code>");
    tl_html_escape_cut(h, tl_str_from(tl_json_get_str(side, "text")),
                       TL_HTML_SHOWN_MAX);
    tl_buf_puts(h, "</code>");
  }
  tl_buf_puts(h, "</td>");
}

static void graph_section(tl_buf *h, const char *title, const cJSON *g,
                          const char *page_a, const char *page_b,
                          const char *panel) {
  tl_buf_printf(h, "<h2>%s</h2>\n", title);
  if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "available"))) {
    tl_buf_puts(h, "<p class=\"note\">Not logged for both compiles.</p>\n");
    return;
  }
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(g, "summary");
  tl_buf_printf(
      h,
      "<p class=\"diff-summary\">%.0f nodes the same, %.0f "
      "renamed, %.0f changed, %.0f added, %.0f removed. Nodes are "
      "matched by what they are, in order: their op, then their user "
      "source line, their arguments' types and their type; a node is "
      "the same when its type and arguments are (other names alone are "
      "a rename).</p>\n",
      tl_json_get_num(s, "same"), tl_json_get_num(s, "renamed"),
      tl_json_get_num(s, "changed"), tl_json_get_num(s, "added"),
      tl_json_get_num(s, "removed"));
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "too_many_edits")))
    tl_buf_puts(h, "<p class=\"note\">The graphs differ in too many places "
                   "to match node by node: the middle is shown as removed "
                   "and added.</p>\n");
  const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(g, "nodes"), *r;
  tl_buf_puts(h, "<table class=\"diff\">\n<tr><th></th><th>before</th>"
                 "<th>after</th></tr>\n");
  size_t hidden = 0;
  cJSON_ArrayForEach(r, nodes) {
    const char *change = tl_json_get_str(r, "change");
    bool renamed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "renamed"));
    if (strcmp(change, "same") == 0 && !renamed) {
      hidden++;
      continue;
    }
    tl_buf_puts(h, "<tr class=\"");
    esc(h, change);
    tl_buf_puts(h, "\"><td>");
    esc(h, renamed && strcmp(change, "same") == 0 ? "renamed" : change);
    if (strcmp(change, "changed") == 0) {
      bool type =
          cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "type_changed"));
      bool args =
          cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "args_changed"));
      tl_buf_puts(h, "<br><span class=\"note\">");
      if (type) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(r, "before");
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(r, "after");
        const char *words = tl_json_get_str(r, "type_change");
        if (*words) {
          tl_buf_puts(h, "<span class=\"shape\">");
          esc(h, words);
          tl_buf_puts(h, "</span>: ");
        }
        tl_buf_puts(h, "type <code>");
        esc(h, tl_json_get_str(b, "type"));
        tl_buf_puts(h, "</code> &rarr; <code>");
        esc(h, tl_json_get_str(a, "type"));
        tl_buf_puts(h, "</code>");
      }
      tl_buf_printf(h, "%s%s</span>", type && args ? "; " : "",
                    args ? "arguments" : "");
    }
    tl_buf_puts(h, "</td>");
    side_cell(h, cJSON_GetObjectItemCaseSensitive(r, "before"), page_a, panel);
    side_cell(h, cJSON_GetObjectItemCaseSensitive(r, "after"), page_b, panel);
    tl_buf_puts(h, "</tr>\n");
  }
  tl_buf_puts(h, "</table>\n");
  if (hidden)
    tl_buf_printf(h, "<p class=\"note\">%zu unchanged node%s not shown.</p>\n",
                  hidden, hidden == 1 ? "" : "s");
}

static const cJSON *get(const cJSON *o, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* "3 changed, 1 added, 0 removed (2 renamed, 5 the same)" */
static void counts(tl_buf *h, const cJSON *s) {
  tl_buf_printf(h,
                "%.0f changed, %.0f added, %.0f removed <span class=\"note\">"
                "(%.0f renamed, %.0f the same)</span>",
                tl_json_get_num(s, "changed"), tl_json_get_num(s, "added"),
                tl_json_get_num(s, "removed"), tl_json_get_num(s, "renamed"),
                tl_json_get_num(s, "same"));
}

static const char *graph_title(const char *key) {
  return strcmp(key, "post_grad") == 0            ? "post-grad graph"
         : strcmp(key, "pre_grad") == 0           ? "pre-grad graph"
         : strcmp(key, "backward_post_grad") == 0 ? "backward post-grad graph"
         : strcmp(key, "backward") == 0           ? "AOT backward graph"
                                                  : "Dynamo graph";
}

/* The summary at the top: nodes, kernels, compile time, inputs. */
static void summary_list(tl_buf *h, const cJSON *s) {
  tl_buf_puts(h, "<ul class=\"diff-summary\" id=\"summary\">\n");
  const cJSON *nodes = get(s, "nodes");
  tl_buf_puts(h, "<li><b>Nodes</b>");
  if (cJSON_IsObject(nodes)) {
    tl_buf_printf(h, " (%s): ", graph_title(tl_json_get_str(nodes, "graph")));
    counts(h, nodes);
  } else {
    tl_buf_puts(h, ": no graph logged for both compiles");
  }
  tl_buf_puts(h, "</li>\n<li><b>Kernels</b>: ");
  const cJSON *kernels = get(s, "kernels");
  if (cJSON_IsObject(kernels))
    counts(h, kernels);
  else
    tl_buf_puts(h, "no output code logged for both compiles");
  tl_buf_puts(h, "</li>\n");
  const cJSON *bw = get(s, "backward");
  if (cJSON_IsObject(bw)) {
    const cJSON *bn = get(bw, "nodes"), *bk = get(bw, "kernels");
    tl_buf_printf(h, "<li><b>Backward nodes</b> (%s): ",
                  graph_title(tl_json_get_str(bn, "graph")));
    counts(h, bn);
    tl_buf_puts(h, "</li>\n<li><b>Backward kernels</b>: ");
    if (cJSON_IsObject(bk))
      counts(h, bk);
    else
      tl_buf_puts(h, "no backward output code logged for both compiles");
    tl_buf_puts(h, "</li>\n");
  }
  const cJSON *time = get(s, "compile_time_s");
  if (cJSON_IsObject(time))
    tl_buf_printf(h,
                  "<li><b>Compile time</b> (whole frame): %.2f s &rarr; "
                  "%.2f s (%+.2f s)</li>\n",
                  tl_json_get_num(time, "before"),
                  tl_json_get_num(time, "after"),
                  tl_json_get_num(time, "delta"));
  const cJSON *in;
  cJSON_ArrayForEach(in, get(s, "inputs")) {
    tl_buf_puts(h, "<li><b>Input</b> <code>");
    esc(h, tl_json_get_str(in, "name"));
    tl_buf_puts(h, "</code>: <span class=\"shape\">");
    esc(h, tl_json_get_str(in, "words"));
    tl_buf_puts(h, "</span> <span class=\"note\">(<code>");
    esc(h, tl_json_get_str(in, "before"));
    tl_buf_puts(h, "</code> &rarr; <code>");
    esc(h, tl_json_get_str(in, "after"));
    tl_buf_puts(h, "</code>)</span></li>\n");
  }
  tl_buf_puts(h, "</ul>\n");
}

/* One side of a kernel row: its name, linked to the kernel selected on the
 * compile's provenance page when there is one, and its post-grad nodes. */
static void kernel_cell(tl_buf *h, const cJSON *k, const char *page) {
  tl_buf_puts(h, "<td>");
  if (cJSON_IsObject(k)) {
    if (page) {
      tl_buf_puts(h, "<a class=\"kernel\" href=\"");
      tl_url_path(h, page);
      tl_buf_puts(h, ".html#kernel=");
      tl_url_fragment_value(h, tl_json_get_str(k, "key"));
      tl_buf_puts(h, "\">");
    }
    tl_buf_puts(h, "<code>");
    esc(h, tl_json_get_str(k, "name"));
    tl_buf_puts(h, "</code>");
    if (page)
      tl_buf_puts(h, "</a>");
    const cJSON *nodes = get(k, "post_nodes"), *n;
    if (cJSON_GetArraySize(nodes)) {
      tl_buf_puts(h, "<br><span class=\"note\">from ");
      bool first = true;
      cJSON_ArrayForEach(n, nodes) {
        if (!first)
          tl_buf_puts(h, ", ");
        first = false;
        esc(h, cJSON_IsString(n) ? n->valuestring : "");
      }
      tl_buf_puts(h, "</span>");
    }
  }
  tl_buf_puts(h, "</td>");
}

/* A kernel's code line by line: removed lines `-`, added `+`, a few
 * unchanged around them, each with its lines in the two files; one block
 * per line (report.css), so no newline between them. */
static void code_diff(tl_buf *h, const cJSON *d, const char *summary) {
  const cJSON *lines = get(d, "lines"), *l;
  if (!cJSON_GetArraySize(lines))
    return;
  tl_buf_printf(h, "<details class=\"code-diff\"><summary>%s</summary><pre>",
                summary);
  cJSON_ArrayForEach(l, lines) {
    const char *op = tl_json_get_str(l, "op");
    if (strcmp(op, "gap") == 0) {
      tl_buf_puts(h, "<span class=\"gap\">\u2026</span>");
      continue;
    }
    bool removed = strcmp(op, "removed") == 0, added = strcmp(op, "added") == 0;
    tl_buf_printf(h, "<span class=\"%s\">", op);
    if (cJSON_IsNumber(get(l, "before")))
      tl_buf_printf(h, "%5.0f ", tl_json_get_num(l, "before"));
    else
      tl_buf_puts(h, "      ");
    if (cJSON_IsNumber(get(l, "after")))
      tl_buf_printf(h, "%5.0f ", tl_json_get_num(l, "after"));
    else
      tl_buf_puts(h, "      ");
    tl_buf_puts(h, removed ? "- " : added ? "+ " : "  ");
    tl_html_escape_cut(h, tl_str_from(tl_json_get_str(l, "text")),
                       TL_HTML_SHOWN_MAX);
    tl_buf_puts(h, "</span>");
  }
  if (cJSON_IsTrue(get(d, "cut")))
    tl_buf_puts(h, "<span class=\"gap\">(more lines differ: see the "
                   "provenance pages)</span>");
  tl_buf_puts(h, "</pre></details>");
}

/* What differs in a paired kernel: fused ops, nodes, code. */
static void kernel_changes(tl_buf *h, const cJSON *r) {
  const cJSON *b = get(r, "before"), *a = get(r, "after");
  bool any = false;
  if (cJSON_IsTrue(get(r, "ops_changed"))) {
    tl_buf_puts(h, "fused ops <code>");
    esc(h, tl_json_get_str(b, "fused_ops"));
    tl_buf_puts(h, "</code> &rarr; <code>");
    esc(h, tl_json_get_str(a, "fused_ops"));
    tl_buf_puts(h, "</code>");
    any = true;
  }
  if (cJSON_IsTrue(get(r, "nodes_changed"))) {
    tl_buf_puts(h, any ? "; source nodes" : "source nodes");
    any = true;
  }
  const cJSON *c = get(r, "code_difference");
  if (cJSON_IsObject(c)) {
    tl_buf_printf(h, "%scode, first at lines %.0f / %.0f:<br><code>",
                  any ? "; " : "", tl_json_get_num(c, "before_line"),
                  tl_json_get_num(c, "after_line"));
    tl_html_escape_cut(h,
                       tl_str_trim(tl_str_from(tl_json_get_str(c, "before"))),
                       TL_HTML_SHOWN_MAX);
    tl_buf_puts(h, "</code><br>&rarr; <code>");
    tl_html_escape_cut(h, tl_str_trim(tl_str_from(tl_json_get_str(c, "after"))),
                       TL_HTML_SHOWN_MAX);
    tl_buf_puts(h, "</code>");
    code_diff(h, get(r, "code_diff"), "the code, line by line");
  }
}

/* The statements outside the kernels and the entry function that
 * differ, each changed one line by line. */
static void other_code(tl_buf *h, const cJSON *o) {
  if (!cJSON_IsObject(o))
    return;
  const cJSON *s = get(o, "summary");
  tl_buf_printf(h,
                "<p class=\"other-code\">The rest of the code (outside the "
                "kernels and the entry function, statement by statement): "
                "%.0f changed, %.0f added, %.0f removed <span "
                "class=\"note\">(%.0f the same; renumbered kernels and "
                "buffers read as one)</span></p>\n",
                tl_json_get_num(s, "changed"), tl_json_get_num(s, "added"),
                tl_json_get_num(s, "removed"), tl_json_get_num(s, "same"));
  const cJSON *units = get(o, "units"), *u;
  if (!cJSON_GetArraySize(units))
    return;
  tl_buf_puts(h, "<table class=\"diff\">\n<tr><th></th><th>before</th>"
                 "<th>after</th></tr>\n");
  cJSON_ArrayForEach(u, units) {
    const char *change = tl_json_get_str(u, "change");
    tl_buf_puts(h, "<tr class=\"");
    esc(h, change);
    tl_buf_puts(h, "\"><td>");
    esc(h, change);
    tl_buf_puts(h, "</td>");
    for (int side = 0; side < 2; side++) {
      const cJSON *x = get(u, side ? "after" : "before");
      tl_buf_puts(h, "<td>");
      if (cJSON_IsObject(x)) {
        tl_buf_printf(h, "<span class=\"line\">%.0f</span> <code>",
                      tl_json_get_num(x, "first"));
        tl_html_escape_cut(h, tl_str_from(tl_json_get_str(x, "head")),
                           TL_HTML_SHOWN_MAX);
        tl_buf_puts(h, "</code>");
      }
      tl_buf_puts(h, "</td>");
    }
    tl_buf_puts(h, "</tr>\n");
    if (cJSON_IsObject(get(u, "code_diff"))) {
      tl_buf_puts(h, "<tr><td></td><td colspan=\"2\">");
      code_diff(h, get(u, "code_diff"), "the statement, line by line");
      tl_buf_puts(h, "</td></tr>\n");
    }
  }
  tl_buf_puts(h, "</table>\n");
}

static void kernels_section(tl_buf *h, const cJSON *k, const char *page_a,
                            const char *page_b, const char *title,
                            const char *id) {
  tl_buf_printf(h, "<h2 id=\"%s\">%s</h2>\n", id, title);
  if (!cJSON_IsTrue(get(k, "available"))) {
    tl_buf_puts(h, "<p class=\"note\">No output code logged for both "
                   "compiles.</p>\n");
    return;
  }
  const cJSON *by = get(k, "matched_by");
  bool nodes = strcmp(tl_json_get_str(by, "before"), "nodes") == 0 &&
               strcmp(tl_json_get_str(by, "after"), "nodes") == 0;
  tl_buf_puts(h, "<p class=\"diff-summary\">");
  counts(h, get(k, "summary"));
  tl_buf_puts(h, nodes ? ". Kernels are matched by the post-grad nodes they "
                         "come from (the node mappings), so a renumbered "
                         "kernel is no change.</p>\n"
                       : ". A compile logged no node mappings: kernels are "
                         "matched by their fused ops, in order.</p>\n");
  tl_buf_puts(h, "<table class=\"diff\">\n<tr><th></th><th>before</th>"
                 "<th>after</th><th>what differs</th></tr>\n");
  size_t hidden = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, get(k, "kernels")) {
    const char *change = tl_json_get_str(r, "change");
    bool renamed = cJSON_IsTrue(get(r, "renamed"));
    if (strcmp(change, "same") == 0 && !renamed) {
      hidden++;
      continue;
    }
    tl_buf_puts(h, "<tr class=\"");
    esc(h, change);
    tl_buf_puts(h, "\"><td>");
    esc(h, strcmp(change, "same") == 0 ? "renamed" : change);
    tl_buf_puts(h, "</td>");
    kernel_cell(h, get(r, "before"), page_a);
    kernel_cell(h, get(r, "after"), page_b);
    tl_buf_puts(h, "<td class=\"note\">");
    kernel_changes(h, r);
    tl_buf_puts(h, "</td></tr>\n");
  }
  tl_buf_puts(h, "</table>\n");
  if (hidden)
    tl_buf_printf(h,
                  "<p class=\"note\">%zu unchanged kernel%s not shown.</p>\n",
                  hidden, hidden == 1 ? "" : "s");
  const cJSON *entry = get(k, "entry_code");
  if (cJSON_IsObject(entry)) {
    int changes = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, get(entry, "lines")) {
      changes += strcmp(tl_json_get_str(l, "op"), "added") == 0 ||
                 strcmp(tl_json_get_str(l, "op"), "removed") == 0;
    }
    tl_buf_printf(h,
                  "<p id=\"entry\">The entry function (the calls of the "
                  "kernels): %d line%s removed or added, renumbered kernels "
                  "and buffers read as one.</p>\n",
                  changes, changes == 1 ? "" : "s");
    if (changes)
      code_diff(h, entry, "the entry function, line by line");
  }
  other_code(h, get(k, "other_code"));
}

static void metrics_section(tl_buf *h, const cJSON *m) {
  tl_buf_puts(h, "<h2 id=\"metrics\">Compilation metrics</h2>\n");
  if (!cJSON_IsTrue(get(m, "available"))) {
    tl_buf_puts(h, "<p class=\"note\">One of the compiles logged no "
                   "compilation_metrics.</p>\n");
    return;
  }
  tl_buf_puts(h, "<table class=\"diff\">\n<tr><th>metric</th><th>before</th>"
                 "<th>after</th><th>difference</th></tr>\n");
  const cJSON *r;
  cJSON_ArrayForEach(r, get(m, "metrics")) {
    tl_buf_puts(h, "<tr><td><code>");
    esc(h, tl_json_get_str(r, "name"));
    tl_buf_printf(h, "</code></td><td>%g</td><td>%g</td><td>%+g</td></tr>\n",
                  tl_json_get_num(r, "before"), tl_json_get_num(r, "after"),
                  tl_json_get_num(r, "delta"));
  }
  tl_buf_puts(h, "</table>\n");
}

void tl_compile_diff_body(tl_buf *h, const cJSON *diff, const char *page_a,
                          const char *page_b, const char *bw_page_a,
                          const char *bw_page_b) {
  summary_list(h, cJSON_GetObjectItemCaseSensitive(diff, "summary"));
  const cJSON *reasons = cJSON_GetObjectItemCaseSensitive(diff, "reasons");
  if (reasons) {
    tl_buf_puts(h, "<h2>Why it compiled again</h2>\n");
    reasons_list(h, reasons);
  }
  guards_table(h, cJSON_GetObjectItemCaseSensitive(diff, "guards"));
  const cJSON *graphs = cJSON_GetObjectItemCaseSensitive(diff, "graphs");
  graph_section(h, "Dynamo graph",
                cJSON_GetObjectItemCaseSensitive(graphs, "dynamo"), NULL, NULL,
                "");
  graph_section(h, "Pre-grad graph",
                cJSON_GetObjectItemCaseSensitive(graphs, "pre_grad"), page_a,
                page_b, "pre");
  graph_section(h, "Post-grad graph",
                cJSON_GetObjectItemCaseSensitive(graphs, "post_grad"), page_a,
                page_b, "post");
  kernels_section(h, cJSON_GetObjectItemCaseSensitive(diff, "kernels"), page_a,
                  page_b, "Kernels", "kernels");
  /* A training compile's backward, when either compile logged one. */
  const cJSON *bw = get(graphs, "backward");
  const cJSON *bw_post = get(graphs, "backward_post_grad");
  if (cJSON_IsString(get(bw, "before")) || cJSON_IsString(get(bw, "after")) ||
      cJSON_IsString(get(bw_post, "before")) ||
      cJSON_IsString(get(bw_post, "after"))) {
    graph_section(h, "AOT backward graph", bw, NULL, NULL, "");
    graph_section(h, "Backward post-grad graph", bw_post, bw_page_a, bw_page_b,
                  "post");
    kernels_section(h, get(diff, "backward_kernels"), bw_page_a, bw_page_b,
                    "Backward kernels", "backward-kernels");
  }
  metrics_section(h, cJSON_GetObjectItemCaseSensitive(diff, "metrics"));
}

static void compile_link(tl_buf *h, const tl_compile_files *c) {
  tl_buf_puts(h, "<a href=\"index.html#");
  tl_url_path(h, c->home->dir_name);
  tl_buf_puts(h, "\">");
  esc(h, c->display);
  tl_buf_puts(h, "</a>");
}

static void write_page(tl_store *store, const tl_compile_files *a,
                       const tl_compile_files *b, const cJSON *diff,
                       const char *stem, tl_view_page_fn view_page, void *ctx) {
  tl_buf h, title;
  tl_buf_init(&h);
  tl_buf_init(&title);
  tl_buf_printf(&title, "Recompile %s to %s", a->display, b->display);
  tl_html_page_begin(&h, title.data, "");
  tl_buf_puts(&h, "<p><a href=\"index.html#recompiles\">&larr; index</a> · "
                  "<a href=\"");
  tl_buf_printf(&h, "%s.json", stem);
  tl_buf_puts(&h, "\">this diff as JSON</a> · <a href=\"help.html#"
                  "recompiles\">how to read it</a></p>\n<h1>");
  esc(&h, title.data);
  tl_buf_puts(&h, "</h1>\n<p>Frame ");
  tl_buf_printf(&h, "%lld", b->frame);
  if (b->session > 1)
    tl_buf_printf(&h, " of session %zu (after the ids started again)",
                  b->session);
  tl_buf_puts(&h, ": ");
  compile_link(&h, a);
  tl_buf_puts(&h, " then ");
  compile_link(&h, b);
  tl_buf_puts(&h, ".</p>\n");
  const char *pa =
      view_page && a->post_grad ? view_page(ctx, a->post_grad) : NULL;
  const char *pb =
      view_page && b->post_grad ? view_page(ctx, b->post_grad) : NULL;
  const char *bw_pa =
      view_page && a->bw_post_grad ? view_page(ctx, a->bw_post_grad) : NULL;
  const char *bw_pb =
      view_page && b->bw_post_grad ? view_page(ctx, b->bw_post_grad) : NULL;
  tl_compile_diff_body(&h, diff, pa, pb, bw_pa, bw_pb);
  tl_html_page_end(&h);
  tl_buf name;
  tl_buf_init(&name);
  tl_buf_printf(&name, "%s.html", stem);
  tl_store_write(store, name.data, h.data, h.len);
  tl_buf_free(&name);
  tl_buf_free(&h);
  tl_buf_free(&title);
}

static void write_json(tl_store *store, const cJSON *diff, const char *stem) {
  tl_buf text, name;
  tl_buf_init(&text);
  tl_buf_init(&name);
  tl_json_print_tree(&text, diff);
  tl_buf_printf(&name, "%s.json", stem);
  tl_store_write(store, name.data, text.data, text.len);
  tl_buf_free(&text);
  tl_buf_free(&name);
}

void tl_recompile_pages_write(tl_store *store, tl_buf *section,
                              tl_view_page_fn view_page, void *ctx,
                              struct tl_analysis_cache *cache) {
  tl_recompiles r;
  tl_recompiles_find(store, &r);
  /* The section when a frame recompiled, or when the log holds several
   * sessions (to say so, as the help promises). */
  if (!r.frames.count && r.sessions < 2) {
    tl_recompiles_free(&r);
    return;
  }
  tl_buf_puts(section, "<section id=\"recompiles\">\n<h2>Recompiles</h2>\n");
  if (!r.frames.count) {
    tl_buf_printf(section,
                  "<p>This log holds %zu sessions (the frame and compile ids "
                  "started again: <code>torch._dynamo.reset()</code>, or "
                  "logs appended), and no frame compiled more than once "
                  "within its session (<a href=\"help.html#recompiles\">how "
                  "sessions are read</a>).</p>\n</section>\n",
                  r.sessions);
    tl_recompiles_free(&r);
    return;
  }
  tl_buf_puts(section,
              "<p>Frames compiled more than once: each later compile, why "
              "Dynamo compiled it again (the guards of the earlier compiles "
              "that failed, in words) and what changed (<a href=\"help.html#"
              "recompiles\">how to read it</a>).</p>\n");
  if (r.sessions > 1)
    tl_buf_printf(section,
                  "<p>This log holds %zu sessions: the frame and compile "
                  "ids started again (<code>torch._dynamo.reset()</code>, "
                  "or logs appended), so each session's compiles are "
                  "compared among themselves; a later session's are marked "
                  "with its number (<code>[0/0] #2</code>).</p>\n",
                  r.sessions);
  tl_compile_reader files;
  tl_compile_reader_init(&files, store->out_dir);
  tl_buf_puts(section, "<ul>\n");
  for (size_t f = 0; f < r.frames.count; f++) {
    const tl_recompiled_frame *fr = &r.frames.items[f];
    const tl_compile_files *c0 = &r.compiles.items[fr->first];
    tl_buf_printf(section, "<li>Frame %lld", c0->frame);
    if (c0->session > 1)
      tl_buf_printf(section, " #%zu", c0->session);
    tl_buf_puts(section, ": ");
    for (size_t k = 0; k < fr->count; k++) {
      if (k)
        tl_buf_puts(section, " &rarr; ");
      compile_link(section, &r.compiles.items[fr->first + k]);
    }
    tl_buf_puts(section, "\n<ul>\n");
    for (size_t k = 1; k < fr->count; k++) {
      const tl_compile_files *a = &r.compiles.items[fr->first + k - 1];
      const tl_compile_files *b = &r.compiles.items[fr->first + k];
      char stem[256];
      tl_recompile_stem(a, b, stem, sizeof stem);
      cJSON *diff = tl_recompile_diff_files(&files, a, b, cache);
      write_json(store, diff, stem);
      write_page(store, a, b, diff, stem, view_page, ctx);
      tl_buf_puts(section, "<li>");
      esc(section, b->display);
      tl_buf_puts(section, ": ");
      const cJSON *reasons = cJSON_GetObjectItemCaseSensitive(diff, "reasons");
      const cJSON *reason;
      bool any = false;
      cJSON_ArrayForEach(reason, reasons) {
        if (any)
          tl_buf_puts(section, "; ");
        esc(section, tl_json_get_str(reason, "words"));
        any = true;
      }
      if (!any)
        tl_buf_puts(section, "no recompile reasons logged");
      const cJSON *post = cJSON_GetObjectItemCaseSensitive(
          cJSON_GetObjectItemCaseSensitive(diff, "graphs"), "post_grad");
      const cJSON *sum = cJSON_GetObjectItemCaseSensitive(post, "summary");
      const cJSON *kernels = get(get(diff, "summary"), "kernels");
      tl_buf_puts(section, ". <a href=\"");
      tl_url_path(section, stem);
      tl_buf_puts(section, ".html\">What changed</a>");
      if (sum || cJSON_IsObject(kernels)) {
        tl_buf_puts(section, " <span class=\"note\">(");
        if (sum)
          tl_buf_printf(
              section, "post-grad: %.0f changed, %.0f added, %.0f removed%s",
              tl_json_get_num(sum, "changed"), tl_json_get_num(sum, "added"),
              tl_json_get_num(sum, "removed"),
              cJSON_IsObject(kernels) ? "; " : "");
        if (cJSON_IsObject(kernels))
          tl_buf_printf(section,
                        "kernels: %.0f changed, %.0f added, %.0f removed",
                        tl_json_get_num(kernels, "changed"),
                        tl_json_get_num(kernels, "added"),
                        tl_json_get_num(kernels, "removed"));
        tl_buf_puts(section, ")</span>");
      }
      tl_buf_puts(section, "</li>\n");
      cJSON_Delete(diff);
    }
    tl_buf_puts(section, "</ul></li>\n");
  }
  tl_buf_puts(section, "</ul>\n</section>\n");
  tl_compile_reader_free(&files);
  tl_recompiles_free(&r);
}
#else
void tl_recompile_pages_write(tl_store *store, tl_buf *section,
                              tl_view_page_fn view_page, void *ctx,
                              struct tl_analysis_cache *cache) {
  (void)store;
  (void)section;
  (void)view_page;
  (void)ctx;
  (void)cache;
}
#endif
