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

static void dims_words(tl_buf *out, bool *any, const tensor_type *x,
                       const tensor_type *y) {
  if (x->rank != y->rank) {
    clause(out, any);
    tl_buf_printf(out, "rank %zu -> %zu (", x->rank, y->rank);
    lists(out, x->sizes, y->sizes);
    tl_buf_puts(out, ")");
    return;
  }
  for (size_t d = 0; d < x->rank; d++) {
    if (tl_str_eq(x->dims[d], y->dims[d]))
      continue;
    bool sx = is_integer(x->dims[d]), sy = is_integer(y->dims[d]);
    clause(out, any);
    tl_buf_printf(out, "dim %zu ", d);
    tl_buf_puts(out, sx && !sy   ? "became dynamic ("
                     : !sx && sy ? "became static ("
                                 : "size (");
    from_to(out, x->dims[d], y->dims[d]);
    tl_buf_puts(out, ")");
  }
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
  dims_words(out, &any, &x, &y);
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

/* The arguments of the call `s` (`name(a, b=[1, 2])`), split at its
 * top-level commas; false when `s` is no call. */
static bool call_args(tl_str s, tl_str *args, size_t max, size_t *count) {
  const char *open = memchr(s.ptr, '(', s.len);
  if (!open || !s.len || s.ptr[s.len - 1] != ')')
    return false;
  size_t start = (size_t)(open - s.ptr) + 1, end = s.len - 1;
  int depth = 0;
  *count = 0;
  for (size_t i = start; i <= end; i++) {
    char c = i < end ? s.ptr[i] : ',';
    if (c == '(' || c == '[' || c == '{')
      depth++;
    else if (c == ')' || c == ']' || c == '}')
      depth--;
    else if (c == ',' && depth == 0) {
      if (*count == max)
        return false;
      args[(*count)++] = tl_str_trim((tl_str){s.ptr + start, i - start});
      start = i + 1;
    }
  }
  return depth == 0;
}

/* The value of `key=value`, or an empty slice. */
static tl_str keyword(tl_str arg, const char *key) {
  size_t n = strlen(key);
  if (arg.len > n && memcmp(arg.ptr, key, n) == 0 && arg.ptr[n] == '=')
    return (tl_str){arg.ptr + n + 1, arg.len - n - 1};
  return (tl_str){"", 0};
}

/* "[4, 16]" -> dims; false when no list. */
static bool list_dims(tl_str v, tensor_type *t) {
  memset(t, 0, sizeof *t);
  if (v.len < 2 || v.ptr[0] != '[' || v.ptr[v.len - 1] != ']')
    return false;
  t->sizes = (tl_str){v.ptr + 1, v.len - 2};
  return split_dims(t);
}

enum { MAX_ARGS = 32 };

bool tl_guard_shape_words(tl_buf *out, tl_str before, tl_str after) {
  tl_str a[MAX_ARGS], b[MAX_ARGS];
  size_t na, nb;
  if (!tl_str_starts_with(before, "check_tensor(") ||
      !tl_str_starts_with(after, "check_tensor(") ||
      !call_args(before, a, MAX_ARGS, &na) ||
      !call_args(after, b, MAX_ARGS, &nb) || na != nb)
    return false;
  static const char *const KEYS[] = {"device", "requires_grad"};
  bool any = false, sizes = false;
  for (size_t i = 0; i < na; i++) {
    if (tl_str_eq(a[i], b[i]))
      continue;
    if (tl_str_starts_with(a[i], "torch.") &&
        tl_str_starts_with(b[i], "torch.")) {
      clause(out, &any);
      tl_buf_puts(out, "dtype ");
      from_to(out, a[i], b[i]);
      continue;
    }
    tensor_type x, y;
    if (list_dims(keyword(a[i], "size"), &x) &&
        list_dims(keyword(b[i], "size"), &y)) {
      dims_words(out, &any, &x, &y);
      sizes = true;
      continue;
    }
    for (size_t k = 0; k < 2; k++) {
      tl_str vx = keyword(a[i], KEYS[k]), vy = keyword(b[i], KEYS[k]);
      if (vx.len && vy.len) {
        clause(out, &any);
        tl_buf_printf(out, "%s ", KEYS[k]);
        from_to(out, vx, vy);
      }
    }
  }
  for (size_t i = 0; i < na && !sizes && !any; i++) {
    tl_str vx = keyword(a[i], "stride"), vy = keyword(b[i], "stride");
    if (vx.len && vy.len && !tl_str_eq(vx, vy)) {
      clause(out, &any);
      tl_buf_puts(out, "strides ");
      tl_buf_append_str(out, vx);
      tl_buf_puts(out, " -> ");
      tl_buf_append_str(out, vy);
    }
  }
  return any;
}
