/* recompile_reasons.c: a `recompile_reasons` payload -> its reasons, each
 * classified and said in words (see recompile_reasons.h for the format). */
#include "diff/recompile_reasons.h"

#include <string.h>

static const char *find(tl_str s, size_t from, const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = from; i + n <= s.len; i++)
    if (memcmp(s.ptr + i, needle, n) == 0)
      return s.ptr + i;
  return NULL;
}

static tl_str slice(const char *from, const char *to) {
  return (tl_str){from, (size_t)(to - from)};
}

/* `tensor 'x' size mismatch at index 0. expected 4, actual 6` and the other
 * messages of the C++ tensor check (`dtype mismatch. expected ...`,
 * `requires_grad mismatch. expected requires_grad=1`). */
static bool read_tensor(tl_recompile_reason *r) {
  tl_str t = r->text;
  if (!tl_str_starts_with(t, "tensor '"))
    return false;
  const char *name = t.ptr + 8, *end = t.ptr + t.len;
  const char *quote = memchr(name, '\'', (size_t)(end - name));
  if (!quote)
    return false;
  tl_str rest = slice(quote + 1, end);
  const char *mismatch = find(rest, 0, " mismatch");
  if (!mismatch)
    return false;
  r->kind = TL_REASON_TENSOR;
  r->subject = slice(name, quote);
  r->what = tl_str_trim(slice(rest.ptr, mismatch));
  tl_str after = slice(mismatch + 9, end);
  if (tl_str_starts_with(after, " at index ")) {
    const char *d = after.ptr + 10, *e = d;
    while (e < end && *e >= '0' && *e <= '9')
      e++;
    r->index = slice(d, e);
    after = slice(e, end);
  }
  const char *expected = find(after, 0, "expected ");
  if (expected) {
    const char *actual =
        find(after, (size_t)(expected - after.ptr), ", actual ");
    r->expected = tl_str_trim(slice(expected + 9, actual ? actual : end));
    if (actual)
      r->actual = tl_str_trim(slice(actual + 9, end));
  }
  return true;
}

/* `___check_obj_id(G['cfg'], 1402...)`: the subject is the first argument. */
static bool read_id_check(tl_recompile_reason *r, const char *call,
                          tl_reason_kind kind) {
  tl_str t = r->text;
  if (!tl_str_starts_with(t, call))
    return false;
  const char *from = t.ptr + strlen(call), *end = t.ptr + t.len;
  const char *comma = NULL;
  for (const char *p = end; p > from; p--)
    if (p[-1] == ',') {
      comma = p - 1;
      break;
    }
  r->kind = kind;
  r->subject = tl_str_trim(slice(from, comma ? comma : end));
  return true;
}

static void classify(tl_recompile_reason *r) {
  if (read_tensor(r) ||
      read_id_check(r, "___check_obj_id(", TL_REASON_OBJECT_ID) ||
      read_id_check(r, "___check_type_id(", TL_REASON_TYPE_ID))
    return;
  tl_str t = r->text;
  if (tl_str_starts_with(t, "BACKEND_MATCH")) {
    r->kind = TL_REASON_BACKEND;
    return;
  }
  const char *eq = find(t, 0, " == ");
  bool compares = find(t, 0, "<") || find(t, 0, ">");
  if (eq && !compares && !find(t, (size_t)(eq - t.ptr) + 4, " == ")) {
    r->kind = TL_REASON_EQUALS;
    r->subject = tl_str_trim(slice(t.ptr, eq));
    r->expected = tl_str_trim(slice(eq + 4, t.ptr + t.len));
    return;
  }
  if (compares && find(t, 0, "size()")) {
    r->kind = TL_REASON_SIZE_RANGE;
    r->subject = t;
    return;
  }
  r->kind = TL_REASON_OTHER;
  r->subject = t;
}

/* `0/0: reason` with the id a run of digits, '/', '_' and '!' (compiled
 * autograd's `!0/0/0`), no spaces. */
static bool split_id(tl_str line, tl_str *id, tl_str *rest) {
  size_t i = 0;
  bool slash = false;
  while (i < line.len && (strchr("0123456789_!", line.ptr[i]) ||
                          (line.ptr[i] == '/' && (slash = true))))
    i++;
  if (!slash || i == 0 || i + 1 >= line.len || line.ptr[i] != ':' ||
      line.ptr[i + 1] != ' ')
    return false;
  *id = (tl_str){line.ptr, i};
  *rest = (tl_str){line.ptr + i + 2, line.len - i - 2};
  return true;
}

