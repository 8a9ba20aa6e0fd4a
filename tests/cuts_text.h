/* cuts_text.h: a scanner's cuts of a text as "a,b,c" ("unsure" when the
 * scanner gives up), for the chunk tests of tests/engine and
 * tests/engine_cpp. The result lives in a static buffer until the next call.
 */
#ifndef TL_TEST_CUTS_TEXT_H
#define TL_TEST_CUTS_TEXT_H

#include <stdio.h>
#include <stdlib.h>

#include "analyze/ts_chunk.h"
#include "analyze/ts_query.h"

static inline const char *cuts_text(bool (*scan)(tl_str, tl_ts_cuts *),
                                    const char *text) {
  static char out[1024];
  tl_ts_cuts cuts = {0};
  bool sure = scan(tl_str_from(text), &cuts);
  size_t len = 0;
  out[0] = '\0';
  for (size_t i = 0; i < cuts.count && len + 12 < sizeof out; i++)
    len += (size_t)snprintf(out + len, sizeof out - len, "%s%u", i ? "," : "",
                            cuts.items[i]);
  if (!sure)
    snprintf(out, sizeof out, "unsure");
  TL_VEC_FREE(cuts);
  return out;
}

#endif
