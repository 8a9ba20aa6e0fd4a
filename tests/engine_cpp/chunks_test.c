/* chunks_test.c: chunked parsing of AOTInductor C++ (src/analyze/cppcode.c over
 * the chunker of src/analyze/ts_query.c).
 *
 * The C++ scanner is tested on what can hide the end of a top-level
 * definition: a `}` in a string, a character literal, a comment, a raw
 * string (KernelContextGuard), a #define body; `struct S {...} s;`; #if
 * nesting. Then both analyses of every corpus case (tests/engine_cpp/cases)
 * and of the fixtures' AOT wrappers and kernel code are run with tiny chunk
 * sizes and must dump exactly as with the text parsed whole. Heads only
 * (tl_ts_cpp_heads, what the kernel bodies' analysis parses) must find the
 * definitions the chunker finds, without reading the bodies. The wrapper
 * analysis with the bodies it reads nothing from left out (the chunker's
 * skips) must equal the one that parses every body, whole and in chunks.
 */
#include "analyze/ts_chunk.h"
#include "analyze/ts_heads.h"
#include "analyze/ts_query.h"
#include "cuts_text.h"
#include "dump.h"

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

/* The body tl_ts_cpp_body finds in `text` (one item) as "head,open,close:
 * cuts", or "none". */
static const char *cpp_body(const char *text) {
  static char out[256];
  tl_ts_body body;
  tl_ts_cuts cuts = {0};
  tl_str t = tl_str_from(text);
  if (!tl_ts_cpp_body(t, 0, (uint32_t)t.len, &body, &cuts)) {
    TL_VEC_FREE(cuts);
    return "none";
  }
  int n =
      snprintf(out, sizeof out, "%u,%u,%u:", body.head, body.open, body.close);
  for (size_t i = 0; i < cuts.count && n < (int)sizeof out; i++)
    n += snprintf(out + n, sizeof out - (size_t)n, "%s%u", i ? "," : "",
                  cuts.items[i]);
  TL_VEC_FREE(cuts);
  return out;
}

TEST(cpp_body_cuts_a_namespace_between_members) {
  /* `namespace n {` opens at 12; members end at 20 (`int a;`) and 32
   * (`void f() {}`); the `}` is at 33. */
  CHECK_STR_EQ(cpp_body("namespace n {\nint a;\nvoid f() {}\n}"),
               "0,12,33:20,32");
  CHECK_STR_EQ(cpp_body("extern \"C\" {\nint a;\nint b;\n}\n"),
               "0,11,27:19,26");
  /* Comments before the item belong to it; its head starts after them. */
  CHECK_STR_EQ(cpp_body("// lead\nnamespace n {\nint a;\nint b;\n}"),
               "8,20,36:28,35");
}

TEST(cpp_body_cuts_a_function_between_statements_only) {
  /* Statements end after `a();` (22) and `d();` (57): not before `else`,
   * not inside the else block, not at a block's `}` (49). */
  CHECK_STR_EQ(cpp_body("void f(int x) {\n  a();\n  if (x) b(); else "
                        "{ c(); }\n  d();\n}"),
               "0,14,58:22,57");
  CHECK_STR_EQ(cpp_body("void K::run_impl(\n    int* h) const {\n  a();\n"
                        "  { b(); }\n  c();\n}"),
               "0,36,63:44,62");
}

TEST(cpp_body_leaves_types_initializers_and_odd_items_whole) {
  CHECK_STR_EQ(cpp_body("struct S {\n  int a;\n  int b;\n};"), "none");
  CHECK_STR_EQ(cpp_body("class K {\n  int a;\n  int b;\n}"), "none");
  CHECK_STR_EQ(cpp_body("int v[] = {\n  1, 2\n}"), "none");
  CHECK_STR_EQ(cpp_body("int a;"), "none");
  CHECK_STR_EQ(cpp_body("void f() {}"), "none"); /* nothing to cut */
  CHECK_STR_EQ(cpp_body("void f() {\n  a(;\n}"), "none");
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
  CHECK_INT_EQ(k, 3); /* the final newline makes no chunk */
  tl_ts_chunker_end(&ch);
  tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
}

