/* test_provenance.c: the join (tl_provenance_build) on small views written
 * here, and on the five provenance fixtures against the reviewed JSON in
 * tests/engine/expected/<fixture>.json (whole document, parsed).
 *
 * The fixture payloads are taken from the trace log by a test-only reader
 * (envelope after "] ", payload = following tab lines, tab stripped). Paths
 * are the names the Rust tlparse gives those artifacts (expected-files/).
 *   test_provenance --print FIXTURE   prints the JSON built for a fixture
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "check.h"
#include "join/provenance.h"
#include "util/fsutil.h"

/* ---- small views -------------------------------------------------------- */

static const char *const PRE =
    "class GraphModule(torch.nn.Module):\n"
    "    def forward(self, L_x_: \"f32[8][1]cuda:0\"):\n"
    "        l_x_ = L_x_\n"
    "        x: \"f32[8][1]cuda:0\" = torch.relu(l_x_);  l_x_ = None\n"
    "        y: \"f32[8][1]cuda:0\" = x * 2;  x = None\n"
    "        return (y,)\n";

static const char *const POST =
    "class GraphModule(torch.nn.Module):\n"
    "    def forward(self, primals_1: \"f32[8][1]cuda:0\"):\n"
    "        relu: \"f32[8][1]cuda:0\" = "
    "torch.ops.aten.relu.default(primals_1)\n"
    "        mul: \"f32[8][1]cuda:0\" = torch.ops.aten.mul.Tensor(relu, 2);  "
    "relu = None\n"
    "        mm: \"f32[8][1]cuda:0\" = torch.ops.aten.mm.default(mul, mul)\n"
    "        return (mm,)\n";

/* Line 9: k_1 launch bound to :1; line 13: k_10 launch bound to :12;
 * line 16: extern mm bound to :2; line 18: k_1 again, no handle. */
static const char *const CODE =
    "k_1 = async_compile.triton('k_1', '''\n"                /* 1 */
    "def k_1(in_ptr0):\n"                                    /* 2 */
    "    pass\n"                                             /* 3 */
    "''', device_str='cuda')\n"                              /* 4 */
    "k_10 = async_compile.triton('k_10', '''\n"              /* 5 */
    "''', device_str='cuda')\n"                              /* 6 */
    "def call(args):\n"                                      /* 7 */
    "    # [Provenance debug handles] k_1:1\n"               /* 8 */
    "    k_1.run(buf0, 8, stream=stream0)\n"                 /* 9 */
    "    # [Provenance debug handles] k_10:12\n"             /* 10 */
    "    stream0 = get_raw_stream(0)\n"                      /* 11 */
    "    k_10_xnumel = 8*s0\n"                               /* 12 */
    "    k_10.run(buf0, k_10_xnumel, stream=stream0)\n"      /* 13 */
    "    # [Provenance debug handles] extern_kernels.mm:2\n" /* 14 */
    "    # [Provenance debug handles] a::b::op:7\n"          /* 15 */
    "    extern_kernels.mm(buf0, buf0, out=buf1)\n"          /* 16 */
    "    a_b = 1\n"                                          /* 17 */
    "    k_1.run(buf1, 8, stream=stream0)\n"                 /* 18 */
    "    return (buf1,)\n";                                  /* 19 */

/* The texts of a build, given by tl_prov_inputs.load, overwritten with 'X'
 * and freed when the build lets them go: any later read would give names
 * that match nothing, and every test below would fail (or ASan stop it). */
typedef struct scribbled {
  char *texts[6];
  bool present[6];
  int loads[6], releases[6];
} scribbled;

static tl_str load_copy(void *ctx, tl_prov_text t) {
  scribbled *s = ctx;
  s->loads[t]++;
  return s->texts[t] ? tl_str_from(s->texts[t]) : (tl_str){NULL, 0};
}

static void scribble(void *ctx, tl_prov_text t) {
  scribbled *s = ctx;
  s->releases[t]++;
  if (s->texts[t]) { /* and freed: ASan (in CI) stops a later read */
    memset(s->texts[t], 'X', strlen(s->texts[t]));
    free(s->texts[t]);
    s->texts[t] = NULL;
  }
}

/* A copy to scribble on (NULL stays NULL). */
static char *copied(tl_str text) {
  if (!text.ptr)
    return NULL;
  char *copy = malloc(text.len + 1);
  memcpy(copy, text.ptr, text.len);
  copy[text.len] = '\0';
  return copy;
}

/* tl_provenance_build with its texts loaded on demand and scribbled on once
 * let go: each present text must be loaded once and let go once, each
 * absent one never let go. */
static cJSON *build_scribbled(tl_prov_inputs *in) {
  scribbled s = {{copied(in->pre_graph), copied(in->post_graph),
                  copied(in->code), copied(in->kernel_code),
                  copied(in->node_mappings), copied(in->stack_traces)},
                 {false},
                 {0},
                 {0}};
  for (int i = 0; i < 6; i++)
    s.present[i] = s.texts[i] != NULL;
  in->load = load_copy;
  in->release = scribble;
  in->texts_ctx = &s;
  cJSON *j = tl_provenance_build(in);
#ifdef HAVE_CPPCODE
  bool kernel_code_read = in->aot, code_read = true;
#else
  bool kernel_code_read = false, code_read = !in->aot; /* no C++ analyzer */
#endif
  for (int i = 0; i < 6; i++) {
    bool unread = (i == TL_PROV_KERNEL_CODE && !kernel_code_read) ||
                  (i == TL_PROV_CODE && !code_read);
    CHECK_INT_EQ(s.loads[i], unread ? 0 : 1);
    CHECK_INT_EQ(s.releases[i], s.present[i] && !unread ? 1 : 0);
    free(s.texts[i]);
  }
  return j;
}

