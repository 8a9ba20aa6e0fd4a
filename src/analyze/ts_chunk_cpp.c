/* ts_chunk_cpp.c: the C++ scanners of the chunker (ts_chunk.h): where the
 * top-level items of a C++ text begin (tl_ts_cpp_cuts), and the body of an
 * item with the cuts between its members or statements (tl_ts_cpp_item_body,
 * tl_ts_cpp_body), read over comments, literals and preprocessor lines
 * without a parse. The Python scanners are in ts_chunk_py.c. */
#include <stdlib.h>
#include <string.h>

#include "analyze/ts_chunk.h"
#include "analyze/ts_chunk_internal.h"
#include "util/mapped_text.h"

/* The end of a `/ * ... * /` comment opening at `i`: the byte after it, or
 * 0 when it is unterminated. */
static size_t block_comment_end(const char *t, size_t n, size_t i) {
  for (i += 2; i + 1 < n; i++)
    if (t[i] == '*' && t[i + 1] == '/')
      return i + 2;
  return 0;
}

/* The newline ending a `//` comment at `i` (n at the end of the text); a
 * backslash before the newline continues the comment, as in C. */
static size_t line_comment_end(const char *t, size_t n, size_t i) {
  for (;;) {
    const char *nl = memchr(t + i, '\n', n - i);
    if (!nl)
      return n;
    size_t at = (size_t)(nl - t), b = at;
    if (b > i && t[b - 1] == '\r')
      b--;
    if (b == i || t[b - 1] != '\\')
      return at;
    i = at + 1;
  }
}

/* A raw string from the quote after its `R` prefix: `R"delim( ... )delim"`
 * (KernelContextGuard sources). False when the delimiter is malformed or
 * the closing `)delim"` is missing. */
static bool skip_raw_string(const char *t, size_t n, size_t *pos) {
  size_t i = *pos + 1, d = i;
  while (i < n && t[i] != '(') {
    if (i - d >= 16 || strchr(" )\\\t\v\f\r\n", t[i]))
      return false;
    i++;
  }
  if (i >= n)
    return false;
  size_t dlen = i - d;
  for (i++; i < n; i++) {
    if (t[i] == ')' && n - i > dlen + 1 &&
        memcmp(t + i + 1, t + d, dlen) == 0 && t[i + 1 + dlen] == '"') {
      *pos = i + dlen + 2;
      return true;
    }
  }
  return false;
}

/* A preprocessor line from its `#` at *pos up to (not including) the
 * newline that ends it; backslash-newline continues it, and a block comment
 * or string in it is skipped whole. `#if`, `#ifdef` and `#ifndef` raise
 * *depth and `#endif` lowers it: no cut is made inside a conditional. The
 * braces and semicolons of a `#define` body do not count. */
static bool skip_directive(const char *t, size_t n, size_t *pos, long *depth) {
  static const char *const opens[] = {"if", "ifdef", "ifndef", NULL};
  size_t i = *pos + 1;
  while (i < n && (t[i] == ' ' || t[i] == '\t'))
    i++;
  size_t w = i;
  while (i < n && is_ident_char((unsigned char)t[i]))
    i++;
  if (word_in(t + w, i - w, opens))
    ++*depth;
  else if (word_is(t + w, i - w, "endif") && --*depth < 0)
    return false;
  while (i < n && t[i] != '\n') {
    if (t[i] == '\\' && i + 1 < n && t[i + 1] == '\n')
      i += 2;
    else if (t[i] == '\\' && i + 2 < n && t[i + 1] == '\r' && t[i + 2] == '\n')
      i += 3;
    else if (t[i] == '/' && i + 1 < n && t[i + 1] == '*') {
      if (!(i = block_comment_end(t, n, i)))
        return false;
    } else if (t[i] == '/' && i + 1 < n && t[i + 1] == '/')
      i = line_comment_end(t, n, i);
    else if (t[i] == '"') {
      if (!skip_quoted(t, n, &i))
        return false;
    } else
      i++;
  }
  *pos = i;
  return true;
}

/* Skips the comment or quoted literal at t[*pos]: 1 when it did, 0 when
 * none starts there, -1 when it is unterminated. */
