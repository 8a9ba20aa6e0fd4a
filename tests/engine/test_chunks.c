/* test_chunks.c: chunked parsing of Python output code (src/analyze/pycode.c
 * over the chunker of src/analyze/ts_query.c).
 *
 * The Python scanner is tested on the shapes that can hide a top-level
 * statement: column-0 lines inside '''...''' kernel sources, decorators,
 * `else:` clauses, brackets and continuations. Then the analysis of every
 * corpus case (tests/engine/corpus/pycode.txt) and of every output code in
 * the shared fixtures is run with tiny chunk sizes and must dump exactly as
 * with the text parsed whole.
 */
#define _GNU_SOURCE /* memmem */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/ts_chunk.h"
#include "analyze/ts_query.h"
#include "case_file.h"
#include "check.h"
#include "cuts_text.h"
#include "dump.h"
#include "util/fsutil.h"

/* ---- the scanner ----------------------------------------------------------
 */

/* The cuts of `text` as "a,b,c" ("unsure" when the scanner is). */
static const char *py_cuts(const char *text) {
  return cuts_text(tl_ts_python_cuts, text);
}

TEST(python_scanner_cuts_before_each_top_level_statement) {
  /* a=1\n is 4 bytes, b=2\n 4 more. */
  CHECK_STR_EQ(py_cuts("a=1\nb=2\nc=3\n"), "4,8");
  /* Blank, comment and indented lines begin nothing. */
  CHECK_STR_EQ(py_cuts("def f():\n    x = 1\n\n# note\n    y = 2\nz = 3\n"),
               "37");
  CHECK_STR_EQ(py_cuts(""), "");
  CHECK_STR_EQ(py_cuts("x = 1"), "");
}

TEST(python_scanner_ignores_column_0_lines_inside_triple_quoted_strings) {
  /* The Triton source of a kernel: `def triton_(...)` and `@triton.jit` at
   * column 0 are inside the string. */
  const char *src = "k = async_compile.triton('k', '''\n"
                    "import triton\n"
                    "@triton.jit\n"
                    "def triton_(in_ptr0):\n"
                    "    x = \"\"\"}\"\"\"\n"
                    "''', device_str='cuda')\n"
                    "call = 1\n";
  char want[32];
  snprintf(want, sizeof want, "%zu", strlen(src) - strlen("call = 1\n"));
  CHECK_STR_EQ(py_cuts(src), want);
  /* The same with """ and an escaped quote inside: `x\""""` ends it. */
  CHECK_STR_EQ(py_cuts("s = \"\"\"\nx\\\"\"\"\"\ny = ''' '\n'''\nz = 1\n"),
               "15,29");
  /* A single-quoted string with a bracket does not open one. */
  CHECK_STR_EQ(py_cuts("a = '('\nb = \"[\"\nc = 1\n"), "8,16");
}

TEST(python_scanner_keeps_decorators_and_clauses_with_their_statement) {
  CHECK_STR_EQ(py_cuts("x = 1\n@a\n@b(1)\n# c\ndef f():\n    pass\ny = 2\n"),
               "6,37");
  CHECK_STR_EQ(py_cuts("if a:\n    b\nelif c:\n    d\nelse:\n    e\nf\n"),
               "38");
  CHECK_STR_EQ(py_cuts("try:\n    a\nexcept E:\n    b\nfinally:\n    c\n"
                       "elsewhere = 1\n"),
               "42");
}

TEST(python_scanner_follows_brackets_and_continuations) {
  /* Column-0 lines inside brackets and after a backslash continue. */
  CHECK_STR_EQ(py_cuts("a = f(\nb,\n)\nc = 1 + \\\nd\ne = 1\n"), "12,24");
  /* A '#' inside a string is no comment; a quote in a comment no string. */
  CHECK_STR_EQ(py_cuts("a = '#'\n# it's\nb = 1\n"), "15");
}

TEST(python_scanner_is_unsure_of_unbalanced_input) {
  CHECK_STR_EQ(py_cuts("a = f(\nb = 1\n"), "unsure");
  CHECK_STR_EQ(py_cuts("a = '''\nb = 1\n"), "unsure");
  CHECK_STR_EQ(py_cuts("a = 'x\nb = 1\n"), "unsure");
  CHECK_STR_EQ(py_cuts(")\na = 1\n"), "unsure");
  tl_ts_cuts cuts = {0};
  CHECK(!tl_ts_python_cuts((tl_str){"a=1\nb\0=2\n", 9}, &cuts));
  CHECK_INT_EQ(cuts.count, 0);
  CHECK(tl_ts_python_cuts((tl_str){NULL, 0}, &cuts));
  TL_VEC_FREE(cuts);
}

/* The bodies tl_ts_python_long_strings finds, of at least 1 byte, as
 * "start,end,start,end". */
static bool long_strings_of_1(tl_str text, tl_ts_cuts *bodies) {
  tl_ts_python_long_strings(text, 1, bodies);
  return true;
}

static const char *py_long_strings(const char *text) {
  return cuts_text(long_strings_of_1, text);
}