/* The small view's inputs: PRE, POST, CODE and the given JSON texts. */
static tl_prov_inputs small_view(const char *mapping, const char *traces) {
  tl_prov_inputs in;
  memset(&in, 0, sizeof in);
  in.compile_dir = "-_0_0_0";
  in.compile_id = "[0/0]";
  in.pre_graph = tl_str_from(PRE);
  in.post_graph = tl_str_from(POST);
  in.code = tl_str_from(CODE);
  in.node_mappings = mapping ? tl_str_from(mapping) : (tl_str){NULL, 0};
  in.stack_traces = traces ? tl_str_from(traces) : (tl_str){NULL, 0};
  in.pre_path = "-_0_0_0/before_pre_grad_graph_1.txt";
  in.post_path = "-_0_0_0/after_post_grad_graph_2.txt";
  in.code_path = "-_0_0_0/inductor_output_code_x_3.py";
  in.mappings_path = mapping ? "-_0_0_0/m_4.json" : NULL;
  return in;
}

static cJSON *build(const char *mapping, const char *traces) {
  tl_prov_inputs in = small_view(mapping, traces);
  return build_scribbled(&in);
}

/* Compares `actual` with the JSON text `expected`; prints both on failure. */
static bool json_equals(const cJSON *actual, const char *expected) {
  cJSON *e = cJSON_Parse(expected);
  bool ok = e && actual && cJSON_Compare(actual, e, true);
  if (!ok) {
    char *a = actual ? cJSON_Print(actual) : NULL;
    printf("  expected: %s\n  actual:   %s\n", expected, a ? a : "(null)");
    free(a);
  }
  cJSON_Delete(e);
  return ok;
}

static const cJSON *at(const cJSON *j, const char *a, const char *b) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, a);
  return b ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
}

TEST(v2_handle_binds_exactly_one_call_and_never_a_longer_handle) {
  cJSON *j = build(
      "{\"cppCodeToPost\": {\"k_1:1\": [\"relu\"], \"k_10:12\": [\"mul\"],"
      " \"extern_kernels.mm:2\": [\"mm\"]},"
      " \"postToCppCode\": {\"relu\": [\"k_1:1\"], \"mul\": [\"k_10:12\"],"
      " \"mm\": [\"extern_kernels.mm:2\"]}, \"version\": 2.0}",
      NULL);
  CHECK(json_equals(at(j, "lines", "codeToPost"),
                    "{\"9\": [3], \"13\": [4], \"16\": [5]}"));
  CHECK(json_equals(at(j, "lines", "postToCode"),
                    "{\"3\": [9], \"4\": [13], \"5\": [16]}"));
  CHECK(json_equals(at(j, "mapping_version", NULL), "2"));
  CHECK(json_equals(at(j, "unresolved", "kernels"), "[]"));
  cJSON_Delete(j);
}

TEST(code_of_a_megabyte_analyzes_the_graphs_on_a_thread_of_their_own) {
  /* The same view with its code padded past 1 MiB (comment lines after
   * it): the graphs are then loaded, analyzed and let go on a second thread
   * while the code is (TSan runs this test), with the same JSON. */
  static const char mapping[] =
      "{\"cppCodeToPost\": {\"k_1:1\": [\"relu\"]}, \"postToCppCode\": "
      "{\"relu\": [\"k_1:1\"]}, \"preToPost\": {\"x\": [\"relu\"]}, "
      "\"version\": 2.0}";
  tl_buf padded;
  tl_buf_init(&padded);
  tl_buf_puts(&padded, CODE);
  while (padded.len < (1u << 20) + 1)
    tl_buf_puts(&padded, "# padding after the module's code\n");
  tl_prov_inputs in = small_view(mapping, NULL);
  cJSON *small = build_scribbled(&in);
  in.code = tl_buf_str(&padded);
  cJSON *large = build_scribbled(&in);
  CHECK(cJSON_Compare(small, large, true));
  CHECK(json_equals(at(large, "lines", "preToPost"), "{\"4\": [3]}"));
  cJSON_Delete(small);
  cJSON_Delete(large);
  tl_buf_free(&padded);
}

TEST(v1_bare_name_takes_every_call_of_that_kernel_only) {
  cJSON *j = build("{\"cppCodeToPost\": {\"k_1\": [\"relu\", \"mul\"]},"
                   " \"postToCppCode\": {\"relu\": [\"k_1\"]}}",
                   NULL);
  CHECK(json_equals(at(j, "lines", "codeToPost"),
                    "{\"9\": [3, 4], \"18\": [3, 4]}"));
  CHECK(json_equals(at(j, "lines", "postToCode"), "{\"3\": [9, 18]}"));
  CHECK(json_equals(at(j, "mapping_version", NULL), "1"));
  const cJSON *k = cJSON_GetArrayItem(at(j, "kernels", NULL), 0);
  CHECK(json_equals(k, "{\"key\": \"k_1\", \"name\": \"k_1\", \"handle\": null,"
                       " \"kind\": \"triton\", \"calls\": [9, 18],"
                       " \"definition\": {\"file\": \"code\", \"first\": 1,"
                       " \"last\": 4}, \"post_nodes\": [\"relu\", \"mul\"],"
                       " \"stack_traces\": []}"));
  cJSON_Delete(j);
}

