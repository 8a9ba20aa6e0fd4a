/* fuzz.h: what every fuzz harness in tests/fuzz/ shares.
 *
 * Each harness defines LLVMFuzzerTestOneInput (and may define
 * LLVMFuzzerInitialize). Built with clang -fsanitize=fuzzer it is a libFuzzer
 * target (tests/fuzz/run_all.sh); linked with replay_main.c it replays corpus
 * files under ctest. FUZZ_CHECK aborts on a broken invariant, so the fuzzer
 * reports it like a crash. Harnesses own nothing across calls except what
 * LLVMFuzzerInitialize sets up once.
 */
#ifndef TL_FUZZ_H
#define TL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n", #cond, __FILE__,  \
              __LINE__);                                                       \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* The byte that splits one input into two texts (ASCII record separator):
 * `first \x1e second`. Without it the whole input is the first text and the
 * second is absent (ptr NULL). */
enum { FUZZ_SEPARATOR = 0x1e };

static inline void fuzz_split(const uint8_t *data, size_t size, tl_str *first,
                              tl_str *second) {
  const uint8_t *sep = size ? memchr(data, FUZZ_SEPARATOR, size) : NULL;
  if (!sep) {
    *first = (tl_str){(const char *)data, size};
    *second = (tl_str){NULL, 0};
    return;
  }
  *first = (tl_str){(const char *)data, (size_t)(sep - data)};
  *second = (tl_str){(const char *)sep + 1, size - (size_t)(sep - data) - 1};
}

/* Reads every byte of `s`, so ASan sees a slice that points at freed or
 * foreign memory. Returns a value the caller must use. */
static inline unsigned fuzz_touch(tl_str s) {
  unsigned sum = 0;
  for (size_t i = 0; i < s.len; i++)
    sum += (unsigned char)s.ptr[i];
  return sum;
}

/* 1 + the number of '\n' in `s`: the highest valid 1-based line. */
static inline int fuzz_line_count(tl_str s) {
  int n = 1;
  for (size_t i = 0; i < s.len; i++)
    n += s.ptr[i] == '\n';
  return n;
}

/* Counts case-insensitive occurrences of `needle` in `hay`. */
static inline size_t fuzz_count_ci(tl_str hay, const char *needle) {
  size_t n = strlen(needle), count = 0;
  for (size_t i = 0; n && i + n <= hay.len; i++) {
    size_t k = 0;
    while (k < n) {
      char a = hay.ptr[i + k], b = needle[k];
      if (a >= 'A' && a <= 'Z')
        a = (char)(a - 'A' + 'a');
      if (a != b)
        break;
      k++;
    }
    count += k == n;
  }
  return count;
}

/* The differential check of the analyzer harnesses: `analyze` dumps its
 * analysis of the input with chunks of `limit` bytes; parsing in chunks of
 * 1 to 512 bytes (chosen by the first byte) must give exactly the dump of one
 * whole parse (limit SIZE_MAX). */
typedef void (*fuzz_analyze_fn)(const uint8_t *data, size_t size, size_t limit,
                                tl_buf *dump);

static inline void fuzz_chunked_equals_whole(fuzz_analyze_fn analyze,
                                             const uint8_t *data, size_t size) {
  tl_buf whole, chunked;
  tl_buf_init(&whole);
  tl_buf_init(&chunked);
  analyze(data, size, SIZE_MAX, &whole);
  analyze(data, size, 1 + (size ? data[0] % 512 : 0), &chunked);
  if (strcmp(whole.data, chunked.data) != 0) {
    /* Say where: the first line of the dumps that differs. */
    size_t at = 0, line = 1;
    while (whole.data[at] && whole.data[at] == chunked.data[at])
      line += whole.data[at++] == '\n';
    size_t start = at;
    while (start > 0 && whole.data[start - 1] != '\n')
      start--;
    fprintf(stderr,
            "chunks of %d bytes: dump line %zu differs\n"
            "  whole:   %.200s\n  chunked: %.200s\n",
            1 + (size ? data[0] % 512 : 0), line, whole.data + start,
            chunked.data + start);
  }
  FUZZ_CHECK(strcmp(whole.data, chunked.data) == 0);
  tl_buf_free(&whole);
  tl_buf_free(&chunked);
}

#endif
