/* ts_heads.h: C++ parsed without the insides of its function bodies, for
 * an analysis that reads only what surrounds them (src/analyze/cppcode.c: a
 * kernel's name, its first and last line). A kernel file is mostly the
 * bodies of its kernels. Built on the chunk scanner of ts_chunk.h.
 */
#ifndef TL_TS_HEADS_H
#define TL_TS_HEADS_H

#include <stdbool.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#include "util/buf.h"

/* Parses the C++ text[start, end) heads only: each top-level item is
 * handed to tree-sitter over included ranges that leave out the bytes
 * between a function's `{` and `}` (tl_ts_cpp_item_body; namespaces and
 * `extern "C"` blocks are gone into), so every node keeps its position in
 * the text and a function_definition still spans its whole body. An item
 * whose inside the scanner is unsure of is parsed whole. Items are grouped
 * into trees of about tl_ts_chunk_limit parsed bytes, each handed to
 * `visit` and then deleted. Returns false when a group has a syntax error,
 * when the scanner cannot cut the text (unbalanced, a NUL byte), for an
 * empty range, or when tree-sitter refused the language or ranges: the
 * caller then forgets what `visit` was given and parses the text itself. */
bool tl_ts_cpp_heads(tl_str text, uint32_t start, uint32_t end,
                     void (*visit)(TSTree *tree, void *ctx), void *ctx);

#endif
