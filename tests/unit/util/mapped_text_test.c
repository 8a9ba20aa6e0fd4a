/* mapped_text_test.c: large texts mapped from their files (mapped_text.h):
 * the bytes are the file's, followed by a NUL; small files, links, folders
 * and missing files are not mapped; the pages a pass has passed leave the
 * process (their resident size, from /proc/self/smaps) and read back the
 * same; a NUL is found anywhere; tl_mapped_text_load maps or reads with
 * one open, and says what is wrong as tl_fs_read_file does. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "util/fsutil.h"
#include "util/mapped_text.h"

static char root[] = "/tmp/tl-mapped-text-XXXXXX";

static char *file_of(const char *name, size_t size) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", root, name);
  char *bytes = tl_xmalloc(size ? size : 1);
  for (size_t i = 0; i < size; i++)
    bytes[i] = (char)('a' + (i * 7 + i / 4096) % 26);
  char error[512];
  CHECK(tl_fs_write_file(path, bytes, size, error, sizeof error));
  free(bytes);
  return path;
}

/* Kilobytes of the mapping at `start` resident in this process. */
static long resident_kb(const void *start) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f)
    return -1;
  char line[512];
  bool inside = false;
  long kb = -1;
  while (fgets(line, sizeof line, f)) {
    unsigned long from, to;
    if (sscanf(line, "%lx-%lx ", &from, &to) == 2) {
      inside = (uintptr_t)start >= from && (uintptr_t)start < to;
      continue;
    }
    if (inside && sscanf(line, "Rss: %ld kB", &kb) == 1)
      break;
  }
  fclose(f);
  return kb;
}

TEST(a_large_file_is_mapped_whole_with_a_nul_after_it) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  /* One size fills its last page exactly: the NUL is on a page of its own. */
  size_t sizes[] = {page * 300, page * 300 + 17};
  for (int k = 0; k < 2; k++) {
    const char *path = file_of("large.txt", sizes[k]);
    size_t len;
    char *expected = tl_fs_read_all(path, &len);
    tl_mapped_text m;
    CHECK(tl_mapped_text_open(&m, path, page));
    CHECK_INT_EQ(m.text.len, sizes[k]);
    CHECK(m.text.ptr && memcmp(m.text.ptr, expected, len) == 0);
    CHECK_INT_EQ(m.text.ptr[m.text.len], '\0');
    tl_mapped_text_close(&m);
    CHECK(m.text.ptr == NULL && m.span == 0);
    tl_mapped_text_close(&m); /* twice: nothing */
    free(expected);
  }
}

TEST(small_files_links_folders_and_missing_files_are_not_mapped) {
  tl_mapped_text m;
  const char *small = file_of("small.txt", 1000);
  CHECK(!tl_mapped_text_open(&m, small, 1001));
  CHECK(m.text.ptr == NULL);
  CHECK(tl_mapped_text_open(&m, small, 1000));
  tl_mapped_text_close(&m);
  CHECK(!tl_mapped_text_open(&m, file_of("empty.txt", 0), 0));
  char link[600];
  snprintf(link, sizeof link, "%s/link.txt", root);
  CHECK(symlink("small.txt", link) == 0);
  CHECK(!tl_mapped_text_open(&m, link, 0)); /* never through a link */
  CHECK(!tl_mapped_text_open(&m, root, 0));
  snprintf(link, sizeof link, "%s/missing.txt", root);
  CHECK(!tl_mapped_text_open(&m, link, 0));
  CHECK(m.text.ptr == NULL && m.span == 0);
}

/* tl_mapped_text_load: mapped from min_size on, else read whole into the
 * buffer (through a link too), with tl_fs_read_file's message on a
 * failure. */
