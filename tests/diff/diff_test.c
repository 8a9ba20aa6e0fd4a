/* diff_test.c: the recompile diffs' readers on texts written here in the
 * shapes torch logs them (torch/_dynamo/guards.py: get_guard_fail_reason
 * for the reasons, the GuardManager debug string for the guards, and
 * print_readable for the graphs), and the reader of a compile's files. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "analyze/ts_query.h"
#include "check.h"
#include "diff/code_rest.h"
#include "diff/compile_files.h"
#include "diff/fx_diff.h"
#include "diff/guards.h"
#include "diff/kernel_diff.h"
#include "diff/recompile_reasons.h"
#include "diff/shape_words.h"
#include "util/fsutil.h"

static char *cstr(tl_str s) {
  static char buf[8][512];
  static int next;
  char *b = buf[next++ % 8];
  snprintf(b, sizeof buf[0], "%.*s", (int)s.len, s.ptr);
  return b;
}

static char *words(const tl_recompile_reason *r) {
  static char out[512];
  tl_buf b;
  tl_buf_init(&b);
  tl_recompile_reason_words(&b, r);
  snprintf(out, sizeof out, "%s", b.data);
  tl_buf_free(&b);
  return out;
}

TEST(a_tensor_size_check_is_read_and_said_in_words) {
  tl_recompile_reasons rs = {0};
  tl_recompile_reasons_read(
      tl_str_from("0/0: tensor 'x' size mismatch at index 0. expected 4, "
                  "actual 6\n"),
      &rs);
  CHECK_INT_EQ(rs.count, 1);
  const tl_recompile_reason *r = &rs.items[0];
  CHECK_INT_EQ(r->kind, TL_REASON_TENSOR);
  CHECK_STR_EQ(cstr(r->earlier), "0/0");
  CHECK_STR_EQ(cstr(r->subject), "x");
  CHECK_STR_EQ(cstr(r->what), "size");
  CHECK_STR_EQ(cstr(r->index), "0");
  CHECK_STR_EQ(cstr(r->expected), "4");
  CHECK_STR_EQ(cstr(r->actual), "6");
  CHECK_STR_EQ(words(r), "[0/0] was compiled for tensor x with size 4 at "
                         "dimension 0; it is now 6");
  TL_VEC_FREE(rs);
}

TEST(every_kind_of_reason_and_each_line_of_a_compile) {
  tl_recompile_reasons rs = {0};
  tl_recompile_reasons_read(
      tl_str_from(
          "0/0: tensor 'y' dtype mismatch. expected Float, actual Double\n"
          "0/1: ___check_obj_id(G['cfg'], 140197249297648)\n"
          "User stack trace:\n"
          "  File \"m.py\", line 3, in f\n"
          "0/2: ___check_type_id(L['n'], 9412)\n"
          "0/3: self.training == False; G['SCALE'] == 2.0     # y * SCALE  "
          "# m.py:5 in f\n"
          "0/4: 2 <= L['x'].size()[0]\n"
          "0/5: BACKEND_MATCH failure: torch.compile detected different\n"
          "!0/1/0: len(L['xs']) != 3 and x\n"),
      &rs);
  CHECK_INT_EQ(rs.count, 8);
  if (rs.count != 8)
    return;
  static const tl_reason_kind kinds[] = {
      TL_REASON_TENSOR,  TL_REASON_OBJECT_ID, TL_REASON_TYPE_ID,
      TL_REASON_EQUALS,  TL_REASON_EQUALS,    TL_REASON_SIZE_RANGE,
      TL_REASON_BACKEND, TL_REASON_OTHER};
  for (size_t i = 0; i < 8; i++)
    CHECK_INT_EQ(rs.items[i].kind, kinds[i]);
  CHECK_STR_EQ(words(&rs.items[0]), "[0/0] was compiled for tensor y with "
                                    "dtype Float; it is now Double");
  CHECK_STR_EQ(words(&rs.items[1]),
               "[0/1] holds another object in G['cfg'] than the one it was "
               "compiled for (its id changed)");
  CHECK_STR_EQ(words(&rs.items[2]),
               "[0/2] was compiled for another type of L['n']");
  CHECK_STR_EQ(cstr(rs.items[3].earlier), "0/3");
  CHECK_STR_EQ(cstr(rs.items[4].earlier), "0/3");
  CHECK_STR_EQ(words(&rs.items[3]), "[0/3] was compiled for self.training "
                                    "== False; that no longer holds");
  CHECK_STR_EQ(cstr(rs.items[4].subject), "G['SCALE']");
  CHECK_STR_EQ(cstr(rs.items[4].expected), "2.0");
  CHECK_STR_EQ(cstr(rs.items[4].where), "y * SCALE  # m.py:5 in f");
  CHECK_STR_EQ(words(&rs.items[5]),
               "[0/4] was compiled for sizes in a range that no longer "
               "holds: 2 <= L['x'].size()[0]");
  CHECK_STR_EQ(words(&rs.items[6]),
               "[0/5] was compiled with another backend callable");
  CHECK_STR_EQ(cstr(rs.items[7].earlier), "!0/1/0");
  CHECK_STR_EQ(words(&rs.items[7]),
               "[!0/1/0] guard failed: len(L['xs']) != 3 and x");
  TL_VEC_FREE(rs);
}

static const char GUARDS_A[] =
    "\n"
    "TREE_GUARD_MANAGER:\n"
    "+- RootGuardManager\n"
    "| +- DEFAULT_DEVICE: utils_device.CURRENT_DEVICE == None           # "
    "_dynamo/output_graph.py:1122 in init_ambient_guards\n"
    "| +- GuardManager: source=L['x'], accessed_by=FrameLocalsGuardAccessor"
    "(key='x', framelocals_idx=0), type=<class 'torch.Tensor'>\n"
    "| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, torch.float32, "
    "size=[4, 16], stride=[16, 1])  # return f(x)  # m.py:3 in g\n"
    "| +- GuardManager: source=G, accessed_by=GlobalsGuardAccessor\n"
    "| | +- GuardManager: source=G['__builtins_dict___1'], accessed_by="
    "DictGetItemGuardAccessor('__builtins_dict___1')\n"
    "| | | +- ID_MATCH: ___check_obj_id(G['__builtins_dict___1']['print'], "
    "77)  # print(1)  # m.py:4 in g\n"
    "| | +- EQUALS_MATCH: G['SCALE'] == 2.0  # y * SCALE  # m.py:5 in g\n";

static const char GUARDS_B[] =
    "\n"
    "TREE_GUARD_MANAGER:\n"
    "+- RootGuardManager\n"
    "| +- DEFAULT_DEVICE: utils_device.CURRENT_DEVICE == None\n"
    "| +- GuardManager: source=L['x'], accessed_by=FrameLocalsGuardAccessor"
    "(key='x', framelocals_idx=0), type=<class 'torch.Tensor'>\n"
    "| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, torch.float32, "
    "size=[None, 16], stride=[16, 1])  # return f(x)  # m.py:3 in g\n"
    "| +- LAMBDA_GUARD: 2 <= L['x'].size()[0]  # return f(x)  # m.py:3 in g\n"
    "| +- GuardManager: source=G, accessed_by=GlobalsGuardAccessor\n"
    "| | +- GuardManager: source=G['__builtins_dict___7'], accessed_by="
    "DictGetItemGuardAccessor('__builtins_dict___7')\n"
    "| | | +- ID_MATCH: ___check_obj_id(G['__builtins_dict___7']['print'], "
    "77)  # print(1)  # m.py:4 in g\n";

TEST(the_guard_tree_gives_each_leaf_its_manager_source_and_user_line) {
  tl_guards g = {0};
  tl_guards_read(tl_str_from(GUARDS_A), &g);
  CHECK_INT_EQ(g.count, 4);
  if (g.count != 4)
    return;
  CHECK_STR_EQ(cstr(g.items[0].kind), "DEFAULT_DEVICE");
  CHECK_STR_EQ(cstr(g.items[0].source), "");
  CHECK_STR_EQ(cstr(g.items[0].code), "utils_device.CURRENT_DEVICE == None");
  CHECK_STR_EQ(cstr(g.items[0].comment),
               "_dynamo/output_graph.py:1122 in init_ambient_guards");
  CHECK_STR_EQ(cstr(g.items[1].kind), "TENSOR_MATCH");
  CHECK_STR_EQ(cstr(g.items[1].source), "L['x']");
  CHECK_STR_EQ(cstr(g.items[1].comment), "return f(x)  # m.py:3 in g");
  CHECK_STR_EQ(cstr(g.items[2].source), "G['__builtins_dict___1']");
  CHECK_STR_EQ(cstr(g.items[3].kind), "EQUALS_MATCH");
  CHECK_STR_EQ(cstr(g.items[3].source), "G");
  CHECK_STR_EQ(cstr(g.items[3].code), "G['SCALE'] == 2.0");
  TL_VEC_FREE(g);
}

TEST(guards_that_differ_are_changed_added_or_removed) {
  tl_guards a = {0}, b = {0};
  tl_guards_read(tl_str_from(GUARDS_A), &a);
  tl_guards_read(tl_str_from(GUARDS_B), &b);
  tl_guard_diff d = {0};
  tl_guards_diff(&a, &b, &d);
  /* The device guard (comment aside) and the print id (___1 and ___7) are
   * the same guard; the tensor's size changed; the size range is new; the
   * SCALE guard went. */
  CHECK_INT_EQ(d.count, 3);
  if (d.count != 3)
    return;
  CHECK_INT_EQ(d.items[0].change, TL_GUARD_CHANGED);
  CHECK_STR_EQ(cstr(d.items[0].after->source), "L['x']");
  CHECK(strstr(cstr(d.items[0].before->code), "size=[4, 16]") != NULL);
  CHECK(strstr(cstr(d.items[0].after->code), "size=[None, 16]") != NULL);
  CHECK_INT_EQ(d.items[1].change, TL_GUARD_ADDED);
  CHECK_STR_EQ(cstr(d.items[1].after->code), "2 <= L['x'].size()[0]");
  CHECK_INT_EQ(d.items[2].change, TL_GUARD_REMOVED);
  CHECK_STR_EQ(cstr(d.items[2].before->code), "G['SCALE'] == 2.0");
  TL_VEC_FREE(d);
  TL_VEC_FREE(a);
  TL_VEC_FREE(b);
}

