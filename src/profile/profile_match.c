/* profile_match.c: which graph of a profile is a view's, and which call an
 * event is (steps 1 and 2 of profile_join.c). The trace's graphs are
 * judged by compile id, phase, graph key and how many of the view's kernel
 * names they ran; one best graph or the view says "ambiguous" or
 * "unmatched", with the evidence of each candidate.
 */
#include <stdio.h>
#include <stdlib.h>

#include "profile/profile_join_internal.h"

static const char *phase_name(tl_prof_phase p) {
  switch (p) {
  case TL_PROF_INFERENCE:
    return "inference";
  case TL_PROF_FORWARD:
    return "forward";
  case TL_PROF_BACKWARD:
    return "backward";
  }
  return "?";
}

static int cmp_line_kernel(const void *a, const void *b) {
  const line_kernel *x = a, *y = b;
  if (x->line != y->line)
    return (x->line > y->line) - (x->line < y->line);
  return (x->kernel > y->kernel) - (x->kernel < y->kernel);
}

void tl_prof_index_names(name_index *ix, const vkernel *ks, size_t nk) {
  for (size_t k = 0; k < nk; k++) {
    int32_t id = tl_strtab_intern(&ix->tab, ks[k].pname, strlen(ks[k].pname));
    if ((size_t)id == ix->info.count) {
      name_info ni = {0};
      ni.is_extern = true;
      TL_VEC_PUSH(ix->info, ni);
    }
    name_info *ni = &ix->info.items[id];
    ni->is_extern = ni->is_extern && ks[k].is_extern;
    TL_VEC_PUSH(ni->kernels, k);
    for (size_t c = 0; c < ks[k].calls.count; c++) {
      line_kernel lk = {ks[k].calls.items[c], k};
      TL_VEC_PUSH(ni->at, lk);
    }
  }
  for (size_t i = 0; i < ix->info.count; i++) {
    name_info *ni = &ix->info.items[i];
    tl_sort(ni->at.items, ni->at.count, sizeof(line_kernel), cmp_line_kernel);
    size_t distinct = 0;
    for (size_t j = 0; j < ni->at.count; j++) {
      const line_kernel *x = &ni->at.items[j];
      if (distinct && ni->at.items[distinct - 1].line == x->line &&
          ni->at.items[distinct - 1].kernel == x->kernel)
        continue;
      if (!distinct || ni->at.items[distinct - 1].line != x->line)
        TL_VEC_PUSH(ni->lines, distinct);
      ni->at.items[distinct++] = *x;
    }
    ni->at.count = distinct;
    if (ni->is_extern)
      ix->externs++;
    else
      ix->inductor++;
  }
}

void tl_prof_free_names(name_index *ix) {
  for (size_t i = 0; i < ix->info.count; i++) {
    TL_VEC_FREE(ix->info.items[i].kernels);
    TL_VEC_FREE(ix->info.items[i].at);
    TL_VEC_FREE(ix->info.items[i].lines);
  }
  TL_VEC_FREE(ix->info);
  tl_strtab_free(&ix->tab);
}

/* How one graph of the trace compares with the view. */
typedef struct verdict {
  size_t found_i, found_e; /* distinct Inductor / extern names it ran */
  bool cid_ok, phase_ok, key_ok, key_same, names_ok, ok;
} verdict;

static verdict judge(const tl_prof_graph *g, size_t gi, name_index *ix,
                     const char *cid, const tl_profile_view_facts *facts) {
  verdict v = {0};
  for (size_t s = 0; s < g->slots.count; s++) {
    const char *name = g->slots.items[s].name;
    int32_t id = tl_strtab_find(&ix->tab, name, strlen(name));
    if (id < 0 || ix->info.items[id].seen == gi + 1)
      continue;
    ix->info.items[id].seen = gi + 1;
    if (ix->info.items[id].is_extern)
      v.found_e++;
    else
      v.found_i++;
  }
  v.cid_ok = !g->compile_id || strcmp(g->compile_id, cid) == 0;
  v.phase_ok = !facts || facts->phase < 0 || (int)g->phase == facts->phase;
  v.key_same = facts && facts->key[0] && strcmp(g->key, facts->key) == 0;
  v.key_ok = !facts || !facts->key[0] || v.key_same;
  /* The rule: more than half of the view's distinct Inductor kernel names
   * (extern names when it has none). */
  v.names_ok = ix->inductor ? 2 * v.found_i > ix->inductor
                            : ix->externs && 2 * v.found_e > ix->externs;
  v.ok = v.cid_ok && v.phase_ok && v.key_ok && (v.names_ok || v.key_same);
  return v;
}

static const char *phase_name_i(int phase) {
  return phase < 0 ? "unknown" : phase_name((tl_prof_phase)phase);
}

