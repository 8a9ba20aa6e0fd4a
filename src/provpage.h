/* provpage.h: the provenance highlighter page (emit stage, issue 4).
 *
 * One self-contained HTML page per provenance view: the engine's view JSON
 * (provenance.h) and the artifact texts its line numbers refer to are
 * embedded as <script type="application/json"> data, with the bundled
 * highlight.js, assets/provenance.css and assets/provenance.js inline. The
 * page makes no network request; a Content-Security-Policy lets only its own
 * two scripts run (by SHA-256 hash), so trace text can never execute.
 * The caller owns the view and the texts; nothing is kept after the call.
 */
#ifndef TL_PROVPAGE_H
#define TL_PROVPAGE_H

#include <cjson/cJSON.h>

#include "buf.h"

/* The exact artifact texts the view's line numbers refer to; a ptr of NULL
 * means the artifact is absent (the panel says so). */
typedef struct tl_provpage_texts {
  tl_str pre, post, code, kernel_code;
} tl_provpage_texts;

/* Appends the whole self-contained HTML page of one view to `out`. `view` is
 * the engine's JSON object (schema in issue 3; NULL renders an empty page
 * that says the view is missing); texts are the exact artifact texts the
 * view's line numbers refer to (NULL `texts` = all absent). `help_href` is a
 * relative link to the help page section about the highlighter (may be
 * NULL), `index_href` to index.html (may be NULL). Hrefs that are not safe
 * relative or http(s) URLs are dropped. Total: any input gives a page. */
void tl_provpage_render(tl_buf *out, const cJSON *view,
                        const tl_provpage_texts *texts, const char *index_href,
                        const char *help_href);

/* The page of a view with no artifact at all (a compile folder that logged
 * no graph, code, node mappings or kernel stack traces): a short page that
 * says so, without the highlighter's scripts, so that a folder with nothing
 * to show costs about a kilobyte instead of the scripts' 200. Same
 * arguments as tl_provpage_render. */
void tl_provpage_render_empty(tl_buf *out, const cJSON *view,
                              const char *index_href, const char *help_href);

#endif
