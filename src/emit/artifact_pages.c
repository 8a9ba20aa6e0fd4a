/* artifact_pages.c: the pages of single entries (see artifact_pages.h). The
 * renderers here build each page in memory; the entry functions take its
 * number, file it through the store and hand its bytes to the sink. The
 * output code's page is the exception: only what comes before and after
 * the code is built here, and the sink writes it around the payload,
 * escaped a megabyte at a time. */
#include "emit/artifact_pages.h"

#include <stdlib.h>
#include <string.h>

#include "emit/metrics_pages.h"
#include "util/fsutil.h"
#include "util/html.h"
#include "util/resources.h"

static void page_heading(tl_buf *html, const char *what, tl_compile_dir *dir) {
  tl_buf_puts(html, "<nav><a href=\"../index.html\">index</a> · <a "
                    "href=\"../help.html#artifacts\">help</a></nav>\n<h1>");
  tl_html_escape_cstr(html, what);
  tl_buf_puts(html, " <span class=\"cid\">");
  tl_html_escape_cstr(html, dir->display);
  tl_buf_puts(html, "</span></h1>\n");
}

/* The output code as a highlighted page (highlight.js runs in the page):
 * what comes before the code, escaped by the sink, and after it. */
static void output_code_page(tl_buf *before, tl_buf *after, tl_compile_dir *dir,
                             const char *title, const char *text_file) {
  tl_html_page_begin(before, title, "../");
  tl_buf_puts(before,
              "<link rel=\"stylesheet\" href=\"../static/hljs.css\">\n");
  page_heading(before, title, dir);
  tl_buf_puts(before, "<p>Exact text: <a href=\"");
  tl_url_path(before, text_file);
  tl_buf_puts(before, "\">");
  tl_html_escape_cstr(before, text_file);
  tl_buf_puts(before, "</a></p>\n<pre><code class=\"language-python\">");
  tl_buf_puts(after,
              "</code></pre>\n<script src=\"../static/highlight.min.js\">"
              "</script>\n<script>hljs.highlightAll();</script>\n");
  tl_html_page_end(after);
}

/* Parses `text` as one JSON value with nothing but whitespace after it
 * (cJSON alone stops at the end of the first value); NULL otherwise. */
static cJSON *parse_whole_json(tl_str text) {
  const char *end = NULL;
  cJSON *json = cJSON_ParseWithLengthOpts(text.ptr, text.len, &end, false);
  if (!json)
    return NULL;
  for (const char *p = end; p < text.ptr + text.len; p++) {
    if (!strchr(" \t\r\n", *p) || *p == '\0') {
      cJSON_Delete(json);
      return NULL;
    }
  }
  return json;
}

/* A JSON payload rendered as an indented, escaped block. */
static void json_block(tl_buf *html, tl_str payload) {
  cJSON *json = parse_whole_json(payload);
  char *pretty = json ? cJSON_Print(json) : NULL;
  tl_buf_puts(html, "<pre>");
  if (pretty)
    tl_html_escape_cstr(html, pretty);
  else
    tl_html_escape(html, payload);
  tl_buf_puts(html, "</pre>\n");
  free(pretty);
  cJSON_Delete(json);
}

/* Kernel stack traces, one section per kernel key, with literal "\n"
 * sequences (double-escaped by some producers) shown as line breaks. */
static void stack_traces_page(tl_buf *html, tl_compile_dir *dir,
                              tl_str payload) {
  tl_html_page_begin(html, "Kernel stack traces", "../");
  page_heading(html, "Kernel stack traces", dir);
  cJSON *json = parse_whole_json(payload);
  if (!cJSON_IsObject(json)) {
    tl_buf_puts(html, "<p>The payload is not a JSON object:</p>\n");
    json_block(html, payload);
  }
  for (const cJSON *k = cJSON_IsObject(json) ? json->child : NULL; k;
       k = k->next) {
    tl_buf_puts(html, "<h2>");
    tl_html_escape_cstr(html, k->string ? k->string : "");
    tl_buf_puts(html, "</h2>\n");
    for (const cJSON *t = cJSON_IsArray(k) ? k->child : NULL; t; t = t->next) {
      if (!cJSON_IsString(t))
        continue;
      tl_buf_puts(html, "<pre>");
      const char *s = t->valuestring;
      const char *mark;
      while ((mark = strstr(s, "\\n"))) {
        tl_html_escape(html, (tl_str){s, (size_t)(mark - s)});
        tl_buf_putc(html, '\n');
        s = mark + 2;
      }
      tl_html_escape_cstr(html, s);
      tl_buf_puts(html, "</pre>\n");
    }
  }
  cJSON_Delete(json);
  tl_html_page_end(html);
}

