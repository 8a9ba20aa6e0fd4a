/* export_report.c: the Draft Export Report (-e); see export_report.h.
 *
 * The entries it reads, as torch.export's draft export logs them:
 *   {"expression_created": {"method": "add", "result": "s0 + 1",
 *     "result_id": 1407, "arguments": ["s0", "1"], "argument_ids": [1406],
 *     "user_stack": [frames], "stack": [frames]}}
 *   {"create_unbacked_symbol": {"symbol": "u0", "node_id": 1406, ...}}
 *   {"guard_added": {"expr": "Eq(s0, 3)", "prefix": "eval",
 *     "expr_node_id": 1407, "frame_locals": {"locals": {..},
 *     "symbols": {..}}, "user_stack": [..], "stack": [..]}}
 *   {"propagate_real_tensors_provenance": {"expr": .., "result": "False",
 *     "expr_node_id": ..}}
 *   {"missing_fake_kernel": {"op": "mylib.foo.default"}}
 *   {"mismatched_fake_kernel": {"op": .., "reason": ..}}
 *   {"exported_program": {}, "has_payload": "<md5>"} + the program text
 * Output numbers follow the Rust tool's running counter: each exported
 * program and each symbolic page takes the next one. Every text from the
 * trace is escaped; a missing field is shown empty (parity spec 2).
 */
#define _XOPEN_SOURCE 700
#include "export_report.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <md5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "compile_id.h"
#include "fsutil.h"
#include "html.h"

/* Expression cards drawn in one run, over all pages: many guards on one
 * deep expression would otherwise repeat the tree once per guard, and the
 * output would grow as guards x expressions. */
enum { CARD_BUDGET = 1000000 };
/* A page is written out whenever this much of it is waiting. */
enum { FLUSH_AT = 1 << 20 };

/* The Rust tool's texts break their lines with 20 spaces of indent. */
#define BREAK "\n                    "

static const char FAKE_KERNEL_INFO[] =
    "Please refer to <a "
    "href='https://docs.google.com/document/d/"
    "1_W62p8WJOQQUzPsJYa7s701JXt0qf2OfLub2sbkHOaU/"
    "edit#heading=h.ahugy69p2jmz'>this doc</a> for more detailed "
    "instructions on how to write a fake kernel.";

static const char INDEX_CSS[] =
    "table { width: 90%; border-collapse: collapse; margin: 20px 0;\n"
    "  border: 2px solid #000; }\n"
    "table, th, td { border: 1px solid #999; padding: 10px;\n"
    "  text-align: left; }\n"
    "th { background-color: #d3d3d3; font-weight: bold; }\n"
    "tr:nth-child(odd) { background-color: #f2f2f2; }\n"
    "a { color: #0066cc; text-decoration: none; }\n"
    "a:hover { text-decoration: underline; }\n"
    "td:first-child { width: auto; white-space: nowrap; overflow: hidden;\n"
    "  text-overflow: ellipsis; }\n";

static const char SYMBOLIC_CSS[] =
    "table td { vertical-align: top; }\n"
    ".stack-trie { white-space: nowrap; font-family: monospace; }\n"
    ".stack-trie ul { padding-left: 1ch; }\n"
    ".stack-trie li { margin-left: 1ch; list-style-type: none; }\n"
    "summary::-webkit-details-marker { color: #00ACF3; font-size: 125%;\n"
    "  margin-right: 2px; }\n"
    "summary:focus { outline-style: none; }\n"
    "details > p { margin-left: 24px; }\n"
    "details details summary { font-size: 16px; }\n";

/* One expression of the trace (expression_created or
 * create_unbacked_symbol), its texts already escaped HTML. */
typedef struct ex_node {
  const char *result, *method, *arguments;
  const char *user_stack, *stack;
  uint64_t *argument_ids;
  size_t argument_count;
  unsigned mark; /* the last page that drew it */
} ex_node;

/* A compile folder, in the order the trace first names it. */
typedef struct ex_dir {
  tl_compile_id id; /* attempt 0 when frame_compile_id has none */
  bool unknown;     /* compile id unreadable */
  char *program_url;
  struct ex_dir *next; /* same hash */
} ex_dir;

/* uint64 -> pointer, open addressing; a NULL value is an empty slot. */
typedef struct id_table {
  uint64_t *keys;
  void **values;
  size_t size, count;
} id_table;

