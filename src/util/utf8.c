/* utf8.c: UTF-8 validation and U+FFFD repair (utf8.h). */
#include "util/utf8.h"

#include <stdint.h>
#include <string.h>

/* Length of the valid sequence at s[0..n), or 0 when it is invalid; *skip
 * is then the length of its maximal subpart (at least 1). */
static size_t sequence_length(const unsigned char *s, size_t n, size_t *skip) {
  unsigned char c = s[0];
  *skip = 1;
  if (c < 0x80)
    return 1;
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF; /* range of the second byte */
  if (c >= 0xC2 && c <= 0xDF)
    len = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0)
      lo = 0xA0; /* no overlong forms */
    if (c == 0xED)
      hi = 0x9F; /* no surrogates */
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0)
      lo = 0x90;
    if (c == 0xF4)
      hi = 0x8F; /* nothing past U+10FFFF */
  } else
    return 0;
  for (size_t i = 1; i < len; i++) {
    unsigned char min = i == 1 ? lo : 0x80, max = i == 1 ? hi : 0xBF;
    if (i >= n || s[i] < min || s[i] > max) {
      *skip = i;
      return 0;
    }
  }
  return len;
}

size_t tl_utf8_valid_prefix(tl_str text) {
  const unsigned char *s = (const unsigned char *)text.ptr;
  size_t i = 0, skip;
  while (i < text.len) {
    /* ASCII eight bytes at a time. */
    while (i + 8 <= text.len) {
      uint64_t w;
      memcpy(&w, s + i, sizeof w);
      if (w & 0x8080808080808080ULL)
        break;
      i += 8;
    }
    if (i >= text.len)
      break;
    if (s[i] < 0x80) {
      i++;
      continue;
    }
    size_t len = sequence_length(s + i, text.len - i, &skip);
    if (!len)
      break;
    i += len;
  }
  return i;
}

size_t tl_utf8_repair(tl_buf *out, tl_str text) {
  size_t replaced = 0;
  while (text.len) {
    size_t valid = tl_utf8_valid_prefix(text);
    tl_buf_append(out, text.ptr, valid);
    text.ptr += valid;
    text.len -= valid;
    if (!text.len)
      break;
    size_t skip;
    sequence_length((const unsigned char *)text.ptr, text.len, &skip);
    tl_buf_puts(out, "\xEF\xBF\xBD");
    replaced++;
    text.ptr += skip;
    text.len -= skip;
  }
  return replaced;
}

size_t tl_utf8_repair_in_place(tl_buf *b) {
  if (tl_utf8_valid_prefix(tl_buf_str(b)) == b->len)
    return 0;
  tl_buf valid;
  tl_buf_init(&valid);
  size_t replaced = tl_utf8_repair(&valid, tl_buf_str(b));
  tl_buf_free(b);
  *b = valid;
  return replaced;
}