void tl_artifact_pages_output_code(tl_store *store, tl_compile_dir *dir,
                                   const tl_record *rec, const char *stem) {
  int number = tl_store_take_number(store);
  tl_buf text_name, before, after;
  tl_buf_init(&text_name);
  tl_buf_init(&before);
  tl_buf_init(&after);
  tl_buf_printf(&text_name, "%s_%d.py", stem, number);
  output_code_page(&before, &after, dir, stem, text_name.data);
  tl_artifact *a =
      tl_store_add_payload_page(store, dir, stem, number, tl_buf_str(&before),
                                tl_buf_str(&after), rec->line);
  a->role = TL_ROLE_OUTPUT_CODE;
  tl_store_set_md5(store, dir, rec);
  size_t n = strlen(dir->dir_name) + text_name.len + 2;
  a->text_path = tl_xmalloc(n);
  snprintf(a->text_path, n, "%s/%s", dir->dir_name, text_name.data);
  tl_sink_write_payload(store->sink, a->text_path);
  tl_buf_free(&text_name);
  tl_buf_free(&before);
  tl_buf_free(&after);
}

void tl_artifact_pages_readable(tl_store *store, tl_compile_dir *dir,
                                tl_artifact *a, const char *name,
                                const tl_record *rec) {
  static const char STACK_TRACES[] =
      "inductor_provenance_tracking_kernel_stack_traces";
  if (strncmp(name, STACK_TRACES, sizeof STACK_TRACES - 1) != 0 ||
      !rec->has_payload)
    return;
  tl_buf html, page;
  tl_buf_init(&html);
  tl_buf_init(&page);
  stack_traces_page(&html, dir, rec->payload);
  /* The readable page shares the JSON's number in its name; the entry is
   * listed with the next number, which the page used up. */
  tl_fs_safe_name(&page, tl_str_from(name));
  tl_buf_printf(&page, "_%d_readable.html", a->number);
  a->readable_path = tl_xmalloc(strlen(dir->dir_name) + page.len + 2);
  sprintf(a->readable_path, "%s/%s", dir->dir_name, page.data);
  a->listed_number = tl_store_take_number(store);
  tl_sink_write_buf(store->sink, a->readable_path, &html);
  tl_buf_free(&html);
  tl_buf_free(&page);
}

void tl_artifact_pages_guards(tl_store *store, tl_compile_dir *dir,
                              const tl_record *rec) {
  char error[128];
  tl_buf html;
  tl_buf_init(&html);
  if (tl_guards_page_render(&html, dir->unknown_id ? NULL : dir->display,
                            rec->payload, rec->strings, error, sizeof error))
    tl_store_add_page(store, dir, rec->kind, tl_store_take_number(store), "",
                      &html, rec->line);
  else /* as the Rust tool: no page; the payload goes to payloads/ */
    tl_diag_add(store->diag, TL_DIAG_PAYLOAD, rec->line,
                "dynamo_guards payload is %s, not a list of guards (no "
                "page; payload kept in payloads/)",
                error);
  tl_buf_free(&html);
}

