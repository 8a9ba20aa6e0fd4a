/* ts_chunk_py.c: the Python scanners of the chunker (ts_chunk.h): where
 * the top-level statements of output code begin (tl_ts_python_cuts), the
 * statements of a large `def`, `class` or `with` body in it
 * (tl_ts_python_body), the statements of an FX graph's forward
 * (tl_ts_python_forward_cuts), and the long string literals the output
 * code's parse leaves out (tl_ts_python_long_strings). */
#include <stdlib.h>
#include <string.h>

#include "analyze/ts_chunk.h"
#include "analyze/ts_chunk_internal.h"
#include "util/mapped_text.h"

/* Python string literal from its quote at *pos, triple-quoted or not;
 * prefixes (r, b, f, ...) need no care, since a backslash keeps the next
 * byte in the literal in every kind. */
static bool skip_py_string(const char *t, size_t n, size_t *pos) {
  size_t i = *pos;
  char q = t[i];
  if (!(i + 2 < n && t[i + 1] == q && t[i + 2] == q))
    return skip_quoted(t, n, pos);
  /* From quote to quote (a kernel's source is kilobytes): a quote is
   * escaped when an odd run of backslashes inside the literal ends at it. */
  size_t body = i + 3;
  for (i = body; i < n;) {
    const char *at = memchr(t + i, q, n - i);
    if (!at)
      return false;
    size_t j = (size_t)(at - t), k = j;
    while (k > body && t[k - 1] == '\\')
      k--;
    if ((j - k) % 2 == 0 && j + 2 < n && t[j + 1] == q && t[j + 2] == q) {
      *pos = j + 3;
      return true;
    }
    i = j + 1;
  }
  return false;
}

/* Python: calls `visit` at the start of each logical line that begins a
 * statement: not inside brackets, a string or a backslash continuation,
 * and not blank or a comment. `indent` counts its leading spaces; a tab
 * among them makes it SIZE_MAX. False when unsure (see tl_ts_cuts). */
typedef void (*py_visit)(void *ctx, tl_str text, size_t line, size_t indent);

/* The bytes py_scan acts on after a line's start; a run of any others is
 * passed over at once. */
static const bool py_scan_stops[256] = {
    ['\n'] = true, ['#'] = true, ['\\'] = true, ['"'] = true,
    ['\''] = true, ['('] = true, [')'] = true,  ['['] = true,
    [']'] = true,  ['{'] = true, ['}'] = true};

/* As py_scan, calling `comment` (when not NULL) at the `#` of each line
 * that holds only a comment outside brackets, strings and continuations,
 * with the comment's indentation as `indent`. */
static bool py_scan_comments(tl_str text, py_visit visit, py_visit comment,
                             void *ctx);

static bool py_scan(tl_str text, py_visit visit, void *ctx) {
  return py_scan_comments(text, visit, NULL, ctx);
}

