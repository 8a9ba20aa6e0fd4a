/* provpage_paint.c: the provenance page's first paint (provpage_paint.h).
 *
 * Mirrors, element for element, what assets/page/panels.js builds before
 * its first frame (a change there needs the same change here: the browser
 * test tests/browser/first_paint.mjs compares the two by text and by
 * position). The facts it needs are the script's: each text's line count
 * and longest line (data.js, lineStarts), which of the first lines are
 * linked (data.js, isMapped), the view's names, mode, kernels and profile.
 */
#include "emit/provpage_paint.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/html.h"

enum { PRE, POST, CODE, KERNEL, NPANELS };
static const char *const PANEL[NPANELS] = {"pre", "post", "code", "kernel"};
static const char *const TITLE[NPANELS] = {"Pre-grad graph", "Post-grad graph",
                                           "Generated code", "Kernel code"};
static const char *const ART_KEY[NPANELS] = {
    "pre_grad_graph", "post_grad_graph", "code", "kernel_code"};
enum { LH = 18 }; /* a row's height in px (selection.js) */

static const char MONO[] =
    "&quot;DejaVu Sans Mono&quot;, ui-monospace, SFMono-Regular, Menlo, "
    "Consolas, monospace";

/* What the first paint knows of one panel's text. */
typedef struct panel {
  bool present;
  size_t n;       /* lines, as data.js counts them */
  size_t max_len; /* the longest line, in UTF-16 code units */
  size_t cur;     /* the line being scanned, so far */
  bool ends_nl;
  size_t size;
  tl_buf head;           /* the first lines' bytes, newlines included */
  size_t rows;           /* lines whole in `head` (the newlines in it, then the
                            last line when it has none and is in `head`) */
  unsigned char *mapped; /* [1..rows]: the line is linked (bold) */
} panel;

/* UTF-16 code units of bytes of UTF-8: one per byte that is not a
 * continuation byte, and a second for a lead of four bytes (outside the
 * BMP: a surrogate pair). A run of ASCII counts its bytes. */
static size_t utf16_units(const unsigned char *at, size_t len) {
  size_t units = 0, i = 0;
  while (i < len) {
    uint64_t word;
    while (i + 8 <= len &&
           (memcpy(&word, at + i, 8), !(word & UINT64_C(0x8080808080808080)))) {
      units += 8;
      i += 8;
    }
    if (i < len) {
      unsigned char c = at[i++];
      units += (c & 0xC0) != 0x80;
      units += c >= 0xF0;
    }
  }
  return units;
}

/* Scans a piece of the text: counts lines and their lengths, keeps the
 * first TL_PAINT_ROWS lines (up to TL_PAINT_BYTES). */
static void scan(panel *p, const char *data, size_t len) {
  const unsigned char *at = (const unsigned char *)data;
  const unsigned char *end = at + len;
  while (at < end) {
    const unsigned char *nl = memchr(at, '\n', (size_t)(end - at));
    const unsigned char *stop = nl ? nl : end;
    p->cur += utf16_units(at, (size_t)(stop - at));
    if (!nl)
      break;
    if (p->cur > p->max_len)
      p->max_len = p->cur;
    p->cur = 0;
    p->n++;
    at = nl + 1;
  }
  if (len)
    p->ends_nl = data[len - 1] == '\n';
  p->size += len;
}

/* Keeps what of the piece belongs to the first lines. */
static void keep_head(panel *p, const char *data, size_t len) {
  const char *at = data, *end = data + len;
  while (at < end && p->rows < TL_PAINT_ROWS && p->head.len < TL_PAINT_BYTES) {
    const char *nl = memchr(at, '\n', (size_t)(end - at));
    const char *stop = nl ? nl + 1 : end;
    tl_buf_append(&p->head, at, (size_t)(stop - at));
    p->rows += nl != NULL;
    at = stop;
  }
}

static void feed(panel *p, const char *data, size_t len) {
  keep_head(p, data, len);
  scan(p, data, len);
}

