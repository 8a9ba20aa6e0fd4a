/* json_print_test.c: cJSON_Print's layout written one member at a time
 * (json_print.h). cJSON itself is the oracle: every tree, streamed in any
 * split of containers and whole members, must print as cJSON_Print prints
 * it, and its compact form as cJSON_PrintUnformatted does. */
#include "check.h"
#include "json/json_print.h"

#include <math.h>
#include <stdint.h>

static uint64_t seed = 88172645463325252ull;
static unsigned next_random(unsigned below) {
  return (unsigned)(check_random(&seed) % below);
}

/* Strings with every byte the layout could be confused by: spaces, tabs,
 * newlines, quotes, backslashes, the control characters (named and not),
 * DEL, UTF-8, U+2028, an invalid byte, and the layout's own ", " and
 * ":\t". */
static const char *const PIECES[] = {
    "",       " ",        "\t",           "\n",   "\"",  "\\",
    "\\\"",   "\x01",     "x y",          ", ",   ":\t", "{\n}",
    "[1, 2]", "\xc3\xa9", "\xe2\x80\xa8", "\xff", "/",   "line 12",
    "\b\f\r", "\x1f",     "\x7f"};
static char *random_string(void) {
  static char s[128];
  s[0] = '\0';
  for (unsigned n = next_random(4); n > 0; n--)
    strcat(s, PIECES[next_random(sizeof PIECES / sizeof *PIECES)]);
  return s;
}

static cJSON *random_tree(int depth) {
  unsigned kind = next_random(depth > 4 ? 6 : 9);
  switch (kind) {
  case 0:
    return cJSON_CreateNull();
  case 1:
    return cJSON_CreateBool(next_random(2));
  case 2: {
    static const double numbers[] = {0,
                                     1,
                                     -7,
                                     40006,
                                     1e20,
                                     0.125,
                                     0.1,
                                     -2.5e-9,
                                     1099511627776.0,
                                     2147483647.0,
                                     -2147483648.0,
                                     -0.0,
                                     999999999999999.0,
                                     -999999999999999.0,
                                     1e15,
                                     -1e15,
                                     4503599627370496.0,
                                     1e300,
                                     NAN,
                                     INFINITY};
    return cJSON_CreateNumber(
        numbers[next_random(sizeof numbers / sizeof *numbers)]);
  }
  case 3:
  case 4:
  case 5:
    return cJSON_CreateString(random_string());
  case 6:
  case 7: {
    cJSON *o = cJSON_CreateObject();
    for (unsigned n = next_random(5); n > 0; n--)
      cJSON_AddItemToObject(o, random_string(), random_tree(depth + 1));
    return o;
  }
  default: {
    cJSON *a = cJSON_CreateArray();
    for (unsigned n = next_random(5); n > 0; n--)
      cJSON_AddItemToArray(a, random_tree(depth + 1));
    return a;
  }
  }
}

/* Streams `tree` as the member `key`: each container opened and closed
 * around its members, or given whole, by chance. */
static void stream(tl_json_printer *p, const char *key, const cJSON *tree) {
  bool container = cJSON_IsObject(tree) || cJSON_IsArray(tree);
  if (!container || next_random(3) == 0) {
    tl_json_print_item(p, key, cJSON_Duplicate(tree, true));
    return;
  }
  tl_json_print_open(p, key, cJSON_IsArray(tree));
  const cJSON *member;
  cJSON_ArrayForEach(member, tree) {
    stream(p, cJSON_IsObject(tree) ? member->string : NULL, member);
  }
  tl_json_print_close(p);
}

TEST(a_document_streamed_member_by_member_is_laid_out_as_cjson_print) {
  tl_buf out;
  tl_buf_init(&out);
  tl_json_printer p;
  tl_json_printer_init(&p, &out);
  tl_json_print_open(&p, NULL, false);
  tl_json_print_item(&p, "a", cJSON_CreateNumber(1));
  tl_json_print_open(&p, "b", true);
  cJSON *c = cJSON_CreateObject();
  cJSON_AddStringToObject(c, "c", "x y");
  tl_json_print_item(&p, NULL, c);
  tl_json_print_item(&p, NULL, cJSON_CreateArray());
  tl_json_print_open(&p, NULL, false);
  tl_json_print_close(&p);
  tl_json_print_close(&p);
  tl_json_print_open(&p, "d", false);
  tl_json_print_close(&p);
  tl_json_print_close(&p);
  /* As cJSON 1.7 prints {"a":1,"b":[{"c":"x y"},[],{}],"d":{}}. */
  CHECK_STR_EQ(out.data, "{\n\t\"a\":\t1,\n\t\"b\":\t[{\n\t\t\t\"c\":\t\"x "
                         "y\"\n\t\t}, [], {\n\t\t}],\n\t\"d\":\t{\n\t}\n}");
  cJSON *tree = cJSON_Parse(out.data);
  char *expected = cJSON_Print(tree);
  CHECK_STR_EQ(out.data, expected);
  free(expected);
  cJSON_Delete(tree);
  tl_buf_free(&out);
}

TEST(random_trees_stream_compact_and_parse_back_as_cjson_prints_them) {
  tl_buf out, compact;
  tl_buf_init(&out);
  tl_buf_init(&compact);
  int streamed_ok = 0, compact_ok = 0, in_place_ok = 0, parsed_ok = 0;
  enum { TREES = 400 };
  for (int i = 0; i < TREES; i++) {
    cJSON *tree = i % 2 ? cJSON_CreateObject() : random_tree(0);
    if (i % 2)
      for (unsigned n = next_random(8); n > 0; n--)
        cJSON_AddItemToObject(tree, random_string(), random_tree(1));
    char *formatted = cJSON_Print(tree);
    char *unformatted = cJSON_PrintUnformatted(tree);
    tl_buf_clear(&out);
    tl_json_printer p;
    tl_json_printer_init(&p, &out);
    stream(&p, NULL, tree);
    CHECK_INT_EQ(p.depth, 0);
    streamed_ok += strcmp(out.data, formatted) == 0;

    tl_buf_clear(&compact);
    tl_buf_puts(&compact, "prefix ");
    tl_json_compact(&compact, tl_str_from(formatted));
    compact_ok += strncmp(compact.data, "prefix ", 7) == 0 &&
                  strcmp(compact.data + 7, unformatted) == 0;
    tl_json_compact(&out, tl_buf_str(&out)); /* in place */
    in_place_ok +=
        strcmp(out.data, unformatted) == 0 && out.len == strlen(unformatted);

    cJSON *back = tl_json_parse_printed(tl_str_from(unformatted));
    tl_buf_clear(&out);
    tl_json_print_tree(&out, back);
    parsed_ok += strcmp(out.data, formatted) == 0;
    cJSON_Delete(back);
    free(formatted);
    free(unformatted);
    cJSON_Delete(tree);
  }
  CHECK_INT_EQ(streamed_ok, TREES);
  CHECK_INT_EQ(compact_ok, TREES);
  CHECK_INT_EQ(in_place_ok, TREES);
  CHECK_INT_EQ(parsed_ok, TREES);
  tl_buf_free(&out);
  tl_buf_free(&compact);
}

int main(void) {
  RUN(a_document_streamed_member_by_member_is_laid_out_as_cjson_print);
  RUN(random_trees_stream_compact_and_parse_back_as_cjson_prints_them);
  return check_summary();
}
