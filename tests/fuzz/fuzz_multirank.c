/* fuzz_multirank.c: the multi-rank read-back on any bytes: what
 * --all-ranks-html reads from each finished rank folder (src/multi_rank_
 * summary.c, multi_rank_analysis.c), without the fork or the one-log run.
 *
 * Input: `rank0 \x1d rank1` (one rank without the 0x1d byte), each rank
 * `compile_directory.json \x1e runtime \x1e schedule \x1e execution order
 * \x1e chromium_events.json`. The harness writes rank_N/compile_directory.json
 * and rank_N/chromium_events.json, and for every artifact of the directory
 * whose url is a plain relative path, the part its name selects
 * (inductor_runtime_and_tensor_meta*, inductor_collective_schedule*,
 * *graph_execution*.json) at that url. Then, as the mode does: each rank's
 * summary (tl_mr_summary_read) and collectives_parity.json, the aggregated
 * files (tl_mr_analyze) and the landing page (tl_mr_page_write).
 * Invariants: parity, analysis and page never fail here; every JSON file
 * they write parses whole; the landing page passes page_check with no
 * <script>; the summary lists only graphs named by the directory, sorted.
 */
#define _XOPEN_SOURCE 700
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "multirank/multi_rank_internal.h"
#include "page_check.h"
#include "util/fsutil.h"
#include "work_dir.h"

enum { RANK_SEPARATOR = 0x1d, PARTS = 5, MAX_RANKS = 2 };

static const char *work_dir;
static char *out_dir;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  work_dir = fuzz_work_dir("multirank");
  out_dir = fuzz_work_path("out");
  return 0;
}

/* Splits `s` at each `sep` into at most `max` parts; the rest are absent. */
static size_t split(tl_str s, char sep, tl_str *parts, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < max; i++)
    parts[i] = (tl_str){NULL, 0};
  const char *p = s.ptr, *end = s.ptr + s.len;
  while (n < max) {
    const char *q = p < end ? memchr(p, sep, (size_t)(end - p)) : NULL;
    if (!q || n + 1 == max) {
      parts[n++] = (tl_str){p, (size_t)(end - p)};
      break;
    }
    parts[n++] = (tl_str){p, (size_t)(q - p)};
    p = q + 1;
  }
  return n;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A url the harness may write at: "dir/name", no empty, "." or ".."
 * component, nothing that is not printable ASCII, short. */
static bool plain_url(const char *url) {
  size_t n = strlen(url);
  if (!n || n > 200 || url[0] == '/' || url[n - 1] == '/' || !strchr(url, '/'))
    return false;
  for (size_t i = 0; i < n; i++)
    if (url[i] < 0x21 || url[i] > 0x7e)
      return false;
  const char *c = url;
  while (c) {
    const char *next = strchr(c, '/');
    size_t len = next ? (size_t)(next - c) : strlen(c);
    if (!len || (len == 1 && c[0] == '.') ||
        (len == 2 && c[0] == '.' && c[1] == '.'))
      return false;
    c = next ? next + 1 : NULL;
  }
  return true;
}

static void write_at(const char *rank_dir, const char *rel, tl_str text) {
  char error[512];
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s", rank_dir, rel);
  char *slash = strrchr(path.data, '/');
  *slash = '\0';
  bool dir_ok = tl_fs_mkdirs(path.data, error, sizeof error);
  *slash = '/';
  /* A url may name a folder another url made: then it is not written. */
  if (dir_ok && !tl_fs_exists(path.data))
    tl_fs_write_file(path.data, text.ptr, text.len, error, sizeof error);
  tl_buf_free(&path);
}

/* Writes one rank folder from its parts. */
static void write_rank(const char *rank_dir, const tl_str *parts) {
  char error[512];
  tl_buf path;
  tl_buf_init(&path);
  FUZZ_CHECK(tl_fs_mkdirs(rank_dir, error, sizeof error));
  tl_buf_printf(&path, "%s/compile_directory.json", rank_dir);
  FUZZ_CHECK(tl_fs_write_file(path.data, parts[0].ptr, parts[0].len, error,
                              sizeof error));
  if (parts[4].ptr) {
    tl_buf_clear(&path);
    tl_buf_printf(&path, "%s/chromium_events.json", rank_dir);
    FUZZ_CHECK(tl_fs_write_file(path.data, parts[4].ptr, parts[4].len, error,
                                sizeof error));
  }
  tl_buf_free(&path);
  cJSON *root = cJSON_ParseWithLength(parts[0].ptr, parts[0].len);
  const cJSON *entry;
  cJSON_ArrayForEach(entry, root) {
    const cJSON *a;
    cJSON_ArrayForEach(a,
                       cJSON_GetObjectItemCaseSensitive(entry, "artifacts")) {
      const cJSON *name = cJSON_GetObjectItemCaseSensitive(a, "name");
      const cJSON *url = cJSON_GetObjectItemCaseSensitive(a, "url");
      if (!cJSON_IsString(name) || !cJSON_IsString(url) ||
          !plain_url(url->valuestring))
        continue;
      const char *n = name->valuestring;
      int part = strstr(n, "graph_execution") && ends_with(n, ".json")     ? 3
                 : strncmp(n, "inductor_runtime_and_tensor_meta", 32) == 0 ? 1
                 : strncmp(n, "inductor_collective_schedule", 28) == 0     ? 2
                                                                           : 0;
      if (part && parts[part].ptr)
        write_at(rank_dir, url->valuestring, parts[part]);
    }
  }
  cJSON_Delete(root);
}

