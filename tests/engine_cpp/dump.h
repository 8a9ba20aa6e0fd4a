/* dump.h: what the AOTInductor C++ analysis tests share: running both
 * analyses on a wrapper (and kernel code) and dumping the result one fact a
 * line, the form the corpus cases in tests/engine_cpp/cases/ spell out:
 *   entry FIRST-LAST / def NAME KIND FILE FIRST-LAST /
 *   embedded LANGUAGE FILE FIRST-LAST / call LINE NAME KIND [HANDLE KEY]
 *   [in SCOPE] / scope NAME (the subgraph blocks' qualified names)
 */
#ifndef TL_TEST_CPP_DUMP_H
#define TL_TEST_CPP_DUMP_H

#include "analyze/analysis.h"
#include "case_file.h"
#include "check.h"
#include "util/fsutil.h"

/* The dump the case files spell out, one fact per line. */
static void dump(const tl_code_analysis *r, tl_buf *out) {
  tl_buf_printf(out, "entry %d-%d\n", r->entry_first, r->entry_last);
  for (size_t i = 0; i < r->def_count; i++)
    tl_buf_printf(out, "def %.*s %s %s %d-%d\n", (int)r->defs[i].name.len,
                  r->defs[i].name.ptr, tl_kernel_kind_name(r->defs[i].kind),
                  tl_code_file_name(r->defs[i].file), r->defs[i].first,
                  r->defs[i].last);
  for (size_t i = 0; i < r->embedded_count; i++)
    tl_buf_printf(out, "embedded %s %s %d-%d\n", r->embedded[i].language,
                  tl_code_file_name(r->embedded[i].file), r->embedded[i].first,
                  r->embedded[i].last);
  for (size_t i = 0; i < r->call_count; i++) {
    const tl_call_site *c = &r->calls[i];
    tl_buf_printf(out, "call %d %.*s %s", c->line, (int)c->name.len,
                  c->name.ptr, tl_kernel_kind_name(c->kind));
    if (c->handle_key.len)
      tl_buf_printf(out, " %.*s", (int)c->handle_key.len, c->handle_key.ptr);
    if (c->scope.len)
      tl_buf_printf(out, " in %.*s", (int)c->scope.len, c->scope.ptr);
    tl_buf_putc(out, '\n');
  }
  for (size_t i = 0; i < r->scope_count; i++)
    tl_buf_printf(out, "scope %.*s\n", (int)r->scopes[i].len, r->scopes[i].ptr);
}

/* Runs both analyses and returns the dump in `out`. */
static void analyze(tl_str wrapper, tl_str kernels, bool has_kernels,
                    tl_buf *out) {
  tl_arena arena;
  tl_arena_init(&arena);
  tl_code_analysis r;
  tl_cppcode_analyze(&arena, wrapper, &r);
  if (has_kernels)
    tl_cppkernels_analyze(&arena, kernels, &r);
  dump(&r, out);
  tl_arena_free(&arena);
}

#endif
