/* guards.c: a compile's guard tree -> its leaf guards; two compiles' guards
 * -> what changed (see guards.h). */
#include "diff/guards.h"

#include <stdlib.h>
#include <string.h>

/* `source=L['x'], accessed_by=...`: the source, up to the `, accessed_by=`
 * (a source may hold commas: G['a'][1, 2]). */
static tl_str manager_source(tl_str rest) {
  static const char key[] = "source=", next[] = ", accessed_by=";
  const char *p = NULL;
  for (size_t i = 0; i + sizeof key - 1 <= rest.len; i++)
    if (memcmp(rest.ptr + i, key, sizeof key - 1) == 0) {
      p = rest.ptr + i + sizeof key - 1;
      break;
    }
  if (!p)
    return (tl_str){rest.ptr, 0};
  const char *end = rest.ptr + rest.len;
  for (const char *q = p; q + sizeof next - 1 <= end; q++)
    if (memcmp(q, next, sizeof next - 1) == 0)
      return (tl_str){p, (size_t)(q - p)};
  return tl_str_trim((tl_str){p, (size_t)(end - p)});
}

enum { MAX_LEVEL = 4096 };

void tl_guards_read(tl_str text, tl_guards *out) {
  /* The source of the manager open at each level (levels past MAX_LEVEL
   * take the deepest one kept). */
  tl_str *sources = tl_xcalloc(MAX_LEVEL + 1, sizeof *sources);
  size_t at = 0;
  while (at < text.len) {
    const char *nl = memchr(text.ptr + at, '\n', text.len - at);
    size_t end = nl ? (size_t)(nl - text.ptr) : text.len;
    tl_str line = {text.ptr + at, end - at};
    at = end + 1;
    size_t level = 0, i = 0;
    while (i + 1 < line.len && line.ptr[i] == '|' && line.ptr[i + 1] == ' ')
      level++, i += 2;
    if (i + 3 > line.len || memcmp(line.ptr + i, "+- ", 3) != 0)
      continue;
    tl_str item = {line.ptr + i + 3, line.len - i - 3};
    const char *colon = memchr(item.ptr, ':', item.len);
    if (level > MAX_LEVEL)
      level = MAX_LEVEL;
    tl_str head = colon ? (tl_str){item.ptr, (size_t)(colon - item.ptr)}
                        : tl_str_trim(item);
    bool manager = head.len >= 12 &&
                   memcmp(head.ptr + head.len - 12, "GuardManager", 12) == 0;
    if (manager || !colon) {
      /* RootGuardManager, GuardManager: source=..., DictGuardManager: ... */
      tl_str rest =
          colon ? (tl_str){colon + 1, (size_t)(item.ptr + item.len - colon - 1)}
                : (tl_str){item.ptr, 0};
      if (level + 1 <= MAX_LEVEL)
        sources[level + 1] = manager_source(rest);
      continue;
    }
    tl_guard g = {0};
    g.kind = tl_str_trim(head);
    g.source = sources[level];
    tl_str rest = tl_str_trim(
        (tl_str){colon + 1, (size_t)(item.ptr + item.len - colon - 1)});
    g.code = rest;
    for (size_t k = 0; k + 3 <= rest.len; k++)
      if (rest.ptr[k] == ' ' && rest.ptr[k + 1] == ' ' &&
          (rest.ptr[k + 2] == '#' || rest.ptr[k + 2] == ' ')) {
        size_t h = k;
        while (h < rest.len && rest.ptr[h] == ' ')
          h++;
        if (h < rest.len && rest.ptr[h] == '#') {
          g.code = tl_str_trim((tl_str){rest.ptr, k});
          g.comment = tl_str_trim((tl_str){rest.ptr + h + 1, rest.len - h - 1});
          break;
        }
      }
    TL_VEC_PUSH(*out, g);
  }
  free(sources);
}

/* Compares like tl_str_cmp, but reads the number after a `___` as the
 * same everywhere: Dynamo numbers the globals it installs
 * (`G['__builtins_dict___1']` in one compile is `___7` in the next). */
