/* ts_alloc.c: the allocation functions of tree-sitter and of the grammars'
 * scanners (ts_alloc.h). */
#define _GNU_SOURCE /* malloc_usable_size */
#include "analyze/ts_alloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <tree_sitter/api.h>

#ifdef __GLIBC__
#include <malloc.h>

/* Per thread: the blocks the scanners freed last, at most KEPT, and the
 * small blocks tree-sitter freed, in lists by usable size (list k holds
 * blocks of KEPT_GRAIN * k to KEPT_GRAIN * k + KEPT_GRAIN - 1 usable
 * bytes), at most KEPT_BYTES of them. All are freed when the thread ends.
 *
 * The lists of all threads together hold at most PROCESS_KEPT_BYTES: a
 * thread takes its room from that budget KEPT_STEP at a time as its lists
 * grow (one atomic operation per KEPT_STEP bytes kept) and gives it back
 * when it ends; without room its freed blocks go to the C library. So a
 * machine with many cores (a worker per core) keeps no more than one
 * with four.
 *
 * Why tree-sitter's blocks are kept: a parse allocates a node of its tree
 * per token and per rule, and the tree is freed whole when the analysis
 * has walked it. glibc's per-thread cache takes only 7 blocks of a size,
 * so freeing a tree sent nearly every node through the arena's bins (and
 * malloc_consolidate), and the next parse took them out again. */
enum {
  KEPT = 4,
  KEPT_GRAIN = 8,
  KEPT_LISTS = 64,       /* usable sizes below 512 bytes */
  KEPT_BYTES = 8u << 20, /* per thread */
  KEPT_STEP = 1u << 20,
  PROCESS_KEPT_BYTES = 32u << 20,
};
typedef struct kept_node {
  struct kept_node *next;
} kept_node;
_Static_assert(KEPT_GRAIN >= sizeof(kept_node), "a kept block holds a link");
typedef struct kept_blocks {
  void *block[KEPT];
  size_t count;
  kept_node *list[KEPT_LISTS];
  size_t list_bytes;
  size_t room; /* taken from process_room; list_bytes <= room */
} kept_blocks;

static atomic_size_t process_room = PROCESS_KEPT_BYTES;
static _Thread_local kept_blocks *this_thread;
/* Set once this thread's kept blocks were freed at its end: a block freed
 * after that (by another key's destructor) goes to the C library, and no
 * new lists are made that nothing would free. */
static _Thread_local bool this_thread_ended;
static pthread_key_t kept_key; /* only for its destructor, free_kept */
static pthread_once_t kept_once = PTHREAD_ONCE_INIT;
static int key_made = -1; /* pthread_key_create's result */

static void free_kept(void *arg) {
  kept_blocks *k = arg;
  for (size_t i = 0; i < k->count; i++)
    free(k->block[i]);
  for (size_t i = 0; i < KEPT_LISTS; i++) {
    while (k->list[i]) {
      kept_node *next = k->list[i]->next;
      free(k->list[i]);
      k->list[i] = next;
    }
  }
  atomic_fetch_add(&process_room, k->room);
  free(k);
  this_thread = NULL;
  this_thread_ended = true;
}

static void make_key(void) {
  key_made = pthread_key_create(&kept_key, free_kept);
}

/* This thread's kept blocks, made at its first call; NULL when they
 * cannot be (then every call goes to the C library). */
static kept_blocks *kept(void) {
  if (this_thread || this_thread_ended)
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

/* tree-sitter's allocation functions: a block of a size with a list comes
 * from this thread's list of that size or the next (a block of the next
 * list is as large or larger), else from malloc; a freed block small
 * enough goes to this thread's list while the lists hold less than
 * KEPT_BYTES. Blocks move between threads with the trees that hold them;
 * any thread may keep or free any block, all come from malloc. */
static void *library_malloc(size_t size) {
  size_t want = (size + KEPT_GRAIN - 1) / KEPT_GRAIN;
  kept_blocks *k = want + 1 < KEPT_LISTS ? kept() : NULL;
  if (k) {
    for (size_t list = want ? want : 1; list <= want + 1; list++) {
      kept_node *block = k->list[list];
      if (block) {
        k->list[list] = block->next;
        k->list_bytes -= list * KEPT_GRAIN;
        return block;
      }
    }
  }
  void *block = malloc(size);
  if (!block)
    abort(); /* as tree-sitter's own allocator does */
  return block;
}

static void *library_calloc(size_t count, size_t size) {
  void *block = calloc(count, size);
  if (!block)
    abort();
  return block;
}

static void *library_realloc(void *block, size_t size) {
  void *moved = realloc(block, size);
  if (!moved && size)
    abort();
  return moved;
}

/* Adds KEPT_STEP (more than any kept block) to this thread's room from
 * the process's budget; false when the budget has less left. */
static bool take_room(kept_blocks *k) {
  size_t left = atomic_load(&process_room);
  while (left >= KEPT_STEP) {
    if (atomic_compare_exchange_weak(&process_room, &left, left - KEPT_STEP)) {
      k->room += KEPT_STEP;
      return true;
    }
  }
  return false;
}

static void library_free(void *block) {
  if (!block)
    return;
  /* List 0's blocks (below KEPT_GRAIN usable bytes, which glibc never
   * gives but valgrind's malloc does) cannot hold the list's link. */
  size_t list = malloc_usable_size(block) / KEPT_GRAIN;
  kept_blocks *k = list > 0 && list < KEPT_LISTS ? kept() : NULL;
  if (k && k->list_bytes + list * KEPT_GRAIN > k->room &&
      (k->room >= KEPT_BYTES || !take_room(k)))
    k = NULL;
  if (k) {
    kept_node *node = block;
    node->next = k->list[list];
    k->list[list] = node;
    k->list_bytes += list * KEPT_GRAIN;
  } else {
    free(block);
  }
}

void tl_ts_library_allocator_install(void) {
  ts_set_allocator(library_malloc, library_calloc, library_realloc,
                   library_free);
}

size_t tl_ts_kept_room_taken(void) {
  return PROCESS_KEPT_BYTES - atomic_load(&process_room);
}
#else
void tl_ts_library_allocator_install(void) {}
size_t tl_ts_kept_room_taken(void) { return 0; }

void *tl_ts_scanner_malloc(size_t size) { return malloc(size); }
void tl_ts_scanner_free(void *block) { free(block); }
void *tl_ts_scanner_realloc(void *block, size_t size) {
  return realloc(block, size);
}
#endif

void *tl_ts_scanner_calloc(size_t count, size_t size) {
  return calloc(count, size);
}