static bool py_scan_comments(tl_str text, py_visit visit, py_visit comment,
                             void *ctx) {
  const char *t = text.ptr;
  size_t n = text.len, i = 0;
  long depth = 0;
  bool line_start = true, continued = false;
  if (!t || n >= UINT32_MAX || tl_text_has_nul(text))
    return n == 0;
  size_t next_passed = 0;
  while (i < n) {
    tl_text_passing(t, i, &next_passed);
    unsigned char c = (unsigned char)t[i];
    if (line_start && depth == 0 && !continued) {
      size_t w = i;
      bool tab = false;
      while (w < n && (t[w] == ' ' || t[w] == '\t'))
        tab |= t[w++] == '\t';
      /* A form feed or a lone \r resets tree-sitter's (and Python's)
       * indentation, and a line that starts with a continuation takes the
       * next line's: an indentation the scanner does not read (SIZE_MAX). */
      bool odd = w < n && (t[w] == '\f' || t[w] == '\\' ||
                           (t[w] == '\r' && !(w + 1 < n && t[w + 1] == '\n')));
      if (odd)
        visit(ctx, text, i, SIZE_MAX);
      else if (w < n && !strchr("\r\n#", t[w]))
        visit(ctx, text, i, tab ? SIZE_MAX : w - i);
      else if (comment && w < n && t[w] == '#')
        comment(ctx, text, w, tab ? SIZE_MAX : w - i);
    }
    line_start = continued = false;
    if (c == '\n') {
      line_start = true;
      i++;
    } else if (c == '#') {
      const char *nl = memchr(t + i, '\n', n - i);
      i = nl ? (size_t)(nl - t) : n;
    } else if (c == '\\') {
      size_t k = i + 1 < n && t[i + 1] == '\r' ? i + 2 : i + 1;
      if (k < n && t[k] == '\n') {
        line_start = continued = true;
        i = k + 1;
      } else {
        i++;
      }
    } else if (c == '"' || c == '\'') {
      if (!skip_py_string(t, n, &i))
        return false;
    } else {
      if (c == '(' || c == '[' || c == '{')
        depth++;
      else if ((c == ')' || c == ']' || c == '}') && --depth < 0)
        return false;
      i++;
      while (i < n && !py_scan_stops[(unsigned char)t[i]])
        i++;
    }
  }
  return depth == 0;
}

/* Does the statement at `pos` continue the one before: an `else`, `elif`,
 * `except` or `finally` clause? */
static bool py_is_clause(tl_str text, size_t pos) {
  static const char *const clauses[] = {"else", "elif", "except", "finally",
                                        NULL};
  size_t w = pos;
  while (w < text.len && is_ident_char((unsigned char)text.ptr[w]))
    w++;
  return word_in(text.ptr + pos, w - pos, clauses);
}

typedef struct py_cut_state {
  tl_ts_cuts *cuts;
  bool after_decorator;
} py_cut_state;

static void py_cut_visit(void *ctx, tl_str text, size_t line, size_t indent) {
  py_cut_state *st = ctx;
  if (indent != 0 || py_is_clause(text, line))
    return;
  if (!st->after_decorator)
    add_cut(st->cuts, line, 0, text.len);
  st->after_decorator = text.ptr[line] == '@';
}

/* Python: a top-level statement begins at column 0. It is a cut unless it
 * continues the statement before: an `else`, `elif`, `except` or `finally`
 * clause, or anything after a decorator line (`@triton.jit` belongs to the
 * `def` below it). */
bool tl_ts_python_cuts(tl_str text, tl_ts_cuts *cuts) {
  py_cut_state st = {cuts, false};
  cuts->count = 0;
  if (py_scan(text, py_cut_visit, &st))
    return true;
  cuts->count = 0;
  return false;
}

/* Whether the literal whose first quote is at t[open] is neither formatted
 * nor a template: the name bytes before it are none, or a prefix of at
 * most two of r, b and u (either case). */
static bool plain_prefix(const char *t, size_t open) {
  size_t k = 0;
  while (k < open && is_ident_char((unsigned char)t[open - k - 1]))
    k++;
  if (k > 2)
    return false;
  for (size_t i = open - k; i < open; i++)
    if (!strchr("rRbBuU", t[i]))
      return false;
  return true;
}

/* The bytes the string scan acts on; a run of any others is passed over at
 * once. */
static const bool py_string_stops[256] = {
    ['#'] = true, ['"'] = true, ['\''] = true};

size_t tl_ts_long_string = TL_TS_LONG_STRING_DEFAULT;

