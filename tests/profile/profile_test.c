#define _POSIX_C_SOURCE 200809L
/* Unit tests of the profile reader's number parsing and launch-link table
 * (the rest is tested end to end by profile_e2e.py on real and generated
 * traces). */
#include "check.h"
#include "profile/profile_map.h"
#include "profile/profile_reader.h"
#include "profile/profile_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool ns(const char *s, int64_t *v) {
  return tl_profile_parse_ns(s, strlen(s), v);
}

TEST(profile_numbers_are_read_as_integer_nanoseconds) {
  int64_t v = 0;
  CHECK(ns("4631820176890.869", &v) && v == 4631820176890869LL);
  CHECK(ns("32.319", &v) && v == 32319);
  CHECK(ns("7", &v) && v == 7000);
  CHECK(ns("0.5", &v) && v == 500);
  CHECK(ns("1.0005", &v) && v == 1001);
  CHECK(ns("-3.25", &v) && v == -3250);
  CHECK(ns("1e3", &v) && v == 1000000);
  CHECK(!ns("1e300", &v));
  CHECK(!ns("99999999999999999999999", &v));
  CHECK(!ns("", &v));
  CHECK(!ns("abc", &v));
}

/* Puts 0..n-1, deletes every third (backward shift must keep every other
 * id reachable), and checks what is left, through two growths. */
TEST(launch_links_keep_every_other_id_when_some_are_dropped) {
  tl_links t = {0};
  enum { N = 5000 };
  for (int64_t i = 0; i < N; i++)
    tl_links_put(&t, i * 7919, (uint32_t)i + 1);
  tl_links_put(&t, -5, 9);
  tl_links_put(&t, INT64_C(1) << 40, 10);
  for (int64_t i = 0; i < N; i += 3)
    tl_links_del(&t, i * 7919);
  bool ok = true;
  for (int64_t i = 0; i < N; i++) {
    uint32_t v = 0;
    bool found = tl_links_get(&t, i * 7919, &v);
    ok = ok && (i % 3 ? found && v == (uint32_t)i + 1 : !found);
  }
  CHECK(ok);
  CHECK(t.count == N - (N + 2) / 3);
  uint32_t v = 0;
  CHECK(tl_links_get(&t, -5, &v) && v == 9);
  CHECK(tl_links_get(&t, INT64_C(1) << 40, &v) && v == 10);
  tl_links_del(&t, -5);
  CHECK(!tl_links_get(&t, -5, &v));
  tl_links_free(&t);
}

/* The phase of a post-grad graph from its forward's parameters. */
TEST(post_grad_graph_parameters_tell_the_phase) {
  static const char fwd[] =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, primals_1: \"f32[128, 64]\", primals_2: "
      "\"f32[128]\"):\n        permute = ...\n";
  static const char bwd[] =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, primals_3: \"f32[32]\", mul: \"f32[32]\", "
      "tangents_1: \"f32[32]\"):\n";
  static const char inf[] = "class <lambda>(torch.nn.Module):\n"
                            "    def forward(self, arg0_1: \"f32[8]\"):\n";
  static const char none[] = "def forwards(self, tangents_1):\n";
  static const char word[] =
      "    def forward(self, my_tangents_1, xprimals_2):";
  CHECK(tl_profile_phase_of_graph(fwd, sizeof fwd - 1) == TL_PROF_FORWARD);
  CHECK(tl_profile_phase_of_graph(bwd, sizeof bwd - 1) == TL_PROF_BACKWARD);
  CHECK(tl_profile_phase_of_graph(inf, sizeof inf - 1) == TL_PROF_INFERENCE);
  CHECK(tl_profile_phase_of_graph(none, sizeof none - 1) == -1);
  CHECK(tl_profile_phase_of_graph(word, sizeof word - 1) == TL_PROF_INFERENCE);
}

