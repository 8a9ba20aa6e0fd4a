/* shape_words.h: two FX annotations of one value said as what changed in
 * words, so that a dynamic recompile reads "dim 0 became dynamic (4 ->
 * s77)" rather than as two types.
 *
 * An annotation is `<dtype>[<sizes>][<strides>]<device>` as FX prints it
 * (`f32[s77, 16][16, 1]cpu`), or `Sym(s77)`. A size that is an integer is
 * static; any other (a symbol or an expression of symbols, or `None` in a
 * tensor guard) dynamic.
 */
#ifndef TL_SHAPE_WORDS_H
#define TL_SHAPE_WORDS_H

#include "util/buf.h"

/* Appends what changed from `before` to `after` (plain text, not escaped;
 * `->` between values), clauses joined by "; ": the dtype, the rank, each
 * dimension whose size changed (became dynamic, became static, or from one
 * size to another), else the strides or the device. False, with nothing
 * appended, when neither reads as a tensor annotation or nothing differs. */
bool tl_shape_change_words(tl_buf *out, tl_str before, tl_str after);

/* The same for two codes of a tensor guard, `check_tensor(L['x'], Tensor,
 * DispatchKeySet(...), torch.float32, device=None, requires_grad=False,
 * size=[4, 16], stride=[16, 1])`, whose `size=[None, 16]` says that
 * dimension 0 is dynamic: the arguments compared in order, and what
 * differs said as above (the dtype, `device`, `requires_grad`, `size`
 * per dimension, else `stride`). False, with nothing appended, when either
 * is no such call or none of those differ. */
bool tl_guard_shape_words(tl_buf *out, tl_str before, tl_str after);

#endif
