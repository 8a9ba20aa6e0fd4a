/* profile_reader.c: torch.profiler Chrome traces -> per-graph kernel time
 * (see profile_reader.h for the contract and docs/provenance-json.md for
 * the matching rules).
 *
 * The streaming layer: zlib reads the file (plain or gzip) 64 KiB at a time,
 * and a yajl callback state machine assembles one event's few fields at a
 * time (never recursing, whatever the nesting) and hands each complete event
 * to profile_events.c, which says what it means. Folders are read file by
 * file in name order; each file's attribution state is its own. Why one
 * file past ~800 lines: the callbacks, the whitespace squeezing and the
 * offsets they report (a message names the byte of the original file) are
 * one state machine over one reader state.
 */
#define _POSIX_C_SOURCE 200809L
#include "profile/profile_reader.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "profile/profile_events.h"
#include "util/utf8.h"

enum {
  CHUNK = 1 << 16,      /* bytes handed to yajl at a time */
  HEAD_BYTES = 1 << 20, /* read first, to tell a trace read before */
  STR_KEEP = 1 << 13,   /* bytes of a string handed to yajl; the rest cut */
  NUM_KEEP = 64         /* a longer number is handed to yajl as 1e999 */
};

enum field { F_NONE, F_PH, F_CAT, F_NAME, F_PID, F_TID, F_TS, F_DUR, F_ARGS };
enum arg { A_NONE, A_EXTERNAL, A_CORRELATION, A_SEQUENCE, A_FWD_TID };

/* ---- numbers ---------------------------------------------------------------
 */
bool tl_profile_parse_ns(const char *text, size_t len, int64_t *ns) {
  size_t i = 0;
  bool neg = false, plain = true;
  if (i < len && (text[i] == '-' || text[i] == '+'))
    neg = text[i++] == '-';
  uint64_t whole = 0;
  size_t digits = 0;
  for (; i < len && text[i] >= '0' && text[i] <= '9'; i++, digits++) {
    if (whole > (UINT64_C(1) << 62) / 1000)
      return false;
    whole = whole * 10 + (uint64_t)(text[i] - '0');
  }
  uint64_t frac = 0;
  size_t fdigits = 0;
  bool round_up = false;
  if (i < len && text[i] == '.') {
    for (i++; i < len && text[i] >= '0' && text[i] <= '9'; i++, fdigits++) {
      if (fdigits < 3)
        frac = frac * 10 + (uint64_t)(text[i] - '0');
      else if (fdigits == 3)
        round_up = text[i] >= '5';
    }
  }
  if (i < len)
    plain = false; /* exponent or junk: let strtod decide */
  if (plain) {
    if (!digits && !fdigits)
      return false;
    for (size_t k = fdigits; k < 3; k++)
      frac *= 10;
    uint64_t v = whole * 1000 + frac + (round_up ? 1 : 0);
    if (v > (UINT64_C(1) << 62))
      return false;
    *ns = neg ? -(int64_t)v : (int64_t)v;
    return true;
  }
  char tmp[64];
  if (len >= sizeof tmp)
    return false;
  memcpy(tmp, text, len);
  tmp[len] = '\0';
  char *end;
  double us = strtod(tmp, &end);
  if (*end || !isfinite(us) || fabs(us) * 1000.0 > 4.6e18)
    return false;
  *ns = (int64_t)llround(us * 1000.0);
  return true;
}

static bool parse_i64(const char *text, size_t len, int64_t *v) {
  if (!len || len > 20)
    return false;
  size_t i = text[0] == '-';
  if (len - i >= 1 && len - i <= 18) { /* plain digits: no overflow */
    int64_t x = 0;
    for (size_t k = i; k < len && x >= 0; k++)
      x = text[k] >= '0' && text[k] <= '9' ? x * 10 + (text[k] - '0') : -1;
    if (x >= 0) {
      *v = i ? -x : x;
      return true;
    }
  }
  char tmp[24]; /* anything else as strtoll reads it */
  memcpy(tmp, text, len);
  tmp[len] = '\0';
  char *end;
  errno = 0;
  long long x = strtoll(tmp, &end, 10);
  if (*end || errno)
    return false;
  *v = x;
  return true;
}

static bool same_as_earlier(tl_prof_reader *r, bool by_id);