TEST(chunker_goes_into_bodies_keeping_the_text_coordinates) {
  /* Each statement of run_impl is one chunk, parsed under the namespace's
   * and the function's heads and before their closing braces. */
  const char *text = "// lead\nnamespace n {\nvoid run_impl() {\n  a();\n"
                     "  b();\n}\n}\n";
  tl_ts_chunk_limit = 1;
  tl_ts_chunker ch;
  bool restart;
  tl_ts_chunker_begin(&ch, tree_sitter_cpp(), tl_str_from(text),
                      tl_ts_cpp_cuts);
  tl_ts_chunker_go_into_bodies(&ch, tl_ts_cpp_body);
  static const char *const want[] = {"a();", "b();"};
  static const unsigned rows[] = {3, 4};
  size_t k = 0, comments = 0;
  for (TSTree *t; (t = tl_ts_chunker_next(&ch, &restart)); k++) {
    CHECK(!restart);
    CHECK(!ts_node_has_error(ts_tree_root_node(t)));
    TSNode root = ts_tree_root_node(t);
    for (uint32_t i = 0; i < ts_node_named_child_count(root); i++)
      comments +=
          strcmp(ts_node_type(ts_node_named_child(root, i)), "comment") == 0;
    /* namespace > declaration_list > function_definition > body */
    uint32_t items = ts_node_named_child_count(root);
    TSNode body = {0};
    if (k < 2 && items > 0) {
      TSNode ns = ts_node_named_child(root, items - 1);
      TSNode list = ts_node_child_by_field_name(ns, "body", 4);
      TSNode fn = ts_node_is_null(list) ? list : ts_node_named_child(list, 0);
      if (!ts_node_is_null(fn))
        body = ts_node_child_by_field_name(fn, "body", 4);
    }
    CHECK(k >= 2 || !ts_node_is_null(body));
    if (k < 2 && !ts_node_is_null(body)) {
      TSNode stmt = ts_node_named_child(body, 0);
      CHECK_INT_EQ(ts_node_named_child_count(body), 1);
      CHECK(tl_str_eq_cstr(tl_ts_text(stmt, tl_str_from(text)), want[k]));
      CHECK_INT_EQ(ts_node_start_point(stmt).row, rows[k]);
      /* The function's body spans its real braces in every chunk. */
      CHECK_INT_EQ(ts_node_start_point(body).row, 2);
      CHECK_INT_EQ(ts_node_end_point(body).row, 5);
    }
    ts_tree_delete(t);
  }
  CHECK_INT_EQ(k, 2);        /* a(); and b(); the blanks after them make none */
  CHECK_INT_EQ(comments, 1); /* `// lead` in the first chunk only */
  tl_ts_chunker_end(&ch);
  tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
}

/* Runs the chunker to its end: its last tree (the caller deletes it);
 * *restarted tells whether any chunk restarted. */
static TSTree *last_tree(tl_ts_chunker *ch, bool *restarted) {
  TSTree *last = NULL;
  bool restart;
  for (TSTree *t; (t = tl_ts_chunker_next(ch, &restart));) {
    *restarted |= restart;
    if (last)
      ts_tree_delete(last);
    last = t;
  }
  return last;
}

TEST(chunker_gives_up_a_body_whose_statement_does_not_parse) {
  /* `@@;` is balanced for the scanner but no statement: the whole text. */
  const char *text = "void run_impl() {\n  a();\n  @@;\n  b();\n}\n";
  tl_ts_chunk_limit = 1;
  tl_ts_chunker ch;
  bool restarted = false;
  tl_ts_chunker_begin(&ch, tree_sitter_cpp(), tl_str_from(text),
                      tl_ts_cpp_cuts);
  tl_ts_chunker_go_into_bodies(&ch, tl_ts_cpp_body);
  TSTree *last = last_tree(&ch, &restarted);
  CHECK(restarted);
  if (last)
    CHECK_INT_EQ(ts_node_end_byte(ts_tree_root_node(last)), strlen(text));
  ts_tree_delete(last);
  tl_ts_chunker_end(&ch);
  tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
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
  tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
}

typedef struct call_dump {
  const char *text;
  tl_buf *out;
} call_dump;

/* Appends " <call>" for each call expression. */
static bool dump_call(TSNode n, void *ctx) {
  call_dump *d = ctx;
  if (strcmp(ts_node_type(n), "call_expression") == 0) {
    tl_str call = tl_ts_text(n, tl_str_from(d->text));
    tl_buf_printf(d->out, " %.*s", (int)call.len, call.ptr);
  }
  return true;
}

/* A chunker over `text` at chunk size 1 that leaves out what lies between
 * its first `{` and first `}`. */
static void begin_skipping_first_body(tl_ts_chunker *ch, const char *text) {
  const char *open = strchr(text, '{'), *close = strchr(text, '}');
  uint32_t skip[] = {(uint32_t)(open - text) + 1, (uint32_t)(close - text)};
  tl_ts_chunk_limit = 1;
  tl_ts_chunker_begin(ch, tree_sitter_cpp(), tl_str_from(text), tl_ts_cpp_cuts);
  tl_ts_chunker_skip(ch, skip, 1);
}

/* Each chunk's tree as "N items, <first item's type> <rows>: <calls>"; no
 * chunk may restart or hold an error. */
