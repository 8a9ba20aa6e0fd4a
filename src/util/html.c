/* html.c: escaping for HTML text, attributes, embedded JSON and URLs. */
#include "util/html.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/utf8.h"

static void escape_valid(tl_buf *out, tl_str text);

void tl_html_escape(tl_buf *out, tl_str text) {
  if (text.len == 0) /* ptr may be NULL: no arithmetic on it */
    return;
  if (tl_utf8_valid_prefix(text) == text.len) {
    escape_valid(out, text);
    return;
  }
  /* A page is UTF-8: invalid sequences show as U+FFFD (the files beside
   * the pages keep the bytes). */
  tl_buf fixed;
  tl_buf_init(&fixed);
  tl_utf8_repair(&fixed, text);
  escape_valid(out, tl_buf_str(&fixed));
  tl_buf_free(&fixed);
}

/* The bytes escape_valid replaces. */
static const bool html_special[256] = {
    [0] = 1, ['&'] = 1, ['<'] = 1, ['>'] = 1, ['"'] = 1, ['\''] = 1,
};

static void escape_valid(tl_buf *out, tl_str text) {
  size_t start = 0;
  for (size_t i = 0; i < text.len; i++) {
    while (i < text.len && !html_special[(unsigned char)text.ptr[i]])
      i++;
    if (i == text.len)
      break;
    const char *rep = NULL;
    switch (text.ptr[i]) {
    case '&':
      rep = "&amp;";
      break;
    case '<':
      rep = "&lt;";
      break;
    case '>':
      rep = "&gt;";
      break;
    case '"':
      rep = "&quot;";
      break;
    case '\'':
      rep = "&#39;";
      break;
    case '\0':
      rep = "\xEF\xBF\xBD";
      break; /* U+FFFD: NUL never reaches a page */
    default:
      continue;
    }
    tl_buf_append(out, text.ptr + start, i - start);
    tl_buf_puts(out, rep);
    start = i + 1;
  }
  tl_buf_append(out, text.ptr + start, text.len - start);
}

void tl_html_escape_cstr(tl_buf *out, const char *text) {
  tl_html_escape(out, tl_str_from(text));
}

void tl_html_escape_cut(tl_buf *out, tl_str text, size_t limit) {
  if (text.len <= limit) {
    tl_html_escape(out, text);
    return;
  }
  size_t keep = limit;
  /* Back up over UTF-8 continuation bytes to a character's start. */
  while (keep > 0 && ((unsigned char)text.ptr[keep] & 0xC0) == 0x80)
    keep--;
  tl_html_escape(out, (tl_str){text.ptr, keep});
  tl_buf_printf(out, "<span class=\"cut\">\xE2\x80\xA6(%zu bytes more)</span>",
                text.len - keep);
}

void tl_html_script_json(tl_buf *out, tl_str json) {
  if (json.len == 0) /* ptr may be NULL: no arithmetic on it */
    return;
  size_t start = 0;
  for (size_t i = 0; i < json.len; i++) {
    unsigned char c = (unsigned char)json.ptr[i];
    const char *rep = NULL;
    size_t skip = 1;
    if (c == '<')
      rep = "\\u003c";
    else if (c == '>')
      rep = "\\u003e";
    else if (c == '&')
      rep = "\\u0026";
    else if (c == 0xE2 && i + 2 < json.len &&
             (unsigned char)json.ptr[i + 1] == 0x80 &&
             ((unsigned char)json.ptr[i + 2] == 0xA8 ||
              (unsigned char)json.ptr[i + 2] == 0xA9)) {
      rep = (unsigned char)json.ptr[i + 2] == 0xA8 ? "\\u2028" : "\\u2029";
      skip = 3;
    }
    if (!rep)
      continue;
    tl_buf_append(out, json.ptr + start, i - start);
    tl_buf_puts(out, rep);
    i += skip - 1;
    start = i + 1;
  }
  tl_buf_append(out, json.ptr + start, json.len - start);
}

bool tl_url_is_safe(tl_str url) {
  if (tl_str_starts_with(url, "http://") || tl_str_starts_with(url, "https://"))
    return true;
  /* Relative URL: no scheme before the first '/', '?' or '#'. */
  for (size_t i = 0; i < url.len; i++) {
    char c = url.ptr[i];
    if (c == '/' || c == '?' || c == '#')
      return i > 0 || url.len > 0;
    if (c == ':' || (unsigned char)c < 0x21)
      return false;
  }
  return url.len > 0;
}

/* Bytes a URL path keeps as they are. */
static bool url_path_keeps(unsigned char c) {
  return isalnum(c) || (c && strchr("-_./~", c));
}

