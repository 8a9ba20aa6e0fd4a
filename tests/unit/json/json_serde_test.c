/* json_serde_test.c: JSON re-written as the Rust tlparse writes it. Each
 * expected text was printed by the Rust tool 0.4.3 for the same input (an
 * `artifact` with `encoding: json` gives the pretty form, raw.jsonl the
 * compact one). */
#include "check.h"
#include "util/utf8.h"
#include "json/chromium_events.h"
#include "json/json_serde.h"

#include <string.h>

static tl_buf out;

static tl_json_serde_status serde(const char *text, bool pretty) {
  tl_buf_clear(&out);
  tl_json_serde_options o = {0};
  o.pretty = pretty;
  return tl_json_serde(&out, tl_str_from(text), &o, NULL, NULL, 0);
}

TEST(pretty_output_sorts_keys_and_keeps_the_last_of_a_repeated_key) {
  CHECK(serde("{\"b\": 1, \"a\": [1], \"a\": 2, \"c\": {}, \"d\": [], "
              "\"n\": 18446744073709551616, \"m\": -0}",
              true) == TL_JSON_SERDE_OK);
  CHECK_STR_EQ(out.data, "{\n  \"a\": 2,\n  \"b\": 1,\n  \"c\": {},\n  \"d\": "
                         "[],\n  \"m\": -0.0,\n  \"n\": "
                         "1.8446744073709552e19\n}");
}

TEST(strings_escape_only_quote_backslash_and_control_characters) {
  CHECK(serde("{\"a\": [1.50, 1E5, {\"z\": null, \"y\": true, \"\\u00e9\": "
              "\"x\\u001f\\u007f/\\u2028\\b\\f\\r\\t\\\"\\\\\", \"\\u00e8\": "
              "1}], \"c\": {\"k\": [[], {}]}}",
              true) == TL_JSON_SERDE_OK);
  CHECK_STR_EQ(out.data,
               "{\n  \"a\": [\n    1.5,\n    100000.0,\n    {\n      \"y\": "
               "true,\n      \"z\": null,\n      \"\xc3\xa8\": 1,\n      "
               "\"\xc3\xa9\": \"x\\u001f\x7f/\xe2\x80\xa8\\b\\f\\r\\t\\\"\\\\\""
               "\n    }\n  ],\n  \"c\": {\n    \"k\": [\n      [],\n      "
               "{}\n    ]\n  }\n}");
}

/* Strings and keys without an escape are written as they were read (DEL,
 * '/', and UTF-8 of every length stay bytes), beside ones whose escapes are
 * written again: raw.jsonl of the Rust tool for this envelope. */
TEST(strings_without_escapes_are_written_as_read) {
  CHECK(serde("{\"zz/\xc3\xa9\x7f\": \"v~\x7f\xe2\x82\xac/x\", \"a\\\"k\": "
              "\"c\\\\d\", \"m\": [\"s p\", \"\xf0\x9f\x99\x82\"]}",
              false) == TL_JSON_SERDE_OK);
  CHECK_STR_EQ(out.data,
               "{\"a\\\"k\":\"c\\\\d\",\"m\":[\"s p\",\"\xf0\x9f\x99\x82\"],"
               "\"zz/\xc3\xa9\x7f\":\"v~\x7f\xe2\x82\xac/x\"}");
}

TEST(compact_output_with_extra_members_sorted_in) {
  tl_buf_clear(&out);
  tl_json_member extra[] = {{"lineno", tl_str_from("12")},
                            {"thread", tl_str_from("12")}};
  tl_json_serde_options o = {false, 0, extra, 2, 0};
  CHECK(tl_json_serde(&out,
                      tl_str_from("{\"zz\": {\"k\": 1e300, \"b\": [1, {\"q\": "
                                  "0.1}]}, \"aa\": 5}"),
                      &o, NULL, NULL, 0) == TL_JSON_SERDE_OK);
  CHECK_STR_EQ(out.data, "{\"aa\":5,\"lineno\":12,\"thread\":12,\"zz\":{\"b\":"
                         "[1,{\"q\":0.1}],\"k\":1e300}}");
}

