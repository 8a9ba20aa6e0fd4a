/* provpage_test: the page shell written by tl_provpage_render
 * (src/emit/provpage.c) keeps trace text inert: escaped in HTML, unable to
 * close or confuse its <script> elements, and only our own scripts allowed by
 * the CSP. What the page does in a browser is tested by
 * tests/browser/page_test.mjs. */
#include <cjson/cJSON.h>
#include <strings.h>
#include <zlib.h>

#include "check.h"
#include "emit/provpage.h"

#define HOSTILE "</script><script>window.pwned=1</script><!--<img src=x>"

static size_t count(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p++)
    n++;
  return n;
}

static size_t count_nocase(const char *hay, const char *needle) {
  size_t n = 0, len = strlen(needle);
  for (const char *p = hay; *p; p++)
    if (strncasecmp(p, needle, len) == 0)
      n++;
  return n;
}

/* The text between `<script ... id="ID">` and the next `</script>`. */
static char *script_data(const char *page, const char *id) {
  char open[128];
  snprintf(open, sizeof open, "id=\"%s\"", id);
  const char *start = strstr(page, open);
  if (!start || !(start = strchr(start, '>')))
    return NULL;
  start++;
  const char *end = strstr(start, "</script>");
  if (!end)
    return NULL;
  char *out = malloc((size_t)(end - start) + 1);
  memcpy(out, start, (size_t)(end - start));
  out[end - start] = '\0';
  return out;
}

static char *render(cJSON *view, const tl_provpage_texts *texts,
                    const char *index_href, const char *help_href) {
  tl_buf out;
  tl_buf_init(&out);
  tl_provpage_render(&out, view, texts, index_href, help_href);
  return tl_buf_detach(&out);
}

static cJSON *hostile_view(void) {
  cJSON *view = cJSON_CreateObject();
  cJSON_AddStringToObject(view, "compile_id", HOSTILE);
  cJSON_AddStringToObject(view, "compile_dir", "-_0_0_0");
  cJSON *kernels = cJSON_AddArrayToObject(view, "kernels");
  cJSON *k = cJSON_CreateObject();
  cJSON_AddStringToObject(k, "key", HOSTILE ":1");
  cJSON_AddItemToArray(kernels, k);
  return view;
}

TEST(page_has_exactly_six_script_elements_with_hostile_names_and_code) {
  cJSON *view = hostile_view();
  tl_provpage_texts texts = {TL_STR_LIT(HOSTILE "\n"),
                             TL_STR_LIT("x\n"),
                             TL_STR_LIT("<script>alert(1)</script>\n"),
                             {NULL, 0}};
  char *page = render(view, &texts, "index.html", NULL);
  /* view, four texts, the loader of static/ */
  CHECK_INT_EQ(count_nocase(page, "<script"), 6);
  CHECK_INT_EQ(count_nocase(page, "</script"), 6);
  CHECK_INT_EQ(count(page, "<!--"), 0);
  CHECK(strstr(page, "window.pwned") != NULL); /* present, but as data */
  CHECK(strstr(page, "<img") == NULL);
  free(page);
  cJSON_Delete(view);
}

TEST(page_escapes_compile_id_in_title_and_header) {
  cJSON *view = hostile_view();
  char *page = render(view, NULL, NULL, NULL);
  CHECK(strstr(page, "<title>Provenance &lt;/script&gt;&lt;script&gt;window."
                     "pwned=1&lt;/script&gt;&lt;!--&lt;img src=x&gt; -_0_0_0"
                     " - tlparse</title>") != NULL);
  CHECK(strstr(page, "<span class=\"tp-cid\">&lt;/script&gt;") != NULL);
  free(page);
  cJSON_Delete(view);
}

TEST(page_view_json_round_trips_through_its_script_element) {
  cJSON *view = hostile_view();
  char *page = render(view, NULL, NULL, NULL);
  char *data = script_data(page, "tlprov-view");
  CHECK(data != NULL);
  cJSON *back = data ? cJSON_Parse(data) : NULL;
  CHECK(back != NULL);
  CHECK(cJSON_Compare(view, back, true));
  CHECK(data && strstr(data, "\\u003c/script\\u003e") != NULL);
  cJSON_Delete(back);
  free(data);
  free(page);
  cJSON_Delete(view);
}

