/* multi_rank_divergence.c: what differs between the ranks (parity spec 1.5
 * and 1.6), decided from the rank summaries alone: compile ids, cache
 * hit/miss patterns, collective schedules and tensor metadata (grouped by
 * equal signature, groups by their lowest rank); per-graph runtime spread;
 * graph execution order with its schedule and cache mismatches.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "multirank/multi_rank_internal.h"

/* Groups the ranks whose key is not NULL by equal key. */
static void group_by(tl_mr_groups *out, tl_mr_rank **ranks, size_t count,
                     tl_str *keys) {
  size_t *first = tl_xcalloc(count ? count : 1, sizeof *first);
  for (size_t i = 0; i < count; i++) {
    if (!keys[i].ptr)
      continue;
    size_t g = 0;
    while (g < out->count && !tl_str_eq(keys[first[g]], keys[i]))
      g++;
    if (g == out->count) {
      tl_mr_ranks empty = {0};
      TL_VEC_PUSH(*out, empty);
      first[g] = i;
    }
    TL_VEC_PUSH(out->items[g], ranks[i]->rank);
  }
  free(first);
}

/* The rank's schedules in graph order, comma-joined (malloc'd). */
static char *sched_signature(const tl_mr_rank *r, bool *any) {
  tl_buf b;
  tl_buf_init(&b);
  for (size_t j = 0; j < r->graphs.count; j++) {
    const tl_mr_graph *g = &r->graphs.items[j];
    for (size_t k = 0; k < g->sched.count; k++) {
      if (b.len)
        tl_buf_putc(&b, ',');
      tl_buf_puts(&b, g->sched.items[k]);
      *any = true;
    }
  }
  return tl_buf_detach(&b);
}

static void decide_groups(tl_mr_rank **ranks, size_t count, tl_mr_analysis *a) {
  tl_str *keys = tl_xcalloc(count ? count : 1, sizeof *keys);
  char **sigs = tl_xcalloc(count ? count : 1, sizeof *sigs);
  for (size_t i = 0; i < count; i++) {
    if (strcmp(ranks[i]->compile_ids, ranks[0]->compile_ids) != 0)
      a->compile_id_divergence = true;
    keys[i] = tl_str_from(ranks[i]->cache_seq);
  }
  group_by(&a->cache_groups, ranks, count, keys);
  a->cache_divergence = a->cache_groups.count > 1;
  bool any = false;
  for (size_t i = 0; i < count; i++) {
    sigs[i] = sched_signature(ranks[i], &any);
    keys[i] = tl_str_from(sigs[i]);
  }
  if (any)
    group_by(&a->sched_groups, ranks, count, keys);
  a->sched_divergence = a->sched_groups.count > 1;
  for (size_t i = 0; i < count; i++) {
    keys[i] = ranks[i]->has_meta
                  ? (tl_str){(const char *)ranks[i]->meta_md5, 16}
                  : (tl_str){NULL, 0};
    free(sigs[i]);
  }
  group_by(&a->meta_groups, ranks, count, keys);
  a->meta_divergence = a->meta_groups.count > 1;
  free(sigs);
  free(keys);
}

static double ms3(double ns) { return round(ns / 1e6 * 1000.0) / 1000.0; }

static int cmp_row(const void *x, const void *y) {
  return strcmp(((const tl_mr_runtime_row *)x)->graph,
                ((const tl_mr_runtime_row *)y)->graph);
}

/* The i-th graph with runtime estimations of r, or NULL. */
static const tl_mr_graph *runtime_graph(const tl_mr_rank *r, size_t i) {
  for (size_t j = 0; j < r->graphs.count; j++)
    if (r->graphs.items[j].ops.count && i-- == 0)
      return &r->graphs.items[j];
  return NULL;
}

static size_t runtime_graphs(const tl_mr_rank *r) {
  size_t n = 0;
  for (size_t j = 0; j < r->graphs.count; j++)
    n += r->graphs.items[j].ops.count > 0;
  return n;
}

static double graph_total(const tl_mr_graph *g) {
  double total = 0;
  for (size_t k = 0; k < g->ops.count; k++)
    total += g->ops.items[k].ns;
  return total;
}

static void runtime_row(tl_mr_rank **with, size_t n, size_t i,
                        tl_mr_analysis *a) {
  tl_mr_runtime_row row = {0};
  double fast = 0, slow = 0;
  for (size_t r = 0; r < n; r++) {
    double t = graph_total(runtime_graph(with[r], i));
    if (r == 0 || t <= fast) {
      fast = t;
      row.fast_rank = with[r]->rank;
    }
    if (r == 0 || t >= slow) {
      slow = t;
      row.slow_rank = with[r]->rank;
    }
  }
  row.graph = tl_xstrdup(runtime_graph(with[0], i)->dir);
  row.delta_ms = ms3(slow - fast);
  row.fast_ms = ms3(fast);
  row.slow_ms = ms3(slow);
  TL_VEC_PUSH(a->runtime_rows, row);
}

