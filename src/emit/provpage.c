/* provpage.c: writes the provenance highlighter page of one view (emit).
 *
 * The page is a static shell (header, links, data) plus provenance.js (the
 * modules of assets/page/ joined by the build, cmake/page.cmake),
 * which builds the three panels in the browser from the embedded data:
 *   <script type="application/json" id="tlprov-view">  the engine's view JSON
 *   <script type="application/json" id="tlprov-text-pre"> "…" (or null), and
 *   likewise -post, -code, -kernel: each artifact text as one JSON string,
 *   or, from tl_provpage_deflate_at bytes on, deflated and base64-encoded in
 *   a <script type="application/octet-stream" data-deflate="raw"> element
 *   that provenance.js inflates before it starts (assets/page/boot.js).
 * The scripts and the style are files of static/, shared by every page of a
 * report (a page costs its data and about seven kilobytes): one inline
 * loader in the <head>, allowed by its SHA-256 in the page's CSP with
 * 'strict-dynamic', adds static/provenance.css and static/provenance.js,
 * which adds static/highlight.min.js once the page has loaded (its colours
 * come after the first paint). Before any script, the page shows each
 * panel's first lines, written by provpage_paint.c, styled by the rules of
 * assets/first-paint.css in the page's own <style> (so that its first
 * frame waits for no file). No other script
 * can run even if some trace text were mis-escaped: an injected inline
 * script has no allowed hash, and 'strict-dynamic' refuses every script
 * element the HTML itself names (`'self'` would not: on file:// it allows
 * any file of the report, and artifacts are trace text).
 */
#include "emit/provpage.h"

#include <pthread.h>

#include <sha2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "emit/provpage_paint.h"
#include "util/html.h"
#include "util/resources.h"

TL_RES_DECLARE(prov_js);
TL_RES_DECLARE(prov_css);
TL_RES_DECLARE(prov_first_css);

static const char *view_string(const cJSON *view, const char *key) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(view, key);
  return cJSON_IsString(item) && item->valuestring ? item->valuestring : NULL;
}

static void base64(tl_buf *out, const unsigned char *data, size_t len) {
  static const char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < len; i += 3) {
    unsigned v = (unsigned)data[i] << 16;
    if (i + 1 < len)
      v |= (unsigned)data[i + 1] << 8;
    if (i + 2 < len)
      v |= data[i + 2];
    char quad[4] = {alphabet[(v >> 18) & 63], alphabet[(v >> 12) & 63],
                    i + 1 < len ? alphabet[(v >> 6) & 63] : '=',
                    i + 2 < len ? alphabet[v & 63] : '='};
    tl_buf_append(out, quad, sizeof quad);
  }
}

/* Appends the CSP source `'sha256-…'` of a script element's exact text. */
static void csp_hash(tl_buf *out, const char *script) {
  SHA2_CTX ctx;
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256Init(&ctx);
  SHA256Update(&ctx, (const unsigned char *)script, strlen(script));
  SHA256Final(digest, &ctx);
  tl_buf_puts(out, " 'sha256-");
  base64(out, digest, sizeof digest);
  tl_buf_putc(out, '\'');
}

size_t tl_provpage_deflate_at = TL_PROVPAGE_DEFLATE_AT_DEFAULT;

/* Deflate output waiting to be base64-encoded: whole 3-byte groups are
 * encoded as they come, the rest (and the padding) at the end. */
typedef struct deflated {
  z_stream z;
  unsigned char out[3 << 14];
  size_t have;
} deflated;

/* Runs deflate on what z holds (and with Z_FINISH to the end of the
 * stream), encoding its output into `page` as it fills. */