static const char GRAPH_A[] =
    "class GraphModule(torch.nn.Module):\n"
    "    def forward(self, L_x_: \"f32[4, 16][16, 1]cpu\"):\n"
    "        l_x_ = L_x_\n"
    "        sin: \"f32[4, 16][16, 1]cpu\" = torch.sin(l_x_)\n"
    "        mul: \"f32[4, 16][16, 1]cpu\" = sin * 2.0;  sin = None\n"
    "        add: \"f32[4, 16][16, 1]cpu\" = mul + 1;  mul = None\n"
    "        return (add,)\n";

/* The batch made symbolic (a Sym parameter first), a node added before
 * `sin`, which is renamed; `mul` now scales by 3.0. */
static const char GRAPH_B[] =
    "class GraphModule(torch.nn.Module):\n"
    "    def forward(self, s77: \"Sym(s77)\", L_x_: \"f32[s77, 16][16, "
    "1]cpu\"):\n"
    "        l_x_ = L_x_\n"
    "        cos: \"f32[s77, 16][16, 1]cpu\" = torch.cos(l_x_)\n"
    "        sin_1: \"f32[4, 16][16, 1]cpu\" = torch.sin(l_x_)\n"
    "        mul: \"f32[4, 16][16, 1]cpu\" = sin_1 * 3.0;  sin_1 = None\n"
    "        add: \"f32[4, 16][16, 1]cpu\" = mul + 1;  mul = None\n"
    "        return (add,)\n";

