/* profile_summary.h: the summary of torch.profiler traces that
 * profile_reader.h reads (--profile): per compiled graph, its calls and
 * kernel slots with their times, each file's state and the problems met.
 * Its own header so that the reader's event logic (profile_events.h) and
 * the join (profile_join.h) share the types without including the reader.
 * The summary owns all its memory; tl_profile_free (profile_reader.h).
 */
#ifndef TL_PROFILE_SUMMARY_H
#define TL_PROFILE_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "util/buf.h"

typedef enum tl_prof_phase {
  TL_PROF_INFERENCE, /* no CompiledFunction around the call */
  TL_PROF_FORWARD,   /* inside CompiledFunction */
  TL_PROF_BACKWARD   /* inside CompiledFunctionBackward */
} tl_prof_phase;

/* One kernel call position of a graph: the `occurrence`-th event named
 * `name` directly inside one call of the graph (0-based), summed over the
 * graph's calls. Inductor kernels are named as in the output code
 * (graph_<id>_ of C++ kernel events removed); extern kernels keep their ATen
 * name ("aten::addmm"). */
typedef struct tl_prof_slot {
  char *name;
  int32_t name_id, graph; /* the reader's: name interned, graph index */
  uint32_t occurrence;
  bool is_extern;
  int64_t cpu_ns, gpu_ns;
  uint64_t cpu_count, gpu_count;
  /* Each event's duration, in the order read: on the CPU one per graph
   * call (the call's occurrence-th event of the name), on the GPU one per
   * activity. 8 bytes per kernel call. */
  TL_VEC(int64_t) cpu_calls, gpu_calls;
} tl_prof_slot;

/* One compiled graph of one trace file: all calls of the graph with this
 * cache key, compile id and phase. */
typedef struct tl_prof_graph {
  uint32_t file;    /* index into tl_profile.files */
  char *key;        /* FX graph cache key */
  char *compile_id; /* "0/0", or NULL when no region says which */
  tl_prof_phase phase;
  uint64_t calls;
  int64_t cpu_total_ns;          /* sum of the graph call events' durations */
  TL_VEC(int64_t) call_ns;       /* each call's duration, in the order read */
  TL_VEC(uint32_t) call_ordinal; /* each counted call's ordinal */
  TL_VEC(int64_t) gpu_call_ns;   /* GPU time launched, by call ordinal */
  uint64_t runs; /* calls (or AOTInductor runs) started (the reader's) */
  bool run;      /* the calls are AOTInductor runs (no graph call event) */
  int64_t gpu_total_ns;   /* GPU activity launched from inside the calls */
  int64_t gpu_unknown_ns; /* ... of it not launched by any kernel slot */
  uint64_t gpu_unknown_count;
  TL_VEC(tl_prof_slot) slots;
} tl_prof_graph;

/* A counted problem with its first example ("file: byte N: ..."). */
typedef struct tl_prof_problem {
  char *what;    /* category sentence, e.g. "GPU kernel with no launch" */
  char *example; /* first instance */
  uint64_t count;
} tl_prof_problem;

/* What became of one trace file. */
typedef enum tl_prof_file_state {
  TL_PROF_FILE_READ,       /* read to its end */
  TL_PROF_FILE_UNREADABLE, /* cannot be opened, or not a regular file */
  TL_PROF_FILE_EMPTY,      /* no bytes, or no trace event */
  TL_PROF_FILE_INVALID,    /* not JSON (the events before the problem used) */
  TL_PROF_FILE_TRUNCATED,  /* ends inside the JSON (events before it used) */
  TL_PROF_FILE_DUPLICATE   /* the same trace as an earlier file: not read */
} tl_prof_file_state;

typedef struct tl_prof_file {
  char *path;
  tl_prof_file_state state;
  char *why;        /* one sentence for a state other than READ, or NULL */
  uint32_t same_as; /* DUPLICATE: index of the file it repeats */
  uint64_t events;  /* trace events read */
  uint64_t bytes;   /* uncompressed bytes read */
  uint64_t dropped_calls; /* unfinished graph calls left out (truncated) */
} tl_prof_file;

typedef struct tl_profile {
  TL_VEC(tl_prof_file) files;
  TL_VEC(tl_prof_graph *) graphs;
  uint64_t steps;  /* ProfilerStep#N events */
  int64_t step_ns; /* their summed duration */
  uint64_t events; /* trace events read */
  TL_VEC(tl_prof_problem) problems;
  bool unreadable; /* some file could not be opened or parsed to its end */
} tl_profile;

#endif
