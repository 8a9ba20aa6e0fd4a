/* recompiles.h: the frames that compiled more than once, and what changed
 * from one compile of a frame to the next, as JSON (docs/recompile-json.md).
 *
 * A compile is a (compiled-autograd id, frame id, frame compile id) with
 * all its attempts' folders (`-_0_1_0` holds the recompile reasons,
 * `-_0_1_1` the graphs after a restart); its files are the first of each
 * kind found from its last attempt down. Consecutive compiles of a frame
 * are compared: the reasons Dynamo logged (recompile_reasons.h), the guards
 * that changed (guards.h), the Dynamo, pre-grad and post-grad graphs
 * node by node (fx_diff.h), the kernels by the nodes they come from
 * (kernel_diff.h, compile_kernels.h), and the compilation metrics.
 */
#ifndef TL_RECOMPILES_H
#define TL_RECOMPILES_H

#include <cjson/cJSON.h>

#include "analyze/analysis_cache.h"
#include "diff/compile_files.h"
#include "store/store.h"

/* A log's sessions: torch._dynamo.reset() (a benchmark harness calls it
 * between models) restarts the frame ids and compile ids, and so does the
 * start of a second log concatenated to the first. Within a session each
 * (frame id, frame compile id) is started once (one dynamo_start: the frame
 * counter is global, the compile counter per frame), so a dynamo_start of
 * a pair already started begins the next session. So does a dynamo_start
 * of frame 0's compile 0 (with or without a compiled-autograd id) after
 * any other: Dynamo gives that id only to the first compile after the
 * process starts or a reset, so a session still begins there when the log
 * lost the line of an id that would have repeated (a torn dynamo_start).
 * An entry (recompile reasons, an artifact, metrics) belongs to the
 * session of its line when that session starts its compile id anywhere,
 * before or after the entry (Dynamo logs recompile_reasons just before the
 * dynamo_start); else to the last earlier session that started the id;
 * else (no session up to its own started it) to its own. A folder holds
 * each session's compilation of its id, split in log order.
 *
 * One case is read wrongly, on purpose: a frame that hits the recompile
 * limit logs the recompile_reasons and metrics of a new compile id and no
 * dynamo_start (convert_frame.py gives up before it); when an earlier
 * session started that id, those entries go to the earlier session. Its
 * pages do not change: a compile's files are the first of each kind (and
 * its metrics the first), and the earlier session's own, logged before,
 * come first; the later session only shows no compile for the attempt,
 * as none was made. */
typedef struct tl_session_start {
  long long frame, compile; /* the compile id started */
  size_t session;           /* from 1 */
  size_t line;              /* of its dynamo_start */
} tl_session_start;

/* One frame's compiles, in compile order: compiles[first .. first+count). */
typedef struct tl_recompiled_frame {
  size_t first, count;
} tl_recompiled_frame;

typedef struct tl_recompiles {
  /* every compile, by session, frame and compile order */
  TL_VEC(tl_compile_files) compiles;
  /* those frames (of one session) with two compiles or more */
  TL_VEC(tl_recompiled_frame) frames;
  size_t sessions; /* how many (1 when no id was started twice) */
  /* The line where each later session begins: session k + 2 from
   * session_lines[k]. */
  TL_VEC(size_t) session_lines;
  /* Every dynamo_start, by frame, compile and line. */
  TL_VEC(tl_session_start) starts;
} tl_recompiles;

void tl_recompiles_find(const tl_store *store, tl_recompiles *out);

/* The session of an entry of compile id (frame, compile) at trace line
 * `line` (see tl_session_start). */
size_t tl_recompiles_session(const tl_recompiles *r, long long frame,
                             long long compile, size_t line);
void tl_recompiles_free(tl_recompiles *r);

/* The stem of the diff files of compile `b` against `a` (the one before):
 * "recompile_-_0_0_to_1" (page .html, data .json); in a later session
 * "recompile_-_0_0_to_1_session_2". */
void tl_recompile_stem(const tl_compile_files *a, const tl_compile_files *b,
                       char *out, size_t size);

/* The reasons of compile `b` (from its recompile_reasons file, read
 * through `files`), each
 * {"earlier", "kind", "text", "words", ...}; an empty array when none. */
cJSON *tl_recompile_reasons_json(tl_compile_reader *files,
                                 const tl_compile_files *b);

/* The whole comparison of `a` and `b` (files read from `out_dir`; the
 * code analyses through `cache`, or NULL: see compile_kernels.h). */
cJSON *tl_recompile_diff(const char *out_dir, const tl_compile_files *a,
                         const tl_compile_files *b, tl_analysis_cache *cache);
/* The same, its files read through `files`, which keeps them for the next
 * comparison (a frame's compiles compared in turn read each twice). */
cJSON *tl_recompile_diff_files(tl_compile_reader *files,
                               const tl_compile_files *a,
                               const tl_compile_files *b,
                               tl_analysis_cache *cache);

#endif
