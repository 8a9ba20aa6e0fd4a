/* json_number.h: numbers written as the Rust tlparse writes them (serde_json
 * with ryu), so that every JSON file and page number of ours reads the same
 * as the Rust tool's (parity spec section 10).
 *
 * An integer literal that fits u64 (i64 when negative) is copied unchanged.
 * Any other number is read as a double and written with its shortest
 * round-trip digits: "100.0", "1733527214084600.2", "0.00003910064697265625",
 * "1e16", "1.5e-7", "-0.0". The text is borrowed; nothing is kept.
 */
#ifndef TL_JSON_NUMBER_H
#define TL_JSON_NUMBER_H

#include <stdbool.h>

#include "util/buf.h"

/* Appends the JSON number literal `text` in the Rust tool's form. A text
 * that is not a JSON number, or overflows a double, is copied unchanged. */
void tl_json_number(tl_buf *out, tl_str text);

/* Appends a double in the Rust tool's form (a float, "2.0" not "2"). A NaN
 * or an infinity, which JSON cannot hold, is written as null. */
void tl_json_double(tl_buf *out, double value);

/* Whether `text` is exactly one JSON number literal (RFC 8259 grammar). */
bool tl_json_is_number(tl_str text);

#endif
