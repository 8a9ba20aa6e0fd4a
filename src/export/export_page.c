/* export_page.c: the symbolic guard pages of the export report (-e); see
 * export_page.h. A guard's page is drawn from the expressions the trace
 * created before it (kept here, as escaped HTML, by
 * tl_export_page_remember) and streamed to its file as it is drawn
 * (a draining tl_buf), since a deep tree can make a page much larger than
 * the trace.
 */
#define _XOPEN_SOURCE 700
#include "export/export_page.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fsutil.h"
#include "util/html.h"
#include "util/utf8.h"

/* Expression cards drawn in one run, over all pages: many guards on one
 * deep expression would otherwise repeat the tree once per guard, and the
 * output would grow as guards x expressions. */
enum { CARD_BUDGET = 1000000 };

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

/* An output page, streamed to its file through a draining buffer. */
typedef struct page {
  tl_buf buf;
  tl_fs_writer file;
  bool open; /* false: drawn and discarded (the file could not be made) */
} page;

/* ---- tables ---------------------------------------------------------- */

uint64_t tl_export_mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static size_t slot(const tl_export_ids *t, uint64_t key) {
  size_t mask = t->size - 1;
  size_t k = (size_t)tl_export_mix(key) & mask;
  while (t->values[k] && t->keys[k] != key)
    k = (k + 1) & mask;
  return k;
}

void *tl_export_ids_get(const tl_export_ids *t, uint64_t key) {
  return t->size ? t->values[slot(t, key)] : NULL;
}

void tl_export_ids_put(tl_export_ids *t, uint64_t key, void *value) {
  if (2 * (t->count + 1) > t->size) {
    tl_export_ids bigger = {0};
    bigger.size = t->size ? 2 * t->size : 64;
    bigger.keys = tl_xcalloc(bigger.size, sizeof *bigger.keys);
    bigger.values = tl_xcalloc(bigger.size, sizeof *bigger.values);
    for (size_t i = 0; i < t->size; i++)
      if (t->values[i]) {
        size_t k = slot(&bigger, t->keys[i]);
        bigger.keys[k] = t->keys[i];
        bigger.values[k] = t->values[i];
      }
    bigger.count = t->count;
    free(t->keys);
    free(t->values);
    *t = bigger;
  }
  size_t k = slot(t, key);
  if (!t->values[k])
    t->count++;
  t->keys[k] = key;
  t->values[k] = value;
}

void tl_export_ids_free(tl_export_ids *t) {
  free(t->keys);
  free(t->values);
}

/* ---- fields of the trace ---------------------------------------------- */

/* Text inside an element, escaped as the Rust tool escapes text (& < >);
 * attribute values and the page heading go through tl_html_escape. */
static void text_valid(tl_buf *out, tl_str s);

/* Text escaped as the Rust tool's text values are (& < > only), and valid
 * UTF-8: invalid sequences show as U+FFFD. */
static void text(tl_buf *out, tl_str s) {
  if (tl_utf8_valid_prefix(s) == s.len) {
    text_valid(out, s);
    return;
  }
  tl_buf fixed;
  tl_buf_init(&fixed);
  tl_utf8_repair(&fixed, s);
  text_valid(out, tl_buf_str(&fixed));
  tl_buf_free(&fixed);
}

static void text_valid(tl_buf *out, tl_str s) {
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

void tl_export_text(tl_buf *out, const char *s) { text(out, tl_str_from(s)); }

const cJSON *tl_export_get(const cJSON *obj, const char *key) {
  return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key)
                             : NULL;
}

static bool absent(const cJSON *v) { return !v || cJSON_IsNull(v); }

const char *tl_export_string(tl_diag *diag, const tl_record *rec,
                             const cJSON *obj, const char *key) {
  const cJSON *v = tl_export_get(obj, key);
  if (cJSON_IsString(v))
    return v->valuestring;
  if (!absent(v))
    tl_diag_add(diag, TL_DIAG_ENVELOPE, rec->line,
                "\"%s\" of the \"%s\" entry is not a string (shown empty)", key,
                rec->kind);
  return NULL;
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
    tl_export_text(out, v->valuestring);
    return;
  }
  char *json = cJSON_PrintUnformatted(v);
  if (json)
    tl_export_text(out, json);
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
  const cJSON *file = tl_export_get(frame, "uninterned_filename");
  const char *name = cJSON_IsString(file) ? file->valuestring : NULL;
  if (!name) {
    file = tl_export_get(frame, "filename");
    if (cJSON_IsNumber(file))
      name = tl_string_table_get(strings, json_int(file));
    else if (cJSON_IsString(file))
      name = file->valuestring;
  }
  const cJSON *fn = tl_export_get(frame, "name");
  const cJSON *loc = tl_export_get(frame, "loc");
  text(out, simplify_filename(name ? name : "(unknown)"));
  tl_buf_printf(out, ":%lld in ", json_int(tl_export_get(frame, "line")));
  if (cJSON_IsString(fn))
    tl_export_text(out, fn->valuestring);
  tl_buf_puts(out, "<br>&nbsp;&nbsp;&nbsp;&nbsp;");
  if (cJSON_IsString(loc))
    tl_export_text(out, loc->valuestring);
}

