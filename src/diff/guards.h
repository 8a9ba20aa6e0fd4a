/* guards.h: the guard tree Dynamo logs for a compile (`dynamo_cpp_guards_str`)
 * read into its leaf guards, and two compiles' guards compared.
 *
 * The text (torch/_dynamo/guards.py, GuardManager's debug string) is a tree:
 *   TREE_GUARD_MANAGER:
 *   +- RootGuardManager
 *   | +- GLOBAL_STATE: ___check_global_state() against {...}
 *   | +- GuardManager: source=L['x'], accessed_by=..., type=<class ...>
 *   | | +- TENSOR_MATCH: check_tensor(L['x'], ..., size=[4, 16], ...)  # y =
 * f(x)  # m.py:3 in f Each `| ` is a level; a leaf is `KIND: code`, its comment
 * (after two spaces and `#`) the user's line; its source is that of the nearest
 * GuardManager above it.
 */
#ifndef TL_GUARDS_H
#define TL_GUARDS_H

#include "util/buf.h"

typedef struct tl_guard {
  tl_str kind;    /* "TENSOR_MATCH" */
  tl_str source;  /* "L['x']", or empty at the root */
  tl_str code;    /* "check_tensor(L['x'], ...)" */
  tl_str comment; /* the user line it guards, or empty */
} tl_guard;

typedef TL_VEC(tl_guard) tl_guards;

/* Reads the leaf guards of `text`, in text order; slices point into it. */
void tl_guards_read(tl_str text, tl_guards *out);

typedef enum tl_guard_change {
  TL_GUARD_REMOVED, /* only in the earlier compile */
  TL_GUARD_ADDED,   /* only in the later one */
  TL_GUARD_CHANGED  /* the one guard of its kind on its source, both sides */
} tl_guard_change;

typedef struct tl_guard_diff_item {
  tl_guard_change change;
  const tl_guard *before, *after; /* NULL where absent */
} tl_guard_diff_item;

typedef TL_VEC(tl_guard_diff_item) tl_guard_diff;

/* The guards of `a` and `b` that differ: a guard with the same kind, source
 * and code on both sides is the same (comments aside, and the numbers
 * Dynamo gives the globals it installs, `___1` and `___7`); where one source
 * has one guard of a kind on each side with other code, that is one change; the
 * rest are removed or added. In the order of `b`, then `a`'s removed. Sorting
 * makes it O(n log n). */
void tl_guards_diff(const tl_guards *a, const tl_guards *b, tl_guard_diff *out);

#endif
