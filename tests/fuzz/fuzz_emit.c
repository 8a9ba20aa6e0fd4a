/* fuzz_emit.c: the ways trace text reaches a page (html.h, fsutil.h's safe
 * names, provpage.h) on any bytes. The input is `text \x1e more`: `text`
 * goes through every escaper and, parsed as JSON, is the view of a
 * highlighter page whose four panels show `more`.
 * Invariants: escaped HTML holds no markup character; script JSON holds no
 * `<`, `>`, `&`, U+2028 or U+2029, and so does tl_html_script_json_string,
 * which parses back to the same bytes (NUL read as U+FFFD) and equals
 * cJSON's printed string made script-safe; a URL tl_url_is_safe accepts
 * has no scheme a browser would run (after the browser's own stripping);
 * safe names and URL paths stay in their alphabets; pages pass page_check,
 * with their texts as JSON strings and deflated (base64 only).
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <strings.h>

#include "fuzz.h"
#include "page_check.h"
#include "util/fsutil.h"
#include "util/html.h"
#ifdef HAVE_tl_page
#include "emit/provpage.h"
#endif

static void check_html_escape(tl_str text) {
  tl_buf out;
  tl_buf_init(&out);
  tl_html_escape(&out, text);
  for (size_t i = 0; i < out.len; i++) {
    char c = out.data[i];
    FUZZ_CHECK(c != '<' && c != '>' && c != '"' && c != '\'' && c != '\0');
    if (c == '&') {
      static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;",
                                         "&#39;"};
      bool known = false;
      for (size_t k = 0; k < 5; k++)
        known |= strncmp(out.data + i, ents[k], strlen(ents[k])) == 0;
      FUZZ_CHECK(known);
    }
  }
  tl_buf_free(&out);
}

/* Script content holds no `<`, `>`, `&`, U+2028 or U+2029. */
static void check_script_safe(const tl_buf *out) {
  for (size_t i = 0; i < out->len; i++) {
    unsigned char c = (unsigned char)out->data[i];
    FUZZ_CHECK(c != '<' && c != '>' && c != '&');
    if (c == 0xE2 && i + 2 < out->len)
      FUZZ_CHECK(!((unsigned char)out->data[i + 1] == 0x80 &&
                   ((unsigned char)out->data[i + 2] == 0xA8 ||
                    (unsigned char)out->data[i + 2] == 0xA9)));
  }
}

static void check_script_json(tl_str text) {
  tl_buf out;
  tl_buf_init(&out);
  tl_html_script_json(&out, text);
  check_script_safe(&out);
  tl_buf_free(&out);
}

/* The string is script-safe and parses back to the text, each NUL byte
 * read as U+FFFD. */
static void check_json_string(tl_str text) {
  tl_buf out, expected;
  tl_buf_init(&out);
  tl_buf_init(&expected);
  tl_html_script_json_string(&out, text);
  check_script_safe(&out);
  for (size_t i = 0; i < text.len; i++)
    if (text.ptr[i])
      tl_buf_putc(&expected, text.ptr[i]);
    else
      tl_buf_puts(&expected, "\xEF\xBF\xBD");
  const char *end = NULL;
  cJSON *parsed = cJSON_ParseWithOpts(out.data, &end, true);
  FUZZ_CHECK(cJSON_IsString(parsed));
  FUZZ_CHECK(strlen(parsed->valuestring) == expected.len &&
             memcmp(parsed->valuestring, expected.data, expected.len) == 0);
  cJSON_Delete(parsed);
  /* Byte for byte what the pages held before: cJSON's printed string, made
   * script-safe by tl_html_script_json. */
  cJSON *str = cJSON_CreateString(expected.data);
  char *printed = cJSON_PrintUnformatted(str);
  tl_buf before;
  tl_buf_init(&before);
  tl_html_script_json(&before, tl_str_from(printed));
  FUZZ_CHECK(before.len == out.len &&
             memcmp(before.data, out.data, out.len) == 0);
  tl_buf_free(&before);
  free(printed);
  cJSON_Delete(str);
  tl_buf_free(&expected);
  tl_buf_free(&out);
}

/* The scheme a browser reads from an href value: leading and trailing C0
 * controls and spaces stripped, tabs and newlines removed anywhere. */