void tl_ts_python_long_strings(tl_str text, size_t min, tl_ts_cuts *bodies) {
  const char *t = text.ptr;
  size_t n = text.len, i = 0, next_passed = 0;
  bodies->count = 0;
  if (!t || n >= UINT32_MAX || tl_text_has_nul(text))
    return;
  while (i < n) {
    tl_text_passing(t, i, &next_passed);
    char c = t[i];
    if (c == '#') {
      const char *nl = memchr(t + i, '\n', n - i);
      i = nl ? (size_t)(nl - t) : n;
    } else if (c == '"' || c == '\'') {
      size_t open = i;
      bool triple = i + 2 < n && t[i + 1] == c && t[i + 2] == c;
      if (!skip_py_string(t, n, &i)) {
        bodies->count = 0; /* unterminated: leave nothing out */
        return;
      }
      if (triple && i - open - 6 >= min && plain_prefix(t, open)) {
        TL_VEC_PUSH(*bodies, (uint32_t)(open + 3));
        TL_VEC_PUSH(*bodies, (uint32_t)(i - 3));
      }
    } else {
      i++;
      while (i < n && !py_string_stops[(unsigned char)t[i]])
        i++;
    }
  }
}

/* What tl_ts_python_comment_runs keeps while it reads: the last logical
 * line's indentation, and the comment lines seen since, as pairs (`#`,
 * the line's end). */
typedef struct comment_state {
  tl_ts_cuts *runs, lines;
  size_t min, indent;
  const char *keep;
  bool after_code, mixed;
} comment_state;

static void comment_line(void *ctx, tl_str text, size_t at, size_t indent) {
  comment_state *st = ctx;
  if (!st->after_code || indent != st->indent) {
    st->mixed = true;
    return;
  }
  const char *nl = memchr(text.ptr + at, '\n', text.len - at);
  TL_VEC_PUSH(st->lines, (uint32_t)at);
  TL_VEC_PUSH(st->lines, (uint32_t)(nl ? (size_t)(nl - text.ptr) : text.len));
}

/* Adds the run of comment lines st->lines[from, to) (pairs) when it is
 * long enough. */
static void add_run(comment_state *st, size_t from, size_t to) {
  if (from < to && st->lines.items[to - 1] - st->lines.items[from] >= st->min) {
    TL_VEC_PUSH(*st->runs, st->lines.items[from]);
    TL_VEC_PUSH(*st->runs, st->lines.items[to - 1]);
  }
}

static void code_line(void *ctx, tl_str text, size_t line, size_t indent) {
  comment_state *st = ctx;
  (void)line;
  if (st->after_code && !st->mixed && indent == st->indent) {
    size_t keep_len = st->keep ? strlen(st->keep) : 0, from = 0;
    for (size_t i = 0; i < st->lines.count; i += 2) {
      uint32_t at = st->lines.items[i], end = st->lines.items[i + 1];
      if (keep_len && end - at >= keep_len &&
          memcmp(text.ptr + at, st->keep, keep_len) == 0) {
        add_run(st, from, i);
        from = i + 2;
      }
    }
    add_run(st, from, st->lines.count);
  }
  st->lines.count = 0;
  st->mixed = false;
  st->after_code = indent != SIZE_MAX;
  st->indent = indent;
}

void tl_ts_python_comment_runs(tl_str text, size_t min, const char *keep,
                               tl_ts_cuts *runs) {
  comment_state st = {runs, {0}, min, 0, keep, false, false};
  runs->count = 0;
  if (!py_scan_comments(text, code_line, comment_line, &st))
    runs->count = 0;
  TL_VEC_FREE(st.lines);
}

typedef struct py_body_state {
  tl_ts_cuts *cuts;
  uint32_t base;        /* the item's offset in the text */
  size_t lines;         /* logical lines seen */
  size_t head, outer;   /* the statement's line and indentation */
  size_t first, indent; /* the body's first line and indentation */
  bool after_decorator, ok;
} py_body_state;

/* Line 0 opens the item's compound statement, `def`, `class` or `with`
 * (statements that take no clause after their body); the body's statements
 * are the lines at the indentation of line 1, deeper lines belong to them.
 * Lines are relative to the item. */