/* ---- yajl callbacks ------------------------------------------------------ */
static uint64_t id_of_string(const unsigned char *s, size_t len) {
  int64_t v;
  if (parse_i64((const char *)s, len, &v))
    return (uint64_t)v;
  return tl_prof_hash_bytes((const char *)s, len) | (UINT64_C(1) << 63);
}

static int on_start_map(void *cv) {
  tl_prof_reader *r = cv;
  r->depth++;
  if (r->events_depth && r->depth == r->events_depth + 1 && !r->ev_depth) {
    r->ev_depth = r->depth;
    tl_prof_event *e = &r->ev;
    tl_buf name = e->name;
    memset(e, 0, sizeof *e);
    e->name = name;
    tl_buf_clear(&e->name);
    r->field = F_NONE;
  } else if (r->ev_depth && r->depth == r->ev_depth + 1 && r->field == F_ARGS) {
    r->args_depth = r->depth;
    r->arg = A_NONE;
  } else if (r->devprops_depth && r->depth == r->devprops_depth + 1) {
    r->devices = true;
  }
  return 1;
}

static int on_end_map(void *cv) {
  tl_prof_reader *r = cv;
  if (r->depth == r->args_depth)
    r->args_depth = 0;
  if (r->depth == r->ev_depth) {
    r->ev_depth = 0;
    tl_prof_events_add(r);
  }
  r->depth--;
  return 1;
}

static int on_start_array(void *cv) {
  tl_prof_reader *r = cv;
  r->depth++;
  if (r->depth == 1)
    r->events_depth = 1; /* a bare array of events */
  else if (r->depth == 2 && r->top_key == 1 && !r->events_depth)
    r->events_depth = 2;
  else if (r->depth == 2 && r->top_key == 2) {
    r->devprops_depth = 2;
    r->devices = false;
  }
  return 1;
}

static int on_end_array(void *cv) {
  tl_prof_reader *r = cv;
  if (r->depth == r->events_depth)
    r->events_depth = -1; /* done: later arrays are not events */
  if (r->depth == r->devprops_depth)
    r->devprops_depth = 0;
  r->depth--;
  return 1;
}

static bool key_is(const unsigned char *k, size_t len, const char *s,
                   size_t slen) {
  return slen == len && memcmp(k, s, len) == 0;
}
#define KEY_IS(k, len, lit) key_is(k, len, lit, sizeof lit - 1)

/* The event keys the join reads ("ph", "cat", ...), by length. */
static enum field event_field(const unsigned char *k, size_t len) {
  switch (len) {
  case 2:
    return KEY_IS(k, len, "ph") ? F_PH : KEY_IS(k, len, "ts") ? F_TS : F_NONE;
  case 3:
    return KEY_IS(k, len, "cat")   ? F_CAT
           : KEY_IS(k, len, "pid") ? F_PID
           : KEY_IS(k, len, "tid") ? F_TID
           : KEY_IS(k, len, "dur") ? F_DUR
                                   : F_NONE;
  case 4:
    return KEY_IS(k, len, "name")   ? F_NAME
           : KEY_IS(k, len, "args") ? F_ARGS
                                    : F_NONE;
  default:
    return F_NONE;
  }
}

static int on_key(void *cv, const unsigned char *k, size_t len) {
  tl_prof_reader *r = cv;
  if (r->depth == 1) {
    r->top_key = KEY_IS(k, len, "traceEvents")           ? 1
                 : KEY_IS(k, len, "deviceProperties")    ? 2
                 : KEY_IS(k, len, "trace_id")            ? 3
                 : KEY_IS(k, len, "baseTimeNanoseconds") ? 4
                                                         : 0;
    /* The same trace id and base time as an earlier file: stop here. */
    if (r->top_key == 1 && same_as_earlier(r, true)) {
      r->duplicate = true;
      return 0;
    }
  } else if (r->ev_depth && r->depth == r->ev_depth) {
    r->field = event_field(k, len);
  } else if (r->args_depth && r->depth == r->args_depth) {
    r->arg = KEY_IS(k, len, "External id")       ? A_EXTERNAL
             : KEY_IS(k, len, "correlation")     ? A_CORRELATION
             : KEY_IS(k, len, "Sequence number") ? A_SEQUENCE
             : KEY_IS(k, len, "Fwd thread id")   ? A_FWD_TID
                                                 : A_NONE;
  }
  return 1;
}