TEST(page_text_keeps_every_line_and_escapes_nul_and_line_separators) {
  /* "a\0b" (NUL), U+2028 and U+2029 inside a line, CRLF kept. */
  static const char text[] = "a\0b\nc\xE2\x80\xA8"
                             "d\xE2\x80\xA9"
                             "e\r\n</script>\n";
  tl_provpage_texts texts = {
      {NULL, 0}, {NULL, 0}, {text, sizeof text - 1}, {NULL, 0}};
  char *page = render(NULL, &texts, NULL, NULL);
  char *data = script_data(page, "tlprov-text-code");
  CHECK_STR_EQ(data, "\"a\xEF\xBF\xBD"
                     "b\\nc\\u2028d\\u2029e\\r\\n"
                     "\\u003c/script\\u003e\\n\"");
  cJSON *back = data ? cJSON_Parse(data) : NULL;
  CHECK(cJSON_IsString(back));
  CHECK_STR_EQ(back ? back->valuestring : NULL, "a\xEF\xBF\xBD"
                                                "b\nc\xE2\x80\xA8"
                                                "d\xE2\x80\xA9"
                                                "e\r\n"
                                                "</script>\n");
  cJSON_Delete(back);
  free(data);
  free(page);
}

/* The text a deflated data element holds: base64, then raw inflate. */
static bool inflated(const char *b64, tl_buf *out) {
  static const char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  tl_buf raw;
  tl_buf_init(&raw);
  unsigned v = 0, bits = 0;
  for (const char *p = b64; *p && *p != '='; p++) {
    const char *at = strchr(alphabet, *p);
    if (!at) {
      tl_buf_free(&raw);
      return false;
    }
    v = (v << 6) | (unsigned)(at - alphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      tl_buf_putc(&raw, (char)((v >> bits) & 0xFF));
    }
  }
  z_stream z = {0};
  inflateInit2(&z, -15);
  z.next_in = (Bytef *)raw.data;
  z.avail_in = (uInt)raw.len;
  unsigned char chunk[4096];
  int rc;
  do {
    z.next_out = chunk;
    z.avail_out = sizeof chunk;
    rc = inflate(&z, Z_NO_FLUSH);
    tl_buf_append(out, chunk, sizeof chunk - z.avail_out);
  } while (rc == Z_OK);
  inflateEnd(&z);
  tl_buf_free(&raw);
  return rc == Z_STREAM_END && z.avail_in == 0;
}

TEST(large_texts_are_embedded_deflated_and_inflate_to_the_text) {
  /* At the threshold the text goes deflated, base64 in an octet-stream
   * element the loader inflates; NUL is U+FFFD there as in the JSON
   * strings. One byte less stays a JSON string. */
  tl_buf text;
  tl_buf_init(&text);
  tl_buf_append(&text, "a\0b </script> \xE2\x80\xA8\n", 18);
  while (text.len < 300000)
    tl_buf_printf(&text, "buf%zu = empty_strided((8, 16), (16, 1))\n",
                  text.len);
  tl_provpage_deflate_at = text.len;
  tl_provpage_texts texts = {
      {NULL, 0}, {NULL, 0}, tl_buf_str(&text), {NULL, 0}};
  char *page = render(NULL, &texts, NULL, NULL);
  CHECK(strstr(page, "<script type=\"application/octet-stream\" "
                     "id=\"tlprov-text-code\" data-deflate=\"raw\">") != NULL);
  char *data = script_data(page, "tlprov-text-code");
  tl_buf back;
  tl_buf_init(&back);
  CHECK(data && inflated(data, &back));
  CHECK_INT_EQ(back.len, text.len + 2);
  CHECK(memcmp(back.data,
               "a\xEF\xBF\xBD"
               "b </script> \xE2\x80\xA8\n",
               20) == 0);
  CHECK(memcmp(back.data + 20, text.data + 18, text.len - 18) == 0);
  CHECK(data && strlen(data) < text.len / 2); /* it compresses */
  free(data);
  free(page);

  tl_provpage_deflate_at = text.len + 1;
  page = render(NULL, &texts, NULL, NULL);
  data = script_data(page, "tlprov-text-code");
  CHECK(strstr(page, "data-deflate=\"raw\">") == NULL);
  CHECK(data && data[0] == '"');
  free(data);
  free(page);
  tl_provpage_deflate_at = TL_PROVPAGE_DEFLATE_AT_DEFAULT;
  tl_buf_free(&back);
  tl_buf_free(&text);
}