static void dump_chunks(tl_ts_chunker *ch, const char *text, tl_buf *got) {
  bool restart;
  for (TSTree *t; (t = tl_ts_chunker_next(ch, &restart));) {
    CHECK(!restart);
    TSNode root = ts_tree_root_node(t);
    CHECK(!ts_node_has_error(root));
    uint32_t items = ts_node_named_child_count(root);
    tl_buf_printf(got, "%u items", items);
    if (items) {
      TSNode item = ts_node_named_child(root, 0);
      tl_buf_printf(got, ", %s %u-%u", ts_node_type(item),
                    ts_node_start_point(item).row, ts_node_end_point(item).row);
    }
    tl_buf_putc(got, ':');
    call_dump calls = {text, got};
    tl_ts_walk(root, dump_call, &calls);
    tl_buf_putc(got, '\n');
    ts_tree_delete(t);
  }
}

TEST(chunker_leaves_skipped_bodies_out_and_never_goes_into_them) {
  /* f's body is left out: its tree has f spanning its braces and no call
   * of g; h's body is gone into at chunk size 1, one statement a chunk. */
  const char *text = "void f() {\n  g();\n}\nvoid h() {\n  k();\n  m();\n}\n";
  tl_ts_chunker ch;
  begin_skipping_first_body(&ch, text);
  tl_ts_chunker_go_into_bodies(&ch, tl_ts_cpp_body);
  tl_buf got;
  tl_buf_init(&got);
  dump_chunks(&ch, text, &got);
  CHECK_STR_EQ(got.data, "1 items, function_definition 0-2:\n"
                         "1 items, function_definition 3-6: k()\n"
                         "1 items, function_definition 3-6: m()\n");
  tl_buf_free(&got);
  tl_ts_chunker_end(&ch);
  tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
}

TEST(chunker_gives_an_empty_tree_for_a_chunk_all_left_out) {
  /* f left out whole: its chunk is a tree with nothing in it, then h. */
  const char *text = "void f() {\n  g();\n}\nvoid h() {\n  k();\n}\n";
  uint32_t skip[] = {0, (uint32_t)(strstr(text, "}\n") - text) + 1};
  tl_ts_chunk_limit = 1;
  tl_ts_chunker ch;
  tl_ts_chunker_begin(&ch, tree_sitter_cpp(), tl_str_from(text),
                      tl_ts_cpp_cuts);
  tl_ts_chunker_skip(&ch, skip, 1);
  tl_buf got;
  tl_buf_init(&got);
  dump_chunks(&ch, text, &got);
  CHECK_STR_EQ(got.data, "0 items:\n1 items, function_definition 3-5: k()\n");
  tl_buf_free(&got);
  tl_ts_chunker_end(&ch);
  tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
}

TEST(chunker_that_gives_up_parses_the_skipped_bodies_again) {
  /* `@@ ;` is no C++ item: the whole text, g's call included. */
  const char *text = "void f() {\n  g();\n}\n@@ ;\n";
  tl_ts_chunker ch;
  bool restarted = false;
  begin_skipping_first_body(&ch, text);
  TSTree *last = last_tree(&ch, &restarted);
  CHECK(restarted);
  if (last) {
    TSNode fn = ts_node_named_child(ts_tree_root_node(last), 0);
    TSNode body = ts_node_child_by_field_name(fn, "body", 4);
    CHECK_INT_EQ(ts_node_named_child_count(body), 1); /* g(); */
  }
  ts_tree_delete(last);
  tl_ts_chunker_end(&ch);
  tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
}

/* The end row of each top-level item of the trees the chunker gives for
 * `text` at chunk size `limit`, as "r,r,..."; *isolated gets how often it
 * parsed items again one at a time. */
static const char *item_end_rows(const char *text, size_t limit,
                                 size_t *isolated) {
  static char out[256];
  size_t used = 0;
  out[0] = '\0';
  tl_ts_chunk_limit = limit;
  tl_ts_chunker ch;
  bool restart;
  tl_ts_chunker_begin(&ch, tree_sitter_cpp(), tl_str_from(text),
                      tl_ts_cpp_cuts);
  for (TSTree *t; (t = tl_ts_chunker_next(&ch, &restart));) {
    if (restart)
      used = 0, out[0] = '\0';
    TSNode root = ts_tree_root_node(t);
    for (uint32_t i = 0; i < ts_node_named_child_count(root); i++) {
      TSNode item = ts_node_named_child(root, i);
      used += (size_t)snprintf(out + used, sizeof out - used, "%s%u",
                               used ? "," : "", ts_node_end_point(item).row);
    }
    ts_tree_delete(t);
  }
  *isolated = ch.isolated;
  tl_ts_chunker_end(&ch);
  tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
  return out;
}

