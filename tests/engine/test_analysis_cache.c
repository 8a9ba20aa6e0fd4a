/* test_analysis_cache.c: the cache of analyses by their texts
 * (src/analyze/analysis_cache.c). A hit must give exactly what the analysis
 * of the same text gives (every field, every name, none pointing into the
 * text); another text, even one whose hash collides, must miss; the cache
 * must stay under its bound by letting the least recently used entries go;
 * a second cache sharing the folder (a forked rank's) must find what the
 * first kept; an entry rejected on a get must be replaced by the next put;
 * and threads may share one cache (run under ThreadSanitizer in
 * CI).
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/analysis_cache.h"
#include "check.h"
#include "util/fsutil.h"

/* An FX graph of `n` nodes named `<prefix>0` ...: node i is defined on line
 * i + 3 (line 1 the class, line 2 the forward). */
static char *fx_text(const char *prefix, int n) {
  tl_buf b;
  tl_buf_init(&b);
  tl_buf_puts(&b, "class GraphModule(torch.nn.Module):\n"
                  "    def forward(self, x: \"f32[8]\"):\n");
  for (int i = 0; i < n; i++)
    tl_buf_printf(&b, "        %s%d: \"f32[8]\" = torch.relu(x)\n", prefix, i);
  tl_buf_puts(&b, "        return (x,)\n");
  return tl_buf_detach(&b);
}

/* Line 5: k_1 launched, bound to handle 1; lines 1-3 its definition. */
static const char *const CODE = "k_1 = async_compile.triton('k_1', '''\n"
                                "def k_1(in_ptr0):\n"
                                "    pass\n"
                                "''', device_str='cuda')\n"
                                "def call(args):\n"
                                "    # [Provenance debug handles] k_1:1\n"
                                "    k_1.run(buf0, 8, stream=stream0)\n"
                                "    extern_kernels.mm(buf0, buf0, out=buf1)\n";

static bool outside(tl_str name, tl_str text) {
  return !name.ptr || name.ptr + name.len <= text.ptr ||
         name.ptr >= text.ptr + text.len;
}

static bool same_str(tl_str a, tl_str b) {
  return (a.ptr == NULL) == (b.ptr == NULL) && tl_str_eq(a, b);
}

/* Whether two FX results are equal field by field (and `got`'s names are
 * not in `text`). */
static bool same_fx(const tl_fx_graph *want, const tl_fx_graph *got,
                    tl_str text) {
  if (want->node_count != got->node_count ||
      want->subgraph_count != got->subgraph_count)
    return false;
  for (size_t i = 0; i < want->node_count; i++)
    if (!same_str(want->nodes[i].name, got->nodes[i].name) ||
        want->nodes[i].line != got->nodes[i].line ||
        want->nodes[i].graph != got->nodes[i].graph ||
        !outside(got->nodes[i].name, text))
      return false;
  for (size_t i = 0; i < want->subgraph_count; i++)
    if (want->subgraphs[i].graph != got->subgraphs[i].graph ||
        want->subgraphs[i].parent != got->subgraphs[i].parent ||
        !same_str(want->subgraphs[i].name, got->subgraphs[i].name))
      return false;
  return true;
}

