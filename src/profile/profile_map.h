/* profile_map.h: the integer tables of the profile reader (--profile):
 * a u64 -> u64 map for the small per-file indexes (threads, slots, sequence
 * numbers, pending GPU activities), a string table that interns names, and
 * the compact launch-link table that joins GPU activities to the CPU events
 * that launched them (profile_events.c). Internal to src/profile_*.c.
 *
 * Launch links are fixed 8-byte records {u32 id, u32 value} in one
 * open-addressing array (linear probing, deleted by backward shift, so no
 * tombstones): the id is a Kineto "External id" or CUPTI "correlation"
 * (Kineto's are below 2^32; larger or negative ones, which only hand-made
 * traces have, go to a u64 map beside it). Each table owns its memory.
 */
#ifndef TL_PROFILE_MAP_H
#define TL_PROFILE_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

uint64_t tl_prof_mix(uint64_t x);
uint64_t tl_prof_hash_bytes(const char *s, size_t len);

/* u64 -> u64 (open addressing, values stored +1). */
typedef struct tl_u64map {
  uint64_t *keys, *vals; /* vals[i] == 0: empty */
  size_t cap, count;
} tl_u64map;

void tl_u64map_put(tl_u64map *m, uint64_t key, uint64_t val);
bool tl_u64map_get(const tl_u64map *m, uint64_t key, uint64_t *val);
void tl_u64map_del(tl_u64map *m, uint64_t key);
void tl_u64map_free(tl_u64map *m);

/* Interned strings: ids are dense from 0; items are NUL-terminated copies. */
typedef struct tl_strtab {
  TL_VEC(char *) items;
  tl_u64map ids; /* hash -> id (first with that hash); collisions: hash+1 */
} tl_strtab;

int32_t tl_strtab_intern(tl_strtab *t, const char *s, size_t len);
/* The id of `s`, or -1 when it was never interned. */
int32_t tl_strtab_find(const tl_strtab *t, const char *s, size_t len);
void tl_strtab_free(tl_strtab *t);

/* Launch links: id -> value (1 .. 2^32-1; 0 is never stored). */
typedef struct tl_link {
  uint32_t id, val; /* val == 0: empty */
} tl_link;

typedef struct tl_links {
  tl_link *slots;
  size_t cap, count; /* count: records in slots (not in wide) */
  tl_u64map wide;    /* ids outside 0 .. 2^32-1 */
} tl_links;

void tl_links_put(tl_links *t, int64_t id, uint32_t val);
bool tl_links_get(const tl_links *t, int64_t id, uint32_t *val);
void tl_links_del(tl_links *t, int64_t id);
void tl_links_free(tl_links *t);

#endif
