/* analysis_cache.c: identical texts analyzed once (analysis_cache.h). An
 * entry is the text's hash, a copy of the text and the result serialized
 * into one block: counts and numbers as 64-bit words, each name as its
 * length (UINT64_MAX: a name without bytes nor pointer) and its bytes.
 * Entries sit in an array scanned under the lock (a run keeps at most a few
 * hundred; a lookup costs nothing beside the parse it saves), the least
 * recently used let go first. Shared entries are files named after the
 * kind and the hash, written under a temporary name and renamed.
 */
#define _POSIX_C_SOURCE 200809L /* open, rename, getpid */
#include "analyze/analysis_cache.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/blob.h"
#include "util/fsutil.h"

typedef struct entry {
  tl_analysis_kind kind;
  uint64_t hash;
  char *text; /* a copy, compared on every hit */
  size_t text_len;
  char *blob; /* the result, serialized */
  size_t blob_len;
  uint64_t used; /* the cache's tick when last found or kept */
} entry;

struct tl_analysis_cache {
  pthread_mutex_t lock;
  size_t bound, bytes;
  uint64_t (*hash)(tl_str text);
  TL_VEC(entry) entries;
  uint64_t tick;
  char *shared; /* folder of the shared entries, or NULL */
  tl_analysis_cache_stats stats;
};

/* What an entry costs beside its text and blob. */
enum { ENTRY_OVERHEAD = sizeof(entry) + 64 };

static size_t entry_bytes(size_t text_len, size_t blob_len) {
  return text_len + blob_len + ENTRY_OVERHEAD;
}

uint64_t tl_analysis_text_hash(tl_str text) {
  const uint64_t m = 0x9e3779b97f4a7c15u;
  uint64_t h = 0x6a09e667f3bcc908u ^ ((uint64_t)text.len * m);
  const unsigned char *p = (const unsigned char *)text.ptr;
  size_t n = text.len, i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * m;
    h ^= h >> 29;
  }
  uint64_t tail = 0;
  for (size_t k = 0; i + k < n; k++)
    tail |= (uint64_t)p[i + k] << (8 * k);
  h = (h ^ tail) * m;
  h ^= h >> 32;
  h *= 0xbf58476d1ce4e5b9u;
  return h ^ (h >> 31);
}

tl_analysis_cache *tl_analysis_cache_new(size_t bound,
                                         uint64_t (*hash)(tl_str text)) {
  tl_analysis_cache *c = tl_xcalloc(1, sizeof *c);
  pthread_mutex_init(&c->lock, NULL);
  c->bound = bound;
  c->hash = hash ? hash : tl_analysis_text_hash;
  return c;
}

static void drop(entry *e) {
  free(e->text);
  free(e->blob);
}

void tl_analysis_cache_free(tl_analysis_cache *c) {
  if (!c)
    return;
  for (size_t i = 0; i < c->entries.count; i++)
    drop(&c->entries.items[i]);
  TL_VEC_FREE(c->entries);
  pthread_mutex_destroy(&c->lock);
  free(c->shared);
  free(c);
}

void tl_analysis_cache_share(tl_analysis_cache *c, const char *folder) {
  free(c->shared);
  c->shared = folder ? tl_xstrdup(folder) : NULL;
}

bool tl_analysis_cache_wants(const tl_analysis_cache *c, size_t len) {
  return c && entry_bytes(len, 0) <= c->bound / 4;
}

tl_analysis_cache_stats tl_analysis_cache_stats_of(tl_analysis_cache *c) {
  pthread_mutex_lock(&c->lock);
  tl_analysis_cache_stats s = c->stats;
  s.entries = c->entries.count;
  s.bytes = c->bytes;
  pthread_mutex_unlock(&c->lock);
  return s;
}

/* ---- serialization ------------------------------------------------------ */

/* `count` items of `size` bytes in the arena (a count past what the blob
 * can hold is short: nothing allocated). */
static void *get_array(tl_blob_reader *r, uint64_t count, size_t size) {
  if (!r->ok || count > (r->blob.len - r->at) / sizeof(uint64_t)) {
    r->ok = false;
    return NULL;
  }
  return count ? tl_arena_alloc(r->arena, (size_t)count * size) : NULL;
}