TEST(chunker_reads_an_item_alone_when_recovery_runs_past_its_end) {
  /* A stray `"a": {...}float>` in the first kernel (found by fuzz_cppcode,
   * then cut down): parsed whole, tree-sitter's recovery ends that kernel
   * at the second one's closing brace (row 25), so the two overlap; the
   * scanner says the second begins at row 14. The chunker reads each kernel
   * alone instead, as it does in chunks of any size. */
  const char *text =
      "extern \"C\" void k0(float* in_out_ptr0,\n"
      "                     float* out_ptr0)\n"
      "{\n"
      "    {\n"
      "        {\n"
      "            {\n"
      "                if(C10_LIKELY(x0 >= static_cast<int64_t>(0)))\n"
      "                {\n"
      "           \"metrics\": {\"fail\": \"x\"}float>::loadu(in_out_ptr0 "
      "+ static_cast<int64_t>(x0), static_cast<int64_t>(8));\n"
      "                }\n"
      "            }\n"
      "        }\n"
      "    }\n"
      "}\n"
      "extern \"C\" void k1(float* in_out_ptr0)\n"
      "{\n"
      "    {\n"
      "        {\n"
      "            {\n"
      "                {\n"
      "                    tmp11.store(in_out_ptr0 + "
      "static_cast<int64_t>(x0), static_cast<int64_t>(4L));\n"
      "                }\n"
      "            }\n"
      "        }\n"
      "    }\n"
      "}\n";
  size_t isolated = 0;
  const char *whole = item_end_rows(text, SIZE_MAX, &isolated);
  CHECK_STR_EQ(whole, "13,25");
  CHECK_INT_EQ(isolated, 1);
  for (size_t limit = 1; limit < 200; limit += 37) {
    CHECK_STR_EQ(item_end_rows(text, limit, &isolated), whole);
  }
}

TEST(chunker_keeps_an_error_that_stays_inside_one_item) {
  /* The AOT wrappers' CONVERT_EXCEPTION_TO_ERROR_CODE({...}) has no `;`:
   * an error tree-sitter recovers within the function, so the whole
   * text's tree is kept and nothing is parsed twice. */
  const char *text = "int a;\n"
                     "int run(int x) {\n"
                     "  MACRO({\n"
                     "    x++;\n"
                     "  })\n"
                     "}\n"
                     "int b;\n";
  size_t isolated = 1;
  CHECK_STR_EQ(item_end_rows(text, SIZE_MAX, &isolated), "0,5,6");
  CHECK_INT_EQ(isolated, 0);
  CHECK_STR_EQ(item_end_rows(text, 1, &isolated), "0,5,6");
}

/* ---- heads only -----------------------------------------------------------
 */

typedef struct defs_dump {
  tl_str text;
  tl_buf *out;
  TSSymbol function_definition;
} defs_dump;

/* "name first-last" (0-based rows) for every function definition. */
static bool dump_def(TSNode n, void *ctx) {
  defs_dump *d = ctx;
  if (ts_node_symbol(n) != d->function_definition)
    return true;
  TSNode decl = ts_node_child_by_field_name(n, "declarator", 10);
  TSNode name = ts_node_child_by_field_name(decl, "declarator", 10);
  tl_str s =
      ts_node_is_null(name) ? TL_STR_LIT("?") : tl_ts_text(name, d->text);
  tl_buf_printf(d->out, "%.*s %u-%u\n", (int)s.len, s.ptr,
                ts_node_start_point(n).row, ts_node_end_point(n).row);
  return true;
}

static void dump_tree(TSTree *tree, void *ctx) {
  tl_ts_walk(ts_tree_root_node(tree), dump_def, ctx);
}

/* The function definitions of `text` parsed heads only ("failed" when that
 * gives up). */
static void heads_defs(tl_str text, tl_buf *out) {
  defs_dump d = {text, out,
                 tl_ts_symbol(tree_sitter_cpp(), "function_definition")};
  if (!tl_ts_cpp_heads(text, 0, UINT32_MAX, dump_tree, &d)) {
    tl_buf_clear(out);
    tl_buf_puts(out, "failed");
  }
}

/* The same as the analyzer read them before heads only: every chunk of the
 * chunker (which reads an item with an error alone, see
 * tl_ts_chunker_next). False when the whole text's tree has an error. */
static bool chunked_defs(tl_str text, tl_buf *out) {
  TSTree *whole = tl_ts_parse(tree_sitter_cpp(), text, NULL, 0);
  bool clean = !ts_node_has_error(ts_tree_root_node(whole));
  ts_tree_delete(whole);
  defs_dump d = {text, out,
                 tl_ts_symbol(tree_sitter_cpp(), "function_definition")};
  tl_ts_chunker ch;
  tl_ts_chunker_begin(&ch, tree_sitter_cpp(), text, tl_ts_cpp_cuts);
  bool restart;
  for (TSTree *t; (t = tl_ts_chunker_next(&ch, &restart));) {
    if (restart)
      tl_buf_clear(out);
    dump_tree(t, &d);
    ts_tree_delete(t);
  }
  tl_ts_chunker_end(&ch);
  return clean;
}