typedef struct exporter {
  const tl_export_options *options;
  tl_diag *diag;
  tl_arena arena;
  id_table nodes; /* expression id -> ex_node */
  id_table dirs;  /* compile id hash -> ex_dir chain */
  TL_VEC(ex_dir *) dir_order;
  tl_buf rows; /* the index's failure rows */
  size_t failures;
  unsigned long counter; /* the running output number */
  unsigned page;         /* pages drawn so far */
  size_t cards;          /* cards drawn, against CARD_BUDGET */
  bool payloads_dir_made;
  bool failed;
  char error[512];
} exporter;

/* An output page written in pieces of FLUSH_AT bytes. */
typedef struct page {
  int fd;
  tl_buf buf;
  char *path;
} page;

/* ---- tables ---------------------------------------------------------- */

static uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static size_t id_slot(const id_table *t, uint64_t key) {
  size_t mask = t->size - 1;
  size_t k = (size_t)mix(key) & mask;
  while (t->values[k] && t->keys[k] != key)
    k = (k + 1) & mask;
  return k;
}

static void *id_get(const id_table *t, uint64_t key) {
  return t->size ? t->values[id_slot(t, key)] : NULL;
}

static void id_put(id_table *t, uint64_t key, void *value) {
  if (2 * (t->count + 1) > t->size) {
    id_table bigger = {0};
    bigger.size = t->size ? 2 * t->size : 64;
    bigger.keys = tl_xcalloc(bigger.size, sizeof *bigger.keys);
    bigger.values = tl_xcalloc(bigger.size, sizeof *bigger.values);
    for (size_t i = 0; i < t->size; i++)
      if (t->values[i]) {
        size_t k = id_slot(&bigger, t->keys[i]);
        bigger.keys[k] = t->keys[i];
        bigger.values[k] = t->values[i];
      }
    bigger.count = t->count;
    free(t->keys);
    free(t->values);
    *t = bigger;
  }
  size_t k = id_slot(t, key);
  if (!t->values[k])
    t->count++;
  t->keys[k] = key;
  t->values[k] = value;
}

static void id_free(id_table *t) {
  free(t->keys);
  free(t->values);
}

/* ---- fields of the trace ---------------------------------------------- */

/* Text inside an element, escaped as the Rust tool escapes text (& < >);
 * attribute values and the page heading go through tl_html_escape. */
static void text(tl_buf *out, tl_str s) {
  size_t start = 0;
  for (size_t i = 0; i < s.len; i++) {
    const char *entity = s.ptr[i] == '&'   ? "&amp;"
                         : s.ptr[i] == '<' ? "&lt;"
                         : s.ptr[i] == '>' ? "&gt;"
                                           : NULL;
    if (!entity)
      continue;
    tl_buf_append(out, s.ptr + start, i - start);
    tl_buf_puts(out, entity);
    start = i + 1;
  }
  if (s.len)
    tl_buf_append(out, s.ptr + start, s.len - start);
}

static void text_cstr(tl_buf *out, const char *s) { text(out, tl_str_from(s)); }

static const cJSON *get(const cJSON *obj, const char *key) {
  return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key)
                             : NULL;
}

static bool absent(const cJSON *v) { return !v || cJSON_IsNull(v); }

/* obj[key] as a string; NULL when absent or null, and when of another
 * type, with a diagnostic. */
static const char *field_string(exporter *ex, const tl_record *rec,
                                const cJSON *obj, const char *key) {
  const cJSON *v = get(obj, key);
  if (cJSON_IsString(v))
    return v->valuestring;
  if (!absent(v))
    tl_diag_add(ex->diag, TL_DIAG_ENVELOPE, rec->line,
                "\"%s\" of the \"%s\" entry is not a string (shown empty)", key,
                rec->kind);
  return NULL;
}

/* A field every entry of its kind has: "" and a diagnostic without it. */
static const char *needed_string(exporter *ex, const tl_record *rec,
                                 const char *kind, const cJSON *obj,
                                 const char *key) {
  const char *s = field_string(ex, rec, obj, key);
  if (!s && absent(get(obj, key)))
    tl_diag_add(ex->diag, TL_DIAG_ENVELOPE, rec->line,
                "\"%s\" entry has no \"%s\" (shown empty)", kind, key);
  return s ? s : "";
}

/* An expression id (a u64 in the trace). */
static bool json_id(const cJSON *v, uint64_t *out) {
  if (!cJSON_IsNumber(v))
    return false;
  double d = v->valuedouble;
  if (!(d >= 0 && d < 18446744073709551616.0) || (double)(uint64_t)d != d)
    return false;
  *out = (uint64_t)d;
  return true;
}