/* The evidence of one graph: names found and expected, the checks. */
static cJSON *evidence(const tl_profile *p, const tl_prof_graph *g,
                       const verdict *v, const name_index *ix) {
  cJSON *c = cJSON_CreateObject();
  cJSON_AddStringToObject(c, "graph_key", g->key);
  cJSON_AddStringToObject(c, "phase", phase_name(g->phase));
  if (g->compile_id)
    cJSON_AddStringToObject(c, "compile_id", g->compile_id);
  else
    cJSON_AddNullToObject(c, "compile_id");
  cJSON_AddItemToObject(c, "file",
                        tl_prof_valid_string(p->files.items[g->file].path));
  cJSON_AddNumberToObject(c, "kernel_names_found", (double)v->found_i);
  cJSON_AddNumberToObject(c, "kernel_names_expected", (double)ix->inductor);
  cJSON_AddNumberToObject(c, "extern_names_found", (double)v->found_e);
  cJSON_AddNumberToObject(c, "extern_names_expected", (double)ix->externs);
  cJSON_AddBoolToObject(c, "phase_agrees", v->phase_ok);
  cJSON_AddBoolToObject(c, "graph_key_agrees", v->key_ok);
  return c;
}

/* The names of the view that graph `gi` (judged last) did not run, the
 * first `max` of them, Inductor kernels first. */
static cJSON *missing_names(const name_index *ix, size_t gi, size_t max) {
  cJSON *list = cJSON_CreateArray();
  size_t n = 0;
  for (int ext = 0; ext < 2; ext++)
    for (size_t i = 0; i < ix->info.count && n < max; i++)
      if (ix->info.items[i].is_extern == (bool)ext &&
          ix->info.items[i].seen != gi + 1) {
        cJSON_AddItemToArray(list, cJSON_CreateString(ix->tab.items.items[i]));
        n++;
      }
  return list;
}

/* Step 1: the graphs of the view (all files), or why there are none. The
 * rule (docs/provenance-json.md, "Which graph is this view"): a graph of
 * the trace is this view's when its compile id agrees (where the trace
 * names one), its phase agrees (where the view's is known), its graph key
 * agrees (where the view's is known), and it ran more than half of the
 * view's distinct Inductor kernel names, or has the view's graph key. */
