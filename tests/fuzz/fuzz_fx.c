/* fuzz_fx.c: the FX graph analyzer (tl_fx_analyze) on any text.
 *
 * Invariants: node names are sorted, each lies inside the text or the arena
 * (touched for ASan), each line is within the text, a name repeats only
 * for another graph (ascending), tl_fx_definitions finds every node in the
 * run of its name and tl_fx_lookup the run's first line; and the analysis
 * in chunks equals the whole one, graphs included.
 */
#include "analyze/analysis.h"
#include "analyze/ts_chunk.h"
#include "analyze/ts_query.h"
#include "fuzz.h"

static volatile unsigned sink;

/* Analyzes with chunks of `limit` bytes (SIZE_MAX: one whole parse), checks
 * the invariants, and dumps the nodes into `dump`. */
static void analyze(const uint8_t *data, size_t size, size_t limit,
                    tl_buf *dump) {
  tl_str text = {(const char *)data, size};
  tl_ts_chunk_limit = limit;
  int lines = fuzz_line_count(text);
  tl_arena arena;
  tl_arena_init(&arena);
  tl_fx_graph g;
  memset(&g, 0x5a, sizeof g); /* the analyzer must fill every field */
  tl_fx_analyze(&arena, text, &g);
  FUZZ_CHECK(g.node_count == 0 || g.nodes);
  unsigned sum = 0;
  for (size_t i = 0; i < g.node_count; i++) {
    const tl_fx_node *n = &g.nodes[i];
    sum += fuzz_touch(n->name);
    FUZZ_CHECK(n->line >= 1 && n->line <= lines);
    if (i > 0) { /* one definition per name and graph, graphs ascending */
      int c = tl_str_cmp(g.nodes[i - 1].name, n->name);
      FUZZ_CHECK(c < 0 || (c == 0 && g.nodes[i - 1].graph < n->graph));
    }
    size_t count;
    const tl_fx_node *first = tl_fx_definitions(&g, n->name, &count);
    FUZZ_CHECK(first && first <= n && n < first + count);
    FUZZ_CHECK(tl_fx_lookup(&g, n->name) == first->line);
  }
  FUZZ_CHECK(tl_fx_lookup(&g, TL_STR_LIT("\x01no such node")) == 0);
  sink = sum;
  /* the graph too: chunks must name a subgraph as the whole parse does */
  for (size_t i = 0; i < g.node_count; i++)
    tl_buf_printf(dump, "%.*s %d %u\n", (int)g.nodes[i].name.len,
                  g.nodes[i].name.ptr, g.nodes[i].line,
                  (unsigned)g.nodes[i].graph);
  /* and the subgraphs: one each, ascending, nested in the outer graph or
   * in one before them, found by their graph */
  FUZZ_CHECK(g.subgraph_count == 0 || g.subgraphs);
  for (size_t i = 0; i < g.subgraph_count; i++) {
    const tl_fx_subgraph *s = &g.subgraphs[i];
    sum += fuzz_touch(s->name);
    /* where its forward's body starts: at the very end of the text when
     * the text ends in `def forward(...):` (tree-sitter's missing body) */
    FUZZ_CHECK(s->graph > 0 && s->graph <= size);
    FUZZ_CHECK(i == 0 || g.subgraphs[i - 1].graph < s->graph);
    FUZZ_CHECK(s->parent != s->graph);
    FUZZ_CHECK(s->parent == 0 || tl_fx_subgraph_of(&g, s->parent));
    FUZZ_CHECK(s->name.len <= TL_FX_SUBGRAPH_NAME_MAX);
    FUZZ_CHECK(tl_fx_subgraph_of(&g, s->graph) == s);
    tl_buf_printf(dump, "subgraph %u %u %.*s\n", (unsigned)s->graph,
                  (unsigned)s->parent, (int)s->name.len, s->name.ptr);
  }
  sink = sum;
  tl_arena_free(&arena);
}

/* Also differential: the graph cut between forward's statements must give
 * exactly the nodes of one whole parse. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_chunked_equals_whole(analyze, data, size);
  return 0;
}
