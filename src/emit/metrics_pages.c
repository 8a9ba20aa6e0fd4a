/* metrics_pages.c: compilation pages in the Rust tool's layout
 * (metrics_pages.h). */
#include "emit/metrics_pages.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_stacks.h"
#include "util/html.h"
#include "json/json_number.h"

static const cJSON *get(const cJSON *obj, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* `item` if it is a list, else NULL (for cJSON_ArrayForEach). */
static const cJSON *list(const cJSON *item) {
  return cJSON_IsArray(item) ? item : NULL;
}

static const char *get_string(const cJSON *obj, const char *key) {
  const cJSON *item = get(obj, key);
  return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* A field the page prints: absent or null is "", a wrong type is "" and
 * named in in->bad_field. */
typedef enum field_type { FIELD_FLOAT, FIELD_INT, FIELD_STRING } field_type;

static void put_field(tl_buf *html, tl_metrics_input *in, const char *key,
                      field_type type) {
  const cJSON *item = get(in->metrics, key);
  if (!item || cJSON_IsNull(item))
    return;
  bool ok = type == FIELD_STRING ? cJSON_IsString(item) : cJSON_IsNumber(item);
  double v = ok && type != FIELD_STRING ? item->valuedouble : 0;
  if (type == FIELD_INT && (v != floor(v) || fabs(v) > 1.8e19))
    ok = false;
  if (!ok) {
    if (!in->bad_field)
      in->bad_field = key;
    return;
  }
  switch (type) {
  case FIELD_FLOAT: /* f64 in the Rust tool: 2 prints as 2.0 */
    tl_json_double(html, v);
    return;
  case FIELD_INT:
    tl_buf_printf(html, "%.0f", v);
    return;
  case FIELD_STRING:
    tl_html_escape_cstr(html, item->valuestring);
    return;
  }
}

/* Truthy as the Rust tool's templates test an optional number: present and
 * not zero. */
static bool nonzero(const cJSON *obj, const char *key) {
  const cJSON *item = get(obj, key);
  return cJSON_IsNumber(item) && item->valuedouble != 0;
}

static bool nonempty_string(const cJSON *obj, const char *key) {
  const char *s = get_string(obj, key);
  return s && *s;
}

static bool nonempty_list(const cJSON *obj, const char *key) {
  const cJSON *item = get(obj, key);
  return cJSON_IsArray(item) && item->child;
}

/* The Rust tool's simplify_filename: what follows "#link-tree/", or what
 * follows a "<x>-seed-nspid<y>/" folder. */
static const char *simplify_filename(const char *file) {
  const char *tree = strstr(file, "#link-tree/");
  if (tree)
    return tree + strlen("#link-tree/");
  const char *seed = strstr(file, "-seed-nspid");
  if (seed) {
    const char *slash = strchr(seed + strlen("-seed-nspid"), '/');
    if (slash && slash > seed + strlen("-seed-nspid"))
      return slash + 1;
  }
  return file;
}

/* "file:line in name<br>&nbsp;x4loc"; an FX-generated file links to its
 * dump_file page. `prefix` leads to the output root. */
static void frame_html(tl_buf *html, const tl_frame *f, const char *prefix) {
  const char *file = f->file ? simplify_filename(f->file) : "(unknown)";
  const char *key = strstr(file, "<eval_with_key>.");
  unsigned long long fx_id = 0;
  bool fx = false;
  if (key) {
    const char *d = key + strlen("<eval_with_key>.");
    for (; *d >= '0' && *d <= '9' && fx_id < 100000000000ull; d++, fx = true)
      fx_id = fx_id * 10 + (unsigned)(*d - '0');
  }
  if (fx)
    tl_buf_printf(html,
                  "<a href=\"%sdump_file/eval_with_key_%llu.html#L%lld\">",
                  prefix, fx_id, f->line);
  tl_html_escape_cut(html, tl_str_from(file), TL_HTML_SHOWN_MAX);
  tl_buf_printf(html, ":%lld", f->line);
  if (fx)
    tl_buf_puts(html, "</a>");
  tl_buf_puts(html, " in ");
  tl_html_escape_cstr(html, f->name ? f->name : "");
  tl_buf_puts(html, "<br>&nbsp;&nbsp;&nbsp;&nbsp;");
  tl_html_escape_cstr(html, f->loc ? f->loc : "");
}

void tl_stack_html(tl_buf *html, const tl_frame *frames, size_t count,
                   const char *caption) {
  tl_buf_puts(html, "<details><summary>");
  tl_html_escape_cstr(html, caption);
  tl_buf_puts(html, "</summary><div class=\"stack-trie\"><ul>");
  for (size_t i = 0; i < count; i++) {
    tl_buf_puts(html, "<li>");
    frame_html(html, &frames[i], "../");
    tl_buf_puts(html, "</li>\n");
  }
  tl_buf_puts(html, "</ul></div></details>");
}

/* A stack from the trace (a JSON list of frames), collapsed. */
static void json_stack_html(tl_buf *html, const cJSON *stack,
                            const tl_string_table *strings,
                            const char *caption) {
  TL_VEC(tl_frame) frames = {0};
  const cJSON *frame;
  cJSON_ArrayForEach(frame, list(stack)) {
    tl_frame f;
    tl_frame_read(frame, strings, &f);
    TL_VEC_PUSH(frames, f);
  }
  tl_stack_html(html, frames.items, frames.count, caption);
  TL_VEC_FREE(frames);
}

static void string_list(tl_buf *html, const cJSON *items) {
  const cJSON *item;
  cJSON_ArrayForEach(item, list(items)) {
    tl_buf_puts(html, "<li> <code> ");
    if (cJSON_IsString(item))
      tl_html_escape_cstr(html, item->valuestring);
    tl_buf_puts(html, " </code> </li>\n");
  }
}

static void page_begin(tl_buf *html, const char *title, const char *h1,
                       const tl_metrics_input *in) {
  tl_html_page_begin(html, title, "../");
  tl_buf_puts(html, "<nav><a href=\"../index.html\">index</a> · <a "
                    "href=\"../help.html#artifacts\">help</a></nav>\n<h1>");
  tl_html_escape_cstr(html, h1);
  tl_buf_puts(html, " for ");
  tl_html_escape_cstr(html, in->display ? in->display : "(unknown)");
  tl_buf_puts(html, " </h1>\n");
}

/* Failure Exception / Reason, or "No failures!". */
static void failure_block(tl_buf *html, tl_metrics_input *in, bool source) {
  if (!nonempty_string(in->metrics, "fail_type")) {
    tl_buf_puts(html, "<p> No failures! </p>\n");
    return;
  }
  tl_buf_puts(html, "<p>Failure Exception: <pre>");
  put_field(html, in, "fail_type", FIELD_STRING);
  tl_buf_puts(html, "</pre></p>\n<p>Failure Reason: <pre>");
  put_field(html, in, "fail_reason", FIELD_STRING);
  tl_buf_puts(html, "</pre></p>\n");
  if (source && nonempty_string(in->metrics, "fail_user_frame_filename")) {
    tl_buf_puts(html, "<p>In file <pre>");
    put_field(html, in, "fail_user_frame_filename", FIELD_STRING);
    tl_buf_puts(html, "</pre>, line ");
    put_field(html, in, "fail_user_frame_lineno", FIELD_INT);
    tl_buf_puts(html, "</p>\n");
  }
}

static void time_line(tl_buf *html, tl_metrics_input *in, const char *label,
                      const char *tip, const char *key) {
  tl_buf_printf(html, "<p>%s", label);
  if (tip)
    tl_buf_printf(html, " <abbr title=\"%s\">[?]</abbr>", tip);
  tl_buf_puts(html, ": ");
  put_field(html, in, key, FIELD_FLOAT);
  tl_buf_puts(html, "</p>\n");
}

static void inductor_times(tl_buf *html, tl_metrics_input *in) {
  if (nonzero(in->metrics, "inductor_compile_time_s"))
    time_line(html, in, "Inductor", "Total time spent running inductor",
              "inductor_compile_time_s");
  if (nonzero(in->metrics, "code_gen_time_s"))
    time_line(html, in, "Code Gen Time", NULL, "code_gen_time_s");
}

static void output_file_item(tl_buf *html, const tl_artifact *a) {
  tl_buf_puts(html, "<li>");
  if (a->url || a->path) {
    tl_buf_puts(html, "<a href=\"");
    if (a->url)
      tl_html_escape_cstr(html, a->url);
    else
      tl_url_path(html, a->name);
    tl_buf_puts(html, "\">");
  }
  tl_html_escape_cstr(html, a->name);
  tl_buf_puts(html, a->url || a->path ? "</a>" : "");
  tl_buf_printf(html, " (%d)</li>\n", a->listed_number);
}

/* The files of entries before line `line` are final (a file's link and
 * number are set while its own entry is stored), so their items are kept
 * rendered in the folder and copied; the others are rendered each time. */
static void output_files(tl_buf *html, tl_compile_dir *dir, size_t line) {
  tl_buf_puts(html, "<h2>Output files:</h2>\n<ul>\n");
  if (dir) {
    tl_buf *done = &dir->output_files_html;
    if (!done->data)
      tl_buf_init(done);
    size_t i = dir->output_files_rendered;
    for (; i < dir->artifacts.count && dir->artifacts.items[i].line < line; i++)
      output_file_item(done, &dir->artifacts.items[i]);
    dir->output_files_rendered = i;
    tl_buf_append(html, done->data, done->len);
    for (; i < dir->artifacts.count; i++)
      output_file_item(html, &dir->artifacts.items[i]);
  }
  tl_buf_puts(html, "</ul>\n");
}

static void compile_times(tl_buf *html, tl_metrics_input *in) {
  tl_buf_puts(html, "<h2>Compile Time(seconds)</h2>\n");
  time_line(html, in, "Entire Frame",
            "Total time spent in convert_frame function",
            "entire_frame_compile_time_s");
  time_line(html, in, "Backend", "Time spent running the backend compiler",
            "backend_compile_time_s");
  inductor_times(html, in);
  time_line(html, in, "Dynamo Time Before Restart",
            "Total time spent restarting dynamo analysis",
            "dynamo_time_before_restart_s");
}

static void counts(tl_buf *html, tl_metrics_input *in) {
  static const struct {
    const char *label, *key;
    bool graph; /* under Graph Metrics, else Cache Metrics */
  } ROWS[] = {{"Cache Size", "cache_size", false},
              {"Accumulated Cache Size", "accumulated_cache_size", false},
              {"Guard Count", "guard_count", true},
              {"Shape Env Guards", "shape_env_guard_count", true},
              {"Graph Ops", "graph_op_count", true},
              {"Graph Nodes", "graph_node_count", true},
              {"Graph Inputs", "graph_input_count", true}};
  for (size_t i = 0; i < sizeof ROWS / sizeof *ROWS; i++) {
    if (i == 0)
      tl_buf_puts(html, "<h2>Cache Metrics</h2>\n");
    else if (ROWS[i].graph && !ROWS[i - 1].graph)
      tl_buf_puts(html, "<h2>Graph Metrics</h2>\n");
    tl_buf_printf(html, "<p>%s: ", ROWS[i].label);
    put_field(html, in, ROWS[i].key, FIELD_INT);
    tl_buf_puts(html, "</p>\n");
  }
}

static void restarts(tl_buf *html, tl_metrics_input *in) {
  tl_buf_puts(html, "<h2>Restarts and Failures</h2>\n");
  failure_block(html, in, true);
  if (nonempty_list(in->metrics, "restart_reasons")) {
    tl_buf_puts(html, "<p>Restart Reasons:</p>\n<ul>\n");
    string_list(html, get(in->metrics, "restart_reasons"));
    tl_buf_puts(html, "</ul>\n");
  } else {
    tl_buf_puts(html, "<p> No restarts! </p>\n");
  }
}

static void custom_ops(tl_buf *html, const tl_metrics_input *in) {
  tl_buf_puts(html, "<h2> Custom Ops </h2>\n");
  static const char *const KEYS[][2] = {
      {"compliant_custom_ops", "Compliant Custom Ops:"},
      {"non_compliant_ops", "Non-Compliant Custom Ops:"}};
  for (size_t i = 0; i < 2; i++) {
    if (!nonempty_list(in->metrics, KEYS[i][0]))
      continue;
    tl_buf_printf(html, "<p> %s</p>\n<ul>\n", KEYS[i][1]);
    string_list(html, get(in->metrics, KEYS[i][0]));
    tl_buf_puts(html, "</ul>\n");
  }
}

static void text_cell(tl_buf *html, const cJSON *value) {
  tl_buf_puts(html, "<td>");
  if (cJSON_IsString(value))
    tl_html_escape_cstr(html, value->valuestring);
  else if (cJSON_IsNumber(value))
    tl_json_double(html, value->valuedouble);
  tl_buf_puts(html, "</td>");
}

static void stack_cells(tl_buf *html, const cJSON *entry,
                        const tl_string_table *strings) {
  tl_buf_puts(html, "<td>");
  json_stack_html(html, get(entry, "user_stack"), strings, "User Stack");
  tl_buf_puts(html, "</td><td>");
  json_stack_html(html, get(entry, "stack"), strings, "Framework Stack");
  tl_buf_puts(html, "</td></tr>\n");
}

static void shape_tables(tl_buf *html, const tl_metrics_input *in) {
  tl_buf_puts(html, "<h2>Symbolic shape specializations</h2>\n<table>\n"
                    "<tr><th>Sym</th> <th>Source(s)</th> <th>Value</th> "
                    "<th>User stack</th> <th>Framework stack</th></tr>\n");
  for (size_t i = 0; i < in->specialization_count; i++) {
    const cJSON *s = in->specializations[i];
    tl_buf_puts(html, "<tr>");
    text_cell(html, get(s, "symbol"));
    tl_buf_puts(html, "<td>");
    const cJSON *source;
    cJSON_ArrayForEach(source, list(get(s, "sources"))) {
      if (cJSON_IsString(source))
        tl_html_escape_cstr(html, source->valuestring);
      tl_buf_puts(html, "<br>");
    }
    tl_buf_puts(html, "</td>");
    text_cell(html, get(s, "value"));
    stack_cells(html, s, in->strings);
  }
  tl_buf_puts(html, "</table>\n<h2>Guards added fast</h2>\n<table>\n"
                    "<tr><th>Expr</th> <th>User stack</th> "
                    "<th>Framework stack</th></tr>\n");
  for (size_t i = 0; i < in->fast_guard_count; i++) {
    tl_buf_puts(html, "<tr>");
    text_cell(html, get(in->fast_guards[i], "expr"));
    stack_cells(html, in->fast_guards[i], in->strings);
  }
  tl_buf_puts(html, "</table>\n");
}

static void compilation_metrics(tl_buf *html, tl_metrics_input *in) {
  page_begin(html, "Compilation Metrics", "Compilation Info", in);
  const char *co_name = get_string(in->metrics, "co_name");
  const char *co_file = get_string(in->metrics, "co_filename");
  const cJSON *co_line = get(in->metrics, "co_firstlineno");
  tl_buf_puts(html, "<p>");
  if (co_name && co_file && cJSON_IsNumber(co_line)) {
    tl_frame f = {co_file, co_name, NULL, (long long)co_line->valuedouble};
    tl_stack_html(html, &f, 1, "Stack");
  }
  tl_buf_puts(html, "</p>\n");
  output_files(html, in->dir, in->line);
  tl_buf_puts(html, "<h2>Stack</h2>\n");
  if (in->stack)
    tl_stack_html(html, in->stack->frames, in->stack->count, "Stack");
  tl_buf_puts(html, "\n");
  compile_times(html, in);
  restarts(html, in);
  counts(html, in);
  custom_ops(html, in);
  shape_tables(html, in);
  tl_html_page_end(html);
}

static void bwd_compilation_metrics(tl_buf *html, tl_metrics_input *in) {
  page_begin(html, "Backward Compilation Metrics", "Backward Compilation Info",
             in);
  tl_buf_puts(html, "<h2>Compile Time(seconds)</h2>\n");
  inductor_times(html, in);
  tl_buf_puts(html, "<h2>Failures</h2>\n");
  failure_block(html, in, false);
  tl_html_page_end(html);
}

static void aot_backward_metrics(tl_buf *html, tl_metrics_input *in) {
  page_begin(html, "AOT Autograd Backward Compilation Metrics",
             "Compilation Info", in);
  tl_buf_puts(html, "<h2>Failures</h2>\n");
  failure_block(html, in, false);
  tl_html_page_end(html);
}

/* The metrics page kinds: a new kind is a row. */
static const struct {
  const char *kind;
  void (*render)(tl_buf *html, tl_metrics_input *in);
} PAGES[] = {
    {"compilation_metrics", compilation_metrics},
    {"bwd_compilation_metrics", bwd_compilation_metrics},
    {"aot_autograd_backward_compilation_metrics", aot_backward_metrics},
};

bool tl_metrics_page_render(const char *kind, tl_buf *html,
                            tl_metrics_input *in) {
  for (size_t i = 0; i < sizeof PAGES / sizeof *PAGES; i++) {
    if (strcmp(PAGES[i].kind, kind) == 0) {
      PAGES[i].render(html, in);
      return true;
    }
  }
  return false;
}

bool tl_guards_page_render(tl_buf *html, const char *display, tl_str payload,
                           const tl_string_table *strings, char *error,
                           size_t error_size) {
  const char *end = NULL;
  cJSON *json =
      payload.len
          ? cJSON_ParseWithLengthOpts(payload.ptr, payload.len, &end, false)
          : NULL;
  while (json && end < payload.ptr + payload.len && strchr(" \t\r\n", *end))
    end++;
  const char *problem = NULL;
  if (!json || end != payload.ptr + payload.len)
    problem = "not JSON";
  else if (!cJSON_IsArray(json))
    problem = "not a list";
  const cJSON *g;
  cJSON_ArrayForEach(g, list(problem ? NULL : json)) {
    if (!cJSON_IsString(get(g, "code"))) {
      problem = "a guard without its code";
      break;
    }
  }
  if (problem) {
    snprintf(error, error_size, "%s", problem);
    cJSON_Delete(json);
    return false;
  }
  tl_html_page_begin(html, "Guards", "../");
  tl_buf_puts(html, "<nav><a href=\"../index.html\">index</a></nav>\n"
                    "<p class=\"cid\">");
  tl_html_escape_cstr(html, display ? display : "(unknown)");
  tl_buf_puts(html, "</p>\n<h2>Guards</h2>\n<ul>\n");
  cJSON_ArrayForEach(g, json) {
    tl_buf_puts(html, "<li><code>");
    tl_html_escape_cstr(html, get(g, "code")->valuestring);
    tl_buf_puts(html, "</code>");
    if (cJSON_IsArray(get(g, "user_stack")) && get(g, "user_stack")->child)
      json_stack_html(html, get(g, "user_stack"), strings, "User Stack");
    tl_buf_puts(html, "</li>\n");
  }
  tl_buf_puts(html, "</ul>\n");
  tl_html_page_end(html);
  cJSON_Delete(json);
  return true;
}

static void row_start(tl_buf *rows, const char *page, const char *display) {
  tl_buf_puts(rows, "<tr><td>");
  if (display) {
    tl_buf_puts(rows, "<a href=\"");
    tl_url_path(rows, page);
    tl_buf_puts(rows, "\">");
    tl_html_escape_cstr(rows, display);
    tl_buf_puts(rows, "</a> ");
  } else {
    tl_buf_puts(rows, "(unknown) ");
  }
  tl_buf_puts(rows, "</td>");
}

size_t tl_failure_rows(tl_buf *rows, const char *page, const char *display,
                       const cJSON *metrics) {
  size_t n = 0;
  const cJSON *reasons = get(metrics, "restart_reasons");
  const cJSON *r;
  cJSON_ArrayForEach(r, list(reasons)) {
    row_start(rows, page, display);
    tl_buf_puts(rows, "<td>RestartAnalysis</td><td><pre>");
    if (cJSON_IsString(r))
      tl_html_escape_cstr(rows, r->valuestring);
    tl_buf_puts(rows, "</pre></td><td>Not availble for restarts(yet)!"
                      "</td></tr>\n");
    n++;
  }
  const char *fail_type = get_string(metrics, "fail_type");
  if (!fail_type)
    return n;
  const char *reason = get_string(metrics, "fail_reason");
  const char *file = get_string(metrics, "fail_user_frame_filename");
  const cJSON *line = get(metrics, "fail_user_frame_lineno");
  row_start(rows, page, display);
  tl_buf_puts(rows, "<td><pre>");
  tl_html_escape_cstr(rows, fail_type);
  tl_buf_puts(rows, "</pre></td><td><pre>");
  tl_html_escape_cstr(rows, reason ? reason : "");
  tl_buf_puts(rows, "</pre></td><td><pre>");
  tl_html_escape_cstr(rows, file ? file : "N/A");
  tl_buf_printf(rows, ":%.0f</pre></td></tr>\n",
                cJSON_IsNumber(line) && fabs(line->valuedouble) < 1e19
                    ? line->valuedouble
                    : 0.0);
  return n + 1;
}

void tl_failures_page_render(tl_buf *html, const tl_buf *rows, size_t count) {
  tl_html_page_begin(html, "Failures and Restarts", "");
  tl_buf_puts(html, "<nav><a href=\"index.html\">index</a></nav>\n"
                    "<h1>Failures and Restarts</h1>\n<table class=\"diag\">\n"
                    "<tr><th>Compile Id</th><th>Failure Type</th><th>Failure "
                    "Description</th><th>Failure Source (compilation "
                    "failures only)</th></tr>\n");
  tl_buf_append(html, rows->data, rows->len);
  tl_buf_puts(html, "</table>\n");
  if (!count)
    tl_buf_puts(html,
                "<p class=\"note\">No compilation failed or restarted.</p>\n");
  tl_html_page_end(html);
}

const char *tl_compile_status(const tl_compile_dir *dir) {
  if (!dir->metrics_count)
    return "status-missing";
  if (dir->any_fail)
    return "status-error";
  if (dir->any_empty)
    return "status-empty";
  /* Only a non-empty restart_reasons counts (the Rust tool also counts a
   * missing one, a bug not copied). */
  if (dir->any_restart)
    return "status-break";
  return "status-ok";
}

/* The trie of every dynamo_start stack; nodes live in one list so that
 * neither building nor freeing recurses. A node's child for a frame is
 * found through one hash table of edges (parent, frame) -> child, not by a
 * scan of the siblings: a million compiles of distinct functions are a
 * million children of the root. */
typedef struct trie_node {
  const tl_frame *frame; /* NULL for the root */
  size_t parent;
  uint64_t hash; /* of (parent, frame): the edge's key */
  TL_VEC(size_t) children;
  TL_VEC(const tl_compile_dir *) terminals;
} trie_node;

typedef struct trie {
  TL_VEC(trie_node) nodes;
  size_t *edges;    /* open addressing: a child's index, 0 = empty (the root
                       is nobody's child) */
  size_t edge_size; /* a power of two, or 0 */
} trie;

static bool same_frame(const tl_frame *a, const tl_frame *b) {
  return a->line == b->line &&
         !strcmp(a->file ? a->file : "\1", b->file ? b->file : "\1") &&
         !strcmp(a->name ? a->name : "", b->name ? b->name : "") &&
         !strcmp(a->loc ? a->loc : "", b->loc ? b->loc : "");
}

/* FNV-1a over `s` (NULL hashes apart from "" as same_frame tells them). */
static uint64_t hash_str(uint64_t h, const char *s) {
  if (!s)
    return (h ^ 0xffu) * 1099511628211ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return (h ^ 0xfeu) * 1099511628211ull;
}

/* A 64-bit finalizer (MurmurHash3's): every input bit reaches the low
 * bits the table indexes by. FNV alone does not carry high bits down, and
 * a deep stack's (parent, line) pairs, parent = line + 1, then shared
 * their low bits: a chain of 500,000 frames was quadratic. */
static uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

static uint64_t edge_hash(size_t parent, const tl_frame *frame) {
  uint64_t h = 1469598103934665603ull;
  h = hash_str(h, frame->file);
  h = hash_str(h, frame->name ? frame->name : "");
  h = hash_str(h, frame->loc ? frame->loc : "");
  h = mix64(h ^ mix64((uint64_t)parent + 0x9e3779b97f4a7c15ull));
  return mix64(h ^ mix64((uint64_t)frame->line));
}

static void edges_grow(trie *t) {
  size_t size = t->edge_size ? t->edge_size * 2 : 64;
  size_t *edges = tl_xcalloc(size, sizeof *edges);
  for (size_t i = 0; i < t->edge_size; i++) {
    size_t c = t->edges[i];
    if (!c)
      continue;
    size_t at = t->nodes.items[c].hash & (size - 1);
    while (edges[at])
      at = (at + 1) & (size - 1);
    edges[at] = c;
  }
  free(t->edges);
  t->edges = edges;
  t->edge_size = size;
}

static size_t trie_child(trie *t, size_t node, const tl_frame *frame) {
  if (t->nodes.count * 2 > t->edge_size)
    edges_grow(t);
  uint64_t h = edge_hash(node, frame);
  size_t at = h & (t->edge_size - 1);
  for (; t->edges[at]; at = (at + 1) & (t->edge_size - 1)) {
    const trie_node *c = &t->nodes.items[t->edges[at]];
    if (c->hash == h && c->parent == node && same_frame(c->frame, frame))
      return t->edges[at];
  }
  trie_node child = {0};
  child.frame = frame;
  child.parent = node;
  child.hash = h;
  TL_VEC_PUSH(t->nodes, child);
  size_t index = t->nodes.count - 1;
  t->edges[at] = index;
  TL_VEC_PUSH(t->nodes.items[node].children, index);
  return index;
}

static void terminal_links(tl_buf *html, const trie_node *node) {
  for (size_t i = 0; i < node->terminals.count; i++) {
    const tl_compile_dir *dir = node->terminals.items[i];
    if (!dir) { /* a stack of the "Unknown stacks" trie */
      tl_buf_puts(html, "(unknown) ");
      continue;
    }
    tl_buf_puts(html, "<a href=\"#");
    tl_html_escape_cstr(html, dir->display);
    tl_buf_printf(html, "\" class=\"%s\">", tl_compile_status(dir));
    tl_html_escape_cstr(html, dir->display);
    tl_buf_puts(html, "</a> ");
  }
}

/* Depth first with an explicit stack: a node among siblings gets a marker
 * and a nested list; an only child continues the list it is in. */
static void trie_html(tl_buf *html, const trie *t) {
  typedef struct {
    size_t node, next;
    bool close;
  } level;
  TL_VEC(level) todo = {0};
  level root = {0, 0, false};
  TL_VEC_PUSH(todo, root);
  while (todo.count) {
    level *top = &todo.items[todo.count - 1];
    const trie_node *node = &t->nodes.items[top->node];
    if (top->next == node->children.count) {
      if (top->close)
        tl_buf_puts(html, "</ul></li>");
      todo.count--;
      continue;
    }
    size_t c = node->children.items[top->next++];
    bool siblings = node->children.count > 1;
    const trie_node *child = &t->nodes.items[c];
    if (siblings) {
      tl_buf_puts(html, "<li><span onclick=\"toggleList(this)\" "
                        "class=\"marker\"></span>");
      terminal_links(html, child);
      tl_buf_puts(html, "\n");
      frame_html(html, child->frame, "");
      tl_buf_puts(html, "<ul>\n");
    } else {
      tl_buf_puts(html, "<li>");
      terminal_links(html, child);
      frame_html(html, child->frame, "");
      tl_buf_puts(html, "</li>\n");
    }
    level next = {c, 0, siblings};
    TL_VEC_PUSH(todo, next);
  }
  TL_VEC_FREE(todo);
}

static void trie_add(trie *t, const tl_stack *stack,
                     const tl_compile_dir *terminal) {
  size_t node = 0;
  for (size_t k = 0; k < stack->count; k++)
    node = trie_child(t, node, &stack->frames[k]);
  if (node)
    TL_VEC_PUSH(t->nodes.items[node].terminals, terminal);
}

/* Renders and frees a built trie. */
static void trie_finish(tl_buf *html, trie *t) {
  if (t->nodes.count > 1) {
    tl_buf_puts(html, "<details open><summary>Stack</summary>"
                      "<div class=\"stack-trie\"><ul>");
    trie_html(html, t);
    tl_buf_puts(html, "</ul></div></details>\n");
  }
  for (size_t i = 0; i < t->nodes.count; i++) {
    TL_VEC_FREE(t->nodes.items[i].children);
    TL_VEC_FREE(t->nodes.items[i].terminals);
  }
  TL_VEC_FREE(t->nodes);
  free(t->edges);
}

void tl_stack_trie_render(tl_buf *html, const tl_store *store) {
  trie t = {0};
  trie_node root = {0};
  TL_VEC_PUSH(t.nodes, root);
  for (size_t i = 0; i < store->starts.count; i++) {
    const tl_start *s = &store->starts.items[i];
    trie_add(&t, &s->dir->stacks.items[s->stack], s->dir);
  }
  trie_finish(html, &t);
}

void tl_unknown_stack_trie_render(tl_buf *html, const tl_store *store) {
  trie t = {0};
  trie_node root = {0};
  TL_VEC_PUSH(t.nodes, root);
  for (size_t i = 0; i < store->unknown_stacks.count; i++)
    trie_add(&t, &store->unknown_stacks.items[i], NULL);
  trie_finish(html, &t);
}