static void deflate_into(deflated *d, int flush, tl_buf *page) {
  for (;;) {
    d->z.next_out = d->out + d->have;
    d->z.avail_out = (uInt)(sizeof d->out - d->have);
    int rc = deflate(&d->z, flush);
    if (rc == Z_STREAM_ERROR)
      abort(); /* only a misuse of the stream */
    d->have = sizeof d->out - d->z.avail_out;
    bool end = rc == Z_STREAM_END;
    size_t whole = end ? d->have : d->have / 3 * 3;
    base64(page, d->out, whole);
    memmove(d->out, d->out + whole, d->have - whole);
    d->have -= whole;
    if (end || (flush != Z_FINISH && d->z.avail_in == 0 && d->z.avail_out))
      return;
  }
}

static void deflate_feed(deflated *d, const char *data, size_t len,
                         tl_buf *page) {
  while (len) { /* avail_in is 32 bits wide */
    uInt n = len > (1u << 30) ? 1u << 30 : (uInt)len;
    d->z.next_in = (Bytef *)(uintptr_t)data;
    d->z.avail_in = n;
    deflate_into(d, Z_NO_FLUSH, page);
    data += n;
    len -= n;
  }
}

/* Feeds a piece of text, each NUL byte as U+FFFD (as in the JSON
 * strings). */
static void deflate_text(deflated *d, const char *p, size_t len, tl_buf *out) {
  const char *end = p + len;
  for (const char *nul; p < end && (nul = memchr(p, '\0', (size_t)(end - p)));
       p = nul + 1) {
    deflate_feed(d, p, (size_t)(nul - p), out);
    deflate_feed(d, "\xEF\xBF\xBD", 3, out);
  }
  deflate_feed(d, p, (size_t)(end - p), out);
}

/* One text to embed: in memory, or read by `reader`. */
typedef struct text_in {
  const tl_provpage_text_reader *reader;
  tl_str text; /* ptr NULL: absent, or to be read */
  size_t size;
  bool present;
} text_in;

/* The text deflated and base64-encoded into `out`, read a piece at a time
 * when it is not in memory. False when the reader could not read it whole
 * (what was read stays in `out`). */