static void finish(panel *p) {
  if (!p->present)
    return;
  if (p->cur > p->max_len)
    p->max_len = p->cur;
  /* "a\nb" has two lines, "a\n" one, "" one (empty). */
  if (p->size == 0 || !p->ends_nl)
    p->n++;
  if (!p->ends_nl && p->head.len == p->size && p->rows < TL_PAINT_ROWS)
    p->rows++; /* the last line, without a newline, kept whole */
  if (p->rows > p->n)
    p->rows = p->n;
  p->mapped = tl_xcalloc(p->rows + 1, 1);
}

static void read_panel(panel *p, int which, const tl_paint_texts *from) {
  tl_buf_init(&p->head);
  if (from->open) {
    size_t size = 0;
    p->present = from->open(from->ctx, PANEL[which], &size);
    if (p->present) {
      char piece[1 << 16];
      for (size_t n; (n = from->read(from->ctx, piece, sizeof piece));)
        feed(p, piece, n);
    }
  } else if (from->texts) {
    const tl_str *t = &from->texts[which];
    p->present = t->ptr != NULL;
    if (p->present)
      feed(p, t->ptr, t->len);
  }
  finish(p);
}

/* ---- the view, read as data.js reads it ------------------------------- */

static const cJSON *member(const cJSON *obj, const char *key) {
  return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key)
                             : NULL;
}

static const char *string_of(const cJSON *obj, const char *key) {
  const cJSON *v = member(obj, key);
  return cJSON_IsString(v) && v->valuestring ? v->valuestring : "";
}

/* data.js's posInt: a number, whole, above zero; as a line, 0 if not. */
static size_t line_of(const cJSON *v) {
  if (!cJSON_IsNumber(v))
    return 0;
  double d = v->valuedouble;
  return d > 0 && d == floor(d) && d < 1e15 ? (size_t)d : 0;
}

/* lineMap(...).has(line): the map lists a target within `n_to` lines. */
static bool map_has(const cJSON *map, size_t line, size_t n_to) {
  char key[32];
  snprintf(key, sizeof key, "%zu", line);
  const cJSON *targets = member(map, key);
  if (!cJSON_IsArray(targets))
    return false;
  for (const cJSON *t = targets->child; t; t = t->next) {
    size_t to = line_of(t);
    if (to && to <= n_to)
      return true;
  }
  return false;
}

static void mark(panel *p, size_t line) {
  if (line && line <= p->rows)
    p->mapped[line] = 1;
}

/* data.js's isMapped for the first rows of every panel. */
static void mark_mapped(panel *P, const cJSON *view) {
  const cJSON *lines = member(view, "lines");
  const cJSON *klines = member(view, "kernel_lines");
  struct {
    int from, to;
    const cJSON *map;
  } maps[] = {{PRE, POST, member(lines, "preToPost")},
              {POST, PRE, member(lines, "postToPre")},
              {POST, CODE, member(lines, "postToCode")},
              {POST, KERNEL, member(klines, "postToKernel")},
              {CODE, POST, member(lines, "codeToPost")},
              {KERNEL, POST, member(klines, "kernelToPost")}};
  for (size_t m = 0; m < sizeof maps / sizeof maps[0]; m++) {
    panel *from = &P[maps[m].from];
    if (!cJSON_IsObject(maps[m].map))
      continue;
    for (size_t i = 1; i <= from->rows; i++)
      if (map_has(maps[m].map, i, P[maps[m].to].n))
        from->mapped[i] = 1;
  }
  const cJSON *kernels = member(view, "kernels");
  if (!cJSON_IsArray(kernels))
    return;
  for (const cJSON *k = kernels->child; k; k = k->next) {
    if (!cJSON_IsObject(k))
      continue;
    const cJSON *calls = member(k, "calls");
    if (cJSON_IsArray(calls))
      for (const cJSON *c = calls->child; c; c = c->next)
        if (line_of(c) <= P[CODE].n)
          mark(&P[CODE], line_of(c));
    const cJSON *def = member(k, "definition");
    if (cJSON_IsObject(def)) {
      panel *p = strcmp(string_of(def, "file"), "kernel_code") == 0 ? &P[KERNEL]
                                                                    : &P[CODE];
      size_t first = line_of(member(def, "first"));
      if (first <= p->n)
        mark(p, first);
    }
  }
}