static int skip_comment_or_quote(const char *t, size_t n, size_t *pos) {
  size_t i = *pos;
  if (t[i] == '/' && i + 1 < n && t[i + 1] == '/') {
    *pos = line_comment_end(t, n, i);
    return 1;
  }
  if (t[i] == '/' && i + 1 < n && t[i + 1] == '*') {
    size_t e = block_comment_end(t, n, i);
    *pos = e ? e : *pos;
    return e ? 1 : -1;
  }
  if (t[i] == '"' || t[i] == '\'')
    return skip_quoted(t, n, pos) ? 1 : -1;
  return 0;
}

/* Is the first word at or after `i` (past blanks) `word`? */
static bool next_word_is(const char *t, size_t n, size_t i, const char *word) {
  while (i < n && strchr(" \t\r\n\f\v", t[i]))
    i++;
  size_t w = i;
  while (i < n && is_ident_char((unsigned char)t[i]))
    i++;
  return word_is(t + w, i - w, word);
}

/* The C++ scanner over t[from, to), with offsets of the whole text. Between
 * declarations (the top level, a namespace body) an item ends after a `;`
 * outside any bracket, or after the `}` that closes a function body,
 * namespace or `extern "C" {}` block; a `{` after `=` or after
 * class/struct/union/enum opens an initializer or a type whose item ends at
 * the `;` that follows (`struct S {...} s;`), so its `}` is no cut. Between
 * statements (a function body) only a `;` ends one, and not before `else`.
 * Cuts are offered only outside #if nesting. Being conservative (too few
 * cuts) costs memory, never correctness. */
static bool cpp_scan(const char *t, size_t from, size_t to, bool statements,
                     tl_ts_cuts *cuts) {
  static const char *const type_words[] = {"class", "struct", "union", "enum",
                                           NULL};
  static const char *const str_prefixes[] = {"L", "u", "U", "u8", NULL};
  static const char *const raw_prefixes[] = {"R",  "LR",  "uR",
                                             "UR", "u8R", NULL};
  size_t n = to, i = from;
  long brace = 0, paren = 0, pp = 0;
  bool line_start = from == 0 || t[from - 1] == '\n', needs_semi = false;
  size_t first = cuts->count, next_passed = from;
  while (i < n) {
    tl_text_passing(t, i, &next_passed);
    unsigned char c = (unsigned char)t[i];
    if (c == '\n') {
      line_start = true;
      i++;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      i++;
      continue;
    }
    if (c == '#' && line_start) {
      if (!skip_directive(t, n, &i, &pp))
        goto unsure;
      continue;
    }
    line_start = false;
    int skipped = skip_comment_or_quote(t, n, &i);
    if (skipped < 0)
      goto unsure;
    if (skipped > 0)
      continue;
    if (is_digit(c) || (c == '.' && i + 1 < n && is_digit(t[i + 1]))) {
      /* A number: 1'000'000, 0x1p-3, 1.5e+10f. */
      for (i++; i < n; i++) {
        unsigned char d = (unsigned char)t[i], p = (unsigned char)t[i - 1];
        bool sign = (d == '+' || d == '-') && strchr("eEpP", p);
        bool sep = d == '\'' && i + 1 < n && is_ident_char(t[i + 1]);
        if (!is_ident_char(d) && d != '.' && !sign && !sep)
          break;
      }
    } else if (is_ident_char(c)) {
      size_t w = i;
      while (i < n && is_ident_char((unsigned char)t[i]))
        i++;
      if (i < n && t[i] == '"' && word_in(t + w, i - w, raw_prefixes)) {
        if (!skip_raw_string(t, n, &i))
          goto unsure;
      } else if (i < n && (t[i] == '"' || t[i] == '\'') &&
                 word_in(t + w, i - w, str_prefixes)) {
        if (!skip_quoted(t, n, &i))
          goto unsure;
      } else if (brace == 0 && paren == 0 &&
                 word_in(t + w, i - w, type_words)) {
        needs_semi = true;
      }
    } else {
      switch (c) {
      case '{':
        brace++;
        break;
      case '}':
        if (--brace < 0)
          goto unsure;
        if (brace == 0 && paren == 0 && !needs_semi && pp == 0 && !statements)
          add_cut(cuts, i + 1, from, to);
        break;
      case '(':
      case '[':
        paren++;
        break;
      case ')':
      case ']':
        if (--paren < 0)
          goto unsure;
        break;
      case ';':
        if (brace == 0 && paren == 0) {
          needs_semi = false;
          if (pp == 0 && !(statements && next_word_is(t, n, i + 1, "else")))
            add_cut(cuts, i + 1, from, to);
        }
        break;
      case '=':
        if (brace == 0 && paren == 0)
          needs_semi = true;
        break;
      default:
        break;
      }
      i++;
    }
  }
  if (brace == 0 && paren == 0 && pp == 0)
    return true;
unsure:
  cuts->count = first;
  return false;
}

