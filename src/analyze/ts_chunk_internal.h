/* ts_chunk_internal.h: the small lexical helpers shared by the chunker and
 * its scanners (ts_chunk.c, ts_chunk_cpp.c, ts_chunk_py.c), and the heads-only
 * parse of ts_heads.c. Private to those four. */
#ifndef TL_TS_CHUNK_INTERNAL_H
#define TL_TS_CHUNK_INTERNAL_H

#include <string.h>

#include "analyze/ts_chunk.h"
#include "util/mapped_text.h"

/* The point of byte `to`, from the point `p` of byte `from` <= to. */
static inline TSPoint advance_point(TSPoint p, tl_str text, uint32_t from,
                                    uint32_t to) {
  const char *s = text.ptr + from, *e = text.ptr + to;
  size_t tell = (size_t)from + TL_TEXT_PASSED_EVERY; /* tl_text_passed */
  for (const char *nl; (nl = memchr(s, '\n', (size_t)(e - s)));) {
    p.row++;
    p.column = 0;
    s = nl + 1;
    tl_text_passing(text.ptr, (size_t)(s - text.ptr), &tell);
  }
  p.column += (uint32_t)(e - s);
  return p;
}

static inline bool is_ident_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

static inline bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static inline bool word_is(const char *w, size_t len, const char *s) {
  return strlen(s) == len && memcmp(w, s, len) == 0;
}

static inline bool word_in(const char *w, size_t len, const char *const *list) {
  for (; *list; list++)
    if (word_is(w, len, *list))
      return true;
  return false;
}

/* Records a cut at `pos` when it lies strictly inside (from, to) (the text,
 * or a body in it) and after the last one. */
static inline void add_cut(tl_ts_cuts *cuts, size_t pos, size_t from,
                           size_t to) {
  if (pos <= from || pos >= to)
    return;
  if (cuts->count && cuts->items[cuts->count - 1] >= pos)
    return;
  TL_VEC_PUSH(*cuts, (uint32_t)pos);
}

/* A quoted literal from the quote at *pos: `"a\"b"`, `'\n'`. Backslash
 * escapes the next byte (a newline too); an unescaped newline or the end
 * of the text leaves it unterminated: false. */
static inline bool skip_quoted(const char *t, size_t n, size_t *pos) {
  char q = t[*pos];
  for (size_t i = *pos + 1; i < n; i++) {
    if (t[i] == '\\')
      i++;
    else if (t[i] == q) {
      *pos = i + 1;
      return true;
    } else if (t[i] == '\n')
      return false;
  }
  return false;
}

#endif