/* ---- HTML ------------------------------------------------------------- */

/* Trace text as a row shows it (textContent): a NUL as U+FFFD, as the
 * embedded texts carry it, and a carriage return as a reference (the HTML
 * parser would make a raw one a line break). */
static void put_line_text(tl_buf *out, tl_str text) {
  size_t start = 0;
  for (size_t i = 0; i < text.len; i++) {
    if (text.ptr[i] != '\0' && text.ptr[i] != '\r')
      continue;
    tl_html_escape(out, (tl_str){text.ptr + start, i - start});
    tl_buf_puts(out, text.ptr[i] ? "&#13;" : "\xEF\xBF\xBD");
    start = i + 1;
  }
  tl_html_escape(out, (tl_str){text.ptr + start, text.len - start});
}

/* encodeURIComponent of each part of a path, as panels.js's artifactLink. */
static void put_uri_path(tl_buf *out, const char *path) {
  static const char hex[] = "0123456789ABCDEF";
  for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
    if (*c == '/' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
        (*c >= '0' && *c <= '9') || strchr("-_.!~*'()", *c))
      tl_buf_putc(out, (char)*c);
    else
      tl_buf_printf(out, "%%%c%c", hex[*c >> 4], hex[*c & 15]);
  }
}

static void put_artifact_link(tl_buf *out, const cJSON *view, int which,
                              const panel *p, bool hidden) {
  const char *path = string_of(member(view, "artifacts"), ART_KEY[which]);
  const char *attr = hidden ? " hidden" : "";
  if (!*path) {
    tl_buf_printf(out, "<span class=\"tp-pfile\"%s>%s</span>", attr,
                  p->present ? "" : "(absent)");
    return;
  }
  const char *slash = strrchr(path, '/');
  tl_buf_printf(out, "<a class=\"tp-pfile\"%s title=\"", attr);
  tl_html_escape_cstr(out, path);
  tl_buf_putc(out, '"');
  bool scheme = false;
  for (const char *c = path; *c && !scheme; c++) {
    if (*c == ':')
      scheme = c > path && ((*path >= 'a' && *path <= 'z') ||
                            (*path >= 'A' && *path <= 'Z'));
    else if (!strchr("+.-", *c) && !(*c >= 'a' && *c <= 'z') &&
             !(*c >= 'A' && *c <= 'Z') && !(*c >= '0' && *c <= '9'))
      break;
  }
  if (!scheme && *path != '/') {
    tl_buf_puts(out, " href=\"");
    put_uri_path(out, path); /* only the URI alphabet: nothing to escape */
    tl_buf_putc(out, '"');
  }
  tl_buf_putc(out, '>');
  tl_html_escape_cstr(out, slash ? slash + 1 : path);
  tl_buf_puts(out, "</a>");
}

static void put_nav(tl_buf *out, int which) {
  tl_buf_printf(out,
                "<span class=\"tp-nav\" hidden data-panel=\"%s\">"
                "<button class=\"tp-prev\" title=\"Previous linked line (p)\" "
                "disabled>\xE2\x80\xB9</button><span class=\"tp-count\">"
                "\xE2\x80\x93/0</span><button class=\"tp-next\" "
                "title=\"Next linked line (n)\" disabled>\xE2\x80\xBA</button>"
                "</span>",
                PANEL[which]);
}

static void put_cid(tl_buf *out, const cJSON *view) {
  tl_buf_puts(out, "<span class=\"tp-pfile\">");
  tl_html_escape_cstr(out, string_of(view, "compile_id"));
  tl_buf_puts(out, "</span>");
}

