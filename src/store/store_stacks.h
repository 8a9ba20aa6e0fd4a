/* store_stacks.h: the stacks the store keeps for the index's tries: each
 * dynamo_start's user stack (filed under its compile folder, the Rust
 * tool's convert_frame.py frames dropped) and the stacks logged beside
 * other entries ("Unknown stacks"). Frames own their name and loc; their
 * file names are interned in the store (store->frame_files), so a name the
 * string table repeats is kept once.
 */
#ifndef TL_STORE_STACKS_H
#define TL_STORE_STACKS_H

#include "store/store.h"

/* dynamo_start: files its stack under `dir` and in store->starts. */
void tl_store_stacks_start(tl_store *store, tl_compile_dir *dir,
                           const tl_record *rec);
/* An entry with a top-level "stack": adds it to store->unknown_stacks. */
void tl_store_stacks_beside(tl_store *store, const tl_record *rec);
/* Reads one frame of a trace stack ({filename: index | uninterned_filename,
 * line, name, loc}); the strings stay borrowed from `frame` and `strings`. */
void tl_frame_read(const cJSON *frame, const tl_string_table *strings,
                   tl_frame *out);
/* Frees the frames of `count` stacks (not the array). */
void tl_store_stacks_free(tl_stack *stacks, size_t count);

#endif