static long long json_int(const cJSON *v) {
  if (!cJSON_IsNumber(v) || !(v->valuedouble > -9007199254740992.0 &&
                              v->valuedouble < 9007199254740992.0))
    return 0;
  return (long long)v->valuedouble;
}

/* A JSON value shown as text: a string as it is, anything else as JSON. */
static void value_text(tl_buf *out, const cJSON *v) {
  if (cJSON_IsString(v)) {
    text_cstr(out, v->valuestring);
    return;
  }
  char *json = cJSON_PrintUnformatted(v);
  if (json)
    text_cstr(out, json);
  free(json);
}

/* ---- stacks ------------------------------------------------------------ */

/* The Rust tool's simplify_filename: what follows "#link-tree/", or the
 * path after its first folder named like "*-seed-nspid*". */
static tl_str simplify_filename(const char *name) {
  static const char TREE[] = "#link-tree/", MARK[] = "-seed-nspid";
  const char *tree = strstr(name, TREE);
  if (tree) {
    const char *start = tree + strlen(TREE);
    const char *end = strstr(start, TREE);
    return (tl_str){start, end ? (size_t)(end - start) : strlen(start)};
  }
  const char *seg = name;
  for (const char *slash; (slash = strchr(seg, '/')); seg = slash + 1) {
    size_t len = (size_t)(slash - seg), mark = strlen(MARK);
    for (size_t i = 1; i + mark < len; i++) /* chars before and after */
      if (memcmp(seg + i, MARK, mark) == 0)
        return tl_str_from(slash + 1);
  }
  return tl_str_from(name);
}

static void frame_html(tl_buf *out, const cJSON *frame,
                       const tl_string_table *strings) {
  const cJSON *file = get(frame, "uninterned_filename");
  const char *name = cJSON_IsString(file) ? file->valuestring : NULL;
  if (!name) {
    file = get(frame, "filename");
    if (cJSON_IsNumber(file))
      name = tl_string_table_get(strings, json_int(file));
    else if (cJSON_IsString(file))
      name = file->valuestring;
  }
  const cJSON *fn = get(frame, "name");
  const cJSON *loc = get(frame, "loc");
  text(out, simplify_filename(name ? name : "(unknown)"));
  tl_buf_printf(out, ":%lld in ", json_int(get(frame, "line")));
  if (cJSON_IsString(fn))
    text_cstr(out, fn->valuestring);
  tl_buf_puts(out, "<br>&nbsp;&nbsp;&nbsp;&nbsp;");
  if (cJSON_IsString(loc))
    text_cstr(out, loc->valuestring);
}

/* A stack as the Rust tool draws one stack: a flat list of frames,
 * outermost first, in a <details> with `caption`. */
static void stack_html(exporter *ex, tl_buf *out, const tl_record *rec,
                       const cJSON *meta, const char *key, const char *caption,
                       bool open) {
  const cJSON *stack = get(meta, key);
  if (!absent(stack) && !cJSON_IsArray(stack))
    tl_diag_add(ex->diag, TL_DIAG_ENVELOPE, rec->line,
                "\"%s\" of the \"%s\" entry is not a list of frames (shown "
                "empty)",
                key, rec->kind);
  tl_buf_printf(out,
                "<details%s><summary>%s</summary><div class='stack-trie'>"
                "<ul>",
                open ? " open" : "", caption);
  const cJSON *frames = cJSON_IsArray(stack) ? stack : NULL, *frame;
  cJSON_ArrayForEach(frame, frames) {
    if (!cJSON_IsObject(frame))
      continue;
    tl_buf_puts(out, "<li>");
    frame_html(out, frame, rec->strings);
    tl_buf_puts(out, "</li>\n");
  }
  tl_buf_puts(out, "</ul></div></details>");
}

/* ---- expressions ------------------------------------------------------- */

static char *arena_html(exporter *ex, const char *text) {
  tl_buf b;
  tl_buf_init(&b);
  if (text)
    text_cstr(&b, text);
  char *s = tl_arena_strndup(&ex->arena, b.data, b.len);
  tl_buf_free(&b);
  return s;
}

static char *arena_stack(exporter *ex, const tl_record *rec, const cJSON *meta,
                         const char *key, const char *caption, bool open) {
  tl_buf b;
  tl_buf_init(&b);
  stack_html(ex, &b, rec, meta, key, caption, open);
  char *s = tl_arena_strndup(&ex->arena, b.data, b.len);
  tl_buf_free(&b);
  return s;
}

