/* utf8.h: keeping what we write valid UTF-8. A trace may hold any bytes in
 * its names and texts; every JSON file we write must still be read by a
 * strict reader, so invalid sequences are replaced with U+FFFD (EF BF BD)
 * and counted by the caller. JSON's structure is ASCII, so the repair of a
 * whole JSON text only ever touches the inside of strings.
 */
#ifndef TL_UTF8_H
#define TL_UTF8_H

#include <stddef.h>

#include "util/buf.h"

/* Length of the longest prefix of `text` that is valid UTF-8 (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF). */
size_t tl_utf8_valid_prefix(tl_str text);

/* Appends `text` to `out` with every invalid sequence (each maximal
 * subpart, as the Unicode standard's U+FFFD substitution practice says)
 * replaced by U+FFFD. Returns the number of replacements. */
size_t tl_utf8_repair(tl_buf *out, tl_str text);

/* tl_utf8_repair of `b`'s own bytes, in `b` (a buffer that keeps what it
 * holds, not a draining one): untouched (0) when they are valid already.
 * Returns the number of replacements. */
size_t tl_utf8_repair_in_place(tl_buf *b);

#endif
