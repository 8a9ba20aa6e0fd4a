/* provpage_paint.h: the provenance page's first paint, written without a
 * script (emit stage, issue 27; used by provpage.c only).
 *
 * The page shows each panel's first lines before any script runs: tlparse
 * writes, inside <div id="tlprov">, the elements assets/page/panels.js
 * builds at its first render (the bars, the three panels' heads and their
 * first rows, the bottom area), with the same classes and sizes, so that
 * the script, which starts after the load event, replaces them without
 * moving a line. Reads the view JSON (up to TL_PAINT_VIEW_MAX bytes; a
 * larger view gets no first paint and the page waits for its script, as
 * before) and the first lines of each text, given to it as parameters
 * (it knows nothing of provpage.h); trace text reaches the HTML only
 * through tl_html_escape. The caller owns everything passed in.
 */
#ifndef TL_PROVPAGE_PAINT_H
#define TL_PROVPAGE_PAINT_H

#include <stdbool.h>

#include "util/buf.h"

/* A view JSON up to this size is read for the first paint. */
#define TL_PAINT_VIEW_MAX ((size_t)8 << 20)
/* Lines of each panel written into the page (what a tall window shows),
 * and the most bytes of them per panel. */
enum { TL_PAINT_ROWS = 80, TL_PAINT_BYTES = 256 << 10 };

/* The texts of the four panels, in the order pre, post, code, kernel:
 * read through `open` (it starts panel "pre", "post", "code" or "kernel",
 * sets its size and returns false when it is absent) and `read` (its next
 * bytes up to `cap`, 0 at its end) with `ctx` when `open` is set, else
 * `texts` (four of them, ptr NULL: absent; NULL: all absent). */
typedef struct tl_paint_texts {
  const tl_str *texts;
  bool (*open)(void *ctx, const char *which, size_t *size);
  size_t (*read)(void *ctx, char *buf, size_t cap);
  void *ctx;
} tl_paint_texts;

/* Appends the first paint of the view (its JSON text: ptr NULL for no
 * view) to `out`, the panels' texts from `from` (each read once more, and
 * only its size and first lines kept), and returns true; returns false and
 * appends nothing when the view cannot be painted (larger than
 * TL_PAINT_VIEW_MAX, or not JSON). */
bool tl_provpage_paint(tl_buf *out, tl_str view_json,
                       const tl_paint_texts *from);

#endif
