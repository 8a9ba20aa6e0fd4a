/* ts_alloc_test.c: the blocks tree-sitter frees are kept per thread
 * (analyze/ts_alloc.h) within two bounds, 8 MiB a thread and 32 MiB for
 * all threads together, and a thread's room goes back to the process when
 * it ends. Each thread parses a Python text whose tree holds more than
 * 8 MiB of small blocks, frees the tree, and waits at a barrier while the
 * room taken is read. */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <tree_sitter/api.h>

#include "analyze/ts_alloc.h"
#include "check.h"

const TSLanguage *tree_sitter_python(void);

enum { MIB = 1 << 20, LINES = 12000 };

static char *python_text;
static size_t python_len;
static pthread_barrier_t parsed, read_room;

/* LINES assignments, each a call, a subscript and a sum: tree-sitter gives
 * each rule's node a block of its own. Its tree frees about 8 MiB at 4,000
 * lines (5 MiB at 2,000). */
static void make_text(void) {
  const char *line = "value_%d = compute(first[%d], second) + %d\n";
  size_t cap = (size_t)LINES * 64;
  python_text = malloc(cap);
  for (int i = 0; i < LINES; i++)
    python_len += (size_t)snprintf(python_text + python_len, cap - python_len,
                                   line, i, i, i);
}

/* Parses the text and frees its tree, then waits until the main thread
 * has read the room taken. */
static void *parse_and_wait(void *unused) {
  (void)unused;
  TSParser *parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_python());
  TSTree *tree =
      ts_parser_parse_string(parser, NULL, python_text, (uint32_t)python_len);
  ts_tree_delete(tree);
  ts_parser_delete(parser);
  pthread_barrier_wait(&parsed);
  pthread_barrier_wait(&read_room);
  return NULL;
}

/* Runs `threads` threads to the barrier; returns the room they had taken
 * there. */
static size_t room_taken_by(int threads) {
  pthread_t id[8];
  pthread_barrier_init(&parsed, NULL, (unsigned)threads + 1);
  pthread_barrier_init(&read_room, NULL, (unsigned)threads + 1);
  for (int i = 0; i < threads; i++)
    pthread_create(&id[i], NULL, parse_and_wait, NULL);
  pthread_barrier_wait(&parsed);
  size_t taken = tl_ts_kept_room_taken();
  pthread_barrier_wait(&read_room);
  for (int i = 0; i < threads; i++)
    pthread_join(id[i], NULL);
  pthread_barrier_destroy(&parsed);
  pthread_barrier_destroy(&read_room);
  return taken;
}

TEST(one_thread_keeps_at_most_eight_mib) {
  CHECK_INT_EQ(room_taken_by(1), 8 * MIB);
  CHECK_INT_EQ(tl_ts_kept_room_taken(), 0); /* given back at its end */
}

TEST(three_threads_keep_eight_mib_each) {
  CHECK_INT_EQ(room_taken_by(3), 24 * MIB);
  CHECK_INT_EQ(tl_ts_kept_room_taken(), 0);
}

TEST(six_threads_share_thirty_two_mib) {
  CHECK_INT_EQ(room_taken_by(6), 32 * MIB);
  CHECK_INT_EQ(tl_ts_kept_room_taken(), 0);
}

int main(void) {
  tl_ts_library_allocator_install();
  make_text();
  RUN(one_thread_keeps_at_most_eight_mib);
  RUN(three_threads_keep_eight_mib_each);
  RUN(six_threads_share_thirty_two_mib);
  free(python_text);
  return check_summary();
}
