/* profile_events.c: one complete trace event -> the profile summary (see
 * profile_events.h; the matching rules are in docs/provenance-json.md).
 *
 * CPU events: per-thread stacks of open events (Kineto writes each thread's
 * CPU events in start order; an event that starts before its predecessor is
 * counted) say which compiled graph call and which kernel call an event is
 * inside: its *place*, (graph, kernel call position, graph call ordinal),
 * interned as a small integer per file.
 *
 * AOTInductor runs: kernel events that no graph call holds (graph_<n>_cpp_*,
 * triton_*, the C shim's aoti_torch_*, Triton's cuLaunchKernel) directly
 * inside one event are one call of the graph "AOTInductor" (enter_run);
 * a GPU activity of a run's launch takes the run's k-th call of its name.
 * A graph call's (or run's) kernels are counted when it ends (end_call), so
 * a truncated file's unfinished call is left out whole.
 *
 * GPU activities: attributed by launch links, fixed 8-byte records in two
 * tables (profile_map.h): "External id" -> place and "correlation" -> place.
 * What the tables hold, and so what bounds the memory of a GPU trace:
 *  - ext: one record per distinct External id of a CPU event inside a graph
 *    call, to the file's end (an op may launch any number of activities);
 *  - corr: one record per CPU event with a correlation id inside a graph
 *    call, and per kernel launch / memcpy / memset / graph launch outside
 *    one (place "outside"); a launch whose API makes exactly one activity
 *    (cu/cuda/hip *LaunchKernel*, *Memcpy*, *Memset*) is dropped when its
 *    activity is read, the others stay to the file's end;
 *  - pending: GPU activities read before their launch (at most PEND_CAP),
 *    attributed when the launch is read, as if they came right after it.
 * Kineto writes every CPU event before the GPU activities, so there the
 * tables hold every in-graph op and launch of the file when the first GPU
 * activity is read; traces that interleave them hold only the launches in
 * flight (plus the ext records).
 */
#include "profile/profile_events.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  STACK_CAP = 4096, /* CPU events nested deeper are counted, not tracked */
  MAX_OCCURRENCE = 0xFFFF,
  PEND_CAP = 1 << 18 /* GPU activities waiting for their launch */
};

#define SINGLE (UINT32_C(1) << 31) /* corr record: dropped when matched */
#define OUTSIDE 1u                 /* value of a launch outside graph calls */

enum frame_kind { K_OTHER, K_REGION, K_CF, K_CFB, K_GRAPH, K_KERNEL };

#define ROOT (-2) /* graph_frame of a run held by the thread's top level */

/* One open CPU event on a thread's stack and what it is inside. */
typedef struct frame {
  int64_t start, end;
  int32_t graph;       /* innermost graph call's graph index, or -1 */
  int32_t graph_frame; /* its position on this stack */
  int32_t slot;        /* the kernel call it is inside, or -1 */
  int32_t cid;         /* compile id (interned) of the innermost region */
  uint8_t kind, phase;
  bool in_kernel;
  uint32_t run_call;  /* the ordinal of the graph call or run it is in */
  struct gcall *call; /* K_GRAPH, or a run's parent: the call's kernels */
} frame;

/* A kernel call read inside a graph call that has not ended yet. */
typedef struct kcall {
  int32_t slot;
  int64_t dur;
} kcall;

/* A graph call being read: its kernels are counted when it ends (a
 * truncated file's unfinished call is left out whole). */
typedef struct gcall {
  int32_t graph;
  bool run;           /* an AOTInductor run: no graph call event */
  uint32_t ordinal;   /* a run's call ordinal in its graph */
  int64_t start, end; /* a run's first kernel start, last kernel end */
  int64_t dur;
  tl_u64map occ; /* name id -> events of that name so far */
  TL_VEC(kcall) kernels;
} gcall;

typedef struct thread {
  int64_t last_ts;
  TL_VEC(frame) stack;
  frame root; /* holds an AOTInductor run at the top level */
} thread;

