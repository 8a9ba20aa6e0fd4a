/* cppcode_internal.h: what the rooms of the AOT C++ analysis share, private
 * to analyze/: the wrapper walk's state (raw calls, handle comments, entries,
 * sites, definitions, embedded Triton, subgraph marks), filled by cppcode.c;
 * the functions it leaves out of the parse (cppcode_skips.c), its handle
 * comments' binding (cppcode_handles.c), the Triton source of its launcher
 * comments (cppcode_launchers.c) and the kernel bodies (cppcode_kernels.c).
 */
#ifndef TL_CPPCODE_INTERNAL_H
#define TL_CPPCODE_INTERNAL_H

#include <string.h>

#include "analyze/analysis.h"
#include "analyze/ts_chunk.h"
#include "analyze/ts_query.h"

/* The kind a kernel's name says (its prefix; `ns::name` is extern). */
tl_kernel_kind tl_cpp_kind_of_name(tl_str name);

static inline bool is_triton_family(tl_kernel_kind kind) {
  return kind == TL_KERNEL_TRITON || kind == TL_KERNEL_TEMPLATE ||
         kind == TL_KERNEL_COMBO;
}

static inline bool node_is(TSNode n, const char *type) {
  return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

/* How a call expression was written. */
enum call_form {
  FORM_PLAIN,  /* name(...) */
  FORM_LAUNCH, /* launchKernel(kernels.name, ...): callee is `name` */
  FORM_SHIM    /* AOTI_TORCH_ERROR_CODE_CHECK(name(...)): the inner call */
};

/* A call with a plain identifier callee, kernel or not: the candidates for
 * call sites and for the debug-handle comments. */
typedef struct raw_call {
  tl_str callee;
  uint32_t byte;
  int line;
  enum call_form form;
} raw_call;

/* `// [Provenance debug handles] <key>`; `end` is the comment's last byte,
 * `limit` the end of the function holding it. */
typedef struct handle_comment {
  tl_str key, pure;
  uint32_t end, limit;
} handle_comment;

typedef struct byte_range {
  uint32_t start, end;
} byte_range;

typedef struct site {
  tl_call_site call;
  uint32_t byte;
} site;

typedef struct def {
  tl_kernel_def def;
  uint32_t byte;
} def;

typedef struct embedded {
  tl_embedded emb;
  uint32_t byte;
} embedded;

/* A `// subgraph: NAME` comment among a block's statements. The C++
 * wrappers inline a subgraph's code in the caller's after such a comment
 * (cpp_wrapper_cpu.py codegen_subgraph), NAME the subgraph's own name; its
 * code runs to the next such comment among the same block's statements, or
 * to the block's end: `if (pred) { // subgraph: true_graph_0 ... }`, and a
 * while_loop's `while (1) { // subgraph: cond_fn_0 ... // subgraph:
 * body_fn_0 ... }`. */
typedef struct subgraph_mark {
  uint32_t block, block_end; /* the block's first byte and its end */
  uint32_t at;               /* the comment's first byte */
  tl_str name;
} subgraph_mark;

/* The code of one subgraph: bytes [start, end) (from its mark). */
typedef struct subgraph_region {
  uint32_t start, end;
  tl_str name;
} subgraph_region;

/* Launcher comments, kept as ranges: their chunk's tree is gone by the time
 * they are scanned. */
typedef TL_VEC(TSRange) range_vec;

typedef struct state {
  tl_str text;
  TL_VEC(raw_call) raws;
  TL_VEC(handle_comment) handles;
  TL_VEC(byte_range) entries;
  TL_VEC(site) sites;
  TL_VEC(def) defs;
  TL_VEC(embedded) embedded;
  TL_VEC(tl_str) decls; /* extern "C" declared names */
  TL_VEC(subgraph_mark) marks;
} state;

static inline def *find_def(state *s, tl_str name) {
  for (size_t i = 0; i < s->defs.count; i++)
    if (tl_str_eq(s->defs.items[i].def.name, name))
      return &s->defs.items[i];
  return NULL;
}

/* The cpp grammar's ids that the reads by field compare with. */
typedef struct cpp_syms {
  TSSymbol identifier, qualified_identifier, function_declarator,
      compound_statement, declaration, comment, call_expression,
      field_expression, field_identifier, function_definition,
      linkage_specification, argument_list;
  TSFieldId declarator, body, name, function, argument, field, arguments;
} cpp_syms;

cpp_syms tl_cpp_syms_get(void);

/* ---- cppcode_skips.c ---------------------------------------------------- */

typedef TL_VEC(uint32_t) skip_vec; /* [start, end) pairs */

/* What the wrapper's parse leaves out, and where in it a call could be
 * (a function's own name, before its first `(`, is none). */
typedef struct skip_plan {
  skip_vec parse, calls;
} skip_plan;

/* What of the chunker's region the analysis may leave out, cut into items
 * as the chunker cuts them. */
void tl_cpp_skips_of(const tl_ts_chunker *ch, skip_plan *skips);
/* Did a function left out (`calls`: where calls could be in what was left
 * out) hold something the analysis turned out to need? */
bool tl_cpp_skipped_names_needed(const state *s, const skip_vec *calls);

/* Orders sites by byte (bsearch and sort of state.sites). */
int tl_cpp_cmp_site(const void *pa, const void *pb);

/* Is `call_<name>` the launcher of a Triton kernel `name`? True when the
 * wrapper defines that launcher or the name is a Triton one; sets its kind. */
bool tl_cpp_is_launched(state *s, tl_str name, tl_kernel_kind *kind);

/* ---- cppcode_handles.c -------------------------------------------------- */

/* Parses `// [Provenance debug handles] <key>` into its key and pure name
 * (the key without a trailing `:<digits>`); false for any other comment. */
bool tl_cpp_parse_handle_comment(tl_str c, tl_str *key, tl_str *pure);

/* The end byte of the function definition around `node`, or `text_end`
 * when it is outside any function: how far a handle comment reaches. */
uint32_t tl_cpp_enclosing_function_end(TSNode node, uint32_t text_end);

/* Binds s->handles.items[index] to the first call of its pure name after
 * it in the same function, before the next comment with the same pure
 * name; s->raws sorted by byte, s->sites too (kept sorted). */
void tl_cpp_bind_handle(state *s, size_t index);

/* ---- cppcode_launchers.c ------------------------------------------------ */

/* Records the Triton source in a launcher's block comment as embedded
 * Python, and marks its kernel combo when the source says so (q: the
 * cpp_triton.scm query). */
void tl_cpp_scan_launcher_comment(state *s, const tl_ts_query *q,
                                  TSRange comment);

/* The same scans on a second thread, while the wrapper is still read: each
 * chunk's launcher comments are offered as its walk finds them (the scan
 * reads the text alone); finish scans what is left on both threads and
 * joins; then tl_cpp_launchers_scan records a comment's finds, or scans
 * it here when it was not offered. Freed without finish (a pass dropped),
 * the comments not yet taken are left unscanned. NULL (everything here) on
 * one core. */
typedef struct tl_cpp_launchers tl_cpp_launchers;
tl_cpp_launchers *tl_cpp_launchers_new(tl_str text);
void tl_cpp_launchers_offer(tl_cpp_launchers *p, const TSRange *comments,
                            size_t count);
void tl_cpp_launchers_finish(tl_cpp_launchers *p);
void tl_cpp_launchers_scan(tl_cpp_launchers *p, state *s, const tl_ts_query *q,
                           TSRange comment);
void tl_cpp_launchers_free(tl_cpp_launchers *p);

/* ---- cppcode_kernels.c -------------------------------------------------- */

/* The kernel bodies in bytes [start, end) of `text`, as definitions in
 * `file`: each replaces the declaration of its name in the main code. */
void tl_cpp_kernel_bodies(tl_arena *arena, tl_str text, uint32_t start,
                          uint32_t end, tl_code_file file,
                          tl_code_analysis *inout);

#endif