static void check_json_file(const char *path) {
  if (!tl_fs_exists(path))
    return;
  tl_buf text;
  tl_buf_init(&text);
  char error[512];
  FUZZ_CHECK(tl_fs_read_file(path, &text, error, sizeof error));
  const char *end = NULL;
  cJSON *json = cJSON_ParseWithOpts(text.data, &end, true);
  if (!json)
    fprintf(stderr, "%s is not JSON near byte %zu\n", path,
            end ? (size_t)(end - text.data) : 0);
  FUZZ_CHECK(json);
  cJSON_Delete(json);
  tl_buf_free(&text);
}

static void check_summary(const tl_mr_rank *r) {
  FUZZ_CHECK(r->summary);
  FUZZ_CHECK(r->compile_ids && r->cache_seq);
  for (size_t i = 0; i < r->graphs.count; i++) {
    const tl_mr_graph *g = &r->graphs.items[i];
    FUZZ_CHECK(g->dir[0] && !strchr(g->dir, '/') && g->compile_id);
    if (i)
      FUZZ_CHECK(strcmp(r->graphs.items[i - 1].dir, g->dir) <= 0);
    FUZZ_CHECK(!g->has_sched || g->sched_name);
    FUZZ_CHECK(!g->ops.count || g->runtime_name);
    for (size_t k = 0; k < g->sched.count; k++)
      FUZZ_CHECK(g->sched.items[k]);
  }
  for (size_t i = 0; i < r->exec.count; i++)
    FUZZ_CHECK(r->exec.items[i][0] == '[');
  FUZZ_CHECK(r->has_exec || !r->exec.count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_work_remove_at_exit();
  char error[512] = "";
  FUZZ_CHECK(tl_fs_remove_tree(out_dir, error, sizeof error));
  FUZZ_CHECK(tl_fs_mkdirs(out_dir, error, sizeof error));

  tl_str ranks_text[MAX_RANKS];
  size_t count = split((tl_str){(const char *)data, size}, RANK_SEPARATOR,
                       ranks_text, MAX_RANKS);
  tl_mr_rank ranks[MAX_RANKS];
  tl_mr_rank *use[MAX_RANKS];
  tl_diag diag;
  tl_diag_init(&diag, "logs");
  tl_buf path;
  tl_buf_init(&path);
  for (size_t i = 0; i < count; i++) {
    tl_mr_rank *r = &ranks[i];
    memset(r, 0, sizeof *r);
    r->rank = (unsigned)i;
    tl_buf_clear(&path);
    tl_buf_printf(&path, "dedicated_log_torch_trace_rank_%zu.log", i);
    r->file_name = tl_xstrdup(path.data);
    tl_buf_clear(&path);
    tl_buf_printf(&path, "logs/%s", r->file_name);
    r->path = tl_xstrdup(path.data);
    tl_buf_clear(&path);
    tl_buf_printf(&path, "rank_%zu", i);
    r->dir_name = tl_xstrdup(path.data);
    tl_str parts[PARTS];
    split(ranks_text[i], 0x1e, parts, PARTS);
    tl_buf_clear(&path);
    tl_buf_printf(&path, "%s/%s", out_dir, r->dir_name);
    write_rank(path.data, parts);

    tl_mr_summary_read(r, out_dir, false, &diag);
    if (r->summary)
      check_summary(r);
    bool ok = tl_mr_parity_write(r, path.data, false, error, sizeof error);
    if (!ok)
      fprintf(stderr, "parity: %s\n", error);
    FUZZ_CHECK(ok);
    tl_buf_puts(&path, "/collectives_parity.json");
    check_json_file(path.data);
    use[i] = r;
  }

  /* Only ranks with a summary are aggregated, as in multi_rank.c. */
  tl_mr_rank *aggregated[MAX_RANKS];
  size_t n = 0;
  for (size_t i = 0; i < count; i++)
    if (use[i]->summary)
      aggregated[n++] = use[i];
  tl_mr_analysis a;
  bool ok = tl_mr_analyze(aggregated, n, out_dir, NULL, &a, &diag, error,
                          sizeof error);
  if (!ok)
    fprintf(stderr, "analyze: %s\n", error);
  FUZZ_CHECK(ok);
  static const char *const aggregated_files[] = {
      "chromium_events.json", "runtime_estimations.json",
      "chromium_trace_with_runtime.json", "collective_schedules.json"};
  for (size_t i = 0; i < 4; i++) {
    tl_buf_clear(&path);
    tl_buf_printf(&path, "%s/%s", out_dir, aggregated_files[i]);
    check_json_file(path.data);
  }
  tl_multi_rank_options o = {0};
  o.input_dir = "logs";
  o.out_name = "out";
  o.out_dir = out_dir;
  ok = tl_mr_page_write(&o, use, count, &a, error, sizeof error);
  if (!ok)
    fprintf(stderr, "page: %s\n", error);
  FUZZ_CHECK(ok);
  tl_buf_clear(&path);
  tl_buf_printf(&path, "%s/index.html", out_dir);
  tl_buf page;
  tl_buf_init(&page);
  FUZZ_CHECK(tl_fs_read_file(path.data, &page, error, sizeof error));
  page_check(tl_buf_str(&page), 0, "index.html");
  tl_buf_free(&page);

  tl_mr_analysis_free(&a);
  for (size_t i = 0; i < count; i++)
    tl_mr_rank_free(&ranks[i]);
  tl_diag_free(&diag);
  tl_buf_free(&path);
  return 0;
}
