/* resources.h: files embedded into the binary at build time by
 * assets/embed.cmake (see tl_embed in CMakeLists.txt and the area fragments).
 * Each is NUL-terminated; TL_RES(name) gives it as a tl_str.
 */
#ifndef TL_RESOURCES_H
#define TL_RESOURCES_H

#include <stddef.h>

#include "util/buf.h"

#define TL_RES_DECLARE(name)                                                   \
  extern const unsigned char tl_res_##name[];                                  \
  extern const size_t tl_res_##name##_len
#define TL_RES(name)                                                           \
  ((tl_str){(const char *)tl_res_##name, tl_res_##name##_len})

TL_RES_DECLARE(hljs_js);
TL_RES_DECLARE(hljs_light_css);
TL_RES_DECLARE(hljs_dark_css);
TL_RES_DECLARE(report_css);

/* Appends highlight.js's two themes as one style sheet: light, and dark
 * under `prefers-color-scheme: dark` (static/hljs.css of the artifact
 * pages, and the start of the highlighter's static/provenance.css). */
static inline void tl_res_hljs_themes(tl_buf *out) {
  tl_buf_append_str(out, TL_RES(hljs_light_css));
  tl_buf_puts(out, "\n@media (prefers-color-scheme: dark) {\n");
  tl_buf_append_str(out, TL_RES(hljs_dark_css));
  tl_buf_puts(out, "\n}\n");
}

#endif
