/* test_corpus.c: runs the analyzer corpus files under tests/engine/corpus/.
 *
 * Each file holds cases `=== name` / input lines / `---` / expected dump; the
 * analyzer is chosen by the file (fx_graph.txt, pycode.txt). A case passes
 * when the dump of the analysis equals the expected lines exactly.
 *   test_corpus                 run every case (ctest)
 *   test_corpus fx|py FILE      print the dump of FILE (for writing cases)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "case_file.h"
#include "check.h"
#include "dump.h"
#include "util/fsutil.h"

typedef void (*dump_fn)(tl_str input, tl_buf *out);

/* One case: the dump of its input must equal its expected lines. */
static void run_case(void *ctx, const char *file, const tl_case *c) {
  dump_fn dump = *(const dump_fn *)ctx;
  tl_buf actual;
  tl_buf_init(&actual);
  dump(c->input, &actual);
  tl_str got = case_trim(tl_buf_str(&actual));
  tl_str expected = case_trim(c->expected);
  if (!tl_str_eq(got, expected)) {
    printf("  %s: case \"%.*s\"\n  expected:\n%.*s\n  actual:\n%.*s\n", file,
           (int)c->name.len, c->name.ptr, (int)expected.len, expected.ptr,
           (int)got.len, got.ptr);
    check_failures_in_test++;
  }
  tl_buf_free(&actual);
}

/* Runs every case of one corpus file; returns the number of cases. */
static int run_file(const char *path, dump_fn dump) {
  int cases = tl_case_file_each(path, path, run_case, &dump);
  CHECK(cases >= 0);
  return cases;
}

TEST(fx_graph_corpus_cases_all_match) {
  int n = run_file(TL_SOURCE_DIR "/tests/engine/corpus/fx_graph.txt", dump_fx);
  CHECK(n >= 10);
}

TEST(pycode_corpus_cases_all_match) {
  int n = run_file(TL_SOURCE_DIR "/tests/engine/corpus/pycode.txt", dump_py);
  CHECK(n >= 10);
}

#ifdef HAVE_CPPCODE
TEST(pycode_cpp_wrapper_corpus_cases_all_match) {
  int n = run_file(TL_SOURCE_DIR "/tests/engine/corpus/pycode_cpp_wrapper.txt",
                   dump_py);
  CHECK(n >= 8);
}
#endif

TEST(analyzers_accept_empty_and_garbage_input) {
  tl_arena arena;
  tl_arena_init(&arena);
  tl_fx_graph g;
  tl_code_analysis a;
  tl_fx_analyze(&arena, (tl_str){NULL, 0}, &g);
  CHECK_INT_EQ(g.node_count, 0);
  tl_str junk = TL_STR_LIT("\x01\xff''' ((( class <<< def forward(:\n\t\t]]");
  tl_fx_analyze(&arena, junk, &g);
  tl_pycode_analyze(&arena, junk, &a);
  CHECK_INT_EQ(a.call_count, 0);
  tl_pycode_analyze(&arena, (tl_str){NULL, 0}, &a);
  CHECK_INT_EQ(a.def_count, 0);
  CHECK_INT_EQ(tl_fx_lookup(&g, TL_STR_LIT("x")), 0);
  tl_arena_free(&arena);
}

TEST(a_name_of_two_graphs_has_both_definitions_the_outer_first) {
  tl_arena arena;
  tl_arena_init(&arena);
  tl_fx_graph g;
  tl_str text = TL_STR_LIT("class G(torch.nn.Module):\n"
                           "    def forward(self, x):\n"
                           "        mul = x * 3\n"
                           "        mul = x * 4\n"
                           "        return (mul,)\n"
                           "    class true_graph_0(torch.nn.Module):\n"
                           "        def forward(self, x):\n"
                           "            relu = x.relu()\n"
                           "            mul = relu * 2\n"
                           "            mul = relu * 5\n"
                           "            return (mul,)\n");
  tl_fx_analyze(&arena, text, &g);
  size_t count = 0;
  const tl_fx_node *mul = tl_fx_definitions(&g, TL_STR_LIT("mul"), &count);
  CHECK_INT_EQ(count, 2); /* the first of each graph */
  CHECK(mul && mul[0].line == 3 && mul[1].line == 9);
  CHECK_INT_EQ(tl_fx_lookup(&g, TL_STR_LIT("mul")), 3);
  const tl_fx_node *relu = tl_fx_definitions(&g, TL_STR_LIT("relu"), &count);
  CHECK(relu && count == 1 && relu->line == 8);
  CHECK(!tl_fx_definitions(&g, TL_STR_LIT("mu"), &count) && count == 0);
  CHECK(!tl_fx_definitions(&g, TL_STR_LIT("zzz"), &count) && count == 0);
  tl_arena_free(&arena);
}

int main(int argc, char **argv) {
  if (argc == 3) {
    size_t len = 0;
    char *text = tl_fs_read_all(argv[2], &len);
    if (!text)
      return 2;
    tl_buf out;
    tl_buf_init(&out);
    (strcmp(argv[1], "fx") == 0 ? dump_fx : dump_py)((tl_str){text, len}, &out);
    fputs(out.data, stdout);
    tl_buf_free(&out);
    free(text);
    return 0;
  }
  RUN(fx_graph_corpus_cases_all_match);
  RUN(pycode_corpus_cases_all_match);
#ifdef HAVE_CPPCODE
  RUN(pycode_cpp_wrapper_corpus_cases_all_match);
#endif
  RUN(analyzers_accept_empty_and_garbage_input);
  RUN(a_name_of_two_graphs_has_both_definitions_the_outer_first);
  return check_summary();
}