const char *tl_prof_choose_graphs(const tl_profile *p, name_index *ix,
                                  const char *cid,
                                  const tl_profile_view_facts *facts,
                                  graph_list *out, cJSON *match,
                                  bool *ambiguous, char *buf, size_t size) {
  enum { MAX_CANDIDATES = 16, MAX_MISSING = 10 };
  *ambiguous = false;
  cJSON *cands = cJSON_AddArrayToObject(match, "candidates");
  verdict *vs = tl_xcalloc(p->graphs.count + 1, sizeof *vs);
  size_t best = SIZE_MAX, closest = SIZE_MAX;
  double best_score = -1, closest_score = -1;
  for (size_t i = 0; i < p->graphs.count; i++) {
    const tl_prof_graph *g = p->graphs.items[i];
    vs[i] = judge(g, i, ix, cid, facts);
    const verdict *v = &vs[i];
    double score = (v->key_same ? 1e12 : 0) + (double)v->found_i * 1e6 +
                   (double)v->found_e;
    if (v->ok && score > best_score) {
      best = i;
      best_score = score;
    }
    double near = score + (v->cid_ok ? 4e12 : 0) + (v->phase_ok ? 2e12 : 0);
    if (near > closest_score) {
      closest = i;
      closest_score = near;
    }
    if ((v->found_i || v->found_e || v->key_same) &&
        cJSON_GetArraySize(cands) < MAX_CANDIDATES)
      cJSON_AddItemToArray(cands, evidence(p, g, v, ix));
  }
  cJSON_AddNumberToObject(match, "kernel_names_expected", (double)ix->inductor);
  cJSON_AddNumberToObject(match, "extern_names_expected", (double)ix->externs);
  cJSON_AddStringToObject(match, "view_phase",
                          phase_name_i(facts ? facts->phase : -1));
  if (facts && facts->key[0])
    cJSON_AddStringToObject(match, "view_graph_key", facts->key);
  else
    cJSON_AddNullToObject(match, "view_graph_key");
  if (best == SIZE_MAX) {
    if (!ix->inductor && !ix->externs) {
      free(vs);
      cJSON_AddNumberToObject(match, "kernel_names_found", 0);
      cJSON_AddNumberToObject(match, "extern_names_found", 0);
      return "this view has no kernels to time";
    }
    if (!p->graphs.count) {
      free(vs);
      cJSON_AddNumberToObject(match, "kernel_names_found", 0);
      cJSON_AddNumberToObject(match, "extern_names_found", 0);
      return "the profile has no compiled graph call (no \"## Call "
             "CompiledFxGraph\" event) and no AOTInductor kernel event";
    }
    const tl_prof_graph *g = p->graphs.items[closest];
    const verdict *v = &vs[closest];
    judge(g, closest, ix, cid, facts); /* stamps for missing */
    cJSON_AddNumberToObject(match, "kernel_names_found", (double)v->found_i);
    cJSON_AddNumberToObject(match, "extern_names_found", (double)v->found_e);
    cJSON_AddItemToObject(match, "missing",
                          missing_names(ix, closest, MAX_MISSING));
    if (!v->cid_ok)
      snprintf(buf, size,
               "no graph call of compile id %s in the profile (the closest, "
               "%.60s, ran %zu of %zu kernel names)",
               cid, g->key, v->found_i, ix->inductor);
    else if (!v->phase_ok)
      snprintf(buf, size,
               "this view is the %s graph, and the profile's graph that ran "
               "most of its kernel names (%zu of %zu, %.60s) is the %s graph",
               phase_name_i(facts->phase), v->found_i, ix->inductor, g->key,
               phase_name(g->phase));
    else if (!v->key_ok)
      snprintf(buf, size,
               "this view's graph key is %.60s, the profile's closest graph "
               "is %.60s (%zu of %zu kernel names)",
               facts->key, g->key, v->found_i, ix->inductor);
    else
      snprintf(buf, size,
               "%zu of %zu Inductor kernel names (%zu of %zu extern) of this "
               "view occur in the profile's closest graph (%.60s, %s); more "
               "than half must%s",
               v->found_i, ix->inductor, v->found_e, ix->externs, g->key,
               phase_name(g->phase),
               graph_has(g, "cpp_") || graph_has(g, "triton_")
                   ? ""
                   : " (that graph has no Inductor kernel event: on CPU "
                     "record with torch._inductor.config.cpp."
                     "enable_kernel_profile = True; on GPU with "
                     "ProfilerActivity.CUDA)");
    free(vs);
    return buf;
  }
  const tl_prof_graph *first = p->graphs.items[best];
  const char *reason = NULL;
  for (size_t i = 0; i < p->graphs.count; i++) {
    const verdict *v = &vs[i];
    const tl_prof_graph *g = p->graphs.items[i];
    double score = (v->key_same ? 1e12 : 0) + (double)v->found_i * 1e6 +
                   (double)v->found_e;
    if (!v->ok || score != best_score)
      continue;
    if (strcmp(first->key, g->key) != 0 || first->phase != g->phase)
      reason = "several graphs of the profile ran the same number of this "
               "view's kernel names";
    TL_VEC_PUSH(*out, g);
  }
  judge(first, best, ix, cid, facts); /* stamps for missing */
  cJSON_AddNumberToObject(match, "kernel_names_found",
                          (double)vs[best].found_i);
  cJSON_AddNumberToObject(match, "extern_names_found",
                          (double)vs[best].found_e);
  cJSON_AddItemToObject(match, "missing", missing_names(ix, best, MAX_MISSING));
  free(vs);
  if (reason) {
    out->count = 0;
    *ambiguous = true;
    return reason;
  }
  cJSON_AddStringToObject(match, "graph_key", first->key);
  cJSON_AddStringToObject(match, "phase", phase_name(first->phase));
  if (first->compile_id)
    cJSON_AddStringToObject(match, "compile_id", first->compile_id);
  else
    cJSON_AddNullToObject(match, "compile_id");
  cJSON *files = cJSON_AddArrayToObject(match, "files");
  for (size_t i = 0; i < out->count; i++)
    cJSON_AddItemToArray(
        files, tl_prof_valid_string(p->files.items[out->items[i]->file].path));
  return NULL;
}

/* Step 2: the kernels at the call line of the `occ`-th event named `name`
 * (*n_out of them, indices in *out). Returns the line, 0 for kernels
 * without call lines, -1 when nothing matches. */
int tl_prof_call_of(const name_index *ix, const char *name, uint32_t occ,
                    size_t *out, size_t *n_out) {
  *n_out = 0;
  int32_t id = tl_strtab_find(&ix->tab, name, strlen(name));
  if (id < 0)
    return -1;
  const name_info *ni = &ix->info.items[id];
  if (!ni->lines.count) { /* no call lines: all kernels of the name */
    for (size_t j = 0; j < ni->kernels.count; j++)
      out[(*n_out)++] = ni->kernels.items[j];
    return *n_out ? 0 : -1;
  }
  if (occ >= ni->lines.count)
    return -1;
  size_t from = ni->lines.items[occ];
  size_t to =
      occ + 1 < ni->lines.count ? ni->lines.items[occ + 1] : ni->at.count;
  for (size_t j = from; j < to; j++)
    out[(*n_out)++] = ni->at.items[j].kernel;
  return ni->at.items[from].line;
}