TEST(graph_nodes_are_matched_by_what_they_are_not_by_name) {
  tl_arena arena;
  tl_arena_init(&arena);
  tl_fx_diff d;
  tl_fx_diff_texts(&arena, tl_str_from(GRAPH_A), tl_str_from(GRAPH_B), &d);
  CHECK_INT_EQ(d.rows.count, 8);
  if (d.rows.count != 8)
    return;
  /* s77 added; L_x_ changed type; l_x_ same; cos added; sin renamed to
   * sin_1 (same op, type and input); mul changed (3.0); add same; the
   * output, (add,), same. */
  static const tl_fx_change want[] = {TL_FX_ADDED, TL_FX_CHANGED, TL_FX_SAME,
                                      TL_FX_ADDED, TL_FX_SAME,    TL_FX_CHANGED,
                                      TL_FX_SAME,  TL_FX_SAME};
  static const char *const names[] = {"s77",   "L_x_", "l_x_", "cos",
                                      "sin_1", "mul",  "add",  "output"};
  for (size_t i = 0; i < 8; i++) {
    CHECK_INT_EQ(d.rows.items[i].change, want[i]);
    CHECK_STR_EQ(cstr(d.rows.items[i].after.name), names[i]);
  }
  CHECK(d.rows.items[1].type_changed && !d.rows.items[1].args_changed);
  CHECK(d.rows.items[4].renamed);
  CHECK_STR_EQ(cstr(d.rows.items[4].before.name), "sin");
  CHECK_STR_EQ(cstr(d.rows.items[4].after.op), "torch.sin");
  CHECK(d.rows.items[5].args_changed && !d.rows.items[5].type_changed);
  CHECK_INT_EQ(d.rows.items[5].after.line, 6);
  CHECK_INT_EQ(d.added, 2);
  CHECK_INT_EQ(d.removed, 0);
  CHECK_INT_EQ(d.changed, 2);
  CHECK_INT_EQ(d.renamed, 1);
  CHECK_INT_EQ(d.same, 3);
  CHECK_STR_EQ(cstr(d.rows.items[7].after.op), "output");
  CHECK_STR_EQ(cstr(d.rows.items[7].after.text), "return (add,)");
  tl_fx_diff_free(&d);
  tl_arena_free(&arena);
}

/* An AOT graph (`<lambda>`, sources, a method of a node, a declared input):
 * what the cache keeps of it must give the same rows as a parse. */
static const char GRAPH_C[] =
    "class <lambda>(torch.nn.Module):\n"
    "    def forward(self, arg0_1: \"f32[4, 16][16, 1]cpu\"):\n"
    "        arg1_1: \"f32[16]\";\n"
    "        # File: /w/m.py:10 in <lambda>, code: y = x.sin()\n"
    "        sin: \"f32[4, 16][16, 1]cpu\" = "
    "torch.ops.aten.sin.default(arg0_1)\n"
    "        sum_1: \"f32[4]\" = sin.sum(-1)\n"
    "        # No stacktrace found for following nodes\n"
    "        add: \"f32[4]\" = sum_1 + arg1_1;  sum_1 = None\n"
    "        return (add,)\n";

static bool same_side(const tl_fx_side *x, const tl_fx_side *y) {
  return tl_str_eq(x->name, y->name) && tl_str_eq(x->op, y->op) &&
         tl_str_eq(x->type, y->type) && tl_str_eq(x->text, y->text) &&
         tl_str_eq(x->source, y->source) && x->line == y->line &&
         !x->name.ptr == !y->name.ptr;
}

static bool same_diff(const tl_fx_diff *x, const tl_fx_diff *y) {
  if (x->rows.count != y->rows.count || x->same != y->same ||
      x->renamed != y->renamed || x->changed != y->changed ||
      x->removed != y->removed || x->added != y->added ||
      x->by_op_only != y->by_op_only || x->too_large != y->too_large)
    return false;
  for (size_t i = 0; i < x->rows.count; i++) {
    const tl_fx_row *a = &x->rows.items[i], *b = &y->rows.items[i];
    if (a->change != b->change || a->renamed != b->renamed ||
        a->type_changed != b->type_changed ||
        a->args_changed != b->args_changed ||
        !same_side(&a->before, &b->before) || !same_side(&a->after, &b->after))
      return false;
  }
  return true;
}

TEST(a_graph_read_once_gives_the_same_rows_from_the_cache) {
  tl_analysis_cache *cache = tl_analysis_cache_new(1u << 20, NULL);
  tl_str texts[] = {tl_str_from(GRAPH_A), tl_str_from(GRAPH_B),
                    tl_str_from(GRAPH_C)};
  /* A pair whose later side is the earlier of the next, as in a chain of
   * recompiles, then each pair again: all but the first two reads hit. */
  static const int pairs[][2] = {{0, 1}, {1, 2}, {2, 0}, {1, 0}, {2, 2}};
  for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
    tl_arena plain_arena, cached_arena;
    tl_arena_init(&plain_arena);
    tl_arena_init(&cached_arena);
    tl_fx_diff plain, cached;
    tl_fx_diff_texts(&plain_arena, texts[pairs[p][0]], texts[pairs[p][1]],
                     &plain);
    tl_fx_diff_texts_cached(&cached_arena, cache, texts[pairs[p][0]],
                            texts[pairs[p][1]], &cached);
    CHECK(same_diff(&plain, &cached));
    tl_fx_diff_free(&plain);
    tl_fx_diff_free(&cached);
    tl_arena_free(&plain_arena);
    tl_arena_free(&cached_arena);
  }
  tl_analysis_cache_stats st = tl_analysis_cache_stats_of(cache);
  CHECK_INT_EQ(st.misses, 3);
  CHECK_INT_EQ(st.hits, 7);
  tl_analysis_cache_free(cache);
}