TEST(heads_leave_out_function_bodies_at_their_text_positions) {
  /* A body tree-sitter could not parse is never read; the definitions keep
   * their rows, the namespace's too, and `k` spans its whole body. */
  const char *t = "#include <x.h>\n"
                  "extern \"C\" void k(float* a)\n{\n  $$$ not C++ { }\n}\n"
                  "namespace n {\nint g() { return 1; }\n}\n"
                  "struct S { int f() { return 2; } };\n";
  tl_buf out;
  tl_buf_init(&out);
  size_t before = tl_ts_stats_parsed_total();
  heads_defs(tl_str_from(t), &out);
  size_t parsed = tl_ts_stats_parsed_total() - before;
  CHECK_STR_EQ(out.data, "k 1-4\ng 6-6\nf 8-8\n");
  /* All but the two bodies: ` $$$ not C++ { }` with its newlines, and
   * ` return 1; `. The struct's member function is inside a type (no item
   * of its own) and is parsed whole. */
  CHECK_INT_EQ(parsed, strlen(t) - strlen("\n  $$$ not C++ { }\n") -
                           strlen(" return 1; "));
  /* After `template <bool b=false>` the scanner waits for a `;`, so one
   * item holds two definitions: their braces do not pair, and the item is
   * parsed whole (both kernels, each with its own lines). */
  tl_buf_clear(&out);
  heads_defs(tl_str_from("template <bool accum, bool prefetch=false>\n"
                         "inline void cpp_fused_mm_0_micro_gemm(float* a)\n"
                         "{ for (;;) { a++; } }\n"
                         "extern \"C\" void cpp_fused_mm_0(float* a)\n"
                         "{ g(a); }\n"),
             &out);
  CHECK_STR_EQ(out.data, "cpp_fused_mm_0_micro_gemm 1-2\ncpp_fused_mm_0 3-4\n");
  /* A head that does not parse: the caller must parse the text itself. */
  tl_buf_clear(&out);
  heads_defs(tl_str_from("void k(float* a { }\nint b;\n"), &out);
  CHECK_STR_EQ(out.data, "failed");
  tl_buf_free(&out);
}

/* Heads only finds every definition the chunked parse finds, with the same
 * rows: on each text whose whole parse is clean (where heads must not give
 * up), and on each text whose heads parse (errors inside bodies, which heads
 * never read, must not change the definitions around them). Returns 1 when
 * compared; a text with an error in its heads (real AOT wrappers call
 * macros without `;`) is parsed by the chunker, as before, and not
 * compared. */
static int check_heads_equal_chunked(const char *what, tl_str text) {
  if (!text.ptr || !text.len)
    return 0;
  tl_buf heads, chunked;
  tl_buf_init(&heads);
  tl_buf_init(&chunked);
  int compared = 0;
  bool clean = chunked_defs(text, &chunked);
  heads_defs(text, &heads);
  if (clean || strcmp(heads.data, "failed") != 0) {
    if (strcmp(heads.data, chunked.data) != 0) {
      printf("  %s: heads only differs\n  chunked:\n%s\n  heads:\n%s\n", what,
             chunked.data, heads.data);
      check_failures_in_test++;
    }
    compared = 1;
  }
  tl_buf_free(&heads);
  tl_buf_free(&chunked);
  return compared;
}

static void check_case_heads(void *ctx, const char *file, const tl_case *c) {
  char what[512];
  snprintf(what, sizeof what, "%s: %.*s", file, (int)c->name.len, c->name.ptr);
  *(int *)ctx += check_heads_equal_chunked(what, c->input);
  if (c->has_kernels)
    *(int *)ctx += check_heads_equal_chunked(what, c->kernels);
}

/* Calls `fn` on every case of the corpus (tests/engine_cpp/cases, the
 * format of corpus_test.c); returns how many there were. */
static int each_corpus_case(tl_case_fn fn, void *ctx) {
  static const char *const files[] = {"calls.txt", "definitions.txt",
                                      "garbage.txt", "handles.txt"};
  int cases = 0;
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/engine_cpp/cases/%s", TL_SOURCE_DIR,
             files[i]);
    int n = tl_case_file_each(path, files[i], fn, ctx);
    CHECK(n >= 0);
    cases += n > 0 ? n : 0;
  }
  return cases;
}

TEST(heads_find_the_definitions_of_the_chunked_parse_on_every_corpus_case) {
  int compared = 0;
  each_corpus_case(check_case_heads, &compared);
  printf("  %d clean corpus texts compared\n", compared);
  CHECK(compared >= 20);
}

/* ---- chunked analysis equals whole analysis --------------------------------
 */

static const size_t LIMITS[] = {1, 64, 1000, 20000};

/* Both analyses whole, every body parsed, against whole with the bodies
 * they read nothing from left out, and in chunks of each size of LIMITS
 * with and without those bodies; every dump must equal the first. */