/* Each pre-grad line's model line, from the `# File:` comment above it. */
TEST(pre_grad_lines_take_the_model_line_of_the_comment_above_them) {
  static const char text[] =
      "class GraphModule(torch.nn.Module):\n"                         /* 1 */
      "    def forward(self, L_x_: \"f32[8]\"):\n"                    /* 2 */
      "        l_x_ = L_x_\n"                                         /* 3 */
      "\n"                                                            /* 4 */
      "        # File: C:/m/model.py:34 in forward, code: h = f(x)\n" /* 5 */
      "        linear = torch._C._nn.linear(l_x_)\n"                  /* 6 */
      "        relu = torch.relu(linear)\n"                           /* 7 */
      "\n"                                                            /* 8 */
      "        # File: /m/a:b.py:7 in fwd, code: y = g(h)\n"          /* 9 */
      "        y = g(relu)\n"                                         /* 10 */
      "        # File: /m/a:b.py:7 in fwd, code: y = g(h)\n"          /* 11 */
      "        z = g(y)\n"                                            /* 12 */
      "        return (z,)\n";                                        /* 13 */
  tl_profile_view_facts f;
  memset(&f, 0, sizeof f);
  tl_profile_pre_sources(text, sizeof text - 1, &f);
  CHECK(f.pre_source.count == 14);
  CHECK(f.sources.count == 2);
  CHECK(strcmp(f.sources.items[0].key, "C:/m/model.py:34") == 0);
  CHECK(strcmp(f.sources.items[0].code, "h = f(x)") == 0);
  CHECK(strcmp(f.sources.items[1].key, "/m/a:b.py:7") == 0);
  int want[14] = {0, 0, 0, 0, 0, 1, 1, 1, 0, 2, 2, 2, 2, 2};
  bool same = true;
  for (int i = 0; i < 14; i++)
    same = same && f.pre_source.items[i] == want[i];
  CHECK(same);
  tl_profile_view_facts_free(&f);
}

/* Strings and numbers of any length are read in one pass: a 200 KB name
 * with escapes across chunk ends and a 300-digit number before the events
 * that matter; the events after them are read exactly, and the byte offset
 * of a later error is the file's. */
TEST(long_tokens_are_cut_and_offsets_stay_the_files) {
  tl_buf t;
  tl_buf_init(&t);
  tl_buf_puts(&t, "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\","
                  "\"name\":\"");
  for (int i = 0; i < 20000; i++)
    tl_buf_puts(&t, "a\\\"b\\u00e9\\\\");
  tl_buf_puts(&t, "\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,\"args\":"
                  "{\"External id\":");
  for (int i = 0; i < 300; i++)
    tl_buf_putc(&t, '7');
  tl_buf_puts(&t, "}},\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":"
                  "\"## Call CompiledFxGraph k ##\",\"pid\":1,\"tid\":1,"
                  "\"ts\":10,\"dur\":100},\n"
                  "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":"
                  "\"triton_poi_0\",\"pid\":1,\"tid\":1,\"ts\":20,"
                  "\"dur\":30.5},\n"
                  "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"after\","
                  "\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":1},\n");
  size_t bad = t.len;
  tl_buf_puts(&t, "@]}");
  char path[] = "/tmp/tl_profile_test_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0 && write(fd, t.data, t.len) == (ssize_t)t.len);
  close(fd);
  const char *paths[] = {path};
  tl_profile *p = tl_profile_read(paths, 1);
  CHECK(p->graphs.count == 1);
  if (p->graphs.count == 1) {
    const tl_prof_graph *g = p->graphs.items[0];
    CHECK(strcmp(g->key, "k") == 0 && g->calls == 1 &&
          g->cpu_total_ns == 100000);
    CHECK(g->slots.count == 1 &&
          strcmp(g->slots.items[0].name, "triton_poi_0") == 0 &&
          g->slots.items[0].cpu_ns == 30500);
  }
  CHECK(p->files.items[0].state == TL_PROF_FILE_INVALID);
  char want[64];
  /* yajl counts the byte it stopped at as read: as in a short file */
  snprintf(want, sizeof want, "byte %zu: not valid JSON", bad + 1);
  CHECK(p->files.items[0].why && strstr(p->files.items[0].why, want));
  if (!p->files.items[0].why || !strstr(p->files.items[0].why, want))
    fprintf(stderr, "  why: %s (want %s)\n", p->files.items[0].why, want);
  tl_profile_free(p);
  unlink(path);
  tl_buf_free(&t);
}

int main(void) {
  RUN(profile_numbers_are_read_as_integer_nanoseconds);
  RUN(launch_links_keep_every_other_id_when_some_are_dropped);
  RUN(post_grad_graph_parameters_tell_the_phase);
  RUN(pre_grad_lines_take_the_model_line_of_the_comment_above_them);
  RUN(long_tokens_are_cut_and_offsets_stay_the_files);
  return check_summary();
}
