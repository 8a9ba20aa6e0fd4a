/* dump.h: the analyses of tests/engine as text, one fact a line, the form
 * the corpus case files (tests/engine/corpus/) spell out:
 *   FX graph:    NAME LINE [in subgraph N] / subgraph N NAME [in M]
 *   output code: def NAME KIND FILE FIRST-LAST / call LINE NAME KIND
 *                [handle=KEY] [in SCOPE] / embedded FILE FIRST-LAST
 *                LANGUAGE /
 *                entry FIRST-LAST / cpp_wrapper (the C++ of a
 *                cpp_wrapper=True module was found)
 * Shared by the corpus test and the chunked-equals-whole test.
 */
#ifndef TL_TEST_ENGINE_DUMP_H
#define TL_TEST_ENGINE_DUMP_H

#include <stdlib.h>

#include "analyze/analysis.h"
#include "util/buf.h"

static int dump_graph_cmp(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* "name line", and " in subgraph N" for a node of the N-th subgraph class
 * nested in the graph's class (text order); then each subgraph with a node,
 * "subgraph N qualified_name", and " in M" when nested in the M-th. */
static void dump_fx(tl_str input, tl_buf *out) {
  tl_arena arena;
  tl_arena_init(&arena);
  tl_fx_graph g;
  tl_fx_analyze(&arena, input, &g);
  uint32_t *ids = malloc((g.node_count + 1) * sizeof *ids);
  size_t n = 0;
  for (size_t i = 0; i < g.node_count; i++)
    if (g.nodes[i].graph)
      ids[n++] = g.nodes[i].graph;
  qsort(ids, n, sizeof *ids, dump_graph_cmp);
  size_t distinct = 0;
  for (size_t i = 0; i < n; i++)
    if (!distinct || ids[distinct - 1] != ids[i])
      ids[distinct++] = ids[i];
  for (size_t i = 0; i < g.node_count; i++) {
    tl_buf_printf(out, "%.*s %d", (int)g.nodes[i].name.len, g.nodes[i].name.ptr,
                  g.nodes[i].line);
    const uint32_t *at = g.nodes[i].graph
                             ? bsearch(&g.nodes[i].graph, ids, distinct,
                                       sizeof *ids, dump_graph_cmp)
                             : NULL;
    if (at)
      tl_buf_printf(out, " in subgraph %zu", (size_t)(at - ids) + 1);
    tl_buf_putc(out, '\n');
  }
  for (size_t i = 0; i < distinct; i++) {
    const tl_fx_subgraph *s = tl_fx_subgraph_of(&g, ids[i]);
    if (!s)
      continue;
    tl_buf_printf(out, "subgraph %zu %.*s", i + 1, (int)s->name.len,
                  s->name.ptr);
    const uint32_t *parent = s->parent ? bsearch(&s->parent, ids, distinct,
                                                 sizeof *ids, dump_graph_cmp)
                                       : NULL;
    if (parent)
      tl_buf_printf(out, " in %zu", (size_t)(parent - ids) + 1);
    tl_buf_putc(out, '\n');
  }
  free(ids);
  tl_arena_free(&arena);
}

static void dump_py(tl_str input, tl_buf *out) {
  tl_arena arena;
  tl_arena_init(&arena);
  tl_code_analysis a;
  tl_pycode_analyze(&arena, input, &a);
  for (size_t i = 0; i < a.def_count; i++)
    tl_buf_printf(out, "def %.*s %s %s %d-%d\n", (int)a.defs[i].name.len,
                  a.defs[i].name.ptr, tl_kernel_kind_name(a.defs[i].kind),
                  tl_code_file_name(a.defs[i].file), a.defs[i].first,
                  a.defs[i].last);
  for (size_t i = 0; i < a.call_count; i++) {
    tl_buf_printf(out, "call %d %.*s %s", a.calls[i].line,
                  (int)a.calls[i].name.len, a.calls[i].name.ptr,
                  tl_kernel_kind_name(a.calls[i].kind));
    if (a.calls[i].handle_key.len)
      tl_buf_printf(out, " handle=%.*s", (int)a.calls[i].handle_key.len,
                    a.calls[i].handle_key.ptr);
    if (a.calls[i].scope.len)
      tl_buf_printf(out, " in %.*s", (int)a.calls[i].scope.len,
                    a.calls[i].scope.ptr);
    tl_buf_putc(out, '\n');
  }
  for (size_t i = 0; i < a.embedded_count; i++)
    tl_buf_printf(out, "embedded %s %d-%d %s\n",
                  tl_code_file_name(a.embedded[i].file), a.embedded[i].first,
                  a.embedded[i].last, a.embedded[i].language);
  if (a.entry_first)
    tl_buf_printf(out, "entry %d-%d\n", a.entry_first, a.entry_last);
  if (a.cpp_wrapper)
    tl_buf_puts(out, "cpp_wrapper\n");
  tl_arena_free(&arena);
}

#endif
