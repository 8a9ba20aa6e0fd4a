/* fuzz_diff.c: the recompile diffs' readers (src/diff/) on any text. The
 * input is `before \x1e after` (fuzz_split; no separator: the text against
 * itself).
 *
 * Invariants:
 * - reasons: every slice lies inside the text (touched for ASan), the
 *   words name the earlier compile, and reading is total;
 * - guards: every leaf's slices lie inside its text; a text compared with
 *   itself differs in nothing; each change has the sides its kind says;
 * - graphs: the rows count each node of both graphs once (matched pairs,
 *   added and removed), the summary adds up, matched pairs have the same
 *   op, a graph compared with itself is all `same` and not renamed;
 * - shapes: the words of two annotations, or of two guards, are total and
 *   say nothing of a text against itself;
 * - kernels (one per line: a name, then node names; the line its code):
 *   every kernel of both sides is in one row, the summary adds up, a side
 *   against itself is all `same` and not renamed, and a kernel's code
 *   against itself has no removed or added line.
 */
#include "diff/fx_diff.h"
#include "diff/guards.h"
#include "diff/kernel_diff.h"
#include "diff/recompile_reasons.h"
#include "diff/shape_words.h"
#include "fuzz.h"

static volatile unsigned sink;

/* Does slice `s` lie inside `text` (or is it empty)? */
static bool inside(tl_str s, tl_str text) {
  return s.len == 0 ||
         (s.ptr >= text.ptr && s.ptr + s.len <= text.ptr + text.len);
}

static unsigned check_reasons(tl_str text) {
  tl_recompile_reasons rs = {0};
  tl_recompile_reasons_read(text, &rs);
  unsigned sum = 0;
  tl_buf words;
  tl_buf_init(&words);
  for (size_t i = 0; i < rs.count; i++) {
    const tl_recompile_reason *r = &rs.items[i];
    const tl_str parts[] = {r->earlier, r->text,     r->subject, r->what,
                            r->index,   r->expected, r->actual,  r->where};
    for (size_t k = 0; k < sizeof parts / sizeof *parts; k++) {
      FUZZ_CHECK(inside(parts[k], text));
      sum += fuzz_touch(parts[k]);
    }
    FUZZ_CHECK(r->earlier.len > 0);
    tl_buf_clear(&words);
    tl_recompile_reason_words(&words, r);
    FUZZ_CHECK(words.len > r->earlier.len + 2 && words.data[0] == '[' &&
               memcmp(words.data + 1, r->earlier.ptr, r->earlier.len) == 0);
    FUZZ_CHECK(tl_reason_kind_name(r->kind)[0] != '\0');
  }
  tl_buf_free(&words);
  TL_VEC_FREE(rs);
  return sum;
}

static unsigned check_guards(tl_str a, tl_str b) {
  tl_guards ga = {0}, gb = {0};
  tl_guards_read(a, &ga);
  tl_guards_read(b, &gb);
  unsigned sum = 0;
  for (size_t i = 0; i < ga.count; i++) {
    FUZZ_CHECK(inside(ga.items[i].kind, a) && inside(ga.items[i].source, a) &&
               inside(ga.items[i].code, a) && inside(ga.items[i].comment, a));
    sum += fuzz_touch(ga.items[i].code) + fuzz_touch(ga.items[i].source);
  }
  tl_guard_diff self = {0}, d = {0};
  tl_guards_diff(&ga, &ga, &self);
  FUZZ_CHECK(self.count == 0);
  tl_guards_diff(&ga, &gb, &d);
  size_t before = 0, after = 0;
  for (size_t i = 0; i < d.count; i++) {
    const tl_guard_diff_item *it = &d.items[i];
    FUZZ_CHECK((it->before != NULL) == (it->change != TL_GUARD_ADDED));
    FUZZ_CHECK((it->after != NULL) == (it->change != TL_GUARD_REMOVED));
    before += it->before != NULL;
    after += it->after != NULL;
  }
  FUZZ_CHECK(before <= ga.count && after <= gb.count);
  /* What is not reported is matched one to one. */
  FUZZ_CHECK(ga.count - before == gb.count - after);
  TL_VEC_FREE(self);
  TL_VEC_FREE(d);
  TL_VEC_FREE(ga);
  TL_VEC_FREE(gb);
  return sum;
}

static unsigned check_graphs(tl_str a, tl_str b) {
  tl_arena arena;
  tl_arena_init(&arena);
  tl_fx_diff d;
  tl_fx_diff_texts(&arena, a, b, &d);
  size_t pairs = 0, added = 0, removed = 0;
  unsigned sum = 0;
  for (size_t i = 0; i < d.rows.count; i++) {
    const tl_fx_row *r = &d.rows.items[i];
    if (r->change == TL_FX_ADDED) {
      FUZZ_CHECK(!r->before.name.ptr && r->after.name.ptr);
      added++;
    } else if (r->change == TL_FX_REMOVED) {
      FUZZ_CHECK(r->before.name.ptr && !r->after.name.ptr);
      removed++;
    } else {
      FUZZ_CHECK(tl_str_eq(r->before.op, r->after.op));
      FUZZ_CHECK((r->change == TL_FX_CHANGED) ==
                 (r->type_changed || r->args_changed));
      pairs++;
    }
    sum += fuzz_touch(r->before.text) + fuzz_touch(r->after.text) +
           fuzz_touch(r->before.op) + fuzz_touch(r->after.type);
  }
  FUZZ_CHECK(d.added == added && d.removed == removed);
  FUZZ_CHECK(d.same + d.renamed + d.changed == pairs);
  tl_fx_diff_free(&d);
  /* A graph against itself: every node the same, under its own name; the
   * later side read back from the cache, as the earlier was parsed. */
  tl_analysis_cache *cache = tl_analysis_cache_new(1u << 24, NULL);
  tl_fx_diff self;
  tl_fx_diff_texts_cached(&arena, cache, a, a, &self);
  FUZZ_CHECK(self.added == 0 && self.removed == 0 && self.changed == 0 &&
             self.renamed == 0 && self.same == self.rows.count);
  for (size_t i = 0; i < self.rows.count; i++) {
    const tl_fx_row *r = &self.rows.items[i];
    FUZZ_CHECK(tl_str_eq(r->before.text, r->after.text) &&
               tl_str_eq(r->before.source, r->after.source) &&
               r->before.line == r->after.line);
  }
  tl_fx_diff_free(&self);
  tl_analysis_cache_free(cache);
  tl_arena_free(&arena);
  return sum;
}

