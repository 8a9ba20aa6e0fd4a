/* chunks_test.c: chunked parsing of AOTInductor C++ (src/cppcode.c over the
 * chunker of src/ts_query.c).
 *
 * The C++ scanner is tested on what can hide the end of a top-level
 * definition: a `}` in a string, a character literal, a comment, a raw
 * string (KernelContextGuard), a #define body; `struct S {...} s;`; #if
 * nesting. Then both analyses of every corpus case (tests/engine_cpp/cases)
 * and of the fixtures' AOT wrappers and kernel code are run with tiny chunk
 * sizes and must dump exactly as with the text parsed whole.
 */
#include "cuts_text.h"
#include "dump.h"
#include "ts_chunk.h"
#include "ts_query.h"

#include <stdint.h>

/* ---- the scanner ----------------------------------------------------------
 */

/* The cuts of `text` as "a,b,c" ("unsure" when the scanner is). */
static const char *cpp_cuts(const char *text) {
  return cuts_text(tl_ts_cpp_cuts, text);
}

TEST(cpp_scanner_cuts_after_each_top_level_definition) {
  /* `int a;` 6 bytes; `void f() {}` ends at 18; `namespace n {}` at 33;
   * the last cut leaves only the final newline after it. */
  CHECK_STR_EQ(cpp_cuts("int a;\nvoid f() {}\nnamespace n {}\nint b;\n"),
               "6,18,33,40");
  /* Inside a body nothing cuts. */
  CHECK_STR_EQ(cpp_cuts("void f() { a; { b; } }\nint c;\n"), "22,29");
  CHECK_STR_EQ(cpp_cuts(""), "");
  CHECK_STR_EQ(cpp_cuts("int a;"), "");
}

TEST(cpp_scanner_ignores_braces_in_strings_chars_and_comments) {
  CHECK_STR_EQ(cpp_cuts("void f() { s = \"}\\\"}\"; }\nint b;\n"), "24,31");
  CHECK_STR_EQ(cpp_cuts("void f() { c = '}'; d = '\\''; }\nint b;\n"), "31,38");
  CHECK_STR_EQ(cpp_cuts("void f() { // }\n}\nint b;\n"), "17,24");
  /* The Triton source of a launcher lives in a block comment. */
  CHECK_STR_EQ(cpp_cuts("void f() {\n/*\ndef k(): } ; '''\n*/\n}\nint b;\n"),
               "35,42");
  /* 1'000 is a number with digit separators, not a character literal. */
  CHECK_STR_EQ(cpp_cuts("int a = 1'000'000;\nint b;\n"), "18,25");
}

TEST(cpp_scanner_skips_raw_strings_whole) {
  /* KernelContextGuard's source: a raw string full of braces and quotes. */
  CHECK_STR_EQ(cpp_cuts("void f() { g(R\"KCG(\n} \" ' )\" }\n)KCG\"); }\n"
                        "int b;\n"),
               "40,47");
  CHECK_STR_EQ(cpp_cuts("auto s = u8R\"(})\";\nint b;\n"), "18,25");
  /* An identifier ending in R before a string is no raw string: the
   * string is "x(", where a raw one would be left open. */
  CHECK_STR_EQ(cpp_cuts("int a = FOOR\"x(\";\nint b;\n"), "17,24");
  CHECK_STR_EQ(cpp_cuts("int a = R\"x(\";\nint b;\n"), "unsure");
  CHECK_STR_EQ(cpp_cuts("auto s = R\"x(\n}\n"), "unsure");
}

TEST(cpp_scanner_leaves_preprocessor_lines_and_if_nesting_whole) {
  /* A macro body with braces and a `;` at its end. */
  CHECK_STR_EQ(cpp_cuts("#define CHECK(x) \\\n  do { x; } while (0);\n"
                        "int a;\n"),
               "48");
  /* No cut inside #if ... #endif; one after it. */
  CHECK_STR_EQ(cpp_cuts("#ifdef A\nint a;\nvoid f() {}\n#endif\nint b;\n"
                        "int c;\n"),
               "41,48");
  CHECK_STR_EQ(cpp_cuts("#endif\nint a;\n"), "unsure");
}

TEST(cpp_scanner_ends_types_and_initializers_at_their_semicolon) {
  CHECK_STR_EQ(cpp_cuts("struct S { int a; } s;\nint b;\n"), "22,29");
  CHECK_STR_EQ(cpp_cuts("class K {\n};\nint a[] = {1, 2};\nint b;\n"),
               "12,30,37");
  CHECK_STR_EQ(cpp_cuts("extern \"C\" {\nvoid f();\n}\nint b;\n"), "24,31");
}

