/* pycode_resolve.c: what the walk of JIT Python output code collected
 * (pycode_internal.h) -> the analysis's calls and scopes: names copied into
 * the arena, the calls of known kernels kept, the functions' spans nested,
 * and each handle comment bound to its call. */
#include <stdlib.h>
#include <string.h>

#include "analyze/pycode_internal.h"
#include "util/mapped_text.h"

static int def_cmp_p(const void *a, const void *b) {
  return tl_str_cmp(((const tl_kernel_def *)a)->name,
                    ((const tl_kernel_def *)b)->name);
}

static int call_cmp_p(const void *a, const void *b) {
  const raw_call *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

static int handle_cmp_p(const void *a, const void *b) {
  const handle *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

static int span_cmp_p(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->end > y->end ? -1 : x->end < y->end;
}

/* The innermost function holding byte `pos`, or NULL at module level.
 * `fns` is sorted by start, one span a function, with their parents: the
 * functions around `pos` are the last one starting before it and those
 * around that one (functions nest), so the walk is as long as the nesting,
 * not the number of functions before `pos`. */
const span *tl_pycode_function_of(const span *fns, size_t n, uint32_t pos) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (fns[mid].start <= pos)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t j = lo ? lo - 1 : SIZE_MAX;
  while (j != SIZE_MAX && fns[j].end <= pos)
    j = fns[j].parent;
  return j == SIZE_MAX ? NULL : &fns[j];
}

/* What of `s` lies in `text`, copied into the arena. */
static tl_str own(tl_arena *arena, tl_str text, tl_str s, size_t *next) {
  if (!s.ptr || s.ptr < text.ptr || s.ptr > text.ptr + text.len)
    return s;
  tl_text_passing(text.ptr, (size_t)(s.ptr - text.ptr), next);
  return tl_arena_str(arena, s);
}

/* The names of the handles and definitions the chunks gave, copied in text
 * order before they are sorted and searched: a sort over names in the text
 * reads it everywhere again (a mapped text would be resident whole,
 * mapped_text.h). The calls' are copied as they are kept (resolve_calls). */
static void own_names(collected *c, tl_arena *arena, tl_str text) {
  size_t next = 0;
  for (size_t i = 0; i < c->handles.count; i++) {
    handle *h = &c->handles.items[i];
    tl_str key = own(arena, text, h->key, &next);
    bool prefix = h->name.ptr == h->key.ptr && h->name.len <= h->key.len;
    h->name = prefix ? (tl_str){key.ptr, h->name.len}
                     : own(arena, text, h->name, &next);
    h->key = key;
  }
  next = 0;
  for (size_t i = 0; i < c->defs.count; i++)
    c->defs.items[i].name = own(arena, text, c->defs.items[i].name, &next);
}

/* Keeps the calls of known kernels (`k(...)`, `k.run(...)` where k is
 * defined or named by a handle comment) and all extern / fallback calls,
 * and copies the names of those it keeps: most calls are of no kernel
 * (the calls are in text order, each name looked up where it is). */
static void resolve_calls(collected *c, tl_arena *arena, tl_str text) {
  tl_str *handle_names =
      tl_xmalloc((c->handles.count + 1) * sizeof *handle_names);
  for (size_t i = 0; i < c->handles.count; i++)
    handle_names[i] = c->handles.items[i].name;
  tl_sort(handle_names, c->handles.count, sizeof *handle_names, tl_str_cmp_p);
  tl_kernel_def *sorted = tl_xmalloc((c->defs.count + 1) * sizeof *sorted);
  if (c->defs.count)
    memcpy(sorted, c->defs.items, c->defs.count * sizeof *sorted);
  tl_sort(sorted, c->defs.count, sizeof *sorted, def_cmp_p);
  size_t kept = 0, next = 0;
  for (size_t i = 0; i < c->calls.count; i++) {
    raw_call r = c->calls.items[i];
    if (r.name.ptr >= text.ptr && r.name.ptr <= text.ptr + text.len)
      tl_text_passing(text.ptr, (size_t)(r.name.ptr - text.ptr), &next);
    if (r.kind == TL_KERNEL_UNKNOWN) {
      tl_kernel_def key = {.name = r.name};
      const tl_kernel_def *d =
          bsearch(&key, sorted, c->defs.count, sizeof *sorted, def_cmp_p);
      if (d)
        r.kind = d->kind;
      else if (bsearch(&r.name, handle_names, c->handles.count,
                       sizeof *handle_names, tl_str_cmp_p))
        r.kind = tl_pycode_kind_from_name(r.name);
      else
        continue; /* not a kernel: get_raw_stream(0), empty_strided(...) */
    }
    r.name = own(arena, text, r.name, &next);
    c->calls.items[kept++] = r;
  }
  c->calls.count = kept;
  free(sorted);
  free(handle_names);
  tl_sort(c->calls.items, c->calls.count, sizeof *c->calls.items, call_cmp_p);
  tl_sort(c->handles.items, c->handles.count, sizeof *c->handles.items,
          handle_cmp_p);
  tl_sort(c->functions.items, c->functions.count, sizeof *c->functions.items,
          span_cmp_p);
  /* A function parsed in chunks was seen once per chunk, each time ending
   * with that chunk's statements: keep its longest span (sorted first). */
  size_t spans = 0;
  for (size_t i = 0; i < c->functions.count; i++)
    if (spans == 0 ||
        c->functions.items[spans - 1].start != c->functions.items[i].start)
      c->functions.items[spans++] = c->functions.items[i];
  c->functions.count = spans;
  /* Each one's parent: the nearest function still open at its start (a
   * stack of the open ones, through the parents). */
  size_t open = SIZE_MAX;
  for (size_t i = 0; i < spans; i++) {
    span *f = &c->functions.items[i];
    while (open != SIZE_MAX && c->functions.items[open].end <= f->start)
      open = c->functions.items[open].parent;
    f->parent = open;
    open = i;
  }
}

/* The functions' names (one span each after resolve_calls, in text
 * order), copied into the arena; and `out->scopes`, sorted, one each. */
static void own_functions(collected *c, tl_arena *arena, tl_str text,
                          tl_code_analysis *out) {
  size_t next = 0, n = c->functions.count;
  for (size_t i = 0; i < n; i++)
    c->functions.items[i].name =
        own(arena, text, c->functions.items[i].name, &next);
  out->scopes = tl_arena_alloc(arena, (n + 1) * sizeof *out->scopes);
  for (size_t i = 0; i < n; i++)
    if (c->functions.items[i].name.len)
      out->scopes[out->scope_count++] = c->functions.items[i].name;
  out->scope_count = tl_sort_unique(out->scopes, out->scope_count,
                                    sizeof *out->scopes, tl_str_cmp_p);
}

typedef struct by_name {
  tl_str name;
  uint32_t start;
  size_t index; /* into the calls / handles */
} by_name;

static int by_name_cmp(const void *a, const void *b) {
  const by_name *x = a, *y = b;
  int c = tl_str_cmp(x->name, y->name);
  if (c)
    return c;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* First entry of `idx` with this name starting at or after `pos`. */
static size_t lower_bound(const by_name *idx, size_t n, tl_str name,
                          uint32_t pos) {
  by_name key = {name, pos, 0};
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (by_name_cmp(&idx[mid], &key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Binds each handle comment to the first call of its kernel after it, when
 * that call is in the same function and comes before the next handle comment
 * of the same kernel. Lines between (`stream0 = get_raw_stream(0)`,
 * `k_xnumel = ...`, other comments) are never calls of the kernel. */
void tl_pycode_bind_handles(collected *c, tl_call_site *sites) {
  size_t nc = c->calls.count, nh = c->handles.count;
  by_name *calls = tl_xmalloc((nc + 1) * sizeof *calls);
  by_name *handles = tl_xmalloc((nh + 1) * sizeof *handles);
  for (size_t i = 0; i < nc; i++)
    calls[i] = (by_name){c->calls.items[i].name, c->calls.items[i].start, i};
  for (size_t i = 0; i < nh; i++)
    handles[i] =
        (by_name){c->handles.items[i].name, c->handles.items[i].start, i};
  tl_sort(calls, nc, sizeof *calls, by_name_cmp);
  tl_sort(handles, nh, sizeof *handles, by_name_cmp);
  const span *fns = c->functions.items;
  size_t nf = c->functions.count;
  for (size_t h = 0; h < nh; h++) {
    const handle *hd = &c->handles.items[handles[h].index];
    uint32_t limit = UINT32_MAX;
    if (h + 1 < nh && tl_str_eq(handles[h + 1].name, hd->name))
      limit = handles[h + 1].start;
    size_t i = lower_bound(calls, nc, hd->name, hd->end);
    if (i >= nc || !tl_str_eq(calls[i].name, hd->name) ||
        calls[i].start >= limit)
      continue;
    tl_call_site *site = &sites[calls[i].index];
    if (site->handle_key.len == 0 &&
        tl_pycode_function_of(fns, nf, calls[i].start) ==
            tl_pycode_function_of(fns, nf, hd->start))
      site->handle_key = hd->key;
  }
  free(calls);
  free(handles);
}

void tl_pycode_resolve(collected *c, tl_arena *arena, tl_str text,
                       tl_code_analysis *out) {
  own_names(c, arena, text);
  resolve_calls(c, arena, text);
  own_functions(c, arena, text, out);
}
