/* profile_map.c: integer tables of the profile reader (see profile_map.h).
 */
#include "profile/profile_map.h"

#include <stdlib.h>
#include <string.h>

uint64_t tl_prof_mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

uint64_t tl_prof_hash_bytes(const char *s, size_t len) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
  return h;
}

/* ---- u64 -> u64 ---------------------------------------------------------- */
void tl_u64map_free(tl_u64map *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

static void u64map_grow(tl_u64map *m) {
  tl_u64map bigger = {0};
  bigger.cap = m->cap ? m->cap * 2 : 64;
  bigger.keys = tl_xcalloc(bigger.cap, sizeof *bigger.keys);
  bigger.vals = tl_xcalloc(bigger.cap, sizeof *bigger.vals);
  for (size_t i = 0; i < m->cap; i++)
    if (m->vals[i])
      tl_u64map_put(&bigger, m->keys[i], m->vals[i] - 1);
  tl_u64map_free(m);
  *m = bigger;
}

void tl_u64map_put(tl_u64map *m, uint64_t key, uint64_t val) {
  if ((m->count + 1) * 4 >= m->cap * 3)
    u64map_grow(m);
  size_t i = tl_prof_mix(key) & (m->cap - 1);
  while (m->vals[i] && m->keys[i] != key)
    i = (i + 1) & (m->cap - 1);
  if (!m->vals[i])
    m->count++;
  m->keys[i] = key;
  m->vals[i] = val + 1;
}

static bool u64map_find(const tl_u64map *m, uint64_t key, size_t *at) {
  if (!m->cap)
    return false;
  size_t i = tl_prof_mix(key) & (m->cap - 1);
  while (m->vals[i]) {
    if (m->keys[i] == key) {
      *at = i;
      return true;
    }
    i = (i + 1) & (m->cap - 1);
  }
  return false;
}

bool tl_u64map_get(const tl_u64map *m, uint64_t key, uint64_t *val) {
  size_t i;
  if (!u64map_find(m, key, &i))
    return false;
  *val = m->vals[i] - 1;
  return true;
}

/* Is `home` outside the cyclic range (hole, j]? Then the record at j may
 * move back into the hole. */
static bool may_fill(size_t hole, size_t j, size_t home) {
  return hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
}

void tl_u64map_del(tl_u64map *m, uint64_t key) {
  size_t hole;
  if (!u64map_find(m, key, &hole))
    return;
  size_t mask = m->cap - 1;
  for (size_t j = (hole + 1) & mask; m->vals[j]; j = (j + 1) & mask) {
    if (may_fill(hole, j, tl_prof_mix(m->keys[j]) & mask)) {
      m->keys[hole] = m->keys[j];
      m->vals[hole] = m->vals[j];
      hole = j;
    }
  }
  m->vals[hole] = 0;
  m->count--;
}

/* ---- strings ------------------------------------------------------------- */
int32_t tl_strtab_intern(tl_strtab *t, const char *s, size_t len) {
  uint64_t h = tl_prof_hash_bytes(s, len);
  for (;; h++) {
    uint64_t id;
    if (!tl_u64map_get(&t->ids, h, &id)) {
      char *copy = tl_xmalloc(len + 1);
      memcpy(copy, s, len);
      copy[len] = '\0';
      TL_VEC_PUSH(t->items, copy);
      tl_u64map_put(&t->ids, h, t->items.count - 1);
      return (int32_t)(t->items.count - 1);
    }
    const char *have = t->items.items[id];
    if (strlen(have) == len && memcmp(have, s, len) == 0)
      return (int32_t)id;
  }
}

int32_t tl_strtab_find(const tl_strtab *t, const char *s, size_t len) {
  for (uint64_t h = tl_prof_hash_bytes(s, len);; h++) {
    uint64_t id;
    if (!tl_u64map_get(&t->ids, h, &id))
      return -1;
    const char *have = t->items.items[id];
    if (strlen(have) == len && memcmp(have, s, len) == 0)
      return (int32_t)id;
  }
}

void tl_strtab_free(tl_strtab *t) {
  for (size_t i = 0; i < t->items.count; i++)
    free(t->items.items[i]);
  TL_VEC_FREE(t->items);
  tl_u64map_free(&t->ids);
}

/* ---- launch links -------------------------------------------------------- */
static bool narrow(int64_t id) { return id >= 0 && id <= (int64_t)UINT32_MAX; }

static size_t home_of(const tl_links *t, uint32_t id) {
  return tl_prof_mix(id) & (t->cap - 1);
}

static void links_grow(tl_links *t) {
  tl_links bigger = {0};
  bigger.cap = t->cap ? t->cap * 2 : 1024;
  bigger.slots = tl_xcalloc(bigger.cap, sizeof *bigger.slots);
  bigger.wide = t->wide;
  for (size_t i = 0; i < t->cap; i++)
    if (t->slots[i].val)
      tl_links_put(&bigger, t->slots[i].id, t->slots[i].val);
  free(t->slots);
  *t = bigger;
}

void tl_links_put(tl_links *t, int64_t id, uint32_t val) {
  if (!narrow(id)) {
    tl_u64map_put(&t->wide, (uint64_t)id, val);
    return;
  }
  if ((t->count + 1) * 4 >= t->cap * 3)
    links_grow(t);
  size_t i = home_of(t, (uint32_t)id);
  while (t->slots[i].val && t->slots[i].id != (uint32_t)id)
    i = (i + 1) & (t->cap - 1);
  if (!t->slots[i].val)
    t->count++;
  t->slots[i].id = (uint32_t)id;
  t->slots[i].val = val;
}

static bool links_find(const tl_links *t, uint32_t id, size_t *at) {
  if (!t->cap)
    return false;
  size_t i = home_of(t, id);
  while (t->slots[i].val) {
    if (t->slots[i].id == id) {
      *at = i;
      return true;
    }
    i = (i + 1) & (t->cap - 1);
  }
  return false;
}

bool tl_links_get(const tl_links *t, int64_t id, uint32_t *val) {
  if (!narrow(id)) {
    uint64_t v;
    if (!tl_u64map_get(&t->wide, (uint64_t)id, &v))
      return false;
    *val = (uint32_t)v;
    return true;
  }
  size_t i;
  if (!links_find(t, (uint32_t)id, &i))
    return false;
  *val = t->slots[i].val;
  return true;
}

void tl_links_del(tl_links *t, int64_t id) {
  if (!narrow(id)) {
    tl_u64map_del(&t->wide, (uint64_t)id);
    return;
  }
  size_t hole;
  if (!links_find(t, (uint32_t)id, &hole))
    return;
  size_t mask = t->cap - 1;
  for (size_t j = (hole + 1) & mask; t->slots[j].val; j = (j + 1) & mask) {
    if (may_fill(hole, j, home_of(t, t->slots[j].id))) {
      t->slots[hole] = t->slots[j];
      hole = j;
    }
  }
  t->slots[hole].val = 0;
  t->count--;
}

void tl_links_free(tl_links *t) {
  free(t->slots);
  tl_u64map_free(&t->wide);
  memset(t, 0, sizeof *t);
}
