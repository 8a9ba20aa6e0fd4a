/* code_check.h: invariants of a tl_code_analysis, shared by the Python and
 * C++ analyzer harnesses: every line number lies in its text, ranges are
 * ordered, names are readable (touched for ASan) and kinds are in range.
 */
#ifndef TL_FUZZ_CODE_CHECK_H
#define TL_FUZZ_CODE_CHECK_H

#include <stdlib.h>

#include "analyze/analysis.h"
#include "analyze/ts_query.h"
#include "fuzz.h"

/* `lines_main`/`lines_kernels`: line counts of the two analyzed texts. */
static inline unsigned code_check(const tl_code_analysis *a, int lines_main,
                                  int lines_kernels) {
  unsigned sum = 0;
  FUZZ_CHECK(a->def_count == 0 || a->defs);
  FUZZ_CHECK(a->call_count == 0 || a->calls);
  FUZZ_CHECK(a->embedded_count == 0 || a->embedded);
  for (size_t i = 0; i < a->def_count; i++) {
    const tl_kernel_def *d = &a->defs[i];
    int max = d->file == TL_CODE_MAIN ? lines_main : lines_kernels;
    FUZZ_CHECK(d->file == TL_CODE_MAIN || d->file == TL_CODE_KERNELS);
    FUZZ_CHECK(d->kind >= TL_KERNEL_TRITON && d->kind <= TL_KERNEL_UNKNOWN);
    FUZZ_CHECK(1 <= d->first && d->first <= d->last && d->last <= max);
    sum += fuzz_touch(d->name);
    sum += (unsigned)strlen(tl_kernel_kind_name(d->kind));
  }
  int previous = 0;
  for (size_t i = 0; i < a->call_count; i++) {
    const tl_call_site *c = &a->calls[i];
    FUZZ_CHECK(c->kind >= TL_KERNEL_TRITON && c->kind <= TL_KERNEL_UNKNOWN);
    FUZZ_CHECK(1 <= c->line && c->line <= lines_main);
    FUZZ_CHECK(c->line >= previous); /* in text order */
    previous = c->line;
    sum += fuzz_touch(c->name) + fuzz_touch(c->handle_key);
    sum += fuzz_touch(c->scope);
    /* a scope is one of the code's */
    FUZZ_CHECK(!c->scope.len || bsearch(&c->scope, a->scopes, a->scope_count,
                                        sizeof *a->scopes, tl_str_cmp_p));
  }
  FUZZ_CHECK(a->scope_count == 0 || a->scopes);
  for (size_t i = 0; i < a->scope_count; i++) {
    sum += fuzz_touch(a->scopes[i]);
    FUZZ_CHECK(a->scopes[i].len > 0);
    FUZZ_CHECK(i == 0 || tl_str_cmp(a->scopes[i - 1], a->scopes[i]) < 0);
  }
  for (size_t i = 0; i < a->embedded_count; i++) {
    const tl_embedded *e = &a->embedded[i];
    int max = e->file == TL_CODE_MAIN ? lines_main : lines_kernels;
    FUZZ_CHECK(1 <= e->first && e->first <= e->last && e->last <= max);
    FUZZ_CHECK(e->language && (strcmp(e->language, "python") == 0 ||
                               strcmp(e->language, "cpp") == 0));
  }
  FUZZ_CHECK((a->entry_first == 0 && a->entry_last == 0) ||
             (1 <= a->entry_first && a->entry_first <= a->entry_last &&
              a->entry_last <= lines_main));
  return sum;
}

/* The whole result as text, for comparing two analyses of one input. */
static inline void code_dump(const tl_code_analysis *a, tl_buf *out) {
  for (size_t i = 0; i < a->def_count; i++)
    tl_buf_printf(out, "def %.*s %d %d %d-%d\n", (int)a->defs[i].name.len,
                  a->defs[i].name.ptr, (int)a->defs[i].kind,
                  (int)a->defs[i].file, a->defs[i].first, a->defs[i].last);
  for (size_t i = 0; i < a->call_count; i++)
    tl_buf_printf(out, "call %d %.*s %d %.*s in %.*s\n", a->calls[i].line,
                  (int)a->calls[i].name.len, a->calls[i].name.ptr,
                  (int)a->calls[i].kind, (int)a->calls[i].handle_key.len,
                  a->calls[i].handle_key.ptr, (int)a->calls[i].scope.len,
                  a->calls[i].scope.ptr);
  for (size_t i = 0; i < a->scope_count; i++)
    tl_buf_printf(out, "scope %.*s\n", (int)a->scopes[i].len, a->scopes[i].ptr);
  for (size_t i = 0; i < a->embedded_count; i++)
    tl_buf_printf(out, "embedded %d %d-%d %s\n", (int)a->embedded[i].file,
                  a->embedded[i].first, a->embedded[i].last,
                  a->embedded[i].language);
  tl_buf_printf(out, "entry %d-%d\n", a->entry_first, a->entry_last);
}

#endif
