/* make_page: writes the provenance page of one view JSON, as the lead's
 * `tlparse -i` will (test and benchmark tool, not installed).
 *
 *   tl_make_page VIEW.json OUT.html [INDEX_HREF [HELP_HREF]]
 *
 * With TL_MAKE_PAGE_DEFLATE_AT=N in the environment, texts of N bytes or
 * more are embedded deflated (tl_provpage_deflate_at; 0: every text), so
 * the browser tests can run their scenarios on both forms of a page.
 *
 * The artifact paths in the view ("artifacts": {"pre_grad_graph": PATH, ...})
 * are relative to the folder holding VIEW.json, as in tl_out/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/provpage.h"
#include "util/fsutil.h"
#include "util/resources.h"

/* Reads the artifact named by view.artifacts[key] into `buf`; returns the
 * text, or {NULL, 0} when the view names none or it cannot be read. */
static tl_str load(const cJSON *view, const char *dir, const char *key,
                   tl_buf *buf) {
  const cJSON *arts = cJSON_GetObjectItemCaseSensitive(view, "artifacts");
  const cJSON *path = cJSON_GetObjectItemCaseSensitive(arts, key);
  if (!cJSON_IsString(path))
    return (tl_str){NULL, 0};
  tl_buf full;
  tl_buf_init(&full);
  tl_buf_printf(&full, "%s/%s", dir, path->valuestring);
  char error[512];
  bool ok = tl_fs_read_file(full.data, buf, error, sizeof error);
  if (!ok)
    fprintf(stderr, "make_page: %s\n", error);
  tl_buf_free(&full);
  return ok ? tl_buf_str(buf) : (tl_str){NULL, 0};
}

/* The static/ folder the page loads its style and scripts from, beside
 * the page at `page_path`, as a report has it. */
static bool write_static(const char *page_path) {
  char *dir = tl_xstrdup(page_path);
  char *slash = strrchr(dir, '/');
  if (slash)
    slash[1] = '\0';
  else
    dir[0] = '\0';
  tl_buf css, path;
  tl_buf_init(&css);
  tl_buf_init(&path);
  tl_str js, hljs = TL_RES(hljs_js);
  tl_provpage_static(&css, &js);
  struct {
    const char *name;
    tl_str data;
  } files[] = {{"provenance.css", tl_buf_str(&css)},
               {"provenance.js", js},
               {"highlight.min.js", hljs}};
  char error[512];
  tl_buf_printf(&path, "%s" TL_PROVPAGE_STATIC, dir);
  bool ok = tl_fs_mkdirs(path.data, error, sizeof error);
  for (size_t i = 0; ok && i < sizeof files / sizeof *files; i++) {
    path.len = 0;
    tl_buf_printf(&path, "%s" TL_PROVPAGE_STATIC "%s", dir, files[i].name);
    ok = tl_fs_write_file(path.data, files[i].data.ptr, files[i].data.len,
                          error, sizeof error);
  }
  if (!ok)
    fprintf(stderr, "make_page: %s\n", error);
  tl_buf_free(&css);
  tl_buf_free(&path);
  free(dir);
  return ok;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: tl_make_page VIEW.json OUT.html [INDEX [HELP]]\n");
    return 2;
  }
  tl_buf json, pre, post, code, kernel, page;
  tl_buf_init(&json);
  tl_buf_init(&pre);
  tl_buf_init(&post);
  tl_buf_init(&code);
  tl_buf_init(&kernel);
  tl_buf_init(&page);
  char error[512];
  if (!tl_fs_read_file(argv[1], &json, error, sizeof error)) {
    fprintf(stderr, "make_page: %s\n", error);
    return 1;
  }
  cJSON *view = cJSON_Parse(json.data);
  char *dir = tl_xstrdup(argv[1]);
  char *slash = strrchr(dir, '/');
  if (slash)
    *slash = '\0';
  else
    strcpy(dir, ".");
  tl_provpage_texts texts = {
      load(view, dir, "pre_grad_graph", &pre),
      load(view, dir, "post_grad_graph", &post),
      load(view, dir, "code", &code),
      load(view, dir, "kernel_code", &kernel),
  };
  const char *deflate_at = getenv("TL_MAKE_PAGE_DEFLATE_AT");
  if (deflate_at && *deflate_at)
    tl_provpage_deflate_at = (size_t)strtoull(deflate_at, NULL, 10);
  tl_provpage_render(&page, view, &texts, argc > 3 ? argv[3] : "index.html",
                     argc > 4 ? argv[4] : NULL);
  FILE *f = fopen(argv[2], "wb");
  bool ok = f && fwrite(page.data, 1, page.len, f) == page.len;
  if (f && fclose(f) != 0)
    ok = false;
  if (!ok)
    fprintf(stderr, "make_page: cannot write %s\n", argv[2]);
  if (ok && !write_static(argv[2]))
    ok = false;
  cJSON_Delete(view);
  free(dir);
  tl_buf_free(&json);
  tl_buf_free(&pre);
  tl_buf_free(&post);
  tl_buf_free(&code);
  tl_buf_free(&kernel);
  tl_buf_free(&page);
  return ok ? 0 : 1;
}