/* An event name as valid UTF-8: every name reaches the view's JSON and
 * page, so bad bytes become U+FFFD here, counted with the file and place,
 * as are names cut at TL_PROF_NAME_CAP inside a character. A lone
 * surrogate escape ("\udc00", which Python's json.dumps writes) reaches us
 * decoded by yajl to its three bytes ED xx xx: it becomes one U+FFFD (three
 * bytes too), as in the trace's JSON (json_serde.c). */
static void keep_valid_utf8(tl_prof_reader *r, tl_buf *name) {
  tl_str text = tl_buf_str(name);
  if (tl_utf8_valid_prefix(text) == text.len)
    return;
  unsigned char *u = (unsigned char *)name->data;
  for (size_t i = 0; i + 2 < name->len; i++)
    if (u[i] == 0xED && u[i + 1] >= 0xA0 && u[i + 1] <= 0xBF &&
        u[i + 2] >= 0x80 && u[i + 2] <= 0xBF)
      memcpy(u + i, "\xEF\xBF\xBD", 3);
  tl_utf8_repair_in_place(name);
  tl_prof_count(r->p, "event names with invalid UTF-8 (written as U+FFFD)",
                "%s: byte %" PRIu64 ": %.200s", r->fname, tl_prof_at(r),
                name->data);
}

static int on_string(void *cv, const unsigned char *s, size_t len) {
  tl_prof_reader *r = cv;
  if (r->depth == 1 && r->top_key == 3) {
    tl_prof_seen *me = &r->seen.items[r->file];
    me->trace_id = tl_prof_hash_bytes((const char *)s, len);
    me->has_id = me->has_base;
    me->has_trace_id = true;
    return 1;
  }
  if (!r->ev_depth || r->depth != r->ev_depth)
    return 1;
  tl_prof_event *e = &r->ev;
  switch ((enum field)r->field) {
  case F_PH:
    e->ph = len ? (char)s[0] : 0;
    break;
  case F_CAT: {
    size_t n = len < sizeof e->cat - 1 ? len : sizeof e->cat - 1;
    memcpy(e->cat, s, n);
    e->cat[n] = '\0';
    break;
  }
  case F_NAME: {
    tl_buf_clear(&e->name);
    size_t n = len < TL_PROF_NAME_CAP ? len : TL_PROF_NAME_CAP;
    tl_buf_append(&e->name, s, n);
    /* a NUL inside a name would end it early: replace it */
    for (char *z = memchr(e->name.data, 0, n); z;
         z = memchr(z, 0, n - (size_t)(z - e->name.data)))
      *z = '?';
    keep_valid_utf8(r, &e->name);
    break;
  }
  case F_PID:
    e->pid = id_of_string(s, len);
    break;
  case F_TID:
    e->tid = id_of_string(s, len);
    break;
  case F_TS:
    e->has_ts = true;
    e->bad_ts = !tl_profile_parse_ns((const char *)s, len, &e->ts);
    break;
  case F_DUR:
    e->has_dur = true;
    e->bad_dur = !tl_profile_parse_ns((const char *)s, len, &e->dur);
    break;
  case F_NONE:
  case F_ARGS:
    break;
  }
  return 1;
}

