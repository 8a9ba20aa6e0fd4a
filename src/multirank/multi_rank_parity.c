/* multi_rank_parity.c: a rank's collectives_parity.json (parity spec 1.4):
 * per compile folder with both a collective schedule and output code, the
 * collectives the scheduler planned against the calls the code makes
 *
 *     buf3 = torch.ops._c10d_functional.all_reduce_.default(buf2, 'sum', '0')
 *     torch.ops._c10d_functional.wait_tensor.default(buf3)
 *
 * counted by kind after comments are cut. The code is read from the exact
 * text beside the highlighted page (<stem>.py), or the -p text file; only
 * without either are the page's tags stripped as the Rust tool does.
 */
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multirank/multi_rank_internal.h"
#include "util/fsutil.h"
#include "json/json_serde.h"

static const char *const KINDS[] = {"all_reduce", "reduce_scatter",
                                    "all_gather", "broadcast",
                                    "all_to_all", "reduce"};
enum { KIND_COUNT = sizeof KINDS / sizeof *KINDS };

static int kind_of(const char *op) {
  for (int k = 0; k < KIND_COUNT; k++)
    if (strstr(op, KINDS[k]))
      return k;
  return -1;
}

const char *tl_mr_collective_kind(const char *op) {
  int k = kind_of(op);
  return k < 0 ? NULL : KINDS[k];
}

static int kind_index(const char *op, size_t len) {
  char *tmp = tl_xmalloc(len + 1);
  memcpy(tmp, op, len);
  tmp[len] = '\0';
  int k = kind_of(tmp);
  free(tmp);
  return k;
}

/* Cuts `<...>` tags (which may span lines) out of the text, in place. */
static void strip_tags(tl_buf *b) {
  size_t w = 0;
  bool in_tag = false;
  for (size_t i = 0; i < b->len; i++) {
    char c = b->data[i];
    if (in_tag)
      in_tag = c != '>';
    else if (c == '<')
      in_tag = true;
    else
      b->data[w++] = c;
  }
  b->len = w;
  b->data[w] = '\0';
}

/* Cuts `#...` and `//...` to the end of the line and `/ * ... * /`. */
static void strip_comments(tl_buf *b) {
  size_t w = 0, i = 0, n = b->len;
  char *d = b->data;
  while (i < n) {
    if (d[i] == '/' && i + 1 < n && d[i + 1] == '*') {
      char *end = strstr(d + i + 2, "*/");
      i = end ? (size_t)(end - d) + 2 : n;
    } else if (d[i] == '#' || (d[i] == '/' && i + 1 < n && d[i + 1] == '/')) {
      while (i < n && d[i] != '\n')
        i++;
    } else {
      d[w++] = d[i++];
    }
  }
  b->len = w;
  d[w] = '\0';
}

static const char *skip_space(const char *p) {
  while (isspace((unsigned char)*p))
    p++;
  return p;
}

static const char *expect(const char *p, const char *word) {
  size_t n = strlen(word);
  return strncmp(p, word, n) == 0 ? p + n : NULL;
}

/* Matches `torch . ops . _c10d_functional . NAME . default (` at p; sets the
 * name's span. */
static bool match_call(const char *p, const char **name, size_t *len) {
  static const char *const parts[] = {"torch", ".", "ops", "."};
  for (size_t i = 0; i < 4; i++) {
    if (!(p = expect(i ? skip_space(p) : p, parts[i])))
      return false;
  }
  p = skip_space(p);
  if (*p == '_')
    p++;
  if (!(p = expect(p, "c10d_functional")) || !(p = expect(skip_space(p), ".")))
    return false;
  p = skip_space(p);
  *name = p;
  while (isalnum((unsigned char)*p) || *p == '_')
    p++;
  *len = (size_t)(p - *name);
  if (!*len || !(p = expect(skip_space(p), ".")) ||
      !(p = expect(skip_space(p), "default")))
    return false;
  return *skip_space(p) == '(';
}

