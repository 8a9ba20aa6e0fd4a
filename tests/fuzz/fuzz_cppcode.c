/* fuzz_cppcode.c: the AOTInductor analyzers on any text: the input is
 * `wrapper \x1e kernel_code` (see fuzz_split); the wrapper goes through
 * tl_cppcode_analyze and, when present, the kernel code through
 * tl_cppkernels_analyze into the same result; see code_check.h. */
#include "code_check.h"

static volatile unsigned sink;

/* Analyzes with chunks of `limit` bytes (SIZE_MAX: one whole parse). */
static void analyze(tl_str wrapper, tl_str kernels, size_t limit,
                    tl_buf *dump) {
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
  tl_str wrapper, kernels;
  fuzz_split(data, size, &wrapper, &kernels);
  tl_buf whole, chunked;
  tl_buf_init(&whole);
  tl_buf_init(&chunked);
  analyze(wrapper, kernels, SIZE_MAX, &whole);
  analyze(wrapper, kernels, 1 + (size ? data[0] % 512 : 0), &chunked);
  FUZZ_CHECK(strcmp(whole.data, chunked.data) == 0);
  tl_buf_free(&whole);
  tl_buf_free(&chunked);
  return 0;
}