/* A panel's body: its scroller with the first rows, and its ruler. */
/* `n` in decimal at `digits` (room for 20); returns how many. */
static size_t put_decimal(char *digits, size_t n) {
  char back[24];
  size_t k = 0;
  do {
    back[k++] = (char)('0' + n % 10);
    n /= 10;
  } while (n);
  for (size_t i = 0; i < k; i++)
    digits[i] = back[k - 1 - i];
  return k;
}

static void put_body(tl_buf *out, int which, const panel *p, bool hidden,
                     bool time_column) {
  tl_buf_printf(out, "<div class=\"tp-pbody\" data-panel=\"%s\"%s>",
                PANEL[which], hidden ? " hidden" : "");
  if (!p->present) {
    tl_buf_puts(out, "<div class=\"tp-scroller\" tabindex=\"-1\">"
                     "<div class=\"tp-spacer\"><div class=\"tp-rows\" "
                     "style=\"position: static;\"><div class=\"tp-empty\">");
    if (which == KERNEL)
      tl_buf_puts(out, "No kernel code.");
    else
      tl_buf_printf(out, "The trace has no %c%s for this compilation.",
                    TITLE[which][0] - 'A' + 'a', TITLE[which] + 1);
    tl_buf_puts(out, "</div></div></div></div>");
  } else {
    char digits[32];
    int nd = snprintf(digits, sizeof digits, "%zu", p->n);
    tl_buf_printf(out,
                  "<div class=\"tp-scroller\" tabindex=\"-1\" "
                  "style=\"--gw: %dch;\"><div class=\"tp-spacer\" "
                  "style=\"height: %zupx; width: calc(%zuch + 24px%s); "
                  "font-family: %s; font-size: 12.5px;\">"
                  "<div class=\"tp-rows tp-written\" style=\"transform: "
                  "translateY(0px);\">",
                  nd + 1, p->n * LH, p->max_len + (size_t)nd + 4,
                  time_column ? " + 9ch" : "", MONO);
    const char *at = p->head.data;
    for (size_t i = 1; i <= p->rows && !hidden; i++) {
      const char *nl =
          memchr(at, '\n', (size_t)(p->head.data + p->head.len - at));
      const char *end = nl ? nl : p->head.data + p->head.len;
      tl_str text = {at, (size_t)(end - at)};
      if (text.len && text.ptr[text.len - 1] == '\r')
        text.len--;
      /* Appended piece by piece (a printf per row was most of this). */
      char line[24];
      size_t line_len = put_decimal(line, i);
      tl_buf_puts(out, "<div data-panel=\"");
      tl_buf_puts(out, PANEL[which]);
      tl_buf_puts(out, "\" data-line=\"");
      tl_buf_append(out, line, line_len);
      tl_buf_puts(out, p->mapped[i] ? "\" class=\"ln m\"><span class=\"g\">"
                                    : "\" class=\"ln\"><span class=\"g\">");
      tl_buf_append(out, line, line_len);
      tl_buf_puts(out,
                  time_column
                      ? "</span><span class=\"t\"></span><span class=\"s\">"
                      : "</span><span class=\"s\">");
      put_line_text(out, text);
      tl_buf_puts(out, "</span></div>");
      at = nl ? nl + 1 : end;
    }
    tl_buf_puts(out, "</div></div></div>");
  }
  tl_buf_puts(out, "<div class=\"tp-ruler\" title=\"Where the linked lines "
                   "are\"></div></div>");
}

static const char HOW_TO[] =
    "To record the mapping, run the program with INDUCTOR_PROVENANCE=1 (or "
    "TORCH_COMPILE_DEBUG=1), then run tlparse with -i "
    "(--inductor-provenance).";

