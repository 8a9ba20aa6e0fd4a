/* html.h: the only ways text from a trace reaches a page (emit stage).
 *
 * tl_html_escape      text -> HTML text/attribute content (& < > " ').
 * tl_html_script_json JSON text -> safe content of a <script> element: `<`,
 *                     `>`, `&`, U+2028 and U+2029 become \uXXXX escapes, so
 *                     `</script>` and `<!--` cannot appear.
 * tl_html_script_json_string  text -> a JSON string that is safe content
 *                     of a <script> element, in one pass.
 * tl_url_is_safe      whether a URL from a trace may become an href
 *                     (http, https, or relative; never javascript:/data:).
 */
#ifndef TL_HTML_H
#define TL_HTML_H

#include "util/buf.h"

void tl_html_escape(tl_buf *out, tl_str text);
void tl_html_escape_cstr(tl_buf *out, const char *text);
/* How many bytes of an interned string (a frame's file name, which the
 * string table lets a trace repeat for free) a page shows: the rest is cut
 * with a visible marker, so that pages stay a bounded multiple of the
 * trace (docs/reliability.md). */
enum { TL_HTML_SHOWN_MAX = 1024 };
/* tl_html_escape of at most `limit` bytes of `text` (cut at a character
 * boundary), then "…(N bytes more)" when anything was cut. */
void tl_html_escape_cut(tl_buf *out, tl_str text, size_t limit);
void tl_html_script_json(tl_buf *out, tl_str json);
bool tl_url_is_safe(tl_str url);
/* Percent-encodes a relative path for an href (keeps / and the safe
 * file-name alphabet). */
void tl_url_path(tl_buf *out, const char *path);
/* Percent-encodes a value of a page's fragment as the provenance page's
 * selection.js writes it (encodeURIComponent, `:` kept): `#kernel=` and
 * this. */
void tl_url_fragment_value(tl_buf *out, const char *value);

#endif

#ifndef TL_HTML_PAGE_DECLS
#define TL_HTML_PAGE_DECLS
/* Starts a report page: doctype, charset, escaped title, the shared style
 * sheet at `static_prefix` + "static/report.css" ("" for top-level pages,
 * "../" for pages in a compile folder), and opens <body>. */
void tl_html_page_begin(tl_buf *out, const char *title,
                        const char *static_prefix);
void tl_html_page_end(tl_buf *out);
/* Appends `text` as a JSON string literal (with quotes) that is also safe
 * content of a <script> element, in one pass: the string escapes of cJSON's
 * printer (\" \\ \b \f \n \r \t, other controls as \u00xx), each NUL byte
 * as U+FFFD, then tl_html_script_json's. A text of any size goes through
 * without a copy (the provenance page's artifact texts). */
void tl_html_script_json_string(tl_buf *out, tl_str text);
#endif
