/* ts_alloc.h: the allocation functions of tree-sitter and of the grammars'
 * external scanners (analyze stage, beneath tree-sitter).
 *
 * tl_ts_library_allocator_install gives tree-sitter functions that keep
 * the small blocks a thread freed (its trees' nodes, when a tree is freed)
 * in lists by size, up to 8 MiB a thread and 32 MiB for all threads
 * together, and hand them out to its next parse; call it before any
 * other thread uses tree-sitter (it sets tree-sitter's global allocator).
 * Without it tree-sitter allocates with malloc; either frees the other's
 * blocks.
 *
 * The Python scanner gives back its
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

void tl_ts_library_allocator_install(void);

/* The room all threads' lists have taken from the process's 32 MiB now
 * (each thread takes 1 MiB at a time as its lists grow, up to 8 MiB); 0
 * without glibc, where nothing is kept. For tests. */
size_t tl_ts_kept_room_taken(void);

void *tl_ts_scanner_malloc(size_t size);
void *tl_ts_scanner_calloc(size_t count, size_t size);
void *tl_ts_scanner_realloc(void *block, size_t size);
void tl_ts_scanner_free(void *block);

#endif