TEST(python_long_strings_are_the_bodies_of_plain_triple_quoted_literals) {
  /* k = f('k', '''\nab\n''')\n: the body is bytes 14 to 18. */
  CHECK_STR_EQ(py_long_strings("k = f('k', '''\nab\n''')\n"), "14,18");
  /* r, b and u prefixes; """ too; an escaped quote stays inside. */
  CHECK_STR_EQ(py_long_strings("a = r'''x'''\nb = B\"\"\"y\\\"\"\"\"\n"),
               "8,9,21,24");
  /* Not a formatted string, nor one with a name before it that is no
   * prefix, nor a one-quote string, nor an empty body. */
  CHECK_STR_EQ(py_long_strings("a = f'''{g(x)}'''\nb = rf'''x'''\n"), "");
  CHECK_STR_EQ(py_long_strings("a = xyz'''x'''\nb = 'x'\nc = ''''''\n"), "");
  /* A quote in a comment opens nothing; a '#' in a string is no comment. */
  CHECK_STR_EQ(py_long_strings("# it's '''\na = '#'\nb = '''z'''\n"), "26,27");
  /* Shorter than the minimum: left in. */
  tl_ts_cuts bodies = {0};
  tl_ts_python_long_strings(tl_str_from("a = '''xy'''\n"), 3, &bodies);
  CHECK_INT_EQ(bodies.count, 0);
  tl_ts_python_long_strings(tl_str_from("a = '''xyz'''\n"), 3, &bodies);
  CHECK_INT_EQ(bodies.count, 2);
  /* Unsure: an unterminated literal anywhere, or a NUL byte: none. */
  CHECK_STR_EQ(py_long_strings("a = '''x'''\nb = 'y\n"), "");
  CHECK_STR_EQ(py_long_strings("a = '''x'''\nb = '''y\n"), "");
  tl_ts_python_long_strings((tl_str){"a = '''x'''\0", 12}, 1, &bodies);
  CHECK_INT_EQ(bodies.count, 0);
  TL_VEC_FREE(bodies);
}

/* The comment runs tl_ts_python_comment_runs finds, of at least 1 byte,
 * keeping the lines that start with "# K", as "start,end,...". */
static bool comment_runs_of_1(tl_str text, tl_ts_cuts *runs) {
  tl_ts_python_comment_runs(text, 1, "# K", runs);
  return true;
}

static const char *py_comment_runs(const char *text) {
  return cuts_text(comment_runs_of_1, text);
}

TEST(python_comment_runs_lie_between_two_lines_of_their_indentation) {
  /* "# x\n# y" between a = 1 and b = 2: bytes 6 to 13. */
  CHECK_STR_EQ(py_comment_runs("a = 1\n# x\n# y\nb = 2\n"), "6,13");
  /* A kept line splits a run and stays. */
  CHECK_STR_EQ(py_comment_runs("a = 1\n# x\n# K y\n# z\nb = 2\n"), "6,9,16,19");
  /* In a body, between two of its statements. */
  CHECK_STR_EQ(py_comment_runs("def f():\n    a\n    # x\n    b\n"), "19,22");
  /* Not after a body at its indentation (tree-sitter keeps such comments
   * in the body), nor at another indentation than both lines', nor where
   * a line of the gap is at another. */
  CHECK_STR_EQ(py_comment_runs("def f():\n    b = 1\n    # x\nc = 2\n"), "");
  CHECK_STR_EQ(py_comment_runs("if a:\n    b = 1\n# x\nc = 2\n"), "");
  CHECK_STR_EQ(py_comment_runs("a = 1\n# x\n  # y\nb = 2\n"), "");
  /* Not before the first line nor after the last, nor inside brackets or
   * a string. */
  CHECK_STR_EQ(py_comment_runs("# x\na = 1\n# y\n"), "");
  CHECK_STR_EQ(py_comment_runs("a = f(\n# x\n)\nb = '''\n# y\n'''\nc = 1\n"),
               "");
  /* Shorter than the minimum: none; unsure of the text: none. */
  tl_ts_cuts runs = {0};
  tl_ts_python_comment_runs(tl_str_from("a = 1\n# x\nb = 2\n"), 4, NULL, &runs);
  CHECK_INT_EQ(runs.count, 0);
  tl_ts_python_comment_runs(tl_str_from("a = 1\n# x\nb = 2\n"), 3, NULL, &runs);
  CHECK_INT_EQ(runs.count, 2);
  CHECK_STR_EQ(py_comment_runs("a = 1\n# x\nb = (\n"), "");
  TL_VEC_FREE(runs);
}

/* "head,open,close:cut,cut" of tl_ts_python_body over the whole text, or
 * "no". */
static const char *py_body(const char *text) {
  static char out[256];
  tl_ts_body body;
  tl_ts_cuts cuts = {0};
  tl_str t = tl_str_from(text);
  if (!tl_ts_python_body(t, 0, (uint32_t)t.len, &body, &cuts)) {
    TL_VEC_FREE(cuts);
    return "no";
  }
  int n =
      snprintf(out, sizeof out, "%u,%u,%u:", body.head, body.open, body.close);
  for (size_t i = 0; i < cuts.count && n < (int)sizeof out - 12; i++)
    n += snprintf(out + n, sizeof out - (size_t)n, "%s%u", i ? "," : "",
                  cuts.items[i]);
  TL_VEC_FREE(cuts);
  return out;
}

TEST(python_body_cuts_a_def_or_with_between_its_statements) {
  /* `def call` of output code: the body after the `def` line (its `\n` at
   * 15), cut before `with` (26) and `return` (62), up to the last `\n`
   * (76, after the blank lines that end the item). */
  CHECK_STR_EQ(py_body("def call(args):\n    a = 1\n    with g:\n        b()\n"
                       "        c()\n    return a\n\n\n"),
               "0,15,76:26,62");
  /* The `with` inside it, an item at indentation 4: the head is its own
   * line (open 11), so the comment before the first statement is parsed with
   * the first chunk only; a decorated `def` is one statement with its
   * decorator (cut at 39, none at the `def`). */
  CHECK_STR_EQ(py_body("    with g:\n        # note\n        b()\n        @d\n"
                       "        def e():\n            f\n        c()\n"),
               "0,11,92:39,81");
}

