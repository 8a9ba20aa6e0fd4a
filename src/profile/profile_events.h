/* profile_events.h: what one Chrome trace event means (--profile), between
 * the streaming reader (profile_reader.c: yajl + zlib assemble an event's few
 * fields) and the summary (profile_summary.h). Internal to src/profile_*.c.
 *
 * profile_events.c keeps each thread's stack of open CPU events (which
 * compiled graph call and kernel call an event is inside) and the launch
 * links that attribute GPU activities to the kernel call that launched them.
 * The reader owns a tl_prof_reader; tl_prof_events_* own its `attr`.
 */
#ifndef TL_PROFILE_EVENTS_H
#define TL_PROFILE_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include <yajl/yajl_parse.h>

#include "profile/profile_map.h"
#include "profile/profile_summary.h"
#include "util/buf.h"

enum {
  TL_PROF_NAME_CAP = 4096 /* longer event names are cut */
};

/* The fields of one trace event that the join uses. */
typedef struct tl_prof_event {
  char ph;
  char cat[32];
  tl_buf name; /* cut at TL_PROF_NAME_CAP */
  uint64_t pid, tid;
  bool has_ts, has_dur, bad_ts, bad_dur;
  int64_t ts, dur;
  bool has_ext, has_corr, has_seq, has_fwd_tid;
  int64_t ext, corr, seq, fwd_tid;
} tl_prof_event;

struct tl_prof_attr; /* a file's attribution state (profile_events.c) */

/* What tells one file's trace from the others' (profile_reader.c). */
typedef struct tl_prof_seen {
  bool has_head, has_id, has_trace_id, has_base;
  uint32_t head_crc, size; /* crc32 of the first bytes; size mod 2^32 */
  size_t head_len;
  uint64_t trace_id; /* hash of "trace_id" */
  int64_t base_time; /* "baseTimeNanoseconds" */
} tl_prof_seen;

/* The long-token pass before yajl (profile_reader.c): its state across
 * chunks, and anchors from the bytes yajl saw to the file's. */
typedef struct tl_prof_anchor {
  size_t out, in; /* positions in this chunk: handed to yajl, and read */
} tl_prof_anchor;

typedef struct tl_prof_lex {
  bool in_str, skipping, in_num, num_long;
  int esc; /* 1: after a backslash; 2..5: \u digits to come + 1 */
  size_t str_len, num_len;
  char num[64];
  TL_VEC(tl_prof_anchor) anchors;
} tl_prof_lex;

typedef struct tl_prof_reader {
  tl_profile *p;
  uint32_t file;     /* index into p->files */
  const char *fname; /* for diagnostics */
  /* JSON position (profile_reader.c) */
  int depth, events_depth, ev_depth, args_depth, devprops_depth;
  int top_key; /* 1 traceEvents, 2 deviceProperties */
  int field, arg;
  bool devices; /* deviceProperties lists a GPU, or is absent */
  yajl_handle h;
  uint64_t offset; /* bytes of the file read before this chunk */
  tl_prof_lex lex;
  tl_prof_event ev;
  tl_strtab names; /* compile ids and kernel names, for the whole read */
  TL_VEC(tl_prof_seen) seen; /* per file */
  tl_u64map graph_ids;       /* hash of file, key, compile id, phase */
  bool duplicate;            /* the file being read repeats an earlier one */
  struct tl_prof_attr *attr;
} tl_prof_reader;

/* Byte offset in the (uncompressed) file of the token being read. */
uint64_t tl_prof_at(const tl_prof_reader *r);

/* Counts a problem of category `what`; the first keeps its example. */
void tl_prof_count(tl_profile *p, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Starts a file's attribution state (after r->file and r->fname are set). */
void tl_prof_events_begin(tl_prof_reader *r);
/* Reads the complete event r->ev into the summary. */
void tl_prof_events_add(tl_prof_reader *r);
/* Ends the file: GPU activities still waiting for their launch are counted
 * as not attributed, and the file's state is freed. Graph calls still open
 * are counted when `complete` (the file was read to its end), else left
 * out with a diagnostic (a truncated file: their kernels are missing). */
void tl_prof_events_end(tl_prof_reader *r, bool complete);

#endif
