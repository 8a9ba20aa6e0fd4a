/* run_diff.h: two runs of a program compared (`tlparse diff A B`), each
 * read by the pipeline into a report folder of its own inside the diff's
 * folder (`a/`, `b/`).
 *
 * A run is kept as a copy of its store's folder list (names and paths,
 * every path prefixed with the run's folder, so that recompiles.h's
 * comparison of two compiles reads both runs' files from the diff's folder)
 * (and its compilation metrics' numbers) and, for each frame, the compiled
 * function as dynamo_start's stack names it (file, function, first line)
 * and the graph breaks it logged. Frames of
 * the two runs are matched by session (the k-th of A with the k-th of B:
 * torch._dynamo.reset() restarts the ids, see recompiles.h), file name
 * (without folders: two runs are often made from two checkouts), function
 * name and compiled-autograd id,
 * several such frames in order of path and first line; the compiles of
 * two matched frames in compile order. Everything is sorted once: linear
 * after O(n log n) in the number of compiles. See docs/run-diff-json.md.
 */
#ifndef TL_RUN_DIFF_H
#define TL_RUN_DIFF_H

#include <cjson/cJSON.h>

#include "diff/recompiles.h"
#include "store/store.h"
#include "util/buf.h"

/* One graph break a frame logged (dynamo_graph_break_reason). */
typedef struct tl_run_break {
  char *reason; /* the first line of its reason ("Graph Break Reason: ...",
                   without that label) */
  char *where;  /* the user code's place, "file.py:20" (file without
                   folders), or "" */
  char *file;   /* its text file, relative to the diff's folder */
} tl_run_break;

/* The function name of the frame that holds a run's compiles without a
 * compile id (torch.export, AOTInductor), which the caller adds. */
#define TL_RUN_UNNAMED "(no compile id: torch.export or AOTInductor)"

/* One frame of a run: a compiled function and its compiles. */
typedef struct tl_run_frame {
  const char *autograd; /* "-" or the compiled-autograd id */
  long long frame;      /* the frame id */
  size_t session;       /* its session (recompiles.h), from 1 */
  const char *file;     /* the function's file as logged, or "" */
  const char *base;     /* its last component (into `file`) */
  const char *function; /* its name, or "" when no stack was logged */
  long long line;       /* its first line, or 0 */
  size_t first, count;  /* run->found.compiles[first .. first+count) */
  size_t break_first, break_count; /* run->breaks[...] */
} tl_run_frame;

typedef struct tl_run {
  const char *folder; /* "a": the run's report, inside the diff's folder */
  tl_arena arena;     /* the copies below */
  tl_store view;      /* only `dirs` is set: the copied folders */
  tl_recompiles found;
  TL_VEC(tl_run_frame) frames; /* in frame order */
  TL_VEC(tl_run_break) breaks; /* by frame */
  /* For each compile (by index in found.compiles), the provenance page of
   * its post-grad graph (without .html, relative to the diff's folder),
   * or NULL: set by the caller, which knows the report's views;
   * bw_view_pages the same for its backward's post-grad graph. */
  const char **view_pages, **bw_view_pages;
} tl_run;

/* Copies what the diff needs of `store` (whose report is written in
 * `diff_dir`/`folder`) and reads its frames and graph breaks. */
void tl_run_take(tl_run *run, const char *folder, const tl_store *store,
                 const char *diff_dir);
void tl_run_free(tl_run *run);

/* The two runs' frames matched. */
typedef struct tl_run_frame_pair {
  const tl_run_frame *a, *b; /* NULL on the side that did not compile it */
} tl_run_frame_pair;

typedef struct tl_run_match {
  TL_VEC(tl_run_frame_pair)
  frames; /* matched first, in A's order; then
             A's alone; then B's alone */
} tl_run_match;

void tl_run_match_frames(const tl_run *a, const tl_run *b, tl_run_match *out);
void tl_run_match_free(tl_run_match *m);

/* The frame's name as the report shows it: "forward (model.py:43)"; in a
 * later session "forward (model.py:43) #2". */
void tl_run_frame_label(tl_buf *out, const tl_run_frame *f);

/* The stem of the files comparing compile `a` of run A with `b` of run B:
 * "compile_-_0_0_vs_-_0_0" (page .html, data .json); in a later session
 * "compile_-_0_0_vs_-_0_0_session_2". */
void tl_run_pair_stem(const tl_compile_files *a, const tl_compile_files *b,
                      char *out, size_t size);

/* The graph breaks of two matched frames (either may be NULL) compared:
 * the same reason at the same place is the same break; the same reason
 * at another place has moved; the rest appeared (only in B) or went (only
 * in A). An array of {"change", "reason", "before", "after"}, without the
 * unchanged ones; *same counts those. */
cJSON *tl_run_breaks_diff(const tl_run *ra, const tl_run_frame *a,
                          const tl_run *rb, const tl_run_frame *b,
                          size_t *same);

/* Two runs are two processes: the object and type ids that ID_MATCH and
 * TYPE_MATCH guards check (`___check_obj_id(G['torch'], 140162808998592)`)
 * differ between them for the same object. Takes out of `guards` (the
 * "guards" member of tl_recompile_diff) each change whose two codes differ
 * only in such an id, and counts them in "ids_only". */
void tl_run_guards_without_ids(cJSON *guards);

#endif