TEST(load_maps_a_large_file_and_reads_any_other) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  char error[512] = "";
  tl_mapped_text m;
  tl_buf into;
  tl_buf_init(&into);
  const char *large = file_of("load-large.txt", page * 3 + 5);
  size_t len;
  char *expected = tl_fs_read_all(large, &len);
  CHECK(tl_mapped_text_load(&m, &into, large, page, error, sizeof error) == 1);
  CHECK(m.span > 0 && m.text.len == page * 3 + 5 && into.len == 0);
  CHECK(memcmp(m.text.ptr, expected, len) == 0 && m.text.ptr[len] == '\0');
  tl_mapped_text_close(&m);
  free(expected);

  const char *small = file_of("load-small.txt", 1000);
  expected = tl_fs_read_all(small, &len);
  CHECK(tl_mapped_text_load(&m, &into, small, 1001, error, sizeof error) == 0);
  CHECK(m.span == 0 && m.text.ptr == NULL);
  CHECK(into.len == 1000 && memcmp(into.data, expected, 1000) == 0);
  tl_buf_clear(&into);
  char link[600];
  snprintf(link, sizeof link, "%s/load-link.txt", root);
  CHECK(symlink("load-small.txt", link) == 0);
  CHECK(tl_mapped_text_load(&m, &into, link, 10, error, sizeof error) == 0);
  CHECK(m.span == 0 && into.len == 1000 &&
        memcmp(into.data, expected, 1000) == 0);
  tl_buf_clear(&into);
  free(expected);
  CHECK(error[0] == '\0');

  char want[700];
  snprintf(link, sizeof link, "%s/load-missing.txt", root);
  CHECK(tl_mapped_text_load(&m, &into, link, 10, error, sizeof error) == -1);
  snprintf(want, sizeof want, "cannot read %s: No such file or directory",
           link);
  CHECK(strcmp(error, want) == 0);
  CHECK(tl_mapped_text_load(&m, &into, root, 10, error, sizeof error) == -1);
  snprintf(want, sizeof want, "cannot read %s: Is a directory", root);
  CHECK(strcmp(error, want) == 0);
  CHECK(m.span == 0 && m.text.ptr == NULL);
  tl_buf_free(&into);
}

TEST(pages_a_pass_has_passed_leave_the_process_and_read_back_the_same) {
  size_t size = (size_t)12 << 20;
  const char *path = file_of("passed.txt", size);
  size_t len;
  char *expected = tl_fs_read_all(path, &len);
  tl_mapped_text m;
  CHECK(tl_mapped_text_open(&m, path, 1));
  unsigned long sum = 0;
  for (size_t i = 0; i < m.text.len; i += 4096)
    sum += (unsigned char)m.text.ptr[i];
  CHECK(sum > 0);
  long whole = resident_kb(m.text.ptr);
  CHECK(whole >= 12 * 1024);
  /* Half way: the first half goes; to the end: all of it. */
  tl_text_passed(m.text.ptr + size / 2);
  long half = resident_kb(m.text.ptr);
  CHECK(half <= 6 * 1024 + 4 && half >= 6 * 1024 - 4);
  tl_text_passed(m.text.ptr + size);
  CHECK(resident_kb(m.text.ptr) <= 4);
  /* Less than a megabyte on: nothing more goes (read again, then kept). */
  CHECK(memcmp(m.text.ptr, expected, (size_t)1 << 20) == 0);
  tl_text_passed(m.text.ptr + size - 4096);
  CHECK(resident_kb(m.text.ptr) >= 1024);
  /* A new pass from the start: passed again, behind it. */
  CHECK(memcmp(m.text.ptr, expected, size) == 0);
  tl_text_passed(m.text.ptr + ((size_t)2 << 20));
  long after = resident_kb(m.text.ptr);
  CHECK(after <= 10 * 1024 + 4 && after >= 10 * 1024 - 4);
  /* A place outside every mapped text gives nothing back. */
  CHECK(memcmp(m.text.ptr, expected, size) == 0);
  long before = resident_kb(m.text.ptr);
  tl_text_passed(expected + len);
  tl_text_passed(m.text.ptr - 1);
  tl_text_passed(m.text.ptr + size + 4096);
  CHECK(before >= 12 * 1024 && resident_kb(m.text.ptr) == before);
  tl_mapped_text_close(&m);
  free(expected);
}

TEST(a_nul_is_found_in_any_window) {
  size_t size = ((size_t)3 << 20) + 5;
  char *text = tl_xcalloc(size, 1);
  memset(text, 'x', size);
  CHECK(!tl_text_has_nul((tl_str){text, size}));
  size_t places[] = {0, ((size_t)1 << 20) - 1, (size_t)1 << 20, size - 1};
  for (int k = 0; k < 4; k++) {
    text[places[k]] = '\0';
    CHECK(tl_text_has_nul((tl_str){text, size}));
    text[places[k]] = 'x';
  }
  CHECK(!tl_text_has_nul((tl_str){NULL, 0}));
  free(text);
}

int main(void) {
  if (!mkdtemp(root)) {
    perror("mkdtemp");
    return 1;
  }
  RUN(a_large_file_is_mapped_whole_with_a_nul_after_it);
  RUN(small_files_links_folders_and_missing_files_are_not_mapped);
  RUN(load_maps_a_large_file_and_reads_any_other);
  RUN(pages_a_pass_has_passed_leave_the_process_and_read_back_the_same);
  RUN(a_nul_is_found_in_any_window);
  char error[512];
  tl_fs_remove_tree(root, error, sizeof error);
  return check_summary();
}