static int on_number(void *cv, const char *s, size_t len) {
  tl_prof_reader *r = cv;
  tl_prof_event *e = &r->ev;
  if (r->depth == 1 && r->top_key == 4) {
    tl_prof_seen *me = &r->seen.items[r->file];
    int64_t v;
    if (parse_i64(s, len, &v)) {
      me->base_time = v;
      me->has_base = true;
      me->has_id = me->has_trace_id;
    }
    return 1;
  }
  if (r->ev_depth && r->depth == r->ev_depth) {
    switch ((enum field)r->field) {
    case F_PID:
    case F_TID: {
      int64_t v;
      uint64_t id = parse_i64(s, len, &v)
                        ? (uint64_t)v
                        : tl_prof_hash_bytes(s, len) | (UINT64_C(1) << 63);
      if (r->field == F_PID)
        e->pid = id;
      else
        e->tid = id;
      break;
    }
    case F_TS:
      e->has_ts = true;
      e->bad_ts = !tl_profile_parse_ns(s, len, &e->ts);
      break;
    case F_DUR:
      e->has_dur = true;
      e->bad_dur = !tl_profile_parse_ns(s, len, &e->dur);
      break;
    case F_NONE:
    case F_PH:
    case F_CAT:
    case F_NAME:
    case F_ARGS:
      break;
    }
  } else if (r->args_depth && r->depth == r->args_depth) {
    int64_t v;
    if (!parse_i64(s, len, &v))
      return 1;
    switch ((enum arg)r->arg) {
    case A_EXTERNAL:
      e->has_ext = true;
      e->ext = v;
      break;
    case A_CORRELATION:
      e->has_corr = true;
      e->corr = v;
      break;
    case A_SEQUENCE:
      e->has_seq = v >= 0;
      e->seq = v;
      break;
    case A_FWD_TID:
      e->has_fwd_tid = true;
      e->fwd_tid = v;
      break;
    case A_NONE:
      break;
    }
  }
  return 1;
}

static int on_scalar(void *cv) { return 1; }
static int on_bool(void *cv, int b) { return 1; }

static const yajl_callbacks CALLBACKS = {
    on_scalar,    on_bool, NULL,       NULL,           on_number,   on_string,
    on_start_map, on_key,  on_end_map, on_start_array, on_end_array};

/* ---- one pass over each token --------------------------------------------
 * yajl buffers a token that a chunk ends inside and lexes it again from its
 * start with the next chunk, so a string of n bytes would cost n^2/CHUNK.
 * Before yajl sees a chunk, strings are cut to their first STR_KEEP bytes
 * (never inside an escape; names are cut at TL_PROF_NAME_CAP anyway) and a
 * number is held until it ends and handed over whole, as `1e999` (out of
 * every range the reader accepts) when longer than NUM_KEEP: every token
 * yajl sees is short, and each input byte is looked at once. Anchors map
 * the bytes yajl saw back to the file's, for the byte offsets of
 * diagnostics. */
static void anchor(tl_prof_reader *r, size_t out, size_t in) {
  tl_prof_anchor a = {out, in};
  TL_VEC_PUSH(r->lex.anchors, a);
}

static bool number_byte(unsigned char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' ||
         c == 'e' || c == 'E';
}

static size_t flush_number(tl_prof_reader *r, unsigned char *out, size_t o,
                           size_t in_at) {
  tl_prof_lex *x = &r->lex;
  if (x->num_long) {
    memcpy(out + o, "1e999", 5);
    o += 5;
  } else {
    memcpy(out + o, x->num, x->num_len);
    o += x->num_len;
  }
  anchor(r, o, in_at);
  x->in_num = false;
  return o;
}

/* Hands the chunk in[0, n) over to `out` (room for n + NUM_KEEP + 8
 * bytes); `end`: the file ends after it. Returns the bytes written. */
static size_t squeeze(tl_prof_reader *r, const unsigned char *in, size_t n,
                      unsigned char *out, bool end) {
  tl_prof_lex *x = &r->lex;
  x->anchors.count = 0;
  anchor(r, 0, 0);
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = in[i];
    if (x->in_str) {
      bool closes = false;
      if (x->esc == 1) { /* the escaped character */
        x->esc = c == 'u' ? 5 : 0;
      } else if (x->esc > 1) { /* a hex digit of \uXXXX */
        if (--x->esc == 1)
          x->esc = 0;
      } else if (c == '\\') {
        x->esc = 1;
      } else if (c == '"') {
        closes = true;
      }
      if (closes) {
        if (x->skipping)
          anchor(r, o, i);
        out[o++] = c;
        x->in_str = false;
        continue;
      }
      if (x->skipping)
        continue;
      out[o++] = c;
      if (++x->str_len >= STR_KEEP && x->esc == 0)
        x->skipping = true;
      continue;
    }
    if (x->in_num) {
      if (number_byte(c)) {
        if (x->num_len < NUM_KEEP)
          x->num[x->num_len++] = (char)c;
        else
          x->num_long = true;
        continue;
      }
      o = flush_number(r, out, o, i);
    }
    if (c == '"') {
      x->in_str = true;
      x->skipping = false;
      x->str_len = 0;
      x->esc = 0;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      x->in_num = true;
      x->num_long = false;
      x->num_len = 0;
      x->num[x->num_len++] = (char)c;
      anchor(r, o, i);
      continue;
    }
    out[o++] = c;
  }
  if (end && x->in_num)
    o = flush_number(r, out, o, n);
  return o;
}

