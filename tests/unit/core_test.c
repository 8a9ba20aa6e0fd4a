/* core_test.c: unit tests of the core modules (buf, html, compile_id,
 * fsutil, reader's glog prefix). */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "read/compile_id.h"
#include "read/reader.h"
#include "util/buf.h"
#include "util/fsutil.h"
#include "util/html.h"
#include "util/utf8.h"

static long glog(const char *line) {
  return tl_reader_glog_envelope_offset(tl_str_from(line));
}

TEST(glog_prefix_finds_the_envelope_after_the_bracket) {
  const char *line = "V0819 12:42:50.489000 888578 torch/_inductor/"
                     "compile_fx.py:2223] {\"artifact\": {}}";
  CHECK_INT_EQ(glog(line), (long)(strchr(line, '{') - line));
}

TEST(glog_prefix_tolerates_a_rank_prefix) {
  const char *line = "[rank0]:V0819 12:42:50.489000 1 a.py:1] {}";
  CHECK_INT_EQ(glog(line), (long)(strchr(line, '{') - line));
}

TEST(glog_prefix_rejects_lines_that_do_not_match) {
  CHECK_INT_EQ(glog(""), -1);
  CHECK_INT_EQ(glog("hello world"), -1);
  CHECK_INT_EQ(glog("V0819 12:42:50.489000 888578 C:\\x.py:12] {}"), -1);
  CHECK_INT_EQ(glog("V0819 12:42:50.489000 888578 a.py:12]"), -1);
  CHECK_INT_EQ(glog("V0819 12:42:50.48900 888578 a.py:12] {}"), -1);
}

TEST(compile_id_names_follow_the_rust_tool) {
  tl_compile_id id = {0};
  char dir[96], shown[96];
  tl_compile_id_dir_name(&id, dir, sizeof dir);
  tl_compile_id_display(&id, shown, sizeof shown);
  CHECK_STR_EQ(dir, "-_-_-_-");
  CHECK_STR_EQ(shown, "[-/-]");
  id.has_frame = id.has_frame_compile = id.has_attempt = true;
  id.frame = 0;
  id.frame_compile = 1;
  id.attempt = 1;
  tl_compile_id_dir_name(&id, dir, sizeof dir);
  tl_compile_id_display(&id, shown, sizeof shown);
  CHECK_STR_EQ(dir, "-_0_1_1");
  CHECK_STR_EQ(shown, "[0/1_1]");
  id.attempt = 0;
  tl_compile_id_display(&id, shown, sizeof shown);
  CHECK_STR_EQ(shown, "[0/1]");
  tl_compile_id ca = {0};
  ca.has_autograd = true;
  tl_compile_id_dir_name(&ca, dir, sizeof dir);
  tl_compile_id_display(&ca, shown, sizeof shown);
  CHECK_STR_EQ(dir, "0_-_-_-");
  CHECK_STR_EQ(shown, "[!0/-/-]");
}

TEST(compile_id_rejects_non_integer_ids) {
  cJSON *env = cJSON_Parse("{\"x\": {}, \"frame_id\": \"0\"}");
  tl_compile_id id;
  CHECK(!tl_compile_id_from_envelope(env, &id));
  cJSON_Delete(env);
  env = cJSON_Parse("{\"x\": {}, \"compiled_autograd_id\": null, "
                    "\"frame_id\": 2, \"frame_compile_id\": 0}");
  CHECK(tl_compile_id_from_envelope(env, &id));
  char dir[96];
  tl_compile_id_dir_name(&id, dir, sizeof dir);
  CHECK_STR_EQ(dir, "-_2_0_-");
  cJSON_Delete(env);
}