/* "a, b": the arguments as the trace spells them. */
static char *arena_arguments(exporter *ex, const cJSON *arguments) {
  tl_buf b;
  tl_buf_init(&b);
  const cJSON *list = cJSON_IsArray(arguments) ? arguments : NULL, *arg;
  cJSON_ArrayForEach(arg, list) {
    if (b.len)
      tl_buf_puts(&b, ", ");
    value_text(&b, arg);
  }
  char *s = tl_arena_strndup(&ex->arena, b.data, b.len);
  tl_buf_free(&b);
  return s;
}

static void node_argument_ids(exporter *ex, const tl_record *rec, ex_node *n,
                              const cJSON *ids) {
  if (absent(ids))
    return;
  if (!cJSON_IsArray(ids)) {
    tl_diag_add(ex->diag, TL_DIAG_ENVELOPE, rec->line,
                "\"argument_ids\" is not a list (no arguments drawn)");
    return;
  }
  size_t count = (size_t)cJSON_GetArraySize(ids);
  n->argument_ids = tl_arena_alloc(&ex->arena, count * sizeof(uint64_t) + 1);
  const cJSON *id;
  cJSON_ArrayForEach(id, ids) {
    if (json_id(id, &n->argument_ids[n->argument_count]))
      n->argument_count++;
    else
      tl_diag_add(ex->diag, TL_DIAG_ENVELOPE, rec->line,
                  "an \"argument_ids\" item is not an expression id "
                  "(skipped)");
  }
}

/* expression_created (is_symbol false) or create_unbacked_symbol: kept by
 * its id for the trees of later guards; a later entry with the same id
 * replaces it, as in the Rust tool. */
static void remember_expression(exporter *ex, const tl_record *rec,
                                const char *kind, const cJSON *meta,
                                bool is_symbol) {
  const char *id_key = is_symbol ? "node_id" : "result_id";
  uint64_t id;
  if (!json_id(get(meta, id_key), &id)) {
    tl_diag_add(ex->diag, TL_DIAG_ENVELOPE, rec->line,
                "\"%s\" entry has no \"%s\" expression id (not kept)", kind,
                id_key);
    return;
  }
  ex_node *n = tl_arena_alloc(&ex->arena, sizeof *n);
  const char *result =
      field_string(ex, rec, meta, is_symbol ? "symbol" : "result");
  n->result = arena_html(ex, result);
  n->method =
      arena_html(ex, is_symbol ? NULL : field_string(ex, rec, meta, "method"));
  n->arguments = is_symbol ? "" : arena_arguments(ex, get(meta, "arguments"));
  if (!is_symbol)
    node_argument_ids(ex, rec, n, get(meta, "argument_ids"));
  n->user_stack = arena_stack(ex, rec, meta, "user_stack", "User Stack", true);
  n->stack = arena_stack(ex, rec, meta, "stack", "Stack", false);
  id_put(&ex->nodes, id, n);
}

/* ---- output files ------------------------------------------------------ */

static void fail(exporter *ex, const char *what, const char *path) {
  if (!ex->failed)
    snprintf(ex->error, sizeof ex->error, "cannot %s %s: %s", what, path,
             strerror(errno));
  ex->failed = true;
}

static char *out_path(exporter *ex, const char *rel) {
  return tl_arena_printf(&ex->arena, "%s/%s", ex->options->out_dir, rel);
}

static bool make_dir(exporter *ex, const char *dir) {
  char error[512];
  if (tl_fs_mkdirs(out_path(ex, dir), error, sizeof error))
    return true;
  if (!ex->failed)
    snprintf(ex->error, sizeof ex->error, "%s", error);
  ex->failed = true;
  return false;
}

static void write_file(exporter *ex, const char *dir, const char *rel,
                       tl_str data) {
  char error[512];
  if (!make_dir(ex, dir))
    return;
  if (!tl_fs_write_file(out_path(ex, rel), data.ptr, data.len, error,
                        sizeof error)) {
    if (!ex->failed)
      snprintf(ex->error, sizeof ex->error, "%s", error);
    ex->failed = true;
  }
}

static void page_open(exporter *ex, page *p, const char *dir, const char *rel) {
  tl_buf_init(&p->buf);
  p->path = out_path(ex, rel);
  p->fd = -1;
  if (make_dir(ex, dir)) {
    p->fd = open(p->path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0666);
    if (p->fd < 0)
      fail(ex, "write", p->path);
  }
}