/* A reader over texts in memory that gives at most `piece` bytes a read. */
typedef struct piece_reader {
  const tl_provpage_texts *texts;
  tl_str open; /* the text being read, from its next byte */
  size_t piece;
  int opened;
  size_t fail_after; /* 0, or fail once only this much is left */
  int failures;
} piece_reader;

static bool open_piece(void *ctx, const char *which, size_t *size) {
  piece_reader *r = ctx;
  const tl_provpage_texts *t = r->texts;
  r->opened++;
  r->open = strcmp(which, "pre") == 0    ? t->pre
            : strcmp(which, "post") == 0 ? t->post
            : strcmp(which, "code") == 0 ? t->code
                                         : t->kernel_code;
  *size = r->open.len;
  return r->open.ptr != NULL;
}

static size_t read_piece(void *ctx, char *buf, size_t cap) {
  piece_reader *r = ctx;
  size_t n = r->open.len < r->piece ? r->open.len : r->piece;
  n = n < cap ? n : cap;
  if (r->fail_after && r->open.len <= r->fail_after)
    return 0; /* a read error with this much left */
  memcpy(buf, r->open.ptr, n);
  r->open.ptr += n;
  r->open.len -= n;
  return n;
}

static bool piece_failed(void *ctx) {
  piece_reader *r = ctx;
  r->failures += r->open.len > 0;
  return r->open.len > 0;
}

/* Texts of a view whose code, in `big`, is `line` repeated to at least
 * `at_least` bytes (NUL bytes, U+2028 and "</script>" in it), with a
 * 4-byte character in pre, no post and a NUL in the kernel code. */
static tl_provpage_texts texts_with_code(tl_buf *big, tl_str line,
                                         size_t at_least) {
  tl_buf_init(big);
  while (big->len < at_least)
    tl_buf_append_str(big, line);
  return (tl_provpage_texts){TL_STR_LIT("pre \xF0\x9F\x98\x80\n"),
                             {NULL, 0},
                             tl_buf_str(big),
                             TL_STR_LIT("k\0\n")};
}

TEST(page_reading_its_texts_in_pieces_is_the_same_page) {
  /* Texts read a few bytes at a time (NUL bytes and multi-byte characters
   * split across pieces), deflated or not, one absent: the page is the one
   * written from the texts in memory, byte for byte. */
  tl_buf big;
  static const char line[] = "x = f(\0y) # \xE2\x80\xA8 </script>\n";
  tl_provpage_texts texts = texts_with_code(&big, TL_STR_LIT(line), 5000);
  static const size_t thresholds[] = {0, 100, SIZE_MAX};
  static const size_t pieces[] = {1, 7, 4096};
  for (size_t i = 0; i < 3; i++)
    for (size_t j = 0; j < 3; j++) {
      tl_provpage_deflate_at = thresholds[i];
      cJSON *view = hostile_view();
      char *want = render(view, &texts, "index.html", NULL);
      piece_reader r = {&texts, {NULL, 0}, pieces[j], 0, 0, 0};
      tl_provpage_text_reader reader = {open_piece, read_piece, piece_failed,
                                        &r, NULL};
      tl_buf got;
      tl_buf_init(&got);
      tl_provpage_render_read(&got, view, &reader, "index.html", NULL);
      cJSON_Delete(view);
      /* each text twice: its first lines for the first paint, then whole */
      CHECK_INT_EQ(r.opened, 8);
      CHECK_INT_EQ(r.failures, 0);
      CHECK(strcmp(got.data, want) == 0);
      tl_buf_free(&got);
      free(want);
    }
  tl_provpage_deflate_at = TL_PROVPAGE_DEFLATE_AT_DEFAULT;
  tl_buf_free(&big);
}

/* Panels deflated ahead: each kept as tl_provpage_deflate_read made it. */
typedef struct ahead_reader {
  piece_reader pieces;
  tl_buf made[4];
  bool whole[4];
  int given;
} ahead_reader;

static const char *const panel_names[4] = {"pre", "post", "code", "kernel"};

