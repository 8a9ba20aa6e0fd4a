/* intern.h: a set of strings, each kept once. The store keeps the file
 * names of stack frames here: a trace names a file once in its string table
 * and may refer to it from every frame of every compile, so copying it per
 * frame would let a small trace fill the memory (docs/reliability.md).
 * The set owns its strings; their pointers stay valid until tl_intern_free.
 */
#ifndef TL_INTERN_H
#define TL_INTERN_H

#include <stddef.h>

typedef struct tl_intern {
  char **slots; /* open addressing; NULL = empty */
  size_t size;  /* a power of two, or 0 */
  size_t count;
} tl_intern;

/* The set's copy of `s` (made on first sight); NULL for NULL. */
const char *tl_intern_get(tl_intern *set, const char *s);
void tl_intern_free(tl_intern *set);

#endif