TEST(graph_line_maps_are_sorted_unions) {
  cJSON *j =
      build("{\"preToPost\": {\"x\": [\"relu\", \"mul\"],"
            " \"y\": [\"mul\", \"relu\", \"relu\"]},"
            " \"postToPre\": {\"mul\": [\"y\", \"x\"], \"relu\": [\"x\"]}}",
            NULL);
  CHECK(json_equals(at(j, "lines", "preToPost"),
                    "{\"4\": [3, 4], \"5\": [3, 4]}"));
  CHECK(
      json_equals(at(j, "lines", "postToPre"), "{\"3\": [4], \"4\": [4, 5]}"));
  CHECK(json_equals(at(j, "nodes", NULL),
                    "{\"pre\": {\"x\": 4, \"y\": 5},"
                    " \"post\": {\"mul\": 4, \"relu\": 3}}"));
  cJSON_Delete(j);
}

TEST(mapping_entries_of_the_wrong_type_are_listed_as_malformed) {
  cJSON *j =
      build("{\"preToPost\": {\"x\": \"relu\", \"y\": [\"mul\", 7, null]},"
            " \"postToPre\": [],"
            " \"cppCodeToPost\": {\"k_1\": {\"a\": 1}, \"k_10\": [\"mul\"]},"
            " \"postToCppCode\": {\"relu\": [true]}}",
            NULL);
  CHECK(
      json_equals(at(j, "malformed", NULL),
                  "[{\"section\": \"preToPost\", \"key\": \"x\","
                  "  \"problem\": \"a string, not a list of names\"},"
                  " {\"section\": \"preToPost\", \"key\": \"y\","
                  "  \"problem\": \"a list holding a number, not a name\"},"
                  " {\"section\": \"preToPost\", \"key\": \"y\","
                  "  \"problem\": \"a list holding null, not a name\"},"
                  " {\"section\": \"postToPre\", \"key\": \"\","
                  "  \"problem\": \"a list, not an object\"},"
                  " {\"section\": \"cppCodeToPost\", \"key\": \"k_1\","
                  "  \"problem\": \"an object, not a list of names\"},"
                  " {\"section\": \"postToCppCode\", \"key\": \"relu\","
                  "  \"problem\": \"a list holding a boolean, not a name\"}]"));
  /* The well-typed parts still join: y -> mul, k_10 -> mul. */
  CHECK(json_equals(at(j, "lines", "preToPost"), "{\"5\": [4]}"));
  CHECK(json_equals(at(j, "nodes", "pre"), "{\"y\": 5}"));
  cJSON_Delete(j);
}

TEST(names_without_a_line_are_listed_as_unresolved) {
  cJSON *j = build(
      "{\"preToPost\": {\"x\": [\"primals_1\", \"_tensor_constant1\"],"
      " \"gone\": [\"relu\"]},"
      " \"cppCodeToPost\": {\"k_1:5\": [\"relu\"], \"k_2:3\": [\"zz\"]},"
      " \"version\": 2.0}",
      "{\"k_1:1\": [\"  File \\\"m.py\\\", line 3, in f\\n\"], \"k_9:9\": []}");
  CHECK(json_equals(at(j, "unresolved", NULL),
                    "{\"pre_nodes\": [\"gone\"],"
                    " \"post_nodes\": [\"_tensor_constant1\", \"zz\"],"
                    " \"kernels\": [\"k_1:5\", \"k_2:3\", \"k_9:9\"]}"));
  /* the placeholder resolves to the `def forward` line */
  CHECK(json_equals(at(j, "nodes", "post"), "{\"primals_1\": 2, \"relu\": 3}"));
  const cJSON *ks = at(j, "kernels", NULL);
  CHECK_INT_EQ(cJSON_GetArraySize(ks), 4);
  CHECK(json_equals(cJSON_GetArrayItem(ks, 2),
                    "{\"key\": \"k_1:1\", \"name\": \"k_1\", \"handle\": 1,"
                    " \"kind\": \"triton\", \"calls\": [9],"
                    " \"definition\": {\"file\": \"code\", \"first\": 1,"
                    " \"last\": 4}, \"post_nodes\": [],"
                    " \"stack_traces\": [\"  File \\\"m.py\\\", line 3, in "
                    "f\\n\"]}"));
  cJSON_Delete(j);
}

/* A torch.cond branch's `mul` has the outer graph's name, and the mapping
 * names nodes by name alone: the other names of the same entry (their
 * graphs) tell which definition is meant; with no such name, both link.
 * node_definitions lists both (the outer first); `nodes` keeps the first. */