TEST(cpp_scanner_is_unsure_of_unbalanced_input) {
  CHECK_STR_EQ(cpp_cuts("void f() {\nint a;\n"), "unsure");
  CHECK_STR_EQ(cpp_cuts("}\nint a;\n"), "unsure");
  CHECK_STR_EQ(cpp_cuts("int a; /* open\nint b;\n"), "unsure");
  CHECK_STR_EQ(cpp_cuts("char *s = \"open\nint b;\n"), "unsure");
  tl_ts_cuts cuts = {0};
  CHECK(!tl_ts_cpp_cuts((tl_str){"int a;\0int b;", 13}, &cuts));
  CHECK_INT_EQ(cuts.count, 0);
  TL_VEC_FREE(cuts);
}

/* ---- the chunker ----------------------------------------------------------
 */

TEST(chunker_gives_whole_definitions_in_the_text_coordinates) {
  const char *text = "int a;\nvoid f() {\n  g();\n}\nint b;\n";
  tl_ts_chunk_limit = 1;
  tl_ts_chunker ch;
  bool restart;
  tl_ts_chunker_begin(&ch, tree_sitter_cpp(), tl_str_from(text),
                      tl_ts_cpp_cuts);
  static const char *const want[] = {"int a;", "void f() {\n  g();\n}",
                                     "int b;"};
  static const unsigned rows[] = {0, 1, 4};
  size_t k = 0;
  for (TSTree *t; (t = tl_ts_chunker_next(&ch, &restart)); k++) {
    TSNode item = ts_node_named_child(ts_tree_root_node(t), 0);
    tl_str got = tl_ts_text(item, tl_str_from(text));
    CHECK(!restart);
    if (k < 3) {
      CHECK(tl_str_eq_cstr(got, want[k]));
      CHECK_INT_EQ(ts_node_start_point(item).row, rows[k]);
    }
    ts_tree_delete(t);
  }
  CHECK_INT_EQ(k, 4); /* the last chunk is the final newline */
  tl_ts_chunker_end(&ch);
  tl_ts_chunk_limit = (size_t)1 << 20;
}

TEST(chunker_falls_back_to_the_whole_text_on_a_top_level_error) {
  /* Balanced for the scanner, but `@@ ;` is no C++ item. */
  const char *text = "int a;\n@@ ;\nint c;\n";
  tl_ts_chunk_limit = 1;
  tl_ts_chunker ch;
  bool restart;
  tl_ts_chunker_begin(&ch, tree_sitter_cpp(), tl_str_from(text),
                      tl_ts_cpp_cuts);
  TSTree *t = tl_ts_chunker_next(&ch, &restart);
  CHECK(t && !restart); /* int a; */
  ts_tree_delete(t);
  t = tl_ts_chunker_next(&ch, &restart);
  CHECK(t && restart); /* the whole text */
  if (t)
    CHECK_INT_EQ(ts_node_end_byte(ts_tree_root_node(t)), strlen(text));
  ts_tree_delete(t);
  CHECK(tl_ts_chunker_next(&ch, &restart) == NULL);
  tl_ts_chunker_end(&ch);
  tl_ts_chunk_limit = (size_t)1 << 20;
}

/* ---- chunked analysis equals whole analysis --------------------------------
 */

static const size_t LIMITS[] = {1, 64, 1000, 20000};

/* Both analyses whole and in chunks of each size of LIMITS; every dump must
 * equal the whole one. Returns the chunks the wrapper makes at size 1. */
static size_t check_chunked_equals_whole(const char *what, tl_str wrapper,
                                         tl_str kernels, bool has_kernels) {
  tl_buf whole;
  tl_buf_init(&whole);
  tl_ts_chunk_limit = SIZE_MAX;
  analyze(wrapper, kernels, has_kernels, &whole);
  for (size_t k = 0; k < sizeof LIMITS / sizeof *LIMITS; k++) {
    tl_buf part;
    tl_buf_init(&part);
    tl_ts_chunk_limit = LIMITS[k];
    analyze(wrapper, kernels, has_kernels, &part);
    if (strcmp(whole.data, part.data) != 0) {
      printf("  %s: chunks of %zu bytes differ\n  whole:\n%s\n  chunked:\n%s\n",
             what, LIMITS[k], whole.data, part.data);
      check_failures_in_test++;
    }
    tl_buf_free(&part);
  }
  tl_buf_free(&whole);
  tl_ts_chunk_limit = 1;
  tl_ts_chunker ch;
  bool restart, restarted = false;
  tl_ts_chunker_begin(&ch, tree_sitter_cpp(), wrapper, tl_ts_cpp_cuts);
  for (TSTree *t; (t = tl_ts_chunker_next(&ch, &restart));) {
    restarted |= restart;
    ts_tree_delete(t);
  }
  size_t chunks = restarted ? 1 : ch.chunks;
  tl_ts_chunker_end(&ch);
  tl_ts_chunk_limit = (size_t)1 << 20;
  return chunks;
}