void tl_artifact_pages_metrics(tl_store *store, tl_compile_dir *dir,
                               const tl_compile_dir *home, bool known_id,
                               const tl_record *rec) {
  const cJSON *m = rec->kind_value;
  bool compilation = strcmp(rec->kind, "compilation_metrics") == 0;
  tl_metrics_input in = {0};
  in.dir = dir;
  in.line = rec->line;
  in.display = known_id ? dir->display : NULL;
  in.metrics = m;
  in.strings = rec->strings;
  if (compilation && home) { /* the first page of the id takes them all */
    in.stack =
        home->stacks.count ? &home->stacks.items[home->stacks.count - 1] : NULL;
    in.specializations = home->specializations.items;
    in.specialization_count = home->specializations.count;
    in.fast_guards = home->fast_guards.items;
    in.fast_guard_count = home->fast_guards.count;
  }
  tl_buf html;
  tl_buf_init(&html);
  tl_metrics_page_render(rec->kind, &html, &in);
  if (in.bad_field)
    tl_diag_add(store->diag, TL_DIAG_ENVELOPE, rec->line,
                "%s field \"%s\" has the wrong type (shown empty)", rec->kind,
                in.bad_field);
  int number = tl_store_take_number(store);
  tl_artifact *a =
      tl_store_add_page(store, dir, rec->kind, number, "", &html, rec->line);
  tl_buf_free(&html);
  if (compilation)
    store->failure_count +=
        tl_failure_rows(&store->failure_rows, a->path, in.display, m);
}

/* The dump_file page's name: "eval_with_key_<K>.html" for a name holding
 * "<eval_with_key>.K", else the name made safe, then ".html". */
static void dump_file_name(tl_buf *out, const char *name) {
  static const char KEY[] = "<eval_with_key>.";
  const char *key = name ? strstr(name, KEY) : NULL;
  const char *digits = key ? key + sizeof KEY - 1 : NULL;
  size_t n = 0;
  while (digits && digits[n] >= '0' && digits[n] <= '9' && n < 19)
    n++;
  if (n)
    tl_buf_printf(out, "eval_with_key_%.*s.html", (int)n, digits);
  else {
    tl_fs_safe_name(out, tl_str_from(name ? name : "dump_file"));
    tl_buf_puts(out, ".html");
  }
}

void tl_artifact_pages_dump_file(tl_store *store, tl_compile_dir *dir,
                                 const tl_record *rec) {
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(rec->kind_value, "name");
  tl_buf file, html;
  tl_buf_init(&file);
  tl_buf_init(&html);
  dump_file_name(&file, cJSON_IsString(name) ? name->valuestring : NULL);
  tl_artifact *a =
      tl_store_add_shared(store, dir, "dump_file", file.data, rec->line);
  tl_html_page_begin(&html, "Source Code", "../");
  tl_buf_puts(&html, "<style>pre{counter-reset:line}pre span{display:block}"
                     "pre span:before{counter-increment:line;content:"
                     "counter(line);display:inline-block;padding:0 .5em;"
                     "margin-right:.5em;color:#888}pre span:target{"
                     "background-color:#ffff00}</style>\n<pre>");
  /* One span per payload line, as the Rust page: #L<n> links land here.
   * An entry without a payload has a NULL text: one empty line. */
  tl_str text = rec->payload;
  const char *bytes = text.ptr ? text.ptr : "";
  size_t start = 0, line = 1;
  for (size_t i = 0; i <= text.len; i++) {
    if (i < text.len && bytes[i] != '\n')
      continue;
    tl_buf_printf(&html, "<span id=\"L%zu\">", line++);
    tl_html_escape(&html, (tl_str){bytes + start, i - start});
    tl_buf_puts(&html, "</span>");
    start = i + 1;
  }
  tl_buf_puts(&html, "</pre>\n");
  tl_html_page_end(&html);
  tl_sink_write_buf(store->sink, a->path, &html);
  tl_buf_free(&html);
  tl_buf_free(&file);
}

bool tl_artifact_pages_write_static(tl_store *store) {
  tl_str hljs = TL_RES(hljs_js);
  tl_buf hljs_css;
  tl_buf_init(&hljs_css);
  tl_res_hljs_themes(&hljs_css);
  bool ok =
      tl_store_write(store, "static/highlight.min.js", hljs.ptr, hljs.len) &&
      tl_store_write(store, "static/hljs.css", hljs_css.data, hljs_css.len);
  tl_buf_free(&hljs_css);
  return ok;
}

const tl_store_pages tl_artifact_page_writers = {
    tl_artifact_pages_output_code, tl_artifact_pages_readable,
    tl_artifact_pages_guards,      tl_artifact_pages_metrics,
    tl_artifact_pages_dump_file,   tl_artifact_pages_write_static};