TEST(a_node_name_of_two_graphs_links_the_definition_its_entry_means) {
  static const char *const post =
      "class GraphModule(torch.nn.Module):\n"                    /* 1 */
      "    def forward(self, primals_1: \"f32[8][1]cuda:0\"):\n" /* 2 */
      "        mul: \"f32[8][1]\" = primals_1 * 3\n"             /* 3 */
      "        add: \"f32[8][1]\" = mul + 1\n"                   /* 4 */
      "        true_graph_0 = self.true_graph_0\n"               /* 5 */
      "        cond = torch.ops.higher_order.cond(add, true_graph_0)\n"
      "        return (cond,)\n"                            /* 7 */
      "    class true_graph_0(torch.nn.Module):\n"          /* 8 */
      "        def forward(self, arg0_1: \"f32[8][1]\"):\n" /* 9 */
      "            relu: \"f32[8][1]\" = arg0_1.relu()\n"   /* 10 */
      "            mul: \"f32[8][1]\" = relu * 2\n"         /* 11 */
      "            return (mul,)\n";                        /* 12 */
  tl_prov_inputs in = small_view(
      "{\"cppCodeToPost\": {\"k_1:1\": [\"relu\", \"mul\"],"
      " \"k_10:12\": [\"add\", \"mul\"], \"extern_kernels.mm:2\": [\"mul\"]},"
      " \"postToCppCode\": {\"mul\": [\"k_1:1\", \"k_10:12\","
      " \"extern_kernels.mm:2\"]},"
      " \"preToPost\": {\"x\": [\"mul\"], \"y\": [\"mul\", \"relu\"]},"
      " \"postToPre\": {\"mul\": [\"y\"]}, \"version\": 2.0}",
      NULL);
  in.post_graph = tl_str_from(post);
  cJSON *j = build_scribbled(&in);
  /* k_1 (line 9) with relu: the branch's mul; k_10 (13) with add: the
   * outer one; mm (16) with mul alone: both */
  CHECK(json_equals(at(j, "lines", "codeToPost"),
                    "{\"9\": [10, 11], \"13\": [3, 4], \"16\": [3, 11]}"));
  CHECK(json_equals(at(j, "lines", "postToCode"),
                    "{\"3\": [13, 16], \"11\": [9, 16]}"));
  /* x (pre line 4) maps to mul alone: both; y (5) with relu: the branch's */
  CHECK(json_equals(at(j, "lines", "preToPost"),
                    "{\"4\": [3, 11], \"5\": [10, 11]}"));
  /* a key has no context in its own graph: every definition */
  CHECK(json_equals(at(j, "lines", "postToPre"), "{\"3\": [5], \"11\": [5]}"));
  CHECK(json_equals(at(j, "nodes", "post"),
                    "{\"add\": 4, \"mul\": 3, \"relu\": 10}"));
  CHECK(json_equals(at(j, "node_definitions", NULL),
                    "{\"pre\": {}, \"post\": {\"mul\": [3, 11]}}"));
  cJSON_Delete(j);
}

/* Many subgraphs defining one name: a name alone would link every one, so
 * past 8 it links its first; with a context, the subgraph it points to. */
TEST(a_name_that_many_graphs_define_links_its_first_alone) {
  tl_buf post;
  tl_buf_init(&post);
  tl_buf_puts(&post, "class GraphModule(torch.nn.Module):\n"
                     "    def forward(self, primals_1: \"f32[8][1]\"):\n"
                     "        mul: \"f32[8][1]\" = primals_1 * 3\n"
                     "        return (mul,)\n");
  /* subgraph i (0..11): lines 5 + 5 i (class), relu_i at 7 + 5 i, mul at
   * 8 + 5 i */
  for (int i = 0; i < 12; i++)
    tl_buf_printf(&post,
                  "    class sub_%d(torch.nn.Module):\n"
                  "        def forward(self, arg0_1: \"f32[8][1]\"):\n"
                  "            relu_%d: \"f32[8][1]\" = arg0_1.relu()\n"
                  "            mul: \"f32[8][1]\" = relu_%d * 2\n"
                  "            return (mul,)\n",
                  i, i, i);
  tl_prov_inputs in =
      small_view("{\"cppCodeToPost\": {\"k_1:1\": [\"mul\"],"
                 " \"k_10:12\": [\"relu_3\", \"mul\"]}, \"version\": 2.0}",
                 NULL);
  in.post_graph = tl_buf_str(&post);
  cJSON *j = build_scribbled(&in);
  CHECK(json_equals(at(j, "lines", "codeToPost"),
                    "{\"9\": [3], \"13\": [22, 23]}"));
  const cJSON *defs = at(at(j, "node_definitions", "post"), "mul", NULL);
  CHECK_INT_EQ(cJSON_GetArraySize(defs), 13);
  cJSON_Delete(j);
  tl_buf_free(&post);
}

/* Inductor's Python wrapper lifts each subgraph into a function named
 * after it (a nested one's name joins its parents'), and the function a
 * kernel is called in tells which graph's `mul` its mapping means, where
 * its other names tell nothing (k_2 names `mul` alone) or tell wrong (k_3's
 * `gt` is the outer graph's and the inner branch's `cond` holder's): a name
 * the function's graph does not define is the nearest outer graph's. */