static void serialize_fx(tl_buf *b, const tl_fx_graph *g) {
  tl_blob_put_u64(b, g->node_count);
  for (size_t i = 0; i < g->node_count; i++) {
    tl_blob_put_str(b, g->nodes[i].name);
    tl_blob_put_u64(b, (uint64_t)(int64_t)g->nodes[i].line);
    tl_blob_put_u64(b, g->nodes[i].graph);
  }
  tl_blob_put_u64(b, g->subgraph_count);
  for (size_t i = 0; i < g->subgraph_count; i++) {
    tl_blob_put_u64(b, g->subgraphs[i].graph);
    tl_blob_put_u64(b, g->subgraphs[i].parent);
    tl_blob_put_str(b, g->subgraphs[i].name);
  }
}

static bool deserialize_fx(tl_blob_reader *r, tl_fx_graph *g) {
  memset(g, 0, sizeof *g);
  uint64_t n = tl_blob_get_u64(r);
  g->nodes = get_array(r, n, sizeof *g->nodes);
  for (uint64_t i = 0; r->ok && i < n; i++) {
    g->nodes[i].name = tl_blob_get_str(r);
    g->nodes[i].line = (int)(int64_t)tl_blob_get_u64(r);
    g->nodes[i].graph = (uint32_t)tl_blob_get_u64(r);
  }
  g->node_count = r->ok ? (size_t)n : 0;
  n = tl_blob_get_u64(r);
  g->subgraphs = get_array(r, n, sizeof *g->subgraphs);
  for (uint64_t i = 0; r->ok && i < n; i++) {
    g->subgraphs[i].graph = (uint32_t)tl_blob_get_u64(r);
    g->subgraphs[i].parent = (uint32_t)tl_blob_get_u64(r);
    g->subgraphs[i].name = tl_blob_get_str(r);
  }
  g->subgraph_count = r->ok ? (size_t)n : 0;
  return tl_blob_read_whole(r);
}

/* An embedded source's language: the analyzers' static names. */
static const char *const LANGUAGES[] = {"python", "cpp"};

static void serialize_code(tl_buf *b, const tl_code_analysis *c) {
  tl_blob_put_u64(b, c->def_count);
  for (size_t i = 0; i < c->def_count; i++) {
    const tl_kernel_def *d = &c->defs[i];
    tl_blob_put_str(b, d->name);
    tl_blob_put_u64(b, d->kind);
    tl_blob_put_u64(b, d->file);
    tl_blob_put_u64(b, (uint64_t)(int64_t)d->first);
    tl_blob_put_u64(b, (uint64_t)(int64_t)d->last);
  }
  tl_blob_put_u64(b, c->call_count);
  for (size_t i = 0; i < c->call_count; i++) {
    const tl_call_site *s = &c->calls[i];
    tl_blob_put_str(b, s->name);
    tl_blob_put_u64(b, s->kind);
    tl_blob_put_u64(b, (uint64_t)(int64_t)s->line);
    tl_blob_put_str(b, s->handle_key);
    tl_blob_put_str(b, s->scope);
  }
  tl_blob_put_u64(b, c->embedded_count);
  for (size_t i = 0; i < c->embedded_count; i++) {
    const tl_embedded *e = &c->embedded[i];
    tl_blob_put_u64(b, e->file);
    tl_blob_put_u64(b, (uint64_t)(int64_t)e->first);
    tl_blob_put_u64(b, (uint64_t)(int64_t)e->last);
    tl_blob_put_str(b,
                    e->language ? tl_str_from(e->language) : (tl_str){NULL, 0});
  }
  tl_blob_put_u64(b, c->scope_count);
  for (size_t i = 0; i < c->scope_count; i++)
    tl_blob_put_str(b, c->scopes[i]);
  tl_blob_put_u64(b, (uint64_t)(int64_t)c->entry_first);
  tl_blob_put_u64(b, (uint64_t)(int64_t)c->entry_last);
  tl_blob_put_u64(b, c->cpp_wrapper);
}

static const char *language_of(tl_blob_reader *r) {
  tl_str s = tl_blob_get_str(r);
  if (!s.ptr)
    return NULL;
  for (size_t i = 0; i < sizeof LANGUAGES / sizeof *LANGUAGES; i++)
    if (tl_str_eq_cstr(s, LANGUAGES[i]))
      return LANGUAGES[i];
  return tl_arena_strndup(r->arena, s.ptr, s.len);
}

