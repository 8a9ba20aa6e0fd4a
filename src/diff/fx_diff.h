/* fx_diff.h: two FX graphs (print_readable text) compared node by node, by
 * what each node is rather than by its name.
 *
 * Each node of the outer forward is read with tree-sitter: its name, its
 * op (the call's target, `torch.ops.aten.mul.Tensor`; `placeholder` for a
 * parameter; the expression's kind for anything else), its annotation
 * (`f32[s77, 16][16, 1]cpu`) and its arguments, where a name of another
 * node is kept as a reference to that node. The two op sequences are
 * aligned (a shortest edit script, Myers' O((N+M)D) algorithm, after the
 * common ends are taken off); an aligned pair is the same node when its
 * annotation and its arguments agree, the references compared through the
 * alignment, so `mul_3` in one graph and `mul_2` in the other are the same
 * node when they compute the same thing from the same nodes (renamed, not
 * changed). Nested subgraphs' nodes are not compared.
 */
#ifndef TL_FX_DIFF_H
#define TL_FX_DIFF_H

#include "util/buf.h"

typedef enum tl_fx_change {
  TL_FX_SAME,    /* same op, annotation and arguments (perhaps renamed) */
  TL_FX_CHANGED, /* same op, other annotation or arguments */
  TL_FX_REMOVED, /* only in the earlier graph */
  TL_FX_ADDED    /* only in the later graph */
} tl_fx_change;

typedef struct tl_fx_side {
  tl_str name, op, type, text; /* text: the node's statement, in the graph */
  int line;                    /* 1-based line in its graph text */
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
  bool too_large; /* an edit script past TL_FX_DIFF_MAX_EDITS: the middle
                     is reported as removed and added */
} tl_fx_diff;

enum { TL_FX_DIFF_MAX_EDITS = 2048 };

/* Compares graph texts `a` (earlier) and `b`; slices in rows point into
 * them or into `arena`. */
void tl_fx_diff_texts(tl_arena *arena, tl_str a, tl_str b, tl_fx_diff *out);
void tl_fx_diff_free(tl_fx_diff *d);

#endif