TEST(python_body_leaves_clauses_tabs_and_small_items_whole) {
  /* `if` and `try` take clauses after their body: never gone into. */
  CHECK_STR_EQ(py_body("if a:\n    b\n    c\nelse:\n    d\n"), "no");
  CHECK_STR_EQ(py_body("try:\n    b\n    c\nexcept E:\n    d\n"), "no");
  /* One statement: nothing to cut. A tab, or no final newline: unsure. */
  CHECK_STR_EQ(py_body("def f():\n    a\n"), "no");
  CHECK_STR_EQ(py_body("def f():\n\ta\n\tb\n"), "no");
  CHECK_STR_EQ(py_body("def f():\n    a\n    b"), "no");
  /* A dedent inside the item (it holds two statements): not one body. */
  CHECK_STR_EQ(py_body("def f():\n    a\n    b\nc = 1\n"), "no");
  /* A form feed resets the indentation (a dedent to tree-sitter), and a
   * line that starts with a continuation takes the next line's: unsure. */
  CHECK_STR_EQ(py_body("def f():\n    a\n    \fb = 1\n    c\n"), "no");
  CHECK_STR_EQ(py_body("def f():\n    a\n    \\\n        b = 1\n    c\n"),
               "no");
}

/* ---- chunked analysis equals whole analysis --------------------------------
 */

static const size_t LIMITS[] = {1, 64, 1000, 20000};

typedef void (*dump_fn)(tl_str input, tl_buf *out);

/* How many chunks the chunker makes of an FX graph at size 1 (1 when it
 * falls back to the whole text). */
static size_t fx_chunks(tl_str text) {
  tl_ts_cuts cuts = {0};
  tl_ts_forward fwd;
  tl_ts_chunk_limit = 1;
  if (!tl_ts_python_forward_cuts(text, &cuts, &fwd))
    cuts.count = 0;
  tl_ts_chunker ch;
  bool restart, restarted = false;
  tl_ts_chunker_begin_nested(&ch, tree_sitter_python(), text, cuts, fwd);
  for (TSTree *t; (t = tl_ts_chunker_next(&ch, &restart));) {
    restarted |= restart;
    ts_tree_delete(t);
  }
  size_t chunks = restarted ? 1 : ch.chunks;
  tl_ts_chunker_end(&ch);
  return chunks;
}

/* How many chunks the chunker makes of output code at size 1, going into
 * large `def`, `class` and `with` bodies as pycode.c does, or not. */
static size_t py_chunks(tl_str text, bool into_bodies) {
  tl_ts_chunk_limit = 1;
  tl_ts_chunker ch;
  bool restart, restarted = false;
  tl_ts_chunker_begin(&ch, tree_sitter_python(), text, tl_ts_python_cuts);
  if (into_bodies) {
    tl_ts_chunker_strict(&ch);
    tl_ts_chunker_go_into_bodies(&ch, tl_ts_python_body);
  }
  for (TSTree *t; (t = tl_ts_chunker_next(&ch, &restart));) {
    restarted |= restart;
    ts_tree_delete(t);
  }
  size_t chunks = restarted ? 1 : ch.chunks;
  tl_ts_chunker_end(&ch);
  tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
  return chunks;
}

/* Analyzes `text` whole and in chunks of each size of LIMITS; every dump
 * must equal the whole one. Returns the chunks of the smallest size. */
static size_t check_chunked_equals_whole(const char *what, tl_str text,
                                         bool fx) {
  dump_fn dump = fx ? dump_fx : dump_py;
  tl_buf whole;
  tl_buf_init(&whole);
  tl_ts_chunk_limit = SIZE_MAX;
  /* The reference: the text whole, every string in the parse. Every other
   * dump leaves each string body it can out (tl_ts_long_string), whole
   * and in chunks, and must not differ. */
  tl_ts_long_string = SIZE_MAX;
  dump(text, &whole);
  tl_ts_long_string = 1;
  if (!fx) {
    tl_buf part;
    tl_buf_init(&part);
    dump(text, &part);
    if (strcmp(whole.data, part.data) != 0) {
      printf("  %s: with the string bodies left out it differs\n"
             "  whole:\n%s\n  left out:\n%s\n",
             what, whole.data, part.data);
      check_failures_in_test++;
    }
    tl_buf_free(&part);
  }
  for (size_t k = 0; k < sizeof LIMITS / sizeof *LIMITS; k++) {
    tl_buf part;
    tl_buf_init(&part);
    tl_ts_chunk_limit = LIMITS[k];
    dump(text, &part);
    if (strcmp(whole.data, part.data) != 0) {
      printf("  %s: chunks of %zu bytes differ\n  whole:\n%s\n  chunked:\n%s\n",
             what, LIMITS[k], whole.data, part.data);
      check_failures_in_test++;
    }
    tl_buf_free(&part);
    /* The same chunks parsed ahead on a helper thread (tl_ts_ahead_from). */
    tl_buf_init(&part);
    tl_ts_ahead_from = 0;
    dump(text, &part);
    tl_ts_ahead_from = TL_TS_AHEAD_FROM_DEFAULT;
    if (strcmp(whole.data, part.data) != 0) {
      printf("  %s: chunks of %zu bytes parsed ahead differ\n  whole:\n%s\n"
             "  chunked:\n%s\n",
             what, LIMITS[k], whole.data, part.data);
      check_failures_in_test++;
    }
    tl_buf_free(&part);
  }
  tl_buf_free(&whole);
  tl_ts_long_string = TL_TS_LONG_STRING_DEFAULT;
  size_t chunks = fx ? fx_chunks(text) : py_chunks(text, false);
  tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
  return chunks;
}

