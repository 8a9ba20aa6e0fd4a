/* profile_join.h: joins a profile summary (profile_reader.h) with one
 * provenance view (the JSON of provenance.h) into the view's "profile"
 * object: which compiled graph of the trace the view is, the time of each
 * kernel, post-grad and pre-grad node, code line and user source line, and
 * how the graph's profiled total splits into Inductor kernels, extern
 * kernels and unknown (docs/provenance-json.md, "profile").
 *
 * Reads only the view JSON and the summary; both stay owned by the caller.
 */
#ifndef TL_PROFILE_JOIN_H
#define TL_PROFILE_JOIN_H

#include <cjson/cJSON.h>

#include "profile/profile_summary.h"
#include "util/buf.h"

/* A model line: "file:line" and its code. */
typedef struct tl_prof_source {
  char *key, *code;
} tl_prof_source;

/* What the join knows of a view beyond its JSON (profile_view.h). */
typedef struct tl_profile_view_facts {
  int phase;     /* tl_prof_phase, or -1: unknown */
  char key[128]; /* FX graph cache key, or "": unknown */
  /* The model line of each pre-grad graph line (index: line; value:
   * index into `sources` + 1, 0: none), from the graph's `# File:`
   * comments. Owned; tl_profile_view_facts_free frees them. */
  TL_VEC(int) pre_source;
  TL_VEC(tl_prof_source) sources;
} tl_profile_view_facts;

void tl_profile_view_facts_free(tl_profile_view_facts *facts);

/* Returns the "profile" object for `view` (caller frees). Never NULL: a view
 * that matches no graph, or several, says so in "match", with the evidence.
 * `facts` may be NULL (phase and key unknown). */
cJSON *tl_profile_join(const tl_profile *p, const cJSON *view,
                       const tl_profile_view_facts *facts);

/* `s` as a JSON string, repaired to valid UTF-8 where it is not (a path or
 * name the profile gave); the caller owns it. */
cJSON *tl_prof_valid_string(const char *s);

#endif