static void check_chunked_equals_whole(const char *what, tl_str wrapper,
                                       tl_str kernels, bool has_kernels) {
  tl_buf whole;
  tl_buf_init(&whole);
  tl_ts_chunk_limit = SIZE_MAX;
  tl_cppcode_skip_bodies = false;
  analyze(wrapper, kernels, has_kernels, &whole);
  /* Runs 0..n-1 every body at LIMITS[k]; run n bodies left out, whole;
   * runs n+1..2n bodies left out at LIMITS[k - n - 1]. */
  size_t n = sizeof LIMITS / sizeof *LIMITS;
  for (size_t k = 0; k <= 2 * n; k++) {
    tl_buf part;
    tl_buf_init(&part);
    tl_ts_chunk_limit = k < n    ? LIMITS[k]
                        : k == n ? SIZE_MAX
                                 : LIMITS[k - n - 1];
    tl_cppcode_skip_bodies = k >= n;
    analyze(wrapper, kernels, has_kernels, &part);
    if (strcmp(whole.data, part.data) != 0) {
      printf("  %s: chunks of %zu bytes (0: whole)%s differ\n  whole:\n%s\n  "
             "chunked:\n%s\n",
             what, tl_ts_chunk_limit == SIZE_MAX ? 0 : tl_ts_chunk_limit,
             tl_cppcode_skip_bodies ? ", bodies left out," : "", whole.data,
             part.data);
      check_failures_in_test++;
    }
    tl_buf_free(&part);
  }
  tl_cppcode_skip_bodies = true;
  tl_buf_free(&whole);
}

/* The bytes tree-sitter parsed for the wrapper analysis of `text`. */
static size_t parsed_bytes(const char *text) {
  tl_buf out;
  tl_buf_init(&out);
  size_t before = tl_ts_stats_parsed_total();
  analyze(tl_str_from(text), (tl_str){NULL, 0}, false, &out);
  tl_buf_free(&out);
  return tl_ts_stats_parsed_total() - before;
}

TEST(cppcode_leaves_out_the_functions_it_reads_nothing_from) {
  /* The container API function holds no word the analysis needs: it is
   * not parsed at all (the block's member, from after its `{` to before its
   * `}`), or only its head and braces when a comment before it may be a
   * handle comment. run_impl and the launcher are parsed whole (their
   * names), and so is a body calling a cpp_ kernel. */
  static const char *const comments[] = {"",
                                         "// [Provenance debug handles] x:1\n"};
  const char *rest = "static void helper() {\n  cpp_fused_0(buf0);\n}\n"
                     "static void call_triton_k(int a) {\n  launch(a);\n}\n"
                     "void AOTInductorModel::run_impl(int h) {\n"
                     "  helper();\n  call_triton_k(1);\n}\n";
  for (size_t i = 0; i < 2; i++) {
    char text[1024];
    snprintf(text, sizeof text,
             "extern \"C\" {\n%s"
             "AOTIRuntimeError AOTInductorModelContainerRun(int h) {\n"
             "  CONVERT_EXCEPTION_TO_ERROR_CODE({\n"
             "    container->run(h);\n"
             "  })\n"
             "}\n"
             "}\n%s",
             comments[i], rest);
    const char *from = i ? strstr(text, ") {") + 3 : strchr(text, '{') + 1;
    const char *to = i ? strstr(text, "\n}\n") + 1 : strstr(text, "\n}\n") + 2;
    size_t left_out = (size_t)(to - from);
    CHECK_INT_EQ(parsed_bytes(text), strlen(text) - left_out);
    tl_ts_chunk_limit = 1;
    CHECK_INT_EQ(parsed_bytes(text), strlen(text) - left_out);
    tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
    check_chunked_equals_whole(text, tl_str_from(text), (tl_str){NULL, 0},
                               false);
  }
}