static bool same_code(const tl_code_analysis *w, const tl_code_analysis *g,
                      tl_str text) {
  if (w->def_count != g->def_count || w->call_count != g->call_count ||
      w->embedded_count != g->embedded_count ||
      w->scope_count != g->scope_count || w->entry_first != g->entry_first ||
      w->entry_last != g->entry_last || w->cpp_wrapper != g->cpp_wrapper)
    return false;
  for (size_t i = 0; i < w->def_count; i++)
    if (!same_str(w->defs[i].name, g->defs[i].name) ||
        w->defs[i].kind != g->defs[i].kind ||
        w->defs[i].file != g->defs[i].file ||
        w->defs[i].first != g->defs[i].first ||
        w->defs[i].last != g->defs[i].last || !outside(g->defs[i].name, text))
      return false;
  for (size_t i = 0; i < w->call_count; i++)
    if (!same_str(w->calls[i].name, g->calls[i].name) ||
        w->calls[i].kind != g->calls[i].kind ||
        w->calls[i].line != g->calls[i].line ||
        !same_str(w->calls[i].handle_key, g->calls[i].handle_key) ||
        !same_str(w->calls[i].scope, g->calls[i].scope) ||
        !outside(g->calls[i].name, text))
      return false;
  for (size_t i = 0; i < w->embedded_count; i++)
    if (w->embedded[i].file != g->embedded[i].file ||
        w->embedded[i].first != g->embedded[i].first ||
        w->embedded[i].last != g->embedded[i].last ||
        (w->embedded[i].language == NULL) !=
            (g->embedded[i].language == NULL) ||
        (w->embedded[i].language &&
         strcmp(w->embedded[i].language, g->embedded[i].language) != 0))
      return false;
  for (size_t i = 0; i < w->scope_count; i++)
    if (!same_str(w->scopes[i], g->scopes[i]))
      return false;
  return true;
}

TEST(an_fx_graph_found_again_is_the_graph_its_text_gives) {
  char *t = fx_text("n", 3);
  tl_str text = tl_str_from(t);
  tl_arena a, b;
  tl_arena_init(&a);
  tl_arena_init(&b);
  tl_analysis_cache *c = tl_analysis_cache_new(1 << 20, NULL);
  tl_fx_graph want, got;
  CHECK(!tl_analysis_cache_get_fx(c, text, &b, &got)); /* a miss first */
  tl_fx_analyze(&a, text, &want);
  tl_analysis_cache_put_fx(c, text, &want);
  CHECK(tl_analysis_cache_get_fx(c, text, &b, &got));
  CHECK(same_fx(&want, &got, text));
  /* Read from the text itself: n1 is defined on line 4. */
  CHECK_INT_EQ(tl_fx_lookup(&got, tl_str_from("n1")), 4);
  CHECK_INT_EQ(got.node_count, 4); /* the placeholder x and n0..n2 */
  tl_analysis_cache_stats s = tl_analysis_cache_stats_of(c);
  CHECK_INT_EQ(s.hits, 1);
  CHECK_INT_EQ(s.misses, 1);
  CHECK_INT_EQ(s.entries, 1);
  CHECK_INT_EQ(s.collisions, 0);
  tl_analysis_cache_free(c);
  tl_arena_free(&a);
  tl_arena_free(&b);
  free(t);
}

TEST(a_code_analysis_found_again_is_the_analysis_its_text_gives) {
  tl_str text = tl_str_from(CODE);
  tl_arena a, b;
  tl_arena_init(&a);
  tl_arena_init(&b);
  tl_analysis_cache *c = tl_analysis_cache_new(1 << 20, NULL);
  tl_code_analysis want, got;
  tl_pycode_analyze(&a, text, &want);
  tl_analysis_cache_put_code(c, TL_ANALYSIS_PYCODE, text, &want);
  /* The same text as another kind of analysis is another entry. */
  CHECK(!tl_analysis_cache_get_code(c, TL_ANALYSIS_CPPCODE, text, &b, &got));
  CHECK(tl_analysis_cache_get_code(c, TL_ANALYSIS_PYCODE, text, &b, &got));
  CHECK(same_code(&want, &got, text));
  /* Read from the text: k_1 defined on lines 1-4, called on line 7 with
   * handle 1; the mm call on line 8. */
  CHECK_INT_EQ(got.def_count, 1);
  CHECK(got.def_count == 1 && tl_str_eq_cstr(got.defs[0].name, "k_1"));
  CHECK(got.def_count == 1 && got.defs[0].first == 1 && got.defs[0].last == 4);
  CHECK_INT_EQ(got.call_count, 2);
  CHECK(got.call_count == 2 && got.calls[0].line == 7 &&
        tl_str_eq_cstr(got.calls[0].handle_key, "k_1:1"));
  CHECK(got.call_count == 2 && got.calls[1].line == 8 &&
        tl_str_eq_cstr(got.calls[1].name, "extern_kernels.mm"));
  tl_analysis_cache_free(c);
  tl_arena_free(&a);
  tl_arena_free(&b);
}

