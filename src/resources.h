/* resources.h: files embedded into the binary at build time by
 * assets/embed.cmake (see tl_embed in CMakeLists.txt and the area fragments).
 * Each is NUL-terminated; TL_RES(name) gives it as a tl_str.
 */
#ifndef TL_RESOURCES_H
#define TL_RESOURCES_H

#include <stddef.h>

#include "buf.h"

#define TL_RES_DECLARE(name)                                                   \
  extern const unsigned char tl_res_##name[];                                  \
  extern const size_t tl_res_##name##_len
#define TL_RES(name)                                                           \
  ((tl_str){(const char *)tl_res_##name, tl_res_##name##_len})

TL_RES_DECLARE(hljs_js);
TL_RES_DECLARE(hljs_light_css);
TL_RES_DECLARE(hljs_dark_css);
TL_RES_DECLARE(report_css);

#endif
