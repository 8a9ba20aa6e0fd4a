/* buf.c: slices, growable buffers and the run arena (see buf.h). */
#include "util/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void (*tl_out_of_memory_cleanup)(void);

static void out_of_memory(size_t size) {
  fprintf(stderr, "tlparse: out of memory allocating %zu bytes\n", size);
  if (tl_out_of_memory_cleanup)
    tl_out_of_memory_cleanup();
  abort();
}

void *tl_xmalloc(size_t size) {
  void *p = malloc(size ? size : 1);
  if (!p)
    out_of_memory(size);
  return p;
}

void *tl_xcalloc(size_t count, size_t size) {
  void *p = calloc(count ? count : 1, size ? size : 1);
  if (!p)
    out_of_memory(count * size);
  return p;
}

void *tl_xrealloc(void *ptr, size_t size) {
  void *p = realloc(ptr, size ? size : 1);
  if (!p)
    out_of_memory(size);
  return p;
}

char *tl_xstrdup(const char *s) {
  size_t n = strlen(s);
  char *p = tl_xmalloc(n + 1);
  memcpy(p, s, n + 1);
  return p;
}

void tl_sort(void *items, size_t count, size_t size,
             int (*cmp)(const void *, const void *)) {
  if (count > 1)
    qsort(items, count, size, cmp);
}

size_t tl_sort_unique(void *items, size_t count, size_t size,
                      int (*cmp)(const void *, const void *)) {
  tl_sort(items, count, size, cmp);
  char *base = items;
  size_t kept = 0;
  for (size_t i = 0; i < count; i++) {
    if (kept && cmp(base + (kept - 1) * size, base + i * size) == 0)
      continue;
    if (kept != i)
      memcpy(base + kept * size, base + i * size, size);
    kept++;
  }
  return kept;
}

tl_str tl_str_from(const char *cstr) {
  return (tl_str){cstr, cstr ? strlen(cstr) : 0};
}

bool tl_str_eq(tl_str a, tl_str b) {
  return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

bool tl_str_eq_cstr(tl_str a, const char *cstr) {
  return tl_str_eq(a, tl_str_from(cstr));
}

bool tl_str_starts_with(tl_str s, const char *prefix) {
  size_t n = strlen(prefix);
  return s.len >= n && memcmp(s.ptr, prefix, n) == 0;
}

tl_str tl_str_trim(tl_str s) {
  while (s.len && (s.ptr[0] == ' ' || s.ptr[0] == '\t')) {
    s.ptr++;
    s.len--;
  }
  while (s.len && (s.ptr[s.len - 1] == ' ' || s.ptr[s.len - 1] == '\t' ||
                   s.ptr[s.len - 1] == '\r'))
    s.len--;
  return s;
}

int tl_str_cmp(tl_str a, tl_str b) {
  size_t n = a.len < b.len ? a.len : b.len;
  int c = n ? memcmp(a.ptr, b.ptr, n) : 0;
  if (c)
    return c;
  return a.len < b.len ? -1 : a.len > b.len ? 1 : 0;
}

int tl_str_cmp_p(const void *a, const void *b) {
  return tl_str_cmp(*(const tl_str *)a, *(const tl_str *)b);
}

void tl_buf_init(tl_buf *b) {
  b->cap = 64;
  b->len = 0;
  b->data = tl_xmalloc(b->cap);
  b->data[0] = '\0';
  b->drain = NULL;
  b->drain_ctx = NULL;
}

void tl_buf_free(tl_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

void tl_buf_clear(tl_buf *b) {
  b->len = 0;
  b->data[0] = '\0';
}

void tl_buf_drain_into(tl_buf *b, tl_buf_drain_fn drain, void *ctx) {
  b->drain = drain;
  b->drain_ctx = ctx;
}

void tl_buf_drain(tl_buf *b) {
  if (b->drain && b->len)
    b->drain(b->drain_ctx, b->data, b->len);
  b->len = 0;
  b->data[0] = '\0';
}

void tl_buf_reserve(tl_buf *b, size_t extra) {
  if (b->drain && b->len + extra > TL_BUF_DRAIN_AT && b->len)
    tl_buf_drain(b);
  size_t need = b->len + extra + 1;
  if (need <= b->cap)
    return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need)
    cap *= 2;
  b->data = tl_xrealloc(b->data, cap);
  b->cap = cap;
}

void tl_buf_reserve_exact(tl_buf *b, size_t extra) {
  size_t need = b->len + extra + 1;
  if (need <= b->cap)
    return;
  b->data = tl_xrealloc(b->data, need);
  b->cap = need;
}

void tl_buf_append(tl_buf *b, const void *data, size_t len) {
  if (len == 0)
    return;
  if (b->drain && len >= TL_BUF_DRAIN_AT) {
    tl_buf_drain(b);
    b->drain(b->drain_ctx, data, len);
    return;
  }
  tl_buf_reserve(b, len);
  memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
}

void tl_buf_puts(tl_buf *b, const char *cstr) {
  tl_buf_append(b, cstr, strlen(cstr));
}

void tl_buf_putc(tl_buf *b, char c) { tl_buf_append(b, &c, 1); }

void tl_buf_append_str(tl_buf *b, tl_str s) { tl_buf_append(b, s.ptr, s.len); }

static void buf_vprintf(tl_buf *b, const char *fmt, va_list ap) {
  if (b->drain && b->len >= TL_BUF_DRAIN_AT) /* it may fit without reserve */
    tl_buf_drain(b);
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, copy);
  va_end(copy);
  if (n < 0)
    return;
  if ((size_t)n >= b->cap - b->len) {
    tl_buf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
  }
  b->len += (size_t)n;
}