/* Every case of one case file (the format of corpus_test.c). */
static int check_case_file(const char *file) {
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/engine_cpp/cases/%s", TL_SOURCE_DIR,
           file);
  size_t len = 0;
  char *text = tl_fs_read_all(path, &len);
  CHECK(text != NULL);
  if (!text)
    return 0;
  int cases = 0;
  size_t pos = 0;
  tl_case c;
  while (tl_case_next((tl_str){text, len}, &pos, &c)) {
    char what[512];
    snprintf(what, sizeof what, "%s: %.*s", file, (int)c.name.len, c.name.ptr);
    check_chunked_equals_whole(what, c.input, c.kernels, c.has_kernels);
    cases++;
  }
  free(text);
  return cases;
}

TEST(cppcode_in_tiny_chunks_equals_whole_on_every_corpus_case) {
  static const char *const files[] = {"calls.txt", "definitions.txt",
                                      "garbage.txt", "handles.txt"};
  int n = 0;
  for (size_t i = 0; i < sizeof files / sizeof *files; i++)
    n += check_case_file(files[i]);
  CHECK(n >= 20);
}

/* The payload (tab lines) after the envelope line naming `artifact`. */
static bool payload(const char *log, const char *artifact, tl_buf *out) {
  char path[8192], needle[256];
  snprintf(path, sizeof path, "%s/%s", check_fixtures_dir(), log);
  snprintf(needle, sizeof needle, "{\"name\": \"%s\"", artifact);
  size_t len = 0;
  char *text = tl_fs_read_all(path, &len);
  if (!text)
    return false;
  const char *end = text + len, *hit = strstr(text, needle);
  const char *p = hit ? case_next_line(hit, end) : end;
  while (p < end && *p == '\t') {
    const char *line_end = case_next_line(p, end);
    tl_buf_append(out, p + 1, (size_t)(line_end - p - 1));
    p = line_end;
  }
  free(text);
  return hit != NULL;
}

TEST(cppcode_in_tiny_chunks_equals_whole_on_the_fixture_wrappers) {
  static const char *const logs[] = {"inductor_provenance_aot_cuda_log.txt",
                                     "inductor_provenance_aot_log.txt",
                                     "inductor_provenance_aot_log_old.txt"};
  if (!check_fixtures_dir()) {
    printf("  skipped: the shared fixtures folder is absent\n");
    return;
  }
  for (size_t i = 0; i < sizeof logs / sizeof *logs; i++) {
    tl_buf wrapper, kernels;
    tl_buf_init(&wrapper);
    tl_buf_init(&kernels);
    bool ok = payload(logs[i], "inductor_aot_wrapper_code", &wrapper) &&
              payload(logs[i], "inductor_aot_kernel_code", &kernels);
    CHECK(ok);
    size_t chunks = check_chunked_equals_whole(logs[i], tl_buf_str(&wrapper),
                                               tl_buf_str(&kernels), true);
    /* A real wrapper splits into many chunks (launchers, namespaces). */
    CHECK(chunks > 10);
    /* The CPU kernel code too, where it holds kernel bodies. */
    check_chunked_equals_whole(logs[i], tl_buf_str(&kernels), (tl_str){NULL, 0},
                               false);
    tl_buf_free(&wrapper);
    tl_buf_free(&kernels);
  }
}

int main(void) {
  RUN(cpp_scanner_cuts_after_each_top_level_definition);
  RUN(cpp_scanner_ignores_braces_in_strings_chars_and_comments);
  RUN(cpp_scanner_skips_raw_strings_whole);
  RUN(cpp_scanner_leaves_preprocessor_lines_and_if_nesting_whole);
  RUN(cpp_scanner_ends_types_and_initializers_at_their_semicolon);
  RUN(cpp_scanner_is_unsure_of_unbalanced_input);
  RUN(chunker_gives_whole_definitions_in_the_text_coordinates);
  RUN(chunker_falls_back_to_the_whole_text_on_a_top_level_error);
  RUN(cppcode_in_tiny_chunks_equals_whole_on_every_corpus_case);
  RUN(cppcode_in_tiny_chunks_equals_whole_on_the_fixture_wrappers);
  return check_summary();
}
