/* recompile_parts.h: the parts of a recompile diff beyond the reasons,
 * guards and graphs (recompiles.h assembles them; docs/recompile-json.md):
 * the kernels matched by the nodes they come from, the compilation metrics
 * side by side, and the summary at the top.
 */
#ifndef TL_RECOMPILE_PARTS_H
#define TL_RECOMPILE_PARTS_H

#include <cjson/cJSON.h>

#include "analyze/analysis_cache.h"
#include "diff/compile_files.h"
#include "diff/fx_diff.h"

/* The "kernels" object: each compile's kernels read through `files`
 * (compile_kernels.h, its analyses through `cache`, or NULL) and matched
 * (kernel_diff.h), `post` carrying the earlier compile's post-grad node
 * names to the later's (NULL: by name). */
cJSON *tl_recompile_kernels_json(tl_compile_reader *files,
                                 const tl_compile_files *a,
                                 const tl_compile_files *b,
                                 const tl_fx_diff *post,
                                 tl_analysis_cache *cache);

/* The "metrics" object: the compile times and counts of both compiles'
 * compilation_metrics, each with its difference. */
cJSON *tl_recompile_metrics_json(const tl_compile_files *a,
                                 const tl_compile_files *b);

/* Fills `summary` from the rest of `diff`: the nodes of the last graph
 * compared both sides (post-grad, else pre-grad, else Dynamo's), the
 * kernels, the whole frame's compile time, and the inputs of the Dynamo
 * graph whose shapes changed, in words. */
void tl_recompile_summarize(const cJSON *diff, cJSON *summary);

#endif