TEST(the_cached_graph_rows_name_its_sources_and_methods) {
  tl_analysis_cache *cache = tl_analysis_cache_new(1u << 20, NULL);
  tl_arena arena;
  tl_arena_init(&arena);
  tl_fx_diff d;
  for (int round = 0; round < 2; round++) { /* a parse, then the cache */
    tl_fx_diff_texts_cached(&arena, cache, tl_str_from(GRAPH_C),
                            tl_str_from(GRAPH_C), &d);
    CHECK_INT_EQ(d.rows.count, 6);
    CHECK_INT_EQ(d.same, 6);
    if (d.rows.count == 6) {
      CHECK_STR_EQ(cstr(d.rows.items[0].after.op), "placeholder f32 2d");
      CHECK_STR_EQ(cstr(d.rows.items[1].after.name), "arg1_1");
      CHECK_STR_EQ(cstr(d.rows.items[1].after.op), "placeholder f32 1d");
      CHECK_STR_EQ(cstr(d.rows.items[2].after.source),
                   "/w/m.py:10 in _lambda_, code: y = x.sin()");
      CHECK_STR_EQ(cstr(d.rows.items[3].after.op), ".sum");
      CHECK_INT_EQ(d.rows.items[4].after.source.len, 0);
      CHECK_INT_EQ(d.rows.items[4].after.line, 8);
      CHECK_STR_EQ(cstr(d.rows.items[5].after.name), "output");
      CHECK_INT_EQ(d.rows.items[5].after.line, 9);
    }
    tl_fx_diff_free(&d);
  }
  /* Read once: the later side of the first round and both of the second
   * come from the cache. */
  CHECK_INT_EQ(tl_analysis_cache_stats_of(cache).hits, 3);
  /* A blob cut short is no result: the text is parsed again. */
  tl_analysis_cache *bad = tl_analysis_cache_new(1u << 20, NULL);
  tl_analysis_cache_put_blob(bad, TL_ANALYSIS_FX_DIFF_GRAPH,
                             tl_str_from(GRAPH_C), "\5\0\0", 3);
  tl_fx_diff_texts_cached(&arena, bad, tl_str_from(GRAPH_C),
                          tl_str_from(GRAPH_C), &d);
  CHECK_INT_EQ(d.rows.count, 6);
  CHECK_INT_EQ(d.same, 6);
  tl_fx_diff_free(&d);
  tl_analysis_cache_free(bad);
  tl_arena_free(&arena);
  tl_analysis_cache_free(cache);
}

/* `linear.sum(-1)` and `linear_1.sum(-1)`: one op, `.sum`, whose first
 * argument is the node it is called on. */
TEST(a_method_of_a_node_is_its_op_whatever_the_node_is_named) {
  static const char a[] = "class GraphModule(torch.nn.Module):\n"
                          "    def forward(self, L_x_: \"f32[4, 16]\"):\n"
                          "        linear: \"f32[4, 16]\" = torch.relu(L_x_)\n"
                          "        sum_1: \"f32[4]\" = linear.sum(-1)\n"
                          "        return (sum_1,)\n";
  static const char b[] =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, L_x_: \"f32[4, 16]\"):\n"
      "        linear_1: \"f32[4, 16]\" = torch.relu(L_x_)\n"
      "        sum_1: \"f32[4]\" = linear_1.sum(-1)\n"
      "        return (sum_1,)\n";
  tl_arena arena;
  tl_arena_init(&arena);
  tl_fx_diff d;
  tl_fx_diff_texts(&arena, tl_str_from(a), tl_str_from(b), &d);
  CHECK_INT_EQ(d.rows.count, 4); /* L_x_, linear, sum_1, the output */
  if (d.rows.count == 4) {
    CHECK_STR_EQ(cstr(d.rows.items[2].after.op), ".sum");
    CHECK_INT_EQ(d.rows.items[2].change, TL_FX_SAME);
    CHECK(!d.rows.items[2].renamed);
    CHECK_INT_EQ(d.rows.items[1].change, TL_FX_SAME);
    CHECK(d.rows.items[1].renamed);
  }
  CHECK(!d.by_op_only);
  tl_fx_diff_free(&d);
  tl_arena_free(&arena);
}

/* Past TL_FX_DIFF_MAX_CELLS (2,100 nodes against 2,100 others) the middle
 * is aligned by op alone, and past TL_FX_DIFF_MAX_EDITS reported as removed
 * and added. */
TEST(graphs_past_the_scored_table_are_aligned_by_op_alone) {
  tl_buf a, b;
  tl_buf_init(&a);
  tl_buf_init(&b);
  tl_buf_puts(&a, "class G(torch.nn.Module):\n    def forward(self, x):\n");
  tl_buf_puts(&b, "class G(torch.nn.Module):\n    def forward(self, x):\n");
  for (int i = 0; i < 2100; i++) {
    tl_buf_printf(&a, "        s%d = torch.sin(x)\n", i);
    tl_buf_printf(&b, "        c%d = torch.cos(x)\n", i);
  }
  tl_arena arena;
  tl_arena_init(&arena);
  tl_fx_diff d;
  tl_fx_diff_texts(&arena, tl_buf_str(&a), tl_buf_str(&b), &d);
  CHECK(d.by_op_only);
  CHECK(d.too_large);
  CHECK_INT_EQ(d.same, 1); /* x */
  CHECK_INT_EQ(d.removed, 2100);
  CHECK_INT_EQ(d.added, 2100);
  tl_fx_diff_free(&d);
  tl_arena_free(&arena);
  tl_buf_free(&a);
  tl_buf_free(&b);
}