TEST(the_function_a_kernel_is_called_in_tells_its_subgraph) {
  static const char *const post =
      "class GraphModule(torch.nn.Module):\n"                    /* 1 */
      "    def forward(self, primals_1: \"f32[8][1]cuda:0\"):\n" /* 2 */
      "        mul: \"f32[8][1]\" = primals_1 * 3\n"             /* 3 */
      "        gt: \"b8[][]\" = mul.sum() > 0\n"                 /* 4 */
      "        true_graph_0 = self.true_graph_0\n"               /* 5 */
      "        cond = torch.ops.higher_order.cond(gt, true_graph_0)\n"
      "        return (cond,)\n"                            /* 7 */
      "    class true_graph_0(torch.nn.Module):\n"          /* 8 */
      "        def forward(self, arg0_1: \"f32[8][1]\"):\n" /* 9 */
      "            gt: \"b8[][]\" = arg0_1.mean() > 0\n"    /* 10 */
      "            mul: \"f32[8][1]\" = arg0_1 * 2\n"       /* 11 */
      "            return (mul,)\n"                         /* 12 */
      "        class false_graph_0(torch.nn.Module):\n"     /* 13 */
      "            def forward(self, arg0_1: \"f32[8][1]\"):\n"
      "                mul: \"f32[8][1]\" = arg0_1 * 4\n" /* 15 */
      "                return (mul,)\n";                  /* 16 */
  static const char *const code =
      "def true_graph_0(args):\n"                /* 1 */
      "    # [Provenance debug handles] k_1:1\n" /* 2 */
      "    k_1.run(args[0])\n"                   /* 3 */
      "def true_graph_0_false_graph_0(args):\n"  /* 4 */
      "    # [Provenance debug handles] k_3:3\n" /* 5 */
      "    k_3.run(args[0])\n"                   /* 6 */
      "def call(args):\n"                        /* 7 */
      "    # [Provenance debug handles] k_2:2\n" /* 8 */
      "    k_2.run(args[0])\n"                   /* 9 */
      "    buf0 = true_graph_0(args)\n";         /* 10 */
  const char *mapping =
      "{\"cppCodeToPost\": {\"k_1:1\": [\"mul\"], \"k_2:2\": [\"mul\"],"
      " \"k_3:3\": [\"gt\", \"mul\"]},"
      " \"postToCppCode\": {\"mul\": [\"k_1:1\", \"k_2:2\", \"k_3:3\"]},"
      " \"version\": 2.0}";
  tl_prov_inputs in = small_view(mapping, NULL);
  in.post_graph = tl_str_from(post);
  in.code = tl_str_from(code);
  cJSON *j = build_scribbled(&in);
  CHECK(json_equals(at(j, "lines", "codeToPost"),
                    "{\"3\": [11], \"6\": [10, 15], \"9\": [3]}"));
  CHECK(json_equals(at(j, "lines", "postToCode"),
                    "{\"3\": [9], \"11\": [3], \"15\": [6]}"));
  cJSON_Delete(j);
  /* Code that names no function after a subgraph (a C++ wrapper inlines
   * them): the names alone, so `mul` alone links every definition. */
  static const char *const inlined =
      "def call(args):\n"                        /* 1 */
      "    # [Provenance debug handles] k_1:1\n" /* 2 */
      "    k_1.run(args[0])\n";                  /* 3 */
  in = small_view("{\"cppCodeToPost\": {\"k_1:1\": [\"mul\"]},"
                  " \"version\": 2.0}",
                  NULL);
  in.post_graph = tl_str_from(post);
  in.code = tl_str_from(inlined);
  j = build_scribbled(&in);
  CHECK(json_equals(at(j, "lines", "codeToPost"), "{\"3\": [3, 11, 15]}"));
  cJSON_Delete(j);
}

/* A kernel called in the functions of 10 subgraphs that each define `mul`
 * (a v1 key: every call of the name): past 8 definitions a name links its
 * first, as by the names, so the join stays linear in the mapping. With 3
 * it links the 3. */
TEST(a_kernel_called_in_many_subgraphs_links_a_bounded_number_of_lines) {
  for (int n = 3; n <= 10; n += 7) {
    tl_buf post, code;
    tl_buf_init(&post);
    tl_buf_init(&code);
    tl_buf_puts(&post, "class GraphModule(torch.nn.Module):\n"
                       "    def forward(self, primals_1: \"f32[8][1]\"):\n"
                       "        mul: \"f32[8][1]\" = primals_1 * 3\n"
                       "        return (mul,)\n");
    /* subgraph i: class at 5 + 4 i, its mul at 7 + 4 i */
    for (int i = 0; i < n; i++) {
      tl_buf_printf(&post,
                    "    class sub_%d(torch.nn.Module):\n"
                    "        def forward(self, arg0_1: \"f32[8][1]\"):\n"
                    "            mul: \"f32[8][1]\" = arg0_1 * 2\n"
                    "            return (mul,)\n",
                    i);
      /* function i: def at 1 + 2 i, the call at 2 + 2 i */
      tl_buf_printf(&code,
                    "def sub_%d(args):\n    extern_kernels.mm(args[0])\n", i);
    }
    tl_prov_inputs in =
        small_view("{\"cppCodeToPost\": {\"extern_kernels.mm\": [\"mul\"]},"
                   " \"version\": 1.0}",
                   NULL);
    in.post_graph = tl_buf_str(&post);
    in.code = tl_buf_str(&code);
    cJSON *j = build_scribbled(&in);
    const cJSON *c2p = at(j, "lines", "codeToPost");
    CHECK_INT_EQ(cJSON_GetArraySize(c2p), n);
    const cJSON *first = cJSON_GetObjectItemCaseSensitive(c2p, "2");
    CHECK(json_equals(first, n == 3 ? "[7, 11, 15]" : "[7]"));
    cJSON_Delete(j);
    tl_buf_free(&post);
    tl_buf_free(&code);
  }
}

/* A subgraph name of TL_FX_SUBGRAPH_NAME_MAX bytes is kept; one nested in
 * it would be longer, and has none. */
TEST(a_qualified_name_past_the_cap_is_empty) {
  tl_buf post;
  tl_buf_init(&post);
  tl_buf_puts(&post, "class GraphModule(torch.nn.Module):\n"
                     "    def forward(self, x):\n"
                     "        y = x\n"
                     "    class ");
  for (int i = 0; i < TL_FX_SUBGRAPH_NAME_MAX; i++)
    tl_buf_putc(&post, 'a');
  tl_buf_puts(&post, "(torch.nn.Module):\n"
                     "        def forward(self, x):\n"
                     "            z = x\n"
                     "        class b(torch.nn.Module):\n"
                     "            def forward(self, x):\n"
                     "                w = x\n");
  tl_arena arena;
  tl_arena_init(&arena);
  tl_fx_graph g;
  tl_fx_analyze(&arena, tl_buf_str(&post), &g);
  CHECK_INT_EQ((int)g.subgraph_count, 2);
  if (g.subgraph_count == 2) {
    CHECK_INT_EQ((int)g.subgraphs[0].name.len, TL_FX_SUBGRAPH_NAME_MAX);
    CHECK_INT_EQ((int)g.subgraphs[1].name.len, 0);
  }
  tl_arena_free(&arena);
  tl_buf_free(&post);
}