static int generated_cmp(tl_str a, tl_str b) {
  size_t i = 0, j = 0;
  while (i < a.len && j < b.len) {
    if (i >= 3 && j >= 3 && memcmp(a.ptr + i - 3, "___", 3) == 0 &&
        memcmp(b.ptr + j - 3, "___", 3) == 0 && a.ptr[i] >= '0' &&
        a.ptr[i] <= '9' && b.ptr[j] >= '0' && b.ptr[j] <= '9') {
      while (i < a.len && a.ptr[i] >= '0' && a.ptr[i] <= '9')
        i++;
      while (j < b.len && b.ptr[j] >= '0' && b.ptr[j] <= '9')
        j++;
      continue;
    }
    if (a.ptr[i] != b.ptr[j])
      return (unsigned char)a.ptr[i] < (unsigned char)b.ptr[j] ? -1 : 1;
    i++, j++;
  }
  return (i < a.len) - (j < b.len);
}

typedef struct keyed {
  const tl_guard *g;
  size_t order; /* index in its list */
  bool matched;
} keyed;

static int by_kind_source(const keyed *x, const keyed *y) {
  int c = generated_cmp(x->g->source, y->g->source);
  if (!c)
    c = tl_str_cmp(x->g->kind, y->g->kind);
  return c;
}

static int by_guard(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  int c = by_kind_source(x, y);
  if (!c)
    c = generated_cmp(x->g->code, y->g->code);
  if (!c)
    c = x->order < y->order ? -1 : x->order > y->order;
  return c;
}

static keyed *sorted(const tl_guards *gs) {
  keyed *k = tl_xcalloc(gs->count ? gs->count : 1, sizeof *k);
  for (size_t i = 0; i < gs->count; i++)
    k[i] = (keyed){&gs->items[i], i, false};
  tl_sort(k, gs->count, sizeof *k, by_guard);
  return k;
}

/* The run of `k` (n items) with the kind and source of `like`, from the
 * first index where it may start; *count its length. */
static size_t run_of(const keyed *k, size_t n, const keyed *like,
                     size_t *count) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (by_kind_source(&k[mid], like) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t end = lo;
  while (end < n && by_kind_source(&k[end], like) == 0)
    end++;
  *count = end - lo;
  return lo;
}

static int by_order(const void *a, const void *b) {
  const tl_guard_diff_item *x = a, *y = b;
  const tl_guard *gx = x->after ? x->after : x->before;
  const tl_guard *gy = y->after ? y->after : y->before;
  bool ax = x->after != NULL, ay = y->after != NULL;
  if (ax != ay)
    return ax ? -1 : 1;
  return gx < gy ? -1 : gx > gy;
}

void tl_guards_diff(const tl_guards *a, const tl_guards *b,
                    tl_guard_diff *out) {
  keyed *ka = sorted(a), *kb = sorted(b);
  size_t na = a->count, nb = b->count;
  /* The same guard on both sides: merge the two sorted lists. */
  for (size_t i = 0, j = 0; i < na && j < nb;) {
    int c = by_kind_source(&ka[i], &kb[j]);
    if (!c)
      c = generated_cmp(ka[i].g->code, kb[j].g->code);
    if (c < 0)
      i++;
    else if (c > 0)
      j++;
    else
      ka[i++].matched = kb[j++].matched = true;
  }
  size_t start = out->count;
  /* Changed: the one unmatched guard of its kind and source on each side. */
  for (size_t j = 0; j < nb; j++) {
    if (kb[j].matched)
      continue;
    size_t ca, cb;
    size_t ra = run_of(ka, na, &kb[j], &ca), rb = run_of(kb, nb, &kb[j], &cb);
    size_t left_a = 0, left_b = 0, ia = 0;
    for (size_t x = 0; x < ca; x++)
      if (!ka[ra + x].matched)
        left_a++, ia = ra + x;
    for (size_t x = 0; x < cb; x++)
      left_b += !kb[rb + x].matched;
    if (left_a == 1 && left_b == 1) {
      ka[ia].matched = kb[j].matched = true;
      tl_guard_diff_item d = {TL_GUARD_CHANGED, ka[ia].g, kb[j].g};
      TL_VEC_PUSH(*out, d);
    }
  }
  for (size_t j = 0; j < nb; j++)
    if (!kb[j].matched) {
      tl_guard_diff_item d = {TL_GUARD_ADDED, NULL, kb[j].g};
      TL_VEC_PUSH(*out, d);
    }
  for (size_t i = 0; i < na; i++)
    if (!ka[i].matched) {
      tl_guard_diff_item d = {TL_GUARD_REMOVED, ka[i].g, NULL};
      TL_VEC_PUSH(*out, d);
    }
  if (out->count > start) /* (items is NULL while nothing was pushed) */
    tl_sort(out->items + start, out->count - start, sizeof *out->items,
            by_order);
  free(ka);
  free(kb);
}
