/* corpus_test.c: the AOTInductor C++ analysis (src/analyze/cppcode.c) on the
 * corpus cases in tests/engine_cpp/cases/, one .txt file per topic, each
 *   === name / wrapper text / [--- kernel_code / kernel text] / --- / dump
 * with one real line shape (or a garbage input) per case.
 */
#include "dump.h"

/* ---- corpus cases -------------------------------------------------------- */

static int cases_run, cases_failed;

static void run_case(void *ctx, const char *file, const tl_case *c) {
  (void)ctx;
  tl_buf got;
  tl_buf_init(&got);
  analyze(c->input, c->kernels, c->has_kernels, &got);
  tl_str expected = case_trim(c->expected);
  tl_str actual = case_trim(tl_buf_str(&got));
  cases_run++;
  if (!tl_str_eq(actual, expected)) {
    cases_failed++;
    check_failures_in_test++;
    printf("  %s: case \"%.*s\"\n  expected:\n%.*s\n  got:\n%.*s\n", file,
           (int)c->name.len, c->name.ptr, (int)expected.len, expected.ptr,
           (int)actual.len, actual.ptr);
  }
  tl_buf_free(&got);
}

/* Splits a case file at its `===` lines and runs every case. */
static void run_case_file(const char *file) {
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/engine_cpp/cases/%s", TL_SOURCE_DIR,
           file);
  CHECK(tl_case_file_each(path, file, run_case, NULL) >= 0);
}

TEST(cppcode_matches_every_corpus_case) {
  static const char *const files[] = {"calls.txt", "handles.txt",
                                      "definitions.txt", "garbage.txt",
                                      "subgraphs.txt"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++)
    run_case_file(files[i]);
  printf("  %d corpus cases, %d failed\n", cases_run, cases_failed);
  CHECK(cases_run >= 20);
}

/* ---- inputs a case file cannot hold ----------------------------------- */

static const char crlf_wrapper[] =
    "void AOTInductorModel::run_impl(\r\n"
    "    AOTIProxyExecutorHandle proxy_executor\r\n"
    ") {\r\n"
    "    // [Provenance debug handles] triton_poi_fused_mul_1:2\r\n"
    "    call_triton_poi_fused_mul_1(arg3_1, buf2, 200L, stream, kernels);\r\n"
    "}\r\n";

TEST(cppcode_trims_crlf_from_handle_keys) {
  tl_buf got;
  tl_buf_init(&got);
  analyze(TL_STR_LIT(crlf_wrapper), (tl_str){NULL, 0}, false, &got);
  CHECK_STR_EQ(got.data, "entry 3-6\n"
                         "call 5 triton_poi_fused_mul_1 triton "
                         "triton_poi_fused_mul_1:2\n");
  tl_buf_free(&got);
}

TEST(cppcode_reads_past_nul_bytes) {
  static const char text[] =
      "\0\0garbage\0\n"
      "void AOTInductorModel::run_impl() {\n"
      "    cpp_fused_gelu_1((float*)(buf4.data_ptr()));\n"
      "}\n";
  tl_buf got;
  tl_buf_init(&got);
  analyze((tl_str){text, sizeof text - 1}, (tl_str){text, sizeof text - 1},
          true, &got);
  CHECK_STR_EQ(got.data, "entry 2-4\ncall 3 cpp_fused_gelu_1 cpp\n");
  tl_buf_free(&got);
}

TEST(cppcode_takes_null_texts_as_empty) {
  tl_buf got;
  tl_buf_init(&got);
  analyze((tl_str){NULL, 0}, (tl_str){NULL, 0}, true, &got);
  CHECK_STR_EQ(got.data, "entry 0-0\n");
  tl_buf_free(&got);
}

/* Counts the lines of a text as the analyses do (a last line without its
 * newline still counts). */
static int count_lines(tl_str t) {
  int lines = 1;
  for (size_t i = 0; i < t.len; i++)
    lines += t.ptr[i] == '\n';
  return lines;
}

/* Every line an analysis reports lies in its text, ranges are ordered and
 * calls come in text order. */
