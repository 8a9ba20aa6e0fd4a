/* ts_alloc.c: the grammars' scanners' allocation functions (ts_alloc.h). */
#define _GNU_SOURCE /* malloc_usable_size */
#include "analyze/ts_alloc.h"

#include <pthread.h>
#include <stdlib.h>

#ifdef __GLIBC__
#include <malloc.h>

/* The blocks a thread freed last, at most KEPT; freed when it ends. */
enum { KEPT = 4 };
typedef struct kept_blocks {
  void *block[KEPT];
  size_t count;
} kept_blocks;

static _Thread_local kept_blocks *this_thread;
static pthread_key_t kept_key; /* only for its destructor, free_kept */
static pthread_once_t kept_once = PTHREAD_ONCE_INIT;
static int key_made = -1; /* pthread_key_create's result */

static void free_kept(void *arg) {
  kept_blocks *k = arg;
  for (size_t i = 0; i < k->count; i++)
    free(k->block[i]);
  free(k);
  this_thread = NULL;
}

static void make_key(void) {
  key_made = pthread_key_create(&kept_key, free_kept);
}

/* This thread's kept blocks, made at its first call; NULL when they
 * cannot be (then every call goes to the C library). */
static kept_blocks *kept(void) {
  if (this_thread)
    return this_thread;
  (void)pthread_once(&kept_once, make_key);
  kept_blocks *k = key_made == 0 ? calloc(1, sizeof *k) : NULL;
  if (k && pthread_setspecific(kept_key, k) != 0) {
    free(k);
    k = NULL;
  }
  return this_thread = k;
}

void *tl_ts_scanner_malloc(size_t size) {
  kept_blocks *k = kept();
  for (size_t i = k ? k->count : 0; i-- > 0;) {
    void *block = k->block[i];
    if (malloc_usable_size(block) >= size) {
      k->block[i] = k->block[--k->count];
      return block;
    }
  }
  return malloc(size);
}

void tl_ts_scanner_free(void *block) {
  if (!block)
    return;
  kept_blocks *k = kept();
  if (k && k->count < KEPT)
    k->block[k->count++] = block;
  else
    free(block);
}

void *tl_ts_scanner_realloc(void *block, size_t size) {
  if (!block)
    return tl_ts_scanner_malloc(size);
  return realloc(block, size);
}
#else
void *tl_ts_scanner_malloc(size_t size) { return malloc(size); }
void tl_ts_scanner_free(void *block) { free(block); }
void *tl_ts_scanner_realloc(void *block, size_t size) {
  return realloc(block, size);
}
#endif

void *tl_ts_scanner_calloc(size_t count, size_t size) {
  return calloc(count, size);
}
