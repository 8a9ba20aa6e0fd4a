/* fuzz_provenance.c: the join (tl_provenance_build) with fuzzed node
 * mappings and kernel stack traces (`mappings \x1e stack_traces`) over fixed
 * real texts: the JIT and AOT views of the shared provenance fixtures, read
 * once with the trace reader (small texts of our own when the fixtures are
 * absent). Each input is joined as a JIT view and as an AOT view.
 * Invariants: a view is always returned and prints as JSON; every line map
 * points inside its texts; the highlighter page of it passes page_check.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "fuzz.h"
#include "join/provenance.h"
#include "page_check.h"
#include "read/reader.h"
#ifdef HAVE_tl_page
#include "emit/provpage.h"
#endif

typedef struct texts {
  tl_buf pre, post, code, kernels;
  bool have_pre, have_post, have_code, have_kernels;
} texts;

static texts jit, aot;

static void keep(tl_buf *b, bool *have, tl_str payload) {
  tl_buf_clear(b);
  tl_buf_append_str(b, payload);
  *have = true;
}

/* Keeps the last payload of each provenance artifact of a fixture trace. */
static void collect(void *ctx, const tl_record *r) {
  texts *t = ctx;
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(r->kind_value, "name");
  const char *n = cJSON_IsString(name) ? name->valuestring : "";
  if (!r->has_payload)
    return;
  if (strcmp(n, "before_pre_grad_graph") == 0)
    keep(&t->pre, &t->have_pre, r->payload);
  else if (strcmp(n, "after_post_grad_graph") == 0)
    keep(&t->post, &t->have_post, r->payload);
  else if (strcmp(r->kind, "inductor_output_code") == 0 ||
           strcmp(n, "inductor_aot_wrapper_code") == 0)
    keep(&t->code, &t->have_code, r->payload);
  else if (strcmp(n, "inductor_aot_kernel_code") == 0)
    keep(&t->kernels, &t->have_kernels, r->payload);
}

static void load(texts *t, const char *fixture, const char *pre,
                 const char *post, const char *code, const char *kernels) {
  tl_buf_init(&t->pre);
  tl_buf_init(&t->post);
  tl_buf_init(&t->code);
  tl_buf_init(&t->kernels);
#ifdef TL_FIXTURES_DIR
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s", TL_FIXTURES_DIR, fixture);
  tl_diag diag;
  tl_diag_init(&diag, fixture);
  char error[256];
  tl_reader_run(path.data, NULL, &diag, collect, t, error, sizeof error);
  tl_diag_free(&diag);
  tl_buf_free(&path);
#endif
  if (t->have_pre && t->have_post && t->have_code)
    return;
  /* Fixtures absent: small texts of the same shapes. */
  keep(&t->pre, &t->have_pre, tl_str_from(pre));
  keep(&t->post, &t->have_post, tl_str_from(post));
  keep(&t->code, &t->have_code, tl_str_from(code));
  if (kernels)
    keep(&t->kernels, &t->have_kernels, tl_str_from(kernels));
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  load(&jit, "inductor_provenance_jit_debug_handle_log.txt",
       "def forward(self, x):\n    relu = torch.relu(x)\n    return (relu,)\n",
       "def forward(self, arg0_1):\n    relu = torch.ops.aten.relu.default("
       "arg0_1)\n    return (relu,)\n",
       "def call(args):\n    # [Provenance debug handles] "
       "triton_poi_fused_relu_0:1\n    triton_poi_fused_relu_0.run(buf0)\n",
       NULL);
  load(&aot, "inductor_provenance_aot_log.txt",
       "def forward(self, x):\n    relu = torch.relu(x)\n    return (relu,)\n",
       "def forward(self, arg0_1):\n    relu = torch.ops.aten.relu.default("
       "arg0_1)\n    return (relu,)\n",
       "void AOTInductorModel::run_impl() {\n  // [Provenance debug handles] "
       "cpp_fused_relu_0:1\n  cpp_fused_relu_0(buf0);\n}\n",
       "extern \"C\" void cpp_fused_relu_0(float* x) {\n  x[0] = 0;\n}\n");
  return 0;
}