/* Every text hashes the same: a collision on every lookup. */
static uint64_t colliding_hash(tl_str text) {
  (void)text;
  return 42;
}

TEST(texts_whose_hashes_collide_are_told_apart_by_their_bytes) {
  char *ta = fx_text("a", 2), *tb = fx_text("b", 5);
  tl_str a_text = tl_str_from(ta), b_text = tl_str_from(tb);
  tl_arena arena;
  tl_arena_init(&arena);
  tl_analysis_cache *c = tl_analysis_cache_new(1 << 20, colliding_hash);
  tl_fx_graph a, b, got;
  tl_fx_analyze(&arena, a_text, &a);
  tl_fx_analyze(&arena, b_text, &b);
  tl_analysis_cache_put_fx(c, a_text, &a);
  CHECK(!tl_analysis_cache_get_fx(c, b_text, &arena, &got));
  tl_analysis_cache_stats s = tl_analysis_cache_stats_of(c);
  CHECK_INT_EQ(s.collisions, 1);
  CHECK_INT_EQ(s.misses, 1);
  tl_analysis_cache_put_fx(c, b_text, &b);
  CHECK_INT_EQ(tl_analysis_cache_stats_of(c).entries, 2);
  CHECK(tl_analysis_cache_get_fx(c, b_text, &arena, &got));
  CHECK(same_fx(&b, &got, b_text));
  CHECK_INT_EQ(tl_fx_lookup(&got, tl_str_from("b4")), 7);
  CHECK_INT_EQ(tl_fx_lookup(&got, tl_str_from("a1")), 0);
  CHECK(tl_analysis_cache_get_fx(c, a_text, &arena, &got));
  CHECK(same_fx(&a, &got, a_text));
  CHECK_INT_EQ(tl_fx_lookup(&got, tl_str_from("a1")), 4);
  tl_analysis_cache_free(c);
  tl_arena_free(&arena);
  free(ta);
  free(tb);
}

TEST(the_least_recently_used_entries_go_to_stay_under_the_bound) {
  enum { TEXTS = 12 };
  char *texts[TEXTS];
  char prefix[8];
  tl_arena arena;
  tl_arena_init(&arena);
  /* Each entry is its text (about 200 bytes), its blob and an overhead:
   * a bound of 4 KiB holds a few of them, never all twelve. */
  size_t bound = 4096;
  tl_analysis_cache *c = tl_analysis_cache_new(bound, NULL);
  tl_fx_graph g, got;
  for (int i = 0; i < TEXTS; i++) {
    snprintf(prefix, sizeof prefix, "t%d_", i);
    texts[i] = fx_text(prefix, 3);
    tl_fx_analyze(&arena, tl_str_from(texts[i]), &g);
    tl_analysis_cache_put_fx(c, tl_str_from(texts[i]), &g);
    /* The first text is used after every put: never the oldest. */
    CHECK(tl_analysis_cache_get_fx(c, tl_str_from(texts[0]), &arena, &got));
    CHECK(tl_analysis_cache_stats_of(c).bytes <= bound);
  }
  tl_analysis_cache_stats s = tl_analysis_cache_stats_of(c);
  CHECK(s.evictions > 0);
  CHECK_INT_EQ(s.entries + s.evictions, TEXTS);
  CHECK(s.entries >= 2 && s.entries < TEXTS);
  /* Kept: the first (always just used) and the last (just put); gone:
   * the second, the oldest of the others. */
  CHECK(tl_analysis_cache_get_fx(c, tl_str_from(texts[0]), &arena, &got));
  CHECK(
      tl_analysis_cache_get_fx(c, tl_str_from(texts[TEXTS - 1]), &arena, &got));
  CHECK(!tl_analysis_cache_get_fx(c, tl_str_from(texts[1]), &arena, &got));
  tl_analysis_cache_free(c);
  tl_arena_free(&arena);
  for (int i = 0; i < TEXTS; i++)
    free(texts[i]);
}