TEST(cppcode_parses_again_when_a_function_left_out_is_needed) {
  /* Each function left out holds what the rest made needed: a call of a
   * name declared extern "C"; of a name a handle comment outside any
   * function names; of the name a handle comment in its head names; of the
   * name a handle comment in a function-try-block names (the scanner cuts
   * the handler off as an item of its own); an entry's calls, the entry
   * going on past a `}` that a #define hides from tree-sitter only; a call
   * after a non-ASCII byte (tree-sitter reads an error, then the call).
   * The analysis keeps the function (the third and the last: a handle
   * comment after the `(`, a word ended by the byte), or parses again with
   * every function (the first pass's bytes, then all), and finds each call. */
  static const struct {
    const char *text, *want;
  } cases[] = {
      {"extern \"C\" void my_kernel_0(float* p);\n"
       "static void helper(float* p) {\n  my_kernel_0(p);\n}\n",
       "entry 0-0\ncall 3 my_kernel_0 cpp\n"},
      {"// [Provenance debug handles] my_op:7\n"
       "static void helper(float* p) {\n  my_op(p);\n}\n",
       "entry 0-0\ncall 3 my_op unknown my_op:7\n"},
      {"void f(int x) // [Provenance debug handles] foo:1\n{\n  foo(x);\n}\n"
       "int y;\n",
       "entry 0-0\ncall 3 foo unknown foo:1\n"},
      {"void f() try {\n  // [Provenance debug handles] foo:1\n  g();\n"
       "} catch (...) {\n  foo();\n}\nint y;\n",
       "entry 0-0\ncall 5 foo unknown foo:1\n"},
      {"void M::run_impl() {\n  int q; #define Y }\nvoid f() {\n"
       "  AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_x(a));\n"
       "  launchKernel(kernels.triton_k, 1);\n}\nint r; #define Z {\n}\n",
       "entry 1-8\ncall 4 aoti_torch_x shim\ncall 5 triton_k triton\n"},
      {"void f() {\n  int a = 1;\xc2\xa0"
       "call_triton_k(a);\n}\nvoid g() {\n  x();\xe3\x80\x80"
       "cpp_fused_k(a);\n}\n",
       "entry 0-0\ncall 2 triton_k triton\ncall 5 cpp_fused_k cpp\n"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *text = cases[i].text;
    tl_cppcode_skip_bodies = false;
    size_t all = parsed_bytes(text);
    tl_cppcode_skip_bodies = true;
    size_t both = parsed_bytes(text);
    CHECK_INT_EQ(all, strlen(text));
    CHECK(i == 2 || i == 5 ? both == all : both > all);
    tl_buf got;
    tl_buf_init(&got);
    analyze(tl_str_from(text), (tl_str){NULL, 0}, false, &got);
    CHECK_STR_EQ(got.data, cases[i].want);
    tl_buf_free(&got);
    check_chunked_equals_whole(text, tl_str_from(text), (tl_str){NULL, 0},
                               false);
  }
}

/* The chunks the wrapper makes at size 1, going into bodies or not; 1 when
 * the chunker gave up and parsed it whole. */
static size_t count_chunks(tl_str wrapper, bool into_bodies) {
  tl_ts_chunk_limit = 1;
  tl_ts_chunker ch;
  bool restart, restarted = false;
  tl_ts_chunker_begin(&ch, tree_sitter_cpp(), wrapper, tl_ts_cpp_cuts);
  if (into_bodies)
    tl_ts_chunker_go_into_bodies(&ch, tl_ts_cpp_body);
  for (TSTree *t; (t = tl_ts_chunker_next(&ch, &restart));) {
    restarted |= restart;
    ts_tree_delete(t);
  }
  size_t chunks = restarted ? 1 : ch.chunks;
  tl_ts_chunker_end(&ch);
  tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
  return chunks;
}

static void check_case(void *ctx, const char *file, const tl_case *c) {
  (void)ctx;
  char what[512];
  snprintf(what, sizeof what, "%s: %.*s", file, (int)c->name.len, c->name.ptr);
  check_chunked_equals_whole(what, c->input, c->kernels, c->has_kernels);
}

TEST(cppcode_in_tiny_chunks_equals_whole_on_every_corpus_case) {
  CHECK(each_corpus_case(check_case, NULL) >= 20);
}

/* The payload (tab lines) after the envelope line naming `artifact` in the
 * trace `dir`/`log`. */
static bool payload(const char *dir, const char *log, const char *artifact,
                    tl_buf *out) {
  char path[8192], needle[256];
  snprintf(path, sizeof path, "%s/%s", dir, log);
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
    const char *dir = check_fixtures_dir();
    bool ok = payload(dir, logs[i], "inductor_aot_wrapper_code", &wrapper) &&
              payload(dir, logs[i], "inductor_aot_kernel_code", &kernels);
    CHECK(ok);
    check_chunked_equals_whole(logs[i], tl_buf_str(&wrapper),
                               tl_buf_str(&kernels), true);
    /* A real wrapper splits into many chunks (launchers, namespaces), and
     * into more when the chunker goes into bodies (run_impl's statements),
     * without giving up. */
    size_t flat = count_chunks(tl_buf_str(&wrapper), false);
    size_t nested = count_chunks(tl_buf_str(&wrapper), true);
    printf("  %s: %zu chunks, %zu going into bodies\n", logs[i], flat, nested);
    CHECK(flat > 10);
    CHECK(nested > 2 * flat);
    check_heads_equal_chunked(logs[i], tl_buf_str(&wrapper));
    if (kernels.len) /* CPU kernels: their heads parse */
      CHECK(check_heads_equal_chunked(logs[i], tl_buf_str(&kernels)));
    /* The CPU kernel code too, where it holds kernel bodies. */
    check_chunked_equals_whole(logs[i], tl_buf_str(&kernels), (tl_str){NULL, 0},
                               false);
    tl_buf_free(&wrapper);
    tl_buf_free(&kernels);
  }
}

/* Subgraph comments directly among run_impl's statements, which the
 * chunker splits: each subgraph's code still runs to the next comment of
 * the body or to its end, at every chunk size, as in the whole parse. */