static unsigned check_shapes(tl_str a, tl_str b) {
  tl_buf out;
  tl_buf_init(&out);
  unsigned sum = 0;
  if (tl_shape_change_words(&out, a, b) || tl_guard_shape_words(&out, a, b))
    sum += (unsigned)out.len;
  tl_buf_clear(&out);
  FUZZ_CHECK(!tl_shape_change_words(&out, a, a) && out.len == 0);
  FUZZ_CHECK(!tl_guard_shape_words(&out, b, b) && out.len == 0);
  tl_buf_free(&out);
  return sum;
}

enum { FUZZ_MAX_KERNELS = 256, FUZZ_MAX_NODES = 16 };

typedef struct fuzz_kernels {
  tl_kernel_item items[FUZZ_MAX_KERNELS];
  tl_str nodes[FUZZ_MAX_KERNELS][FUZZ_MAX_NODES];
  size_t count;
} fuzz_kernels;

/* One kernel per line: its first word the name (kind "cpp"), the other
 * words its nodes, the line its code. */
static void read_kernels(tl_str text, fuzz_kernels *k) {
  k->count = 0;
  size_t at = 0;
  while (at < text.len && k->count < FUZZ_MAX_KERNELS) {
    size_t end = at;
    while (end < text.len && text.ptr[end] != '\n')
      end++;
    tl_str line = {text.ptr + at, end - at};
    at = end + 1;
    tl_kernel_item *item = &k->items[k->count];
    memset(item, 0, sizeof *item);
    size_t n = 0, i = 0;
    while (i < line.len && n < FUZZ_MAX_NODES + 1) {
      while (i < line.len && line.ptr[i] == ' ')
        i++;
      size_t w = i;
      while (i < line.len && line.ptr[i] != ' ')
        i++;
      if (i == w)
        break;
      tl_str word = {line.ptr + w, i - w};
      if (n == 0)
        item->name = item->key = word;
      else
        k->nodes[k->count][n - 1] = word;
      n++;
    }
    if (!n)
      continue;
    item->kind = tl_str_from("cpp");
    item->code = line;
    item->first = 1;
    item->last = 1;
    item->nodes = k->nodes[k->count];
    item->node_count = n - 1;
    k->count++;
  }
}

static unsigned check_kernels(tl_str a, tl_str b) {
  static fuzz_kernels ka, kb;
  read_kernels(a, &ka);
  read_kernels(b, &kb);
  tl_kernel_diff d;
  tl_kernel_diff_run(ka.items, ka.count, kb.items, kb.count, NULL, &d);
  size_t seen_a = 0, seen_b = 0;
  unsigned sum = 0;
  for (size_t i = 0; i < d.rows.count; i++) {
    const tl_kernel_row *r = &d.rows.items[i];
    FUZZ_CHECK((r->before >= 0) == (r->change != TL_KERNEL_ADDED));
    FUZZ_CHECK((r->after >= 0) == (r->change != TL_KERNEL_REMOVED));
    seen_a += r->before >= 0;
    seen_b += r->after >= 0;
    sum += fuzz_touch(r->before_text) + fuzz_touch(r->after_text);
  }
  FUZZ_CHECK(seen_a == ka.count && seen_b == kb.count);
  FUZZ_CHECK(d.same + d.renamed + d.changed + d.added == kb.count);
  tl_kernel_diff_free(&d);
  tl_kernel_diff self;
  tl_kernel_diff_run(ka.items, ka.count, ka.items, ka.count, NULL, &self);
  /* Each kernel against itself is the same, unless two share a name and
   * nodes (then either may pair with either). */
  FUZZ_CHECK(self.added == 0 && self.removed == 0);
  tl_kernel_diff_free(&self);
  for (size_t i = 0; i < ka.count; i++) {
    tl_code_rows rows = {0};
    bool cut;
    if (tl_kernel_code_diff(&ka.items[i], &ka.items[i], &rows, &cut))
      for (size_t r = 0; r < rows.count; r++)
        FUZZ_CHECK(rows.items[r].op == TL_CODE_SAME ||
                   rows.items[r].op == TL_CODE_GAP);
    TL_VEC_FREE(rows);
  }
  return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tl_str a, b;
  fuzz_split(data, size, &a, &b);
  if (!b.ptr)
    b = a;
  sink = check_reasons(a) + check_reasons(b) + check_guards(a, b) +
         check_graphs(a, b) + check_shapes(a, b) + check_kernels(a, b);
  return 0;
}
