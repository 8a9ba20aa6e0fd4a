/* code_rest.h: the output code of two compiles outside their kernels and
 * entry functions (module-level constants and imports, helper functions
 * such as `benchmark_compiled_module`, the AOT C++ wrapper's declarations
 * and functions besides `run_impl`), compared statement by statement.
 *
 * The code is read with tree-sitter (Python for JIT output code, C++ for
 * the AOT wrapper). Its units are the module's statements (the AOT
 * wrapper's top-level declarations, with namespaces and `extern "C" {}`
 * blocks read into their members); a unit holding a kernel definition or
 * the entry function is read into when it is a class or namespace, its C++
 * source strings read with the C++ grammar when it holds one (cpp_wrapper
 * code's `cpp_wrapper_src`), else left out whole. A unit is compared by its
 * tokens, comments left out, each word read as tl_code_words reads it (renamed
 * kernels as their partners, buffers by rank of first use), so renumbered
 * kernels and buffers are no change. The two unit sequences are aligned by a
 * longest common subsequence; between two aligned pairs, a removed and an added
 * unit of the same name (a function, an assigned name, a declarator, a
 * macro, an included path; of any kind) are one unit changed, its lines
 * compared as the entry functions' are.
 */
#ifndef TL_CODE_REST_H
#define TL_CODE_REST_H

#include "analyze/analysis_cache.h"
#include "diff/kernel_diff.h"

typedef enum tl_unit_change {
  TL_UNIT_CHANGED, /* same name, other tokens */
  TL_UNIT_REMOVED,
  TL_UNIT_ADDED
} tl_unit_change;

typedef struct tl_code_unit {
  tl_str kind;     /* the tree-sitter node type: function_definition ... */
  tl_str name;     /* its name, empty when it has none */
  tl_str text;     /* its text */
  int first, last; /* its lines in the code */
} tl_code_unit;

typedef TL_VEC(tl_code_unit) tl_code_units;

typedef struct tl_unit_row {
  tl_unit_change change;
  long before, after; /* indices into the units; -1 where absent */
} tl_unit_row;

typedef struct tl_code_rest {
  tl_code_units a, b; /* each side's units, in order */
  TL_VEC(tl_unit_row)
  rows; /* the units that differ, in the later code's
           order (a removed unit where it was) */
  size_t same, changed, removed, added;
  bool compared;  /* false: too many units to align (their counts' product
                     past TL_CODE_DIFF_MAX_CELLS) */
  tl_arena arena; /* the kinds of units read back from the cache */
} tl_code_rest;

/* Compares codes `a` (earlier) and `b` (C++ when `cpp`), leaving out the
 * lines of the kernels of `ka` and `kb` defined in them (file "code") and
 * of the entry functions (lines a_entry..a_entry_last; 0: none); `kernels`
 * pairs the kernels. Slices point into the codes. With a `cache`, each
 * code's units are read once (a compile is the later side of one
 * comparison and the earlier of the next; ranks log the same code). */
void tl_code_rest_diff(tl_str a, tl_str b, bool cpp, const tl_kernel_item *ka,
                       size_t na, const tl_kernel_item *kb, size_t nb,
                       int a_entry, int a_entry_last, int b_entry,
                       int b_entry_last, const tl_kernel_diff *kernels,
                       tl_analysis_cache *cache, tl_code_rest *out);
void tl_code_rest_free(tl_code_rest *r);

#endif
