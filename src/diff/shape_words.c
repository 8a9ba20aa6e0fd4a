/* shape_words.c: FX annotations -> what changed, in words (see
 * shape_words.h). */
#include "diff/shape_words.h"

#include <string.h>

enum { MAX_DIMS = 64 };

typedef struct tensor_type {
  tl_str dtype, sizes, strides, device;
  tl_str dims[MAX_DIMS];
  size_t rank;
} tensor_type;

/* The bracketed list starting at s.ptr[*at] ('['), without its brackets;
 * *at moves past it. False when there is none. */
static bool bracketed(tl_str s, size_t *at, tl_str *out) {
  if (*at >= s.len || s.ptr[*at] != '[')
    return false;
  int depth = 0;
  for (size_t i = *at; i < s.len; i++) {
    if (s.ptr[i] == '[' || s.ptr[i] == '(')
      depth++;
    else if ((s.ptr[i] == ']' || s.ptr[i] == ')') && --depth == 0) {
      *out = (tl_str){s.ptr + *at + 1, i - *at - 1};
      *at = i + 1;
      return true;
    }
  }
  return false;
}

/* Splits a size list at its top-level commas. */
static bool split_dims(tensor_type *t) {
  tl_str s = t->sizes;
  t->rank = 0;
  if (!tl_str_trim(s).len)
    return true;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= s.len; i++) {
    char c = i < s.len ? s.ptr[i] : ',';
    if (c == '(' || c == '[')
      depth++;
    else if (c == ')' || c == ']')
      depth--;
    else if (c == ',' && depth == 0) {
      if (t->rank == MAX_DIMS)
        return false;
      t->dims[t->rank++] = tl_str_trim((tl_str){s.ptr + start, i - start});
      start = i + 1;
    }
  }
  return true;
}

static bool read_type(tl_str s, tensor_type *t) {
  memset(t, 0, sizeof *t);
  size_t i = 0;
  while (i < s.len && s.ptr[i] != '[' && s.ptr[i] != '(')
    i++;
  if (i == 0 || i == s.len || s.ptr[i] != '[')
    return false;
  t->dtype = (tl_str){s.ptr, i};
  if (!bracketed(s, &i, &t->sizes))
    return false;
  if (!bracketed(s, &i, &t->strides))
    t->strides = (tl_str){"", 0};
  t->device = (tl_str){s.ptr + i, s.len - i};
  return split_dims(t);
}

static bool is_integer(tl_str s) {
  if (!s.len)
    return false;
  for (size_t i = 0; i < s.len; i++)
    if (s.ptr[i] < '0' || s.ptr[i] > '9')
      return false;
  return true;
}

static void clause(tl_buf *out, bool *any) {
  if (*any)
    tl_buf_puts(out, "; ");
  *any = true;
}

static void from_to(tl_buf *out, tl_str x, tl_str y) {
  tl_buf_append_str(out, x);
  tl_buf_puts(out, " -> ");
  tl_buf_append_str(out, y);
}

/* "[4, 16] -> [2, 4, 16]" */
static void lists(tl_buf *out, tl_str x, tl_str y) {
  tl_buf_putc(out, '[');
  tl_buf_append_str(out, x);
  tl_buf_puts(out, "] -> [");
  tl_buf_append_str(out, y);
  tl_buf_putc(out, ']');
}

bool tl_shape_change_words(tl_buf *out, tl_str before, tl_str after) {
  tensor_type x, y;
  if (!read_type(before, &x) || !read_type(after, &y))
    return false;
  bool any = false;
  if (!tl_str_eq(x.dtype, y.dtype)) {
    clause(out, &any);
    tl_buf_puts(out, "dtype ");
    from_to(out, x.dtype, y.dtype);
  }
  if (x.rank != y.rank) {
    clause(out, &any);
    tl_buf_printf(out, "rank %zu -> %zu (", x.rank, y.rank);
    lists(out, x.sizes, y.sizes);
    tl_buf_puts(out, ")");
  } else {
    for (size_t d = 0; d < x.rank; d++) {
      if (tl_str_eq(x.dims[d], y.dims[d]))
        continue;
      bool sx = is_integer(x.dims[d]), sy = is_integer(y.dims[d]);
      clause(out, &any);
      tl_buf_printf(out, "dim %zu ", d);
      tl_buf_puts(out, sx && !sy   ? "became dynamic ("
                       : !sx && sy ? "became static ("
                                   : "size (");
      from_to(out, x.dims[d], y.dims[d]);
      tl_buf_puts(out, ")");
    }
  }
  if (!any && !tl_str_eq(x.strides, y.strides)) {
    clause(out, &any);
    tl_buf_puts(out, "strides ");
    lists(out, x.strides, y.strides);
  }
  if (!any && !tl_str_eq(x.device, y.device)) {
    clause(out, &any);
    tl_buf_puts(out, "device ");
    from_to(out, x.device, y.device);
  }
  return any;
}