static tl_kernel_item kernel(const char *name, const char *kind,
                             const char *code, int first, const tl_str *nodes,
                             size_t count) {
  tl_kernel_item k = {0};
  k.key = k.name = tl_str_from(name);
  k.kind = tl_str_from(kind);
  k.code = tl_str_from(code);
  k.first = first;
  k.file = tl_str_from(first ? "code" : "");
  k.nodes = nodes;
  k.node_count = count;
  return k;
}

TEST(kernels_are_matched_by_their_nodes_not_by_their_numbers) {
  static const tl_str add[] = {{"add", 3}}, mul[] = {{"mul", 3}},
                      mul_b[] = {{"mul_1", 5}}, sin[] = {{"sin", 3}};
  tl_kernel_item a[] = {
      kernel("triton_poi_fused_add_0", "triton",
             "def triton_poi_fused_add_0(in_ptr0):\n    x = 1", 10, add, 1),
      kernel("triton_poi_fused_mul_1", "triton",
             "def triton_poi_fused_mul_1(in_ptr0):\n    x = 2", 20, mul, 1)};
  tl_kernel_item b[] = {
      kernel("triton_poi_fused_sin_0", "triton",
             "def triton_poi_fused_sin_0(in_ptr0):\n    x = 0", 10, sin, 1),
      kernel("triton_poi_fused_add_1", "triton",
             "def triton_poi_fused_add_1(in_ptr0):\n    x = 1", 20, add, 1),
      kernel("triton_poi_fused_mul_2", "triton",
             "def triton_poi_fused_mul_2(in_ptr0):\n    x = 3", 30, mul_b, 1)};
  /* The post-grad alignment carries mul to mul_1. */
  tl_fx_diff post = {0};
  tl_fx_row rows[] = {{.change = TL_FX_SAME,
                       .before = {.name = {"add", 3}},
                       .after = {.name = {"add", 3}}},
                      {.change = TL_FX_SAME,
                       .renamed = true,
                       .before = {.name = {"mul", 3}},
                       .after = {.name = {"mul_1", 5}}},
                      {.change = TL_FX_ADDED, .after = {.name = {"sin", 3}}}};
  post.rows.items = rows;
  post.rows.count = 3;
  tl_kernel_diff d;
  tl_kernel_diff_run(a, 2, b, 3, &post, &d);
  CHECK_INT_EQ(d.rows.count, 3);
  if (d.rows.count != 3)
    return;
  /* In b's order: sin added; add renumbered, the same code; mul
   * renumbered with other code, its second line. */
  CHECK_INT_EQ(d.rows.items[0].change, TL_KERNEL_ADDED);
  CHECK_INT_EQ(d.rows.items[0].before, -1);
  CHECK_INT_EQ(d.rows.items[1].change, TL_KERNEL_SAME);
  CHECK(d.rows.items[1].renamed);
  CHECK_INT_EQ(d.rows.items[1].before, 0);
  CHECK_INT_EQ(d.rows.items[2].change, TL_KERNEL_CHANGED);
  CHECK(d.rows.items[2].code_changed && !d.rows.items[2].nodes_changed &&
        !d.rows.items[2].ops_changed);
  CHECK_INT_EQ(d.rows.items[2].before_line, 21);
  CHECK_INT_EQ(d.rows.items[2].after_line, 31);
  CHECK_STR_EQ(cstr(d.rows.items[2].after_text), "    x = 3");
  CHECK_INT_EQ(d.added, 1);
  CHECK_INT_EQ(d.renamed, 1);
  CHECK_INT_EQ(d.changed, 1);
  CHECK_INT_EQ(d.same + d.removed, 0);
  tl_kernel_diff_free(&d);
}

TEST(kernels_without_nodes_are_matched_by_their_fused_ops_in_order) {
  tl_kernel_item a[] = {kernel("cpp_fused_add_0", "cpp", "", 0, NULL, 0),
                        kernel("cpp_fused_mul_1", "cpp", "", 0, NULL, 0),
                        kernel("extern_kernels.mm", "extern", "", 0, NULL, 0)};
  tl_kernel_item b[] = {kernel("cpp_fused_mul_0", "cpp", "", 0, NULL, 0),
                        kernel("extern_kernels.mm", "extern", "", 0, NULL, 0)};
  CHECK_STR_EQ(cstr(tl_kernel_fused_ops(&a[1])), "cpp_fused_mul");
  CHECK_STR_EQ(cstr(tl_kernel_fused_ops(&a[2])), "extern_kernels.mm");
  tl_kernel_diff d;
  tl_kernel_diff_run(a, 3, b, 2, NULL, &d);
  CHECK_INT_EQ(d.rows.count, 3);
  if (d.rows.count != 3)
    return;
  CHECK_INT_EQ(d.rows.items[0].before, 1);
  CHECK(d.rows.items[0].change == TL_KERNEL_SAME && d.rows.items[0].renamed);
  CHECK_INT_EQ(d.rows.items[1].before, 2);
  CHECK(d.rows.items[1].change == TL_KERNEL_SAME && !d.rows.items[1].renamed);
  CHECK_INT_EQ(d.rows.items[2].change, TL_KERNEL_REMOVED);
  CHECK_INT_EQ(d.rows.items[2].before, 0);
  tl_kernel_diff_free(&d);
}