static bool open_ahead(void *ctx, const char *which, size_t *size) {
  return open_piece(&((ahead_reader *)ctx)->pieces, which, size);
}
static size_t read_ahead(void *ctx, char *buf, size_t cap) {
  return read_piece(&((ahead_reader *)ctx)->pieces, buf, cap);
}
static bool ahead_failed(void *ctx) {
  return piece_failed(&((ahead_reader *)ctx)->pieces);
}
static bool given_ahead(void *ctx, const char *which, tl_str *made) {
  ahead_reader *r = ctx;
  for (int i = 0; i < 4; i++)
    if (strcmp(which, panel_names[i]) == 0 && r->whole[i]) {
      *made = tl_buf_str(&r->made[i]);
      r->given++;
      return true;
    }
  return false;
}

TEST(panels_deflated_ahead_make_the_same_page) {
  /* Each panel deflated by tl_provpage_deflate_read beforehand (as a
   * helper thread does while the view is analyzed), some or all of them:
   * the page embeds those bytes and is the page it writes itself, byte for
   * byte. An absent panel, one below the threshold and one that cannot be
   * read whole are not made ahead. */
  tl_buf big;
  static const char line[] = "y = g(\0z) # \xE2\x80\xA8 </script>\n";
  tl_provpage_texts texts = texts_with_code(&big, TL_STR_LIT(line), 9000);
  static const size_t thresholds[] = {0, 100};
  static const int expect_made[] = {3, 1}; /* pre, code, kernel; code */
  for (size_t i = 0; i < 2; i++)
    for (int leave_out = -1; leave_out < 4; leave_out++) {
      tl_provpage_deflate_at = thresholds[i];
      cJSON *view = hostile_view();
      char *want = render(view, &texts, "index.html", NULL);
      ahead_reader r = {{&texts, {NULL, 0}, 4096, 0, 0, 0}, {{0}}, {0}, 0};
      tl_provpage_text_reader reader = {open_ahead, read_ahead, ahead_failed,
                                        &r, given_ahead};
      int made = 0;
      for (int k = 0; k < 4; k++) {
        tl_buf_init(&r.made[k]);
        if (k == leave_out)
          continue; /* given up before this panel */
        r.whole[k] =
            tl_provpage_deflate_read(&r.made[k], &reader, panel_names[k]);
        made += r.whole[k];
      }
      /* pre, code and kernel at 0; code alone at 100 (post is absent);
       * less the one left out */
      int want_made = 0;
      const tl_str all[4] = {texts.pre, texts.post, texts.code,
                             texts.kernel_code};
      for (int k = 0; k < 4; k++)
        want_made +=
            k != leave_out && all[k].ptr && all[k].len >= thresholds[i];
      CHECK_INT_EQ(made, want_made);
      if (leave_out < 0)
        CHECK_INT_EQ(made, expect_made[i]);
      tl_buf got;
      tl_buf_init(&got);
      tl_provpage_render_read(&got, view, &reader, "index.html", NULL);
      cJSON_Delete(view);
      CHECK_INT_EQ(r.given, made);
      CHECK(strcmp(got.data, want) == 0);
      for (int k = 0; k < 4; k++)
        tl_buf_free(&r.made[k]);
      tl_buf_free(&got);
      free(want);
    }
  /* A panel that cannot be read whole: not made ahead. */
  tl_provpage_deflate_at = 0;
  ahead_reader r = {{&texts, {NULL, 0}, 4, 0, 10, 0}, {{0}}, {0}, 0};
  tl_provpage_text_reader reader = {open_ahead, read_ahead, ahead_failed, &r,
                                    given_ahead};
  tl_buf_init(&r.made[2]);
  CHECK(!tl_provpage_deflate_read(&r.made[2], &reader, "code"));
  CHECK_INT_EQ(r.pieces.failures, 1);
  tl_buf_free(&r.made[2]);
  tl_provpage_deflate_at = TL_PROVPAGE_DEFLATE_AT_DEFAULT;
  tl_buf_free(&big);
}

