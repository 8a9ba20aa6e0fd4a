/* ts_query.h: a small layer over tree-sitter queries and trees, shared by
 * the Python analyzers (fx_graph.c, pycode.c) and the C++ analyzer
 * (cppcode.c). The analyzers read their trees by walks (tl_ts_walk,
 * tl_ts_children); queries remain for the Triton sources embedded in code.
 *
 * A query is compiled once from an embedded `.scm` resource and then run over
 * a node of a tree; matches are read by capture name. tree-sitter 0.20 leaves
 * text predicates to the client, so this module evaluates them:
 *   (#eq? @a "text") (#eq? @a @b) (#not-eq? @a "text")
 *   (#any-of? @a "x" "y" ...) (#not-any-of? @a "x" ...)
 *   (#prefix? @a "text") (#not-prefix? @a "text")   ; ours: starts-with
 * Any other predicate name is a bug in the query and aborts at compile time.
 * Compiled TSQuerys are cached for the whole run and shared by threads; the
 * iterator owns its TSQueryCursor and borrows the query, tree and text.
 * Long texts are parsed in chunks by ts_chunk.h.
 */
#ifndef TL_TS_QUERY_H
#define TL_TS_QUERY_H

#include <stdbool.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#include "util/buf.h"

const TSLanguage *tree_sitter_python(void);
const TSLanguage *tree_sitter_cpp(void);

typedef struct tl_ts_query {
  TSQuery *query;
  const char *name; /* resource name, for the one-line error on a bad query */
} tl_ts_query;

/* Compiles `source` (an embedded .scm file) for `lang`. A query that does not
 * compile is a bug of ours: prints one line naming `name` and the offset, and
 * aborts. */
void tl_ts_query_init(tl_ts_query *q, const TSLanguage *lang, tl_str source,
                      const char *name);
/* Compiled queries are cached for the run (shared by all threads); free only
 * forgets this handle. tl_ts_query_cache_free releases the cache at exit. */
void tl_ts_query_free(tl_ts_query *q);
void tl_ts_query_cache_free(void);
/* The id of capture `@name`, or UINT32_MAX when the query has none. */
uint32_t tl_ts_query_capture(const tl_ts_query *q, const char *name);

/* Iterates the matches of a query under `node` whose predicates hold.
 *
 *   tl_ts_iter it;
 *   tl_ts_iter_begin(&it, &q, root, text);
 *   while (tl_ts_iter_next(&it)) { TSNode n; if (tl_ts_iter_get(&it, id, &n))
 * ...} tl_ts_iter_end(&it);
 */
typedef struct tl_ts_iter {
  const tl_ts_query *q;
  TSQueryCursor *cursor;
  tl_str text;
  TSQueryMatch match;
} tl_ts_iter;

void tl_ts_iter_begin(tl_ts_iter *it, const tl_ts_query *q, TSNode node,
                      tl_str text);
bool tl_ts_iter_next(tl_ts_iter *it);
/* Pattern index of the current match (patterns count from 0 in file order). */
uint32_t tl_ts_iter_pattern(const tl_ts_iter *it);
/* First node captured as `capture` in the current match. */
bool tl_ts_iter_get(const tl_ts_iter *it, uint32_t capture, TSNode *out);
void tl_ts_iter_end(tl_ts_iter *it);

/* The ids of a named node type and of a field of `lang`, as a query names
 * them (0 when the grammar has none). */
TSSymbol tl_ts_symbol(const TSLanguage *lang, const char *name);
TSFieldId tl_ts_field(const TSLanguage *lang, const char *name);

/* Iterates the named children of `node` of one type under one field, the
 * nodes that a query's child step `field: (type)` matches; field 0 is any
 * field or none (a step without a field), type 0 any named type (`(_)`).
 * A query can then be one childless pattern, `(function_definition) @fn`,
 * whose parts C reads: tree-sitter analyzes every step with children of a
 * pattern against the grammar's parse table when the query compiles,
 * 10 to 80 M instructions each. Even a childless query costs 4 to 8 ms to
 * compile with the C++ grammar (under 1 ms with Python's), so no C++ query
 * is compiled at all: tl_ts_walk visits the nodes instead.
 *
 *   tl_ts_children ch;
 *   tl_ts_children_begin(&ch, node, field);
 *   for (TSNode c; tl_ts_children_next(&ch, type, &c);) ...
 *   tl_ts_children_end(&ch);
 */
typedef struct tl_ts_children {
  TSTreeCursor cursor;
  TSFieldId field;
  bool more;
} tl_ts_children;

void tl_ts_children_begin(tl_ts_children *ch, TSNode node, TSFieldId field);
bool tl_ts_children_next(tl_ts_children *ch, TSSymbol type, TSNode *out);
void tl_ts_children_end(tl_ts_children *ch);

/* Calls visit(node, ctx) for every node under `root` (itself included),
 * named or not, in document order: a pre-order walk with a tree cursor, no
 * recursion. The nodes a childless query pattern `(type) @x` matches are
 * those of that type, in the same order. The walk goes into a node's
 * children only when visit returns true: an analysis that knows which nodes
 * can hold what it reads skips the rest (an FX graph's forward sits in a
 * class body, never inside an expression). */
void tl_ts_walk(TSNode root, bool (*visit)(TSNode node, void *ctx), void *ctx);

/* Counts `bytes` of text handed to an analysis (what tree-sitter parses,
 * less the re-parsed embedded sources and repeated chunk headers); with
 * TLPARSE_STATS=1 in the environment, tl_ts_stats_print prints the
 * process's totals to stderr. */
void tl_ts_stats_parsed(size_t bytes);
/* The bytes counted so far (for tests). */
size_t tl_ts_stats_parsed_total(void);
/* With TLPARSE_STATS=1, every call into tree-sitter's parser is timed on
 * its thread's CPU clock: begin returns the clock (0 when the statistics
 * are off) and end adds the time since to the process's parse time, the
 * benchmark's parse floor (tests/bench/bench.py). */
uint64_t tl_ts_stats_parse_begin(void);
void tl_ts_stats_parse_end(uint64_t begun);
/* Parses counted so far, and their CPU time in nanoseconds (0 unless
 * TLPARSE_STATS=1). */
size_t tl_ts_stats_parse_count(void);
uint64_t tl_ts_stats_parse_ns(void);
/* With TLPARSE_STATS=1, prints one line to stderr: the bytes parsed, the
 * parse's CPU time and the number of parses (a --all-ranks-html child
 * prints its own). */
void tl_ts_stats_print(void);

/* Parses `text` with `lang`, restricted to `ranges` when count > 0 (node
 * positions stay in the coordinates of `text`). Returns NULL only when
 * tree-sitter refuses the language or the ranges; the caller deletes the tree
 * with ts_tree_delete. */
TSTree *tl_ts_parse(const TSLanguage *lang, tl_str text, const TSRange *ranges,
                    uint32_t count);

/* The bytes of `node` in `text` (empty when out of range). */
tl_str tl_ts_text(TSNode node, tl_str text);
/* 1-based line of the node's first byte / of its last byte. */
int tl_ts_first_line(TSNode node);
int tl_ts_last_line(TSNode node);

#endif
