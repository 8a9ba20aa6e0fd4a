/* blob_test.c: flat records of words and strings (util/blob.h): what is
 * written reads back the same, a string with no pointer stays one, strings
 * are copied into the arena when one is given, and a blob cut anywhere is
 * read as short (every read past the cut gives 0 or an empty string). */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "util/blob.h"

/* Words 7 and UINT64_MAX - 1, the strings "kernel", "" and none, then the
 * bytes "xyz". */
static void write_record(tl_buf *b) {
  tl_blob_put_u64(b, 7);
  tl_blob_put_u64(b, UINT64_MAX - 1);
  tl_blob_put_str(b, TL_STR_LIT("kernel"));
  tl_blob_put_str(b, (tl_str){"", 0});
  tl_blob_put_str(b, (tl_str){NULL, 0});
  tl_buf_append(b, "xyz", 3);
}

TEST(record_reads_back_as_written) {
  tl_buf b;
  tl_buf_init(&b);
  write_record(&b);
  /* 2 words, 3 lengths, 6 + 0 bytes of strings, 3 bytes. */
  CHECK_INT_EQ(b.len, 5 * 8 + 6 + 3);
  tl_blob_reader r = tl_blob_reader_of((tl_str){b.data, b.len}, NULL);
  CHECK(tl_blob_get_u64(&r) == 7);
  CHECK(tl_blob_get_u64(&r) == UINT64_MAX - 1);
  tl_str kernel = tl_blob_get_str(&r);
  CHECK(kernel.len == 6 && memcmp(kernel.ptr, "kernel", 6) == 0);
  CHECK(kernel.ptr == b.data + 3 * 8); /* no arena: inside the blob */
  tl_str empty = tl_blob_get_str(&r);
  CHECK(empty.ptr != NULL && empty.len == 0);
  tl_str none = tl_blob_get_str(&r);
  CHECK(none.ptr == NULL && none.len == 0);
  CHECK(r.ok);
  CHECK(!tl_blob_read_whole(&r)); /* "xyz" is left */
  const char *xyz = tl_blob_get_bytes(&r, 3);
  CHECK(xyz && memcmp(xyz, "xyz", 3) == 0);
  CHECK(tl_blob_read_whole(&r));
  tl_buf_free(&b);
}

TEST(strings_are_copied_into_the_arena) {
  tl_buf b;
  tl_buf_init(&b);
  write_record(&b);
  tl_arena arena;
  tl_arena_init(&arena);
  tl_blob_reader r = tl_blob_reader_of((tl_str){b.data, b.len}, &arena);
  tl_blob_get_u64(&r);
  tl_blob_get_u64(&r);
  tl_str kernel = tl_blob_get_str(&r);
  CHECK(kernel.len == 6 && memcmp(kernel.ptr, "kernel", 6) == 0);
  CHECK(kernel.ptr < b.data || kernel.ptr >= b.data + b.len);
  memset(b.data, 0, b.len); /* the copy does not depend on the blob */
  CHECK(memcmp(kernel.ptr, "kernel", 6) == 0);
  tl_arena_free(&arena);
  tl_buf_free(&b);
}

/* Reads the whole record from a blob of `len` bytes; true when the reader
 * says it was whole, and every value read after the cut was 0 or empty. */
static bool read_cut(const char *data, size_t len) {
  tl_blob_reader r = tl_blob_reader_of((tl_str){data, len}, NULL);
  uint64_t seven = tl_blob_get_u64(&r);
  bool ok_after_first = r.ok;
  uint64_t big = tl_blob_get_u64(&r);
  tl_str kernel = tl_blob_get_str(&r);
  tl_str empty = tl_blob_get_str(&r);
  tl_str none = tl_blob_get_str(&r);
  const char *xyz = tl_blob_get_bytes(&r, 3);
  if (!ok_after_first)
    CHECK(seven == 0 && big == 0);
  if (!r.ok)
    CHECK(xyz == NULL && none.ptr == NULL);
  if (!r.ok && len < 2 * 8 + 8 + 6)
    CHECK(kernel.len == 0 && empty.len == 0);
  return tl_blob_read_whole(&r);
}

TEST(a_blob_cut_anywhere_is_short) {
  tl_buf b;
  tl_buf_init(&b);
  write_record(&b);
  for (size_t len = 0; len < b.len; len++)
    CHECK(!read_cut(b.data, len));
  CHECK(read_cut(b.data, b.len));
  tl_buf_free(&b);
}

TEST(a_length_past_the_end_is_short_not_a_wrap) {
  tl_buf b;
  tl_buf_init(&b);
  tl_blob_put_u64(&b, UINT64_MAX - 2); /* a string's length, no bytes */
  tl_blob_reader r = tl_blob_reader_of((tl_str){b.data, b.len}, NULL);
  tl_str s = tl_blob_get_str(&r);
  CHECK(!r.ok && s.ptr == NULL && s.len == 0);
  CHECK(tl_blob_get_u64(&r) == 0);
  tl_buf_free(&b);
}

int main(void) {
  RUN(record_reads_back_as_written);
  RUN(strings_are_copied_into_the_arena);
  RUN(a_blob_cut_anywhere_is_short);
  RUN(a_length_past_the_end_is_short_not_a_wrap);
  return check_summary();
}
