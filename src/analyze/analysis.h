/* analysis.h: what the tree-sitter analyses (analyze stage) find in the four
 * provenance artifacts, and what the join (provenance.c) reads.
 *
 *   tl_fx_analyze        FX graph text (pre-grad or post-grad panel)
 *   tl_pycode_analyze    JIT Python output code (with embedded Triton / C++)
 *   tl_cppcode_analyze   AOTInductor C++ wrapper code
 *   tl_cppkernels_analyze AOTInductor kernel-code artifact (cpp_fused_* bodies)
 *   tl_cppwrapper_analyze the C++ inside a cpp_wrapper=True JIT module
 *
 * Analyzers are total: any bytes give a (possibly empty) result. All line
 * numbers are 1-based lines of the analyzed text. Every tl_str in a result
 * either points into the analyzed text or into the arena passed in; results
 * live as long as both. Arrays are allocated in the arena.
 */
#ifndef TL_ANALYSIS_H
#define TL_ANALYSIS_H

#include "util/buf.h"

/* One FX node and the line that defines it (placeholders: the line of
 * `def forward(...)` or the export `;` placeholder line). */
typedef struct tl_fx_node {
  tl_str name;
  int line;
  uint32_t graph; /* 0 the outer forward, else the byte where the body of
                     a nested one starts (in text order) */
} tl_fx_node;

/* A subgraph class nested in the graph's class (a torch.cond branch, an
 * invoke_subgraph body), or in another subgraph's. */
typedef struct tl_fx_subgraph {
  uint32_t graph;  /* its tl_fx_node.graph */
  uint32_t parent; /* the graph of the class it is nested in (0: the outer) */
  tl_str name;     /* its class names from the outermost subgraph down,
                      joined by `_` (`true_graph_0_false_graph_0`): the name
                      Inductor gives the function it lifts the subgraph into
                      (GraphLowering.qualify_name); len 0 when over
                      TL_FX_SUBGRAPH_NAME_MAX bytes */
} tl_fx_subgraph;
enum { TL_FX_SUBGRAPH_NAME_MAX = 1024 };
/* The name of subgraph `own` nested in the one named `*outer` (NULL: in the
 * outer graph), as Inductor qualifies it: `outer_own`, in the arena; empty
 * when `own` or `*outer` is, when longer than TL_FX_SUBGRAPH_NAME_MAX, or
 * when longer than `*budget`, the bytes the names of one text may still
 * take (tl_subgraph_budget), which it lowers: a nesting that the text makes
 * deep and wide cannot make the names many times the text. */
tl_str tl_subgraph_name(tl_arena *arena, const tl_str *outer, tl_str own,
                        size_t *budget);
/* What the qualified names of a text of `len` bytes may take in all. */
static inline size_t tl_subgraph_budget(size_t len) { return len + 65536; }

typedef struct tl_fx_graph {
  /* Sorted by name (tl_str_cmp). A name repeats only when several graphs
   * define it: the outer forward and the subgraph classes nested in its
   * class, one definition each, the outer graph's first, then text order. */
  tl_fx_node *nodes;
  size_t node_count;
  /* Sorted by graph (by where each starts in the text). */
  tl_fx_subgraph *subgraphs;
  size_t subgraph_count;
} tl_fx_graph;

void tl_fx_analyze(tl_arena *arena, tl_str text, tl_fx_graph *out);
/* Returns the first defining line of `name`, or 0 when the graph has none. */
int tl_fx_lookup(const tl_fx_graph *graph, tl_str name);
/* Every definition of `name` (see tl_fx_graph): the first of `*count`
 * consecutive nodes, or NULL and 0. */
const tl_fx_node *tl_fx_definitions(const tl_fx_graph *graph, tl_str name,
                                    size_t *count);
/* The subgraph whose tl_fx_node.graph is `id`, or NULL (the outer graph,
 * or none). */
const tl_fx_subgraph *tl_fx_subgraph_of(const tl_fx_graph *graph, uint32_t id);

typedef enum tl_kernel_kind {
  TL_KERNEL_TRITON,   /* async_compile.triton / call_triton_* launcher */
  TL_KERNEL_COMBO,    /* Triton kernel dispatching sub-kernels on pid */
  TL_KERNEL_TEMPLATE, /* triton_tem_* and other template kernels */
  TL_KERNEL_CPP,      /* cpp_fused_* (cpp_pybinding or AOT kernel code) */
  TL_KERNEL_EXTERN,   /* extern_kernels.* */
  TL_KERNEL_FALLBACK, /* torch.ops.* */
  TL_KERNEL_SHIM,     /* aoti_torch_* C shim */
  TL_KERNEL_UNKNOWN
} tl_kernel_kind;