TEST(page_reading_a_text_that_fails_embeds_it_absent_or_as_read) {
  /* The code text fails with 10 bytes left: held whole (below the
   * threshold) it is embedded as absent, as a text that could not be read;
   * deflated, as far as it was read. The caller is asked each time. */
  const char *code = "0123456789abcdefghij0123456789";
  tl_provpage_texts texts = {
      {NULL, 0}, {NULL, 0}, tl_str_from(code), {NULL, 0}};
  for (int deflated = 0; deflated < 2; deflated++) {
    tl_provpage_deflate_at = deflated ? 0 : TL_PROVPAGE_DEFLATE_AT_DEFAULT;
    piece_reader r = {&texts, {NULL, 0}, 4, 0, 10, 0};
    tl_provpage_text_reader reader = {open_piece, read_piece, piece_failed, &r,
                                      NULL};
    tl_buf got;
    tl_buf_init(&got);
    tl_provpage_render_read(&got, NULL, &reader, NULL, NULL);
    CHECK_INT_EQ(r.failures, 1);
    char *data = script_data(got.data, "tlprov-text-code");
    if (!deflated) {
      CHECK(data && strcmp(data, "null") == 0);
    } else {
      tl_buf back;
      tl_buf_init(&back);
      CHECK(data && inflated(data, &back));
      CHECK_INT_EQ(back.len, 20); /* read in pieces of 4 until 10 were left */
      CHECK(memcmp(back.data, code, 20) == 0);
      tl_buf_free(&back);
    }
    free(data);
    tl_buf_free(&got);
  }
  tl_provpage_deflate_at = TL_PROVPAGE_DEFLATE_AT_DEFAULT;
}

TEST(page_without_view_or_texts_embeds_nulls) {
  char *page = render(NULL, NULL, NULL, NULL);
  char *view = script_data(page, "tlprov-view");
  char *pre = script_data(page, "tlprov-text-pre");
  char *kernel = script_data(page, "tlprov-text-kernel");
  CHECK_STR_EQ(view, "null");
  CHECK_STR_EQ(pre, "null");
  CHECK_STR_EQ(kernel, "null");
  CHECK(strstr(page, "<title>Provenance   - tlparse</title>") != NULL);
  free(view);
  free(pre);
  free(kernel);
  free(page);
}

TEST(page_links_safe_hrefs_and_drops_script_urls) {
  char *page = render(NULL, NULL, "index.html", "javascript:alert(1)");
  CHECK(strstr(page, "<a class=\"tp-index\" href=\"index.html\">") != NULL);
  CHECK(strstr(page, "href=\"javascript:") == NULL);
  CHECK(strstr(page, "tp-help") == NULL);
  free(page);
  page = render(NULL, NULL, "a\"b.html", "help.html#provenance");
  CHECK(strstr(page, "href=\"a&quot;b.html\"") != NULL);
  CHECK(strstr(page, "<a class=\"tp-help\" href=\"help.html#provenance\">"
                     "Help</a>") != NULL);
  free(page);
}

TEST(page_csp_allows_only_the_hashed_loader_and_no_network) {
  char *page = render(NULL, NULL, NULL, NULL);
  const char *csp = strstr(page, "content=\"default-src 'none'; style-src "
                                 "'self' 'unsafe-inline'; img-src data:; "
                                 "script-src 'sha256-");
  CHECK(csp != NULL);
  const char *end = csp ? strchr(csp + 9, '"') : NULL;
  CHECK(end != NULL);
  if (csp && end) {
    char policy[512] = {0};
    size_t len = (size_t)(end - csp);
    memcpy(policy, csp, len < sizeof policy - 1 ? len : sizeof policy - 1);
    /* One hash (44 base64 characters), then 'strict-dynamic': the scripts
     * the loader adds run, no script element of the HTML does. */
    const char *hash = strstr(policy, "'sha256-");
    CHECK(hash && strcmp(hash + 8 + 44, "' 'strict-dynamic'") == 0);
    CHECK_INT_EQ(count(policy, "'sha256-"), 1);
    CHECK(strstr(policy, "unsafe-eval") == NULL);
    CHECK(strstr(strstr(policy, "script-src"), "'self'") == NULL);
    CHECK(strstr(policy, "script-src 'unsafe-inline'") == NULL);
  }
  /* The loader, in the head before the first paint's style, adds
   * provenance.css and provenance.js from static/ only (provenance.js adds
   * highlight.min.js from there after the load event). The page links no
   * file of its own: its first frame waits for none. */
  const char *loader = strstr(page, "<script data-static=\"static/\">");
  CHECK(loader != NULL);
  if (loader) {
    const char *end_of_loader =
        strstr(loader, "</script>\n<link rel=\"expect\" "
                       "href=\"#tlprov-parsed\" blocking=\"render\">\n"
                       "<style>:root{");
    CHECK(end_of_loader != NULL);
    CHECK(strstr(page, "</style>\n</head>") != NULL);
    CHECK(count(page, "<link") == 1);
    CHECK(strstr(page, "id=\"tlprov-parsed\"") == NULL);
    CHECK(strstr(loader, "s.src = base + 'provenance.js';") != NULL);
    CHECK(strstr(loader, "css.href = base + 'provenance.css';") != NULL);
    /* Only provenance.js names it. */
    CHECK(strstr(page, "highlight.min.js") == NULL);
  }
  CHECK_INT_EQ(count(page, "<script data-static="), 1);
  free(page);
}

