/* ts_query.h: a small layer over tree-sitter queries, shared by the Python
 * analyzers (fx_graph.c, pycode.c) and the C++ analyzer (cppcode.c).
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
 * The chunker (below) parses a long text a few definitions at a time, so the
 * analyzers' memory follows the largest definition, not the text.
 */
#ifndef TL_TS_QUERY_H
#define TL_TS_QUERY_H

#include <stdbool.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#include "buf.h"

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
/* Whether the query of `source` is compiled and cached already. */
bool tl_ts_query_is_compiled(const TSLanguage *lang, tl_str source);
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

/* Parses `text` with `lang`, restricted to `ranges` when count > 0 (node
 * positions stay in the coordinates of `text`). Returns NULL only when
 * tree-sitter refuses the language or the ranges; the caller deletes the tree
 * with ts_tree_delete. */
TSTree *tl_ts_parse(const TSLanguage *lang, tl_str text, const TSRange *ranges,
                    uint32_t count);

/* ---- chunked parsing ----------------------------------------------------
 * A long code text is parsed one chunk at a time, so that only one chunk's
 * syntax tree is alive: memory follows the largest top-level definition, not
 * the whole text (a 57 MB AOT wrapper's tree alone was 740 MB). A scanner per
 * language lists the offsets where a top-level definition or statement
 * begins; the chunker groups whole definitions into chunks of about
 * tl_ts_chunk_limit bytes and parses each over an included range, so node
 * positions (bytes, rows, columns) stay those of the whole text.
 *
 *   tl_ts_chunker ch;
 *   bool restart;
 *   tl_ts_chunker_begin(&ch, tree_sitter_cpp(), text, tl_ts_cpp_cuts);
 *   for (TSTree *t; (t = tl_ts_chunker_next(&ch, &restart));) {
 *     if (restart) ...forget what earlier chunks gave...
 *     ...run the queries on t, keep bytes and lines, never TSNodes...
 *     ts_tree_delete(t);
 *   }
 *   tl_ts_chunker_end(&ch);
 */
typedef TL_VEC(uint32_t) tl_ts_cuts;

/* Scanners: fill `cuts` with the offsets (ascending, each in (0, len)) where
 * a top-level item of the text begins (C++: after the `;` or `}` that ends
 * the one before; Python: at the start of its line), and return true. They
 * understand only what can hide an item's end: comments, string and character
 * literals, brackets (and for C++ raw strings, preprocessor lines and #if
 * nesting; for Python triple-quoted strings, line continuations and clauses
 * such as `else:` and decorators that continue a statement). When unsure
 * (unbalanced brackets, an unterminated comment or literal, a NUL byte) they
 * return false with no cuts: the caller then parses the text whole, as before.
 * Total: any bytes in, linear time. */
bool tl_ts_cpp_cuts(tl_str text, tl_ts_cuts *cuts);
bool tl_ts_python_cuts(tl_str text, tl_ts_cuts *cuts);
/* An FX graph as print_readable writes it, and only that shape: one
 * top-level `class ...:` whose body is one `def forward(...):`, whose body
 * statements sit at indentation 8 (deeper lines are theirs). Fills `fwd`
 * (the first body statement's line, and the bytes between the parentheses
 * of `forward(...)`) and sets `cuts` to the starts of the other statements'
 * lines. False, with no cuts, for any other shape or when unsure. */
typedef struct tl_ts_forward {
  uint32_t body;                     /* line start of the first statement */
  uint32_t params_start, params_end; /* after `(`, at the matching `)` */
} tl_ts_forward;
bool tl_ts_python_forward_cuts(tl_str text, tl_ts_cuts *cuts,
                               tl_ts_forward *fwd);

/* The size a chunk grows to, in bytes (1 MiB). One item larger than this is
 * one chunk. Read when a chunker begins; tests set it small to cut at every
 * item, or SIZE_MAX to parse whole. */
extern size_t tl_ts_chunk_limit;

typedef struct tl_ts_chunker {
  TSParser *parser; /* owned; reused for every chunk */
  tl_str text;
  tl_ts_cuts cuts; /* none: parse the text whole */
  size_t limit, next_cut;
  uint32_t start; /* the next chunk's first byte and its point */
  TSPoint point;
  TSRange head[2]; /* head every chunk after the first (count 0: none) */
  uint32_t head_count;
  bool strict; /* any syntax error, not only a top-level one, gives up */
  bool whole, done;
  size_t chunks; /* trees returned so far (for tests) */
} tl_ts_chunker;

/* Scans `text` with `scan` (unless it fits in one chunk) and prepares the
 * first chunk. */
void tl_ts_chunker_begin(tl_ts_chunker *c, const TSLanguage *lang, tl_str text,
                         bool (*scan)(tl_str, tl_ts_cuts *));
/* Parses the next chunk and returns its tree (the caller deletes it), or
 * NULL when the text is done or tree-sitter refused the language or range.
 * A chunk that does not parse as a run of top-level items (its root or one
 * of its items is an ERROR or MISSING node) makes the chunker give up
 * splitting: it returns the tree of the whole text with *restart set, and
 * the caller forgets what earlier chunks gave. Errors recovered inside an
 * item (a macro call with no `;`) do not count. */
TSTree *tl_ts_chunker_next(tl_ts_chunker *c, bool *restart);
/* As tl_ts_chunker_begin with the cuts of an FX graph's forward already
 * found (taken over: the chunker frees them): every chunk after the first
 * is parsed after the header lines (`class ...:` and `def forward(...):`
 * with the parameters left out, a signature can be megabytes), so that
 * its statements parse where they sit. Such chunks give up on any syntax
 * error. */
void tl_ts_chunker_begin_nested(tl_ts_chunker *c, const TSLanguage *lang,
                                tl_str text, tl_ts_cuts cuts,
                                tl_ts_forward fwd);
void tl_ts_chunker_end(tl_ts_chunker *c);

/* The bytes of `node` in `text` (empty when out of range). */
tl_str tl_ts_text(TSNode node, tl_str text);
/* 1-based line of the node's first byte / of its last byte. */
int tl_ts_first_line(TSNode node);
int tl_ts_last_line(TSNode node);

#endif