static void check_case(void *ctx, const char *file, const tl_case *c) {
  char name[256];
  snprintf(name, sizeof name, "%s: %.*s", file, (int)c->name.len, c->name.ptr);
  check_chunked_equals_whole(name, c->input, *(const bool *)ctx);
}

/* Each `=== name` case of a corpus file: its input lines up to `---`. */
static int check_corpus(const char *path, bool fx) {
  int cases = tl_case_file_each(path, fx ? "fx_graph.txt" : "pycode.txt",
                                check_case, &fx);
  CHECK(cases >= 0);
  return cases;
}

TEST(pycode_in_tiny_chunks_equals_whole_on_every_corpus_case) {
  int n = check_corpus(TL_SOURCE_DIR "/tests/engine/corpus/pycode.txt", false);
  CHECK(n >= 10);
}

#ifdef HAVE_CPPCODE
TEST(cpp_wrapper_code_in_tiny_chunks_equals_whole_on_every_corpus_case) {
  int n = check_corpus(
      TL_SOURCE_DIR "/tests/engine/corpus/pycode_cpp_wrapper.txt", false);
  CHECK(n >= 8);
}
#endif

TEST(fx_graph_in_tiny_chunks_equals_whole_on_every_corpus_case) {
  int n = check_corpus(TL_SOURCE_DIR "/tests/engine/corpus/fx_graph.txt", true);
  CHECK(n >= 10);
}

/* Appends to `out` each payload (the tab lines after an envelope line
 * holding `key`) of the log at `path`, NUL-separated; returns how many. */
static int payloads(const char *path, const char *key, tl_buf *out) {
  size_t len = 0;
  char *text = tl_fs_read_all(path, &len);
  if (!text)
    return 0;
  int count = 0;
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *next = nl ? nl + 1 : end;
    bool hit = *p != '\t' && nl &&
               memmem(p, (size_t)(nl - p), key, strlen(key)) != NULL;
    p = next;
    if (!hit)
      continue;
    while (p < end && *p == '\t') {
      const char *e = memchr(p, '\n', (size_t)(end - p));
      const char *line_end = e ? e + 1 : end;
      tl_buf_append(out, p + 1, (size_t)(line_end - p - 1));
      p = line_end;
    }
    tl_buf_putc(out, '\0');
    count++;
  }
  free(text);
  return count;
}

TEST(pycode_in_tiny_chunks_equals_whole_on_every_fixture_output_code) {
  static const char *const logs[] = {
      "inductor_provenance_jit_cuda_log.txt",
      "inductor_provenance_jit_debug_handle_log.txt",
      "cache_hit_miss.log",
      "links.log",
      "simple.log",
      "simple_corrupted_json.log",
  };
  const char *dir = check_fixtures_dir();
  if (!dir) {
    printf("  skipped: the shared fixtures folder is absent\n");
    return;
  }
  int texts = 0;
  for (size_t i = 0; i < sizeof logs / sizeof *logs; i++) {
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, logs[i]);
    tl_buf all;
    tl_buf_init(&all);
    int n = payloads(path, "\"inductor_output_code\"", &all);
    CHECK(n >= 1);
    const char *p = all.data;
    for (int k = 0; k < n; k++) {
      size_t len = strlen(p);
      char what[256];
      snprintf(what, sizeof what, "%.200s, output code %d", logs[i], k + 1);
      size_t chunks = check_chunked_equals_whole(what, (tl_str){p, len}, false);
      /* Real output code splits into many chunks (imports, kernels, call),
       * and into more when the chunker goes into `def call`. */
      CHECK(chunks > 10);
      if (strstr(p, "\ndef call(args):\n"))
        CHECK(py_chunks((tl_str){p, len}, true) > chunks);
      p += len + 1;
      texts++;
    }
    tl_buf_free(&all);
  }
  CHECK(texts >= 8);
}

#ifdef HAVE_CPPCODE
/* A range of the text is parsed alone, a top-level item a chunk, and its
 * nodes keep the positions of the whole text. */
TEST(chunker_parses_only_its_range_in_chunks_at_whole_text_positions) {
  const char *t = "x = (r\"\"\"\nint a;\nvoid f() { g(); }\n\"\"\")\n";
  tl_str text = tl_str_from(t);
  uint32_t start = (uint32_t)(strchr(t, '\n') + 1 - t);
  uint32_t end = (uint32_t)(strstr(t, "\"\"\")") - t);
  tl_ts_chunk_limit = 1;
  tl_ts_chunker ch;
  bool restart, restarted = false;
  tl_ts_chunker_begin_range(&ch, tree_sitter_cpp(), text, start, end,
                            tl_ts_cpp_cuts);
  uint32_t first = UINT32_MAX, last = 0;
  TSPoint first_point = {0, 0};
  for (TSTree *tree; (tree = tl_ts_chunker_next(&ch, &restart));) {
    restarted |= restart;
    TSNode root = ts_tree_root_node(tree);
    CHECK(!ts_node_has_error(root));
    for (uint32_t i = 0; i < ts_node_named_child_count(root); i++) {
      TSNode item = ts_node_named_child(root, i);
      if (ts_node_start_byte(item) < first) {
        first = ts_node_start_byte(item);
        first_point = ts_node_start_point(item);
      }
      if (ts_node_end_byte(item) > last)
        last = ts_node_end_byte(item);
    }
    ts_tree_delete(tree);
  }
  CHECK(!restarted);
  CHECK_INT_EQ(ch.chunks, 2);
  CHECK_INT_EQ(first, start); /* `int a;`, on the text's second line */
  CHECK_INT_EQ(first_point.row, 1);
  CHECK_INT_EQ(first_point.column, 0);
  CHECK_INT_EQ(last, end - 1); /* the `}` before the newline */
  tl_ts_chunker_end(&ch);
  tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
}

