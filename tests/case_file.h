/* case_file.h: reading the analyzers' corpus case files, shared by the
 * corpus and chunk tests of tests/engine and tests/engine_cpp:
 *
 *   (comment lines before the first case are ignored)
 *   === name
 *   input lines
 *   [--- kernel_code          (AOT cases: the kernel-code artifact)
 *   kernel-code lines]
 *   ---
 *   expected dump lines
 *
 * Every tl_str points into the file's text.
 */
#ifndef TL_TEST_CASE_FILE_H
#define TL_TEST_CASE_FILE_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/fsutil.h"

typedef struct tl_case {
  tl_str name;
  tl_str input;
  bool has_kernels;
  tl_str kernels;
  tl_str expected;
} tl_case;

/* The end of the line at p (after its '\n'). */
static inline const char *case_next_line(const char *p, const char *end) {
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  return nl ? nl + 1 : end;
}

/* Whether the line at p is exactly `word`. */
static inline bool case_line_is(const char *p, const char *end,
                                const char *word) {
  size_t n = strlen(word);
  return (size_t)(end - p) >= n && memcmp(p, word, n) == 0 &&
         (p + n == end || p[n] == '\n');
}

static inline bool case_is_header(const char *p, const char *end) {
  return end - p >= 4 && memcmp(p, "=== ", 4) == 0;
}

/* The next case of `text` from *pos; false when there is none. */
static inline bool tl_case_next(tl_str text, size_t *pos, tl_case *c) {
  const char *p = text.ptr + *pos, *end = text.ptr + text.len;
  while (p < end && !case_is_header(p, end))
    p = case_next_line(p, end);
  if (p >= end)
    return false;
  memset(c, 0, sizeof *c);
  const char *name_end = case_next_line(p, end);
  c->name = (tl_str){p + 4, (size_t)(name_end - p - 4)};
  if (c->name.len && c->name.ptr[c->name.len - 1] == '\n')
    c->name.len--;
  p = name_end;
  const char *input = p, *input_end = NULL, *kern = NULL;
  while (p < end && !case_is_header(p, end) && !case_line_is(p, end, "---")) {
    if (case_line_is(p, end, "--- kernel_code")) {
      input_end = p;
      kern = case_next_line(p, end);
    }
    p = case_next_line(p, end);
  }
  if (!kern)
    input_end = p;
  c->input = (tl_str){input, (size_t)(input_end - input)};
  c->has_kernels = kern != NULL;
  c->kernels = (tl_str){kern, kern ? (size_t)(p - kern) : 0};
  if (p < end && case_line_is(p, end, "---"))
    p = case_next_line(p, end);
  const char *expected = p;
  while (p < end && !case_is_header(p, end))
    p = case_next_line(p, end);
  c->expected = (tl_str){expected, (size_t)(p - expected)};
  *pos = (size_t)(p - text.ptr);
  return true;
}

/* `s` without its trailing newlines. */
static inline tl_str case_trim(tl_str s) {
  while (s.len && s.ptr[s.len - 1] == '\n')
    s.len--;
  return s;
}

typedef void (*tl_case_fn)(void *ctx, const char *file, const tl_case *c);

/* Calls fn(ctx, file, case) for every case of the case file at `path`
 * (`file` names it in messages). Returns the number of cases, or -1 when
 * the file cannot be read. */
static inline int tl_case_file_each(const char *path, const char *file,
                                    tl_case_fn fn, void *ctx) {
  size_t len = 0;
  char *text = tl_fs_read_all(path, &len);
  if (!text)
    return -1;
  int cases = 0;
  size_t pos = 0;
  tl_case c;
  while (tl_case_next((tl_str){text, len}, &pos, &c)) {
    fn(ctx, file, &c);
    cases++;
  }
  free(text);
  return cases;
}

#endif