TEST(page_costs_its_data_plus_a_small_shell) {
  /* The style and scripts are shared files of static/, not in each page:
   * a page of a view with one short text is its shell plus that text. */
  tl_provpage_texts texts = {
      TL_STR_LIT("x = 1\n"), {NULL, 0}, {NULL, 0}, {NULL, 0}};
  char *page = render(NULL, &texts, "index.html", "help.html#highlighter");
  /* (with the first paint's bars, panel heads and its one row, and the
   * first paint's style rules: about 5 KB, without comments or
   * indentation) */
  CHECK(strlen(page) < 14336);
  const char *style = strstr(page, "<style>");
  const char *style_end = style ? strstr(style, "</style>") : NULL;
  CHECK(style_end != NULL);
  if (style_end) {
    size_t style_len = (size_t)(style_end - style);
    CHECK(style_len > 2048 && style_len < 6144);
    char *rules = tl_xcalloc(1, style_len + 1);
    memcpy(rules, style, style_len);
    CHECK(strstr(rules, "/*") == NULL && strstr(rules, "\n") == NULL);
    CHECK(strstr(rules, ".tp-top{display:flex;") != NULL);
    CHECK(strstr(rules, "min-width:calc(var(--gw,4ch) + 12px);") != NULL);
    CHECK(strstr(rules, "font:14px/1.4 system-ui,-apple-system,\"Segoe "
                        "UI\",sans-serif;") != NULL);
    CHECK(strstr(rules, ".ln.hl") == NULL); /* only in the shared sheet */
    free(rules);
  }
  free(page);
  tl_buf css;
  tl_buf_init(&css);
  tl_str js;
  tl_provpage_static(&css, &js);
  CHECK(strstr(css.data, ".hljs") != NULL); /* themes */
  CHECK(strstr(css.data, "prefers-color-scheme: dark") != NULL);
  /* the first paint's rules, then the rest */
  const char *first = strstr(css.data, ".tp-top {");
  const char *rest = strstr(css.data, ".ln.hl {");
  CHECK(first != NULL && rest != NULL && first < rest);
  tl_buf script;
  tl_buf_init(&script);
  tl_buf_append(&script, js.ptr, js.len);
  CHECK(js.len > 10000 && strstr(script.data, "window.tlprov = {") != NULL);
  tl_buf_free(&script);
  tl_buf_free(&css);
}

int main(void) {
  RUN(page_has_exactly_six_script_elements_with_hostile_names_and_code);
  RUN(page_escapes_compile_id_in_title_and_header);
  RUN(page_view_json_round_trips_through_its_script_element);
  RUN(page_text_keeps_every_line_and_escapes_nul_and_line_separators);
  RUN(page_without_view_or_texts_embeds_nulls);
  RUN(page_links_safe_hrefs_and_drops_script_urls);
  RUN(page_csp_allows_only_the_hashed_loader_and_no_network);
  RUN(page_costs_its_data_plus_a_small_shell);
  RUN(large_texts_are_embedded_deflated_and_inflate_to_the_text);
  RUN(page_reading_its_texts_in_pieces_is_the_same_page);
  RUN(panels_deflated_ahead_make_the_same_page);
  RUN(page_reading_a_text_that_fails_embeds_it_absent_or_as_read);
  return check_summary();
}