static void page_flush(exporter *ex, page *p) {
  const char *data = p->buf.data;
  size_t left = p->buf.len;
  while (p->fd >= 0 && left) {
    ssize_t w = write(p->fd, data, left);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0) {
      fail(ex, "write", p->path);
      close(p->fd);
      p->fd = -1;
      break;
    }
    data += w;
    left -= (size_t)w;
  }
  tl_buf_clear(&p->buf);
}

static void page_close(exporter *ex, page *p) {
  page_flush(ex, p);
  if (p->fd >= 0 && close(p->fd) != 0)
    fail(ex, "write", p->path);
  tl_buf_free(&p->buf);
}

/* ---- the symbolic guard page -------------------------------------------- */

static void locals_html(exporter *ex, tl_buf *out, const tl_record *rec,
                        const cJSON *meta) {
  const cJSON *frame_locals = get(meta, "frame_locals");
  static const char *const KEYS[] = {"locals", "symbols"};
  static const char *const TITLES[] = {"Locals:", "Symbols:"};
  for (int k = 0; k < 2; k++) {
    const cJSON *map = get(frame_locals, KEYS[k]);
    if (absent(map))
      continue;
    if (!cJSON_IsObject(map)) {
      tl_diag_add(ex->diag, TL_DIAG_ENVELOPE, rec->line,
                  "\"frame_locals\".\"%s\" is not an object (not shown)",
                  KEYS[k]);
      continue;
    }
    tl_buf_printf(out, "%s<pre>\n", TITLES[k]);
    const cJSON *item;
    cJSON_ArrayForEach(item, map) { /* in the trace's order */
      if (cJSON_IsNull(item))
        continue;
      tl_buf_puts(out, "    ");
      text_cstr(out, item->string);
      tl_buf_puts(out, ": ");
      value_text(out, item);
      tl_buf_putc(out, '\n');
    }
    tl_buf_puts(out, "</pre>");
  }
}

static void draw_card(tl_buf *out, const ex_node *n, size_t depth) {
  tl_buf_printf(out,
                "\n<div style=\"margin-left: %zupx;\">\n"
                "    <div style=\"padding: 16px; border: 1px solid #ccc; "
                "border-radius: 8px; box-shadow: 2px 2px 5px "
                "rgba(0,0,0,0.1); background-color: white;\">\n"
                "        <h3 style=\"font-weight: bold; font-size: "
                "1.25rem;\">%s</h3>\n"
                "        <div style=\"margin-top: 8px;\">\n",
                depth * 20, n->result);
  tl_buf_printf(out,
                "            <p><span style=\"font-weight: bold;\">Method:"
                "</span> %s</p>\n"
                "            <p><span style=\"font-weight: bold;\">"
                "Arguments:</span> %s</p>\n"
                "            <div style=\"margin-top: 8px; font-size: "
                "0.875rem;\">\n            ",
                n->method, n->arguments);
  tl_buf_puts(out, n->user_stack);
  tl_buf_puts(out, "\n            ");
  tl_buf_puts(out, n->stack);
  tl_buf_puts(out, "\n            </div>\n        </div>\n    </div>\n"
                   "</div>\n");
}

typedef struct walk_item {
  uint64_t id;
  size_t depth;
} walk_item;

/* The expression tree under `root`, depth first in pre-order through
 * argument_ids, with an explicit stack (a trace sets the depth): each
 * expression drawn once, an unknown id ends its branch. */
static void draw_tree(exporter *ex, page *p, const tl_record *rec,
                      uint64_t root) {
  TL_VEC(walk_item) todo = {0};
  unsigned mark = ++ex->page;
  TL_VEC_PUSH(todo, ((walk_item){root, 0}));
  while (todo.count) {
    walk_item it = todo.items[--todo.count];
    ex_node *n = id_get(&ex->nodes, it.id);
    if (!n || n->mark == mark)
      continue;
    if (ex->cards >= CARD_BUDGET) {
      tl_diag_add(ex->diag, TL_DIAG_OUTPUT, rec->line,
                  "expression tree cut: the run drew its limit of %d "
                  "expression cards",
                  CARD_BUDGET);
      tl_buf_printf(&p->buf,
                    "<p>The tree is cut here: this run drew its limit of "
                    "%d expression cards.</p>\n",
                    CARD_BUDGET);
      break;
    }
    n->mark = mark;
    ex->cards++;
    draw_card(&p->buf, n, it.depth);
    if (p->buf.len >= FLUSH_AT)
      page_flush(ex, p);
    for (size_t i = n->argument_count; i-- > 0;)
      TL_VEC_PUSH(todo, ((walk_item){n->argument_ids[i], it.depth + 1}));
  }
  TL_VEC_FREE(todo);
}

