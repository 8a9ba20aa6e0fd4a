/* fuzz_export.c: the export mode (-e) on any bytes: the Draft Export Report
 * (src/export/export_report.h) of the input read as a whole trace log.
 *
 * Each input is written as `trace.log` in a private folder and the report
 * goes to `out/` beside it, removed before the next input. Invariants: the
 * run fails only for I/O reasons (never here); index.html is written;
 * nothing is written outside `out/` and no symlink inside it; every file is
 * a regular file at most two levels deep (compile folder or payloads/);
 * every page passes page_check with no <script> at all (export pages have
 * none); exported programs and payload files hold bytes of the input.
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/export_report.h"
#include "page_check.h"
#include "util/fsutil.h"
#include "work_dir.h"

static const char *work_dir;
static char *trace_path, *out_dir;
static size_t out_prefix_len;
static tl_str input;
static size_t pages;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  work_dir = fuzz_work_dir("export");
  trace_path = fuzz_work_path("trace.log");
  out_dir = fuzz_work_path("out");
  out_prefix_len = strlen(out_dir) + 1;
  return 0;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Whether `needle` occurs in `hay`. A payload file holds a payload: lines
 * of the input with their leading tab removed, so the start of its first
 * line is a substring of the input. */
static bool holds(tl_str hay, tl_str needle) {
  if (!needle.len)
    return true;
  for (size_t i = 0; i + needle.len <= hay.len; i++)
    if (memcmp(hay.ptr + i, needle.ptr, needle.len) == 0)
      return true;
  return false;
}

static int check_file(const char *path, const struct stat *sb, int flag,
                      struct FTW *ftw) {
  (void)sb;
  FUZZ_CHECK(flag != FTW_SL && flag != FTW_SLN); /* no symlinks written */
  FUZZ_CHECK(flag == FTW_F || flag == FTW_D);
  FUZZ_CHECK(ftw->level <= 2);
  if (flag != FTW_F)
    return 0;
  const char *rel = path + out_prefix_len;
  tl_buf text;
  tl_buf_init(&text);
  char error[512];
  FUZZ_CHECK(tl_fs_read_file(path, &text, error, sizeof error));
  if (ends_with(rel, ".html")) {
    page_check(tl_buf_str(&text), 0, rel);
    pages++;
  } else {
    /* exported_program_N.txt or payloads/<md5>.txt: a payload as read. */
    FUZZ_CHECK(ends_with(rel, ".txt"));
    const char *nl = memchr(text.data, '\n', text.len);
    tl_str first = {text.data, nl ? (size_t)(nl - text.data) : text.len};
    if (first.len > 64) /* enough to tell, and keeps the search linear */
      first.len = 64;
    if (!holds(input, first))
      fprintf(stderr, "%s does not come from the input\n", rel);
    FUZZ_CHECK(holds(input, first));
  }
  tl_buf_free(&text);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_work_remove_at_exit();
  char error[512] = "";
  FUZZ_CHECK(tl_fs_remove_tree(out_dir, error, sizeof error));
  FUZZ_CHECK(tl_fs_write_file(trace_path, data, size, error, sizeof error));
  FUZZ_CHECK(tl_fs_mkdirs(out_dir, error, sizeof error));

  tl_diag diag;
  tl_diag_init(&diag, "trace.log");
  tl_export_options options = {trace_path, out_dir, NULL, NULL, NULL};
  bool ok = tl_export_report_run(&options, &diag, error, sizeof error);
  if (!ok)
    fprintf(stderr, "export failed: %s\n", error);
  FUZZ_CHECK(ok);
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
  input = (tl_str){(const char *)data, size};
  pages = 0;
  FUZZ_CHECK(nftw(out_dir, check_file, 16, FTW_PHYS) == 0);
  struct stat st;
  tl_buf index;
  tl_buf_init(&index);
  tl_buf_printf(&index, "%s/index.html", out_dir);
  FUZZ_CHECK(lstat(index.data, &st) == 0 && S_ISREG(st.st_mode));
  tl_buf_free(&index);
  FUZZ_CHECK(pages >= 1);
  return 0;
}
