/* summary_test.c: the summary a rank's child sends to the parent
 * (tl_mr_summary_encode/decode, src/multirank/multi_rank_summary.c). A
 * summary comes back field for field; bytes cut short at any point, run on,
 * or with a count, a flag or a string that no encoder writes are refused,
 * leaving the rank's summary empty, so that the parent reads the rank's
 * files instead. The layout the offsets below follow: flags (u32), the
 * compile ids and the cache sequence (each a u32 length, UINT32_MAX for
 * none, and the bytes), the md5 (16 bytes), the execution order (a u32
 * count and strings), the graphs (a u32 count; each: dir, compile id, the
 * ops (u32 count; name, f64), the schedule (u32 count; strings), the bits
 * (u32), three artifact names, three f64 numbers).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "multirank/multi_rank_internal.h"

static char *dup(const char *s) { return s ? tl_xstrdup(s) : NULL; }

/* Rank 3 of a job: two graphs, the first with two ops and a schedule, the
 * second with neither and no runtime artifact. */
static void fill(tl_mr_rank *r) {
  memset(r, 0, sizeof *r);
  r->rank = 3;
  r->summary = r->has_meta = r->has_exec = true;
  r->compile_ids = dup("[0/0]\n[1/0]");
  r->cache_seq = dup("miss,hit");
  for (int i = 0; i < 16; i++)
    r->meta_md5[i] = (unsigned char)(0xa0 + i);
  TL_VEC_PUSH(r->exec, dup("[0/0]"));
  TL_VEC_PUSH(r->exec, dup("[1/0]"));
  tl_mr_graph g = {0};
  g.dir = dup("-_0_0_0");
  g.compile_id = dup("[0/0]");
  TL_VEC_PUSH(g.ops, ((tl_mr_op){dup("all_reduce"), 1500.25}));
  TL_VEC_PUSH(g.ops, ((tl_mr_op){dup("mm"), 7.0}));
  TL_VEC_PUSH(g.sched, dup("torch.ops._c10d_functional.all_reduce_.default"));
  g.has_sched = true;
  g.cache = 3;
  g.runtime_name = dup("inductor_runtime_and_tensor_meta_4.json");
  g.sched_name = dup("inductor_collective_schedule_5.json");
  g.code_name = dup("inductor_output_code_abc_6.html");
  g.runtime_num = 4;
  g.sched_num = 5;
  g.code_num = 6;
  TL_VEC_PUSH(r->graphs, g);
  tl_mr_graph h = {0};
  h.dir = dup("-_1_0_0");
  h.compile_id = dup("[1/0]");
  h.cache = 2;
  TL_VEC_PUSH(r->graphs, h);
}