static void symbolic_page(exporter *ex, const tl_record *rec, const char *kind,
                          const cJSON *meta, const char *expr, const char *dir,
                          const char *rel) {
  page p;
  page_open(ex, &p, dir, rel);
  tl_buf *out = &p.buf;
  tl_buf_printf(out,
                "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"UTF-8\">\n"
                "<style>\n%s</style>\n"
                "<title>Symbolic Shapes Information</title>\n"
                "<base href=\"..\">\n</head>\n<body>\n"
                "    <h1>More detailed information on <code>",
                SYMBOLIC_CSS);
  tl_html_escape_cstr(out, expr);
  tl_buf_puts(out, "</code></h1>\n    <h2>Stacktrace:</h2>\n    ");
  stack_html(ex, out, rec, meta, "user_stack", "User Stack", true);
  tl_buf_puts(out, "\n    ");
  stack_html(ex, out, rec, meta, "stack", "Framework Stack", false);
  tl_buf_puts(out, "\n    <h2>Locals Information:</h2>\n    ");
  locals_html(ex, out, rec, meta);
  tl_buf_puts(out, "\n    <h2>Provenance information for this guard:</h2>\n"
                   "    <details open>\n"
                   "    <summary>Provenance Information</summary>\n    ");
  const cJSON *node_id = get(meta, "expr_node_id");
  uint64_t root;
  if (json_id(node_id, &root))
    draw_tree(ex, &p, rec, root);
  else if (!absent(node_id))
    tl_diag_add(ex->diag, TL_DIAG_ENVELOPE, rec->line,
                "\"expr_node_id\" of the \"%s\" entry is not an expression "
                "id (no tree drawn)",
                kind);
  tl_buf_puts(out, "\n    </details>\n</body>\n</html>\n");
  page_close(ex, &p);
}

/* ---- failures ------------------------------------------------------------ */

static void add_row(exporter *ex, const char *type, const tl_buf *reason,
                    const char *info) {
  tl_buf_printf(&ex->rows, "<tr>\n    <td>%s</td>\n    <td>", type);
  tl_buf_append_str(&ex->rows, tl_buf_str(reason));
  tl_buf_printf(&ex->rows, "</td>\n    <td>%s</td>\n</tr>\n", info);
  ex->failures++;
}

/* An evaluated guard or a data-dependent error: its page and its row. */
static void add_guard(exporter *ex, const tl_record *rec, const char *dir,
                      const char *kind, const cJSON *meta, const char *type,
                      const tl_buf *reason, const char *expr) {
  char file[64], *rel, *info;
  snprintf(file, sizeof file, "symbolic_guard_information_%lu.html",
           ex->counter++);
  rel = tl_arena_printf(&ex->arena, "%s/%s", dir, file);
  symbolic_page(ex, rec, kind, meta, expr, dir, rel);
  info = tl_arena_printf(&ex->arena,
                         "Please click <a href='%s'>here</a> for more "
                         "information.",
                         rel);
  add_row(ex, type, reason, info);
}

static void guard_added(exporter *ex, const tl_record *rec, const char *dir,
                        const cJSON *meta) {
  const char *expr = needed_string(ex, rec, "guard_added", meta, "expr");
  tl_buf reason;
  tl_buf_init(&reason);
  tl_buf_puts(&reason,
              "When exporting, the following guard was evaluated <code>");
  text_cstr(&reason, expr);
  tl_buf_puts(&reason, "</code>. This" BREAK
                       "might've resulted in a constraint violation error.");
  add_guard(ex, rec, dir, "guard_added", meta, "Guard Evaluated", &reason,
            expr);
  tl_buf_free(&reason);
}

static void data_dependent(exporter *ex, const tl_record *rec, const char *dir,
                           const cJSON *meta) {
  static const char KIND[] = "propagate_real_tensors_provenance";
  const char *expr = needed_string(ex, rec, KIND, meta, "expr");
  const char *result = needed_string(ex, rec, KIND, meta, "result");
  tl_buf reason;
  tl_buf_init(&reason);
  tl_buf_puts(&reason, "When exporting, we were unable to figure out if "
                       "the" BREAK "expression <code>");
  text_cstr(&reason, expr);
  tl_buf_puts(&reason, "</code> always holds.<br> As a result, it" BREAK
                       "was specialized to evaluate to <code>");
  text_cstr(&reason, result);
  tl_buf_puts(&reason,
              "</code>, and asserts" BREAK "were inserted into the graph.");
  add_guard(ex, rec, dir, KIND, meta, "Data Dependent Error", &reason, expr);
  tl_buf_free(&reason);
}

