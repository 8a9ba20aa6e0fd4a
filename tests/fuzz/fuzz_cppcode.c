/* fuzz_cppcode.c: the AOTInductor analyzers on any text: the input is
 * `wrapper \x1e kernel_code` (see fuzz_split); the wrapper goes through
 * tl_cppcode_analyze and, when present, the kernel code through
 * tl_cppkernels_analyze into the same result; see code_check.h. */
#include "analyze/ts_chunk.h"
#include "code_check.h"

static volatile unsigned sink;

/* Analyzes with chunks of `limit` bytes (SIZE_MAX: one whole parse). */
static void analyze(const uint8_t *data, size_t size, size_t limit,
                    tl_buf *dump) {
  tl_str wrapper, kernels;
  fuzz_split(data, size, &wrapper, &kernels);
  tl_ts_chunk_limit = limit;
  tl_arena arena;
  tl_arena_init(&arena);
  tl_code_analysis a;
  memset(&a, 0x5a, sizeof a); /* the analyzer must fill every field */
  tl_cppcode_analyze(&arena, wrapper, &a);
  unsigned sum = code_check(&a, fuzz_line_count(wrapper), 0);
  if (kernels.ptr) {
    tl_cppkernels_analyze(&arena, kernels, &a);
    sum += code_check(&a, fuzz_line_count(wrapper), fuzz_line_count(kernels));
  }
  sink = sum;
  code_dump(&a, dump);
  tl_arena_free(&arena);
}

/* Also differential: parsing in chunks of whole definitions must give
 * exactly the result of one whole parse. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_chunked_equals_whole(analyze, data, size);
  return 0;
}