/* The file offset of byte `seen` of what yajl was handed of this chunk. */
static uint64_t unsqueeze(const tl_prof_reader *r, size_t seen) {
  const tl_prof_lex *x = &r->lex;
  size_t lo = 0, hi = x->anchors.count;
  while (hi - lo > 1) { /* the last anchor at or before `seen` */
    size_t mid = (lo + hi) / 2;
    if (x->anchors.items[mid].out <= seen)
      lo = mid;
    else
      hi = mid;
  }
  const tl_prof_anchor *a = &x->anchors.items[lo];
  return r->offset + a->in + (seen - a->out);
}

uint64_t tl_prof_at(const tl_prof_reader *r) {
  return r->h ? unsqueeze(r, yajl_get_bytes_consumed(r->h)) : r->offset;
}

/* ---- files ----------------------------------------------------------------
 */
/* Sets the state of the file being read (the first cause wins) and counts
 * the problem with its example. */
static void file_failed(tl_prof_reader *r, tl_prof_file_state state,
                        const char *what, const char *why) {
  tl_prof_file *f = &r->p->files.items[r->file];
  tl_prof_count(r->p, what, "%s: %s", f->path, why);
  if (f->state == TL_PROF_FILE_READ) {
    f->state = state;
    f->why = tl_xstrdup(why);
  }
  if (state != TL_PROF_FILE_DUPLICATE)
    r->p->unreadable = true;
}

/* The uncompressed size modulo 2^32 of a gzip file: its ISIZE trailer. */
static bool gzip_isize(int fd, uint32_t *size) {
  struct stat st;
  unsigned char t[4];
  if (fstat(fd, &st) != 0 || st.st_size < 18 ||
      pread(fd, t, 4, st.st_size - 4) != 4)
    return false;
  *size = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 |
          (uint32_t)t[3] << 24;
  return true;
}

/* Is the file now being read the same trace as an earlier one (its first
 * HEAD_BYTES and its size, or its trace id and base time)? */
static bool same_as_earlier(tl_prof_reader *r, bool by_id) {
  tl_prof_seen *me = &r->seen.items[r->file];
  for (uint32_t i = 0; i < r->file; i++) {
    const tl_prof_seen *o = &r->seen.items[i];
    bool same = by_id
                    ? o->has_id && me->has_id && o->trace_id == me->trace_id &&
                          o->base_time == me->base_time
                    : o->has_head && o->head_crc == me->head_crc &&
                          o->size == me->size && o->head_len == me->head_len;
    if (same && r->p->files.items[i].state != TL_PROF_FILE_DUPLICATE) {
      tl_prof_file *f = &r->p->files.items[r->file];
      f->same_as = i;
      char why[300];
      snprintf(why, sizeof why,
               "the same trace as %.200s (%s): read once, not counted twice",
               r->p->files.items[i].path,
               by_id ? "same trace id and base time" : "same content");
      file_failed(r, TL_PROF_FILE_DUPLICATE,
                  "profile files that repeat an earlier one (read once)", why);
      return true;
    }
  }
  return false;
}

static bool parse_failed(tl_prof_reader *r, yajl_handle h,
                         const unsigned char *buf, size_t n, bool at_end) {
  if (r->duplicate) /* a callback stopped the parse */
    return true;
  unsigned char *msg = yajl_get_error(h, 0, buf, n);
  char *nl = strchr((char *)msg, '\n');
  if (nl)
    *nl = '\0';
  char why[400];
  if (at_end && !r->p->files.items[r->file].bytes) {
    file_failed(r, TL_PROF_FILE_EMPTY,
                "profile files that are empty (nothing read)", "empty file");
  } else if (at_end) {
    snprintf(why, sizeof why,
             "ends at byte %" PRIu64 " inside the JSON: truncated (%s)",
             r->offset, (char *)msg);
    file_failed(r, TL_PROF_FILE_TRUNCATED,
                "profile files that end early (the events before the end "
                "were used)",
                why);
  } else {
    snprintf(why, sizeof why, "byte %" PRIu64 ": not valid JSON: %s", r->offset,
             (char *)msg);
    file_failed(r, TL_PROF_FILE_INVALID,
                "profile files that are not valid JSON (the events before "
                "the problem were used)",
                why);
  }
  yajl_free_error(h, msg);
  return true;
}