bool tl_ts_cpp_cuts(tl_str text, tl_ts_cuts *cuts) {
  cuts->count = 0;
  if (!text.ptr || text.len >= UINT32_MAX || tl_text_has_nul(text))
    return text.len == 0;
  return cpp_scan(text.ptr, 0, text.len, false, cuts);
}

/* The `{` that opens the body of the item t[start, end): the first one
 * outside parentheses. Sets *kind to what the head says: 'n' for a
 * namespace or `extern "C"` block, 'f' for a function (the head ends with
 * `)` or a trailing const/noexcept/override/final), 0 for anything else. */
static bool find_body_open(const char *t, size_t start, size_t end,
                           size_t *open, size_t *first_token, char *kind) {
  static const char *const after_params[] = {"const", "noexcept", "override",
                                             "final", NULL};
  size_t i = start;
  long paren = 0, pp = 0;
  bool line_start = start == 0 || t[start - 1] == '\n';
  size_t first_word = 0, first_len = 0;
  char last = 0; /* the last significant byte, or 'w' after_params word */
  *kind = 0;
  while (i < end) {
    unsigned char c = (unsigned char)t[i];
    if (strchr(" \t\r\n\f\v", c)) {
      line_start = c == '\n' || line_start;
      i++;
      continue;
    }
    if (c == '#' && line_start) {
      if (!skip_directive(t, end, &i, &pp) || pp != 0)
        return false;
      continue;
    }
    line_start = false;
    bool comment = c == '/' && i + 1 < end && strchr("/*", t[i + 1]);
    if (!comment && *first_token == SIZE_MAX)
      *first_token = i;
    bool quote = c == '"' || c == '\'';
    int skipped = skip_comment_or_quote(t, end, &i);
    if (skipped < 0)
      return false;
    if (skipped > 0) {
      last = quote ? '"' : last;
      continue;
    }
    if (is_ident_char(c)) {
      size_t w = i;
      while (i < end && is_ident_char((unsigned char)t[i]))
        i++;
      if (i < end && t[i] == '"')
        return false; /* a prefixed or raw string in a head: not ours */
      if (!first_len) {
        first_word = w;
        first_len = i - w;
      }
      last = word_in(t + w, i - w, after_params) ? ')' : 'w';
    } else if (c == '(') {
      paren++;
      i++;
    } else if (c == ')') {
      if (--paren < 0)
        return false;
      last = ')';
      i++;
    } else if (c == '{' && paren == 0) {
      *open = i;
      if (last == ')')
        *kind = 'f';
      else if (word_is(t + first_word, first_len, "namespace") ||
               (word_is(t + first_word, first_len, "extern") && last == '"'))
        *kind = 'n';
      return *kind != 0;
    } else {
      last = (char)c;
      i++;
    }
  }
  return false;
}

char tl_ts_cpp_item_body(tl_str text, uint32_t start, uint32_t end,
                         tl_ts_body *body, tl_ts_cuts *cuts) {
  const char *t = text.ptr;
  cuts->count = 0;
  if (!t || end > text.len || start >= end)
    return 0;
  size_t close = end;
  while (close > start && strchr(" \t\r\n\f\v", t[close - 1]))
    close--;
  if (close <= start || t[close - 1] != '}')
    return 0;
  close--;
  size_t open = 0, first_token = SIZE_MAX;
  char kind = 0;
  if (!find_body_open(t, start, close, &open, &first_token, &kind))
    return 0;
  /* The scan also checks that the `{` found is the one the last `}`
   * closes: an item can hold several definitions (after `template <bool
   * b=false>` the scanner waits for a `;`), and then the body between them
   * does not balance. */
  if (!cpp_scan(t, open + 1, close, kind == 'f', cuts)) {
    cuts->count = 0;
    return 0;
  }
  body->start = start;
  body->head = (uint32_t)first_token;
  body->open = (uint32_t)open;
  body->close = (uint32_t)close;
  return kind;
}

bool tl_ts_cpp_body(tl_str text, uint32_t start, uint32_t end, tl_ts_body *body,
                    tl_ts_cuts *cuts) {
  if (tl_ts_cpp_item_body(text, start, end, body, cuts) && cuts->count)
    return true;
  cuts->count = 0;
  return false;
}