TEST(an_extra_key_already_there_is_a_conflict_and_writes_nothing) {
  tl_buf_clear(&out);
  tl_json_member extra[] = {{"timestamp", tl_str_from("\"t\"")}};
  tl_json_serde_options o = {false, 0, extra, 1, 0};
  char error[64] = "";
  CHECK(tl_json_serde(&out, tl_str_from("{\"timestamp\": 1}"), &o, NULL, error,
                      sizeof error) == TL_JSON_SERDE_KEY_CONFLICT);
  CHECK_STR_EQ(error, "timestamp");
  CHECK(out.len == 0);
  CHECK(tl_json_serde(&out, tl_str_from("[1]"), &o, NULL, NULL, 0) ==
        TL_JSON_SERDE_NOT_OBJECT);
}

TEST(not_json_leaves_the_output_alone) {
  CHECK(serde("{\"a\": Infinity}", false) == TL_JSON_SERDE_NOT_JSON);
  CHECK(serde("{\"a\": 1} {\"b\": 2}", false) == TL_JSON_SERDE_NOT_JSON);
  CHECK(serde("", false) == TL_JSON_SERDE_NOT_JSON);
  CHECK(out.len == 0);
}

TEST(an_empty_text_without_bytes_is_not_json) {
  tl_buf_clear(&out);
  char error[64] = "";
  tl_json_serde_options o = {0};
  o.pretty = true;
  CHECK(tl_json_serde(&out, (tl_str){NULL, 0}, &o, NULL, error, sizeof error) ==
        TL_JSON_SERDE_NOT_JSON);
  CHECK(out.len == 0);
  CHECK_STR_EQ(error, "parse error: premature EOF");
}

TEST(invalid_utf8_is_replaced_and_counted) {
  tl_buf_clear(&out);
  size_t repaired = 0;
  CHECK(tl_json_serde(&out,
                      tl_str_from("[\"a\xff"
                                  "b\"]"),
                      NULL, &repaired, NULL, 0) == TL_JSON_SERDE_OK);
  CHECK_STR_EQ(out.data, "[\"a\xef\xbf\xbd"
                         "b\"]");
  CHECK(repaired == 1);
}

/* Small objects are ordered without an allocation and large ones with
 * qsort: both give the keys' byte order, the last of a repeated key, at
 * any depth (the writer's stack grows past its first room of 8). */
TEST(objects_small_and_large_sort_the_same_at_any_depth) {
  for (int members = 1; members <= 40; members++) {
    tl_buf text, want;
    tl_buf_init(&text);
    tl_buf_init(&want);
    /* Keys k00.. written last first, k00 twice (first 7, then 8). */
    tl_buf_puts(&text, "{\"k00\": 7");
    for (int k = members - 1; k >= 0; k--)
      tl_buf_printf(&text, ", \"k%02d\": %d", k, k == 0 ? 8 : k);
    tl_buf_puts(&text, "}");
    tl_buf_puts(&want, "{");
    for (int k = 0; k < members; k++)
      tl_buf_printf(&want, "%s\"k%02d\":%d", k ? "," : "", k, k == 0 ? 8 : k);
    tl_buf_puts(&want, "}");
    CHECK(serde(text.data, false) == TL_JSON_SERDE_OK);
    CHECK_STR_EQ(out.data, want.data);
    tl_buf_free(&text);
    tl_buf_free(&want);
  }
  tl_buf text, want;
  tl_buf_init(&text);
  tl_buf_init(&want);
  for (int level = 0; level < 30; level++)
    tl_buf_puts(&text, "{\"z\": 1, \"a\": ");
  tl_buf_puts(&text, "[]");
  for (int level = 0; level < 30; level++) {
    tl_buf_puts(&text, "}");
    tl_buf_puts(&want, "{\"a\":");
  }
  tl_buf_puts(&want, "[]");
  for (int level = 0; level < 30; level++)
    tl_buf_puts(&want, ",\"z\":1}");
  CHECK(serde(text.data, false) == TL_JSON_SERDE_OK);
  CHECK_STR_EQ(out.data, want.data);
  tl_buf_free(&text);
  tl_buf_free(&want);
}

/* A lone surrogate escape becomes U+FFFD, counted; an escaped backslash
 * before "ud800" is a backslash and text, and a text without "\u" is
 * written as it is. */