/* What a chunker gives, tree by tree: each tree's S-expression with the
 * flags the caller reads, then the count of chunks; at most `take` trees
 * (then the chunker is ended early). */
static void fx_chunker_trace(tl_str text, size_t take, tl_buf *out) {
  tl_ts_cuts cuts = {0};
  tl_ts_forward fwd;
  if (!tl_ts_python_forward_cuts(text, &cuts, &fwd))
    cuts.count = 0;
  tl_ts_chunker ch;
  tl_ts_chunker_begin_nested(&ch, tree_sitter_python(), text, cuts, fwd);
  bool restart;
  size_t taken = 0;
  for (TSTree *t; taken < take && (t = tl_ts_chunker_next(&ch, &restart));) {
    char *sexp = ts_node_string(ts_tree_root_node(t));
    tl_buf_printf(out, "%d%d%d %s\n", restart, ch.params_chunk, ch.class_chunk,
                  sexp);
    free(sexp);
    ts_tree_delete(t);
    taken++;
  }
  if (taken < take)
    tl_buf_printf(out, "chunks %zu gave_up %d\n", ch.chunks, ch.gave_up);
  tl_ts_chunker_end(&ch);
}

/* Parsing ahead on a helper thread gives the trees, flags and counts of
 * the chunker alone, in the same order, and a caller that stops early
 * ends it cleanly (the helper stopped, its queued trees deleted: ASan and
 * TSan runs check that). */
TEST(chunker_parsing_ahead_gives_what_it_gives_alone) {
  const char *t = "class GraphModule(torch.nn.Module):\n"
                  "    def forward(self, a: \"f32[2]\", b: \"f32[2]\"):\n"
                  "        x: \"f32[2]\" = a + 1;  a = None\n"
                  "        y: \"f32[2]\" = x * b;  x = None\n"
                  "        z: \"f32[2]\" = y - 2;  y = None\n"
                  "        w: \"f32[2]\" = z / 3;  z = None\n"
                  "        return (w,)\n"
                  "    class subgraph_0(torch.nn.Module):\n"
                  "        def forward(self, c: \"f32[2]\"):\n"
                  "            d: \"f32[2]\" = c + 1;  c = None\n"
                  "            return (d,)\n";
  tl_str text = tl_str_from(t);
  tl_ts_chunk_limit = 1;
  for (size_t take = 1; take <= 10; take += 9) {
    tl_buf alone, ahead;
    tl_buf_init(&alone);
    tl_buf_init(&ahead);
    tl_ts_ahead_from = SIZE_MAX;
    fx_chunker_trace(text, take, &alone);
    tl_ts_ahead_from = 0;
    fx_chunker_trace(text, take, &ahead);
    tl_ts_ahead_from = TL_TS_AHEAD_FROM_DEFAULT;
    CHECK_STR_EQ(ahead.data, alone.data);
    /* 9 trees: the parameters self, a and b, the body's 5 statements, the
     * subgraph class. */
    if (take > 1)
      CHECK(strstr(alone.data, "chunks 9 gave_up 0\n") != NULL);
    tl_buf_free(&alone);
    tl_buf_free(&ahead);
  }
  tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
}

/* Patched bytes (tl_ts_chunker_patch) read as given, in chunks or whole:
 * the tree of `class <lambda>` patched is the tree of a copy that says
 * `class _lambda_`, at the same positions, and the text is not changed. */
TEST(chunker_reads_patched_bytes_as_given_without_changing_the_text) {
  const char *t = "class <lambda>(torch.nn.Module):\n"
                  "    def forward(self, x: \"f32[2]\"):\n"
                  "        y: \"f32[2]\" = x + 1;  x = None\n"
                  "        z: \"f32[2]\" = y * 2;  y = None\n"
                  "        return (z,)\n";
  char *copy = tl_xstrdup(t);
  uint32_t at[2] = {(uint32_t)(strchr(t, '<') - t),
                    (uint32_t)(strchr(t, '>') - t)};
  copy[at[0]] = copy[at[1]] = '_';
  tl_str text = tl_str_from(t), copied = tl_str_from(copy);
  size_t limits[] = {1, TL_TS_CHUNK_LIMIT_DEFAULT};
  for (int k = 0; k < 2; k++) {
    tl_ts_chunk_limit = limits[k];
    tl_ts_cuts cuts = {0}, copy_cuts = {0};
    tl_ts_forward fwd, copy_fwd;
    CHECK(tl_ts_python_forward_cuts(text, &cuts, &fwd));
    CHECK(tl_ts_python_forward_cuts(copied, &copy_cuts, &copy_fwd));
    tl_ts_chunker patched, plain;
    tl_ts_chunker_begin_nested(&patched, tree_sitter_python(), text, cuts, fwd);
    tl_ts_chunker_patch(&patched, at, "__", 2);
    tl_ts_chunker_begin_nested(&plain, tree_sitter_python(), copied, copy_cuts,
                               copy_fwd);
    bool restart;
    int trees = 0, same = 0;
    for (TSTree *a; (a = tl_ts_chunker_next(&patched, &restart));) {
      TSTree *b = tl_ts_chunker_next(&plain, &restart);
      char *sa = ts_node_string(ts_tree_root_node(a));
      char *sb = b ? ts_node_string(ts_tree_root_node(b)) : NULL;
      trees++;
      same += sb && strcmp(sa, sb) == 0 &&
              !ts_node_has_error(ts_tree_root_node(a)) &&
              ts_node_end_byte(ts_tree_root_node(a)) ==
                  ts_node_end_byte(ts_tree_root_node(b));
      free(sa);
      free(sb);
      ts_tree_delete(a);
      if (b)
        ts_tree_delete(b);
    }
    CHECK(trees >= 1);
    CHECK_INT_EQ(same, trees);
    CHECK(tl_ts_chunker_next(&plain, &restart) == NULL); /* no tree more */
    /* At size 1: a slice per parameter (self, x), then one chunk per
     * statement. */
    CHECK_INT_EQ(patched.chunks, k == 0 ? 5 : 1);
    tl_ts_chunker_end(&patched);
    tl_ts_chunker_end(&plain);
  }
  tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
  CHECK(strncmp(t, "class <lambda>", 14) == 0);
  free(copy);
}

