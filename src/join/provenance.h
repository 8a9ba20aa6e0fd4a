/* provenance.h: the join stage. Given the texts of one view (one Inductor
 * compilation: pre-grad graph, post-grad graph, code, kernel code, node
 * mappings, kernel stack traces), runs the analyses and joins them through
 * the node mappings into the provenance JSON described in
 * docs/formats.md ("provenance_tracking_<dir>.json").
 *
 * The caller (emit) chooses which artifacts form a view and owns the texts;
 * this module never touches the file system.
 */
#ifndef TL_PROVENANCE_H
#define TL_PROVENANCE_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "analyze/analysis_cache.h"
#include "util/buf.h"

/* The texts of a view, for tl_prov_inputs.load and release. */
typedef enum tl_prov_text {
  TL_PROV_PRE,
  TL_PROV_POST,
  TL_PROV_CODE,
  TL_PROV_KERNEL_CODE,
  TL_PROV_MAPPINGS,
  TL_PROV_STACK_TRACES,
  TL_PROV_TEXTS /* how many */
} tl_prov_text;

/* What the index says of a view beside its link (tl_prov_inputs.summary). */
typedef struct tl_prov_summary {
  const char *mode;            /* "jit", "jit-cpp-wrapper" or "aot" (static) */
  size_t kernels;              /* kernels named by the node mappings */
  size_t kernels_called;       /* of them, those whose call the code shows */
  const char *no_links_reason; /* static, or NULL: a usable mapping */
} tl_prov_summary;

typedef struct tl_prov_inputs {
  const char *compile_dir; /* "-_0_0_0" */
  const char *compile_id;  /* "[0/0]" */
  bool aot;                /* AOT C++ wrapper instead of Python code */
  /* Texts; ptr NULL when the artifact is absent. */
  tl_str pre_graph, post_graph, code, kernel_code;
  tl_str node_mappings, stack_traces;
  /* Paths relative to the output folder of files holding the exact artifact
   * text, or NULL when absent. */
  const char *pre_path, *post_path, *code_path, *kernel_code_path;
  const char *mappings_path, *stack_traces_path;
  /* Or, when `load` is set, texts read only when needed and let go as soon
   * as they are used (the tl_str fields above are then ignored), so that a
   * huge compile's texts are never in memory all at once, nor with the
   * view's JSON: load(ctx, t) gives text t (ptr NULL: absent or not
   * readable), valid until release(ctx, t), which the build calls once for
   * each text it loaded and got, right after its analysis (the analyses'
   * results keep copies of the names they need), and never for one it did
   * not get. The FX graphs are loaded and released on a thread of their
   * own while the code is analyzed when the code is 1 MiB or more and a
   * graph's path is given: the callbacks must allow that. */
  tl_str (*load)(void *ctx, tl_prov_text t);
  void (*release)(void *ctx, tl_prov_text t);
  void *texts_ctx;
  /* When not NULL, filled by tl_provenance_write. */
  tl_prov_summary *summary;
  /* When not NULL, the FX graphs' and the code's analyses are looked up
   * here by their texts and kept here (analysis_cache.h): a text analyzed
   * for an earlier view, or by another rank, is not analyzed again. */
  tl_analysis_cache *cache;
} tl_prov_inputs;

/* Appends the view's JSON object to `out` as cJSON_Print lays it out,
 * written a section at a time (json_print.h), never a cJSON tree whole. A
 * view without a usable mapping still lists its artifacts and says why it
 * has no links in "no_links_reason". `malformed`, when not NULL, gets a copy
 * of its "malformed" list (the caller frees it with cJSON_Delete). */
void tl_provenance_write(const tl_prov_inputs *in, tl_buf *out,
                         cJSON **malformed);
/* The same JSON as a cJSON object (caller frees with cJSON_Delete); never
 * NULL. */
cJSON *tl_provenance_build(const tl_prov_inputs *in);

#endif
