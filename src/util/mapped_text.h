/* mapped_text.h: a large text read back from its file by mapping it, so
 * that an analysis passing over it front to back holds only the part it is
 * at, not the whole text (a huge compile's 57 MB AOT wrapper).
 *
 * The analyses take a text as a tl_str, and some pass over it more than once
 * (a scanner, then the chunked parse). Each pass says, every
 * TL_TEXT_PASSED_EVERY bytes or so, how far it got (tl_text_passed): when
 * the text is a mapped one, the pages wholly before that place are given
 * back to the system (madvise MADV_DONTNEED), and are read again from the
 * file if they are read after all, so a pass may read anywhere at any time.
 * For any other text tl_text_passed does nothing: the analyses work alike
 * on texts in memory (the tests').
 *
 * The file must not change or shrink while it is mapped (a page past a
 * shrunk end cannot be read: SIGBUS). Only the report's own artifact files
 * are mapped, in the staging folder this process made (outdir.h), written
 * and closed before any is read back.
 */
#ifndef TL_MAPPED_TEXT_H
#define TL_MAPPED_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

enum { TL_TEXT_PASSED_EVERY = 1 << 20 };

typedef struct tl_mapped_text {
  tl_str text; /* the file's bytes; text.ptr[text.len] == '\0' */
  size_t span; /* bytes mapped */
} tl_mapped_text;

/* Maps the regular file `path` (never through a symbolic link) when it holds
 * at least `min_size` bytes, and returns true; false, with nothing mapped,
 * for a smaller file or any failure (the caller reads the file instead,
 * which reports what is wrong). */
bool tl_mapped_text_open(tl_mapped_text *m, const char *path, size_t min_size);
/* One open of `path` for either: mapped as tl_mapped_text_open maps it
 * (returns 1), else read whole into `into` as tl_fs_read_file reads it
 * (returns 0; on a failure -1, with its message in `error`). */
int tl_mapped_text_load(tl_mapped_text *m, tl_buf *into, const char *path,
                        size_t min_size, char *error, size_t error_size);
void tl_mapped_text_close(tl_mapped_text *m);

/* A pass over a text reached `place`: see above. Any pointer may be given;
 * thread-safe. */
void tl_text_passed(const char *place);

/* For a loop over the bytes of `text`: tells tl_text_passed at `i` once
 * it is at or past *next, and sets *next TL_TEXT_PASSED_EVERY further on
 * (start with *next = the loop's first byte). */
static inline void tl_text_passing(const char *text, size_t i, size_t *next) {
  if (i >= *next) {
    tl_text_passed(text + i);
    *next = i + TL_TEXT_PASSED_EVERY;
  }
}

/* Whether `text` holds a NUL byte, read a window at a time (telling
 * tl_text_passed as it goes). */
bool tl_text_has_nul(tl_str text);

#endif