static tl_str text_of(const tl_buf *b, bool have) {
  return have ? tl_buf_str(b) : (tl_str){NULL, 0};
}

/* {"12": [3, 4]}: keys in 1..from_lines, values in 1..to_lines. */
static void check_line_map(const cJSON *map, tl_str from, tl_str to) {
  if (!map)
    return;
  FUZZ_CHECK(cJSON_IsObject(map));
  int from_lines = from.ptr ? fuzz_line_count(from) : 0;
  int to_lines = to.ptr ? fuzz_line_count(to) : 0;
  for (const cJSON *k = map->child; k; k = k->next) {
    long line = strtol(k->string, NULL, 10);
    FUZZ_CHECK(line >= 1 && line <= from_lines);
    FUZZ_CHECK(cJSON_IsArray(k));
    for (const cJSON *v = k->child; v; v = v->next)
      FUZZ_CHECK(cJSON_IsNumber(v) && v->valuedouble >= 1 &&
                 v->valuedouble <= to_lines);
  }
}

static void join(const texts *t, bool is_aot, tl_str mappings, tl_str stacks) {
  tl_prov_inputs in = {0};
  in.compile_dir = "-_0_0_0";
  in.compile_id = "[0/0]";
  in.aot = is_aot;
  in.pre_graph = text_of(&t->pre, t->have_pre);
  in.post_graph = text_of(&t->post, t->have_post);
  in.code = text_of(&t->code, t->have_code);
  in.kernel_code = text_of(&t->kernels, t->have_kernels);
  in.node_mappings = mappings;
  in.stack_traces = stacks;
  in.pre_path = "-_0_0_0/before_pre_grad_graph_1.txt";
  in.post_path = "-_0_0_0/after_post_grad_graph_2.txt";
  in.code_path = "-_0_0_0/code_3.txt";
  in.kernel_code_path = in.kernel_code.ptr ? "-_0_0_0/kernels_4.txt" : NULL;
  in.mappings_path = "-_0_0_0/mappings_5.json";
  in.stack_traces_path = stacks.ptr ? "-_0_0_0/stacks_6.json" : NULL;
  cJSON *view = tl_provenance_build(&in);
  FUZZ_CHECK(cJSON_IsObject(view));
  char *printed = cJSON_PrintUnformatted(view);
  FUZZ_CHECK(printed);
  cJSON *again = cJSON_Parse(printed);
  FUZZ_CHECK(again);
  cJSON_Delete(again);
  free(printed);
  const cJSON *lines = cJSON_GetObjectItemCaseSensitive(view, "lines");
  check_line_map(cJSON_GetObjectItemCaseSensitive(lines, "preToPost"),
                 in.pre_graph, in.post_graph);
  check_line_map(cJSON_GetObjectItemCaseSensitive(lines, "postToPre"),
                 in.post_graph, in.pre_graph);
  check_line_map(cJSON_GetObjectItemCaseSensitive(lines, "codeToPost"), in.code,
                 in.post_graph);
  check_line_map(cJSON_GetObjectItemCaseSensitive(lines, "postToCode"),
                 in.post_graph, in.code);
#ifdef HAVE_tl_page
  tl_buf page;
  tl_buf_init(&page);
  tl_provpage_texts pt = {in.pre_graph, in.post_graph, in.code, in.kernel_code};
  tl_provpage_render(&page, view, &pt, "index.html", "help.html#highlighter");
  page_check(tl_buf_str(&page), 6, "provenance page");
  tl_buf_free(&page);
#endif
  cJSON_Delete(view);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tl_str mappings, stacks;
  fuzz_split(data, size, &mappings, &stacks);
  join(&jit, false, mappings, stacks);
  join(&aot, true, mappings, stacks);
  return 0;
}
