/* profile_join_internal.h: what the join's two rooms share, private to
 * profile/: the view's kernels as the join reads them, and their index by
 * the name the trace gives them, with which profile_match.c finds the
 * view's graphs (step 1) and the kernels of each event (step 2), and
 * profile_join.c spreads the times (step 3).
 */
#ifndef TL_PROFILE_JOIN_INTERNAL_H
#define TL_PROFILE_JOIN_INTERNAL_H

#include <string.h>

#include "profile/profile_join.h"
#include "profile/profile_map.h"

typedef struct vkernel {
  const char *key;
  char *pname; /* the name the trace gives its events */
  bool is_extern;
  TL_VEC(int) calls;
  TL_VEC(const char *) post;
  int kernel_def; /* first line of a definition in kernel_code, or 0 */
  double ns;      /* attributed */
  uint64_t count;
  int shared_by;
  TL_VEC(double) per_call; /* ns of each call (graph call, or activity) */
  size_t base;             /* per_call index of the graph being read */
} vkernel;

static inline bool starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Does the trace's graph hold any event of an Inductor kernel of `kind`
 * ("cpp": cpp_*, "triton": triton_*)? */
static inline bool graph_has(const tl_prof_graph *g, const char *prefix) {
  for (size_t i = 0; i < g->slots.count; i++)
    if (!g->slots.items[i].is_extern && starts(g->slots.items[i].name, prefix))
      return true;
  return false;
}

typedef TL_VEC(const tl_prof_graph *) graph_list;

/* The view's kernels by the name the trace gives them: a hash table of the
 * names (profile_map.h), and per name its kernels and their call lines. */
typedef struct line_kernel {
  int line;
  size_t kernel;
} line_kernel;

typedef struct name_info {
  bool is_extern;
  TL_VEC(size_t) kernels;
  TL_VEC(line_kernel) at; /* (call line, kernel), ascending, distinct */
  TL_VEC(size_t) lines;   /* where each distinct line starts in `at` */
  size_t seen;            /* stamp of the last graph that ran it */
} name_info;

typedef struct name_index {
  tl_strtab tab;
  TL_VEC(name_info) info;
  size_t inductor, externs; /* distinct names of each kind */
} name_index;

/* Indexes the view's `nk` kernels by their names in the trace. */
void tl_prof_index_names(name_index *ix, const vkernel *ks, size_t nk);
void tl_prof_free_names(name_index *ix);
/* Step 1: the graphs of the view (all files) into `out`, their evidence
 * into `match`; or why there are none (NULL: found; else a reason, perhaps
 * written in buf), *ambiguous when several graphs tie. */
const char *tl_prof_choose_graphs(const tl_profile *p, name_index *ix,
                                  const char *cid,
                                  const tl_profile_view_facts *facts,
                                  graph_list *out, cJSON *match,
                                  bool *ambiguous, char *buf, size_t size);
/* Step 2: the kernels at the call line of the `occ`-th event named `name`
 * (*n_out of them, indices in *out). Returns the line, 0 for kernels
 * without call lines, -1 when nothing matches. */
int tl_prof_call_of(const name_index *ix, const char *name, uint32_t occ,
                    size_t *out, size_t *n_out);

#endif