/* torch 2.15 names a kernel of the same view node "_unsafe_view" where 2.13
 * said "view": the same nodes and code are a rename, not a change. */
TEST(fused_ops_that_differ_alone_are_a_rename) {
  static const tl_str nodes[] = {{"exp", 3}, {"view_9", 6}};
  tl_kernel_item a[] = {
      kernel("cpp_fused__softmax_view_3", "cpp",
             "extern \"C\" void cpp_fused__softmax_view_3(float* x)\n{ }", 286,
             nodes, 2)};
  tl_kernel_item b[] = {
      kernel("cpp_fused__softmax__unsafe_view_3", "cpp",
             "extern \"C\" void cpp_fused__softmax__unsafe_view_3(float* x)"
             "\n{ }",
             288, nodes, 2)};
  tl_kernel_diff d;
  tl_kernel_diff_run(a, 1, b, 1, NULL, &d);
  CHECK_INT_EQ(d.rows.count, 1);
  if (d.rows.count != 1)
    return;
  CHECK_INT_EQ(d.rows.items[0].change, TL_KERNEL_SAME);
  CHECK(d.rows.items[0].renamed && d.rows.items[0].ops_changed);
  CHECK(!d.rows.items[0].nodes_changed && !d.rows.items[0].code_changed);
  CHECK_INT_EQ(d.renamed, 1);
  CHECK_INT_EQ(d.changed, 0);
  tl_kernel_diff_free(&d);
}

TEST(a_kernel_code_diff_keeps_two_lines_around_each_change) {
  tl_kernel_item x =
      kernel("k_0", "cpp", "a\nb k_0\nc\nd\ne\nf\ng\nh", 10, NULL, 0);
  tl_kernel_item y =
      kernel("k_7", "cpp", "a\nb k_7\nc\nX\ne\nf\ng\nh", 30, NULL, 0);
  tl_code_rows rows = {0};
  bool cut = true;
  CHECK(tl_kernel_code_diff(&x, &y, &rows, &cut));
  CHECK(!cut);
  static const tl_code_op want[] = {
      TL_CODE_GAP,   TL_CODE_SAME, TL_CODE_SAME, TL_CODE_REMOVED,
      TL_CODE_ADDED, TL_CODE_SAME, TL_CODE_SAME, TL_CODE_GAP};
  CHECK_INT_EQ(rows.count, 8);
  for (size_t i = 0; i < rows.count && i < 8; i++)
    CHECK_INT_EQ(rows.items[i].op, want[i]);
  if (rows.count == 8) {
    CHECK_STR_EQ(cstr(rows.items[1].text), "b k_7"); /* names read as one */
    CHECK_INT_EQ(rows.items[3].before, 13);
    CHECK_INT_EQ(rows.items[3].after, 0);
    CHECK_INT_EQ(rows.items[4].after, 33);
    CHECK_STR_EQ(cstr(rows.items[4].text), "X");
  }
  TL_VEC_FREE(rows);
}

/* The rest of two codes made from `shape` with `before` and `after`, one
 * kernel of each defined on lines first..last, the entry function on
 * lines entry..entry_last of both; returns the parses it took. */
static size_t code_rest_of(const char *shape, int before, int after,
                           const char *kernel_name, int first, int last,
                           int entry, int entry_last, tl_code_rest *r) {
  char a[2048], b[2048];
  snprintf(a, sizeof a, shape, before);
  snprintf(b, sizeof b, shape, after);
  tl_kernel_item ka = kernel(kernel_name, "", "", first, NULL, 0), kb = ka;
  ka.last = kb.last = last;
  tl_kernel_diff d;
  tl_kernel_diff_run(&ka, 1, &kb, 1, NULL, &d);
  size_t parses = tl_ts_stats_parse_count();
  tl_code_rest_diff(tl_str_from(a), tl_str_from(b), false, &ka, 1, &kb, 1,
                    entry, entry_last, entry, entry_last, &d, NULL, r);
  tl_kernel_diff_free(&d);
  return tl_ts_stats_parse_count() - parses;
}

/* The rest of the code, on JIT code whose kernel is defined in a Triton
 * string: the kernel's lines (5-12) and the entry function's (14-17) are
 * left out, so the units are the imports, the assignment on line 3 and
 * `x` on line 19; the kernel's string, every line of it left out, is not
 * parsed (as C++ it was, for nothing): one parse per side. */
static const char TRITON_CODE[] =
    "import torch\n"
    "from torch._inductor.async_compile import AsyncCompile\n"
    "async_compile = AsyncCompile()\n"
    "\n"
    "triton_poi_fused_add_0 = async_compile.triton('triton_poi_fused_add_0', "
    "'''\n"
    "import triton\n"
    "@triton.jit\n"
    "def triton_poi_fused_add_0(in_ptr0, out_ptr0, xnumel, XBLOCK: "
    "tl.constexpr):\n"
    "    xoffset = tl.program_id(0) * XBLOCK\n"
    "    tmp0 = tl.load(in_ptr0 + xoffset)\n"
    "    tl.store(out_ptr0 + xoffset, tmp0 + 1.0)\n"
    "''', device_str='cuda')\n"
    "\n"
    "def call(args):\n"
    "    buf0 = empty_strided_cuda((4, ), (1, ), torch.float32)\n"
    "    triton_poi_fused_add_0.run(args[0], buf0, 4, grid=grid(4))\n"
    "    return (buf0, )\n"
    "\n"
    "x = %d\n";