/* The subgraphs of an FX graph: where each starts, the one it is nested
 * in, and its name as Inductor qualifies it. */
TEST(fx_subgraphs_have_their_qualified_names_and_parents) {
  static const char *const post =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[8]\"):\n"
      "        y = x * 2\n"
      "        return (y,)\n"
      "    class true_graph_0(torch.nn.Module):\n"
      "        def forward(self, a: \"f32[8]\"):\n"
      "            b = a * 3\n"
      "            return (b,)\n"
      "        class false_graph_0(torch.nn.Module):\n"
      "            def forward(self, a: \"f32[8]\"):\n"
      "                c = a * 4\n"
      "                return (c,)\n"
      "    class repeated_subgraph0(torch.nn.Module):\n"
      "        def forward(self, a: \"f32[8]\"):\n"
      "            d = a * 5\n"
      "            return (d,)\n";
  tl_arena arena;
  tl_arena_init(&arena);
  tl_fx_graph g;
  tl_fx_analyze(&arena, tl_str_from(post), &g);
  CHECK_INT_EQ((int)g.subgraph_count, 3);
  if (g.subgraph_count == 3) {
    const char *names[] = {"true_graph_0", "true_graph_0_false_graph_0",
                           "repeated_subgraph0"};
    for (int i = 0; i < 3; i++)
      CHECK(tl_str_eq_cstr(g.subgraphs[i].name, names[i]));
    CHECK_INT_EQ((int)g.subgraphs[0].parent, 0);
    CHECK_INT_EQ((int)g.subgraphs[1].parent, (int)g.subgraphs[0].graph);
    CHECK_INT_EQ((int)g.subgraphs[2].parent, 0);
    /* each node's graph is one of them */
    CHECK(
        tl_fx_subgraph_of(
            &g, tl_fx_definitions(&g, tl_str_from("c"), &(size_t){0})->graph) ==
        &g.subgraphs[1]);
    CHECK(tl_fx_subgraph_of(&g, 0) == NULL);
  }
  tl_arena_free(&arena);
}

TEST(key_with_inner_colons_splits_its_handle_at_the_last_colon) {
  cJSON *j = build("{\"cppCodeToPost\": {\"a::b::op:7\": [\"mm\"]},"
                   " \"version\": 2.0}",
                   NULL);
  const cJSON *k = cJSON_GetArrayItem(at(j, "kernels", NULL), 0);
  CHECK(json_equals(at(k, "name", NULL), "\"a::b::op\""));
  CHECK(json_equals(at(k, "handle", NULL), "7"));
  CHECK(json_equals(at(k, "kind", NULL), "\"unknown\""));
  /* its comment is followed by an extern call, which is not `a::b::op` */
  CHECK(json_equals(at(k, "calls", NULL), "[]"));
  cJSON_Delete(j);
}

TEST(view_without_usable_mapping_says_why_and_keeps_artifacts) {
  cJSON *j = build(NULL, NULL);
  CHECK(json_equals(at(j, "no_links_reason", NULL),
                    "\"no node mappings in this compilation (record them with "
                    "INDUCTOR_PROVENANCE=1 or TORCH_COMPILE_DEBUG=1)\""));
  CHECK(json_equals(at(j, "mapping_version", NULL), "null"));
  CHECK(json_equals(at(j, "artifacts", "code"),
                    "\"-_0_0_0/inductor_output_code_x_3.py\""));
  CHECK(json_equals(at(j, "embedded", NULL),
                    "[{\"file\": \"code\", \"first\": 2, \"last\": 3,"
                    " \"language\": \"python\"}]"));
  cJSON_Delete(j);
  j = build("{\"preToPost\": {\"x\": [", NULL);
  CHECK(json_equals(at(j, "no_links_reason", NULL),
                    "\"the node mappings are not a valid JSON object\""));
  cJSON_Delete(j);
  j = build("{\"version\": 2.0}", NULL);
  CHECK(json_equals(at(j, "no_links_reason", NULL),
                    "\"the node mappings are empty\""));
  CHECK(json_equals(at(j, "lines", NULL),
                    "{\"preToPost\": {}, \"postToPre\": {}, \"codeToPost\": {},"
                    " \"postToCode\": {}}"));
  cJSON_Delete(j);
}

TEST(kernel_kind_names_cover_every_kind) {
  CHECK_STR_EQ(tl_kernel_kind_name(TL_KERNEL_TRITON), "triton");
  CHECK_STR_EQ(tl_kernel_kind_name(TL_KERNEL_COMBO), "combo");
  CHECK_STR_EQ(tl_kernel_kind_name(TL_KERNEL_TEMPLATE), "template");
  CHECK_STR_EQ(tl_kernel_kind_name(TL_KERNEL_CPP), "cpp");
  CHECK_STR_EQ(tl_kernel_kind_name(TL_KERNEL_EXTERN), "extern");
  CHECK_STR_EQ(tl_kernel_kind_name(TL_KERNEL_FALLBACK), "fallback");
  CHECK_STR_EQ(tl_kernel_kind_name(TL_KERNEL_SHIM), "shim");
  CHECK_STR_EQ(tl_kernel_kind_name(TL_KERNEL_UNKNOWN), "unknown");
}

/* ---- the five fixtures -------------------------------------------------- */

