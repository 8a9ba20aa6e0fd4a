/* ts_alloc.h: the allocation functions of the grammars' external scanners
 * (analyze stage, beneath tree-sitter). The Python scanner gives back its
 * indent stack and takes a new one each time tree-sitter restores its
 * state, before nearly every token; these keep the last few blocks a
 * thread freed and hand them out again, so that restoring costs no call
 * to malloc or free. The grammars' scanner.c files are compiled with
 * ts_malloc, ts_calloc, ts_realloc and ts_free naming these (their
 * tree_sitter/alloc.h lets a client choose them). Blocks come from and go
 * to the C library's allocator; a thread's kept blocks are freed when it
 * ends.
 */
#ifndef TL_TS_ALLOC_H
#define TL_TS_ALLOC_H

#include <stddef.h>

void *tl_ts_scanner_malloc(size_t size);
void *tl_ts_scanner_calloc(size_t count, size_t size);
void *tl_ts_scanner_realloc(void *block, size_t size);
void tl_ts_scanner_free(void *block);

#endif