/* A forward whose parameters fill more than a chunk (one per weight of a
 * large model) is parsed a slice of parameters at a time, then its body:
 * the nodes are those of the whole parse, with commas in strings, brackets
 * and a comment inside the list; a list that cannot be sliced so (a comma
 * of a lambda's parameters is no parameter's end) is parsed whole, with the
 * same nodes. */
TEST(fx_parameters_in_slices_give_what_the_whole_forward_gives) {
  const char *t =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, a: \"f32[8, 10][10, 1]cuda:0\", b: \"i64[2]\", "
      " # c, d\n"
      "                e=(1, [2, 3]), f: 'f32[(4, 5)]', g, h):\n"
      "        x: \"f32[8]\" = torch.ops.aten.relu.default(a);  a = None\n"
      "        y = x + b\n"
      "        return (y,)\n";
  tl_str text = tl_str_from(t);
  /* Seven slices (self, a, b, the comment and e, f, g, h), then three
   * statements. */
  CHECK_INT_EQ(check_chunked_equals_whole("parameters", text, true), 10);
  tl_buf nodes;
  tl_buf_init(&nodes);
  tl_ts_chunk_limit = 1;
  dump_fx(text, &nodes);
  tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
  CHECK_STR_EQ(nodes.data, "a 2\nb 2\ne 3\nf 3\ng 3\nh 3\nx 4\ny 5\n");
  tl_buf_free(&nodes);
  const char *lambda = "class GraphModule(torch.nn.Module):\n"
                       "    def forward(self, a, e=lambda p, q: p):\n"
                       "        y = a + b\n"
                       "        return (y,)\n";
  CHECK_INT_EQ(check_chunked_equals_whole("lambda", tl_str_from(lambda), true),
               1); /* gave up: parsed whole */
  tl_ts_cuts cuts = {0};
  CHECK(tl_ts_python_param_cuts(text, 0, (uint32_t)strlen(t), &cuts));
  CHECK(!tl_ts_python_param_cuts(tl_str_from("a, \"b, c"), 0, 7, &cuts));
  CHECK_INT_EQ(cuts.count, 0);
  CHECK(!tl_ts_python_param_cuts(tl_str_from("a, (b, c"), 0, 8, &cuts));
  TL_VEC_FREE(cuts);
}

/* torch 2.13's cpp_wrapper output code (examples/rec-cpp-wrapper): the C++
 * in its string, in tiny chunks, gives what it gives whole. */
TEST(cpp_wrapper_recording_in_tiny_chunks_equals_whole) {
  tl_buf all;
  tl_buf_init(&all);
  int n = payloads(TL_SOURCE_DIR "/examples/rec-cpp-wrapper/trace.log",
                   "\"inductor_output_code\"", &all);
  CHECK_INT_EQ(n, 1);
  tl_str code = tl_str_from(all.data);
  check_chunked_equals_whole("rec-cpp-wrapper output code", code, false);
  tl_buf dump;
  tl_buf_init(&dump);
  dump_py(code, &dump);
  CHECK(strstr(dump.data,
               "call 115 cpp_fused_add_gelu_native_layer_norm_1 "
               "cpp handle=cpp_fused_add_gelu_native_layer_norm_1:6\n"));
  CHECK(strstr(dump.data, "\ncpp_wrapper\n"));
  tl_buf_free(&dump);
  tl_buf_free(&all);
}
#endif

TEST(fx_graph_in_tiny_chunks_equals_whole_on_every_fixture_graph) {
  static const char *const logs[] = {
      "inductor_provenance_jit_cuda_log.txt",
      "inductor_provenance_jit_debug_handle_log.txt",
      "inductor_provenance_aot_cuda_log.txt",
      "inductor_provenance_aot_log.txt",
      "inductor_provenance_aot_log_old.txt",
      "simple.log",
      "cache_hit_miss.log",
  };
  const char *dir = check_fixtures_dir();
  if (!dir) {
    printf("  skipped: the shared fixtures folder is absent\n");
    return;
  }
  int texts = 0, split = 0;
  for (size_t i = 0; i < sizeof logs / sizeof *logs; i++) {
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, logs[i]);
    tl_buf all;
    tl_buf_init(&all);
    /* Every graph payload: dynamo_output_graph, before_pre_grad_graph,
     * after_post_grad_graph, inductor_post_grad_graph, aot_*_graph, ... */
    int n = payloads(path, "_graph", &all);
    const char *p = all.data;
    for (int k = 0; k < n; k++) {
      size_t len = strlen(p);
      char what[256];
      snprintf(what, sizeof what, "%.200s, graph %d", logs[i], k + 1);
      split += check_chunked_equals_whole(what, (tl_str){p, len}, true) > 10;
      p += len + 1;
      texts++;
    }
    tl_buf_free(&all);
  }
  CHECK(texts >= 20);
  /* Most graphs have the print_readable shape and split statement by
   * statement. */
  CHECK(split >= 10);
}