static void fake_kernel(exporter *ex, const tl_record *rec, const cJSON *meta,
                        bool mismatched) {
  const char *kind =
      mismatched ? "mismatched_fake_kernel" : "missing_fake_kernel";
  tl_buf reason;
  tl_buf_init(&reason);
  tl_buf_puts(&reason, "<code>torch.ops.");
  text_cstr(&reason, needed_string(ex, rec, kind, meta, "op"));
  if (mismatched) {
    tl_buf_puts(&reason,
                "</code> has a fake kernel implementation," BREAK
                "but it has incorrect behavior, based on the real "
                "kernel.<br>" BREAK "The reason for the mismatch is: ");
    text_cstr(&reason, needed_string(ex, rec, kind, meta, "reason"));
  } else {
    tl_buf_puts(&reason, "</code> is missing a fake kernel implementation");
  }
  add_row(ex, mismatched ? "Mismatched Fake Kernel" : "Missing Fake Kernel",
          &reason, FAKE_KERNEL_INFO);
  tl_buf_free(&reason);
}

/* ---- entries ------------------------------------------------------------- */

static uint64_t dir_hash(const tl_compile_id *id, bool unknown) {
  uint64_t h = unknown ? 1 : 2;
  int64_t parts[4] = {id->has_autograd ? id->autograd : -1,
                      id->has_frame ? id->frame : -1,
                      id->has_frame_compile ? id->frame_compile : -1,
                      id->has_attempt ? id->attempt : -1};
  for (int i = 0; i < 4; i++)
    h = mix(h ^ (uint64_t)parts[i]) + (uint64_t)i;
  return h;
}

/* The entry's compile folder, in the order the Rust tool lists folders
 * (the first entry naming it; attempt 0 when frame_compile_id has none). */
static ex_dir *note_dir(exporter *ex, const tl_record *rec) {
  tl_compile_id id = rec->compile_id;
  bool unknown = rec->compile_id_unknown;
  if (unknown)
    memset(&id, 0, sizeof id);
  if (id.has_frame_compile && !id.has_attempt) {
    id.has_attempt = true;
    id.attempt = 0;
  }
  uint64_t h = dir_hash(&id, unknown);
  ex_dir *first = id_get(&ex->dirs, h);
  for (ex_dir *d = first; d; d = d->next)
    if (d->unknown == unknown && tl_compile_id_eq(&d->id, &id))
      return d;
  ex_dir *d = tl_arena_alloc(&ex->arena, sizeof *d);
  d->id = id;
  d->unknown = unknown;
  d->next = first;
  id_put(&ex->dirs, h, d);
  TL_VEC_PUSH(ex->dir_order, d);
  return d;
}

static void exported_program(exporter *ex, const tl_record *rec,
                             const char *dir, ex_dir *d) {
  char *rel = tl_arena_printf(&ex->arena, "%s/exported_program_%lu.txt", dir,
                              ex->counter++);
  write_file(ex, dir, rel, rec->payload);
  if (!d->program_url)
    d->program_url = rel;
}

/* A payload no file holds: payloads/<md5>.txt, named by the declared md5
 * (or the computed one when that is not 32 hex digits); the last entry
 * with an md5 wins, as in the Rust tool. */
static void other_payload(exporter *ex, const tl_record *rec) {
  if (!rec->has_payload || !rec->payload.len)
    return;
  char digest[33];
  bool hex = rec->md5 && strlen(rec->md5) == 32 &&
             strspn(rec->md5, "0123456789abcdefABCDEF") == 32;
  if (hex)
    snprintf(digest, sizeof digest, "%s", rec->md5);
  else
    MD5Data((const uint8_t *)rec->payload.ptr, rec->payload.len, digest);
  char rel[64];
  snprintf(rel, sizeof rel, "payloads/%s.txt", digest);
  write_file(ex, "payloads", rel, rec->payload);
}