static bool deserialize_code(tl_blob_reader *r, tl_code_analysis *c) {
  memset(c, 0, sizeof *c);
  uint64_t n = tl_blob_get_u64(r);
  c->defs = get_array(r, n, sizeof *c->defs);
  for (uint64_t i = 0; r->ok && i < n; i++) {
    tl_kernel_def *d = &c->defs[i];
    d->name = tl_blob_get_str(r);
    d->kind = (tl_kernel_kind)tl_blob_get_u64(r);
    d->file = (tl_code_file)tl_blob_get_u64(r);
    d->first = (int)(int64_t)tl_blob_get_u64(r);
    d->last = (int)(int64_t)tl_blob_get_u64(r);
  }
  c->def_count = r->ok ? (size_t)n : 0;
  n = tl_blob_get_u64(r);
  c->calls = get_array(r, n, sizeof *c->calls);
  for (uint64_t i = 0; r->ok && i < n; i++) {
    tl_call_site *s = &c->calls[i];
    s->name = tl_blob_get_str(r);
    s->kind = (tl_kernel_kind)tl_blob_get_u64(r);
    s->line = (int)(int64_t)tl_blob_get_u64(r);
    s->handle_key = tl_blob_get_str(r);
    s->scope = tl_blob_get_str(r);
  }
  c->call_count = r->ok ? (size_t)n : 0;
  n = tl_blob_get_u64(r);
  c->embedded = get_array(r, n, sizeof *c->embedded);
  for (uint64_t i = 0; r->ok && i < n; i++) {
    tl_embedded *e = &c->embedded[i];
    e->file = (tl_code_file)tl_blob_get_u64(r);
    e->first = (int)(int64_t)tl_blob_get_u64(r);
    e->last = (int)(int64_t)tl_blob_get_u64(r);
    e->language = language_of(r);
  }
  c->embedded_count = r->ok ? (size_t)n : 0;
  n = tl_blob_get_u64(r);
  c->scopes = get_array(r, n, sizeof *c->scopes);
  for (uint64_t i = 0; r->ok && i < n; i++)
    c->scopes[i] = tl_blob_get_str(r);
  c->scope_count = r->ok ? (size_t)n : 0;
  c->entry_first = (int)(int64_t)tl_blob_get_u64(r);
  c->entry_last = (int)(int64_t)tl_blob_get_u64(r);
  c->cpp_wrapper = tl_blob_get_u64(r) != 0;
  return tl_blob_read_whole(r);
}

/* ---- the shared folder -------------------------------------------------- */

/* A shared entry's file: this header, the text, the blob. */
typedef struct file_header {
  char magic[8];
  uint64_t kind, hash, text_len, blob_len;
} file_header;
static const char MAGIC[8] = "TLAC\1\0\0\0";

static void shared_path(const tl_analysis_cache *c, tl_analysis_kind kind,
                        uint64_t hash, tl_buf *path) {
  tl_buf_printf(path, "%s/%d-%016llx", c->shared, (int)kind,
                (unsigned long long)hash);
}

/* The shared entry of (kind, hash) whose text is `text`: its blob,
 * malloc'd, or NULL (none, unreadable, or another text). */
static char *shared_get(const tl_analysis_cache *c, tl_analysis_kind kind,
                        uint64_t hash, tl_str text, size_t *blob_len) {
  tl_buf path;
  tl_buf_init(&path);
  shared_path(c, kind, hash, &path);
  size_t len = 0;
  char *data = tl_fs_read_all(path.data, &len);
  tl_buf_free(&path);
  if (!data)
    return NULL;
  file_header h;
  bool ok = len >= sizeof h;
  if (ok)
    memcpy(&h, data, sizeof h);
  ok = ok && memcmp(h.magic, MAGIC, sizeof MAGIC) == 0 &&
       h.kind == (uint64_t)kind && h.hash == hash && h.text_len == text.len &&
       h.blob_len <= len - sizeof h &&
       len - sizeof h - h.blob_len == h.text_len &&
       (text.len == 0 || memcmp(data + sizeof h, text.ptr, text.len) == 0);
  if (!ok) {
    free(data);
    return NULL;
  }
  memmove(data, data + sizeof h + text.len, (size_t)h.blob_len);
  *blob_len = (size_t)h.blob_len;
  return data;
}

/* Writes the entry under a name of this process and renames it into place
 * (readers never see half a file); any failure only means no sharing. */
