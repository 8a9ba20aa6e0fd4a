/* fuzz_trace.c: the whole pipeline on any bytes: read -> store -> report
 * (with -i, so the analyzers, the join and the highlighter page run too).
 *
 * Each input is written as `trace.log` in a private folder and the report
 * goes to `out/` beside it. Invariants: nothing is written outside `out/`;
 * every HTML page passes page_check (no markup from the trace, safe hrefs,
 * the page kind's exact <script> count); every JSON file parses, and so does
 * each line of raw.jsonl; the run fails only for I/O reasons.
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "emit/artifact_pages.h"
#include "emit/report.h"
#include "page_check.h"
#include "read/reader.h"
#include "store/store.h"
#include "util/fsutil.h"
#include "work_dir.h"

static const char *work_dir;
static char *trace_path, *out_dir;
static size_t out_prefix_len;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  work_dir = fuzz_work_dir("trace");
  trace_path = fuzz_work_path("trace.log");
  out_dir = fuzz_work_path("out");
  out_prefix_len = strlen(out_dir) + 1;
  return 0;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Whether the view JSON beside the page `path` (.html -> .json) names no
 * artifact: its page is then the short one without scripts. */
static bool view_is_empty(const char *path) {
  tl_buf json_path, text;
  tl_buf_init(&json_path);
  tl_buf_init(&text);
  tl_buf_append(&json_path, path, strlen(path) - strlen(".html"));
  tl_buf_puts(&json_path, ".json");
  char error[512];
  FUZZ_CHECK(tl_fs_read_file(json_path.data, &text, error, sizeof error));
  cJSON *view = cJSON_ParseWithLength(text.data, text.len);
  FUZZ_CHECK(view);
  bool empty = true;
  const cJSON *a;
  cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(view, "artifacts"))
      empty = empty && cJSON_IsNull(a);
  cJSON_Delete(view);
  tl_buf_free(&text);
  tl_buf_free(&json_path);
  return empty;
}

/* The number of <script> elements a page of this path is built with. */
static size_t scripts_of(const char *path, const char *rel) {
  const char *slash = strrchr(rel, '/');
  const char *base = slash ? slash + 1 : rel;
  if (!slash && strncmp(base, "provenance_tracking_", 20) == 0)
    /* view JSON, four texts, the loader of static/; none on the short
     * page of a view without artifacts */
    return view_is_empty(path) ? 0 : 6;
  if (slash && strncmp(base, "inductor_output_code", 20) == 0)
    return 2; /* highlight.min.js and the call that starts it */
  if (!slash && strcmp(base, "index.html") == 0)
    return 1; /* the stack trie's toggleList, as the Rust index has it */
  return 0;
}

static void check_json_lines(tl_str text, const char *rel) {
  size_t start = 0;
  for (size_t i = 0; i < text.len; i++) {
    if (text.ptr[i] != '\n')
      continue;
    cJSON *line = cJSON_ParseWithLength(text.ptr + start, i - start);
    if (!line)
      fprintf(stderr, "%s: line at byte %zu is not JSON\n", rel, start);
    FUZZ_CHECK(line);
    cJSON_Delete(line);
    start = i + 1;
  }
  FUZZ_CHECK(start == text.len); /* every line ends with \n */
}

static int check_file(const char *path, const struct stat *sb, int flag,
                      struct FTW *ftw) {
  (void)sb;
  (void)ftw;
  FUZZ_CHECK(flag != FTW_SL && flag != FTW_SLN); /* no symlinks written */
  if (flag != FTW_F)
    return 0;
  const char *rel = path + out_prefix_len;
  /* (No check for temporary names: files are written once, in place; the
   * command line stages the whole folder, see main.c.) */
  tl_buf text;
  tl_buf_init(&text);
  char error[512];
  FUZZ_CHECK(tl_fs_read_file(path, &text, error, sizeof error));
  if (ends_with(rel, ".html")) {
    page_check(tl_buf_str(&text), scripts_of(path, rel), rel);
  } else if (ends_with(rel, ".jsonl")) {
    check_json_lines(tl_buf_str(&text), rel);
  } else if (!strchr(rel, '/') && ends_with(rel, ".json")) {
    /* Top-level JSON files are ours (artifact .json payloads are verbatim);
     * cJSON_ParseWithLengthOpts with require_null_terminated rejects
     * trailing garbage. */
    const char *end = NULL;
    cJSON *json = cJSON_ParseWithOpts(text.data, &end, true);
    if (!json)
      fprintf(stderr, "%s is not JSON near byte %zu\n", rel,
              end ? (size_t)(end - text.data) : 0);
    FUZZ_CHECK(json);
    cJSON_Delete(json);
  }
  tl_buf_free(&text);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_work_remove_at_exit();
  char error[512];
  FUZZ_CHECK(tl_fs_remove_tree(out_dir, error, sizeof error));
  FUZZ_CHECK(tl_fs_write_file(trace_path, data, size, error, sizeof error));
  FUZZ_CHECK(tl_fs_mkdirs(out_dir, error, sizeof error));

  tl_diag diag;
  tl_diag_init(&diag, "trace.log");
  tl_store store;
  tl_store_options store_options = {
      false, true, true, false, NULL, 0, &tl_artifact_page_writers};
  FUZZ_CHECK(tl_store_open(&store, out_dir, &store_options, &diag));
  bool ok = tl_reader_run(trace_path, NULL, &diag, tl_store_record, &store,
                          error, sizeof error);
  FUZZ_CHECK(ok);
  FUZZ_CHECK(tl_store_close(&store));
  tl_report_options report_options = {"trace.log", NULL, true, 1,
                                      NULL,        0,    NULL};
  FUZZ_CHECK(tl_report_write(&store, &report_options, &diag));
  tl_store_free(&store);
  tl_diag_free(&diag);

  /* Nothing beside trace.log and out/ in the private folder. */
  DIR *d = opendir(work_dir);
  FUZZ_CHECK(d);
  struct dirent *e;
  while ((e = readdir(d))) {
    const char *n = e->d_name;
    if (strcmp(n, ".") && strcmp(n, "..") && strcmp(n, "trace.log") &&
        strcmp(n, "out")) {
      fprintf(stderr, "written outside the output folder: %s\n", n);
      FUZZ_CHECK(!"file outside the output folder");
    }
  }
  closedir(d);
  FUZZ_CHECK(nftw(out_dir, check_file, 16, FTW_PHYS) == 0);
  return 0;
}
