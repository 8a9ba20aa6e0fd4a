/* kernel_diff.h: the kernels of two compiles matched by the post-grad nodes
 * they come from, so that a renumbered kernel (`triton_poi_fused_add_0`
 * then `_1`) is no change.
 *
 * A kernel is one key of a compile's node mappings
 * (`inductor_provenance_tracking_node_mappings`, `cppCodeToPost`:
 * `cpp_fused_add_mul_0:1` -> ["add", "mul"]), or, in a compile logged
 * without them, one kernel the output code defines (no nodes). Its fused
 * ops are its name without Inductor's running number (`cpp_fused_add_mul`),
 * its code the text of its definition. Two kernels pair when the nodes of
 * one, carried through the post-grad graphs' alignment (fx_diff.h), are
 * those of the other, else when they share the most nodes, else (no nodes
 * in common) when their fused ops and kind agree, in the code's order. A pair
 * is the same kernel when its nodes, fused ops and code (its own name left out)
 * agree; else changed.
 */
#ifndef TL_KERNEL_DIFF_H
#define TL_KERNEL_DIFF_H

#include "diff/fx_diff.h"
#include "util/buf.h"

typedef struct tl_kernel_item {
  tl_str key;  /* as the mapping spells it ("cpp_fused_add_0:1"), else the
                  name */
  tl_str name; /* "cpp_fused_add_0", "extern_kernels.addmm" */
  tl_str kind; /* "cpp", "triton", "extern", ... (provenance-json.md) */
  tl_str code; /* its definition's text, empty when none (extern) */
  int first;   /* the definition's first line in its file, 0 when none */
  int last;    /* and its last */
  tl_str file; /* "code" or "kernel_code", empty when none */
  const tl_str *nodes; /* post-grad node names, in mapping order */
  size_t node_count;
} tl_kernel_item;

/* The fused ops of a kernel: its name without the `_<digits>` Inductor
 * appends to a generated kernel (triton, cpp, combo, template). */
tl_str tl_kernel_fused_ops(const tl_kernel_item *k);

typedef enum tl_kernel_change {
  TL_KERNEL_SAME,    /* same nodes, fused ops and code (perhaps renamed) */
  TL_KERNEL_CHANGED, /* paired, but nodes, fused ops or code differ */
  TL_KERNEL_REMOVED, /* only in the earlier compile */
  TL_KERNEL_ADDED    /* only in the later one */
} tl_kernel_change;

typedef struct tl_kernel_row {
  tl_kernel_change change;
  bool renamed;       /* paired, under another name */
  bool nodes_changed; /* paired, their nodes (through the alignment) differ */
  bool ops_changed;   /* paired, their fused ops differ */
  bool code_changed;  /* paired, their code differs (names aside) */
  long before, after; /* indices into a and b; -1 where absent */
  /* code_changed: the first line that differs, as lines of each file
   * (0: past the end of that side's code), and its texts. */
  int before_line, after_line;
  tl_str before_text, after_text;
} tl_kernel_row;

typedef struct tl_kernel_diff {
  TL_VEC(tl_kernel_row)
  rows; /* paired and added in b's order, then the
           removed in a's */
  size_t same, renamed, changed, removed, added;
} tl_kernel_diff;

/* Compares kernels `a` (earlier) with `b`; `post`, the two post-grad
 * graphs' alignment, carries a's node names to b's (NULL: a name is the
 * same node on both sides). O((n + m) log(n + m)) in the kernels and their
 * nodes. */
void tl_kernel_diff_run(const tl_kernel_item *a, size_t na,
                        const tl_kernel_item *b, size_t nb,
                        const tl_fx_diff *post, tl_kernel_diff *out);
void tl_kernel_diff_free(tl_kernel_diff *d);

/* One row of two kernels' code compared line by line. */
typedef enum tl_code_op {
  TL_CODE_SAME,    /* a line of both (names aside), shown around a change */
  TL_CODE_REMOVED, /* only in the earlier kernel's code */
  TL_CODE_ADDED,   /* only in the later one's */
  TL_CODE_GAP      /* unchanged lines left out */
} tl_code_op;

typedef struct tl_code_row {
  tl_code_op op;
  int before, after; /* lines of each file; 0 where absent */
  tl_str text;       /* the line (the later kernel's for TL_CODE_SAME) */
} tl_code_row;

typedef TL_VEC(tl_code_row) tl_code_rows;

enum {
  TL_CODE_DIFF_CONTEXT = 2,        /* unchanged lines kept around a change */
  TL_CODE_DIFF_MAX_ROWS = 200,     /* rows of one kernel's diff at most */
  TL_CODE_DIFF_MAX_CELLS = 1 << 22 /* lines(x) * lines(y) compared at most */
};

/* The lines of `x`'s and `y`'s code that differ (each side's own kernel
 * name read as one), in order, a longest common subsequence of the lines
 * kept, with TL_CODE_DIFF_CONTEXT unchanged lines around each change and a
 * gap row for the others. False, with nothing appended, when the codes are
 * too long to compare (their line counts' product over
 * TL_CODE_DIFF_MAX_CELLS); `*cut` is set when rows past
 * TL_CODE_DIFF_MAX_ROWS were left out. Slices point into the items. */
bool tl_kernel_code_diff(const tl_kernel_item *x, const tl_kernel_item *y,
                         tl_code_rows *out, bool *cut);

/* How a compile's code outside its kernels is read to compare it with
 * another's: each word of the later side's code that names a kernel paired
 * under another name read as its partner's name, and each buffer (`buf12`)
 * as its rank of first use on its side (counted over the texts keyed, in
 * order). */
typedef struct tl_code_words {
  tl_str *names, *as; /* sorted by name: the later side's renamed kernels */
  size_t count;
  TL_VEC(tl_str) buffers; /* buf<N> names in order of first use */
} tl_code_words;

/* For the earlier side (`later` false: buffers only) or the later one, of
 * kernels `ka` and `kb` compared as `kernels`. */
void tl_code_words_init(tl_code_words *w, const tl_kernel_item *ka,
                        const tl_kernel_item *kb, const tl_kernel_diff *kernels,
                        bool later);
/* Appends `text` to `out` read so. */
void tl_code_words_key(tl_code_words *w, tl_buf *out, tl_str text);
void tl_code_words_free(tl_code_words *w);

/* The same for the entry functions of two compiles' output code (`call`,
 * `run_impl`, `inductor_entry_impl`: texts `a` and `b`, whose first lines
 * are lines `a_first` and `b_first` of their files), each word of `b` that
 * names a kernel `kernels` pairs with one of `ka` (renamed) read as that
 * kernel's name, and the buffers (`buf12`) of each side read by their
 * order of first use, so that renumbered kernels and buffers are no
 * change. A buffer's rank is counted over the lines in order, so a buffer
 * first used on a changed line may shift the names of later lines. */
bool tl_entry_code_diff(tl_str a, int a_first, tl_str b, int b_first,
                        const tl_kernel_item *ka, const tl_kernel_item *kb,
                        const tl_kernel_diff *kernels, tl_code_rows *out,
                        bool *cut);

#endif
