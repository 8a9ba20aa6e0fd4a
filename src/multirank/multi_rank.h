/* multi_rank.h: the --all-ranks-html mode, a driver beside the report writer.
 * It finds the rank logs of a folder, runs the one-log pipeline once per rank
 * in a forked child (rank_N/ plus rank_N/collectives_parity.json), reads
 * each finished rank back into a small summary, and writes the aggregated
 * files and the landing page (docs/multi-rank.md). The caller owns the
 * output folder (staging and publishing, src/run/outdir.h) and the exit code.
 */
#ifndef TL_MULTI_RANK_H
#define TL_MULTI_RANK_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tl_multi_rank_options {
  const char *input_dir;          /* PATH as typed: a folder of rank logs */
  const char *out_name;           /* OUT as typed: shown in the stdout lines */
  const char *out_dir;            /* the existing, empty folder to write into */
  const char *custom_header_html; /* raw, on the landing and rank pages */
  bool provenance, plain_text, strict_compile_id, verbose;
  int jobs;      /* ranks parsed at once; 0 or less: one per core */
  bool progress; /* a line on stderr per finished rank (a terminal) */
} tl_multi_rank_options;

typedef struct tl_multi_rank_result {
  size_t ranks;          /* rank logs found (duplicates included) */
  size_t failed;         /* ranks whose child failed or crashed */
  size_t problems;       /* mode diagnostics (duplicates, bad artifacts) */
  size_t parse_failures; /* sum of tl_diag_parse_failures over the ranks */
  size_t no_compile_id;  /* entries without compile id, over the ranks */
} tl_multi_rank_result;

/* The number of rank logs (`dedicated_log_torch_trace_rank_<N>[_*].log`,
 * regular files directly in `dir`); 0 when there is none or `dir` cannot
 * be listed. main checks this before creating the output folder. */
size_t tl_multi_rank_count_logs(const char *dir);

/* One rank log of a folder. */
typedef struct tl_rank_log {
  unsigned rank;
  char *path; /* the log, as DIR/name (malloc'd) */
} tl_rank_log;

/* The rank logs tl_multi_rank_count_logs counts, sorted by rank then file
 * name (two of one rank: both listed); *logs is malloc'd (free each path,
 * then the array). `tlparse diff` pairs two folders' ranks by number. */
size_t tl_multi_rank_logs(const char *dir, tl_rank_log **logs);

/* Runs the mode (see the header comment). Bad input (a rank log that is no
 * log, a rank that crashes, a malformed artifact, two files of one rank) is
 * one line on stderr each and never stops the other ranks or the landing
 * page; every rank's own diagnostics are printed after all ranks, in rank
 * order. False only for environment errors (cannot list the input, cannot
 * write the output), with one line in `error`. stdout gets the lines of the
 * Rust tool: "Processing rank N → OUT/rank_N", ..., "Multi-rank report
 * generated under OUT". */
bool tl_multi_rank_run(const tl_multi_rank_options *options,
                       tl_multi_rank_result *result, char *error,
                       size_t error_size);

#endif
