/* json_build.h: small helpers for building and reading cJSON trees that the
 * diff and join writers all need: a string value from a slice (tl_str, not
 * NUL-terminated) and a member read with a default when it is absent or of
 * another type.
 */
#ifndef TL_JSON_BUILD_H
#define TL_JSON_BUILD_H

#include <cjson/cJSON.h>

#include "util/buf.h"

/* A cJSON string holding the bytes of `s` (an empty slice may have no
 * pointer). */
cJSON *tl_json_str(tl_str s);
/* Adds member `key` of `o`: the string of `s`. */
void tl_json_add_str(cJSON *o, const char *key, tl_str s);

/* Member `key` of `o` as a string, "" when absent or not a string. */
const char *tl_json_get_str(const cJSON *o, const char *key);
/* Member `key` of `o` as a number, 0 when absent or not a number. */
double tl_json_get_num(const cJSON *o, const char *key);

#endif
