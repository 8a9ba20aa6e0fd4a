/* fx_diff.h: two FX graphs (print_readable text) compared node by node, by
 * what each node is rather than by its name.
 *
 * Each node of the outer forward is read with tree-sitter: its name, its
 * op (the call's target, `torch.ops.aten.mul.Tensor`; `.sum` for a method
 * of another node, `linear.sum(-1)`, that node its first argument;
 * `placeholder` for a parameter; the expression's kind for anything else),
 * its annotation (`f32[s77, 16][16, 1]cpu`), its arguments, where a name of
 * another node is kept as a reference to that node, and its source: the
 * `# File:` comment print_readable writes above it (`m.py:10 in f, code: y
 * = x + 1`). The two node sequences are aligned by what the nodes are: the
 * most pairs of the same op, and of those alignments the one whose pairs
 * agree the most, each pair scoring 8 for the same source (file name,
 * function and code: not the folder nor the line number, which a line
 * inserted above moves), 4 for the same argument types (the types of the
 * nodes it takes, in order), 2 for the same type and 1 for the same name,
 * the last tie-break (a table of O(NM) cells after the twin nodes at both
 * ends are paired; past TL_FX_DIFF_MAX_CELLS, by op alone with Myers'
 * O((N+M)D) shortest edit script). An aligned pair is the same node when
 * its annotation and its arguments agree, the references compared through
 * the alignment, so `mul_3` in one graph and `mul_2` in the other are the
 * same node when they compute the same thing from the same nodes (renamed,
 * not changed). Nested subgraphs' nodes are not compared.
 */
#ifndef TL_FX_DIFF_H
#define TL_FX_DIFF_H

#include "analyze/analysis_cache.h"
#include "util/buf.h"

typedef enum tl_fx_change {
  TL_FX_SAME,    /* same op, annotation and arguments (perhaps renamed) */
  TL_FX_CHANGED, /* same op, other annotation or arguments */
  TL_FX_REMOVED, /* only in the earlier graph */
  TL_FX_ADDED    /* only in the later graph */
} tl_fx_change;

typedef struct tl_fx_side {
  tl_str name, op, type, text; /* text: the node's statement, in the graph */
  tl_str source; /* its `# File:` comment after `# File: `; empty if none */
  int line;      /* 1-based line in its graph text */
} tl_fx_side;

typedef struct tl_fx_row {
  tl_fx_change change;
  bool renamed;             /* TL_FX_SAME or CHANGED with another name */
  bool type_changed;        /* TL_FX_CHANGED: the annotation differs */
  bool args_changed;        /* TL_FX_CHANGED: the arguments differ */
  tl_fx_side before, after; /* name.ptr NULL where absent */
} tl_fx_row;

typedef struct tl_fx_diff {
  TL_VEC(tl_fx_row) rows; /* in graph order */
  size_t same, renamed, changed, removed, added;
  bool by_op_only; /* the middle past TL_FX_DIFF_MAX_CELLS: aligned by op
                      alone */
  bool too_large;  /* then an edit script past TL_FX_DIFF_MAX_EDITS: the
                      middle is reported as removed and added */
} tl_fx_diff;

enum {
  TL_FX_DIFF_MAX_EDITS = 2048,
  TL_FX_DIFF_MAX_CELLS = 4194304 /* (N + 1)(M + 1) of the scored table */
};

/* Compares graph texts `a` (earlier) and `b`; slices in rows point into
 * them or into `arena`. */
void tl_fx_diff_texts(tl_arena *arena, tl_str a, tl_str b, tl_fx_diff *out);
/* The same, each graph's nodes read once per `cache` (NULL: none): a text
 * compared before, as either side, is not parsed again. */
void tl_fx_diff_texts_cached(tl_arena *arena, tl_analysis_cache *cache,
                             tl_str a, tl_str b, tl_fx_diff *out);
void tl_fx_diff_free(tl_fx_diff *d);

#endif
