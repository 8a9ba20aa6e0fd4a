/* profile_reader.c: torch.profiler Chrome traces -> per-graph kernel time
 * (see profile_reader.h for the contract and docs/provenance-json.md for
 * the matching rules).
 *
 * Three layers: a yajl callback state machine that assembles one event's few
 * fields at a time (never recursing, whatever the nesting); per-thread
 * stacks of open CPU events (Kineto writes each thread's CPU events in start
 * order; an event that starts before its predecessor is counted) that say
 * which compiled graph call and which kernel call an event is inside; and
 * hash maps from "External id" / "correlation" to that place for GPU
 * activities, which Kineto writes after the CPU events.
 */
#include "profile_reader.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <yajl/yajl_parse.h>
#include <zlib.h>

enum {
  NAME_CAP = 4096,  /* longer event names are cut (kernel names are short) */
  STACK_CAP = 4096, /* CPU events nested deeper are counted, not tracked */
  CHUNK = 1 << 16,  /* bytes handed to yajl at a time */
  MAX_OCCURRENCE = 0xFFFF
};

/* ---- u64 -> u64 hash map (open addressing, values stored +1) ----------- */
typedef struct u64map {
  uint64_t *keys, *vals; /* vals[i] == 0: empty */
  size_t cap, count;
} u64map;

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

static void map_free(u64map *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

static void map_put(u64map *m, uint64_t key, uint64_t val);

static void map_grow(u64map *m) {
  u64map bigger = {0};
  bigger.cap = m->cap ? m->cap * 2 : 64;
  bigger.keys = tl_xcalloc(bigger.cap, sizeof *bigger.keys);
  bigger.vals = tl_xcalloc(bigger.cap, sizeof *bigger.vals);
  for (size_t i = 0; i < m->cap; i++)
    if (m->vals[i])
      map_put(&bigger, m->keys[i], m->vals[i] - 1);
  map_free(m);
  *m = bigger;
}

static void map_put(u64map *m, uint64_t key, uint64_t val) {
  if ((m->count + 1) * 4 >= m->cap * 3)
    map_grow(m);
  size_t i = mix(key) & (m->cap - 1);
  while (m->vals[i] && m->keys[i] != key)
    i = (i + 1) & (m->cap - 1);
  if (!m->vals[i])
    m->count++;
  m->keys[i] = key;
  m->vals[i] = val + 1;
}

static bool map_get(const u64map *m, uint64_t key, uint64_t *val) {
  if (!m->cap)
    return false;
  size_t i = mix(key) & (m->cap - 1);
  while (m->vals[i]) {
    if (m->keys[i] == key) {
      *val = m->vals[i] - 1;
      return true;
    }
    i = (i + 1) & (m->cap - 1);
  }
  return false;
}

static uint64_t hash_bytes(const char *s, size_t len) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
  return h;
}