#define NO_RUN UINT32_MAX

typedef struct place {
  int32_t graph, slot;
  uint32_t run_call; /* the ordinal of its graph call or run (GPU time per
                        call), NO_RUN: none */
  bool run;          /* an AOTInductor run's launch outside kernels */
} place;

/* A GPU activity read before its launch. */
typedef struct pend {
  int64_t dur, ext, corr;
  uint64_t offset;
  int32_t name; /* interned Inductor kernel name, or -1 */
  int32_t next; /* next with the same key, or in the free list; -1: none */
  bool has_ext, has_corr;
} pend;

typedef struct tl_prof_attr {
  TL_VEC(thread) threads;
  tl_u64map thread_ids;
  tl_u64map seq_cid;  /* sequence number -> cid + 1 of the forward */
  tl_u64map slot_ids; /* graph, name id, occurrence -> slot index */
  TL_VEC(place) places;
  tl_u64map place_ids; /* hash of graph, slot, run call -> place index */
  tl_u64map run_occ;   /* hash of graph, run call, name id -> events */
  tl_links ext, corr;  /* id -> place index + 1 (| SINGLE) */
  TL_VEC(pend) pend;
  int32_t pend_free;
  size_t pend_count;
  tl_u64map pend_corr, pend_ext; /* id -> first pending of that id */
} tl_prof_attr;