TEST(a_text_larger_than_a_quarter_of_the_bound_is_never_kept) {
  char *t = fx_text("big", 40); /* about 1.7 KB */
  tl_str text = tl_str_from(t);
  tl_arena arena;
  tl_arena_init(&arena);
  tl_analysis_cache *c = tl_analysis_cache_new(4096, NULL);
  CHECK(!tl_analysis_cache_wants(c, text.len));
  CHECK(tl_analysis_cache_wants(c, 100));
  CHECK(!tl_analysis_cache_wants(NULL, 1));
  tl_fx_graph g, got;
  tl_fx_analyze(&arena, text, &g);
  tl_analysis_cache_put_fx(c, text, &g);
  CHECK(!tl_analysis_cache_get_fx(c, text, &arena, &got));
  CHECK_INT_EQ(tl_analysis_cache_stats_of(c).entries, 0);
  /* No cache at all: every lookup misses, every put is nothing. */
  tl_analysis_cache_put_fx(NULL, text, &g);
  CHECK(!tl_analysis_cache_get_fx(NULL, text, &arena, &got));
  tl_analysis_cache_free(c);
  tl_arena_free(&arena);
  free(t);
}

TEST(a_second_cache_finds_what_the_first_kept_in_their_shared_folder) {
  char folder[] = "/tmp/tl-analysis-cache-XXXXXX";
  CHECK(mkdtemp(folder) != NULL);
  char *ta = fx_text("s", 3), *tb = fx_text("u", 3);
  tl_str a_text = tl_str_from(ta), b_text = tl_str_from(tb);
  tl_arena arena;
  tl_arena_init(&arena);
  /* Two caches with a colliding hash: what one kept for text a is in the
   * folder under a's hash, and text b (same hash) must not take it. */
  tl_analysis_cache *first = tl_analysis_cache_new(1 << 20, colliding_hash);
  tl_analysis_cache *second = tl_analysis_cache_new(1 << 20, colliding_hash);
  tl_analysis_cache_share(first, folder);
  tl_analysis_cache_share(second, folder);
  tl_fx_graph a, got;
  tl_fx_analyze(&arena, a_text, &a);
  tl_analysis_cache_put_fx(first, a_text, &a);
  CHECK(!tl_analysis_cache_get_fx(second, b_text, &arena, &got));
  CHECK(tl_analysis_cache_get_fx(second, a_text, &arena, &got));
  CHECK(same_fx(&a, &got, a_text));
  tl_analysis_cache_stats s = tl_analysis_cache_stats_of(second);
  CHECK_INT_EQ(s.shared_hits, 1);
  CHECK_INT_EQ(s.hits, 1);
  CHECK_INT_EQ(s.misses, 1);
  CHECK_INT_EQ(s.entries, 1); /* kept in memory since */
  /* The code of one kind is not the FX entry of the same text. */
  tl_code_analysis code;
  CHECK(!tl_analysis_cache_get_code(second, TL_ANALYSIS_PYCODE, a_text, &arena,
                                    &code));
  tl_analysis_cache_free(first);
  tl_analysis_cache_free(second);
  char error[512];
  CHECK(tl_fs_remove_tree(folder, error, sizeof error));
  tl_arena_free(&arena);
  free(ta);
  free(tb);
}

/* An entry whose result its get rejects (here an FX entry holding bytes that
 * are no FX result, as a damaged or outdated one would) is a miss; the
 * result its caller then puts replaces it, in memory and in the shared
 * folder, so the gets after it hit. */