void tl_buf_printf(tl_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  buf_vprintf(b, fmt, ap);
  va_end(ap);
}

char *tl_buf_detach(tl_buf *b) {
  char *p = b->data;
  b->data = NULL;
  b->len = b->cap = 0;
  return p;
}

struct tl_arena_block {
  tl_arena_block *next;
  size_t used;
  size_t cap;
  _Alignas(16) unsigned char data[];
};

enum { ARENA_BLOCK_SIZE = 64 * 1024 };

void tl_arena_init(tl_arena *a) { a->head = NULL; }

void tl_arena_free(tl_arena *a) {
  tl_arena_block *b = a->head;
  while (b) {
    tl_arena_block *next = b->next;
    free(b);
    b = next;
  }
  a->head = NULL;
}

void *tl_arena_alloc(tl_arena *a, size_t size) {
  size = (size + 15) & ~(size_t)15;
  tl_arena_block *b = a->head;
  if (!b || b->cap - b->used < size) {
    size_t cap = size > ARENA_BLOCK_SIZE / 4 ? size : ARENA_BLOCK_SIZE;
    tl_arena_block *nb = tl_xmalloc(sizeof(*nb) + cap);
    nb->used = 0;
    nb->cap = cap;
    if (b && cap != ARENA_BLOCK_SIZE) {
      /* A large one-off allocation: keep the current block at the head so
       * its free space is not wasted. */
      nb->next = b->next;
      b->next = nb;
    } else {
      nb->next = b;
      a->head = nb;
    }
    b = nb;
  }
  void *p = b->data + b->used;
  b->used += size;
  memset(p, 0, size);
  return p;
}

char *tl_arena_strndup(tl_arena *a, const char *s, size_t len) {
  char *p = tl_arena_alloc(a, len + 1);
  if (len)
    memcpy(p, s, len);
  p[len] = '\0';
  return p;
}

char *tl_arena_strdup(tl_arena *a, const char *s) {
  return tl_arena_strndup(a, s, strlen(s));
}

char *tl_arena_printf(tl_arena *a, const char *fmt, ...) {
  va_list ap, copy;
  va_start(ap, fmt);
  va_copy(copy, ap);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  char *p = tl_arena_alloc(a, (size_t)(n < 0 ? 0 : n) + 1);
  if (n > 0)
    vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}