/* Each text is not print_readable's shape: no cuts, parsed whole. */
static void check_parsed_whole(const char *const *texts, size_t count) {
  tl_ts_cuts cuts = {0};
  tl_ts_forward fwd;
  for (size_t i = 0; i < count; i++) {
    CHECK(!tl_ts_python_forward_cuts(tl_str_from(texts[i]), &cuts, &fwd));
    CHECK_INT_EQ(cuts.count, 0);
  }
  TL_VEC_FREE(cuts);
}

TEST(fx_scanner_accepts_only_the_print_readable_shape) {
  const char *g = "class GraphModule(torch.nn.Module):\n"
                  "    def forward(self, x: \"f32[8]\"):\n"
                  "        # comment\n"
                  "        a: \"f32[8]\" = torch.ops.aten.relu.default(x);  "
                  "x = None\n"
                  "        b = f(a,\n"
                  "b)\n"
                  "        return (b,)\n";
  tl_ts_cuts cuts = {0};
  tl_ts_forward fwd;
  CHECK(tl_ts_python_forward_cuts(tl_str_from(g), &cuts, &fwd));
  const char *a = strstr(g, "        a:"), *b = strstr(g, "        b ="),
             *r = strstr(g, "        return");
  CHECK_INT_EQ(fwd.body, a - g);
  /* The parameters, `self, x: "f32[8]"`, are left out of later chunks. */
  CHECK_INT_EQ(fwd.params_start, strstr(g, "self") - g);
  CHECK_INT_EQ(fwd.params_end, strstr(g, "\"):") + 1 - g);
  CHECK_INT_EQ(cuts.count, 2);
  if (cuts.count == 2) {
    CHECK_INT_EQ(cuts.items[0], b - g);
    CHECK_INT_EQ(cuts.items[1], r - g);
  }
  /* Another top-level statement, a second method, a bare def, a tab, an
   * open string: parsed whole. */
  static const char *const others[] = {
      "import torch\nclass G:\n    def forward(self):\n        a = 1\n",
      "class G:\n    def forward(self):\n        a = 1\n    def f(s): b\n",
      "def forward(self):\n    a = 1\n",
      "class G:\n    def forward(self):\n\ta = 1\n",
      "class G:\n    def forward(self):\n        a = \"\"\"\n",
  };
  check_parsed_whole(others, sizeof others / sizeof *others);
  TL_VEC_FREE(cuts);
}

TEST(fx_scanner_cuts_before_each_nested_subgraph_class) {
  const char *g = "class G(torch.nn.Module):\n"
                  "    def forward(self, x):\n"
                  "        a = x.relu()\n"
                  "        b = a * 2\n"
                  "        return (b,)\n"
                  "        \n"
                  "    class true_graph_0(torch.nn.Module):\n"
                  "        def forward(self, y):\n"
                  "            c = y.sin()\n"
                  "            return (c,)\n"
                  "            \n"
                  "        class inner_0(torch.nn.Module):\n"
                  "            def forward(self, z):\n"
                  "                return (z,)\n"
                  "    class false_graph_0(torch.nn.Module):\n"
                  "        def forward(self, y):\n"
                  "            return (y,)\n";
  tl_ts_cuts cuts = {0};
  tl_ts_forward fwd;
  CHECK(tl_ts_python_forward_cuts(tl_str_from(g), &cuts, &fwd));
  const char *t = strstr(g, "    class true"),
             *f = strstr(g, "    class false");
  CHECK_INT_EQ(fwd.classes, t - g);
  /* b, return, then the two classes at indentation 4 (not the one inside) */
  CHECK_INT_EQ(cuts.count, 4);
  if (cuts.count == 4) {
    CHECK_INT_EQ(cuts.items[0], strstr(g, "        b =") - g);
    CHECK_INT_EQ(cuts.items[2], t - g);
    CHECK_INT_EQ(cuts.items[3], f - g);
  }
  /* A class before any statement of the body, or anything but a class at
   * indentation 4 after the first: parsed whole. */
  static const char *const others[] = {
      "class G:\n    def forward(self):\n    class s(M):\n"
      "        def forward(self):\n            a = 1\n",
      "class G:\n    def forward(self):\n        a = 1\n    class s(M):\n"
      "        def forward(self):\n            b = 1\n    c = 2\n",
      "class G:\n    def forward(self):\n        a = 1\n    class s(M):\n"
      "        def forward(self):\n            b = 1\nd = 3\n",
      /* a statement deeper than the one before (not a class or def) */
      "class G:\n    def forward(self):\n        a = 1\n            b,\n"
      "        c = 2\n",
      "class G:\n    def forward(self):\n        a = 1\n    class s(M):\n"
      "        def forward(self):\n            b = 1\n                c,\n",
  };
  check_parsed_whole(others, sizeof others / sizeof *others);
  TL_VEC_FREE(cuts);
}