static void count_code(const char *text, int counts[KIND_COUNT], int *waits) {
  for (const char *p = strstr(text, "torch"); p; p = strstr(p + 1, "torch")) {
    const char *name;
    size_t len;
    if (!match_call(p, &name, &len))
      continue;
    if (len == 11 && memcmp(name, "wait_tensor", 11) == 0) {
      (*waits)++;
      continue;
    }
    int k = kind_index(name, len);
    if (k >= 0)
      counts[k]++;
  }
}

/* The graph's code: <stem>.py beside the page, the -p text, or the page
 * with its tags cut. False when none can be read. */
static bool read_code(const char *rank_dir, const tl_mr_graph *g, tl_buf *out) {
  char path[4096], error[256];
  size_t n = strlen(g->code_name);
  bool html = n > 5 && strcmp(g->code_name + n - 5, ".html") == 0;
  if (html) {
    snprintf(path, sizeof path, "%s/%s/%.*s.py", rank_dir, g->dir, (int)(n - 5),
             g->code_name);
    if (tl_fs_read_file(path, out, error, sizeof error))
      return true;
    tl_buf_clear(out);
  }
  snprintf(path, sizeof path, "%s/%s/%s", rank_dir, g->dir, g->code_name);
  if (!tl_fs_read_file(path, out, error, sizeof error))
    return false;
  if (html)
    strip_tags(out);
  return true;
}

static void parity_entry(tl_buf *json, const tl_mr_graph *g, int offset,
                         int missing, bool first) {
  tl_buf_puts(json, first ? "\n" : ",\n");
  tl_buf_puts(json, "    {\n      \"graph\": ");
  tl_json_serde_string(json, tl_str_from(g->dir));
  tl_buf_puts(json, ",\n      \"compile_id\": ");
  tl_json_serde_string(json,
                       tl_str_from(g->compile_id ? g->compile_id : "unknown"));
  tl_buf_printf(json,
                ",\n      \"offset\": %d,\n      \"missing_waits\": %d\n    }",
                offset, missing);
}

bool tl_mr_parity_write(const tl_mr_rank *r, const char *rank_dir,
                        bool plain_text, char *error, size_t error_size) {
  (void)plain_text; /* code_name already has the mode's extension */
  tl_buf json, code;
  tl_buf_init(&json);
  tl_buf_init(&code);
  tl_buf_puts(&json, "{\n  \"description\": \"Difference of # of collectives "
                     "in scheduler and inductor output code and missing "
                     "wait collectives\",\n  \"graphs\": [");
  size_t listed = 0;
  for (size_t i = 0; i < r->graphs.count; i++) {
    const tl_mr_graph *g = &r->graphs.items[i];
    if (!g->has_sched || !g->code_name)
      continue;
    tl_buf_clear(&code);
    if (!read_code(rank_dir, g, &code))
      continue;
    strip_comments(&code);
    int sched[KIND_COUNT] = {0}, in_code[KIND_COUNT] = {0}, waits = 0;
    for (size_t k = 0; k < g->sched.count; k++) {
      int idx = kind_of(g->sched.items[k]);
      if (idx >= 0)
        sched[idx]++;
    }
    count_code(code.data, in_code, &waits);
    int offset = 0, total = 0;
    for (int k = 0; k < KIND_COUNT; k++) {
      offset += abs(sched[k] - in_code[k]);
      total += in_code[k];
    }
    int missing = total > waits ? total - waits : 0;
    if (offset > 0 || missing > 0)
      parity_entry(&json, g, offset, missing, listed++ == 0);
  }
  tl_buf_puts(&json, listed ? "\n  ]\n}" : "]\n}");
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/collectives_parity.json", rank_dir);
  bool ok = tl_fs_write_file(path.data, json.data, json.len, error, error_size);
  tl_buf_free(&path);
  tl_buf_free(&json);
  tl_buf_free(&code);
  return ok;
}
