/* page_check.h: invariants of every HTML page tlparse writes, for harnesses.
 *
 * Outside <script> and <style> bodies, every '<' opens a tag from the short
 * list of elements our pages use (so trace text can never add an element);
 * every href is http(s) or relative (never javascript:, data:, ...); and a
 * page holds exactly the number of <script> elements its kind is built with.
 */
#ifndef TL_FUZZ_PAGE_CHECK_H
#define TL_FUZZ_PAGE_CHECK_H

#include <ctype.h>
#include <strings.h>

#include "fuzz.h"

static const char *const PAGE_TAGS[] = {
    "!doctype", "a", "abbr", "b", "base", "blockquote", "body", "br", "caption",
    "code", "dd", "details", "div", "dl", "dt", "em", "figcaption", "figure",
    "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hr", "html", "i",
    "kbd", "label", "li", "link", "mark", "meta", "nav", "noscript", "ol", "p",
    "pre", "section", "small", "span", "strong", "sub", "summary", "sup",
    "table", "tbody", "td", "th", "thead", "title", "tr", "ul",
    /* the provenance page's first paint (provpage_paint.c): its disabled
     * search box and its panels' tabs and buttons */
    "input", "button",
    /* the inline SVG bar charts of "where the time goes" (profile_join.c) */
    "svg", "g", "rect", "text"};

static inline bool page_tag_allowed(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof PAGE_TAGS / sizeof *PAGE_TAGS; i++)
    if (strlen(PAGE_TAGS[i]) == len &&
        strncasecmp(PAGE_TAGS[i], name, len) == 0)
      return true;
  return false;
}

/* Whether an href value (raw attribute text) is http(s) or relative. */
static inline bool page_href_safe(const char *v, size_t len) {
  if ((len >= 7 && strncasecmp(v, "http://", 7) == 0) ||
      (len >= 8 && strncasecmp(v, "https://", 8) == 0))
    return true;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)v[i];
    if (c == '/' || c == '?' || c == '#')
      return true;
    if (c == ':' || c < 0x21)
      return false;
  }
  return true;
}

/* Finds `</name` case-insensitively from `from`; returns its offset or len. */
static inline size_t page_find_end(tl_str page, size_t from, const char *name) {
  size_t n = strlen(name);
  for (size_t i = from; i + n + 2 <= page.len; i++)
    if (page.ptr[i] == '<' && page.ptr[i + 1] == '/' &&
        strncasecmp(page.ptr + i + 2, name, n) == 0)
      return i;
  return page.len;
}

/* Checks one page; `scripts` is the number of <script> elements it must have.
 * Aborts (FUZZ_CHECK) on a violation; `what` names the page in the message. */
static inline void page_check(tl_str page, size_t scripts, const char *what) {
  size_t script_count = 0;
  for (size_t i = 0; i < page.len; i++) {
    if (page.ptr[i] != '<')
      continue;
    size_t p = i + 1;
    bool closing = p < page.len && page.ptr[p] == '/';
    if (closing)
      p++;
    size_t name_start = p;
    while (p < page.len && (isalnum((unsigned char)page.ptr[p]) ||
                            page.ptr[p] == '!' || page.ptr[p] == '-'))
      p++;
    size_t name_len = p - name_start;
    const char *name = page.ptr + name_start;
    bool raw_name = (name_len == 6 && strncasecmp(name, "script", 6) == 0) ||
                    (name_len == 5 && strncasecmp(name, "style", 5) == 0);
    bool raw_text = raw_name && !closing;
    if (!raw_name && !page_tag_allowed(name, name_len)) {
      fprintf(stderr, "%s: unexpected markup at byte %zu: %.40s\n", what, i,
              page.ptr + i);
      FUZZ_CHECK(!"trace text became markup");
    }
    /* The tag's attributes: every href must be safe. */
    size_t tag_end = p;
    while (tag_end < page.len && page.ptr[tag_end] != '>')
      tag_end++;
    for (size_t k = p; k + 6 <= tag_end; k++) {
      if (strncasecmp(page.ptr + k, "href=\"", 6) != 0)
        continue;
      size_t v = k + 6, e = v;
      while (e < tag_end && page.ptr[e] != '"')
        e++;
      if (!page_href_safe(page.ptr + v, e - v)) {
        fprintf(stderr, "%s: unsafe href at byte %zu: %.60s\n", what, k,
                page.ptr + k);
        FUZZ_CHECK(!"unsafe href");
      }
    }
    if (raw_text) {
      if (name_len == 6)
        script_count++;
      size_t end =
          page_find_end(page, tag_end, name_len == 6 ? "script" : "style");
      i = end ? end - 1 : end;
    }
  }
  if (script_count != scripts) {
    fprintf(stderr, "%s: %zu <script> elements, expected %zu\n", what,
            script_count, scripts);
    FUZZ_CHECK(!"wrong number of scripts");
  }
}

#endif