static void read_file(tl_prof_reader *r, const char *path) {
  tl_profile *p = r->p;
  r->file = (uint32_t)p->files.count;
  tl_prof_file entry = {tl_xstrdup(path), TL_PROF_FILE_READ, NULL, 0, 0, 0, 0};
  TL_VEC_PUSH(p->files, entry);
  tl_prof_seen seen = {0};
  TL_VEC_PUSH(r->seen, seen);
  r->fname = path;
  r->duplicate = false;
  /* Only a regular file is read (a FIFO or a device found in a profile
   * folder could never end); O_NONBLOCK keeps the open of a FIFO from
   * waiting for a writer. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat info;
  if (fd >= 0 && (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))) {
    close(fd);
    file_failed(r, TL_PROF_FILE_UNREADABLE,
                "profile files that are not regular files",
                "not a regular file");
    return;
  }
  if (fd >= 0)
    fcntl(fd, F_SETFL, 0);
  uint32_t isize = 0;
  bool has_isize = fd >= 0 && gzip_isize(fd, &isize);
  gzFile gz = fd >= 0 ? gzdopen(fd, "rb") : NULL;
  if (!gz) {
    int saved = errno;
    if (fd >= 0)
      close(fd);
    file_failed(r, TL_PROF_FILE_UNREADABLE,
                "profile files that cannot be opened", strerror(saved));
    return;
  }
  gzbuffer(gz, CHUNK);
  r->depth = r->events_depth = r->ev_depth = r->args_depth = 0;
  r->devprops_depth = r->top_key = 0;
  r->devices = true; /* no deviceProperties (older traces): assume GPUs */
  r->offset = 0;
  tl_prof_events_begin(r);
  yajl_handle h = yajl_alloc(&CALLBACKS, NULL, r);
  r->h = h;
  yajl_config(h, yajl_dont_validate_strings, 1);
  /* The first HEAD_BYTES are read before any is parsed: with the size they
   * tell a trace read before (the same file twice, or p.json and
   * p.json.gz), which is then not read again. */
  unsigned char *buf = tl_xmalloc(HEAD_BYTES);
  size_t head = 0;
  bool failed = false, eof = false;
  while (head < HEAD_BYTES) {
    int n = gzread(gz, buf + head, (unsigned)(HEAD_BYTES - head));
    if (n <= 0) {
      eof = n == 0;
      failed = n < 0;
      break;
    }
    head += (size_t)n;
  }
  tl_prof_seen *me = &r->seen.items[r->file];
  me->has_head = !failed;
  me->head_len = head;
  me->head_crc = crc32(0L, buf, (uInt)head);
  me->size = gzdirect(gz) ? (uint32_t)info.st_size
             : has_isize  ? isize
                          : (uint32_t)head;
  if (!failed && same_as_earlier(r, false))
    goto done;
  size_t fill = head;
  unsigned char *lexed = tl_xmalloc(HEAD_BYTES + NUM_KEEP + 8);
  memset(&r->lex, 0, sizeof r->lex);
  for (bool first = true; !failed;) {
    size_t n = fill;
    if (!first) {
      int got = gzread(gz, buf, CHUNK);
      if (got < 0) {
        failed = true;
        break;
      }
      n = (size_t)got;
      eof = got == 0;
    }
    first = false;
    size_t m = squeeze(r, buf, n, lexed, eof);
    if (m == 0 && eof)
      break;
    p->files.items[r->file].bytes += n;
    yajl_status st = yajl_parse(h, lexed, m);
    if (st != yajl_status_ok) {
      r->offset = unsqueeze(r, yajl_get_bytes_consumed(h));
      failed = parse_failed(r, h, lexed, m, false);
      break;
    }
    r->offset += (uint64_t)n;
    if (eof)
      break;
  }
  free(lexed);
  TL_VEC_FREE(r->lex.anchors);
  if (failed && !r->duplicate &&
      p->files.items[r->file].state == TL_PROF_FILE_READ) {
    int errnum;
    const char *msg = gzerror(gz, &errnum);
    char why[400];
    snprintf(why, sizeof why, "byte %" PRIu64 ": %s", r->offset, msg);
    file_failed(r, TL_PROF_FILE_INVALID,
                "profile files that cannot be decompressed (the events "
                "before the problem were used)",
                why);
  }
  if (!failed && yajl_complete_parse(h) != yajl_status_ok)
    failed = parse_failed(r, h, NULL, 0, true);
  if (!failed && !p->files.items[r->file].events)
    file_failed(r, TL_PROF_FILE_EMPTY,
                "profile files without trace events (nothing to join)",
                "no trace event (\"traceEvents\" is missing or empty)");
done:
  r->h = NULL;
  yajl_free(h);
  free(buf);
  gzclose(gz);
  tl_prof_events_end(r,
                     p->files.items[r->file].state == TL_PROF_FILE_READ ||
                         p->files.items[r->file].state == TL_PROF_FILE_EMPTY);
}

