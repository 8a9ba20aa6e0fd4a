/* fuzz_pycode.c: the JIT Python output-code analyzer (tl_pycode_analyze,
 * with its Triton and C++ injections) on any text; see code_check.h. */
#include "code_check.h"

static volatile unsigned sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tl_str text = {(const char *)data, size};
  tl_arena arena;
  tl_arena_init(&arena);
  tl_code_analysis a;
  memset(&a, 0x5a, sizeof a); /* the analyzer must fill every field */
  tl_pycode_analyze(&arena, text, &a);
  sink = code_check(&a, fuzz_line_count(text), 0);
  tl_arena_free(&arena);
  return 0;
}
