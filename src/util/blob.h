/* blob.h: a flat record of 64-bit words and strings, written into a tl_buf
 * and read back with every length checked against what is left.
 *
 * The analysis cache keeps each analysis as such a blob (in memory, and in
 * the ranks' shared folder), and the recompile diffs keep what they read of
 * a graph or a code the same way. A blob is read only by the build that
 * wrote it (words in the machine's byte order).
 *
 * A string is its length, then its bytes; the length UINT64_MAX stands for
 * a string with no pointer, read back as {NULL, 0}. A reader whose blob is
 * short stops: `ok` turns false, and every later read gives 0, NULL or an
 * empty string, so a caller checks `ok` once at the end.
 */
#ifndef TL_BLOB_H
#define TL_BLOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

void tl_blob_put_u64(tl_buf *b, uint64_t v);
void tl_blob_put_str(tl_buf *b, tl_str s);

typedef struct tl_blob_reader {
  tl_str blob;
  size_t at; /* the next byte to read */
  bool ok;   /* false once a read went past the end */
  /* Where tl_blob_get_str copies its strings (NULL: they point into the
   * blob, which must then outlive them). */
  tl_arena *arena;
} tl_blob_reader;

tl_blob_reader tl_blob_reader_of(tl_str blob, tl_arena *arena);
uint64_t tl_blob_get_u64(tl_blob_reader *r);
/* The next `len` bytes, in the blob (NULL when fewer are left). */
const char *tl_blob_get_bytes(tl_blob_reader *r, uint64_t len);
tl_str tl_blob_get_str(tl_blob_reader *r);
/* True when every byte was read and nothing was short. */
bool tl_blob_read_whole(const tl_blob_reader *r);

#endif