TEST(lone_surrogates_become_fffd_and_escaped_backslashes_stay) {
  size_t repaired = 9;
  tl_buf_clear(&out);
  CHECK(tl_json_serde(&out, tl_str_from("{\"a\": \"x\\ud800y\"}"), NULL,
                      &repaired, NULL, 0) == TL_JSON_SERDE_OK);
  CHECK_STR_EQ(out.data, "{\"a\":\"x\xef\xbf\xbdy\"}");
  CHECK(repaired == 1);
  tl_buf_clear(&out);
  CHECK(tl_json_serde(&out, tl_str_from("{\"a\": \"\\\\ud800\\n\"}"), NULL,
                      &repaired, NULL, 0) == TL_JSON_SERDE_OK);
  CHECK_STR_EQ(out.data, "{\"a\":\"\\\\ud800\\n\"}");
  CHECK(repaired == 0);
  tl_buf_clear(&out);
  CHECK(tl_json_serde(&out, tl_str_from("{\"b\": \"tab\\tend\\\\\"}"), NULL,
                      &repaired, NULL, 0) == TL_JSON_SERDE_OK);
  CHECK_STR_EQ(out.data, "{\"b\":\"tab\\tend\\\\\"}");
  CHECK(repaired == 0);
}

/* Nested n levels: "[[...]]". */
static void nested(tl_buf *b, int n) {
  tl_buf_clear(b);
  for (int i = 0; i < n; i++)
    tl_buf_putc(b, '[');
  for (int i = 0; i < n; i++)
    tl_buf_putc(b, ']');
}

TEST(nesting_stops_where_serde_json_stops) {
  /* serde_json refuses the 128th level (tlparse 0.4.3 then writes the
   * artifact as it was): 127 levels are JSON, 128 and a million are not,
   * and the million are refused without recursion. */
  tl_buf deep;
  tl_buf_init(&deep);
  nested(&deep, 127);
  tl_buf_clear(&out);
  CHECK(tl_json_serde(&out, tl_buf_str(&deep), NULL, NULL, NULL, 0) ==
        TL_JSON_SERDE_OK);
  CHECK(out.len == deep.len && memcmp(out.data, deep.data, deep.len) == 0);
  char error[64];
  int levels[] = {128, 1000000};
  for (int i = 0; i < 2; i++) {
    nested(&deep, levels[i]);
    tl_buf_clear(&out);
    CHECK(tl_json_serde(&out, tl_buf_str(&deep), NULL, NULL, error,
                        sizeof error) == TL_JSON_SERDE_NOT_JSON);
    CHECK_STR_EQ(error, "recursion limit exceeded");
    CHECK_INT_EQ(out.len, 0);
  }
  tl_buf_free(&deep);
}

/* The escaping rule one byte at a time, as serde_json writes it. */
static void escape_reference(tl_buf *b, const unsigned char *s, size_t n) {
  tl_buf_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = s[i];
    const char *short_form = c == '"'    ? "\\\""
                             : c == '\\' ? "\\\\"
                             : c == '\b' ? "\\b"
                             : c == '\f' ? "\\f"
                             : c == '\n' ? "\\n"
                             : c == '\r' ? "\\r"
                             : c == '\t' ? "\\t"
                                         : NULL;
    if (short_form)
      tl_buf_puts(b, short_form);
    else if (c < 0x20)
      tl_buf_printf(b, "\\u%04x", c);
    else
      tl_buf_putc(b, (char)c);
  }
  tl_buf_putc(b, '"');
}

/* Every byte value at every position of strings of 1 to 24 bytes (the
 * eight-byte scan's edges): the same text as the byte-at-a-time rule. */
/* The layout's bytes are counted exactly (texts without repeated keys):
 * at a limit of exactly them the text is pretty, one byte less compact. */
