/* json_serde.h: JSON re-written the way the Rust tlparse writes JSON it has
 * read (serde_json's Value, whose objects are sorted maps): every object's
 * keys in byte order (a repeated key keeps its last value), numbers as
 * json_number.h says, strings with only '"', '\\' and control characters
 * escaped, compact or pretty (two-space indent, "key": value, no newline
 * at the end). Parsed with yajl (no recursion); like serde_json it refuses
 * more than 127 nested levels, so a script that reads the Rust tool's files
 * reads ours byte for byte the same.
 */
#ifndef TL_JSON_SERDE_H
#define TL_JSON_SERDE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* A member added to the top-level object: `value` is JSON text written as
 * it is (the caller formats it). */
typedef struct tl_json_member {
  const char *key;
  tl_str value;
} tl_json_member;

typedef struct tl_json_serde_options {
  bool pretty;
  int depth; /* pretty: the indent level the value starts at */
  const tl_json_member *extra;
  size_t extra_count;
  /* pretty: the most bytes the layout may add to the compact form (0: no
   * limit). Deeply nested text (up to 127 levels, 2 spaces each, on every
   * line) would grow ~128 times; past the limit it is written compact and
   * the status says so. */
  size_t layout_limit;
} tl_json_serde_options;

typedef enum tl_json_serde_status {
  TL_JSON_SERDE_OK,
  TL_JSON_SERDE_OK_COMPACT,   /* written, but compact: past layout_limit */
  TL_JSON_SERDE_NOT_JSON,     /* not one JSON value (out unchanged) */
  TL_JSON_SERDE_NOT_OBJECT,   /* extra members given, value not an object */
  TL_JSON_SERDE_KEY_CONFLICT, /* an extra member's key is already there */
} tl_json_serde_status;

/* Appends `text` re-written to `out`. Invalid UTF-8 inside strings is
 * replaced by U+FFFD first; *repaired (if not NULL) gets the count. On any
 * status but OK, `out` is left as it was. `error` (if not NULL, size
 * error_size) gets yajl's message for NOT_JSON, the key for KEY_CONFLICT. */
tl_json_serde_status tl_json_serde(tl_buf *out, tl_str text,
                                   const tl_json_serde_options *options,
                                   size_t *repaired, char *error,
                                   size_t error_size);

/* The layout_limit for a JSON text of `len` bytes that we write pretty
 * from a trace: 12 times the text and 4 KiB, so that its file stays within
 * 13 times its text (docs/reliability.md's bound: 16 times the input). */
size_t tl_json_layout_limit(size_t len);

/* Appends `s` as a JSON string in serde_json's escaping. */
void tl_json_serde_string(tl_buf *out, tl_str s);

#endif