TEST(a_rejected_entry_is_replaced_by_the_next_put) {
  char folder[] = "/tmp/tl-analysis-cache-XXXXXX";
  CHECK(mkdtemp(folder) != NULL);
  char *t = fx_text("r", 3);
  tl_str text = tl_str_from(t);
  tl_arena arena;
  tl_arena_init(&arena);
  tl_analysis_cache *c = tl_analysis_cache_new(1 << 20, NULL);
  tl_analysis_cache_share(c, folder);
  tl_analysis_cache_put_blob(c, TL_ANALYSIS_FX, text, "damaged", 7);
  tl_fx_graph want, got;
  CHECK(!tl_analysis_cache_get_fx(c, text, &arena, &got));
  tl_analysis_cache_stats s = tl_analysis_cache_stats_of(c);
  CHECK_INT_EQ(s.misses, 1);
  CHECK_INT_EQ(s.entries, 1);
  tl_fx_analyze(&arena, text, &want);
  tl_analysis_cache_put_fx(c, text, &want);
  CHECK(tl_analysis_cache_get_fx(c, text, &arena, &got));
  CHECK(same_fx(&want, &got, text));
  s = tl_analysis_cache_stats_of(c);
  CHECK_INT_EQ(s.replaced, 1);
  CHECK_INT_EQ(s.hits, 1);
  CHECK_INT_EQ(s.misses, 1);
  CHECK_INT_EQ(s.entries, 1);
  /* Its bytes are those of the good result alone. */
  tl_analysis_cache *fresh = tl_analysis_cache_new(1 << 20, NULL);
  tl_analysis_cache_put_fx(fresh, text, &want);
  CHECK_INT_EQ(s.bytes, tl_analysis_cache_stats_of(fresh).bytes);
  tl_analysis_cache_free(fresh);
  /* The shared file was replaced too: another process's cache hits. */
  tl_analysis_cache *other = tl_analysis_cache_new(1 << 20, NULL);
  tl_analysis_cache_share(other, folder);
  CHECK(tl_analysis_cache_get_fx(other, text, &arena, &got));
  CHECK(same_fx(&want, &got, text));
  CHECK_INT_EQ(tl_analysis_cache_stats_of(other).shared_hits, 1);
  tl_analysis_cache_free(other);
  tl_analysis_cache_free(c);
  char error[512];
  CHECK(tl_fs_remove_tree(folder, error, sizeof error));
  tl_arena_free(&arena);
  free(t);
}

typedef struct worker {
  tl_analysis_cache *cache;
  int id;
  int wrong;
} worker;

static void *use_cache(void *arg) {
  worker *w = arg;
  tl_arena arena;
  tl_arena_init(&arena);
  char prefix[16];
  for (int round = 0; round < 200; round++) {
    snprintf(prefix, sizeof prefix, "w%d_", round % 7);
    char *t = fx_text(prefix, 2 + round % 3);
    tl_str text = tl_str_from(t);
    tl_fx_graph want, got;
    tl_fx_analyze(&arena, text, &want);
    if (tl_analysis_cache_get_fx(w->cache, text, &arena, &got))
      w->wrong += !same_fx(&want, &got, text);
    else
      tl_analysis_cache_put_fx(w->cache, text, &want);
    free(t);
  }
  tl_arena_free(&arena);
  return NULL;
}

TEST(threads_share_one_cache) {
  tl_analysis_cache *c = tl_analysis_cache_new(8192, NULL);
  worker w[2] = {{c, 0, 0}, {c, 1, 0}};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, use_cache, &w[1]) == 0);
  use_cache(&w[0]);
  pthread_join(t, NULL);
  CHECK_INT_EQ(w[0].wrong + w[1].wrong, 0);
  tl_analysis_cache_stats s = tl_analysis_cache_stats_of(c);
  CHECK_INT_EQ(s.hits + s.misses, 400);
  CHECK(s.hits > 0);
  CHECK(s.bytes <= 8192);
  tl_analysis_cache_free(c);
}

int main(void) {
  RUN(an_fx_graph_found_again_is_the_graph_its_text_gives);
  RUN(a_code_analysis_found_again_is_the_analysis_its_text_gives);
  RUN(texts_whose_hashes_collide_are_told_apart_by_their_bytes);
  RUN(the_least_recently_used_entries_go_to_stay_under_the_bound);
  RUN(a_text_larger_than_a_quarter_of_the_bound_is_never_kept);
  RUN(a_second_cache_finds_what_the_first_kept_in_their_shared_folder);
  RUN(a_rejected_entry_is_replaced_by_the_next_put);
  RUN(threads_share_one_cache);
  return check_summary();
}