static void put_banner(tl_buf *out, const cJSON *view) {
  const char *reason = string_of(view, "no_links_reason");
  bool empty = !cJSON_IsObject(view) || !view->child;
  if (*reason || (!cJSON_IsObject(member(view, "lines")) && !empty)) {
    const char *because = *reason ? reason : "The view has no line maps";
    size_t len = strlen(because);
    tl_buf_puts(out, "<div class=\"tp-banner\"><strong>No provenance links. "
                     "</strong><span>");
    tl_html_escape_cstr(out, because);
    if (!strchr(".!?)", because[len - 1]))
      tl_buf_putc(out, '.');
    tl_buf_printf(out, " </span><span class=\"tp-howto\">%s</span></div>",
                  strstr(because, "INDUCTOR_PROVENANCE")
                      ? "Then run tlparse with -i (--inductor-provenance)."
                      : HOW_TO);
  } else if (empty) {
    tl_buf_printf(out,
                  "<div class=\"tp-banner\">This page has no provenance view "
                  "data. %s</div>",
                  HOW_TO);
  }
}

static size_t count_members(const cJSON *obj) {
  size_t n = 0;
  if (cJSON_IsObject(obj))
    for (const cJSON *m = obj->child; m; m = m->next)
      n++;
  return n;
}

/* The coverage line, as panels.js's fillCoverage writes it after the load
 * event (written here so that the line has its height, one line or two,
 * from the first paint on); a mapping version it would print otherwise
 * than as a whole number or a string leaves the line for the script. */
static void put_coverage(tl_buf *out, const cJSON *view) {
  const cJSON *version = member(view, "mapping_version");
  bool whole = cJSON_IsNumber(version) &&
               version->valuedouble == floor(version->valuedouble) &&
               fabs(version->valuedouble) < 1e15;
  if (version && !cJSON_IsNull(version) && !cJSON_IsString(version) && !whole) {
    tl_buf_puts(out, "<div class=\"tp-coverage\">&nbsp;</div>");
    return;
  }
  const cJSON *nodes = member(view, "nodes"), *un = member(view, "unresolved");
  size_t linked_kernels = 0;
  const cJSON *ks = member(view, "kernels");
  if (cJSON_IsArray(ks))
    for (const cJSON *k = ks->child; k; k = k->next)
      linked_kernels += cJSON_IsObject(k) &&
                        cJSON_GetArraySize(member(k, "calls")) > 0 &&
                        cJSON_IsArray(member(k, "calls"));
  struct {
    const char *what;
    size_t linked;
    const cJSON *names;
  } parts[] = {{"pre-grad nodes", count_members(member(nodes, "pre")),
                member(un, "pre_nodes")},
               {"post-grad nodes", count_members(member(nodes, "post")),
                member(un, "post_nodes")},
               {"kernels", linked_kernels, member(un, "kernels")}};
  tl_buf_puts(out, "<div class=\"tp-coverage\"><span class=\"tp-legend\">"
                   "<span class=\"ln-sel\">selected</span><span "
                   "class=\"ln-hl\">linked</span><span class=\"ln-def\">"
                   "kernel definition</span></span><span>Linked: </span>");
  size_t names = 0;
  for (int i = 0; i < 3; i++) {
    const cJSON *list = parts[i].names;
    int n = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : 0;
    tl_buf_printf(out,
                  "<span class=\"tp-cov\">%s%s %zu linked, %d unresolved"
                  "</span>",
                  i ? " \xC2\xB7 " : "", parts[i].what, parts[i].linked, n);
    if (n)
      for (const cJSON *x = list->child; x; x = x->next)
        names += cJSON_IsString(x);
  }
  if (cJSON_IsString(version)) {
    tl_buf_puts(out, "<span> \xC2\xB7 mapping v");
    tl_html_escape_cstr(out, version->valuestring);
    tl_buf_puts(out, "</span>");
  } else if (whole) {
    tl_buf_printf(out, "<span> \xC2\xB7 mapping v%.0f</span>",
                  version->valuedouble);
  }
  if (names) {
    tl_buf_puts(out, " <details class=\"tp-unres\"><summary> show "
                     "unresolved names</summary><ul class=\"tp-unresolved\">");
    for (int i = 0; i < 3; i++) {
      const cJSON *list = parts[i].names;
      if (!cJSON_IsArray(list))
        continue;
      for (const cJSON *x = list->child; x; x = x->next) {
        if (!cJSON_IsString(x))
          continue;
        tl_buf_printf(out, "<li>%s: ", parts[i].what);
        tl_html_escape_cstr(out, x->valuestring);
        tl_buf_puts(out, "</li>");
      }
    }
    tl_buf_puts(out, "</ul></details>");
  }
  tl_buf_puts(out, "</div>");
}