static void py_body_visit(void *ctx, tl_str text, size_t line, size_t indent) {
  static const char *const openers[] = {"def", "class", "with", "async", NULL};
  py_body_state *st = ctx;
  size_t k = st->lines++;
  if (indent == SIZE_MAX) { /* a tab: the indentation is not ours to read */
    st->ok = false;
    return;
  }
  const char *p = text.ptr + line + indent;
  if (k == 0) {
    size_t w = 0;
    while (line + indent + w < text.len && is_ident_char((unsigned char)p[w]))
      w++;
    st->ok &= word_in(p, w, openers);
    st->head = line;
    st->outer = indent;
    return;
  }
  if (k == 1) {
    st->ok &= indent > st->outer;
    st->indent = indent;
    st->first = line;
  } else if (indent < st->indent) {
    st->ok = false; /* a dedent: the item is not one body */
    return;
  } else if (indent > st->indent) {
    return;
  } else if (!py_is_clause(text, line + indent) && !st->after_decorator) {
    add_cut(st->cuts, st->base + line, st->base + st->first, SIZE_MAX);
  }
  st->after_decorator = *p == '@';
}

bool tl_ts_python_body(tl_str text, uint32_t start, uint32_t end,
                       tl_ts_body *body, tl_ts_cuts *cuts) {
  cuts->count = 0;
  if (!text.ptr || end > text.len || start >= end ||
      (start > 0 && text.ptr[start - 1] != '\n') || text.ptr[end - 1] != '\n')
    return false;
  tl_str item = {text.ptr + start, end - start};
  py_body_state st = {cuts, start, 0, 0, 0, 0, 0, false, true};
  if (!py_scan(item, py_body_visit, &st) || !st.ok || st.lines < 3 ||
      cuts->count == 0) {
    cuts->count = 0;
    return false;
  }
  /* The head ends with its own line: comment and blank lines before the
   * first statement go to the first chunk, not to every chunk's head. */
  size_t open = st.first - 1; /* the `\n` before the first statement */
  while (open > st.head) {
    size_t line = open;
    while (line > 0 && item.ptr[line - 1] != '\n')
      line--;
    size_t w = line;
    while (w < open && (item.ptr[w] == ' ' || item.ptr[w] == '\r'))
      w++;
    if (line <= st.head || (w < open && item.ptr[w] != '#'))
      break;
    open = line - 1;
  }
  body->start = start;
  body->head = (uint32_t)(start + st.head);
  body->open = (uint32_t)(start + open);
  body->close = end - 1; /* the item's last `\n` */
  return true;
}

typedef struct py_block_state {
  tl_ts_cuts *cuts;
  tl_ts_forward *fwd;
  size_t lines;
  bool ok;
  size_t previous_indent; /* of the line before */
  bool previous_opens;    /* it was a `class ` or `def ` line */
} py_block_state;

/* Lines 0 and 1 are the class and `def forward` headers; the body's
 * statements are at indentation 8, deeper lines belong to them. After the
 * body, the subgraph classes print_readable nests in the class, each from
 * a `class ` line at indentation 4 (deeper lines are theirs). A statement
 * deeper than the one before it, unless that one is a `class ` or `def `
 * line and the step is 4, is not print_readable's: tree-sitter reads such
 * an indent without an error, but what it makes of it depends on the lines
 * around, so a chunk could read it otherwise than the whole text. */
