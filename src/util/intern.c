/* intern.c: a set of strings, each kept once (intern.h). */
#include "util/intern.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

/* FNV-1a over the bytes. */
static uint64_t hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static void grow(tl_intern *set) {
  size_t size = set->size ? set->size * 2 : 64;
  char **slots = tl_xcalloc(size, sizeof *slots);
  for (size_t i = 0; i < set->size; i++) {
    char *s = set->slots[i];
    if (!s)
      continue;
    size_t at = hash(s) & (size - 1);
    while (slots[at])
      at = (at + 1) & (size - 1);
    slots[at] = s;
  }
  free(set->slots);
  set->slots = slots;
  set->size = size;
}

const char *tl_intern_get(tl_intern *set, const char *s) {
  if (!s)
    return NULL;
  if ((set->count + 1) * 2 > set->size)
    grow(set);
  size_t at = hash(s) & (set->size - 1);
  for (; set->slots[at]; at = (at + 1) & (set->size - 1))
    if (strcmp(set->slots[at], s) == 0)
      return set->slots[at];
  set->slots[at] = tl_xstrdup(s);
  set->count++;
  return set->slots[at];
}

void tl_intern_free(tl_intern *set) {
  for (size_t i = 0; i < set->size; i++)
    free(set->slots[i]);
  free(set->slots);
  memset(set, 0, sizeof *set);
}