typedef struct fixture {
  const char *log, *dir, *id;
  bool aot;
  const char *pre, *post, *code, *kernel_code, *mappings, *traces;
} fixture;

#define D0 "-_0_0_0/"
#define DA "-_-_-_-/"
static const fixture FIXTURES[] = {
    {"inductor_provenance_jit_debug_handle_log", "-_0_0_0", "[0/0]", false,
     D0 "before_pre_grad_graph_1.txt", D0 "after_post_grad_graph_11.txt",
     D0 "inductor_output_code_clrftghodm4tm4zqkq3os2ku43gh6fxhq2gvsumm3gyvlong"
        "h3ut_12.py",
     NULL, D0 "inductor_provenance_tracking_node_mappings_14.json",
     D0 "inductor_provenance_tracking_kernel_stack_traces_15.json"},
    {"inductor_provenance_jit_cuda_log", "-_0_0_0", "[0/0]", false,
     D0 "before_pre_grad_graph_1.txt", D0 "after_post_grad_graph_8.txt",
     D0 "inductor_output_code_ctyqpz4y5tpspenhvr4e3dup7j5igahhxbwbymrird7ypbda"
        "cci7_10.py",
     NULL, D0 "inductor_provenance_tracking_node_mappings_14.json", NULL},
    {"inductor_provenance_aot_cuda_log", "-_-_-_-", "[-/-]", true,
     DA "before_pre_grad_graph_0.txt", DA "after_post_grad_graph_6.txt",
     DA "inductor_aot_wrapper_code_9.txt", DA "inductor_aot_kernel_code_10.txt",
     DA "inductor_provenance_tracking_node_mappings_12.json", NULL},
    {"inductor_provenance_aot_log", "-_-_-_-", "[-/-]", true,
     DA "before_pre_grad_graph_0.txt", DA "after_post_grad_graph_6.txt",
     DA "inductor_aot_wrapper_code_8.txt", DA "inductor_aot_kernel_code_9.txt",
     DA "inductor_provenance_tracking_node_mappings_11.json", NULL},
    {"inductor_provenance_aot_log_old", "-_-_-_-", "[-/-]", true,
     DA "inductor_pre_grad_graph_0.txt", DA "inductor_post_grad_graph_8.txt",
     DA "inductor_aot_wrapper_code_12.txt",
     DA "inductor_aot_kernel_code_13.txt",
     DA "inductor_provenance_tracking_node_mappings_11.json", NULL},
};

/* The artifact name of an envelope: artifact/graph_dump "name", or the kind
 * key itself (inductor_output_code, inductor_pre_grad_graph, ...). */
static const char *artifact_name(const cJSON *env) {
  const cJSON *k = env ? env->child : NULL;
  if (!k || !k->string)
    return "";
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(k, "name");
  if ((!strcmp(k->string, "artifact") || !strcmp(k->string, "graph_dump")) &&
      cJSON_IsString(name))
    return name->valuestring;
  return k->string;
}

enum { PRE_, POST_, CODE_, KCODE_, MAP_, TRACES_, N_ };
static const char *const WANTED[N_][2] = {
    {"before_pre_grad_graph", "inductor_pre_grad_graph"},
    {"after_post_grad_graph", "inductor_post_grad_graph"},
    {"inductor_output_code", "inductor_aot_wrapper_code"},
    {"inductor_aot_kernel_code", NULL},
    {"inductor_provenance_tracking_node_mappings", NULL},
    {"inductor_provenance_tracking_kernel_stack_traces", NULL},
};

/* Fills payload[k] with the last payload of each wanted artifact (each
 * fixture holds one of each). Payloads are malloc'd. */
static void extract(char *log, char *payload[N_]) {
  char *line = log;
  while (line && *line) {
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    char *env_text = strstr(line, "] {");
    char *next = nl ? nl + 1 : NULL;
    if (!env_text) {
      line = next;
      continue;
    }
    cJSON *env = cJSON_Parse(env_text + 2);
    tl_buf p;
    tl_buf_init(&p);
    bool first = true;
    while (next && *next == '\t') {
      char *e = strchr(next, '\n');
      if (e)
        *e = '\0';
      if (!first)
        tl_buf_putc(&p, '\n');
      tl_buf_puts(&p, next + 1);
      first = false;
      next = e ? e + 1 : NULL;
    }
    const char *name = artifact_name(env);
    for (int k = 0; k < N_; k++)
      for (int a = 0; a < 2; a++)
        if (WANTED[k][a] && !strcmp(name, WANTED[k][a]) &&
            cJSON_GetObjectItemCaseSensitive(env, "has_payload") &&
            (a == 0 || !payload[k] || WANTED[k][1] == NULL)) {
          free(payload[k]);
          payload[k] = tl_xstrdup(p.data);
        }
    tl_buf_free(&p);
    cJSON_Delete(env);
    line = next;
  }
}

static tl_str opt(const char *s) { return s ? tl_str_from(s) : (tl_str){0}; }