static bool put_deflated(tl_buf *out, const text_in *in) {
  bool whole = true;
  deflated *d = tl_xcalloc(1, sizeof *d);
  if (deflateInit2(&d->z, Z_BEST_SPEED, Z_DEFLATED, -15, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    abort(); /* only out of memory */
  if (in->text.ptr) {
    deflate_text(d, in->text.ptr, in->text.len, out);
  } else {
    enum { PIECE = 1 << 20 };
    char *piece = tl_xmalloc(PIECE);
    for (size_t n; (n = in->reader->read(in->reader->ctx, piece, PIECE));)
      deflate_text(d, piece, n, out);
    free(piece);
    if (in->reader->failed) /* what was read stays: the caller reports it */
      whole = !in->reader->failed(in->reader->ctx);
  }
  d->z.avail_in = 0;
  deflate_into(d, Z_FINISH, out);
  deflateEnd(&d->z);
  free(d);
  return whole;
}

bool tl_provpage_deflate_read(tl_buf *out,
                              const tl_provpage_text_reader *reader,
                              const char *which) {
  text_in in = {reader, {NULL, 0}, 0, false};
  in.present = reader->open(reader->ctx, which, &in.size);
  if (!in.present || in.size < tl_provpage_deflate_at)
    return false;
  return put_deflated(out, &in);
}

/* One artifact text as a JSON string (or null) inside a data <script>,
 * escaped in one pass (a draining `out` takes a text of any size without a
 * copy; a text from `reader` is first read whole, being below the
 * threshold), or deflated from tl_provpage_deflate_at bytes on (a text from
 * `reader` a piece at a time). NUL bytes become U+FFFD; lines are
 * unchanged. */
static void put_text(tl_buf *out, const char *panel,
                     const tl_provpage_text_reader *reader, tl_str text) {
  tl_str made = {NULL, 0}; /* deflated ahead (tl_provpage_deflate_read) */
  bool ahead =
      reader && reader->deflated && reader->deflated(reader->ctx, panel, &made);
  text_in in = {reader, text, text.len, text.ptr != NULL};
  if (reader && !ahead)
    in.present = reader->open(reader->ctx, panel, &in.size);
  if (ahead || (in.present && in.size >= tl_provpage_deflate_at)) {
    tl_buf_printf(out,
                  "<script type=\"application/octet-stream\" "
                  "id=\"tlprov-text-%s\" data-deflate=\"raw\">",
                  panel);
    if (ahead)
      tl_buf_append_str(out, made);
    else
      put_deflated(out, &in);
    tl_buf_puts(out, "</script>\n");
    return;
  }
  tl_buf_printf(out, "<script type=\"application/json\" id=\"tlprov-text-%s\">",
                panel);
  tl_buf whole; /* a text below the threshold, read */
  tl_buf_init(&whole);
  if (in.present && !in.text.ptr) {
    tl_buf_reserve_exact(&whole, in.size);
    char piece[1 << 14];
    for (size_t n; (n = reader->read(reader->ctx, piece, sizeof piece));)
      tl_buf_append(&whole, piece, n);
    in.text = tl_buf_str(&whole);
    in.present = !reader->failed || !reader->failed(reader->ctx);
  }
  if (!in.present)
    tl_buf_puts(out, "null");
  else
    tl_html_script_json_string(out, in.text);
  tl_buf_free(&whole);
  tl_buf_puts(out, "</script>\n");
}

static void put_view(tl_buf *out, tl_str json) {
  tl_buf_puts(out, "<script type=\"application/json\" id=\"tlprov-view\">");
  if (json.ptr)
    tl_html_script_json(out, json);
  else
    tl_buf_puts(out, "null");
  tl_buf_puts(out, "</script>\n");
}

static void put_link(tl_buf *out, const char *href, const char *cls,
                     const char *label) {
  if (!href || !tl_url_is_safe(tl_str_from(href)))
    return;
  tl_buf_printf(out, "<a class=\"%s\" href=\"", cls);
  tl_html_escape_cstr(out, href);
  tl_buf_printf(out, "\">%s</a>", label);
}

/* The page's one inline script, in its <head>: it adds provenance.js from
 * the folder its data-static attribute names once the page's first lines
 * (provpage_paint.h) are on screen, with static/provenance.css (the first
 * paint needs only the rules the page carries, first_paint_css; the script
 * starts once the sheet has loaded, assets/page/boot.js): after the load
 * event, when the browser
 * reports the first contentful paint (Paint Timing), so that the script's
 * fetch, compile and run neither hold the load event nor delay that paint
 * (started at the load event, the script ran before the first frame and
 * the written rows were never shown). A browser without Paint Timing adds
 * it after the next frame; a page that is not painted (a hidden tab) after
 * a second. With data-early (a page without a first paint, whose <head>
 * links the style sheet) the script is added at once, so that it is
 * fetched and compiled while the rest of the HTML is read. The script starts
 * after the load event either way (assets/page/boot.js, which also inflates the
 * texts that came deflated, tl_provpage_deflate_at). The loader says so in the
 * page when the script cannot be loaded. provenance.js adds highlight.min.js
 * from the same folder after the load event. Its text is the same on every
 * page, so its hash is made once per process. */
static const char LOADER[] =
    "(function () {\n"
    "  var d = document;\n"
    "  var base = d.currentScript.getAttribute('data-static');\n"
    "  var early = d.currentScript.hasAttribute('data-early');\n"
    "  var s = d.createElement('script'), added = false;\n"
    "  s.src = base + 'provenance.js';\n"
    "  s.onerror = function () {\n"
    "    function say() {\n"
    "      var at = d.querySelector('.tp-info') ||\n"
    "        d.getElementById('tlprov');\n"
    "      at.textContent = 'The highlighter cannot '\n"
    "        + 'start: ' + base + 'provenance.js is missing beside this '\n"
    "        + 'page.';\n"
    "    }\n"
    "    if (d.readyState === 'loading')\n"
    "      d.addEventListener('DOMContentLoaded', say);\n"
    "    else say();\n"
    "  };\n"
    "  function add() {\n"
    "    if (added) return;\n"
    "    added = true;\n"
    "    if (!early) {\n"
    "      var css = d.createElement('link');\n"
    "      css.rel = 'stylesheet';\n"
    "      css.id = 'tlprov-css';\n"
    "      css.href = base + 'provenance.css';\n"
    "      d.head.appendChild(css);\n"
    "    }\n"
    "    d.head.appendChild(s);\n"
    "  }\n"
    "  function afterPaint() {\n"
    "    var P = window.PerformanceObserver;\n"
    "    var types = P && P.supportedEntryTypes;\n"
    "    setTimeout(add, 1000);\n"
    "    if (types && types.indexOf('paint') >= 0) {\n"
    "      new P(function (list, observer) {\n"
    "        if (!list.getEntriesByName('first-contentful-paint').length)\n"
    "          return;\n"
    "        observer.disconnect();\n"
    "        add();\n"
    "      }).observe({type: 'paint', buffered: true});\n"
    "    } else {\n"
    "      requestAnimationFrame(function () { setTimeout(add, 0); });\n"
    "    }\n"
    "  }\n"
    "  if (early) add();\n"
    "  else window.addEventListener('load', afterPaint);\n"
    "})();\n";

static tl_buf loader_csp;
static pthread_once_t loader_once = PTHREAD_ONCE_INIT;

static void make_loader_csp(void) {
  tl_buf_init(&loader_csp);
  csp_hash(&loader_csp, LOADER);
  tl_buf_puts(&loader_csp, " 'strict-dynamic'");
}

/* assets/first-paint.css as a page carries it: without its comments, and
 * with no whitespace but the single spaces CSS needs (between words, and
 * around the operators of calc()). Made once per process. */
static tl_buf first_paint_css;
static pthread_once_t first_paint_once = PTHREAD_ONCE_INIT;

static bool css_tight(char c, const char *set) {
  return c != '\0' && strchr(set, c) != NULL;
}

static void make_first_paint_css(void) {
  tl_buf_init(&first_paint_css);
  tl_str css = TL_RES(prov_first_css);
  const char *p = css.ptr, *end = css.ptr + css.len;
  while (p < end) {
    if (end - p >= 2 && p[0] == '/' && p[1] == '*') {
      const char *close = p + 2;
      while (close + 1 < end && !(close[0] == '*' && close[1] == '/'))
        close++;
      p = close + 1 < end ? close + 2 : end;
      continue;
    }
    if (*p == ' ' || *p == '\n') {
      while (p < end && (*p == ' ' || *p == '\n'))
        p++;
      char before = first_paint_css.len
                        ? first_paint_css.data[first_paint_css.len - 1]
                        : '\0';
      char after = p < end ? *p : '\0';
      if (before && after && !css_tight(before, " {};:,(") &&
          !css_tight(after, "{};,)"))
        tl_buf_putc(&first_paint_css, ' ');
      continue;
    }
    tl_buf_putc(&first_paint_css, *p++);
  }
}

void tl_provpage_static(tl_buf *css, tl_str *js) {
  tl_res_hljs_themes(css);
  tl_buf_append_str(css, TL_RES(prov_first_css));
  tl_buf_append_str(css, TL_RES(prov_css));
  tl_buf_puts(css, "\n");
  *js = TL_RES(prov_js);
}

/* The document up to its </title>: with `script_sources` (the CSP sources
 * of the page's scripts) a policy that lets only those run and the style
 * sheets of static/ load, else one that lets no script run. */
static void put_doc_start(tl_buf *out, const tl_buf *script_sources,
                          const char *compile_id, const char *compile_dir) {
  tl_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                   "<meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width, "
                   "initial-scale=1\">\n"
                   "<meta name=\"color-scheme\" content=\"light dark\">\n"
                   "<meta http-equiv=\"Content-Security-Policy\" "
                   "content=\"default-src 'none'; style-src ");
  tl_buf_puts(out,
              script_sources ? "'self' 'unsafe-inline'" : "'unsafe-inline'");
  if (script_sources) {
    tl_buf_puts(out, "; img-src data:; script-src");
    tl_buf_append(out, script_sources->data, script_sources->len);
  }
  tl_buf_puts(out, "\">\n<title>Provenance ");
  tl_html_escape_cstr(out, compile_id ? compile_id : "");
  tl_buf_puts(out, " ");
  tl_html_escape_cstr(out, compile_dir ? compile_dir : "");
  tl_buf_puts(out, " - tlparse</title>\n");
}

/* The page's top bar: the index link, the compile id and folder, `extra`
 * (the search box's place, or ""), the help link. */
static void put_header(tl_buf *out, const char *compile_id,
                       const char *compile_dir, const char *extra,
                       const char *index_href, const char *help_href) {
  tl_buf_puts(out, "<body>\n<header class=\"tp-top\">");
  put_link(out, index_href, "tp-index", "&larr; index");
  tl_buf_puts(out, "<h1>Provenance <span class=\"tp-cid\">");
  tl_html_escape_cstr(out, compile_id ? compile_id : "(no compile id)");
  tl_buf_puts(out, "</span> <span class=\"tp-dir\">");
  tl_html_escape_cstr(out, compile_dir ? compile_dir : "");
  tl_buf_puts(out, "</span></h1>");
  tl_buf_puts(out, extra);
  put_link(out, help_href, "tp-help", "Help");
  tl_buf_puts(out, "</header>\n");
}

/* The search box as assets/page/search.js makes it, disabled until the
 * script replaces it (so that the top bar keeps its height). */
static const char SEARCH_BOX[] =
    "<div id=\"tp-search-box\"><input class=\"tp-search\" type=\"search\" "
    "placeholder=\"Search nodes and kernels (/)\" aria-label=\"Search nodes "
    "and kernels\" disabled><ul class=\"tp-results\" hidden></ul></div>";

/* The page, its texts from `texts` or else from `reader`: the first paint
 * (provpage_paint.h), then the data the script reads. */
static void render(tl_buf *out, const tl_provpage_view *view,
                   const tl_provpage_texts *texts,
                   const tl_provpage_text_reader *reader,
                   const char *index_href, const char *help_href) {
  const char *compile_id = view->compile_id;
  const char *compile_dir = view->compile_dir;
  pthread_once(&loader_once, make_loader_csp);
  put_doc_start(out, &loader_csp, compile_id, compile_dir);
  /* A page with a first paint adds its script after the load event; one
   * without (a view too large to paint) at once, as the script is all it
   * will show. */
  tl_buf_puts(out, "<script data-static=\"" TL_PROVPAGE_STATIC "\"");
  if (view->json.len > TL_PAINT_VIEW_MAX)
    tl_buf_puts(out, " data-early");
  tl_buf_puts(out, ">");
  tl_buf_puts(out, LOADER);
  tl_buf_puts(out, "</script>\n");
  if (view->json.len > TL_PAINT_VIEW_MAX) {
    tl_buf_puts(out, "<link rel=\"stylesheet\" href=\"" TL_PROVPAGE_STATIC
                     "provenance.css\">\n</head>\n");
  } else {
    /* Rendering waits until the whole document is parsed: no element has
     * the id this link expects, so the browser holds its first frame to
     * the end of the parse (HTML's `blocking="render"`; browsers without
     * it ignore the link). Without it, the inline style makes the page
     * ready to render while the parser runs: the parser yields to frames
     * of a half-read page, and the first whole frame runs before the load
     * event (docs/performance.md). */
    tl_buf_puts(out, "<link rel=\"expect\" href=\"#tlprov-parsed\" "
                     "blocking=\"render\">\n");
    pthread_once(&first_paint_once, make_first_paint_css);
    tl_buf_puts(out, "<style>");
    tl_buf_append(out, first_paint_css.data, first_paint_css.len);
    tl_buf_puts(out, "</style>\n</head>\n");
  }
  put_header(out, compile_id, compile_dir, SEARCH_BOX, index_href, help_href);
  tl_buf_puts(out, "<div id=\"tlprov\" class=\"tp-app\">");
  tl_str given[4];
  tl_paint_texts from = {NULL, NULL, NULL, NULL};
  if (reader) {
    from = (tl_paint_texts){NULL, reader->open, reader->read, reader->ctx};
  } else if (texts) {
    given[0] = texts->pre, given[1] = texts->post, given[2] = texts->code;
    given[3] = texts->kernel_code;
    from.texts = given;
  }
  if (!tl_provpage_paint(out, view->json, &from))
    tl_buf_puts(out, "<noscript>This page needs JavaScript to show the "
                     "panels.</noscript>");
  tl_buf_puts(out, "</div>\n");

  put_view(out, view->json);
  tl_provpage_texts none = {{NULL, 0}, {NULL, 0}, {NULL, 0}, {NULL, 0}};
  if (!texts)
    texts = &none;
  put_text(out, "pre", reader, texts->pre);
  put_text(out, "post", reader, texts->post);
  put_text(out, "code", reader, texts->code);
  put_text(out, "kernel", reader, texts->kernel_code);
  tl_buf_puts(out, "</body>\n</html>\n");
}

/* The page's view of a cJSON tree; *json (the text) is the caller's to
 * free. */
static tl_provpage_view view_of(const cJSON *view, char **json) {
  *json = cJSON_IsObject(view) ? cJSON_PrintUnformatted(view) : NULL;
  tl_provpage_view v = {view_string(view, "compile_id"),
                        view_string(view, "compile_dir"),
                        {*json, *json ? strlen(*json) : 0}};
  return v;
}

/* render() of a view given as its cJSON tree. */
static void render_tree(tl_buf *out, const cJSON *view,
                        const tl_provpage_texts *texts,
                        const tl_provpage_text_reader *reader,
                        const char *index_href, const char *help_href) {
  char *json;
  tl_provpage_view v = view_of(view, &json);
  render(out, &v, texts, reader, index_href, help_href);
  free(json);
}

void tl_provpage_render(tl_buf *out, const cJSON *view,
                        const tl_provpage_texts *texts, const char *index_href,
                        const char *help_href) {
  render_tree(out, view, texts, NULL, index_href, help_href);
}

void tl_provpage_render_read(tl_buf *out, const cJSON *view,
                             const tl_provpage_text_reader *reader,
                             const char *index_href, const char *help_href) {
  render_tree(out, view, NULL, reader, index_href, help_href);
}

void tl_provpage_render_text(tl_buf *out, const tl_provpage_view *view,
                             const tl_provpage_text_reader *reader,
                             const char *index_href, const char *help_href) {
  render(out, view, NULL, reader, index_href, help_href);
}

void tl_provpage_render_empty(tl_buf *out, const tl_provpage_view *view,
                              const char *index_href, const char *help_href) {
  const char *compile_id = view->compile_id;
  const char *compile_dir = view->compile_dir;
  put_doc_start(out, NULL, compile_id, compile_dir);
  tl_buf_puts(out, "<style>body{font-family:system-ui,sans-serif;margin:1em "
                   "2em}h1{font-size:1.2em}.tp-dir{color:GrayText}</style>\n"
                   "</head>\n");
  put_header(out, compile_id, compile_dir, "", index_href, help_href);
  tl_buf_puts(out, "<p class=\"tp-empty\">This compilation logged "
                   "no pre-grad graph, post-grad graph, output code, node "
                   "mappings or kernel stack traces, so there is nothing to "
                   "link here. Its other artifacts are listed on the "
                   "index.</p>\n</body>\n</html>\n");
}