TEST(safe_names_cannot_leave_their_folder) {
  const char *cases[][2] = {
      {"../../etc/passwd", "_._.._etc_passwd"},
      {"/abs/path", "_abs_path"},
      {"torch._functorch.config", "torch._functorch.config"},
      {"a\x01<b>", "a__b_"},
      {"", "_"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    tl_buf b;
    tl_buf_init(&b);
    tl_fs_safe_name(&b, tl_str_from(cases[i][0]));
    CHECK_STR_EQ(b.data, cases[i][1]);
    tl_buf_free(&b);
  }
  tl_buf b;
  tl_buf_init(&b);
  tl_fs_safe_name(&b, (tl_str){"a\0b", 3});
  CHECK_STR_EQ(b.data, "a_b");
  tl_buf_free(&b);
}

TEST(html_escape_covers_text_and_attributes) {
  tl_buf b;
  tl_buf_init(&b);
  tl_html_escape_cstr(&b, "<a href='x'>\"&\"</a>");
  CHECK_STR_EQ(b.data, "&lt;a href=&#39;x&#39;&gt;&quot;&amp;&quot;&lt;/a&gt;");
  tl_buf_free(&b);
}

TEST(script_json_cannot_close_its_script_element) {
  tl_buf b;
  tl_buf_init(&b);
  tl_html_script_json(&b, tl_str_from("\"</script><!--\xE2\x80\xA8&\""));
  CHECK_STR_EQ(b.data, "\"\\u003c/script\\u003e\\u003c!--\\u2028\\u0026\"");
  tl_buf_free(&b);
}

TEST(only_http_and_relative_urls_are_safe) {
  CHECK(tl_url_is_safe(tl_str_from("https://example.com/x")));
  CHECK(tl_url_is_safe(tl_str_from("http://example.com")));
  CHECK(tl_url_is_safe(tl_str_from("-_0_0_0/a.txt")));
  CHECK(!tl_url_is_safe(tl_str_from("javascript:alert(1)")));
  CHECK(!tl_url_is_safe(tl_str_from("JaVaScRiPt:alert(1)")));
  CHECK(!tl_url_is_safe(tl_str_from(" javascript:alert(1)")));
  CHECK(!tl_url_is_safe(tl_str_from("data:text/html,x")));
  CHECK(!tl_url_is_safe(tl_str_from("")));
}

TEST(script_json_string_escapes_like_cjson_and_for_a_script_element) {
  tl_buf b;
  tl_buf_init(&b);
  tl_html_script_json_string(&b, (tl_str){"a\"\\\n\t\x01\b\f\r\x7f", 10});
  CHECK_STR_EQ(b.data, "\"a\\\"\\\\\\n\\t\\u0001\\b\\f\\r\x7f\"");
  tl_buf_clear(&b);
  /* NUL ends a cJSON string: it becomes U+FFFD. `</script>`, `<!--`, `&`
   * and the two JavaScript line separators never appear raw. */
  tl_html_script_json_string(
      &b, (tl_str){"x\0</script><!--&\xE2\x80\xA8\xE2\x80\xA9\xE2\x80", 24});
  CHECK_STR_EQ(b.data, "\"x\xEF\xBF\xBD\\u003c/script\\u003e\\u003c!--"
                       "\\u0026\\u2028\\u2029\xE2\x80\"");
  tl_buf_clear(&b);
  tl_html_script_json_string(&b, (tl_str){NULL, 0});
  CHECK_STR_EQ(b.data, "\"\"");
  tl_buf_free(&b);
}

static void collect(void *ctx, const char *data, size_t len) {
  tl_buf_append(ctx, data, len);
}

TEST(a_draining_buffer_hands_on_every_byte_in_order_and_stays_bounded) {
  tl_buf drained, b;
  tl_buf_init(&drained);
  tl_buf_init(&b);
  tl_buf_drain_into(&b, collect, &drained);
  size_t big = (size_t)TL_BUF_DRAIN_AT + 5;
  char *block = tl_xmalloc(big);
  memset(block, 'x', big);
  tl_buf_puts(&b, "head ");
  /* 1.2 MB of small printfs and puts: the buffer drains on the way and
   * never holds more than the limit. */
  size_t most = 0;
  for (int i = 0; i < 1200000; i++) {
    if (i % 2)
      tl_buf_printf(&b, "%d", i % 10);
    else
      tl_buf_puts(&b, ",");
    most = b.len > most ? b.len : most;
  }
  CHECK(most <= TL_BUF_DRAIN_AT);
  CHECK(drained.len >= TL_BUF_DRAIN_AT / 2);
  CHECK(b.cap <= 2 * (size_t)TL_BUF_DRAIN_AT);
  tl_buf_append(&b, block, big); /* drained without a copy */
  CHECK_INT_EQ(b.len, 0);
  tl_buf_puts(&b, " tail");
  tl_buf_drain(&b);
  CHECK_INT_EQ(drained.len, 5 + 1200000 + big + 5);
  CHECK(memcmp(drained.data, "head ,1,3,5,", 12) == 0);
  CHECK(memcmp(drained.data + 5 + 1199996, ",7,9xx", 6) == 0);
  CHECK_STR_EQ(drained.data + drained.len - 6, "x tail");
  free(block);
  tl_buf_free(&b);
  tl_buf_free(&drained);
}

TEST(a_file_writer_keeps_its_first_error_and_skips_the_rest) {
  char error[512] = "";
  tl_fs_writer w;
  CHECK(!tl_fs_writer_open(&w, "/nonexistent-folder/x.html", error,
                           sizeof error));
  CHECK(strstr(error, "cannot write /nonexistent-folder/x.html: ") == error);
  if (tl_fs_writer_open(&w, "/dev/full", error, sizeof error)) {
    tl_fs_writer_write(&w, "abc", 3); /* ENOSPC */
    tl_fs_writer_write(&w, "def", 3); /* skipped */
    CHECK(!tl_fs_writer_close(&w, error, sizeof error));
    CHECK_STR_EQ(error, "cannot write /dev/full: No space left on device");
  } else {
    printf("  skipped the write error: /dev/full cannot be opened\n");
  }
}

TEST(a_file_reader_reads_in_pieces_and_tells_a_file_that_shrank) {
  char dir[] = "/tmp/tlparse-reader-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[600], error[512] = "";
  snprintf(path, sizeof path, "%s/t.txt", dir);
  FILE *f = fopen(path, "wb");
  for (int i = 0; f && i < 100; i++)
    fputc('a' + i % 26, f);
  if (f)
    fclose(f);
  /* Whole, in pieces of 7. */
  tl_fs_reader r;
  CHECK(tl_fs_reader_open(&r, path, error, sizeof error));
  CHECK_INT_EQ(r.size, 100);
  char buf[7];
  size_t total = 0;
  for (size_t n; (n = tl_fs_reader_read(&r, buf, sizeof buf));)
    total += n;
  CHECK_INT_EQ(total, 100);
  CHECK(!r.failed);
  tl_fs_reader_close(&r);
  /* Cut to 50 bytes after it was opened: 50 read, then failed. */
  CHECK(tl_fs_reader_open(&r, path, error, sizeof error));
  CHECK(truncate(path, 50) == 0);
  total = 0;
  for (size_t n; (n = tl_fs_reader_read(&r, buf, sizeof buf));)
    total += n;
  CHECK_INT_EQ(total, 50);
  CHECK(r.failed);
  tl_fs_reader_close(&r);
  /* A folder, and a name that is not there. */
  CHECK(!tl_fs_reader_open(&r, dir, error, sizeof error));
  char want[700];
  snprintf(want, sizeof want, "cannot read %s: not a regular file", dir);
  CHECK_STR_EQ(error, want);
  CHECK(!tl_fs_reader_open(&r, "/nonexistent-folder/x", error, sizeof error));
  CHECK_STR_EQ(error,
               "cannot read /nonexistent-folder/x: No such file or directory");
  CHECK(tl_fs_remove_tree(dir, error, sizeof error));
}

TEST(a_whole_file_is_read_and_appended_to_a_stream_after_a_skip) {
  char dir[] = "/tmp/tlparse-append-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char part[600], out_path[600], error[512] = "";
  snprintf(part, sizeof part, "%s/part", dir);
  snprintf(out_path, sizeof out_path, "%s/out", dir);
  /* 100,000 bytes: more than one read's 64 KiB block. */
  tl_buf text;
  tl_buf_init(&text);
  for (int i = 0; i < 100000; i++)
    tl_buf_putc(&text, (char)('a' + i % 26));
  CHECK(tl_fs_write_file(part, text.data, text.len, error, sizeof error));
  tl_buf back;
  tl_buf_init(&back);
  tl_buf_puts(&back, "kept:");
  CHECK(tl_fs_read_file(part, &back, error, sizeof error));
  CHECK_INT_EQ(back.len, 5 + 100000);
  CHECK(memcmp(back.data, "kept:", 5) == 0 &&
        memcmp(back.data + 5, text.data, text.len) == 0);
  CHECK(back.data[back.len] == '\0');
  /* Appended after what the stream holds, from byte 1; then nothing from a
   * skip at its end, -1 for a file that is not there. */
  FILE *out = fopen(out_path, "wb");
  CHECK(out != NULL);
  fputs("[", out);
  CHECK_INT_EQ(tl_fs_append_file(out, part, 1), 1);
  CHECK_INT_EQ(tl_fs_append_file(out, part, 100000), 0);
  CHECK_INT_EQ(tl_fs_append_file(out, "/nonexistent-folder/x", 0), -1);
  fputs("]", out);
  CHECK(fclose(out) == 0);
  tl_buf got;
  tl_buf_init(&got);
  CHECK(tl_fs_read_file(out_path, &got, error, sizeof error));
  CHECK_INT_EQ(got.len, 1 + 99999 + 1);
  CHECK(got.data[0] == '[' && got.data[got.len - 1] == ']' &&
        memcmp(got.data + 1, text.data + 1, 99999) == 0);
  CHECK(!tl_fs_read_file("/nonexistent-folder/x", &got, error, sizeof error));
  CHECK_STR_EQ(error,
               "cannot read /nonexistent-folder/x: No such file or directory");
  /* A copy that cannot be written (/dev/full: ENOSPC; the kernel's copy
   * refuses a device, the 64 KiB block bypasses the stream's buffer): -2,
   * errno the failing write's, whatever the closing of the part left. */
  FILE *full = fopen("/dev/full", "wb");
  if (full) {
    errno = 0;
    CHECK_INT_EQ(tl_fs_append_file(full, part, 0), -2);
    CHECK_INT_EQ(errno, ENOSPC);
    fclose(full);
  }
  tl_buf_free(&text);
  tl_buf_free(&back);
  tl_buf_free(&got);
  CHECK(tl_fs_remove_tree(dir, error, sizeof error));
}

static const char *repaired(const char *text, size_t len, size_t *count) {
  static char result[64];
  tl_buf out;
  tl_buf_init(&out);
  *count = tl_utf8_repair(&out, (tl_str){text, len});
  snprintf(result, sizeof result, "%s", out.data);
  tl_buf_free(&out);
  return result;
}

TEST(invalid_utf8_is_replaced_by_one_fffd_per_maximal_subpart) {
  size_t n;
  CHECK_STR_EQ(repaired("ok \xc3\xa9 \xf0\x9f\x98\x80", 10, &n),
               "ok \xc3\xa9 \xf0\x9f\x98\x80");
  CHECK_INT_EQ(n, 0);
  /* a lone continuation byte, a cut 3-byte sequence, an overlong '/', a
   * surrogate, a code point past U+10FFFF, a cut sequence at the end */
  CHECK_STR_EQ(repaired("a\x80"
                        "b\xe2\x82"
                        "c\xc0\xaf\xed\xa0\x80\xf4\x90\xe2",
                        14, &n),
               "a\xef\xbf\xbd"
               "b\xef\xbf\xbd"
               "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
               "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  CHECK_INT_EQ(n, 10);
  CHECK_INT_EQ(tl_utf8_valid_prefix((tl_str){"ab\xff", 3}), 2);
}

TEST(buf_printf_grows_past_its_capacity) {
  tl_buf b;
  tl_buf_init(&b);
  for (int i = 0; i < 1000; i++)
    tl_buf_printf(&b, "%04d", i);
  CHECK_INT_EQ(b.len, 4000);
  CHECK(memcmp(b.data + 3996, "0999", 4) == 0);
  tl_buf_free(&b);
}

TEST(arena_serves_large_and_small_allocations) {
  tl_arena a;
  tl_arena_init(&a);
  char *small = tl_arena_strdup(&a, "hello");
  char *big = tl_arena_alloc(&a, 1 << 20);
  char *after = tl_arena_printf(&a, "%s-%d", small, 7);
  big[(1 << 20) - 1] = 'x';
  CHECK_STR_EQ(small, "hello");
  CHECK_STR_EQ(after, "hello-7");
  tl_arena_free(&a);
}

/* Folders under a root that exists are made; a root that is gone is
 * never made again (a signal handler may have moved the staging folder). */
TEST(folders_are_made_under_a_root_and_never_the_root) {
  char root[] = "/tmp/tl-core-mkdirs-XXXXXX";
  CHECK(mkdtemp(root) != NULL);
  char error[512];
  CHECK(tl_fs_mkdirs_in(root, "a/b//c", error, sizeof error));
  char path[128];
  snprintf(path, sizeof path, "%s/a/b/c", root);
  CHECK(tl_fs_is_dir(path));
  CHECK(tl_fs_mkdirs_in(root, "a/b", error, sizeof error)); /* exists */
  CHECK(tl_fs_remove_tree(root, error, sizeof error));
  CHECK(!tl_fs_mkdirs_in(root, "a", error, sizeof error));
  CHECK(!tl_fs_is_dir(root));
}

/* A folder the caller made itself (mkdtemp) is recorded like those
 * tl_fs_mkdirs_made makes, only below the deepest recorded, and removed by
 * tl_fs_remove_made deepest first. */
TEST(a_noted_folder_is_recorded_below_the_others_and_removed) {
  char root[] = "/tmp/tl-core-made-XXXXXX";
  CHECK(mkdtemp(root) != NULL);
  tl_fs_made made;
  made.count = 0;
  CHECK(tl_fs_made_note(&made, root));
  CHECK_INT_EQ(made.count, 1);
  CHECK_INT_EQ(made.ends[0], strlen(root));
  char inner[64], sibling[64], prefix[64];
  snprintf(inner, sizeof inner, "%s/in-XXXXXX", root);
  CHECK(mkdtemp(inner) != NULL);
  snprintf(sibling, sizeof sibling, "%sx", root); /* root's name, longer */
  snprintf(prefix, sizeof prefix, "%.*s", (int)strlen(root) - 1, root);
  CHECK(!tl_fs_made_note(&made, sibling));
  CHECK(!tl_fs_made_note(&made, prefix));
  CHECK(!tl_fs_made_note(&made, "/tmp"));
  CHECK(!tl_fs_made_note(&made, root)); /* not below itself */
  CHECK_INT_EQ(made.count, 1);
  CHECK(tl_fs_made_note(&made, inner));
  CHECK_INT_EQ(made.count, 2);
  CHECK_INT_EQ(made.ends[1], strlen(inner));
  CHECK(tl_fs_remove_made(&made));
  CHECK_INT_EQ(made.count, 0);
  CHECK(!tl_fs_is_dir(inner));
  CHECK(!tl_fs_is_dir(root));
  /* Too long a path, and a full record, are refused. */
  static char longest[TL_FS_MADE_PATH + 1];
  memset(longest, 'a', TL_FS_MADE_PATH);
  longest[0] = '/';
  CHECK(!tl_fs_made_note(&made, longest));
  char level[(TL_FS_MADE_MAX + 1) * 2 + 1] = "";
  for (size_t i = 0; i < TL_FS_MADE_MAX; i++) {
    strcat(level, "/a");
    CHECK(tl_fs_made_note(&made, level));
  }
  strcat(level, "/a");
  CHECK(!tl_fs_made_note(&made, level));
  CHECK_INT_EQ(made.count, TL_FS_MADE_MAX);
}

/* A path longer than Linux's PATH_MAX: mkdir makes its folders until the
 * prefix grows too long (ENAMETOOLONG); those it made are recorded, so the
 * caller's tl_fs_remove_made leaves the root as it was. */
TEST(the_folders_of_a_path_too_long_to_make_are_removed_again) {
  char root[] = "/tmp/tl-core-long-XXXXXX";
  CHECK(mkdtemp(root) != NULL);
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_puts(&path, root);
  char component[201];
  memset(component, 'd', 200);
  component[200] = '\0';
  while (path.len <= TL_FS_MADE_PATH + 200)
    tl_buf_printf(&path, "/%s", component);
  tl_fs_made made;
  char error[512];
  CHECK(!tl_fs_mkdirs_made(path.data, &made, error, sizeof error));
  char want[64]; /* the message names the path, cut to fit `error` */
  snprintf(want, sizeof want, "cannot create folder %s/ddd", root);
  CHECK(strncmp(error, want, strlen(want)) == 0);
  /* Every prefix shorter than PATH_MAX (4096 with its NUL) was made. */
  size_t made_count = (4095 - strlen(root)) / 201;
  CHECK_INT_EQ(made.count, made_count);
  CHECK(tl_fs_remove_made(&made));
  CHECK(rmdir(root) == 0); /* empty: nothing was left in it */
  tl_buf_free(&path);
}

static int int_cmp_test(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

TEST(sort_unique_keeps_one_of_each_in_order) {
  int v[] = {5, 1, 5, 3, 1, 1, 9};
  size_t n = tl_sort_unique(v, sizeof v / sizeof *v, sizeof *v, int_cmp_test);
  CHECK_INT_EQ((int)n, 4);
  int want[] = {1, 3, 5, 9};
  for (size_t i = 0; i < 4 && i < n; i++)
    CHECK_INT_EQ(v[i], want[i]);
  CHECK_INT_EQ((int)tl_sort_unique(NULL, 0, sizeof(int), int_cmp_test), 0);
  int one[] = {7};
  CHECK_INT_EQ((int)tl_sort_unique(one, 1, sizeof *one, int_cmp_test), 1);
}

int main(void) {
  RUN(sort_unique_keeps_one_of_each_in_order);
  RUN(folders_are_made_under_a_root_and_never_the_root);
  RUN(a_noted_folder_is_recorded_below_the_others_and_removed);
  RUN(the_folders_of_a_path_too_long_to_make_are_removed_again);
  RUN(glog_prefix_finds_the_envelope_after_the_bracket);
  RUN(glog_prefix_tolerates_a_rank_prefix);
  RUN(glog_prefix_rejects_lines_that_do_not_match);
  RUN(compile_id_names_follow_the_rust_tool);
  RUN(compile_id_rejects_non_integer_ids);
  RUN(safe_names_cannot_leave_their_folder);
  RUN(html_escape_covers_text_and_attributes);
  RUN(script_json_cannot_close_its_script_element);
  RUN(only_http_and_relative_urls_are_safe);
  RUN(script_json_string_escapes_like_cjson_and_for_a_script_element);
  RUN(a_draining_buffer_hands_on_every_byte_in_order_and_stays_bounded);
  RUN(a_file_writer_keeps_its_first_error_and_skips_the_rest);
  RUN(a_file_reader_reads_in_pieces_and_tells_a_file_that_shrank);
  RUN(a_whole_file_is_read_and_appended_to_a_stream_after_a_skip);
  RUN(invalid_utf8_is_replaced_by_one_fffd_per_maximal_subpart);
  RUN(buf_printf_grows_past_its_capacity);
  RUN(arena_serves_large_and_small_allocations);
  return check_summary();
}