/* One entry, in the Rust tool's order of handling. */
static void on_record(void *ctx, const tl_record *rec) {
  exporter *ex = ctx;
  if (ex->failed || rec->other_rank)
    return;
  ex_dir *d = note_dir(ex, rec);
  char dir[96];
  if (rec->compile_id_unknown)
    snprintf(dir, sizeof dir, "unknown_%zu", rec->line);
  else
    tl_compile_id_dir_name(&rec->compile_id, dir, sizeof dir);
  const cJSON *env = rec->envelope, *meta;
  bool payload_used = false;
  if (get(env, "exported_program")) {
    exported_program(ex, rec, dir, d);
    payload_used = true;
  }
  if ((meta = get(env, "guard_added"))) {
    const cJSON *prefix = get(meta, "prefix");
    if (!cJSON_IsString(prefix) || strcmp(prefix->valuestring, "eval") != 0)
      return; /* not counted, and the rest of the entry is skipped */
    guard_added(ex, rec, dir, meta);
  }
  if ((meta = get(env, "propagate_real_tensors_provenance")))
    data_dependent(ex, rec, dir, meta);
  if ((meta = get(env, "missing_fake_kernel")))
    fake_kernel(ex, rec, meta, false);
  if ((meta = get(env, "mismatched_fake_kernel")))
    fake_kernel(ex, rec, meta, true);
  if ((meta = get(env, "expression_created")))
    remember_expression(ex, rec, "expression_created", meta, false);
  if ((meta = get(env, "create_unbacked_symbol")))
    remember_expression(ex, rec, "create_unbacked_symbol", meta, true);
  if (!payload_used && !get(env, "chromium_event"))
    other_payload(ex, rec);
}

/* ---- index.html ------------------------------------------------------------
 */

static void write_index(exporter *ex) {
  tl_buf html;
  tl_buf_init(&html);
  tl_buf_printf(&html,
                "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"UTF-8\">\n"
                "<title>Draft Export Report</title>\n<style>\n%s</style>\n"
                "</head>\n<body>\n<div>\n",
                INDEX_CSS);
  if (ex->options->custom_header_html) /* the user's own HTML */
    tl_buf_puts(&html, ex->options->custom_header_html);
  tl_buf_puts(&html, "\n<h1>Draft Export Report</h1>\n");
  if (!ex->failures) {
    tl_buf_puts(&html, "<p>\nCongratulations! No issues are found during "
                       "export, and it was able to soundly\nproduce a "
                       "graph. You can now change back to "
                       "torch.export.export()\n</p>\n");
  } else {
    tl_buf_printf(&html,
                  "<b>%zu issue(s) were found during export</b>, and it "
                  "was not able to\nsoundly produce a graph. The following "
                  "is a list of all the issues found and how\nyou may "
                  "address them.\n<table>\n<tr> <th> Failure Type </th> "
                  "<th> Reason </th> <th> Additional Info </th> </tr>\n",
                  ex->failures);
    tl_buf_append_str(&html, tl_buf_str(&ex->rows));
    tl_buf_puts(&html, "</table>\n");
  }
  const char *url = "";
  for (size_t i = 0; i < ex->dir_order.count && !*url; i++)
    if (ex->dir_order.items[i]->program_url)
      url = ex->dir_order.items[i]->program_url;
  tl_buf_puts(&html, "\nHere is the resulting exported program: <a href=\"");
  tl_html_escape_cstr(&html, url);
  tl_buf_puts(&html, "\">link</a>.\n</div>\n</body>\n</html>\n");
  write_file(ex, ".", "index.html", tl_buf_str(&html));
  tl_buf_free(&html);
}

bool tl_export_report_run(const tl_export_options *options, tl_diag *diag,
                          char *error, size_t error_size) {
  exporter ex;
  memset(&ex, 0, sizeof ex);
  ex.options = options;
  ex.diag = diag;
  tl_arena_init(&ex.arena);
  tl_buf_init(&ex.rows);
  tl_reader_options reader_options = {0};
  reader_options.progress = options->progress;
  reader_options.progress_ctx = options->progress_ctx;
  bool ok = tl_reader_run(options->input, &reader_options, diag, on_record, &ex,
                          error, error_size);
  if (ok && !ex.failed)
    write_index(&ex);
  if (ok && ex.failed) {
    snprintf(error, error_size, "%s", ex.error);
    ok = false;
  }
  tl_buf_free(&ex.rows);
  TL_VEC_FREE(ex.dir_order);
  id_free(&ex.nodes);
  id_free(&ex.dirs);
  tl_arena_free(&ex.arena);
  return ok;
}