static void put_app(tl_buf *out, const cJSON *view, const panel *P) {
  const cJSON *prof = member(view, "profile");
  bool time_column =
      strcmp(string_of(member(prof, "match"), "status"), "matched") == 0;
  size_t kernels = 0;
  const cJSON *ks = member(view, "kernels");
  if (cJSON_IsArray(ks))
    for (const cJSON *k = ks->child; k; k = k->next)
      kernels += cJSON_IsObject(k);
  put_banner(out, view);
  put_coverage(out, view);
  tl_buf_puts(out, "<div class=\"tp-panels\">");
  for (int w = PRE; w <= POST; w++) {
    tl_buf_printf(out,
                  "<section class=\"tp-panel\" data-box=\"%s\">"
                  "<div class=\"tp-phead\"><span class=\"tp-ptitle\">%s"
                  "</span>",
                  PANEL[w], TITLE[w]);
    put_artifact_link(out, view, w, &P[w], false);
    put_cid(out, view);
    put_nav(out, w);
    tl_buf_puts(out, "</div>");
    put_body(out, w, &P[w], false, time_column);
    tl_buf_puts(out, "</section><div class=\"tp-divider\" title=\"Drag to "
                     "resize the panels\"></div>");
  }
  bool aot = strcmp(string_of(view, "mode"), "aot") == 0;
  tl_buf_printf(out,
                "<section class=\"tp-panel\" data-box=\"code\">"
                "<div class=\"tp-phead\"><button class=\"tp-tab active\" "
                "data-tab=\"code\">%s</button>",
                aot ? "AOT wrapper code" : "Output code");
  if (P[KERNEL].present)
    tl_buf_puts(out, "<button class=\"tp-tab\" data-tab=\"kernel\">Kernel "
                     "code</button>");
  put_artifact_link(out, view, CODE, &P[CODE], false);
  put_artifact_link(out, view, KERNEL, &P[KERNEL], true);
  put_cid(out, view);
  put_nav(out, CODE);
  put_nav(out, KERNEL);
  tl_buf_puts(out, "</div>");
  put_body(out, CODE, &P[CODE], false, time_column);
  put_body(out, KERNEL, &P[KERNEL], true, time_column);
  tl_buf_printf(
      out,
      "</section></div>\n<div class=\"tp-bottom\"><div class=\"tp-info\">"
      "<span class=\"tp-hint\">Hover a bold line to preview its links; click "
      "to pin. Keys: / search, n/p next/previous link, g go to definition, "
      "Esc clear.</span><noscript>Without JavaScript this page shows the "
      "first %d lines of each panel, without their links.</noscript></div>"
      "<div class=\"tp-stacks\"></div><details class=\"tp-kernels\">"
      "<summary>Kernels (%zu)</summary></details></div>",
      TL_PAINT_ROWS, kernels);
}

bool tl_provpage_paint(tl_buf *out, tl_str view_json,
                       const tl_paint_texts *from) {
  if (view_json.len > TL_PAINT_VIEW_MAX)
    return false;
  cJSON *view = NULL;
  if (view_json.ptr) {
    view = cJSON_ParseWithLength(view_json.ptr, view_json.len);
    if (!view)
      return false;
  }
  panel P[NPANELS];
  memset(P, 0, sizeof P);
  for (int w = 0; w < NPANELS; w++)
    read_panel(&P[w], w, from);
  mark_mapped(P, view);
  put_app(out, view, P);
  for (int w = 0; w < NPANELS; w++) {
    tl_buf_free(&P[w].head);
    free(P[w].mapped);
  }
  cJSON_Delete(view);
  return true;
}