/* A stack as the Rust tool draws one stack: a flat list of frames,
 * outermost first, in a <details> with `caption`. */
static void stack_html(tl_export_pages *pages, tl_buf *out,
                       const tl_record *rec, const cJSON *meta, const char *key,
                       const char *caption, bool open) {
  const cJSON *stack = tl_export_get(meta, key);
  if (!absent(stack) && !cJSON_IsArray(stack))
    tl_diag_add(pages->diag, TL_DIAG_ENVELOPE, rec->line,
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

static char *arena_html(tl_export_pages *pages, const char *text) {
  tl_buf b;
  tl_buf_init(&b);
  if (text)
    tl_export_text(&b, text);
  char *s = tl_arena_strndup(pages->arena, b.data, b.len);
  tl_buf_free(&b);
  return s;
}

static char *arena_stack(tl_export_pages *pages, const tl_record *rec,
                         const cJSON *meta, const char *key,
                         const char *caption, bool open) {
  tl_buf b;
  tl_buf_init(&b);
  stack_html(pages, &b, rec, meta, key, caption, open);
  char *s = tl_arena_strndup(pages->arena, b.data, b.len);
  tl_buf_free(&b);
  return s;
}

/* "a, b": the arguments as the trace spells them. */
static char *arena_arguments(tl_export_pages *pages, const cJSON *arguments) {
  tl_buf b;
  tl_buf_init(&b);
  const cJSON *list = cJSON_IsArray(arguments) ? arguments : NULL, *arg;
  cJSON_ArrayForEach(arg, list) {
    if (b.len)
      tl_buf_puts(&b, ", ");
    value_text(&b, arg);
  }
  char *s = tl_arena_strndup(pages->arena, b.data, b.len);
  tl_buf_free(&b);
  return s;
}

static void node_argument_ids(tl_export_pages *pages, const tl_record *rec,
                              ex_node *n, const cJSON *ids) {
  if (absent(ids))
    return;
  if (!cJSON_IsArray(ids)) {
    tl_diag_add(pages->diag, TL_DIAG_ENVELOPE, rec->line,
                "\"argument_ids\" is not a list (no arguments drawn)");
    return;
  }
  size_t count = (size_t)cJSON_GetArraySize(ids);
  n->argument_ids = tl_arena_alloc(pages->arena, count * sizeof(uint64_t) + 1);
  const cJSON *id;
  cJSON_ArrayForEach(id, ids) {
    if (json_id(id, &n->argument_ids[n->argument_count]))
      n->argument_count++;
    else
      tl_diag_add(pages->diag, TL_DIAG_ENVELOPE, rec->line,
                  "an \"argument_ids\" item is not an expression id "
                  "(skipped)");
  }
}

/* expression_created (is_symbol false) or create_unbacked_symbol: kept by
 * its id for the trees of later guards; a later entry with the same id
 * replaces it, as in the Rust tool. */
void tl_export_page_remember(tl_export_pages *pages, const tl_record *rec,
                             const char *kind, const cJSON *meta,
                             bool is_symbol) {
  const char *id_key = is_symbol ? "node_id" : "result_id";
  uint64_t id;
  if (!json_id(tl_export_get(meta, id_key), &id)) {
    tl_diag_add(pages->diag, TL_DIAG_ENVELOPE, rec->line,
                "\"%s\" entry has no \"%s\" expression id (not kept)", kind,
                id_key);
    return;
  }
  ex_node *n = tl_arena_alloc(pages->arena, sizeof *n);
  const char *result =
      tl_export_string(pages->diag, rec, meta, is_symbol ? "symbol" : "result");
  n->result = arena_html(pages, result);
  n->method = arena_html(
      pages,
      is_symbol ? NULL : tl_export_string(pages->diag, rec, meta, "method"));
  n->arguments =
      is_symbol ? "" : arena_arguments(pages, tl_export_get(meta, "arguments"));
  if (!is_symbol)
    node_argument_ids(pages, rec, n, tl_export_get(meta, "argument_ids"));
  n->user_stack =
      arena_stack(pages, rec, meta, "user_stack", "User Stack", true);
  n->stack = arena_stack(pages, rec, meta, "stack", "Stack", false);
  tl_export_ids_put(&pages->nodes, id, n);
}

/* ---- output files ------------------------------------------------------ */

static char *out_path(tl_export_pages *pages, const char *rel) {
  return tl_arena_printf(pages->arena, "%s/%s", pages->out_dir, rel);
}

static void discard(void *ctx, const char *data, size_t len) {
  (void)ctx;
  (void)data;
  (void)len;
}

/* Opens <out_dir>/<rel>, making <out_dir>/<dir> first; on failure the page
 * is still drawn, and nothing is written. */
static void page_open(tl_export_pages *pages, page *p, const char *dir,
                      const char *rel, char *error, size_t error_size) {
  tl_buf_init(&p->buf);
  p->open =
      tl_fs_mkdirs_in(pages->out_dir, dir, error, error_size) &&
      tl_fs_writer_open(&p->file, out_path(pages, rel), error, error_size);
  if (p->open)
    tl_buf_drain_into(&p->buf, tl_fs_writer_write, &p->file);
  else
    tl_buf_drain_into(&p->buf, discard, NULL);
}

/* Writes the rest and closes; false (with the first error) on any failure. */
static bool page_close(page *p, char *error, size_t error_size) {
  tl_buf_drain(&p->buf);
  tl_buf_free(&p->buf);
  return p->open && tl_fs_writer_close(&p->file, error, error_size);
}

/* ---- the symbolic guard page -------------------------------------------- */

static void locals_html(tl_export_pages *pages, tl_buf *out,
                        const tl_record *rec, const cJSON *meta) {
  const cJSON *frame_locals = tl_export_get(meta, "frame_locals");
  static const char *const KEYS[] = {"locals", "symbols"};
  static const char *const TITLES[] = {"Locals:", "Symbols:"};
  for (int k = 0; k < 2; k++) {
    const cJSON *map = tl_export_get(frame_locals, KEYS[k]);
    if (absent(map))
      continue;
    if (!cJSON_IsObject(map)) {
      tl_diag_add(pages->diag, TL_DIAG_ENVELOPE, rec->line,
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
      tl_export_text(out, item->string);
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
static void draw_tree(tl_export_pages *pages, page *p, const tl_record *rec,
                      uint64_t root) {
  TL_VEC(walk_item) todo = {0};
  unsigned mark = ++pages->page;
  TL_VEC_PUSH(todo, ((walk_item){root, 0}));
  while (todo.count) {
    walk_item it = todo.items[--todo.count];
    ex_node *n = tl_export_ids_get(&pages->nodes, it.id);
    if (!n || n->mark == mark)
      continue;
    if (pages->cards >= CARD_BUDGET) {
      tl_diag_add(pages->diag, TL_DIAG_OUTPUT, rec->line,
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
    pages->cards++;
    draw_card(&p->buf, n, it.depth);
    for (size_t i = n->argument_count; i-- > 0;)
      TL_VEC_PUSH(todo, ((walk_item){n->argument_ids[i], it.depth + 1}));
  }
  TL_VEC_FREE(todo);
}

bool tl_export_page_write(tl_export_pages *pages, const tl_record *rec,
                          const char *kind, const cJSON *meta, const char *expr,
                          const char *dir, const char *rel, char *error,
                          size_t error_size) {
  page p;
  page_open(pages, &p, dir, rel, error, error_size);
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
  stack_html(pages, out, rec, meta, "user_stack", "User Stack", true);
  tl_buf_puts(out, "\n    ");
  stack_html(pages, out, rec, meta, "stack", "Framework Stack", false);
  tl_buf_puts(out, "\n    <h2>Locals Information:</h2>\n    ");
  locals_html(pages, out, rec, meta);
  tl_buf_puts(out, "\n    <h2>Provenance information for this guard:</h2>\n"
                   "    <details open>\n"
                   "    <summary>Provenance Information</summary>\n    ");
  const cJSON *node_id = tl_export_get(meta, "expr_node_id");
  uint64_t root;
  if (json_id(node_id, &root))
    draw_tree(pages, &p, rec, root);
  else if (!absent(node_id))
    tl_diag_add(pages->diag, TL_DIAG_ENVELOPE, rec->line,
                "\"expr_node_id\" of the \"%s\" entry is not an expression "
                "id (no tree drawn)",
                kind);
  tl_buf_puts(out, "\n    </details>\n</body>\n</html>\n");
  return page_close(&p, error, error_size);
}

void tl_export_page_free(tl_export_pages *pages) {
  tl_export_ids_free(&pages->nodes);
}
