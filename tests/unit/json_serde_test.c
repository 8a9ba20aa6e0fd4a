/* json_serde_test.c: JSON re-written as the Rust tlparse writes it. Each
 * expected text was printed by the Rust tool 0.4.3 for the same input (an
 * `artifact` with `encoding: json` gives the pretty form, raw.jsonl the
 * compact one). */
#include "check.h"
#include "json_serde.h"

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

TEST(compact_output_with_extra_members_sorted_in) {
  tl_buf_clear(&out);
  tl_json_member extra[] = {{"lineno", tl_str_from("12")},
                            {"thread", tl_str_from("12")}};
  tl_json_serde_options o = {false, 0, extra, 2};
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
  tl_json_serde_options o = {false, 0, extra, 1};
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

int main(void) {
  tl_buf_init(&out);
  RUN(pretty_output_sorts_keys_and_keeps_the_last_of_a_repeated_key);
  RUN(strings_escape_only_quote_backslash_and_control_characters);
  RUN(compact_output_with_extra_members_sorted_in);
  RUN(an_extra_key_already_there_is_a_conflict_and_writes_nothing);
  RUN(not_json_leaves_the_output_alone);
  RUN(invalid_utf8_is_replaced_and_counted);
  RUN(nesting_stops_where_serde_json_stops);
  tl_buf_free(&out);
  return check_summary();
}
