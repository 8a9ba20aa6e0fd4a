/* provpage.h: the provenance highlighter page (emit stage, issue 4).
 *
 * One HTML page per provenance view: the engine's view JSON (provenance.h)
 * and the artifact texts its line numbers refer to are embedded as
 * <script type="application/json"> data; the bundled highlight.js,
 * assets/provenance.css and assets/provenance.js are files of the static/
 * folder beside the page (tl_provpage_static), shared by all pages of a
 * report, so a page costs its data plus about two kilobytes. The page makes
 * no network request; a Content-Security-Policy lets only its own loader
 * run (by SHA-256 hash, with 'strict-dynamic' for the two scripts it adds),
 * so trace text can never execute. The caller owns the view and the texts;
 * nothing is kept after the call.
 */
#ifndef TL_PROVPAGE_H
#define TL_PROVPAGE_H

#include <cjson/cJSON.h>

#include "util/buf.h"

/* The exact artifact texts the view's line numbers refer to; a ptr of NULL
 * means the artifact is absent (the panel says so). */
typedef struct tl_provpage_texts {
  tl_str pre, post, code, kernel_code;
} tl_provpage_texts;

/* Or texts the page reads itself, one after another and a piece at a time,
 * so that a huge compile's texts need not stay in memory: `open` starts
 * panel `which` ("pre", "post", "code", "kernel"), sets its size and
 * returns true, or false when it is absent; `read` gives its next bytes, up
 * to `cap`, and 0 at its end or on an error; `failed` tells, once `read`
 * gave 0, whether the text could not be read whole (the caller reports
 * it): a text the page holds whole (below tl_provpage_deflate_at) is then
 * embedded as absent, a deflated one as far as it was read. `deflated`,
 * when not NULL, may give panel `which` already deflated by
 * tl_provpage_deflate_read (another thread's work while the view was
 * analyzed): the page embeds those bytes instead of reading the text. */
typedef struct tl_provpage_text_reader {
  bool (*open)(void *ctx, const char *which, size_t *size);
  size_t (*read)(void *ctx, char *buf, size_t cap);
  bool (*failed)(void *ctx);
  void *ctx;
  bool (*deflated)(void *ctx, const char *which, tl_str *made);
} tl_provpage_text_reader;

/* Artifact texts of this many bytes or more are embedded deflated (raw
 * deflate at zlib's fastest level, base64-encoded) in an element
 *   <script type="application/octet-stream" id="tlprov-text-code"
 *           data-deflate="raw">…</script>
 * that the page's script inflates with the browser's DecompressionStream
 * before it starts (assets/page/boot.js); smaller texts are JSON strings.
 * Generated code compresses 5 to 20 times, and a page's open is mostly reading
 * its bytes (docs/performance.md, "The page at scale"). Tests set it to 0 to
 * deflate every text. */
extern size_t tl_provpage_deflate_at;
#define TL_PROVPAGE_DEFLATE_AT_DEFAULT ((size_t)1 << 20)

/* Appends panel `which`, read by `reader`, deflated and base64-encoded
 * exactly as a page embeds it (between the element's tags), and returns
 * true; false (`out` then holds nothing the page can use) when the panel is
 * absent, below tl_provpage_deflate_at, or could not be read whole. */
bool tl_provpage_deflate_read(tl_buf *out,
                              const tl_provpage_text_reader *reader,
                              const char *which);

/* The folder, relative to a page, that holds the files of
 * tl_provpage_static and static/highlight.min.js (the bundled highlight.js
 * every report writes for its artifact pages). */
#define TL_PROVPAGE_STATIC "static/"

/* The pages' shared files: appends static/provenance.css (highlight.js's
 * light and dark themes and the page's own style) to `css`, and sets `js`
 * to static/provenance.js. */
void tl_provpage_static(tl_buf *css, tl_str *js);

/* Appends the HTML page of one view to `out` (which may drain into its file
 * as it fills: tl_buf_drain_into; the page is written front to back and
 * never read back, and no artifact text is copied). `view` is
 * the engine's JSON object (schema in issue 3; NULL renders an empty page
 * that says the view is missing); texts are the exact artifact texts the
 * view's line numbers refer to (NULL `texts` = all absent). `help_href` is a
 * relative link to the help page section about the highlighter (may be
 * NULL), `index_href` to index.html (may be NULL). Hrefs that are not safe
 * relative or http(s) URLs are dropped. Total: any input gives a page. */
void tl_provpage_render(tl_buf *out, const cJSON *view,
                        const tl_provpage_texts *texts, const char *index_href,
                        const char *help_href);

/* As tl_provpage_render, with the texts read by `reader` (NULL: all
 * absent). The page is the same byte for byte. */
void tl_provpage_render_read(tl_buf *out, const cJSON *view,
                             const tl_provpage_text_reader *reader,
                             const char *index_href, const char *help_href);
/* A view as the page reads it: its compile id and folder (NULL: none), and
 * its JSON without layout (what cJSON_PrintUnformatted prints, as
 * tl_json_compact makes it of provenance_tracking_<dir>.json; ptr NULL
 * for no view), so that a huge view need not be a cJSON tree. */
typedef struct tl_provpage_view {
  const char *compile_id, *compile_dir;
  tl_str json;
} tl_provpage_view;
/* As tl_provpage_render_read, for a view given as text. The page is the
 * same byte for byte as for the view's cJSON tree. */
void tl_provpage_render_text(tl_buf *out, const tl_provpage_view *view,
                             const tl_provpage_text_reader *reader,
                             const char *index_href, const char *help_href);

/* The page of a view with no artifact at all (a compile folder that logged
 * no graph, code, node mappings or kernel stack traces): a short page that
 * says so, without the highlighter's scripts, so that a folder with nothing
 * to show costs about a kilobyte instead of the scripts' 200. Only the
 * view's names are read. */
void tl_provpage_render_empty(tl_buf *out, const tl_provpage_view *view,
                              const char *index_href, const char *help_href);

#endif