static bool same_str(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

/* Whether `got` holds `want`'s summary, field for field. */
static bool same_summary(const tl_mr_rank *want, const tl_mr_rank *got) {
  bool same = want->summary == got->summary &&
              want->has_meta == got->has_meta &&
              want->has_exec == got->has_exec &&
              same_str(want->compile_ids, got->compile_ids) &&
              same_str(want->cache_seq, got->cache_seq) &&
              memcmp(want->meta_md5, got->meta_md5, 16) == 0 &&
              want->exec.count == got->exec.count &&
              want->graphs.count == got->graphs.count;
  for (size_t i = 0; same && i < want->exec.count; i++)
    same = same_str(want->exec.items[i], got->exec.items[i]);
  for (size_t i = 0; same && i < want->graphs.count; i++) {
    const tl_mr_graph *a = &want->graphs.items[i], *b = &got->graphs.items[i];
    same = same_str(a->dir, b->dir) && same_str(a->compile_id, b->compile_id) &&
           a->ops.count == b->ops.count && a->sched.count == b->sched.count &&
           a->has_sched == b->has_sched && a->cache == b->cache &&
           same_str(a->runtime_name, b->runtime_name) &&
           same_str(a->sched_name, b->sched_name) &&
           same_str(a->code_name, b->code_name) &&
           a->runtime_num == b->runtime_num && a->sched_num == b->sched_num &&
           a->code_num == b->code_num;
    for (size_t k = 0; same && k < a->ops.count; k++)
      same = same_str(a->ops.items[k].name, b->ops.items[k].name) &&
             a->ops.items[k].ns == b->ops.items[k].ns;
    for (size_t k = 0; same && k < a->sched.count; k++)
      same = same_str(a->sched.items[k], b->sched.items[k]);
  }
  return same;
}

/* Whether r's summary is empty, as before a decode. */
static bool empty(const tl_mr_rank *r) {
  static const unsigned char zero[16];
  return !r->summary && !r->has_meta && !r->has_exec && !r->compile_ids &&
         !r->cache_seq && r->exec.count == 0 && r->graphs.count == 0 &&
         memcmp(r->meta_md5, zero, 16) == 0;
}

/* Decodes data[0..len) into a fresh rank; true when it was taken, and then
 * the decoded summary equals `want` when `want` is given. On a refusal the
 * rank must be left empty and the offset unmoved. */
static bool decodes(const char *data, size_t len, const tl_mr_rank *want) {
  tl_mr_rank got;
  memset(&got, 0, sizeof got);
  size_t at = 0;
  bool taken = tl_mr_summary_decode(&got, data, len, &at);
  if (taken) {
    CHECK_INT_EQ(at, len);
    if (want)
      CHECK(same_summary(want, &got));
  } else {
    CHECK_INT_EQ(at, 0);
    CHECK(empty(&got));
  }
  tl_mr_summary_clear(&got);
  return taken;
}

static size_t str_size(const char *s) { return 4 + (s ? strlen(s) : 0); }

/* The offsets of the count fields of fill()'s summary, from the layout in
 * the header comment: the execution order's, the graphs', the first
 * graph's ops and schedule, the second graph's ops and schedule. */
static void count_offsets(const tl_mr_rank *r, size_t at[6]) {
  size_t o = 4 + str_size(r->compile_ids) + str_size(r->cache_seq) + 16;
  at[0] = o;
  o += 4;
  for (size_t i = 0; i < r->exec.count; i++)
    o += str_size(r->exec.items[i]);
  at[1] = o;
  o += 4;
  for (size_t i = 0; i < 2; i++) {
    const tl_mr_graph *g = &r->graphs.items[i];
    o += str_size(g->dir) + str_size(g->compile_id);
    at[2 + 2 * i] = o;
    o += 4;
    for (size_t k = 0; k < g->ops.count; k++)
      o += str_size(g->ops.items[k].name) + 8;
    at[3 + 2 * i] = o;
    o += 4;
    for (size_t k = 0; k < g->sched.count; k++)
      o += str_size(g->sched.items[k]);
    o += 4 + str_size(g->runtime_name) + str_size(g->sched_name) +
         str_size(g->code_name) + 24;
  }
}

static uint32_t u32_at(const tl_buf *b, size_t at) {
  uint32_t v;
  memcpy(&v, b->data + at, 4);
  return v;
}

static void set_u32(tl_buf *b, size_t at, uint32_t v) {
  memcpy(b->data + at, &v, 4);
}

TEST(a_summary_comes_back_field_for_field) {
  tl_mr_rank r;
  fill(&r);
  tl_buf b;
  tl_buf_init(&b);
  tl_buf_puts(&b, "diagnostics"); /* what comes before it in a message */
  size_t start = b.len;
  tl_mr_summary_encode(&b, &r);
  tl_mr_rank got;
  memset(&got, 0, sizeof got);
  size_t at = start;
  CHECK(tl_mr_summary_decode(&got, b.data, b.len, &at));
  CHECK_INT_EQ(at, b.len);
  CHECK(same_summary(&r, &got));
  CHECK_STR_EQ(got.graphs.items[0].ops.items[0].name, "all_reduce");
  CHECK(got.graphs.items[0].ops.items[0].ns == 1500.25);
  CHECK(got.graphs.items[1].runtime_name == NULL);
  CHECK_INT_EQ(got.graphs.items[1].cache, 2);
  tl_mr_summary_clear(&got);
  /* The layout the offsets follow is the encoder's: its length adds up. */
  size_t counts[6];
  count_offsets(&r, counts);
  CHECK_INT_EQ(u32_at(&b, start + counts[0]), 2);
  CHECK_INT_EQ(u32_at(&b, start + counts[1]), 2);
  CHECK_INT_EQ(u32_at(&b, start + counts[2]), 2);
  CHECK_INT_EQ(u32_at(&b, start + counts[3]), 1);
  CHECK_INT_EQ(u32_at(&b, start + counts[4]), 0);
  CHECK_INT_EQ(u32_at(&b, start + counts[5]), 0);
  CHECK_INT_EQ(b.len - start,
               counts[5] + 4 + 4 + 3 * 4 + 24); /* the second graph's rest */
  /* A rank whose read found nothing: no summary, sent as such. */
  tl_mr_rank none, back;
  memset(&none, 0, sizeof none);
  tl_buf_clear(&b);
  tl_mr_summary_encode(&b, &none);
  memset(&back, 0, sizeof back);
  at = 0;
  CHECK(tl_mr_summary_decode(&back, b.data, b.len, &at));
  CHECK(empty(&back));
  tl_mr_summary_clear(&back);
  tl_buf_free(&b);
  tl_mr_summary_clear(&r);
}

TEST(a_summary_cut_short_anywhere_or_run_on_is_refused) {
  tl_mr_rank r;
  fill(&r);
  tl_buf b;
  tl_buf_init(&b);
  tl_mr_summary_encode(&b, &r);
  CHECK(decodes(b.data, b.len, &r));
  size_t refused = 0;
  for (size_t cut = 0; cut < b.len; cut++)
    refused += !decodes(b.data, cut, NULL);
  CHECK_INT_EQ(refused, b.len);
  tl_buf_putc(&b, '\0'); /* one byte more than the summary */
  CHECK(!decodes(b.data, b.len, NULL));
  /* An offset past the end is refused, not read. */
  tl_mr_rank got;
  memset(&got, 0, sizeof got);
  size_t at = b.len + 1;
  CHECK(!tl_mr_summary_decode(&got, b.data, b.len, &at));
  CHECK_INT_EQ(at, b.len + 1);
  tl_buf_free(&b);
  tl_mr_summary_clear(&r);
}

TEST(a_wrong_or_huge_count_is_refused) {
  tl_mr_rank r;
  fill(&r);
  tl_buf b;
  tl_buf_init(&b);
  tl_mr_summary_encode(&b, &r);
  size_t counts[6];
  count_offsets(&r, counts);
  for (int c = 0; c < 6; c++) {
    uint32_t was = u32_at(&b, counts[c]);
    uint32_t wrong[] = {was + 1,     was + 2,     was ? was - 1 : 3,
                        0x7fffffffu, 0xfffffffeu, 0xffffffffu};
    for (size_t w = 0; w < sizeof wrong / sizeof *wrong; w++) {
      set_u32(&b, counts[c], wrong[w]);
      if (decodes(b.data, b.len, NULL))
        printf("  count %d set to %u was taken\n", c, (unsigned)wrong[w]);
      CHECK(!decodes(b.data, b.len, NULL));
    }
    set_u32(&b, counts[c], was);
  }
  CHECK(decodes(b.data, b.len, &r));
  tl_buf_free(&b);
  tl_mr_summary_clear(&r);
}

TEST(flags_and_missing_strings_no_encoder_writes_are_refused) {
  tl_mr_rank r;
  fill(&r);
  tl_buf b;
  tl_buf_init(&b);
  tl_mr_summary_encode(&b, &r);
  set_u32(&b, 0, 7 | 8); /* a fourth flag */
  CHECK(!decodes(b.data, b.len, NULL));
  set_u32(&b, 0, 7);
  size_t counts[6];
  count_offsets(&r, counts);
  /* The first graph's bits: has_sched and cache 3, then a bit past them. */
  size_t bits = counts[3] + 4 + str_size(r.graphs.items[0].sched.items[0]);
  CHECK_INT_EQ(u32_at(&b, bits), 1 | 3 << 1);
  set_u32(&b, bits, 1 | 3 << 1 | 8);
  CHECK(!decodes(b.data, b.len, NULL));
  /* Strings tl_mr_summary_read always sets, sent as none, one at a time. */
  char **required[] = {&r.compile_ids,
                       &r.cache_seq,
                       &r.exec.items[1],
                       &r.graphs.items[1].dir,
                       &r.graphs.items[0].compile_id,
                       &r.graphs.items[0].ops.items[1].name,
                       &r.graphs.items[0].sched.items[0]};
  for (size_t i = 0; i < sizeof required / sizeof *required; i++) {
    char *kept = *required[i];
    *required[i] = NULL;
    tl_buf_clear(&b);
    tl_mr_summary_encode(&b, &r);
    CHECK(!decodes(b.data, b.len, NULL));
    *required[i] = kept;
  }
  /* An artifact name may be missing: the second graph has none. */
  tl_buf_clear(&b);
  tl_mr_summary_encode(&b, &r);
  CHECK(decodes(b.data, b.len, &r));
  tl_buf_free(&b);
  tl_mr_summary_clear(&r);
}

/* Every byte flipped in turn: each decode either refuses, leaving the rank
 * empty, or gives a summary with every required string set (under the
 * sanitizers: nothing read out of bounds, nothing leaked). */
TEST(any_flipped_byte_is_refused_or_decodes_whole) {
  tl_mr_rank r;
  fill(&r);
  tl_buf b;
  tl_buf_init(&b);
  tl_mr_summary_encode(&b, &r);
  for (size_t i = 0; i < b.len; i++) {
    for (int x = 0; x < 3; x++) {
      unsigned char mask = x == 0 ? 0xff : x == 1 ? 0x01 : 0x80;
      b.data[i] = (char)(b.data[i] ^ mask);
      tl_mr_rank got;
      memset(&got, 0, sizeof got);
      size_t at = 0;
      if (tl_mr_summary_decode(&got, b.data, b.len, &at)) {
        CHECK_INT_EQ(at, b.len);
        CHECK(got.compile_ids && got.cache_seq);
        for (size_t e = 0; e < got.exec.count; e++)
          CHECK(got.exec.items[e] != NULL);
        for (size_t g = 0; g < got.graphs.count; g++) {
          const tl_mr_graph *gr = &got.graphs.items[g];
          CHECK(gr->dir && gr->compile_id && gr->cache >= 0 && gr->cache <= 3);
          for (size_t k = 0; k < gr->ops.count; k++)
            CHECK(gr->ops.items[k].name != NULL);
          for (size_t k = 0; k < gr->sched.count; k++)
            CHECK(gr->sched.items[k] != NULL);
        }
      } else {
        CHECK(empty(&got));
      }
      tl_mr_summary_clear(&got);
      b.data[i] = (char)(b.data[i] ^ mask);
    }
  }
  tl_buf_free(&b);
  tl_mr_summary_clear(&r);
}

int main(void) {
  RUN(a_summary_comes_back_field_for_field);
  RUN(a_summary_cut_short_anywhere_or_run_on_is_refused);
  RUN(a_wrong_or_huge_count_is_refused);
  RUN(flags_and_missing_strings_no_encoder_writes_are_refused);
  RUN(any_flipped_byte_is_refused_or_decodes_whole);
  return check_summary();
}