static void shared_put(const tl_analysis_cache *c, const entry *e) {
  static unsigned long counter; /* under the cache's lock */
  tl_buf tmp, path;
  tl_buf_init(&tmp);
  tl_buf_init(&path);
  shared_path(c, e->kind, e->hash, &path);
  tl_buf_printf(&tmp, "%s.tmp-%ld-%lu", path.data, (long)getpid(), counter++);
  file_header h;
  memcpy(h.magic, MAGIC, sizeof MAGIC);
  h.kind = e->kind;
  h.hash = e->hash;
  h.text_len = e->text_len;
  h.blob_len = e->blob_len;
  int fd = open(tmp.data, O_WRONLY | O_CREAT | O_EXCL, 0600);
  bool ok = fd >= 0;
  const void *parts[] = {&h, e->text, e->blob};
  size_t sizes[] = {sizeof h, e->text_len, e->blob_len};
  for (int i = 0; ok && i < 3; i++) {
    const char *p = parts[i];
    for (size_t left = sizes[i]; ok && left;) {
      ssize_t w = write(fd, p, left);
      ok = w > 0;
      if (ok) {
        p += w;
        left -= (size_t)w;
      }
    }
  }
  if (fd >= 0 && close(fd) != 0)
    ok = false;
  if (!ok || rename(tmp.data, path.data) != 0)
    unlink(tmp.data);
  tl_buf_free(&tmp);
  tl_buf_free(&path);
}

/* ---- lookups ------------------------------------------------------------ */

/* The entry of (kind, hash, text), or NULL; counts a collision. Called with
 * the lock held. */
static entry *find(tl_analysis_cache *c, tl_analysis_kind kind, uint64_t hash,
                   tl_str text) {
  for (size_t i = 0; i < c->entries.count; i++) {
    entry *e = &c->entries.items[i];
    if (e->kind != kind || e->hash != hash)
      continue;
    if (e->text_len == text.len &&
        (text.len == 0 || memcmp(e->text, text.ptr, text.len) == 0))
      return e;
    c->stats.collisions++;
  }
  return NULL;
}

/* Lets the least recently used entries go until `need` more bytes fit.
 * Called with the lock held. */
static void make_room(tl_analysis_cache *c, size_t need) {
  while (c->entries.count && c->bytes + need > c->bound) {
    size_t oldest = 0;
    for (size_t i = 1; i < c->entries.count; i++)
      if (c->entries.items[i].used < c->entries.items[oldest].used)
        oldest = i;
    entry *e = &c->entries.items[oldest];
    c->bytes -= entry_bytes(e->text_len, e->blob_len);
    drop(e);
    c->entries.items[oldest] = c->entries.items[--c->entries.count];
    c->stats.evictions++;
  }
}

/* Adds an entry that owns `text_copy` and `blob` (or frees them when it
 * cannot be kept). An entry of the same text takes the new blob instead: a
 * caller puts a result for a text kept already when the kept one was
 * rejected on its get (damaged, or a blob its maker no longer reads), and
 * a rejected entry never replaced would be a miss on every later get; two
 * threads that analyzed one text at once put the same result. Called with
 * the lock held. */
static entry *insert(tl_analysis_cache *c, tl_analysis_kind kind, uint64_t hash,
                     tl_str text, char *text_copy, char *blob,
                     size_t blob_len) {
  size_t need = entry_bytes(text.len, blob_len);
  if (need > c->bound / 4) {
    free(text_copy);
    free(blob);
    return NULL;
  }
  entry *kept = find(c, kind, hash, text);
  if (kept) {
    c->bytes -= entry_bytes(kept->text_len, kept->blob_len);
    drop(kept);
    *kept = c->entries.items[--c->entries.count];
    c->stats.replaced++;
  }
  make_room(c, need);
  entry e = {kind, hash, text_copy, text.len, blob, blob_len, ++c->tick};
  TL_VEC_PUSH(c->entries, e);
  c->bytes += need;
  return &c->entries.items[c->entries.count - 1];
}

/* Looks `text` up in memory, then in the shared folder; on a hit hands the
 * blob to `fill` (under the lock for an entry in memory). */
