/* fixtures_test.c: the AOTInductor C++ analysis (src/analyze/cppcode.c) on the
 * three real AOT wrappers of the shared fixtures; their payloads are cut out
 * of the trace logs here. Skipped (77) when the fixtures folder is absent.
 */
#include "dump.h"

/* ---- the real AOT wrappers of the fixtures ------------------------------- */

/* The payload (tab lines) after the graph_dump envelope named `artifact` in
 * the trace log `log`; false when the log or the artifact is absent. */
static bool fixture_payload(const char *log, const char *artifact,
                            tl_buf *out) {
  const char *dir = check_fixtures_dir();
  if (!dir)
    return false;
  char path[4096], needle[256];
  snprintf(path, sizeof path, "%s/%s", dir, log);
  snprintf(needle, sizeof needle, "{\"graph_dump\": {\"name\": \"%s\"",
           artifact);
  size_t len = 0;
  char *text = tl_fs_read_all(path, &len);
  if (!text)
    return false;
  const char *end = text + len, *hit = strstr(text, needle);
  bool found = hit != NULL;
  const char *p = found ? case_next_line(hit, end) : end;
  while (p < end && *p == '\t') {
    const char *line_end = case_next_line(p, end);
    tl_buf_append(out, p + 1, (size_t)(line_end - p - 1));
    p = line_end;
  }
  free(text);
  return found;
}

static void check_fixture(const char *log, const char *expected) {
  tl_buf wrapper, kernels, got;
  tl_buf_init(&wrapper);
  tl_buf_init(&kernels);
  tl_buf_init(&got);
  bool ok = fixture_payload(log, "inductor_aot_wrapper_code", &wrapper) &&
            fixture_payload(log, "inductor_aot_kernel_code", &kernels);
  CHECK(ok);
  if (ok) {
    analyze(tl_buf_str(&wrapper), tl_buf_str(&kernels), true, &got);
    CHECK_STR_EQ(got.data, expected);
  }
  tl_buf_free(&wrapper);
  tl_buf_free(&kernels);
  tl_buf_free(&got);
}

/* May 2025, CUDA: three launchers with their Triton source, two mm shims;
 * the kernel-code artifact is only a stub comment. */
TEST(cppcode_finds_launchers_and_calls_of_the_real_cuda_wrapper) {
  check_fixture("inductor_provenance_aot_cuda_log.txt",
                "entry 1039-1089\n"
                "def triton_poi_fused_addmm_relu_sigmoid_0 triton code "
                "581-637\n"
                "def triton_poi_fused_mul_1 triton code 639-691\n"
                "def triton_poi_fused_addmm_gelu_2 triton code 693-753\n"
                "embedded python code 592-622\n"
                "embedded python code 650-676\n"
                "embedded python code 704-738\n"
                "call 1056 aoti_torch_empty_strided shim\n"
                "call 1061 aoti_torch_cuda_mm_out shim\n"
                "call 1065 triton_poi_fused_addmm_relu_sigmoid_0 triton\n"
                "call 1069 aoti_torch_empty_strided shim\n"
                "call 1072 triton_poi_fused_mul_1 triton\n"
                "call 1077 aoti_torch_empty_strided shim\n"
                "call 1080 aoti_torch_cuda_mm_out shim\n"
                "call 1085 triton_poi_fused_addmm_gelu_2 triton\n");
}

/* May 2025, CPU: the two cpp_fused_* bodies of the kernel-code artifact
 * replace the wrapper's extern "C" declarations (lines 436-439). */
TEST(cppcode_takes_cpu_kernel_bodies_from_the_real_kernel_code) {
  check_fixture("inductor_provenance_aot_log.txt",
                "entry 794-838\n"
                "def cpp_fused_mul_relu_sigmoid_0 cpp kernel_code 4-37\n"
                "def cpp_fused_gelu_1 cpp kernel_code 40-81\n"
                "call 809 aoti_torch_empty_strided shim\n"
                "call 814 aoti_torch_cpu_addmm_out shim\n"
                "call 820 aoti_torch_empty_strided shim\n"
                "call 822 cpp_fused_mul_relu_sigmoid_0 cpp\n"
                "call 827 aoti_torch_empty_strided shim\n"
                "call 830 aoti_torch_cpu_addmm_out shim\n"
                "call 835 cpp_fused_gelu_1 cpp\n");
}

/* March 2025 (era A), CPU: same model, older wrapper layout. */
TEST(cppcode_reads_the_real_early_2025_cpu_wrapper) {
  check_fixture("inductor_provenance_aot_log_old.txt",
                "entry 676-721\n"
                "def cpp_fused_mul_relu_sigmoid_0 cpp kernel_code 3-36\n"
                "def cpp_fused_gelu_1 cpp kernel_code 39-80\n"
                "call 692 aoti_torch_empty_strided shim\n"
                "call 697 aoti_torch_cpu_addmm_out shim\n"
                "call 703 aoti_torch_empty_strided shim\n"
                "call 705 cpp_fused_mul_relu_sigmoid_0 cpp\n"
                "call 710 aoti_torch_empty_strided shim\n"
                "call 713 aoti_torch_cpu_addmm_out shim\n"
                "call 718 cpp_fused_gelu_1 cpp\n");
}

int main(void) {
  if (!check_fixtures_dir()) {
    printf("skip: the shared fixtures folder is absent\n");
    return 77;
  }
  RUN(cppcode_finds_launchers_and_calls_of_the_real_cuda_wrapper);
  RUN(cppcode_takes_cpu_kernel_bodies_from_the_real_kernel_code);
  RUN(cppcode_reads_the_real_early_2025_cpu_wrapper);
  return check_summary();
}