static bool trace_name(const char *name) {
  size_t n = strlen(name);
  return (n > 5 && strcmp(name + n - 5, ".json") == 0) ||
         (n > 8 && strcmp(name + n - 8, ".json.gz") == 0);
}

static int by_string(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void read_path(tl_prof_reader *r, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
    read_file(r, path);
    return;
  }
  DIR *d = opendir(path);
  if (!d) {
    tl_prof_count(r->p, "profile files that cannot be opened", "%s: %s", path,
                  strerror(errno));
    r->p->unreadable = true;
    return;
  }
  TL_VEC(char *) names = {0};
  struct dirent *de;
  while ((de = readdir(d)))
    if (de->d_name[0] != '.' && trace_name(de->d_name))
      TL_VEC_PUSH(names, tl_xstrdup(de->d_name));
  closedir(d);
  tl_sort(names.items, names.count, sizeof *names.items, by_string);
  if (!names.count)
    tl_prof_count(r->p, "profile folders without .json or .json.gz traces",
                  "%s", path);
  for (size_t i = 0; i < names.count; i++) {
    tl_buf full;
    tl_buf_init(&full);
    tl_buf_printf(&full, "%s/%s", path, names.items[i]);
    read_file(r, full.data);
    tl_buf_free(&full);
    free(names.items[i]);
  }
  TL_VEC_FREE(names);
}

tl_profile *tl_profile_read(const char *const *paths, size_t count) {
  tl_profile *p = tl_xcalloc(1, sizeof *p);
  tl_prof_reader *r = tl_xcalloc(1, sizeof *r);
  r->p = p;
  tl_buf_init(&r->ev.name);
  for (size_t i = 0; i < count; i++)
    read_path(r, paths[i]);
  tl_buf_free(&r->ev.name);
  tl_strtab_free(&r->names);
  TL_VEC_FREE(r->seen);
  tl_u64map_free(&r->graph_ids);
  free(r);
  return p;
}

void tl_profile_free(tl_profile *p) {
  if (!p)
    return;
  for (size_t i = 0; i < p->files.count; i++) {
    free(p->files.items[i].path);
    free(p->files.items[i].why);
  }
  TL_VEC_FREE(p->files);
  for (size_t i = 0; i < p->graphs.count; i++) {
    tl_prof_graph *g = p->graphs.items[i];
    for (size_t k = 0; k < g->slots.count; k++) {
      free(g->slots.items[k].name);
      TL_VEC_FREE(g->slots.items[k].cpu_calls);
      TL_VEC_FREE(g->slots.items[k].gpu_calls);
    }
    TL_VEC_FREE(g->slots);
    TL_VEC_FREE(g->call_ns);
    TL_VEC_FREE(g->call_ordinal);
    TL_VEC_FREE(g->gpu_call_ns);
    free(g->key);
    free(g->compile_id);
    free(g);
  }
  TL_VEC_FREE(p->graphs);
  for (size_t i = 0; i < p->problems.count; i++) {
    free(p->problems.items[i].what);
    free(p->problems.items[i].example);
  }
  TL_VEC_FREE(p->problems);
  free(p);
}
