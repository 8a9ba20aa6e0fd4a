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

#include "profile/profile_summary.h"

/* Reads each path (a .json or .json.gz trace, or a folder: its *.json and
 * *.json.gz files in name order) into one summary. Never NULL; problems are
 * in p->problems. */
tl_profile *tl_profile_read(const char *const *paths, size_t count);
void tl_profile_free(tl_profile *p);

/* Exposed for tests: "123.456" (µs with ns digits) -> 123456 ns. False for
 * anything that is not a finite number within ±2^62 ns. */
bool tl_profile_parse_ns(const char *text, size_t len, int64_t *ns);

#endif
