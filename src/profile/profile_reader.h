/* profile_reader.h: reads torch.profiler (Kineto) Chrome traces (--profile,
 * issue 16) into a summary of where each compiled graph call spent its time.
 *
 * Streaming: one event at a time through yajl (gzip through zlib), so memory
 * grows with the distinct kernels and compiled-graph calls on the stacks, not
 * with the file, except on GPU traces: 8-byte launch links (11-21 bytes with
 * the table's slack) per distinct External id of a CPU event inside a graph
 * call, kept to the file's end, and per launch whose GPU activity is not read
 * yet (profile_events.c says exactly; docs/performance.md measures it).
 * A sample of the input, as Kineto writes it:
 *   {"ph": "X", "cat": "cpu_op", "name": "graph_0_cpp_fused_relu_0",
 *    "pid": 30836, "tid": 30836, "ts": 4631820176890.869, "dur": 32.319,
 *    "args": {"External id": 110, "Record function id": 0}}
 * Events are attributed to the innermost "## Call CompiledFxGraph <key> ##"
 * event around them on their thread (CPU) or around their launch (GPU, by
 * "External id", else "correlation"); kernel events outside any graph call
 * are AOTInductor runs (profile_events.c). Each file's state (read, empty,
 * not JSON, truncated, a repeat of an earlier file) is in `files`. The join
 * with a provenance view is profile_join.c. Bad input is never fatal: problems
 * are counted with the file and byte offset in `problems`; the summary holds
 * what was read. The summary owns all its memory; free it with tl_profile_free.
 */
#ifndef TL_PROFILE_READER_H
#define TL_PROFILE_READER_H

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

/* Reads each path (a .json or .json.gz trace, or a folder: its *.json and
 * *.json.gz files in name order) into one summary. Never NULL; problems are
 * in p->problems. */
tl_profile *tl_profile_read(const char *const *paths, size_t count);
void tl_profile_free(tl_profile *p);

/* Exposed for tests: "123.456" (µs with ns digits) -> 123456 ns. False for
 * anything that is not a finite number within ±2^62 ns. */
bool tl_profile_parse_ns(const char *text, size_t len, int64_t *ns);

#endif