TEST(layout_limit_is_the_bytes_the_pretty_layout_adds) {
  static const char *const texts[] = {
      "[1, [2, [3, [4]]], {\"a\": {\"b\": [true, null]}}, [], {}]",
      "{\"k\": [[[[[[[[[[\"deep\"]]]]]]]]]], \"z\": 1.5}",
      ("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]]]]]"
       "]]]]]]]]]]]]]]]]]]]]"),
      "7"};
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
    for (int depth = 0; depth < 3; depth++) {
      tl_buf pretty, compact;
      tl_buf_init(&pretty);
      tl_buf_init(&compact);
      tl_json_serde_options p = {true, depth, NULL, 0, 0};
      tl_json_serde_options c = {false, depth, NULL, 0, 0};
      CHECK(tl_json_serde(&pretty, tl_str_from(texts[i]), &p, NULL, NULL, 0) ==
            TL_JSON_SERDE_OK);
      CHECK(tl_json_serde(&compact, tl_str_from(texts[i]), &c, NULL, NULL, 0) ==
            TL_JSON_SERDE_OK);
      size_t layout = pretty.len - compact.len;
      tl_buf limited;
      tl_buf_init(&limited);
      p.layout_limit = layout;
      CHECK(layout == 0 || tl_json_serde(&limited, tl_str_from(texts[i]), &p,
                                         NULL, NULL, 0) == TL_JSON_SERDE_OK);
      CHECK(layout == 0 || strcmp(limited.data, pretty.data) == 0);
      tl_buf_clear(&limited);
      p.layout_limit = layout - 1;
      CHECK(layout <= 1 ||
            tl_json_serde(&limited, tl_str_from(texts[i]), &p, NULL, NULL, 0) ==
                TL_JSON_SERDE_OK_COMPACT);
      CHECK(layout <= 1 || strcmp(limited.data, compact.data) == 0);
      tl_buf_free(&limited);
      tl_buf_free(&pretty);
      tl_buf_free(&compact);
    }
  }
}

TEST(every_byte_at_every_position_is_escaped_as_one_at_a_time) {
  tl_buf got, want;
  tl_buf_init(&got);
  tl_buf_init(&want);
  unsigned char text[24];
  int differ = 0;
  for (size_t n = 1; n <= sizeof text; n++)
    for (size_t at = 0; at < n; at++)
      for (int c = 0; c < 256; c++) {
        memset(text, 'a', n);
        text[at] = (unsigned char)c;
        tl_buf_clear(&got);
        tl_buf_clear(&want);
        tl_json_serde_string(&got, (tl_str){(const char *)text, n});
        escape_reference(&want, text, n);
        differ += got.len != want.len || memcmp(got.data, want.data, got.len);
      }
  CHECK_INT_EQ(differ, 0);
  tl_buf_free(&got);
  tl_buf_free(&want);
}

/* A byte of 0x80 or more at every position of an ASCII text: the valid
 * prefix stops there when it starts no valid sequence, and a valid
 * two-byte sequence is passed over. */
TEST(utf8_valid_prefix_stops_at_the_first_invalid_byte_anywhere) {
  char text[40];
  int wrong = 0;
  for (size_t n = 1; n <= 32; n++)
    for (size_t at = 0; at < n; at++) {
      memset(text, 'x', n);
      text[at] = (char)0xFF;
      wrong += tl_utf8_valid_prefix((tl_str){text, n}) != at;
      if (at + 1 < n) {
        text[at] = (char)0xC3;
        text[at + 1] = (char)0xA9; /* U+00E9 */
        wrong += tl_utf8_valid_prefix((tl_str){text, n}) != n;
      }
    }
  CHECK_INT_EQ(wrong, 0);
}

/* A thread's next tree reuses the buffers of its last (json_serde.c's
 * spare): nothing of an earlier text, a larger one or one that failed
 * reaches the next output. */
TEST(each_text_is_written_alone_whatever_came_before_it) {
  const char *escaped = "{\"\\u00e9\": [\"x\\ty\", 1.50, {\"k\": null}]}";
  CHECK(serde(escaped, false) == TL_JSON_SERDE_OK);
  CHECK_STR_EQ(out.data, "{\"\xc3\xa9\":[\"x\\ty\",1.5,{\"k\":null}]}");
  tl_buf large;
  tl_buf_init(&large);
  tl_buf_putc(&large, '[');
  for (int i = 0; i < 3000; i++)
    tl_buf_printf(&large, "%s{\"s\\u0041%d\": \"v\\n%d\"}", i ? ", " : "", i,
                  i);
  tl_buf_putc(&large, ']');
  CHECK(serde(large.data, false) == TL_JSON_SERDE_OK);
  CHECK(strncmp(out.data, "[{\"sA0\":\"v\\n0\"},{\"sA1\":\"v\\n1\"},", 30) ==
        0);
  CHECK(serde("[1, {\"a\": \"\\u00e8", true) == TL_JSON_SERDE_NOT_JSON);
  CHECK(serde("{\"b\": \"\\u00e8\"}", false) == TL_JSON_SERDE_OK);
  CHECK_STR_EQ(out.data, "{\"b\":\"\xc3\xa8\"}");
  CHECK(serde(escaped, false) == TL_JSON_SERDE_OK);
  CHECK_STR_EQ(out.data, "{\"\xc3\xa9\":[\"x\\ty\",1.5,{\"k\":null}]}");
  tl_buf_free(&large);
}