/* Subgraph classes nested deep enough that their qualified names outgrow
 * the text (tl_subgraph_budget: 12 chains of 33 classes, about 110 KB, ask
 * for about 210 KB of names): names are given in text order, a class
 * before the classes in it, in the whole parse as in chunks, so the same
 * classes get a name, and the same run out of budget. */
TEST(fx_subgraph_names_past_the_budget_in_chunks_equal_whole) {
  tl_buf text;
  tl_buf_init(&text);
  tl_buf_puts(&text, "class GraphModule(torch.nn.Module):\n"
                     "    def forward(self, x):\n"
                     "        y = x\n"
                     "        return (y,)\n");
  for (int chain = 0; chain < 12; chain++)
    for (int depth = 0; depth < 33; depth++) {
      int at = 4 + 4 * depth;
      tl_buf_printf(&text,
                    "%*sclass c%d_d%02d_abcdefghijklmnopqrstuvw(M):\n"
                    "%*s    def forward(self, x):\n"
                    "%*s        y = x\n",
                    at, "", chain, depth, at, "", at, "");
    }
  check_chunked_equals_whole("subgraph names past the budget",
                             tl_buf_str(&text), true);
  tl_arena arena;
  tl_arena_init(&arena);
  tl_fx_graph g;
  tl_fx_analyze(&arena, tl_buf_str(&text), &g);
  size_t named = 0;
  for (size_t i = 0; i < g.subgraph_count; i++)
    named += g.subgraphs[i].name.len > 0;
  CHECK_INT_EQ((int)g.subgraph_count, 12 * 33);
  printf("  %zu of %zu subgraphs named\n", named, g.subgraph_count);
  CHECK(named > 33 && named < 12 * 33); /* the budget ran out on the way */
  CHECK(g.subgraphs[0].name.len == 30); /* c0_d00_...: 30 bytes */
  tl_arena_free(&arena);
  tl_buf_free(&text);
}

/* The recorded graphs with subgraph classes (torch.cond branches, one
 * nested in another, flex_attention's score and mask functions, a
 * nested_compile_region) chunk each class on its own and give the whole
 * parse's nodes and subgraphs at every chunk size. */
TEST(fx_recorded_graphs_with_subgraphs_in_chunks_equal_whole) {
  static const char *const logs[] = {"examples/rec-cond/trace.log",
                                     "examples/rec-flex/trace.log",
                                     "examples/rec-subgraphs/trace.log"};
  int with_classes = 0;
  for (size_t i = 0; i < sizeof logs / sizeof *logs; i++) {
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", TL_SOURCE_DIR, logs[i]);
    tl_buf all;
    tl_buf_init(&all);
    int n = payloads(path, "_graph", &all);
    CHECK(n >= 2);
    const char *p = all.data;
    for (int k = 0; k < n; k++) {
      size_t len = strlen(p);
      tl_str text = {p, len};
      char what[256];
      snprintf(what, sizeof what, "%s, graph %d", logs[i], k + 1);
      size_t chunks = check_chunked_equals_whole(what, text, true);
      tl_ts_cuts cuts = {0};
      tl_ts_forward fwd;
      /* fx_chunks reads `class <lambda>` unpatched, which fails to parse
       * (the analysis, which patches it, is compared above) */
      bool lambda = strncmp(p, "class <lambda>", 14) == 0;
      if (tl_ts_python_forward_cuts(text, &cuts, &fwd) && fwd.classes &&
          !lambda) {
        with_classes++;
        CHECK(chunks > cuts.count / 2); /* split, not parsed whole */
      }
      TL_VEC_FREE(cuts);
      p += len + 1;
    }
    tl_buf_free(&all);
  }
  CHECK(with_classes >= 3);
}

int main(void) {
  RUN(python_scanner_cuts_before_each_top_level_statement);
  RUN(python_scanner_ignores_column_0_lines_inside_triple_quoted_strings);
  RUN(python_scanner_keeps_decorators_and_clauses_with_their_statement);
  RUN(python_scanner_follows_brackets_and_continuations);
  RUN(python_scanner_is_unsure_of_unbalanced_input);
  RUN(python_long_strings_are_the_bodies_of_plain_triple_quoted_literals);
  RUN(python_comment_runs_lie_between_two_lines_of_their_indentation);
  RUN(python_body_cuts_a_def_or_with_between_its_statements);
  RUN(python_body_leaves_clauses_tabs_and_small_items_whole);
  RUN(fx_scanner_accepts_only_the_print_readable_shape);
  RUN(fx_scanner_cuts_before_each_nested_subgraph_class);
  RUN(fx_subgraph_names_past_the_budget_in_chunks_equal_whole);
  RUN(fx_recorded_graphs_with_subgraphs_in_chunks_equal_whole);
  RUN(pycode_in_tiny_chunks_equals_whole_on_every_corpus_case);
  RUN(fx_graph_in_tiny_chunks_equals_whole_on_every_corpus_case);
  RUN(pycode_in_tiny_chunks_equals_whole_on_every_fixture_output_code);
  RUN(fx_graph_in_tiny_chunks_equals_whole_on_every_fixture_graph);
#ifdef HAVE_CPPCODE
  RUN(cpp_wrapper_code_in_tiny_chunks_equals_whole_on_every_corpus_case);
  RUN(chunker_parses_only_its_range_in_chunks_at_whole_text_positions);
  RUN(chunker_reads_patched_bytes_as_given_without_changing_the_text);
  RUN(chunker_parsing_ahead_gives_what_it_gives_alone);
  RUN(fx_parameters_in_slices_give_what_the_whole_forward_gives);
  RUN(cpp_wrapper_recording_in_tiny_chunks_equals_whole);
#endif
  return check_summary();
}