TEST(a_kernel_string_wholly_left_out_is_not_parsed) {
  tl_code_rest r;
  CHECK_INT_EQ(code_rest_of(TRITON_CODE, 1, 2, "triton_poi_fused_add_0", 5, 12,
                            14, 17, &r),
               2);
  static const int first[] = {1, 2, 3, 19};
  CHECK_INT_EQ(r.a.count, 4);
  CHECK_INT_EQ(r.b.count, 4);
  for (size_t i = 0; i < 4 && i < r.a.count; i++)
    CHECK_INT_EQ(r.a.items[i].first, first[i]);
  CHECK_INT_EQ(r.same, 3);
  CHECK_INT_EQ(r.changed, 1); /* x */
  tl_code_rest_free(&r);
}

#ifdef HAVE_CPPCODE
/* A C++ string with lines outside the kernels and the entry function
 * (cpp_wrapper code's cpp_wrapper_src) is still read with the C++ grammar:
 * its #include (line 3) and `helper` (line 10) are units, as `y` (line 14)
 * is: two parses per side. */
static const char CPP_WRAPPER_CODE[] =
    "cpp_wrapper_src = (\n"
    "r'''\n"
    "#include <torch/csrc/inductor/cpp_wrapper/cpu.h>\n"
    "extern \"C\" void cpp_fused_add_0(const float* in_ptr0, float* "
    "out_ptr0) {\n"
    "    out_ptr0[0] = in_ptr0[0] + 1;\n"
    "}\n"
    "void inductor_entry_impl(AtenTensorHandle* input_handles, "
    "AtenTensorHandle* output_handles) {\n"
    "    cpp_fused_add_0(nullptr, nullptr);\n"
    "}\n"
    "static int helper = %d;\n"
    "'''\n"
    ")\n"
    "\n"
    "y = 1\n";

TEST(a_cpp_string_partly_left_out_is_read_as_cpp) {
  tl_code_rest r;
  CHECK_INT_EQ(
      code_rest_of(CPP_WRAPPER_CODE, 3, 4, "cpp_fused_add_0", 4, 6, 7, 9, &r),
      4);
  static const int first[] = {3, 10, 14};
  CHECK_INT_EQ(r.a.count, 3);
  for (size_t i = 0; i < 3 && i < r.a.count; i++)
    CHECK_INT_EQ(r.a.items[i].first, first[i]);
  CHECK_INT_EQ(r.changed, 1); /* helper */
  tl_code_rest_free(&r);
}
#endif

TEST(an_entry_function_reads_renumbered_kernels_and_buffers_as_one) {
  tl_kernel_item a[] = {kernel("k_sum_1", "cpp", "", 0, NULL, 0)};
  tl_kernel_item b[] = {kernel("k_sum_2", "cpp", "", 0, NULL, 0)};
  tl_kernel_diff d;
  tl_kernel_diff_run(a, 1, b, 1, NULL, &d);
  CHECK(d.rows.count == 1 && d.rows.items[0].renamed);
  tl_code_rows rows = {0};
  bool cut;
  CHECK(tl_entry_code_diff(
      tl_str_from("buf1 = empty()\nk_sum_1(buf1)\nreturn (buf1, )"), 5,
      tl_str_from("buf4 = empty()\nk_sum_2(buf4)\nextra(buf4)\n"
                  "return (buf4, )"),
      7, a, b, &d, &rows, &cut));
  /* Only the added line differs. */
  size_t added = 0, removed = 0;
  for (size_t i = 0; i < rows.count; i++) {
    added += rows.items[i].op == TL_CODE_ADDED;
    removed += rows.items[i].op == TL_CODE_REMOVED;
    if (rows.items[i].op == TL_CODE_ADDED) {
      CHECK_STR_EQ(cstr(rows.items[i].text), "extra(buf4)");
      CHECK_INT_EQ(rows.items[i].after, 9);
    }
  }
  CHECK_INT_EQ(added, 1);
  CHECK_INT_EQ(removed, 0);
  TL_VEC_FREE(rows);
  tl_kernel_diff_free(&d);
}

static char *shape(const char *before, const char *after) {
  static char out[256];
  tl_buf b;
  tl_buf_init(&b);
  bool any = tl_shape_change_words(&b, tl_str_from(before), tl_str_from(after));
  snprintf(out, sizeof out, "%s", any ? b.data : "(none)");
  tl_buf_free(&b);
  return out;
}

TEST(a_shape_change_is_said_per_dimension) {
  CHECK_STR_EQ(shape("f32[4, 16][16, 1]cpu", "f32[s77, 16][16, 1]cpu"),
               "dim 0 became dynamic (4 -> s77)");
  CHECK_STR_EQ(shape("f32[s0, 16][16, 1]cpu", "f64[1, 16][16, 1]cpu"),
               "dtype f32 -> f64; dim 0 became static (s0 -> 1)");
  CHECK_STR_EQ(shape("f32[4, 16][16, 1]cpu", "f32[6, 16][16, 1]cpu"),
               "dim 0 size (4 -> 6)");
  CHECK_STR_EQ(
      shape("f32[4, Max(1, s0)][s0, 1]cpu", "f32[4, Max(1, s1)][s1, 1]cpu"),
      "dim 1 size (Max(1, s0) -> Max(1, s1))");
  CHECK_STR_EQ(shape("f32[4, 16][16, 1]cpu", "f32[2, 4, 16][64, 16, 1]cpu"),
               "rank 2 -> 3 ([4, 16] -> [2, 4, 16])");
  CHECK_STR_EQ(shape("f32[4, 16][16, 1]cpu", "f32[4, 16][1, 4]cpu"),
               "strides [16, 1] -> [1, 4]");
  CHECK_STR_EQ(shape("f32[4][1]cpu", "f32[4][1]cuda:0"),
               "device cpu -> cuda:0");
  CHECK_STR_EQ(shape("Sym(s77)", "Sym(s27)"), "(none)");
  CHECK_STR_EQ(shape("f32[4][1]cpu", "f32[4][1]cpu"), "(none)");
}

