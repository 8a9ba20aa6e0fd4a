/* json_members.h: a JSON object read one member at a time, accepting exactly
 * the texts cJSON_ParseWithLength accepts as an object, so that a large
 * object (a huge compile's node mappings) need not be one cJSON tree: each
 * key and value is parsed by cJSON itself where its parse_object would parse
 * it, and the value's tree is freed as soon as the caller has seen it.
 */
#ifndef TL_JSON_MEMBERS_H
#define TL_JSON_MEMBERS_H

#include <cjson/cJSON.h>

#include "util/buf.h"

typedef enum tl_json_members_status {
  TL_JSON_MEMBERS_OBJECT,     /* every member given */
  TL_JSON_MEMBERS_NOT_OBJECT, /* does not start as an object: parse it whole
                                 to know what it is */
  TL_JSON_MEMBERS_INVALID     /* cJSON would not parse it (members may have
                                 been given before the fault) */
} tl_json_members_status;

/* Gives `member` each member of the object `text`, in order: its key, the
 * exact text of its value (which cJSON_ParseWithLength parses to `value`
 * again) and the value, freed after the call. Trailing bytes after the
 * object are allowed, as cJSON_ParseWithLength allows them. */
tl_json_members_status
tl_json_members(tl_str text,
                void (*member)(void *ctx, const char *key, tl_str value_text,
                               const cJSON *value),
                void *ctx);

#endif