/* Events with keys around "pid" in every combination (before, equal,
 * after, prefixes of it), nested values over several lines, pid values of
 * every kind: written pretty at depth 1 as chromium_events.json holds them,
 * the text patch gives the bytes of the general re-serialisation. */
TEST(pid_patch_of_a_pretty_event_equals_its_reserialisation) {
  static const char *const keys[] = {"a",    "p",   "pi", "pic", "pid",
                                     "pida", "pie", "z",  "ph",  "args"};
  static const char *const values[] = {
      "1",    "\"x\\ny\"", "{\"k\": [1, {\"pid\": 2}]}", "[]", "{}",
      "null", "3.5e3"};
  enum { KEYS = sizeof keys / sizeof *keys, VALUES = 7 };
  tl_buf event, pretty, fast, slow;
  tl_buf_init(&event);
  tl_buf_init(&pretty);
  tl_buf_init(&fast);
  tl_buf_init(&slow);
  int compared = 0, differ = 0;
  for (unsigned mask = 1; mask < 1u << KEYS; mask++) {
    tl_buf_clear(&event);
    tl_buf_putc(&event, '{');
    int n = 0;
    for (int k = 0; k < KEYS; k++)
      if (mask >> k & 1)
        tl_buf_printf(&event, "%s\"%s\": %s", n++ ? ", " : "", keys[k],
                      values[(mask + (unsigned)k) % VALUES]);
    tl_buf_putc(&event, '}');
    tl_buf_clear(&pretty);
    tl_json_serde_options o = {true, 1, NULL, 0, 0};
    CHECK(tl_json_serde(&pretty, tl_buf_str(&event), &o, NULL, NULL, 0) ==
          TL_JSON_SERDE_OK);
    tl_buf_clear(&fast);
    tl_buf_clear(&slow);
    unsigned rank = mask % 13;
    CHECK(tl_chromium_event_with_pid(&slow, pretty.data, 0, pretty.len, rank));
    if (!tl_chromium_event_with_pid_pretty(&fast, pretty.data, pretty.len,
                                           rank))
      continue;
    compared++;
    if (fast.len != slow.len || memcmp(fast.data, slow.data, fast.len)) {
      if (differ++ < 3)
        printf("  %s\n  fast %s\n  slow %s\n", event.data, fast.data,
               slow.data);
    }
  }
  CHECK_INT_EQ(differ, 0);
  CHECK_INT_EQ(compared, (1 << KEYS) - 1);
  /* Not such an object: the general way. */
  tl_buf_clear(&fast);
  CHECK(!tl_chromium_event_with_pid_pretty(&fast, "{}", 2, 1));
  CHECK(!tl_chromium_event_with_pid_pretty(&fast, "[\n    1\n  ]", 11, 1));
  tl_buf_free(&event);
  tl_buf_free(&pretty);
  tl_buf_free(&fast);
  tl_buf_free(&slow);
}

int main(void) {
  tl_buf_init(&out);
  RUN(pretty_output_sorts_keys_and_keeps_the_last_of_a_repeated_key);
  RUN(strings_escape_only_quote_backslash_and_control_characters);
  RUN(strings_without_escapes_are_written_as_read);
  RUN(compact_output_with_extra_members_sorted_in);
  RUN(an_extra_key_already_there_is_a_conflict_and_writes_nothing);
  RUN(not_json_leaves_the_output_alone);
  RUN(an_empty_text_without_bytes_is_not_json);
  RUN(invalid_utf8_is_replaced_and_counted);
  RUN(objects_small_and_large_sort_the_same_at_any_depth);
  RUN(lone_surrogates_become_fffd_and_escaped_backslashes_stay);
  RUN(nesting_stops_where_serde_json_stops);
  RUN(layout_limit_is_the_bytes_the_pretty_layout_adds);
  RUN(every_byte_at_every_position_is_escaped_as_one_at_a_time);
  RUN(utf8_valid_prefix_stops_at_the_first_invalid_byte_anywhere);
  RUN(pid_patch_of_a_pretty_event_equals_its_reserialisation);
  RUN(each_text_is_written_alone_whatever_came_before_it);
  tl_buf_free(&out);
  return check_summary();
}
