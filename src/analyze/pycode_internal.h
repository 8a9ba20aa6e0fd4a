/* pycode_internal.h: what the walk of JIT Python output code (pycode.c)
 * collects, chunk by chunk, and hands to the pass that resolves it
 * (pycode_resolve.c): the kernel definitions, the calls, the handle
 * comments, the functions' spans and the strings that may hold a
 * cpp_wrapper=True module's C++. Private to analyze/.
 */
#ifndef TL_PYCODE_INTERNAL_H
#define TL_PYCODE_INTERNAL_H

#include "analyze/analysis.h"
#include "analyze/ts_query.h"

typedef struct raw_call {
  tl_str name;
  tl_kernel_kind kind; /* TL_KERNEL_UNKNOWN: a kernel name to look up */
  uint32_t start, end; /* bytes of the call expression */
  int line;
} raw_call;

typedef struct handle {
  tl_str key, name; /* `name:handle`, and name = key before its last ':' */
  uint32_t start, end;
} handle;

typedef struct span {
  uint32_t start, end;
  tl_str name;   /* a function's */
  size_t parent; /* the function around it (an index), SIZE_MAX for none;
                    set once the spans are sorted (resolve_calls) */
} span;

typedef TL_VEC(tl_kernel_def) def_vec;
typedef TL_VEC(raw_call) call_vec;
typedef TL_VEC(handle) handle_vec;
typedef TL_VEC(span) span_vec;
typedef TL_VEC(tl_embedded) embedded_vec;

/* A module-level string that may hold the C++ wrapper of a cpp_wrapper=True
 * module (read in the module node), or what `load_pybinding(main_code=...)`
 * names (read in a call node). */
typedef struct cpp_string {
  tl_str name;    /* the name assigned, or named by main_code= */
  TSRange body;   /* between the quotes (empty for a name main_code= gives) */
  uint32_t at;    /* first byte of the assignment or of the call */
  uint32_t value; /* load: first byte of the main_code= value; the first
                     load is the one whose value comes first */
  bool load;      /* from load_pybinding */
} cpp_string;
typedef TL_VEC(cpp_string) cpp_string_vec;

typedef struct collected {
  def_vec defs;
  call_vec calls;
  handle_vec handles;
  span_vec functions;
  embedded_vec embedded;
  cpp_string_vec strings;
  int entry_first, entry_last; /* lines of `def call` (its tree is gone) */
  uint32_t entry_start;        /* and its first byte */
  bool have_entry;
  /* The string bodies the parse left out (tl_ts_python_long_strings), as
   * pairs [start, end), ascending; kept across chunks. */
  const uint32_t *left_out;
  size_t left_out_count;
} collected;

/* The kind a kernel's name says (triton_*, cpp_*, ...). */
tl_kernel_kind tl_pycode_kind_from_name(tl_str name);

/* After the walk: the names copied into the arena in text order, the calls
 * of known kernels kept (the rest dropped) and sorted, the functions' spans
 * one each with their parents, and `out->scopes`. */
void tl_pycode_resolve(collected *c, tl_arena *arena, tl_str text,
                       tl_code_analysis *out);

/* The innermost function (of the sorted spans `fns`) around byte `pos`, or
 * NULL. */
const span *tl_pycode_function_of(const span *fns, size_t n, uint32_t pos);

/* Binds each handle comment to the call it names (sites[i] is call i). */
void tl_pycode_bind_handles(collected *c, tl_call_site *sites);

#endif