static bool get(tl_analysis_cache *c, tl_analysis_kind kind, tl_str text,
                tl_arena *arena, bool (*fill)(tl_blob_reader *r, void *out),
                void *out) {
  if (!tl_analysis_cache_wants(c, text.len))
    return false;
  uint64_t hash = c->hash(text);
  pthread_mutex_lock(&c->lock);
  entry *e = find(c, kind, hash, text);
  bool hit = false;
  if (e) {
    e->used = ++c->tick;
    tl_blob_reader r = tl_blob_reader_of((tl_str){e->blob, e->blob_len}, arena);
    hit = fill(&r, out);
  }
  if (hit)
    c->stats.hits++;
  pthread_mutex_unlock(&c->lock);
  if (hit || e || !c->shared) {
    if (!hit) {
      pthread_mutex_lock(&c->lock);
      c->stats.misses++;
      pthread_mutex_unlock(&c->lock);
    }
    return hit;
  }
  size_t blob_len = 0;
  char *blob = shared_get(c, kind, hash, text, &blob_len);
  if (blob) {
    tl_blob_reader r = tl_blob_reader_of((tl_str){blob, blob_len}, arena);
    hit = fill(&r, out);
  }
  pthread_mutex_lock(&c->lock);
  if (hit) {
    c->stats.hits++;
    c->stats.shared_hits++;
    char *copy = tl_xmalloc(text.len ? text.len : 1);
    if (text.len)
      memcpy(copy, text.ptr, text.len);
    insert(c, kind, hash, text, copy, blob, blob_len);
    blob = NULL;
  } else {
    c->stats.misses++;
  }
  pthread_mutex_unlock(&c->lock);
  free(blob);
  return hit;
}

static void put(tl_analysis_cache *c, tl_analysis_kind kind, tl_str text,
                tl_buf *blob) {
  if (!tl_analysis_cache_wants(c, text.len + blob->len)) {
    tl_buf_free(blob);
    return;
  }
  uint64_t hash = c->hash(text);
  char *copy = tl_xmalloc(text.len ? text.len : 1);
  if (text.len)
    memcpy(copy, text.ptr, text.len);
  size_t blob_len = blob->len;
  char *data = tl_buf_detach(blob);
  pthread_mutex_lock(&c->lock);
  entry *e = insert(c, kind, hash, text, copy, data, blob_len);
  if (e && c->shared)
    shared_put(c, e);
  pthread_mutex_unlock(&c->lock);
}

static bool fill_fx(tl_blob_reader *r, void *out) {
  return deserialize_fx(r, out);
}

static bool fill_code(tl_blob_reader *r, void *out) {
  return deserialize_code(r, out);
}

bool tl_analysis_cache_get_fx(tl_analysis_cache *c, tl_str text,
                              tl_arena *arena, tl_fx_graph *out) {
  tl_fx_graph g;
  if (!get(c, TL_ANALYSIS_FX, text, arena, fill_fx, &g))
    return false;
  *out = g;
  return true;
}

bool tl_analysis_cache_get_code(tl_analysis_cache *c, tl_analysis_kind kind,
                                tl_str text, tl_arena *arena,
                                tl_code_analysis *out) {
  tl_code_analysis code;
  if (!get(c, kind, text, arena, fill_code, &code))
    return false;
  *out = code;
  return true;
}

void tl_analysis_cache_put_fx(tl_analysis_cache *c, tl_str text,
                              const tl_fx_graph *graph) {
  if (!tl_analysis_cache_wants(c, text.len))
    return;
  tl_buf blob;
  tl_buf_init(&blob);
  serialize_fx(&blob, graph);
  put(c, TL_ANALYSIS_FX, text, &blob);
}

void tl_analysis_cache_put_code(tl_analysis_cache *c, tl_analysis_kind kind,
                                tl_str text, const tl_code_analysis *code) {
  if (!tl_analysis_cache_wants(c, text.len))
    return;
  tl_buf blob;
  tl_buf_init(&blob);
  serialize_code(&blob, code);
  put(c, kind, text, &blob);
}

static bool fill_blob(tl_blob_reader *r, void *out) {
  tl_buf_append(out, r->blob.ptr, r->blob.len);
  return true;
}

bool tl_analysis_cache_get_blob(tl_analysis_cache *c, tl_analysis_kind kind,
                                tl_str text, tl_buf *out) {
  return get(c, kind, text, NULL, fill_blob, out);
}

void tl_analysis_cache_put_blob(tl_analysis_cache *c, tl_analysis_kind kind,
                                tl_str text, const void *data, size_t len) {
  if (!tl_analysis_cache_wants(c, text.len + len))
    return;
  tl_buf blob;
  tl_buf_init(&blob);
  tl_buf_append(&blob, data, len);
  put(c, kind, text, &blob);
}
