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

#include "buf.h"

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
  /* Called, when set, once the texts above are read for the last time
   * (before the view's JSON is built), so that the caller may release
   * them: a huge compile's texts and JSON need not be in memory at once. */
  void (*texts_read)(void *ctx);
  void *texts_ctx;
} tl_prov_inputs;

/* Returns the view's JSON object (caller frees with cJSON_Delete). Never
 * NULL: a view without a usable mapping still lists its artifacts and says
 * why it has no links in "no_links_reason". */
cJSON *tl_provenance_build(const tl_prov_inputs *in);

#endif
