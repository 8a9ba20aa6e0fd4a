/* profile_view.h: what the profile join (profile_join.h) needs to know of a
 * provenance view beyond its JSON, read from the compile folder's files in
 * the output folder:
 *  - its phase, from the parameters of its post-grad graph's forward:
 *    AOTAutograd names a training graph's inputs primals_<n> and the
 *    backward's incoming gradients tangents_<n>; an inference graph's are
 *    arg<n>_<m> (torch/_functorch/_aot_autograd). A sample:
 *      def forward(self, primals_3: "f32[32, 64]...", ..., tangents_1: ...)
 *  - the model line of each pre-grad graph line, from the graph's
 *    `# File: model.py:34 in forward, code: ...` comments;
 *  - its FX graph cache key, the "key" of the first fx_graph_cache_miss /
 *    _hit / _bypass artifact logged after its node mappings and before the
 *    next view's (torch 2.13 logs it when the compilation ends), which the
 *    trace names in "## Call CompiledFxGraph <key> ##".
 * Sits between the store (its artifacts) and the join; reads three files
 * (the pre-grad graph whole, the post-grad graph's first MiB, the cache
 * artifact); the facts own their tables (tl_profile_view_facts_free).
 */
#ifndef TL_PROFILE_VIEW_H
#define TL_PROFILE_VIEW_H

#include <stddef.h>

#include "profile/profile_join.h"
#include "store/store.h"

/* Fills `facts` for the view whose node mappings are `mappings` (an element
 * of dir->artifacts, or NULL) and whose post-grad graph is `post` (or
 * NULL); `aot` views are inference. Unknown facts stay unknown
 * (phase -1, key ""). `out_dir` is the output folder. */
void tl_profile_view_facts_read(const char *out_dir, const tl_compile_dir *dir,
                                const tl_artifact *mappings,
                                const tl_artifact *pre, const tl_artifact *post,
                                bool aot, tl_profile_view_facts *facts);

/* The model line of each line of a pre-grad graph's text: the
 * `# File: <path>:<line> in <fn>, code: <code>` comment above it (to the
 * next such comment or blank line), into facts->pre_source and
 * facts->sources. Exposed for tests. */
void tl_profile_pre_sources(const char *text, size_t len,
                            tl_profile_view_facts *facts);

/* The phase named by a post-grad graph's text (its first `def forward(`
 * line): TL_PROF_BACKWARD, TL_PROF_FORWARD, TL_PROF_INFERENCE, or -1 when
 * the text has no forward. Exposed for tests. */
int tl_profile_phase_of_graph(const char *text, size_t len);

#endif