static char *guard_shape(const char *before, const char *after) {
  static char out[256];
  tl_buf b;
  tl_buf_init(&b);
  bool any = tl_guard_shape_words(&b, tl_str_from(before), tl_str_from(after));
  snprintf(out, sizeof out, "%s", any ? b.data : "(none)");
  tl_buf_free(&b);
  return out;
}

#define CHECK_TENSOR(dtype, size, stride)                                      \
  "check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect, "           \
  "ADInplaceOrView, AutogradCPU), " dtype ", device=None, "                    \
  "requires_grad=False, size=" size ", stride=" stride ")"

TEST(a_tensor_guard_change_is_said_per_dimension) {
  CHECK_STR_EQ(
      guard_shape(CHECK_TENSOR("torch.float32", "[4, 16]", "[16, 1]"),
                  CHECK_TENSOR("torch.float32", "[None, 16]", "[16, 1]")),
      "dim 0 became dynamic (4 -> None)");
  CHECK_STR_EQ(guard_shape(CHECK_TENSOR("torch.float32", "[4, 16]", "[16, 1]"),
                           CHECK_TENSOR("torch.float64", "[6, 16]", "[16, 1]")),
               "dtype torch.float32 -> torch.float64; dim 0 size (4 -> 6)");
  CHECK_STR_EQ(guard_shape(CHECK_TENSOR("torch.float32", "[4, 16]", "[16, 1]"),
                           CHECK_TENSOR("torch.float32", "[4, 16]", "[1, 4]")),
               "strides [16, 1] -> [1, 4]");
  CHECK_STR_EQ(guard_shape("___check_obj_id(G['cfg'], 1)",
                           "___check_obj_id(G['cfg'], 2)"),
               "(none)");
}

/* Writes `text` as `name` under `dir`. */
static void put_file(const char *dir, const char *name, const char *text) {
  char path[512], error[256];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  CHECK(tl_fs_write_file(path, text, strlen(text), error, sizeof error));
}

static char *read_back(tl_compile_reader *r, const char *name) {
  static char out[64];
  tl_artifact a = {0};
  a.text_path = (char *)name;
  tl_compile_file_text t;
  tl_compile_file_read(r, &a, &t);
  snprintf(out, sizeof out, "%s", t.ok ? t.text.data : "(not read)");
  tl_buf_free(&t.text);
  return out;
}

TEST(a_compile_file_is_read_once_while_it_is_among_the_last_read) {
  char dir[] = "/tmp/tl-compile-reader-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  tl_compile_reader r;
  tl_compile_reader_init(&r, dir);
  put_file(dir, "graph.txt", "before");
  CHECK_STR_EQ(read_back(&r, "graph.txt"), "before");
  /* Rewritten on disk: the kept text is what the second read gives. */
  put_file(dir, "graph.txt", "after");
  CHECK_STR_EQ(read_back(&r, "graph.txt"), "before");
  CHECK_INT_EQ(r.count, 1);
  CHECK_INT_EQ(r.bytes, 6);
  /* As many other files as are kept push it out: it is read again. */
  char names[TL_COMPILE_READER_TEXTS][32];
  for (int i = 0; i < TL_COMPILE_READER_TEXTS; i++) {
    snprintf(names[i], sizeof names[i], "code_%d.py", i);
    put_file(dir, names[i], "x");
    CHECK_STR_EQ(read_back(&r, names[i]), "x");
  }
  CHECK_INT_EQ(r.count, TL_COMPILE_READER_TEXTS);
  CHECK_INT_EQ(r.bytes, TL_COMPILE_READER_TEXTS);
  CHECK_STR_EQ(read_back(&r, "graph.txt"), "after");
  /* A missing file is not read, and nothing is kept for it. */
  CHECK_STR_EQ(read_back(&r, "missing.txt"), "(not read)");
  CHECK_INT_EQ(r.count, TL_COMPILE_READER_TEXTS);
  tl_compile_reader_free(&r);
  char error[256];
  CHECK(tl_fs_remove_tree(dir, error, sizeof error));
}

int main(void) {
  setenv("TLPARSE_STATS", "1", 1); /* parses counted (ts_query.h) */
  RUN(a_tensor_size_check_is_read_and_said_in_words);
  RUN(every_kind_of_reason_and_each_line_of_a_compile);
  RUN(the_guard_tree_gives_each_leaf_its_manager_source_and_user_line);
  RUN(guards_that_differ_are_changed_added_or_removed);
  RUN(graph_nodes_are_matched_by_what_they_are_not_by_name);
  RUN(a_method_of_a_node_is_its_op_whatever_the_node_is_named);
  RUN(a_graph_read_once_gives_the_same_rows_from_the_cache);
  RUN(the_cached_graph_rows_name_its_sources_and_methods);
  RUN(graphs_past_the_scored_table_are_aligned_by_op_alone);
  RUN(kernels_are_matched_by_their_nodes_not_by_their_numbers);
  RUN(kernels_without_nodes_are_matched_by_their_fused_ops_in_order);
  RUN(fused_ops_that_differ_alone_are_a_rename);
  RUN(a_kernel_code_diff_keeps_two_lines_around_each_change);
  RUN(an_entry_function_reads_renumbered_kernels_and_buffers_as_one);
  RUN(a_kernel_string_wholly_left_out_is_not_parsed);
#ifdef HAVE_CPPCODE
  RUN(a_cpp_string_partly_left_out_is_read_as_cpp);
#endif
  RUN(a_shape_change_is_said_per_dimension);
  RUN(a_tensor_guard_change_is_said_per_dimension);
  RUN(a_compile_file_is_read_once_while_it_is_among_the_last_read);
  return check_summary();
}