/* ---- problems ------------------------------------------------------------ */
static void problem(tl_profile *p, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void problem(tl_profile *p, const char *what, const char *fmt, ...) {
  for (size_t i = 0; i < p->problems.count; i++) {
    if (strcmp(p->problems.items[i].what, what) == 0) {
      p->problems.items[i].count++;
      return;
    }
  }
  char example[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(example, sizeof example, fmt, ap);
  va_end(ap);
  tl_prof_problem pr = {tl_xstrdup(what), tl_xstrdup(example), 1};
  TL_VEC_PUSH(p->problems, pr);
}

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
  char tmp[24];
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

/* ---- reading state ------------------------------------------------------ */
enum field { F_NONE, F_PH, F_CAT, F_NAME, F_PID, F_TID, F_TS, F_DUR, F_ARGS };
enum arg { A_NONE, A_EXTERNAL, A_CORRELATION, A_SEQUENCE, A_FWD_TID };
enum frame_kind { K_OTHER, K_REGION, K_CF, K_CFB, K_GRAPH, K_KERNEL };

/* One open CPU event on a thread's stack and what it is inside. */
typedef struct frame {
  int64_t start, end;
  int32_t graph;       /* innermost graph call's graph index, or -1 */
  int32_t graph_frame; /* its position on this stack */
  int32_t slot;        /* the kernel call it is inside, or -1 */
  int32_t cid;         /* compile id (interned) of the innermost region */
  uint8_t kind, phase;
  bool in_kernel;
  u64map *occ; /* K_GRAPH: name id -> events of that name so far */
} frame;

typedef struct thread {
  uint64_t key;
  int64_t last_ts;
  TL_VEC(frame) stack;
  uint64_t too_deep; /* events above STACK_CAP currently open */
} thread;

typedef struct event {
  char ph;
  char cat[32];
  tl_buf name; /* cut at NAME_CAP */
  uint64_t pid, tid;
  bool has_ts, has_dur, bad_ts, bad_dur;
  int64_t ts, dur;
  bool has_ext, has_corr, has_seq, has_fwd_tid;
  int64_t ext, corr, seq, fwd_tid;
} event;

typedef struct reader {
  tl_profile *p;
  uint32_t file;
  const char *fname;
  /* JSON position */
  int depth, events_depth, ev_depth, args_depth, devprops_depth;
  int top_key; /* 1 traceEvents, 2 deviceProperties */
  enum field field;
  enum arg arg;
  bool devices; /* deviceProperties lists a GPU, or is absent */
  bool devprops_seen;
  yajl_handle h;
  uint64_t offset; /* bytes of the file handed to yajl before this chunk */
  event ev;
  /* attribution state of this file */
  TL_VEC(thread) threads;
  u64map thread_ids;
  u64map ext_map, corr_map; /* id -> graph << 32 | (slot + 1) */
  u64map seq_cid;           /* (fwd tid, seq) -> cid + 1 of the forward */
  u64map slot_ids;          /* graph, name id, occurrence -> slot index */
  bool gpu_seen;
} reader;

/* Interned strings live in the profile's string table (one per read). */
typedef struct strtab {
  TL_VEC(char *) items;
  u64map ids; /* hash -> id (first with that hash); collisions probe hash+1 */
} strtab;

static int32_t intern(strtab *t, const char *s, size_t len) {
  uint64_t h = hash_bytes(s, len);
  for (;; h++) {
    uint64_t id;
    if (!map_get(&t->ids, h, &id)) {
      char *copy = tl_xmalloc(len + 1);
      memcpy(copy, s, len);
      copy[len] = '\0';
      TL_VEC_PUSH(t->items, copy);
      map_put(&t->ids, h, t->items.count - 1);
      return (int32_t)(t->items.count - 1);
    }
    const char *have = t->items.items[id];
    if (strlen(have) == len && memcmp(have, s, len) == 0)
      return (int32_t)id;
  }
}

typedef struct ctx {
  reader r;
  strtab names;
} ctx;

static ctx *CTX(void *c) { return c; }

/* ---- attribution ----------------------------------------------------------
 */
/* Byte offset in the (uncompressed) file of the token being read. */
static uint64_t at(const reader *r) {
  return r->offset + (r->h ? yajl_get_bytes_consumed(r->h) : 0);
}

static bool starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The output-code name of an Inductor kernel event, or NULL: triton_*,
 * cpp_* and graph_<digits>_<name> (C++ kernels with enable_kernel_profile,
 * codegen/cpp.py). */
static const char *inductor_name(const char *name) {
  if (starts(name, "graph_")) {
    const char *d = name + 6;
    if (*d < '0' || *d > '9')
      return NULL;
    while (*d >= '0' && *d <= '9')
      d++;
    if (*d != '_')
      return NULL;
    return inductor_name(d + 1);
  }
  if (starts(name, "triton_") || starts(name, "cpp_"))
    return name;
  return NULL;
}

static thread *thread_of(reader *r, uint64_t pid, uint64_t tid) {
  uint64_t key = mix(pid) ^ (tid * 0x9E3779B97F4A7C15ULL);
  uint64_t idx;
  if (map_get(&r->thread_ids, key, &idx))
    return &r->threads.items[idx];
  thread t = {0};
  t.key = key;
  t.last_ts = INT64_MIN;
  TL_VEC_PUSH(r->threads, t);
  map_put(&r->thread_ids, key, r->threads.count - 1);
  return &r->threads.items[r->threads.count - 1];
}

static void pop_frame(thread *t) {
  frame *f = &t->stack.items[--t->stack.count];
  if (f->occ) {
    map_free(f->occ);
    free(f->occ);
  }
}

static int32_t find_graph(ctx *c, const char *key, int32_t cid,
                          tl_prof_phase phase) {
  tl_profile *p = c->r.p;
  const char *cid_s = cid >= 0 ? c->names.items.items[cid] : NULL;
  for (size_t i = 0; i < p->graphs.count; i++) {
    tl_prof_graph *g = p->graphs.items[i];
    if (g->file == c->r.file && g->phase == phase && strcmp(g->key, key) == 0 &&
        ((!g->compile_id && !cid_s) ||
         (g->compile_id && cid_s && strcmp(g->compile_id, cid_s) == 0)))
      return (int32_t)i;
  }
  tl_prof_graph *g = tl_xcalloc(1, sizeof *g);
  g->file = c->r.file;
  g->key = tl_xstrdup(key);
  g->compile_id = cid_s ? tl_xstrdup(cid_s) : NULL;
  g->phase = phase;
  TL_VEC_PUSH(p->graphs, g);
  return (int32_t)(p->graphs.count - 1);
}

static int32_t find_slot(ctx *c, int32_t graph, const char *name,
                         uint32_t occurrence, bool is_extern) {
  reader *r = &c->r;
  int32_t nid = intern(&c->names, name, strlen(name));
  uint64_t key = ((uint64_t)graph << 44) ^ ((uint64_t)nid << 16) ^ occurrence;
  tl_prof_graph *g = r->p->graphs.items[graph];
  uint64_t idx;
  if (map_get(&r->slot_ids, key, &idx) && idx < g->slots.count &&
      g->slots.items[idx].occurrence == occurrence &&
      strcmp(g->slots.items[idx].name, name) == 0)
    return (int32_t)idx;
  for (size_t i = 0; i < g->slots.count; i++) /* hash collision: scan */
    if (g->slots.items[i].occurrence == occurrence &&
        strcmp(g->slots.items[i].name, name) == 0)
      return (int32_t)i;
  tl_prof_slot s = {0};
  s.name = tl_xstrdup(name);
  s.occurrence = occurrence;
  s.is_extern = is_extern;
  TL_VEC_PUSH(g->slots, s);
  map_put(&r->slot_ids, key, g->slots.count - 1);
  return (int32_t)(g->slots.count - 1);
}

static uint64_t place(int32_t graph, int32_t slot) {
  return ((uint64_t)(uint32_t)graph << 32) | (uint32_t)(slot + 1);
}

static bool is_gpu_cat(const char *cat) {
  return strcmp(cat, "kernel") == 0 || strcmp(cat, "Kernel") == 0 ||
         strcmp(cat, "gpu_memcpy") == 0 || strcmp(cat, "gpu_memset") == 0;
}

static void gpu_event(ctx *c, const event *e) {
  reader *r = &c->r;
  r->gpu_seen = true;
  uint64_t where;
  bool found =
      (e->has_ext && map_get(&r->ext_map, (uint64_t)e->ext, &where)) ||
      (e->has_corr && map_get(&r->corr_map, (uint64_t)e->corr, &where));
  if (!found) {
    if (!e->has_ext && !e->has_corr)
      problem(r->p,
              "GPU activities with no External id or correlation "
              "(not attributed)",
              "%s: byte %" PRIu64 ": %.200s", r->fname, at(r), e->name.data);
    else if (inductor_name(e->name.data))
      problem(r->p,
              "Inductor GPU kernels whose launch is not inside a "
              "compiled graph call (not attributed)",
              "%s: byte %" PRIu64 ": %.200s", r->fname, at(r), e->name.data);
    return;
  }
  tl_prof_graph *g = r->p->graphs.items[where >> 32];
  int32_t slot = (int32_t)(where & 0xFFFFFFFFu) - 1;
  g->gpu_total_ns += e->dur;
  if (slot >= 0) {
    g->slots.items[slot].gpu_ns += e->dur;
    g->slots.items[slot].gpu_count++;
  } else {
    g->gpu_unknown_ns += e->dur;
    g->gpu_unknown_count++;
  }
}

/* A forward op and its backward share "Sequence number" (the autograd
 * node's); "Fwd thread id" is 0 on the forward op itself, so only the number
 * links them (with several forward threads the latest forward wins). */
static uint64_t seq_key(int64_t seq) { return (uint64_t)seq; }

static void cpu_event(ctx *c, const event *e) {
  reader *r = &c->r;
  tl_profile *p = r->p;
  const char *name = e->name.data;
  if (starts(name, "ProfilerStep#")) {
    p->steps++;
    p->step_ns += e->dur;
  }
  thread *t = thread_of(r, e->pid, e->tid);
  if (e->ts < t->last_ts)
    problem(p,
            "CPU events out of start order on their thread (nesting "
            "read as written)",
            "%s: byte %" PRIu64 ": %.200s", r->fname, at(r), name);
  t->last_ts = e->ts;
  while (t->stack.count) {
    frame *top = &t->stack.items[t->stack.count - 1];
    if (top->end > e->ts || (top->end == e->ts && top->start == e->ts))
      break;
    pop_frame(t);
  }
  frame f = {e->ts,   e->ts + e->dur,    -1,    -1,  -1, -1,
             K_OTHER, TL_PROF_INFERENCE, false, NULL};
  if (t->stack.count) {
    const frame *up = &t->stack.items[t->stack.count - 1];
    f.graph = up->graph;
    f.graph_frame = up->graph_frame;
    f.slot = up->slot;
    f.cid = up->cid;
    f.phase = up->phase;
    f.in_kernel = up->in_kernel;
  }
  if (starts(name, "Torch-Compiled Region")) {
    f.kind = K_REGION;
    const char *colon = strstr(name, ": ");
    f.cid = colon ? intern(&c->names, colon + 2, strlen(colon + 2)) : -1;
    f.phase = TL_PROF_INFERENCE;
  } else if (strcmp(name, "CompiledFunction") == 0) {
    f.kind = K_CF;
    f.phase = TL_PROF_FORWARD;
    if (e->has_seq)
      map_put(&r->seq_cid, seq_key(e->seq), (uint64_t)(f.cid + 1));
  } else if (strcmp(name, "CompiledFunctionBackward") == 0) {
    f.kind = K_CFB;
    f.phase = TL_PROF_BACKWARD;
    uint64_t cid1;
    if (e->has_seq && map_get(&r->seq_cid, seq_key(e->seq), &cid1))
      f.cid = (int32_t)cid1 - 1;
  } else if (starts(name, "## Call CompiledFxGraph ")) {
    const char *key = name + strlen("## Call CompiledFxGraph ");
    size_t klen = strlen(key);
    if (klen >= 3 && strcmp(key + klen - 3, " ##") == 0)
      klen -= 3;
    char keybuf[NAME_CAP + 1];
    memcpy(keybuf, key, klen);
    keybuf[klen] = '\0';
    f.kind = K_GRAPH;
    f.graph = find_graph(c, keybuf, f.cid, (tl_prof_phase)f.phase);
    f.graph_frame = (int32_t)t->stack.count;
    f.slot = -1;
    f.in_kernel = false;
    f.occ = tl_xcalloc(1, sizeof *f.occ);
    tl_prof_graph *g = p->graphs.items[f.graph];
    g->calls++;
    g->cpu_total_ns += e->dur;
  } else if (f.graph >= 0 && !f.in_kernel &&
             f.graph_frame < (int32_t)t->stack.count) {
    const char *kname = inductor_name(name);
    bool is_extern = !kname && starts(name, "aten::");
    if (kname || is_extern) {
      if (!kname)
        kname = name;
      frame *gf = &t->stack.items[f.graph_frame];
      int32_t nid = intern(&c->names, kname, strlen(kname));
      uint64_t n = 0;
      map_get(gf->occ, (uint64_t)nid, &n);
      map_put(gf->occ, (uint64_t)nid, n + 1);
      if (n > MAX_OCCURRENCE) {
        problem(p,
                "kernel called more than 65535 times in one graph call "
                "(later calls not attributed)",
                "%s: byte %" PRIu64 ": %.200s", r->fname, at(r), name);
      } else {
        f.kind = K_KERNEL;
        f.slot = find_slot(c, f.graph, kname, (uint32_t)n, is_extern);
        f.in_kernel = true;
        tl_prof_slot *s = &p->graphs.items[f.graph]->slots.items[f.slot];
        s->cpu_ns += e->dur;
        s->cpu_count++;
      }
    }
  } else if (f.graph < 0 && inductor_name(name)) {
    problem(p,
            "Inductor kernel events outside any compiled graph call "
            "(not attributed)",
            "%s: byte %" PRIu64 ": %.200s", r->fname, at(r), name);
  }
  if (f.graph >= 0 && r->devices) {
    if (e->has_ext)
      map_put(&r->ext_map, (uint64_t)e->ext, place(f.graph, f.slot));
    if (e->has_corr)
      map_put(&r->corr_map, (uint64_t)e->corr, place(f.graph, f.slot));
  }
  if (t->stack.count >= STACK_CAP) {
    problem(p, "CPU events nested deeper than 4096 levels (not tracked)",
            "%s: byte %" PRIu64 ": %.200s", r->fname, at(r), name);
    if (f.occ) {
      map_free(f.occ);
      free(f.occ);
    }
    return;
  }
  TL_VEC_PUSH(t->stack, f);
}

static void finish_event(ctx *c) {
  reader *r = &c->r;
  event *e = &r->ev;
  r->p->events++;
  if (e->ph != 'X')
    return;
  if (strcmp(e->cat, "Trace") == 0 ||
      strcmp(e->cat, "gpu_user_annotation") == 0)
    return;
  if (!e->has_ts || !e->has_dur || e->bad_ts || e->bad_dur || e->dur < 0) {
    problem(r->p,
            "complete events with a missing, negative or unreadable "
            "ts or dur (skipped)",
            "%s: byte %" PRIu64 ": %.200s", r->fname, at(r), e->name.data);
    return;
  }
  if (is_gpu_cat(e->cat))
    gpu_event(c, e);
  else {
    if (r->gpu_seen)
      problem(r->p,
              "CPU events after GPU activities (GPU activities read "
              "before their launch are not attributed)",
              "%s: byte %" PRIu64 ": %.200s", r->fname, at(r), e->name.data);
    cpu_event(c, e);
  }
}

/* ---- yajl callbacks ------------------------------------------------------ */
static uint64_t id_of_string(const unsigned char *s, size_t len) {
  int64_t v;
  if (parse_i64((const char *)s, len, &v))
    return (uint64_t)v;
  return hash_bytes((const char *)s, len) | (UINT64_C(1) << 63);
}

static int on_start_map(void *cv) {
  reader *r = &CTX(cv)->r;
  r->depth++;
  if (r->events_depth && r->depth == r->events_depth + 1 && !r->ev_depth) {
    r->ev_depth = r->depth;
    event *e = &r->ev;
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
  ctx *c = CTX(cv);
  reader *r = &c->r;
  if (r->depth == r->args_depth)
    r->args_depth = 0;
  if (r->depth == r->ev_depth) {
    r->ev_depth = 0;
    finish_event(c);
  }
  r->depth--;
  return 1;
}

static int on_start_array(void *cv) {
  reader *r = &CTX(cv)->r;
  r->depth++;
  if (r->depth == 1)
    r->events_depth = 1; /* a bare array of events */
  else if (r->depth == 2 && r->top_key == 1 && !r->events_depth)
    r->events_depth = 2;
  else if (r->depth == 2 && r->top_key == 2) {
    r->devprops_depth = 2;
    r->devprops_seen = true;
    r->devices = false;
  }
  return 1;
}

static int on_end_array(void *cv) {
  reader *r = &CTX(cv)->r;
  if (r->depth == r->events_depth)
    r->events_depth = -1; /* done: later arrays are not events */
  if (r->depth == r->devprops_depth)
    r->devprops_depth = 0;
  r->depth--;
  return 1;
}

static bool key_is(const unsigned char *k, size_t len, const char *s) {
  return strlen(s) == len && memcmp(k, s, len) == 0;
}

static int on_key(void *cv, const unsigned char *k, size_t len) {
  reader *r = &CTX(cv)->r;
  if (r->depth == 1) {
    r->top_key = key_is(k, len, "traceEvents")        ? 1
                 : key_is(k, len, "deviceProperties") ? 2
                                                      : 0;
  } else if (r->ev_depth && r->depth == r->ev_depth) {
    static const char *const names[] = {"",    "ph", "cat", "name", "pid",
                                        "tid", "ts", "dur", "args"};
    r->field = F_NONE;
    for (int i = 1; i <= F_ARGS; i++)
      if (key_is(k, len, names[i]))
        r->field = (enum field)i;
  } else if (r->args_depth && r->depth == r->args_depth) {
    r->arg = key_is(k, len, "External id")       ? A_EXTERNAL
             : key_is(k, len, "correlation")     ? A_CORRELATION
             : key_is(k, len, "Sequence number") ? A_SEQUENCE
             : key_is(k, len, "Fwd thread id")   ? A_FWD_TID
                                                 : A_NONE;
  }
  return 1;
}

static int on_string(void *cv, const unsigned char *s, size_t len) {
  reader *r = &CTX(cv)->r;
  if (!r->ev_depth || r->depth != r->ev_depth)
    return 1;
  event *e = &r->ev;
  switch (r->field) {
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
    size_t n = len < NAME_CAP ? len : NAME_CAP;
    /* a NUL inside a name would end it early: replace it */
    for (size_t i = 0; i < n; i++)
      tl_buf_putc(&e->name, s[i] ? (char)s[i] : '?');
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
  reader *r = &CTX(cv)->r;
  event *e = &r->ev;
  if (r->ev_depth && r->depth == r->ev_depth) {
    switch (r->field) {
    case F_PID:
    case F_TID: {
      int64_t v;
      uint64_t id = parse_i64(s, len, &v)
                        ? (uint64_t)v
                        : hash_bytes(s, len) | (UINT64_C(1) << 63);
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
    switch (r->arg) {
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

/* ---- files ----------------------------------------------------------------
 */
static void reset_file_state(reader *r) {
  for (size_t i = 0; i < r->threads.count; i++) {
    thread *t = &r->threads.items[i];
    while (t->stack.count)
      pop_frame(t);
    TL_VEC_FREE(t->stack);
  }
  TL_VEC_FREE(r->threads);
  map_free(&r->thread_ids);
  map_free(&r->ext_map);
  map_free(&r->corr_map);
  map_free(&r->seq_cid);
  map_free(&r->slot_ids);
}

static void read_file(ctx *c, const char *path) {
  reader *r = &c->r;
  tl_profile *p = r->p;
  r->file = (uint32_t)p->files.count;
  TL_VEC_PUSH(p->files, tl_xstrdup(path));
  r->fname = path;
  gzFile gz = gzopen(path, "rb");
  if (!gz) {
    problem(p, "profile files that cannot be opened", "%s: %s", path,
            strerror(errno));
    p->unreadable = true;
    return;
  }
  r->depth = r->events_depth = r->ev_depth = r->args_depth = 0;
  r->devprops_depth = r->top_key = 0;
  r->devices = true; /* no deviceProperties (older traces): assume GPUs */
  r->devprops_seen = false;
  r->gpu_seen = false;
  r->offset = 0;
  yajl_handle h = yajl_alloc(&CALLBACKS, NULL, c);
  r->h = h;
  yajl_config(h, yajl_dont_validate_strings, 1);
  unsigned char *buf = tl_xmalloc(CHUNK);
  bool failed = false;
  for (;;) {
    int n = gzread(gz, buf, CHUNK);
    if (n < 0) {
      int errnum;
      const char *msg = gzerror(gz, &errnum);
      problem(p,
              "profile files that end early or are not valid JSON (the "
              "events before the problem were used)",
              "%s: byte %" PRIu64 ": %s", path, r->offset, msg);
      failed = true;
      break;
    }
    if (n == 0)
      break;
    yajl_status st = yajl_parse(h, buf, (size_t)n);
    if (st != yajl_status_ok) {
      r->offset += yajl_get_bytes_consumed(h);
      unsigned char *msg = yajl_get_error(h, 0, buf, (size_t)n);
      char *nl = strchr((char *)msg, '\n');
      if (nl)
        *nl = '\0';
      problem(p,
              "profile files that end early or are not valid JSON (the "
              "events before the problem were used)",
              "%s: byte %" PRIu64 ": %s", path, r->offset, (char *)msg);
      yajl_free_error(h, msg);
      failed = true;
      break;
    }
    r->offset += (uint64_t)n;
  }
  if (!failed && yajl_complete_parse(h) != yajl_status_ok) {
    unsigned char *msg = yajl_get_error(h, 0, NULL, 0);
    char *nl = strchr((char *)msg, '\n');
    if (nl)
      *nl = '\0';
    problem(p,
            "profile files that end early or are not valid JSON (the "
            "events before the problem were used)",
            "%s: byte %" PRIu64 ": %s", path, r->offset, (char *)msg);
    yajl_free_error(h, msg);
    failed = true;
  }
  if (failed)
    p->unreadable = true;
  r->h = NULL;
  yajl_free(h);
  free(buf);
  gzclose(gz);
  reset_file_state(r);
}

static bool trace_name(const char *name) {
  size_t n = strlen(name);
  return (n > 5 && strcmp(name + n - 5, ".json") == 0) ||
         (n > 8 && strcmp(name + n - 8, ".json.gz") == 0);
}

static int by_string(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void read_path(ctx *c, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
    read_file(c, path);
    return;
  }
  DIR *d = opendir(path);
  if (!d) {
    problem(c->r.p, "profile files that cannot be opened", "%s: %s", path,
            strerror(errno));
    c->r.p->unreadable = true;
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
    problem(c->r.p, "profile folders without .json or .json.gz traces", "%s",
            path);
  for (size_t i = 0; i < names.count; i++) {
    tl_buf full;
    tl_buf_init(&full);
    tl_buf_printf(&full, "%s/%s", path, names.items[i]);
    read_file(c, full.data);
    tl_buf_free(&full);
    free(names.items[i]);
  }
  TL_VEC_FREE(names);
}

tl_profile *tl_profile_read(const char *const *paths, size_t count) {
  tl_profile *p = tl_xcalloc(1, sizeof *p);
  ctx *c = tl_xcalloc(1, sizeof *c);
  c->r.p = p;
  tl_buf_init(&c->r.ev.name);
  for (size_t i = 0; i < count; i++)
    read_path(c, paths[i]);
  tl_buf_free(&c->r.ev.name);
  for (size_t i = 0; i < c->names.items.count; i++)
    free(c->names.items.items[i]);
  TL_VEC_FREE(c->names.items);
  map_free(&c->names.ids);
  free(c);
  return p;
}

void tl_profile_free(tl_profile *p) {
  if (!p)
    return;
  for (size_t i = 0; i < p->files.count; i++)
    free(p->files.items[i]);
  TL_VEC_FREE(p->files);
  for (size_t i = 0; i < p->graphs.count; i++) {
    tl_prof_graph *g = p->graphs.items[i];
    for (size_t k = 0; k < g->slots.count; k++)
      free(g->slots.items[k].name);
    TL_VEC_FREE(g->slots);
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
