/* fuzz_pycode.c: the JIT Python output-code analyzer (tl_pycode_analyze,
 * with its Triton and C++ injections) on any text; see code_check.h. */
#include "code_check.h"

static volatile unsigned sink;

/* Analyzes with chunks of `limit` bytes (SIZE_MAX: one whole parse). */
static void analyze(tl_str text, size_t limit, tl_buf *dump) {
  tl_ts_chunk_limit = limit;
  tl_arena arena;
  tl_arena_init(&arena);
  tl_code_analysis a;
  memset(&a, 0x5a, sizeof a); /* the analyzer must fill every field */
  tl_pycode_analyze(&arena, text, &a);
  sink = code_check(&a, fuzz_line_count(text), 0);
  code_dump(&a, dump);
  tl_arena_free(&arena);
}

/* Also differential: parsing in chunks of whole statements must give exactly
 * the result of one whole parse. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tl_str text = {(const char *)data, size};
  tl_buf whole, chunked;
  tl_buf_init(&whole);
  tl_buf_init(&chunked);
  analyze(text, SIZE_MAX, &whole);
  analyze(text, 1 + (size ? data[0] % 512 : 0), &chunked);
  FUZZ_CHECK(strcmp(whole.data, chunked.data) == 0);
  tl_buf_free(&whole);
  tl_buf_free(&chunked);
  return 0;
}