/* Builds a fixture's view; NULL when the fixtures folder is absent. */
static cJSON *build_fixture(const fixture *f) {
  const char *dir = check_fixtures_dir();
  if (!dir)
    return NULL;
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s.txt", dir, f->log);
  char *log = tl_fs_read_all(path.data, NULL);
  tl_buf_free(&path);
  if (!log)
    return NULL;
  char *payload[N_] = {0};
  extract(log, payload);
  tl_prov_inputs in;
  memset(&in, 0, sizeof in);
  in.compile_dir = f->dir;
  in.compile_id = f->id;
  in.aot = f->aot;
  in.pre_graph = opt(payload[PRE_]);
  in.post_graph = opt(payload[POST_]);
  in.code = opt(payload[CODE_]);
  in.kernel_code = opt(payload[KCODE_]);
  in.node_mappings = opt(payload[MAP_]);
  in.stack_traces = opt(payload[TRACES_]);
  in.pre_path = f->pre;
  in.post_path = f->post;
  in.code_path = f->code;
  in.kernel_code_path = f->kernel_code;
  in.mappings_path = f->mappings;
  in.stack_traces_path = payload[TRACES_] ? f->traces : NULL;
  cJSON *j = build_scribbled(&in);
  for (int k = 0; k < N_; k++)
    free(payload[k]);
  free(log);
  return j;
}

static cJSON *expected_json(const fixture *f) {
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/engine/expected/%s.json", TL_SOURCE_DIR,
           f->log);
  char *text = tl_fs_read_all(path, NULL);
  cJSON *j = text ? cJSON_Parse(text) : NULL;
  free(text);
  return j;
}

#ifndef HAVE_CPPCODE
/* Without the C++ analyzer an AOT view keeps its graph links only. */
static void strip_code_side(cJSON *j) {
  static const char *const code_keys[] = {"kernels", "kernel_lines", "embedded",
                                          "entry"};
  for (size_t i = 0; i < 4; i++)
    cJSON_DeleteItemFromObjectCaseSensitive(j, code_keys[i]);
  cJSON *lines = cJSON_GetObjectItemCaseSensitive(j, "lines");
  cJSON_DeleteItemFromObjectCaseSensitive(lines, "codeToPost");
  cJSON_DeleteItemFromObjectCaseSensitive(lines, "postToCode");
  cJSON *un = cJSON_GetObjectItemCaseSensitive(j, "unresolved");
  cJSON_DeleteItemFromObjectCaseSensitive(un, "kernels");
  cJSON_DeleteItemFromObjectCaseSensitive(j, "no_links_reason");
}
#endif

static int fixtures_run;

static void check_fixture(const fixture *f) {
  cJSON *actual = build_fixture(f);
  if (!actual)
    return;
  fixtures_run++;
  cJSON *expected = expected_json(f);
  CHECK(expected != NULL);
#ifndef HAVE_CPPCODE
  if (f->aot) {
    CHECK(json_equals(at(actual, "no_links_reason", NULL),
                      "\"C++ analyzer not built\""));
    strip_code_side(actual);
    strip_code_side(expected);
  }
#endif
  if (expected && !cJSON_Compare(actual, expected, true)) {
    char *a = cJSON_Print(actual);
    printf("  %s: the built JSON differs from expected/%s.json:\n%s\n", f->log,
           f->log, a);
    free(a);
    check_failures_in_test++;
  }
  cJSON_Delete(expected);
  cJSON_Delete(actual);
}

TEST(jit_debug_handle_fixture_view_matches_expected_json) {
  check_fixture(&FIXTURES[0]);
}
TEST(jit_cuda_fixture_view_matches_expected_json) {
  check_fixture(&FIXTURES[1]);
}
TEST(aot_cuda_fixture_view_matches_expected_json) {
  check_fixture(&FIXTURES[2]);
}
TEST(aot_fixture_view_matches_expected_json) { check_fixture(&FIXTURES[3]); }
TEST(aot_log_old_fixture_view_matches_expected_json) {
  check_fixture(&FIXTURES[4]);
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--print")) {
    for (size_t i = 0; i < sizeof FIXTURES / sizeof *FIXTURES; i++) {
      if (strcmp(FIXTURES[i].log, argv[2]) != 0)
        continue;
      cJSON *j = build_fixture(&FIXTURES[i]);
      char *s = j ? cJSON_Print(j) : NULL;
      puts(s ? s : "(fixtures absent)");
      free(s);
      cJSON_Delete(j);
      return 0;
    }
    return 2;
  }
  RUN(v2_handle_binds_exactly_one_call_and_never_a_longer_handle);
  RUN(code_of_a_megabyte_analyzes_the_graphs_on_a_thread_of_their_own);
  RUN(v1_bare_name_takes_every_call_of_that_kernel_only);
  RUN(graph_line_maps_are_sorted_unions);
  RUN(mapping_entries_of_the_wrong_type_are_listed_as_malformed);
  RUN(names_without_a_line_are_listed_as_unresolved);
  RUN(a_node_name_of_two_graphs_links_the_definition_its_entry_means);
  RUN(a_name_that_many_graphs_define_links_its_first_alone);
  RUN(the_function_a_kernel_is_called_in_tells_its_subgraph);
  RUN(fx_subgraphs_have_their_qualified_names_and_parents);
  RUN(a_kernel_called_in_many_subgraphs_links_a_bounded_number_of_lines);
  RUN(a_qualified_name_past_the_cap_is_empty);
  RUN(key_with_inner_colons_splits_its_handle_at_the_last_colon);
  RUN(view_without_usable_mapping_says_why_and_keeps_artifacts);
  RUN(kernel_kind_names_cover_every_kind);
  RUN(jit_debug_handle_fixture_view_matches_expected_json);
  RUN(jit_cuda_fixture_view_matches_expected_json);
  RUN(aot_cuda_fixture_view_matches_expected_json);
  RUN(aot_fixture_view_matches_expected_json);
  RUN(aot_log_old_fixture_view_matches_expected_json);
  if (!fixtures_run) {
    printf("skipped fixtures: %s not found\n", TL_FIXTURES_DIR);
    if (check_failed_tests == 0)
      return (void)check_summary(), 77;
  }
  return check_summary();
}