void tl_url_path(tl_buf *out, const char *path) {
  static const char hex[] = "0123456789ABCDEF";
  const unsigned char *p = (const unsigned char *)path;
  while (*p) {
    const unsigned char *run = p; /* appended whole: an index page lists
                                     thousands of these */
    while (url_path_keeps(*p))
      p++;
    tl_buf_append(out, run, (size_t)(p - run));
    if (*p) {
      char escaped[3] = {'%', hex[*p >> 4], hex[*p & 15]};
      tl_buf_append(out, escaped, sizeof escaped);
      p++;
    }
  }
}

void tl_url_fragment_value(tl_buf *out, const char *value) {
  for (const unsigned char *c = (const unsigned char *)value; *c; c++) {
    if ((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
        (*c >= '0' && *c <= '9') || strchr("-_.!~*'():", *c))
      tl_buf_putc(out, (char)*c);
    else
      tl_buf_printf(out, "%%%02X", *c);
  }
}

void tl_html_page_begin(tl_buf *out, const char *title,
                        const char *static_prefix) {
  tl_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                   "<meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width\">\n"
                   "<title>");
  tl_html_escape_cstr(out, title);
  tl_buf_puts(out, "</title>\n<link rel=\"stylesheet\" href=\"");
  tl_html_escape_cstr(out, static_prefix);
  tl_buf_puts(out, "static/report.css\">\n</head>\n<body>\n");
}

void tl_html_page_end(tl_buf *out) { tl_buf_puts(out, "</body>\n</html>\n"); }

/* The bytes tl_html_script_json_string looks at: controls, '"', '\\',
 * '<', '>', '&', and 0xE2, which starts U+2028 and U+2029. */
static const bool json_special[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1,
    [0x06] = 1, [0x07] = 1, [0x08] = 1, [0x09] = 1, [0x0A] = 1, [0x0B] = 1,
    [0x0C] = 1, [0x0D] = 1, [0x0E] = 1, [0x0F] = 1, [0x10] = 1, [0x11] = 1,
    [0x12] = 1, [0x13] = 1, [0x14] = 1, [0x15] = 1, [0x16] = 1, [0x17] = 1,
    [0x18] = 1, [0x19] = 1, [0x1A] = 1, [0x1B] = 1, [0x1C] = 1, [0x1D] = 1,
    [0x1E] = 1, [0x1F] = 1, ['"'] = 1,  ['\\'] = 1, ['<'] = 1,  ['>'] = 1,
    ['&'] = 1,  [0xE2] = 1,
};

void tl_html_script_json_string(tl_buf *out, tl_str text) {
  tl_buf_putc(out, '"');
  if (text.len == 0) { /* ptr may be NULL: no arithmetic on it */
    tl_buf_putc(out, '"');
    return;
  }
  size_t start = 0;
  for (size_t i = 0; i < text.len; i++) {
    while (i < text.len && !json_special[(unsigned char)text.ptr[i]])
      i++;
    if (i == text.len)
      break;
    unsigned char c = (unsigned char)text.ptr[i];
    const char *rep;
    size_t skip = 1;
    char esc[7];
    switch (c) {
    case '"':
      rep = "\\\"";
      break;
    case '\\':
      rep = "\\\\";
      break;
    case '\b':
      rep = "\\b";
      break;
    case '\f':
      rep = "\\f";
      break;
    case '\n':
      rep = "\\n";
      break;
    case '\r':
      rep = "\\r";
      break;
    case '\t':
      rep = "\\t";
      break;
    case '\0':
      rep = "\xEF\xBF\xBD";
      break;
    case '<':
      rep = "\\u003c";
      break;
    case '>':
      rep = "\\u003e";
      break;
    case '&':
      rep = "\\u0026";
      break;
    case 0xE2:
      if (i + 2 >= text.len || (unsigned char)text.ptr[i + 1] != 0x80 ||
          ((unsigned char)text.ptr[i + 2] != 0xA8 &&
           (unsigned char)text.ptr[i + 2] != 0xA9))
        continue;
      rep = (unsigned char)text.ptr[i + 2] == 0xA8 ? "\\u2028" : "\\u2029";
      skip = 3;
      break;
    default:
      if (c >= 0x20)
        continue;
      snprintf(esc, sizeof esc, "\\u%04x", c);
      rep = esc;
    }
    tl_buf_append(out, text.ptr + start, i - start);
    tl_buf_puts(out, rep);
    i += skip - 1;
    start = i + 1;
  }
  tl_buf_append(out, text.ptr + start, text.len - start);
  tl_buf_putc(out, '"');
}