TEST(cppcode_subgraph_comments_of_a_body_in_chunks_equal_whole) {
  static const char text[] =
      "extern \"C\" void cpp_fused_k_0(float* p);\n"
      "void AOTInductorModel::run_impl(AtenTensorHandle* h) {\n"
      "    cpp_fused_k_0(nullptr);\n"
      "    // subgraph: cond_fn_0\n"
      "    cpp_fused_k_0(nullptr);\n"
      "    if (a) {\n"
      "        // subgraph: true_graph_0\n"
      "        cpp_fused_k_0(nullptr);\n"
      "    }\n"
      "    cpp_fused_k_0(nullptr);\n"
      "    // subgraph: body_fn_0\n"
      "    cpp_fused_k_0(nullptr);\n"
      "    cpp_fused_k_0(nullptr);\n"
      "}\n"
      /* a function whose only word the analysis needs is `subgraph`: not
       * left out of the parse, or its scope would be missing */
      "void helper() {\n"
      "    {\n"
      "        // subgraph: helper_graph_0\n"
      "        y();\n"
      "    }\n"
      "}\n";
  check_chunked_equals_whole("subgraph comments in run_impl", tl_str_from(text),
                             (tl_str){NULL, 0}, false);
  tl_arena arena;
  tl_arena_init(&arena);
  tl_code_analysis r;
  tl_ts_chunk_limit = 1;
  tl_cppcode_analyze(&arena, tl_str_from(text), &r);
  tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
  static const char *const scopes[] = {
      "",          "cond_fn_0", "cond_fn_0_true_graph_0",
      "cond_fn_0", "body_fn_0", "body_fn_0"};
  CHECK_INT_EQ((int)r.call_count, 6);
  for (size_t i = 0; i < r.call_count && i < 6; i++)
    CHECK(tl_str_eq_cstr(r.calls[i].scope, scopes[i]));
  tl_arena_free(&arena);
}

TEST(cppcode_leaves_out_most_of_a_recorded_wrapper_and_equals_whole) {
  /* The torch 2.13 recording of this repository: the bodies of the model
   * container's C API, its constructor and input checks are more than half
   * of its CPU wrapper (the rest: their heads, run_impl, declarations), and
   * none of them is parsed. The generated examples, and the recording with
   * subgraph blocks (their calls' scopes), must equal whole. */
  static const char *const logs[] = {"rec-aot-cpu/trace.log",
                                     "aot-cpu/trace.log", "aot-cuda/trace.log",
                                     "rec-subgraphs-aot/trace.log"};
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/examples", TL_SOURCE_DIR);
  for (size_t i = 0; i < sizeof logs / sizeof *logs; i++) {
    tl_buf wrapper, kernels;
    tl_buf_init(&wrapper);
    tl_buf_init(&kernels);
    CHECK(payload(dir, logs[i], "inductor_aot_wrapper_code", &wrapper));
    CHECK(payload(dir, logs[i], "inductor_aot_kernel_code", &kernels));
    check_chunked_equals_whole(logs[i], tl_buf_str(&wrapper),
                               tl_buf_str(&kernels), true);
    size_t parsed = parsed_bytes(wrapper.data);
    printf("  %s: %zu of %zu wrapper bytes parsed\n", logs[i], parsed,
           wrapper.len);
    if (i == 0)
      CHECK(parsed * 2 < wrapper.len);
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
  RUN(cpp_body_cuts_a_namespace_between_members);
  RUN(cpp_body_cuts_a_function_between_statements_only);
  RUN(cpp_body_leaves_types_initializers_and_odd_items_whole);
  RUN(chunker_goes_into_bodies_keeping_the_text_coordinates);
  RUN(chunker_gives_up_a_body_whose_statement_does_not_parse);
  RUN(chunker_falls_back_to_the_whole_text_on_a_top_level_error);
  RUN(chunker_leaves_skipped_bodies_out_and_never_goes_into_them);
  RUN(chunker_gives_an_empty_tree_for_a_chunk_all_left_out);
  RUN(chunker_that_gives_up_parses_the_skipped_bodies_again);
  RUN(chunker_reads_an_item_alone_when_recovery_runs_past_its_end);
  RUN(chunker_keeps_an_error_that_stays_inside_one_item);
  RUN(heads_leave_out_function_bodies_at_their_text_positions);
  RUN(heads_find_the_definitions_of_the_chunked_parse_on_every_corpus_case);
  RUN(cppcode_leaves_out_the_functions_it_reads_nothing_from);
  RUN(cppcode_parses_again_when_a_function_left_out_is_needed);
  RUN(cppcode_in_tiny_chunks_equals_whole_on_every_corpus_case);
  RUN(cppcode_in_tiny_chunks_equals_whole_on_the_fixture_wrappers);
  RUN(cppcode_subgraph_comments_of_a_body_in_chunks_equal_whole);
  RUN(cppcode_leaves_out_most_of_a_recorded_wrapper_and_equals_whole);
  return check_summary();
}
