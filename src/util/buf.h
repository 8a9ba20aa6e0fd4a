/* buf.h: the three memory shapes every stage uses.
 *
 * tl_str   a borrowed slice {ptr, len}; never owns, never NUL-terminated.
 * tl_buf   a growable byte buffer, always NUL-terminated, owned by whoever
 *          called tl_buf_init and released with tl_buf_free. Pages are
 *          built in one and written once; a page that can outgrow memory
 *          (a huge compile's provenance page, a deep export page) is built
 *          in a draining one that hands each megabyte to its file.
 * tl_arena a bump allocator for everything that lives until the run's output
 *          is written; freed all at once with tl_arena_free.
 * Out of memory aborts with one line: no caller checks for NULL. Before
 * it aborts it calls tl_out_of_memory_cleanup when set (the output
 * folder's: it removes the staging folder, as a fatal signal does).
 */
#ifndef TL_BUF_H
#define TL_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern void (*tl_out_of_memory_cleanup)(void);

typedef struct tl_str {
  const char *ptr;
  size_t len;
} tl_str;

#define TL_STR_LIT(s) ((tl_str){(s), sizeof(s) - 1})

tl_str tl_str_from(const char *cstr);
bool tl_str_eq(tl_str a, tl_str b);
bool tl_str_eq_cstr(tl_str a, const char *cstr);
bool tl_str_starts_with(tl_str s, const char *prefix);
/* `s` without its leading spaces and tabs and its trailing spaces, tabs
 * and carriage returns. */
tl_str tl_str_trim(tl_str s);
/* Compares like memcmp then length; usable for sorting and bsearch. */
int tl_str_cmp(tl_str a, tl_str b);
/* tl_str_cmp for tl_sort and bsearch over arrays of tl_str. */
int tl_str_cmp_p(const void *a, const void *b);

/* Where a draining buffer's bytes go (tl_buf_drain_into). */
typedef void (*tl_buf_drain_fn)(void *ctx, const char *data, size_t len);

typedef struct tl_buf {
  char *data; /* never NULL after tl_buf_init; data[len] == '\0' */
  size_t len;
  size_t cap;
  tl_buf_drain_fn drain; /* NULL: the buffer keeps everything */
  void *drain_ctx;
} tl_buf;

/* A draining buffer holds at most about this much before it drains. */
enum { TL_BUF_DRAIN_AT = 1 << 20 };

void tl_buf_init(tl_buf *b);
void tl_buf_free(tl_buf *b);
void tl_buf_clear(tl_buf *b);
void tl_buf_reserve(tl_buf *b, size_t extra);
/* Room for `extra` more bytes, and no more: for a size known in advance
 * (a file read whole). tl_buf_reserve doubles, which suits appends. */
void tl_buf_reserve_exact(tl_buf *b, size_t extra);
void tl_buf_append(tl_buf *b, const void *data, size_t len);
void tl_buf_puts(tl_buf *b, const char *cstr);
void tl_buf_putc(tl_buf *b, char c);
void tl_buf_append_str(tl_buf *b, tl_str s);
void tl_buf_printf(tl_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Takes the bytes out of the buffer; the caller frees them with free(). */
char *tl_buf_detach(tl_buf *b);
/* Makes `b` drain as it fills: whenever an append, put or printf would take
 * it past TL_BUF_DRAIN_AT bytes, the bytes it holds are handed to `drain`
 * and it starts again empty, and an append of that size or more goes to
 * `drain` without a copy (tl_buf_reserve_exact never drains). The owner calls
 * tl_buf_drain once more at the end. Only for output written front to back and
 * never read back (a page streamed to its file), so that its memory stays
 * bounded by the limit. */
void tl_buf_drain_into(tl_buf *b, tl_buf_drain_fn drain, void *ctx);
/* Hands the bytes held to the drain (if any) and empties the buffer. */
void tl_buf_drain(tl_buf *b);
static inline tl_str tl_buf_str(const tl_buf *b) {
  return (tl_str){b->data, b->len};
}

typedef struct tl_arena_block tl_arena_block;
typedef struct tl_arena {
  tl_arena_block *head;
} tl_arena;

void tl_arena_init(tl_arena *a);
void tl_arena_free(tl_arena *a);
/* Zeroed, aligned for any type. */
void *tl_arena_alloc(tl_arena *a, size_t size);
char *tl_arena_strndup(tl_arena *a, const char *s, size_t len);
char *tl_arena_strdup(tl_arena *a, const char *s);
char *tl_arena_printf(tl_arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline tl_str tl_arena_str(tl_arena *a, tl_str s) {
  return (tl_str){tl_arena_strndup(a, s.ptr, s.len), s.len};
}

/* Growable array of T in malloc'd memory: `TL_VEC(int) v = {0};`. */
#define TL_VEC(T)                                                              \
  struct {                                                                     \
    T *items;                                                                  \
    size_t count;                                                              \
    size_t cap;                                                                \
  }
#define TL_VEC_PUSH(v, value)                                                  \
  do {                                                                         \
    if ((v).count == (v).cap) {                                                \
      (v).cap = (v).cap ? (v).cap * 2 : 8;                                     \
      (v).items = tl_xrealloc((v).items, (v).cap * sizeof(*(v).items));        \
    }                                                                          \
    (v).items[(v).count++] = (value);                                          \
  } while (0)
#define TL_VEC_FREE(v)                                                         \
  do {                                                                         \
    free((v).items);                                                           \
    (v).items = NULL;                                                          \
    (v).count = (v).cap = 0;                                                   \
  } while (0)

/* qsort that accepts an empty (even NULL) array. */
void tl_sort(void *items, size_t count, size_t size,
             int (*cmp)(const void *, const void *));
/* tl_sort, then keeps one item of each run that `cmp` calls equal (which
 * one is unspecified: the sort is not stable) at the front; returns how
 * many are kept. */
size_t tl_sort_unique(void *items, size_t count, size_t size,
                      int (*cmp)(const void *, const void *));

void *tl_xmalloc(size_t size);
void *tl_xcalloc(size_t count, size_t size);
void *tl_xrealloc(void *ptr, size_t size);
char *tl_xstrdup(const char *s);

#endif
