/* store_stacks.h: the stacks the store keeps for the index's tries, read
 * from a trace: each dynamo_start's user stack (the Rust tool's
 * convert_frame.py frames dropped) and the stacks logged beside other
 * entries ("Unknown stacks"). Frames own their name and loc; their file
 * names are interned in a tl_intern the caller owns (the store's
 * frame_files), so a name the string table repeats is kept once. Knows
 * nothing of the store: the store files what these read.
 */
#ifndef TL_STORE_STACKS_H
#define TL_STORE_STACKS_H

#include <cjson/cJSON.h>

#include "read/reader.h"
#include "util/intern.h"

/* One stack frame: "file:line in name" plus its source line `loc`. In a
 * tl_stack of the store the strings are owned (malloc'd); read straight from
 * a trace (tl_frame_read) they are borrowed. NULL: absent. */
typedef struct tl_frame {
  const char *file; /* resolved through the string table */
  const char *name;
  const char *loc;
  long long line;
} tl_frame;

typedef struct tl_stack {
  tl_frame *frames;
  size_t count;
} tl_stack;

/* The stack of `obj`'s member "stack" (a non-empty list of frames) into
 * *out, its file names interned in `files`, without the trailing
 * convert_frame.py frames when `trim`; false (and *out untouched) when
 * there is none. */
bool tl_stack_of(const cJSON *obj, const tl_string_table *strings,
                 tl_intern *files, bool trim, tl_stack *out);
/* Reads one frame of a trace stack ({filename: index | uninterned_filename,
 * line, name, loc}); the strings stay borrowed from `frame` and `strings`. */
void tl_frame_read(const cJSON *frame, const tl_string_table *strings,
                   tl_frame *out);
/* Frees the frames of `count` stacks (not the array). */
void tl_store_stacks_free(tl_stack *stacks, size_t count);

#endif