const char *tl_kernel_kind_name(tl_kernel_kind kind);

typedef enum tl_code_file {
  TL_CODE_MAIN,   /* the output code or the AOT wrapper ("code") */
  TL_CODE_KERNELS /* the AOT kernel-code artifact ("kernel_code") */
} tl_code_file;

/* Whether the Triton source in bytes [start, end) of `text` can be a combo
 * kernel at all: both combo patterns (grammars/queries/pycode_triton.scm)
 * need the word `combo_grid_meta`, or both `pid` and `elif`. A cheap filter
 * that spares re-parsing the source of every ordinary kernel. */
bool tl_triton_may_be_combo(tl_str text, uint32_t start, uint32_t end);

/* "code" or "kernel_code", as the provenance JSON names the files. */
const char *tl_code_file_name(tl_code_file file);

/* Where a kernel is defined: the async_compile block, the call_triton_*
 * launcher, or the cpp_fused_* body. */
typedef struct tl_kernel_def {
  tl_str name; /* pure kernel name, as the mapping spells it */
  tl_kernel_kind kind;
  tl_code_file file;
  int first, last;
} tl_kernel_def;

/* One statement that calls a kernel. */
typedef struct tl_call_site {
  tl_str name; /* pure kernel name as the mapping spells it:
                  `triton_poi_fused_mul_1` for both `k.run(...)` and
                  `call_triton_poi_fused_mul_1(...)`,
                  `extern_kernels.mm`, `torch.ops.aten.view.default`,
                  `aoti_torch_cuda_mm_out`, `cpp_fused_gelu_1` */
  tl_kernel_kind kind;
  int line;          /* line of the call expression's first byte */
  tl_str handle_key; /* `name:handle` of the `[Provenance debug handles]`
                        comment bound to this call; len 0 when none */
  tl_str scope;      /* where the call is, as Inductor names a subgraph's
                        code (GraphLowering.qualify_name): the innermost
                        Python `def` holding it (`call`,
                        `true_graph_0_false_graph_0`, a subgraph lifted
                        into a function), or in C++ the `// subgraph: NAME`
                        blocks around it, names joined outer to inner by
                        `_` (Inductor inlines a subgraph there); len 0 when
                        none */
} tl_call_site;

/* A kernel source embedded in the code text (Triton inside '''...''' or C++
 * inside a cpp_pybinding string or a launcher comment). */
typedef struct tl_embedded {
  tl_code_file file;
  int first, last;
  const char *language; /* "python" or "cpp" (highlight.js names) */
} tl_embedded;

typedef struct tl_code_analysis {
  tl_kernel_def *defs;
  size_t def_count;
  tl_call_site *calls; /* in text order */
  size_t call_count;
  tl_embedded *embedded;
  size_t embedded_count;
  tl_str *scopes; /* the calls' possible scopes (the Python `def`s, the C++
                     subgraph blocks), sorted, one each */
  size_t scope_count;
  int entry_first, entry_last; /* `call` / `run_impl` /
                                  `inductor_entry_impl` body; 0 if absent */
  /* JIT code of cpp_wrapper=True: the kernels are called from the C++
   * wrapper source that a Python string holds (see tl_cppwrapper_analyze). */
  bool cpp_wrapper;
} tl_code_analysis;

void tl_pycode_analyze(tl_arena *arena, tl_str text, tl_code_analysis *out);
void tl_cppcode_analyze(tl_arena *arena, tl_str text, tl_code_analysis *out);
/* Whether tl_cppcode_analyze and tl_cppwrapper_analyze leave out of the
 * parse the functions they can read nothing from (src/analyze/cppcode.c,
 * "functions left unparsed"); true, tests set it false to compare. */
extern bool tl_cppcode_skip_bodies;
/* Appends the kernel-code artifact's definitions (file TL_CODE_KERNELS) to
 * an analysis already filled by tl_cppcode_analyze. */
void tl_cppkernels_analyze(tl_arena *arena, tl_str text,
                           tl_code_analysis *inout);
/* The C++ wrapper source held in bytes [start, end) of a Python module
 * (`cpp_wrapper_src = (r"""...""")`, which torch's cpp_wrapper=True JIT
 * code loads with CppWrapperCodeCache.load_pybinding): as
 * tl_cppcode_analyze over those bytes only (entry `inductor_entry_impl`),
 * plus the `cpp_fused_*` bodies there as definitions in the main code.
 * Lines are those of the whole text; definitions sorted by line. */
void tl_cppwrapper_analyze(tl_arena *arena, tl_str text, uint32_t start,
                           uint32_t end, tl_code_analysis *out);

#endif