static void check_invariants(const tl_code_analysis *r, tl_str code,
                             tl_str kernels) {
  int code_lines = count_lines(code), kernel_lines = count_lines(kernels);
  CHECK(r->entry_first >= 0 && r->entry_first <= r->entry_last &&
        r->entry_last <= code_lines);
  for (size_t i = 0; i < r->def_count; i++) {
    int max = r->defs[i].file == TL_CODE_MAIN ? code_lines : kernel_lines;
    CHECK(r->defs[i].first >= 1 && r->defs[i].first <= r->defs[i].last &&
          r->defs[i].last <= max);
    CHECK(r->defs[i].name.len > 0);
  }
  for (size_t i = 0; i < r->embedded_count; i++)
    CHECK(r->embedded[i].first >= 1 &&
          r->embedded[i].first <= r->embedded[i].last &&
          r->embedded[i].last <= code_lines);
  for (size_t i = 0; i < r->call_count; i++) {
    CHECK(r->calls[i].line >= 1 && r->calls[i].line <= code_lines);
    CHECK(r->calls[i].name.len > 0);
    CHECK(i == 0 || r->calls[i - 1].line <= r->calls[i].line);
  }
}

/* Slices of real wrapper shapes spliced at random: cut comments, raw
 * strings, launchers and calls. Deterministic (fixed seed). */
TEST(cppcode_survives_spliced_wrapper_fragments) {
  static const char *const pieces[] = {
      "void AOTInductorModel::run_impl(\n",
      ") {\n",
      "}\n",
      "{",
      "}",
      "    // [Provenance debug handles] triton_poi_fused_mul_1:2\n",
      "    // [Provenance debug handles] aoti_torch_cuda_mm_out:",
      "call_triton_poi_fused_mul_1(arg3_1, buf2, 200L);\n",
      "AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_mm_out(buf0, arg2_1));\n",
      "KernelContextGuard _ctx(\"k\", R\"(\n  File \"x.py\"\n)\");\n",
      "R\"(",
      ")\"",
      "/*\n",
      "*/\n",
      "'''\n",
      "    async_compile.triton('triton_poi_fused_mul_1', '''\n",
      "    ''', device_str='cuda')\n",
      ("template <typename T>\nstatic inline void "
       "call_triton_poi_fused_mul_1(\n"),
      "extern \"C\"  void cpp_fused_gelu_1(float* in_out_ptr0);\n",
      "cpp_fused_gelu_1((float*)(buf4.data_ptr()));\n",
      "launchKernel(kernels.triton_poi_fused_mul_1, 1, 1, 1);\n",
      "        if pid < num_xblocks_0:\n        elif pid < num_xblocks_1:\n",
      "\xff\xfe",
      "\r\n",
      "\"",
      "(",
      ")",
      ";"};
  const size_t n = sizeof pieces / sizeof *pieces;
  uint32_t seed = 12345;
  for (int round = 0; round < 80; round++) {
    tl_buf text;
    tl_buf_init(&text);
    seed = seed * 1103515245u + 12345u;
    int count = 1 + (int)((seed >> 16) % 40);
    for (int i = 0; i < count; i++) {
      seed = seed * 1103515245u + 12345u;
      tl_buf_puts(&text, pieces[(seed >> 16) % n]);
    }
    tl_arena arena;
    tl_arena_init(&arena);
    tl_code_analysis r;
    tl_cppcode_analyze(&arena, tl_buf_str(&text), &r);
    tl_str half = {text.data, text.len / 2};
    tl_cppkernels_analyze(&arena, half, &r);
    check_invariants(&r, tl_buf_str(&text), half);
    tl_arena_free(&arena);
    tl_buf_free(&text);
  }
}

int main(void) {
  RUN(cppcode_matches_every_corpus_case);
  RUN(cppcode_trims_crlf_from_handle_keys);
  RUN(cppcode_reads_past_nul_bytes);
  RUN(cppcode_takes_null_texts_as_empty);
  RUN(cppcode_survives_spliced_wrapper_fragments);
  return check_summary();
}
