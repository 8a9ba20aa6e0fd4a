/* fuzz_pycode.c: the JIT Python output-code analyzer (tl_pycode_analyze,
 * with its Triton and C++ injections) on any text; see code_check.h. */
#include "analyze/ts_chunk.h"
#include "code_check.h"

static volatile unsigned sink;

/* Analyzes with chunks of `limit` bytes (SIZE_MAX: one whole parse). */
static void analyze(const uint8_t *data, size_t size, size_t limit,
                    tl_buf *dump) {
  tl_str text = {(const char *)data, size};
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
  fuzz_chunked_equals_whole(analyze, data, size);
  return 0;
}
