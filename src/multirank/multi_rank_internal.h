/* multi_rank_internal.h: what the multi-rank files share, nothing public.
 * multi_rank.c runs the ranks; multi_rank_summary.c reads a finished rank
 * folder back into a tl_mr_rank (and writes its collectives_parity.json);
 * multi_rank_analysis.c writes the aggregated files and decides the
 * divergences; multi_rank_page.c writes the landing page. Every string of a
 * summary is malloc'd and freed by tl_mr_rank_free.
 */
#ifndef TL_MULTI_RANK_INTERNAL_H
#define TL_MULTI_RANK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "multirank/multi_rank.h"
#include "util/buf.h"
#include "util/diag.h"

typedef struct tl_mr_op {
  char *name;
  double ns; /* estimated_runtime_ns */
} tl_mr_op;

/* One compile folder of a rank ("-_0_1_0"), with what the analyses need. */
typedef struct tl_mr_graph {
  char *dir;
  char *compile_id;     /* "[0/1]": the first key listing the folder */
  TL_VEC(tl_mr_op) ops; /* runtime artifact's ops (valid ones only) */
  TL_VEC(char *) sched; /* collective schedule, NULL-free */
  bool has_sched;
  int cache; /* 0 none, 1 cache_bypass, 2 cache_hit, 3 cache_miss */
  /* lowest-numbered artifacts of the folder (names), or NULL */
  char *runtime_name, *sched_name, *code_name;
  double runtime_num, sched_num, code_num;
} tl_mr_graph;

typedef struct tl_mr_rank {
  unsigned rank;
  char *path;      /* the log, as PATH/name */
  char *file_name; /* the log's name */
  char *dir_name;  /* "rank_0", or "rank_0-2" for a second file of rank 0 */
  bool duplicate;  /* another file of this rank came first: not aggregated */
  bool failed;     /* its child failed or crashed */
  char *failure;   /* why, one line */
  /* The rank's own diagnostics, sent back by its child; NULL when it had
   * none (most ranks), so that the parent, forked once per rank, stays
   * small: a tl_diag is 1.6 KB, 160 MB for 10^5 ranks, and each fork copies
   * the parent's page tables. */
  tl_diag *diag;
  /* The summary (multi_rank_summary.c), valid when `summary` is true. */
  bool summary;
  char *compile_ids; /* sorted known compile ids, one per line */
  char *cache_seq;   /* the artifacts' suffixes by number, comma-joined */
  TL_VEC(tl_mr_graph) graphs; /* sorted by dir */
  bool has_meta;
  unsigned char meta_md5[16]; /* md5 of the tensor-meta signature */
  bool has_exec;
  TL_VEC(char *) exec; /* graph execution order: "[0/1]", ... */
  /* Set by the parent while other ranks still run: the child has ended,
   * the summary was read with no diagnostic, the events were joined. */
  bool ended, summary_early, events_joined;
} tl_mr_rank;

/* Reads `out_dir`/`r->dir_name` back into r's summary. Malformed artifacts
 * are left out, each a diagnostic in `diag` naming the rank's log. */
void tl_mr_summary_read(tl_mr_rank *r, const char *out_dir, bool plain_text,
                        tl_diag *diag);
/* Lets go of what tl_mr_summary_read filled in, as before it. */
void tl_mr_summary_clear(tl_mr_rank *r);
/* r's summary as bytes appended to `b` (a rank's child sends it to the
 * parent, last in its message), and back: decoded from data[*at..len),
 * which must hold it exactly, into r (whose summary is empty), *at moved
 * past it; false, with r's summary cleared and *at unmoved, when the bytes
 * are cut short, run on, or are damaged (a count past what is left, bits
 * or a missing string no encoder writes): the parent then reads the rank's
 * files itself. */
void tl_mr_summary_encode(tl_buf *b, const tl_mr_rank *r);
bool tl_mr_summary_decode(tl_mr_rank *r, const char *data, size_t len,
                          size_t *at);
/* Writes `rank_dir`/collectives_parity.json from r's summary. */
bool tl_mr_parity_write(const tl_mr_rank *r, const char *rank_dir,
                        bool plain_text, char *error, size_t error_size);
void tl_mr_rank_free(tl_mr_rank *r);

/* Which aggregated files were written and what the landing page says. */
typedef TL_VEC(unsigned) tl_mr_ranks;
/* Ranks with equal signatures: ranks ascending, groups by lowest rank. */
typedef TL_VEC(tl_mr_ranks) tl_mr_groups;

typedef struct tl_mr_runtime_row {
  char *graph;
  double delta_ms, fast_ms, slow_ms;
  unsigned fast_rank, slow_rank;
} tl_mr_runtime_row;

typedef struct tl_mr_analysis {
  bool chromium, runtime, schedules; /* files written */
  bool compile_id_divergence;
  tl_mr_groups cache_groups, sched_groups, meta_groups;
  bool cache_divergence, sched_divergence, meta_divergence;
  bool runtime_available; /* same number of graphs on every rank */
  TL_VEC(tl_mr_runtime_row) runtime_rows;
  bool exec_available, exec_order_differs;
  tl_mr_ranks exec_sched_ranks, exec_cache_ranks;
} tl_mr_analysis;

/* The combined chromium_events.json as it is joined, rank after rank in
 * ascending order, the parent joining each rank as soon as it and every
 * rank before it have ended (the file is opened at the first event). */
typedef struct tl_mr_events {
  FILE *f;
  bool ok;         /* false after a failed write: nothing more is joined */
  char error[512]; /* why, when not ok */
} tl_mr_events;

void tl_mr_events_init(tl_mr_events *e);
/* Appends r's events (its child's part file, else its own
 * chromium_events.json) and sets r->events_joined. */
void tl_mr_events_join(tl_mr_events *e, tl_mr_rank *r, const char *out_dir);

/* `ranks` are the ranks to aggregate: ascending, no duplicates, no failed
 * ones. Writes the aggregated files into out_dir and fills `a`. `events`
 * (NULL: none yet) holds the ranks already joined, a prefix of `ranks`;
 * the rest are joined here and the file is closed. */
bool tl_mr_analyze(tl_mr_rank **ranks, size_t count, const char *out_dir,
                   tl_mr_events *events, tl_mr_analysis *a, tl_diag *diag,
                   char *error, size_t error_size);
/* Fills the divergences, the runtime rows and the execution-order result
 * of `a` (multi_rank_divergence.c); same `ranks` as tl_mr_analyze. */
void tl_mr_decide(tl_mr_rank **ranks, size_t count, tl_mr_analysis *a);
void tl_mr_analysis_free(tl_mr_analysis *a);

/* Pure helpers, exposed for tests. */
uint32_t tl_mr_fxhash_tid(unsigned rank, const char *graph);
/* Normalised collective name, or NULL when the op is not a collective. */
const char *tl_mr_collective_kind(const char *op);

/* Writes out_dir/index.html. `all` is every rank (duplicates and failed
 * ones included), ascending by rank then file name. */
bool tl_mr_page_write(const tl_multi_rank_options *o, tl_mr_rank **all,
                      size_t count, const tl_mr_analysis *a, char *error,
                      size_t error_size);

#endif