static void py_block_visit(void *ctx, tl_str text, size_t line, size_t indent) {
  py_block_state *st = ctx;
  size_t k = st->lines++;
  const char *p = text.ptr + line + (indent == SIZE_MAX ? 0 : indent);
  size_t rest = text.len - (size_t)(p - text.ptr);
  bool is_class = rest > 6 && memcmp(p, "class ", 6) == 0;
  bool opens = is_class || (rest > 4 && memcmp(p, "def ", 4) == 0);
  if (k > 0 && indent != SIZE_MAX && indent > st->previous_indent &&
      !(st->previous_opens && indent == st->previous_indent + 4))
    st->ok = false;
  st->previous_indent = indent;
  st->previous_opens = opens;
  if (k == 0)
    st->ok &= indent == 0 && is_class;
  else if (k == 1) {
    st->ok &= indent == 4 && rest > 12 && memcmp(p, "def forward(", 12) == 0;
    st->fwd->params_start = (uint32_t)(p - text.ptr) + 12;
  } else if (indent == 4 && is_class && k > 2) {
    if (!st->fwd->classes)
      st->fwd->classes = (uint32_t)line;
    add_cut(st->cuts, line, 0, text.len);
  } else if (st->fwd->classes) {
    st->ok &= indent > 4 && indent != SIZE_MAX;
  } else if (indent == 8) {
    st->ok &= *p != '@' && !py_is_clause(text, line + 8);
    if (k == 2)
      st->fwd->body = (uint32_t)line;
    else
      add_cut(st->cuts, line, 0, text.len);
  } else {
    st->ok &= indent > 8 && indent != SIZE_MAX && k > 2;
  }
}

/* At a string's quote or a comment's `#`: moves *pos past it and returns
 * 1 (-1 for a string left open); 0, without moving, at anything else. */
static int skip_py_string_or_comment(const char *t, size_t n, size_t *pos) {
  char c = t[*pos];
  if (c == '"' || c == '\'')
    return skip_py_string(t, n, pos) ? 1 : -1;
  if (c != '#')
    return 0;
  const char *nl = memchr(t + *pos, '\n', n - *pos);
  *pos = nl ? (size_t)(nl - t) : n;
  return 1;
}

/* The `)` closing the parameters that start at `i` (after the `(`), or 0;
 * strings and comments in annotations are skipped whole. */
static size_t py_params_end(tl_str text, size_t i) {
  const char *t = text.ptr;
  size_t n = text.len;
  long depth = 1;
  while (i < n) {
    char c = t[i];
    int skipped = skip_py_string_or_comment(t, n, &i);
    if (skipped < 0)
      return 0;
    if (skipped)
      continue;
    if (c == '(' || c == '[' || c == '{')
      depth++;
    else if ((c == ')' || c == ']' || c == '}') && --depth == 0)
      return i;
    i++;
  }
  return 0;
}

bool tl_ts_python_param_cuts(tl_str text, uint32_t start, uint32_t end,
                             tl_ts_cuts *cuts) {
  const char *t = text.ptr;
  size_t n = end <= text.len ? end : text.len, i = start;
  long depth = 0;
  cuts->count = 0;
  while (i < n) {
    char c = t[i];
    int skipped = skip_py_string_or_comment(t, n, &i);
    if (skipped < 0) {
      cuts->count = 0;
      return false;
    }
    if (skipped)
      continue;
    if (c == '(' || c == '[' || c == '{')
      depth++;
    else if ((c == ')' || c == ']' || c == '}') && --depth < 0)
      break;
    i++;
    if (c == ',' && depth == 0) {
      while (i < n && strchr(" \t\r\n", t[i]))
        i++;
      if (i < n)
        TL_VEC_PUSH(*cuts, (uint32_t)i);
    }
  }
  if (depth != 0) {
    cuts->count = 0;
    return false;
  }
  return true;
}

bool tl_ts_python_forward_cuts(tl_str text, tl_ts_cuts *cuts,
                               tl_ts_forward *fwd) {
  py_block_state st = {cuts, fwd, 0, true, 0, false};
  cuts->count = 0;
  memset(fwd, 0, sizeof *fwd);
  if (py_scan(text, py_block_visit, &st) && st.ok && st.lines > 2 &&
      fwd->body) {
    fwd->params_end = (uint32_t)py_params_end(text, fwd->params_start);
    if (fwd->params_end > 0 && fwd->params_end < fwd->body)
      return true;
  }
  cuts->count = 0;
  memset(fwd, 0, sizeof *fwd);
  return false;
}