/* The first "; " of `s` from `from` outside brackets, or NULL. */
static const char *separator(tl_str s, size_t from) {
  int depth = 0;
  for (size_t i = from; i < s.len; i++) {
    char c = s.ptr[i];
    if (c == '(' || c == '[' || c == '{')
      depth++;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0)
      depth--;
    else if (c == ';' && depth == 0 && i + 1 < s.len && s.ptr[i + 1] == ' ')
      return s.ptr + i;
  }
  return NULL;
}

void tl_recompile_reasons_read(tl_str text, tl_recompile_reasons *out) {
  size_t at = 0;
  while (at < text.len) {
    const char *nl = memchr(text.ptr + at, '\n', text.len - at);
    size_t end = nl ? (size_t)(nl - text.ptr) : text.len;
    tl_str line = tl_str_trim((tl_str){text.ptr + at, end - at}), id, rest;
    at = end + 1;
    if (!split_id(line, &id, &rest))
      continue;
    /* Several reasons of one compile are joined by "; " (one inside
     * brackets, as in a guard comment's "(... framework; to
     * avoid ...)", is no separator). */
    size_t from = 0;
    for (;;) {
      const char *sep = separator(rest, from);
      size_t to = sep ? (size_t)(sep - rest.ptr) : rest.len;
      tl_recompile_reason r = {0};
      r.earlier = id;
      r.text = tl_str_trim((tl_str){rest.ptr + from, to - from});
      const char *comment = find(r.text, 0, "  #");
      if (comment) {
        r.where = tl_str_trim(slice(comment + 3, r.text.ptr + r.text.len));
        r.text = tl_str_trim(slice(r.text.ptr, comment));
      }
      if (r.text.len) {
        classify(&r);
        TL_VEC_PUSH(*out, r);
      }
      if (!sep)
        break;
      from = to + 2;
    }
  }
}

const char *tl_reason_kind_name(tl_reason_kind kind) {
  switch (kind) {
  case TL_REASON_TENSOR:
    return "tensor";
  case TL_REASON_OBJECT_ID:
    return "object_id";
  case TL_REASON_TYPE_ID:
    return "type_id";
  case TL_REASON_EQUALS:
    return "equals";
  case TL_REASON_SIZE_RANGE:
    return "size_range";
  case TL_REASON_BACKEND:
    return "backend";
  case TL_REASON_OTHER:
    break;
  }
  return "other";
}

static void put(tl_buf *out, tl_str s) { tl_buf_append_str(out, s); }

void tl_recompile_reason_words(tl_buf *out, const tl_recompile_reason *r) {
  tl_recompile_reason_words_in(out, r, 1);
}

void tl_recompile_reason_words_in(tl_buf *out, const tl_recompile_reason *r,
                                  size_t session) {
  /* The id as logged: "0/0", or compiled autograd's "!0/0/0", as the
   * labels write it inside the brackets. */
  tl_buf_puts(out, "[");
  put(out, r->earlier);
  tl_buf_puts(out, "] ");
  if (session > 1)
    tl_buf_printf(out, "#%zu ", session);
  switch (r->kind) {
  case TL_REASON_TENSOR:
    tl_buf_puts(out, "was compiled for tensor ");
    put(out, r->subject);
    tl_buf_puts(out, " with ");
    put(out, r->what);
    if (r->index.len) {
      tl_buf_puts(out, " ");
      put(out, r->expected);
      tl_buf_puts(out, " at dimension ");
      put(out, r->index);
    } else {
      tl_buf_puts(out, " ");
      put(out, r->expected);
    }
    if (r->actual.len) {
      tl_buf_puts(out, "; it is now ");
      put(out, r->actual);
    } else {
      tl_buf_puts(out, "; it differs now");
    }
    break;
  case TL_REASON_OBJECT_ID:
    tl_buf_puts(out, "holds another object in ");
    put(out, r->subject);
    tl_buf_puts(out, " than the one it was compiled for (its id changed)");
    break;
  case TL_REASON_TYPE_ID:
    tl_buf_puts(out, "was compiled for another type of ");
    put(out, r->subject);
    break;
  case TL_REASON_EQUALS:
    tl_buf_puts(out, "was compiled for ");
    put(out, r->subject);
    tl_buf_puts(out, " == ");
    put(out, r->expected);
    tl_buf_puts(out, "; that no longer holds");
    break;
  case TL_REASON_SIZE_RANGE:
    tl_buf_puts(out,
                "was compiled for sizes in a range that no longer holds: ");
    put(out, r->subject);
    break;
  case TL_REASON_BACKEND:
    tl_buf_puts(out, "was compiled with another backend callable");
    break;
  case TL_REASON_OTHER:
    tl_buf_puts(out, "guard failed: ");
    put(out, r->subject);
    break;
  }
}