void tl_prof_count(tl_profile *p, const char *what, const char *fmt, ...) {
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

static bool starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The output-code name of an Inductor kernel event, or NULL: triton_*,
 * cpp_* and graph_<digits>_<name> (C++ kernels with enable_kernel_profile,
 * codegen/cpp.py). */
static const char *inductor_name(const char *name) {
  while (starts(name, "graph_")) {
    const char *d = name + 6;
    if (*d < '0' || *d > '9')
      return NULL;
    while (*d >= '0' && *d <= '9')
      d++;
    if (*d != '_')
      return NULL;
    name = d + 1;
  }
  if (starts(name, "triton_") || starts(name, "cpp_"))
    return name;
  return NULL;
}

/* ---- places and links ---------------------------------------------------- */
static uint64_t triple(uint64_t a, uint64_t b, uint64_t c) {
  return tl_prof_mix(tl_prof_mix(a ^ 0x9E3779B97F4A7C15ULL) ^ b) ^
         tl_prof_mix(c + 0xC2B2AE3D27D4EB4FULL);
}

/* The place value of (graph, slot, run call): hashed, verified against the
 * place found (a collision moves on to the next hash value). */
static uint32_t place_val(tl_prof_attr *a, int32_t graph, int32_t slot,
                          uint32_t run_call, bool run) {
  if (!a->places.count) {
    place outside = {-1, -1, NO_RUN, false}; /* index 0: value OUTSIDE */
    TL_VEC_PUSH(a->places, outside);
  }
  uint64_t key = triple((uint32_t)graph, (uint32_t)slot, run_call);
  for (;; key++) {
    uint64_t idx;
    if (!tl_u64map_get(&a->place_ids, key, &idx))
      break;
    const place *pl = &a->places.items[idx];
    if (pl->graph == graph && pl->slot == slot && pl->run_call == run_call)
      return (uint32_t)idx + 1;
  }
  place pl = {graph, slot, run_call, run};
  TL_VEC_PUSH(a->places, pl);
  tl_u64map_put(&a->place_ids, key, a->places.count - 1);
  return (uint32_t)a->places.count;
}

/* Launch APIs that make one GPU activity, or several (graph launches). */
static uint32_t launch_kind(const char *name, bool *launches) {
  *launches = false;
  if (!starts(name, "cu") && !starts(name, "hip"))
    return 0;
  if (strstr(name, "GraphLaunch")) {
    *launches = true;
    return 0;
  }
  *launches = strstr(name, "LaunchKernel") || strstr(name, "Memcpy") ||
              strstr(name, "Memset");
  return *launches ? SINGLE : 0;
}

/* Records the launch links of a CPU event read inside `graph` (or -1). */
static void link_cpu(tl_prof_attr *a, const tl_prof_event *e, int32_t graph,
                     int32_t slot, uint32_t run_call, bool run) {
  bool launches = false;
  uint32_t single = e->has_corr ? launch_kind(e->name.data, &launches) : 0;
  if (graph >= 0) {
    uint32_t v = place_val(a, graph, slot, run_call, run && slot < 0);
    if (e->has_ext)
      tl_links_put(&a->ext, e->ext, v);
    if (e->has_corr)
      tl_links_put(&a->corr, e->corr, v | single);
  } else if (e->has_corr && launches) {
    tl_links_put(&a->corr, e->corr, OUTSIDE | single);
  }
}

/* The place of a GPU activity: its External id's, else its correlation's
 * (a one-activity launch record is dropped here). 0: no launch read. */
static uint32_t gpu_lookup(tl_prof_attr *a, bool has_ext, int64_t ext,
                           bool has_corr, int64_t corr) {
  uint32_t cv = 0, v = 0;
  if (has_corr && tl_links_get(&a->corr, corr, &cv) && (cv & SINGLE))
    tl_links_del(&a->corr, corr);
  if (has_ext && tl_links_get(&a->ext, ext, &v))
    return v;
  return cv & ~SINGLE;
}

/* Adds a GPU activity's time to the place with value `v` (>= 1). */
static int32_t find_slot(tl_prof_reader *r, int32_t graph, int32_t nid,
                         uint32_t occurrence, bool is_extern);

/* A GPU activity launched by an AOTInductor run outside any kernel event
 * (a cuLaunchKernel of its wrapper): the k-th activity of its name in that
 * call of the run is the run's k-th kernel call of the name. */
static int32_t run_slot(tl_prof_reader *r, const place *pl, const char *name) {
  const char *kname = inductor_name(name);
  const char *use = kname ? kname : name;
  int32_t nid = tl_strtab_intern(&r->names, use, strlen(use));
  uint64_t key = triple((uint32_t)pl->graph, pl->run_call, (uint32_t)nid),
           n = 0;
  tl_u64map_get(&r->attr->run_occ, key, &n);
  tl_u64map_put(&r->attr->run_occ, key, n + 1);
  if (n > MAX_OCCURRENCE)
    return -1;
  return find_slot(r, pl->graph, nid, (uint32_t)n, !kname);
}

static void attribute(tl_prof_reader *r, uint32_t v, int64_t dur, bool inductor,
                      uint64_t offset, const char *name) {
  if (v == OUTSIDE) {
    if (inductor)
      tl_prof_count(r->p,
                    "Inductor GPU kernels whose launch is not inside a "
                    "compiled graph call (not attributed)",
                    "%s: byte %" PRIu64 ": %.200s", r->fname, offset, name);
    return;
  }
  place pl = r->attr->places.items[v - 1];
  tl_prof_graph *g = r->p->graphs.items[pl.graph];
  g->gpu_total_ns += dur;
  if (pl.run_call != NO_RUN) { /* GPU time per graph call or run */
    while (g->gpu_call_ns.count <= pl.run_call)
      TL_VEC_PUSH(g->gpu_call_ns, 0);
    g->gpu_call_ns.items[pl.run_call] += dur;
  }
  if (pl.slot < 0 && pl.run)
    pl.slot = run_slot(r, &pl, name);
  if (pl.slot >= 0) {
    g->slots.items[pl.slot].gpu_ns += dur;
    g->slots.items[pl.slot].gpu_count++;
    TL_VEC_PUSH(g->slots.items[pl.slot].gpu_calls, dur);
  } else {
    g->gpu_unknown_ns += dur;
    g->gpu_unknown_count++;
  }
}

/* ---- GPU activities read before their launch ----------------------------- */
static void pend_add(tl_prof_reader *r, const tl_prof_event *e) {
  tl_prof_attr *a = r->attr;
  const char *kname = inductor_name(e->name.data);
  pend pd = {e->dur,
             e->ext,
             e->corr,
             tl_prof_at(r),
             kname ? tl_strtab_intern(&r->names, e->name.data, e->name.len)
                   : -1,
             -1,
             e->has_ext,
             e->has_corr};
  tl_u64map *by = e->has_corr ? &a->pend_corr : &a->pend_ext;
  uint64_t key = (uint64_t)(e->has_corr ? e->corr : e->ext), head;
  if (tl_u64map_get(by, key, &head))
    pd.next = (int32_t)head;
  int32_t i = a->pend_free;
  if (i >= 0) {
    a->pend_free = a->pend.items[i].next;
    a->pend.items[i] = pd;
  } else {
    TL_VEC_PUSH(a->pend, pd);
    i = (int32_t)a->pend.count - 1;
  }
  tl_u64map_put(by, key, (uint64_t)i);
  a->pend_count++;
}

/* Attributes the chain of pending activities starting at `i` as read now
 * (v == 0: their launch is not linked: not attributed), and frees it. */
static void pend_settle(tl_prof_reader *r, int32_t i, bool now) {
  tl_prof_attr *a = r->attr;
  while (i >= 0) {
    pend *pd = &a->pend.items[i];
    uint32_t v =
        now ? gpu_lookup(a, pd->has_ext, pd->ext, pd->has_corr, pd->corr) : 0;
    const char *name = pd->name >= 0 ? r->names.items.items[pd->name] : "";
    attribute(r, v ? v : OUTSIDE, pd->dur, pd->name >= 0, pd->offset, name);
    int32_t next = pd->next;
    pd->next = a->pend_free;
    a->pend_free = i;
    a->pend_count--;
    i = next;
  }
}

/* A CPU event with the id a pending activity waits for settles it. */
static void pend_resolve(tl_prof_reader *r, const tl_prof_event *e) {
  tl_prof_attr *a = r->attr;
  uint64_t head;
  if (e->has_corr && tl_u64map_get(&a->pend_corr, (uint64_t)e->corr, &head)) {
    tl_u64map_del(&a->pend_corr, (uint64_t)e->corr);
    pend_settle(r, (int32_t)head, true);
  }
  if (e->has_ext && tl_u64map_get(&a->pend_ext, (uint64_t)e->ext, &head)) {
    tl_u64map_del(&a->pend_ext, (uint64_t)e->ext);
    pend_settle(r, (int32_t)head, true);
  }
}

static void gpu_event(tl_prof_reader *r, const tl_prof_event *e) {
  tl_prof_attr *a = r->attr;
  uint32_t v = gpu_lookup(a, e->has_ext, e->ext, e->has_corr, e->corr);
  if (v) {
    attribute(r, v, e->dur, inductor_name(e->name.data), tl_prof_at(r),
              e->name.data);
  } else if (!e->has_ext && !e->has_corr) {
    tl_prof_count(r->p,
                  "GPU activities with no External id or correlation "
                  "(not attributed)",
                  "%s: byte %" PRIu64 ": %.200s", r->fname, tl_prof_at(r),
                  e->name.data);
  } else if (r->devices && a->pend_count < PEND_CAP) {
    pend_add(r, e); /* its launch may come later */
  } else {
    attribute(r, OUTSIDE, e->dur, inductor_name(e->name.data), tl_prof_at(r),
              e->name.data);
  }
}

/* ---- CPU events ---------------------------------------------------------- */
static thread *thread_of(tl_prof_attr *a, uint64_t pid, uint64_t tid) {
  uint64_t key = tl_prof_mix(pid) ^ (tid * 0x9E3779B97F4A7C15ULL);
  uint64_t idx;
  if (tl_u64map_get(&a->thread_ids, key, &idx))
    return &a->threads.items[idx];
  thread t = {0};
  t.last_ts = INT64_MIN;
  TL_VEC_PUSH(a->threads, t);
  tl_u64map_put(&a->thread_ids, key, a->threads.count - 1);
  return &a->threads.items[a->threads.count - 1];
}

/* Counts a graph call that ended (commit) or leaves it out, and frees it. */
static void end_call(tl_prof_reader *r, frame *f, bool commit) {
  gcall *c = f->call;
  if (!c)
    return;
  if (commit) {
    tl_prof_graph *g = r->p->graphs.items[c->graph];
    if (c->run)
      c->dur = c->end - c->start;
    g->calls++;
    g->cpu_total_ns += c->dur;
    TL_VEC_PUSH(g->call_ns, c->dur);
    TL_VEC_PUSH(g->call_ordinal, c->ordinal);
    for (size_t i = 0; i < c->kernels.count; i++) {
      tl_prof_slot *s = &g->slots.items[c->kernels.items[i].slot];
      s->cpu_ns += c->kernels.items[i].dur;
      s->cpu_count++;
      TL_VEC_PUSH(s->cpu_calls, c->kernels.items[i].dur);
    }
  } else {
    r->p->files.items[r->file].dropped_calls++;
  }
  tl_u64map_free(&c->occ);
  TL_VEC_FREE(c->kernels);
  free(c);
  f->call = NULL;
}

static void pop_frame(tl_prof_reader *r, thread *t, bool commit) {
  end_call(r, &t->stack.items[--t->stack.count], commit);
}

/* The graph of (this file, key, compile id, phase): hashed, verified
 * against the graph found (a collision moves on to the next hash value). */
static int32_t find_graph(tl_prof_reader *r, const char *key, int32_t cid,
                          tl_prof_phase phase) {
  tl_profile *p = r->p;
  const char *cid_s = cid >= 0 ? r->names.items.items[cid] : NULL;
  int32_t kid = tl_strtab_intern(&r->names, key, strlen(key));
  uint64_t h = triple(r->file, (uint32_t)kid,
                      ((uint64_t)(uint32_t)cid << 8) | (uint64_t)phase);
  for (;; h++) {
    uint64_t idx;
    if (!tl_u64map_get(&r->graph_ids, h, &idx))
      break;
    tl_prof_graph *g = p->graphs.items[idx];
    if (g->file == r->file && g->phase == phase && strcmp(g->key, key) == 0 &&
        ((!g->compile_id && !cid_s) ||
         (g->compile_id && cid_s && strcmp(g->compile_id, cid_s) == 0)))
      return (int32_t)idx;
  }
  tl_prof_graph *g = tl_xcalloc(1, sizeof *g);
  g->file = r->file;
  g->key = tl_xstrdup(key);
  g->compile_id = cid_s ? tl_xstrdup(cid_s) : NULL;
  g->phase = phase;
  TL_VEC_PUSH(p->graphs, g);
  tl_u64map_put(&r->graph_ids, h, p->graphs.count - 1);
  return (int32_t)(p->graphs.count - 1);
}

/* The slot of (graph, name id, occurrence): a hash of the three, verified
 * against the slot found (a collision moves on to the next hash value). */
static int32_t find_slot(tl_prof_reader *r, int32_t graph, int32_t nid,
                         uint32_t occurrence, bool is_extern) {
  tl_prof_attr *a = r->attr;
  tl_prof_graph *g = r->p->graphs.items[graph];
  uint64_t key =
      tl_prof_mix(((uint64_t)(uint32_t)graph << 32) ^ (uint32_t)nid) ^
      tl_prof_mix(occurrence + UINT64_C(0x9E3779B97F4A7C15));
  for (;; key++) {
    uint64_t idx;
    if (!tl_u64map_get(&a->slot_ids, key, &idx))
      break;
    const tl_prof_slot *s = &g->slots.items[idx];
    if (s->graph == graph && s->name_id == nid && s->occurrence == occurrence)
      return (int32_t)idx;
  }
  tl_prof_slot s = {0};
  s.name = tl_xstrdup(r->names.items.items[nid]);
  s.name_id = nid;
  s.graph = graph;
  s.occurrence = occurrence;
  s.is_extern = is_extern;
  TL_VEC_PUSH(g->slots, s);
  tl_u64map_put(&a->slot_ids, key, g->slots.count - 1);
  return (int32_t)(g->slots.count - 1);
}

/* A forward op and its backward share "Sequence number" (the autograd
 * node's); "Fwd thread id" is 0 on the forward op itself, so only the number
 * links them (with several forward threads the latest forward wins). */
static void enter_region_or_function(tl_prof_reader *r, const tl_prof_event *e,
                                     frame *f) {
  const char *name = e->name.data;
  tl_prof_attr *a = r->attr;
  if (starts(name, "Torch-Compiled Region")) {
    f->kind = K_REGION;
    const char *colon = strstr(name, ": ");
    f->cid =
        colon ? tl_strtab_intern(&r->names, colon + 2, strlen(colon + 2)) : -1;
    f->phase = TL_PROF_INFERENCE;
  } else if (strcmp(name, "CompiledFunction") == 0) {
    f->kind = K_CF;
    f->phase = TL_PROF_FORWARD;
    if (e->has_seq)
      tl_u64map_put(&a->seq_cid, (uint64_t)e->seq, (uint64_t)(f->cid + 1));
  } else if (strcmp(name, "CompiledFunctionBackward") == 0) {
    f->kind = K_CFB;
    f->phase = TL_PROF_BACKWARD;
    uint64_t cid1;
    if (e->has_seq && tl_u64map_get(&a->seq_cid, (uint64_t)e->seq, &cid1))
      f->cid = (int32_t)cid1 - 1;
  }
}

static void enter_graph(tl_prof_reader *r, const tl_prof_event *e, thread *t,
                        frame *f) {
  const char *key = e->name.data + strlen("## Call CompiledFxGraph ");
  size_t klen = strlen(key);
  if (klen >= 3 && strcmp(key + klen - 3, " ##") == 0)
    klen -= 3;
  char keybuf[TL_PROF_NAME_CAP + 1];
  memcpy(keybuf, key, klen);
  keybuf[klen] = '\0';
  f->kind = K_GRAPH;
  f->graph = find_graph(r, keybuf, f->cid, (tl_prof_phase)f->phase);
  f->graph_frame = (int32_t)t->stack.count;
  f->slot = -1;
  f->in_kernel = false;
  f->call = tl_xcalloc(1, sizeof *f->call);
  f->call->graph = f->graph;
  f->call->dur = e->dur;
  f->call->ordinal = (uint32_t)r->p->graphs.items[f->graph]->runs++;
  f->run_call = f->call->ordinal;
}

/* A direct child of a graph call that is an Inductor or extern kernel. */
static void enter_kernel(tl_prof_reader *r, const tl_prof_event *e, thread *t,
                         frame *f) {
  const char *name = e->name.data;
  const char *kname = inductor_name(name);
  bool is_extern =
      !kname && (starts(name, "aten::") || starts(name, "aoti_torch_"));
  if (!kname && !is_extern)
    return;
  if (!kname)
    kname = name;
  frame *gf =
      f->graph_frame == ROOT ? &t->root : &t->stack.items[f->graph_frame];
  int32_t nid = tl_strtab_intern(&r->names, kname, strlen(kname));
  uint64_t n = 0;
  tl_u64map_get(&gf->call->occ, (uint64_t)nid, &n);
  tl_u64map_put(&gf->call->occ, (uint64_t)nid, n + 1);
  if (n > MAX_OCCURRENCE) {
    tl_prof_count(r->p,
                  "kernel called more than 65535 times in one graph call "
                  "(later calls not attributed)",
                  "%s: byte %" PRIu64 ": %.200s", r->fname, tl_prof_at(r),
                  name);
    return;
  }
  f->kind = K_KERNEL;
  f->slot = find_slot(r, f->graph, nid, (uint32_t)n, is_extern);
  f->in_kernel = true;
  kcall kc = {f->slot, e->dur};
  TL_VEC_PUSH(gf->call->kernels, kc);
}

/* The new frame for `e`: inherits what its parent is inside. */
static frame open_frame(tl_prof_reader *r, const tl_prof_event *e, thread *t) {
  while (t->stack.count) {
    frame *top = &t->stack.items[t->stack.count - 1];
    if (top->end > e->ts || (top->end == e->ts && top->start == e->ts))
      break;
    pop_frame(r, t, true);
  }
  frame f = {e->ts,   e->ts + e->dur,    -1,    -1,     -1,  -1,
             K_OTHER, TL_PROF_INFERENCE, false, NO_RUN, NULL};
  if (t->stack.count) {
    const frame *up = &t->stack.items[t->stack.count - 1];
    f.graph = up->graph;
    f.graph_frame = up->graph_frame;
    f.slot = up->slot;
    f.cid = up->cid;
    f.phase = up->phase;
    f.in_kernel = up->in_kernel;
    f.run_call = up->run_call;
  }
  return f;
}

/* An event that belongs to an AOTInductor run (no graph call event around
 * it): a C++ or Triton kernel event (graph_<n>_cpp_*, triton_*), a C shim
 * extern (aoti_torch_*), or a driver launch (cuLaunchKernel*,
 * hipModuleLaunchKernel: Triton's; ATen launches with cudaLaunchKernel). */
static bool run_member(const char *name) {
  return inductor_name(name) || starts(name, "aoti_torch_") ||
         starts(name, "cuLaunchKernel") ||
         starts(name, "hipModuleLaunchKernel");
}

/* A run member read directly inside `parent` (or at the thread's top
 * level): joins the parent's run, opened by its first member. All members
 * directly inside one event are one call of the run. */
static void enter_run(tl_prof_reader *r, const tl_prof_event *e, thread *t,
                      frame *f) {
  int32_t at = t->stack.count ? (int32_t)t->stack.count - 1 : ROOT;
  frame *parent = at == ROOT ? &t->root : &t->stack.items[at];
  if (parent->kind == K_KERNEL || parent->in_kernel)
    return;
  gcall *c = parent->call;
  if (!c) {
    c = parent->call = tl_xcalloc(1, sizeof *c);
    c->graph = find_graph(r, "AOTInductor", -1, TL_PROF_INFERENCE);
    r->p->graphs.items[c->graph]->run = true;
    c->run = true;
    c->ordinal = (uint32_t)r->p->graphs.items[c->graph]->runs++;
    c->start = e->ts;
  }
  if (e->ts + e->dur > c->end)
    c->end = e->ts + e->dur;
  f->graph = c->graph;
  f->graph_frame = at;
  f->run_call = c->ordinal;
  f->slot = -1;
  if (inductor_name(e->name.data) || starts(e->name.data, "aoti_torch_"))
    enter_kernel(r, e, t, f);
  f->in_kernel = true; /* a launch: its activity's name says the kernel */
}

static void cpu_event(tl_prof_reader *r, const tl_prof_event *e) {
  tl_profile *p = r->p;
  const char *name = e->name.data;
  if (starts(name, "ProfilerStep#")) {
    p->steps++;
    p->step_ns += e->dur;
  }
  thread *t = thread_of(r->attr, e->pid, e->tid);
  if (e->ts < t->last_ts)
    tl_prof_count(p,
                  "CPU events out of start order on their thread (nesting "
                  "read as written)",
                  "%s: byte %" PRIu64 ": %.200s", r->fname, tl_prof_at(r),
                  name);
  t->last_ts = e->ts;
  frame f = open_frame(r, e, t);
  enter_region_or_function(r, e, &f);
  if (starts(name, "## Call CompiledFxGraph "))
    enter_graph(r, e, t, &f);
  else if (f.kind == K_OTHER && f.graph >= 0 && !f.in_kernel &&
           f.graph_frame < (int32_t)t->stack.count)
    enter_kernel(r, e, t, &f);
  else if (f.kind == K_OTHER && f.graph < 0 && run_member(name))
    enter_run(r, e, t, &f);
  if (r->devices) {
    link_cpu(r->attr, e, f.graph, f.slot, f.run_call,
             f.graph >= 0 && r->p->graphs.items[f.graph]->run);
    if (r->attr->pend_count)
      pend_resolve(r, e);
  }
  if (t->stack.count >= STACK_CAP) {
    tl_prof_count(p, "CPU events nested deeper than 4096 levels (not tracked)",
                  "%s: byte %" PRIu64 ": %.200s", r->fname, tl_prof_at(r),
                  name);
    end_call(r, &f, true);
    return;
  }
  TL_VEC_PUSH(t->stack, f);
}

static bool is_gpu_cat(const char *cat) {
  return strcmp(cat, "kernel") == 0 || strcmp(cat, "Kernel") == 0 ||
         strcmp(cat, "gpu_memcpy") == 0 || strcmp(cat, "gpu_memset") == 0;
}

void tl_prof_events_add(tl_prof_reader *r) {
  tl_prof_event *e = &r->ev;
  r->p->events++;
  r->p->files.items[r->file].events++;
  if (e->ph != 'X')
    return;
  if (strcmp(e->cat, "Trace") == 0 ||
      strcmp(e->cat, "gpu_user_annotation") == 0)
    return;
  if (!e->has_ts || !e->has_dur || e->bad_ts || e->bad_dur || e->dur < 0) {
    tl_prof_count(r->p,
                  "complete events with a missing, negative or unreadable "
                  "ts or dur (skipped)",
                  "%s: byte %" PRIu64 ": %.200s", r->fname, tl_prof_at(r),
                  e->name.data);
    return;
  }
  if (is_gpu_cat(e->cat))
    gpu_event(r, e);
  else
    cpu_event(r, e);
}

void tl_prof_events_begin(tl_prof_reader *r) {
  r->attr = tl_xcalloc(1, sizeof *r->attr);
  r->attr->pend_free = -1;
}

void tl_prof_events_end(tl_prof_reader *r, bool complete) {
  tl_prof_attr *a = r->attr;
  for (size_t i = 0; i < a->pend_corr.cap; i++) /* launch never read */
    if (a->pend_corr.vals[i])
      pend_settle(r, (int32_t)(a->pend_corr.vals[i] - 1), false);
  for (size_t i = 0; i < a->pend_ext.cap; i++)
    if (a->pend_ext.vals[i])
      pend_settle(r, (int32_t)(a->pend_ext.vals[i] - 1), false);
  for (size_t i = 0; i < a->threads.count; i++) {
    thread *t = &a->threads.items[i];
    while (t->stack.count)
      pop_frame(r, t, complete);
    end_call(r, &t->root, complete);
    TL_VEC_FREE(t->stack);
  }
  tl_prof_file *file = &r->p->files.items[r->file];
  if (file->dropped_calls && file->why) { /* said with the truncation too */
    tl_buf why;
    tl_buf_init(&why);
    tl_buf_printf(&why,
                  "%s; %" PRIu64 " unfinished graph call(s) left out of the "
                  "totals",
                  file->why, file->dropped_calls);
    free(file->why);
    file->why = tl_buf_detach(&why);
  }
  if (file->dropped_calls)
    tl_prof_count(r->p,
                  "graph calls left out of the totals because the file ends "
                  "before them (truncated: their kernels are missing)",
                  "%s: %" PRIu64 " unfinished call(s) at the end", file->path,
                  file->dropped_calls);
  TL_VEC_FREE(a->threads);
  tl_u64map_free(&a->thread_ids);
  tl_u64map_free(&a->seq_cid);
  tl_u64map_free(&a->slot_ids);
  TL_VEC_FREE(a->places);
  tl_u64map_free(&a->place_ids);
  tl_u64map_free(&a->run_occ);
  tl_links_free(&a->ext);
  tl_links_free(&a->corr);
  TL_VEC_FREE(a->pend);
  tl_u64map_free(&a->pend_corr);
  tl_u64map_free(&a->pend_ext);
  free(a);
  r->attr = NULL;
}