static void check_url(tl_str url) {
  if (!tl_url_is_safe(url))
    return;
  tl_buf clean;
  tl_buf_init(&clean);
  size_t a = 0, b = url.len;
  while (a < b && (unsigned char)url.ptr[a] <= 0x20)
    a++;
  while (b > a && (unsigned char)url.ptr[b - 1] <= 0x20)
    b--;
  for (size_t i = a; i < b; i++)
    if (url.ptr[i] != '\t' && url.ptr[i] != '\n' && url.ptr[i] != '\r')
      tl_buf_putc(&clean, url.ptr[i]);
  size_t i = 0;
  if (clean.len && isalpha((unsigned char)clean.data[0])) {
    while (i < clean.len && (isalnum((unsigned char)clean.data[i]) ||
                             strchr("+.-", clean.data[i])))
      i++;
    if (i < clean.len && clean.data[i] == ':') {
      bool web = (i == 4 && strncasecmp(clean.data, "http", 4) == 0) ||
                 (i == 5 && strncasecmp(clean.data, "https", 5) == 0);
      if (!web)
        fprintf(stderr, "unsafe URL accepted: %.60s\n", clean.data);
      FUZZ_CHECK(web);
    }
  }
  tl_buf_free(&clean);
}

static void check_names(tl_str text) {
  tl_buf out;
  tl_buf_init(&out);
  tl_fs_safe_name(&out, text);
  size_t want = text.len > 200 ? 200 : text.len ? text.len : 1;
  FUZZ_CHECK(out.len == want); /* cut to 200 bytes (fsutil.c) */
  FUZZ_CHECK(out.data[0] != '.');
  for (size_t i = 0; i < out.len; i++)
    FUZZ_CHECK(isalnum((unsigned char)out.data[i]) ||
               strchr("._-", out.data[i]));
  FUZZ_CHECK(strcmp(out.data, "..") != 0);

  tl_buf_clear(&out);
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_append_str(&path, text); /* a C string: up to the first NUL */
  tl_url_path(&out, path.data);
  for (size_t i = 0; i < out.len; i++)
    FUZZ_CHECK(isalnum((unsigned char)out.data[i]) ||
               strchr("-_./~%", out.data[i]));
  tl_buf_free(&path);
  tl_buf_free(&out);
}

static void check_pages(tl_str text, tl_str more) {
  tl_buf title, page;
  tl_buf_init(&title);
  tl_buf_init(&page);
  tl_buf_append_str(&title, text);
  tl_html_page_begin(&page, title.data, "../");
  tl_html_escape(&page, more);
  tl_html_page_end(&page);
  page_check(tl_buf_str(&page), 0, "report page");
#ifdef HAVE_tl_page
  tl_buf_clear(&page);
  cJSON *view = cJSON_ParseWithLength(text.ptr, text.len);
  tl_provpage_texts texts = {more, more, more, more};
  tl_provpage_render(&page, view, more.ptr ? &texts : NULL, title.data,
                     title.data);
  page_check(tl_buf_str(&page), 6, "provenance page");
  /* The same page with every text deflated: still six scripts, and each
   * deflated element holds only base64. */
  tl_buf_clear(&page);
  tl_provpage_deflate_at = 0;
  tl_provpage_render(&page, view, more.ptr ? &texts : NULL, title.data,
                     title.data);
  tl_provpage_deflate_at = TL_PROVPAGE_DEFLATE_AT_DEFAULT;
  page_check(tl_buf_str(&page), 6, "provenance page, deflated");
  static const char open_tag[] = "data-deflate=\"raw\">";
  for (const char *at = strstr(page.data, open_tag); at;
       at = strstr(at, open_tag)) {
    at += sizeof open_tag - 1;
    size_t n = strspn(at, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                          "0123456789+/=");
    FUZZ_CHECK(n % 4 == 0 && strncmp(at + n, "</script>", 9) == 0);
  }
  cJSON_Delete(view);
#endif
  tl_buf_free(&title);
  tl_buf_free(&page);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tl_str text, more;
  fuzz_split(data, size, &text, &more);
  tl_str all = {(const char *)data, size};
  check_html_escape(all);
  check_script_json(all);
  check_json_string(all);
  check_url(text);
  check_names(all);
  check_pages(text, more);
  return 0;
}
