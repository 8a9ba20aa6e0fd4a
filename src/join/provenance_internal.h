/* provenance_internal.h: what the two rooms of the join share, private to
 * join/: the view (the analyses' results, the kernels and the line pairs
 * found so far), which provenance.c fills from the texts and prints as JSON,
 * and the joins of provenance_join.c that fill its kernels and line pairs
 * from the node mappings' sections.
 */
#ifndef TL_PROVENANCE_INTERNAL_H
#define TL_PROVENANCE_INTERNAL_H

#include <cjson/cJSON.h>

#include "analyze/analysis.h"
#include "util/buf.h"

/* ---- small collections ------------------------------------------------ */

typedef struct pair {
  int from, to;
} pair;
typedef TL_VEC(pair) pair_vec;

typedef struct named_line {
  tl_str name;
  int line;
  tl_kernel_kind kind; /* call indexes only: */
  tl_str scope;        /* the call's (tl_call_site.scope) */
} named_line;
typedef TL_VEC(named_line) name_vec;

typedef TL_VEC(int) int_vec;
typedef TL_VEC(uint32_t) graph_vec; /* tl_fx_node.graph values */

typedef struct kernel {
  tl_str key, name;
  long long handle; /* -1: none */
  name_vec posts;   /* post node names (line unused) */
  TL_VEC(int) calls;
  /* The post-grad graphs of its cppCodeToPost names (context_of): which
   * definition of a name that several graphs define it means. */
  graph_vec context;
  bool has_context;
  /* The post-grad graphs of its calls' scopes, when the code names its
   * scopes after subgraphs (call_graph); else empty. */
  graph_vec call_graphs;
  /* Resolved once the joins are done (tl_pj_resolve_kernels). */
  const tl_kernel_def *def;
  tl_kernel_kind kind;
} kernel;

/* Key -> kernel index, open addressing; grows at half load. */
typedef struct kernel_table {
  TL_VEC(kernel) items;
  size_t *slots; /* index + 1; 0 = empty */
  size_t cap;
} kernel_table;

/* ---- the view --------------------------------------------------------- */

typedef struct calls_by {
  named_line *items; /* sorted by name */
  size_t count;
} calls_by;

typedef struct view {
  tl_arena arena;
  tl_arena graph_arena; /* the FX graphs' results (filled by another thread) */
  tl_fx_graph pre, post;
  tl_code_analysis code;
  calls_by by_name, by_handle;
  const tl_kernel_def **defs; /* sorted by name, kernel-code bodies first */
  bool v2;
  name_vec pre_names, post_names; /* every name the mapping mentions */
  kernel_table kernels;
  pair_vec pre_to_post, post_to_pre, code_to_post, post_to_code;
  pair_vec kernel_to_post, post_to_kernel;
  cJSON *malformed; /* mapping entries of the wrong type, skipped */
  /* "node_definitions" pre and post, built while the graphs' tables are
   * here (definitions_json) */
  cJSON *definitions[2];
  graph_vec context; /* scratch of the joins */
  int_vec lines_a, lines_b;
  /* The post-grad subgraphs that the code has a scope of, sorted by name
   * (index_lifted). */
  const tl_fx_subgraph **lifted;
  size_t lifted_count;
} view;

/* The call, definition and subgraph indexes, once the analyses are done. */
void tl_pj_index(view *v);
/* The joins of the mapping's sections (NULL: absent), each pairing lines
 * and finding kernels; entries of the wrong type are reported in
 * v->malformed and skipped. */
void tl_pj_join_graphs(view *v, const cJSON *map, bool from_pre);
void tl_pj_join_code_to_post(view *v, const cJSON *code_to_post);
void tl_pj_join_post_to_code(view *v, const cJSON *post_to_code);
/* The kernel of `key`, created with its call lines when new. */
kernel *tl_pj_kernel_of(view *v, tl_str key);
/* Each kernel's definition and kind, once every kernel is known. */
void tl_pj_resolve_kernels(view *v);
/* Sorts by name and drops repeated names (keeping one). */
void tl_pj_unique_names(name_vec *v);
/* "a string", "a number", ... "a list": what a JSON value is, in words. */
const char *tl_pj_json_type_name(const cJSON *j);
/* Records a mapping entry of the wrong type, which the join skips:
 * {"section": "preToPost", "key": "relu", "problem": "..."}; `problem` is
 * a format with one %s, given `type`. */
void tl_pj_malformed_type(view *v, const char *section, const char *key,
                          const char *problem, const char *type);

#endif
