/* analysis_cache.h: identical texts analyzed once. A cache of the results
 * of the analyses (analysis.h) keyed by the analyzed text itself: a 64-bit
 * hash of the text finds an entry, and the entry's own copy of the text,
 * compared byte for byte, decides, so two texts whose hashes collide are
 * two entries' worth of misses, never one's result given for the other.
 * Recompiles and repeated graphs log the same FX graph or code in views
 * that differ elsewhere; ranks of one job log the same graphs.
 *
 * The cache holds at most `bound` bytes (each entry's text, its result
 * serialized, and a small overhead) and lets the least recently used
 * entries go to stay under it; a text whose entry alone would take more
 * than a quarter of the bound is never kept (tl_analysis_cache_wants). A
 * result is copied into the caller's arena on a hit, so it outlives the
 * entry. A result put for a text kept already replaces the kept one, so an
 * entry rejected on a get (damaged) is mended by the next put. Threads may
 * share one cache (a mutex guards it).
 *
 * With a folder (tl_analysis_cache_share), each entry is also written there
 * as one file, and a miss in memory looks for that file: forked processes
 * (the --all-ranks-html rank children) share their analyses through it.
 * The folder belongs to the caller, who removes it.
 */
#ifndef TL_ANALYSIS_CACHE_H
#define TL_ANALYSIS_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/analysis.h"
#include "util/buf.h"

/* Which analysis a result is of: the same text analyzed as an FX graph and
 * as Python code gives two entries. */
typedef enum tl_analysis_kind {
  TL_ANALYSIS_FX,      /* tl_fx_analyze */
  TL_ANALYSIS_PYCODE,  /* tl_pycode_analyze */
  TL_ANALYSIS_CPPCODE, /* tl_cppcode_analyze (before tl_cppkernels_analyze) */
  TL_ANALYSIS_FX_DIFF_GRAPH,   /* fx_diff.c's nodes of a graph (a blob) */
  TL_ANALYSIS_CODE_REST_UNITS, /* code_rest.c's units of a code (a blob) */
  TL_ANALYSIS_KINDS
} tl_analysis_kind;

typedef struct tl_analysis_cache tl_analysis_cache;

/* What a cache did, for tests and TLPARSE_STATS. */
typedef struct tl_analysis_cache_stats {
  size_t hits, misses;
  size_t collisions; /* hashes equal, texts not: counted as misses too */
  size_t evictions;  /* entries let go to stay under the bound */
  size_t replaced;   /* results put again for a text kept already */
  size_t entries, bytes;
  size_t shared_hits; /* of the hits, read from the shared folder */
} tl_analysis_cache_stats;

/* A cache of at most `bound` bytes. `hash` is the text's hash (NULL: the
 * cache's own, tl_analysis_text_hash); a test gives one that collides. */
tl_analysis_cache *tl_analysis_cache_new(size_t bound,
                                         uint64_t (*hash)(tl_str text));
void tl_analysis_cache_free(tl_analysis_cache *cache);
/* Also keep entries as files in `folder` (an existing folder, the caller's)
 * and look there on a miss. */
void tl_analysis_cache_share(tl_analysis_cache *cache, const char *folder);

/* The default bound of a run's cache. */
enum { TL_ANALYSIS_CACHE_BOUND = 16u << 20 };

/* Whether a text of `len` bytes can be kept (a NULL cache wants none): the
 * caller skips hashing a text the cache would not keep. */
bool tl_analysis_cache_wants(const tl_analysis_cache *cache, size_t len);

/* On a hit, fills *out with a copy of the result in `arena` (every name in
 * the arena, none in `text`) and returns true. */
bool tl_analysis_cache_get_fx(tl_analysis_cache *cache, tl_str text,
                              tl_arena *arena, tl_fx_graph *out);
bool tl_analysis_cache_get_code(tl_analysis_cache *cache, tl_analysis_kind kind,
                                tl_str text, tl_arena *arena,
                                tl_code_analysis *out);
/* Keeps a copy of `text` and of its result (names may point into the text
 * or anywhere else: they are copied). */
void tl_analysis_cache_put_fx(tl_analysis_cache *cache, tl_str text,
                              const tl_fx_graph *graph);
void tl_analysis_cache_put_code(tl_analysis_cache *cache, tl_analysis_kind kind,
                                tl_str text, const tl_code_analysis *code);

/* A result that its maker serializes itself (kinds marked "a blob"): on a
 * hit, appends the blob kept for (kind, text) to `out` and returns true;
 * put keeps a copy of `text` and of the blob's `len` bytes. */
bool tl_analysis_cache_get_blob(tl_analysis_cache *cache, tl_analysis_kind kind,
                                tl_str text, tl_buf *out);
void tl_analysis_cache_put_blob(tl_analysis_cache *cache, tl_analysis_kind kind,
                                tl_str text, const void *blob, size_t len);

tl_analysis_cache_stats tl_analysis_cache_stats_of(tl_analysis_cache *cache);

/* The cache's hash of a text (64 bits, 8 bytes at a time). */
uint64_t tl_analysis_text_hash(tl_str text);

#endif