static void decide_runtime(tl_mr_rank **ranks, size_t count,
                           tl_mr_analysis *a) {
  tl_mr_rank **with = tl_xcalloc(count ? count : 1, sizeof *with);
  size_t n = 0, graphs = 0;
  a->runtime_available = true;
  for (size_t i = 0; i < count; i++) {
    size_t m = runtime_graphs(ranks[i]);
    if (!m)
      continue;
    if (n && m != graphs)
      a->runtime_available = false;
    graphs = m;
    with[n++] = ranks[i];
  }
  for (size_t i = 0; a->runtime_available && i < graphs; i++)
    runtime_row(with, n, i, a);
  tl_sort(a->runtime_rows.items, a->runtime_rows.count,
          sizeof *a->runtime_rows.items, cmp_row);
  free(with);
}

static const tl_mr_graph *graph_of_id(const tl_mr_rank *r, const char *id) {
  for (size_t j = 0; j < r->graphs.count; j++) {
    const char *cid = r->graphs.items[j].compile_id;
    if (cid && strcmp(cid, id) == 0)
      return &r->graphs.items[j];
  }
  return NULL;
}

static void add_rank(tl_mr_ranks *set, unsigned rank) {
  for (size_t i = 0; i < set->count; i++)
    if (set->items[i] == rank)
      return;
  TL_VEC_PUSH(*set, rank);
}

static int cmp_unsigned(const void *x, const void *y) {
  unsigned a = *(const unsigned *)x, b = *(const unsigned *)y;
  return a < b ? -1 : a > b;
}

/* Index i of the execution orders: which of the three checks fail. */
static void exec_index(tl_mr_rank **with, size_t n, size_t i,
                       tl_mr_analysis *a) {
  const char *id0 = NULL, *sched0 = NULL;
  int cache0 = 0;
  bool sched_bad = false, cache_bad = false;
  char **sigs = tl_xcalloc(n, sizeof *sigs);
  for (size_t r = 0; r < n; r++) {
    if (i >= with[r]->exec.count)
      continue;
    const char *id = with[r]->exec.items[i];
    if (id0 && strcmp(id, id0) != 0)
      a->exec_order_differs = true;
    id0 = id0 ? id0 : id;
    const tl_mr_graph *g = graph_of_id(with[r], id);
    /* An empty schedule is no schedule: the Rust tool reads schedules from
     * collective_schedules.json, which leaves empty ones out. */
    if (g && g->has_sched && g->sched.count > 0) {
      tl_mr_rank one = {0};
      one.graphs.items = (tl_mr_graph *)g;
      one.graphs.count = 1;
      bool any = false;
      sigs[r] = sched_signature(&one, &any);
      if (sched0 && strcmp(sigs[r], sched0) != 0)
        sched_bad = true;
      sched0 = sched0 ? sched0 : sigs[r];
    }
    if (g && g->cache) {
      if (cache0 && g->cache != cache0)
        cache_bad = true;
      cache0 = cache0 ? cache0 : g->cache;
    }
  }
  for (size_t r = 0; r < n; r++) {
    free(sigs[r]);
    if (i >= with[r]->exec.count)
      continue;
    if (sched_bad)
      add_rank(&a->exec_sched_ranks, with[r]->rank);
    if (cache_bad)
      add_rank(&a->exec_cache_ranks, with[r]->rank);
  }
  free(sigs);
}

static void decide_exec(tl_mr_rank **ranks, size_t count, tl_mr_analysis *a) {
  tl_mr_rank **with = tl_xcalloc(count ? count : 1, sizeof *with);
  size_t n = 0, longest = 0;
  for (size_t i = 0; i < count; i++)
    if (ranks[i]->has_exec) {
      with[n++] = ranks[i];
      if (ranks[i]->exec.count > longest)
        longest = ranks[i]->exec.count;
    }
  a->exec_available = n >= 2;
  for (size_t i = 0; a->exec_available && i < longest; i++)
    exec_index(with, n, i, a);
  tl_sort(a->exec_sched_ranks.items, a->exec_sched_ranks.count,
          sizeof(unsigned), cmp_unsigned);
  tl_sort(a->exec_cache_ranks.items, a->exec_cache_ranks.count,
          sizeof(unsigned), cmp_unsigned);
  free(with);
}

void tl_mr_decide(tl_mr_rank **ranks, size_t count, tl_mr_analysis *a) {
  decide_groups(ranks, count, a);
  decide_runtime(ranks, count, a);
  decide_exec(ranks, count, a);
}

static void groups_free(tl_mr_groups *g) {
  for (size_t i = 0; i < g->count; i++)
    TL_VEC_FREE(g->items[i]);
  TL_VEC_FREE(*g);
}

void tl_mr_analysis_free(tl_mr_analysis *a) {
  groups_free(&a->cache_groups);
  groups_free(&a->sched_groups);
  groups_free(&a->meta_groups);
  for (size_t i = 0; i < a->runtime_rows.count; i++)
    free(a->runtime_rows.items[i].graph);
  TL_VEC_FREE(a->runtime_rows);
  TL_VEC_FREE(a->exec_sched_ranks);
  TL_VEC_FREE(a->exec_cache_ranks);
}
