/* json_members_test.c: an object read member by member (json_members.h)
 * agrees with cJSON_ParseWithLength of the whole text, which is the oracle:
 * the same texts are objects, with the same members in the same order, and
 * each member's value text parses to the same value. Hand-made edge cases
 * (byte order marks, nesting at cJSON's limit, trailing bytes, control bytes
 * as whitespace) and thousands of deterministic mutations of them. */
#include "check.h"
#include "json/json_members.h"

#include <stdint.h>

typedef struct seen {
  tl_buf keys; /* "key=value\n" per member, values printed compact */
  bool texts_agree;
} seen;

static void note(void *ctx, const char *key, tl_str value_text,
                 const cJSON *value) {
  seen *s = ctx;
  char *printed = cJSON_PrintUnformatted(value);
  cJSON *again = cJSON_ParseWithLength(value_text.ptr, value_text.len);
  char *printed_again = again ? cJSON_PrintUnformatted(again) : NULL;
  if (!printed_again || strcmp(printed, printed_again) != 0)
    s->texts_agree = false;
  tl_buf_printf(&s->keys, "%s=%s\n", key, printed);
  free(printed);
  free(printed_again);
  cJSON_Delete(again);
}

/* 1 when the member walk agrees with cJSON on `text`, else 0 (and says how). */
static int agrees(tl_str text) {
  seen s = {{0}, true};
  tl_buf_init(&s.keys);
  tl_json_members_status st = tl_json_members(text, note, &s);
  cJSON *whole = cJSON_ParseWithLength(text.ptr, text.len);
  bool ok;
  if (cJSON_IsObject(whole)) {
    tl_buf expected;
    tl_buf_init(&expected);
    const cJSON *m;
    cJSON_ArrayForEach(m, whole) {
      char *printed = cJSON_PrintUnformatted(m);
      tl_buf_printf(&expected, "%s=%s\n", m->string, printed);
      free(printed);
    }
    ok = st == TL_JSON_MEMBERS_OBJECT && s.texts_agree &&
         strcmp(expected.data, s.keys.data) == 0;
    tl_buf_free(&expected);
  } else {
    ok =
        whole ? st == TL_JSON_MEMBERS_NOT_OBJECT : st != TL_JSON_MEMBERS_OBJECT;
  }
  if (!ok)
    printf("  disagree (status %d, cJSON %s) on %.120s\n", (int)st,
           whole ? "parsed" : "failed", text.ptr ? text.ptr : "(null)");
  cJSON_Delete(whole);
  tl_buf_free(&s.keys);
  return ok;
}

static char *nested(const char *before, int depth, const char *after) {
  tl_buf b;
  tl_buf_init(&b);
  tl_buf_puts(&b, before);
  for (int i = 0; i < depth; i++)
    tl_buf_putc(&b, '[');
  for (int i = 0; i < depth; i++)
    tl_buf_putc(&b, ']');
  tl_buf_puts(&b, after);
  return tl_buf_detach(&b);
}

static const char *const CASES[] = {
    "{\"preToPost\": {\"a\": [\"b\"]}, \"version\": 2.0}",
    "\xEF\xBB\xBF {\"a\": 1}",
    "{\"a\": \xEF\xBB\xBF 1}",
    "{\xEF\xBB\xBF\"a\": 1}",
    "{\"a\": 1} trailing bytes",
    "\x01\x02 {\x1f\"a\"\x0b:\x7f 1}",
    "{\"a\": 1 \x7f}",
    "{}",
    "{ \n\t}",
    "{",
    "{\"a\"",
    "{\"a\":",
    "{\"a\": 1,}",
    "{\"a\": 1 \"b\": 2}",
    "{a: 1}",
    "{\"a\" 1}",
    "[1, 2]",
    "\"text\"",
    "",
    " ",
    "null",
    "{\"a\": 1, \"a\": 2, \"\": {}, \"k\\u0000x\": [], \"\\u00e9\": "
    "\"\\ud83d\\ude00\"}",
    "{\"bad\": \"\\ud83d\"}",
    "{\"n\": -0.0e+1, \"m\": +1}",
    "{\"n\": 1.5.2}",
    "{\"n\": 01}",
    "{\"t\": true, \"f\": false, \"z\": nul}",
    "{\"s\": \"tab\there\"}",
    "{\"s\": \"a\\qb\"}",
    "{\"nested\": {\"x\": {\"y\": [1, {\"z\": []}]}}} ",
};

TEST(hand_made_objects_read_as_cjson_reads_them_whole) {
  int ok = 0, total = 0;
  for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++, total++)
    ok += agrees(tl_str_from(CASES[i]));
  /* cJSON's nesting limit, counted from the object around a member. */
  for (int depth = CJSON_NESTING_LIMIT - 3; depth <= CJSON_NESTING_LIMIT + 1;
       depth++) {
    char *a = nested("{\"a\": ", depth, "}");
    char *b = nested("{\"x\": 1, \"a\": {\"b\": ", depth - 1, "}}");
    ok += agrees(tl_str_from(a)) + agrees(tl_str_from(b));
    total += 2;
    free(a);
    free(b);
  }
  CHECK_INT_EQ(ok, total);
  /* Both sides of the limit were reached: the last valid and first invalid. */
  char *last = nested("{\"a\": ", CJSON_NESTING_LIMIT - 1, "}");
  char *first = nested("{\"a\": ", CJSON_NESTING_LIMIT, "}");
  seen s = {{0}, true};
  tl_buf_init(&s.keys);
  CHECK_INT_EQ(tl_json_members(tl_str_from(last), note, &s),
               TL_JSON_MEMBERS_OBJECT);
  CHECK_INT_EQ(tl_json_members(tl_str_from(first), note, &s),
               TL_JSON_MEMBERS_INVALID);
  tl_buf_free(&s.keys);
  free(last);
  free(first);
}

static uint64_t seed = 0x9E3779B97F4A7C15ull;
static unsigned next_random(unsigned below) {
  return (unsigned)(check_random(&seed) % below);
}

TEST(mutated_objects_read_as_cjson_reads_them_whole) {
  static const char bytes[] = "{}[]\":, \t\n\\u0123e.-+9aZ\x01\xEF\xBB\xBF";
  int ok = 0, total = 0;
  char text[512];
  for (int round = 0; round < 6000; round++) {
    const char *base =
        CASES[round % 3 == 0 ? 0 : next_random(sizeof CASES / sizeof *CASES)];
    size_t len = strlen(base);
    memcpy(text, base, len);
    for (unsigned edits = 1 + next_random(3); edits > 0; edits--) {
      unsigned at = len ? next_random((unsigned)len) : 0;
      char c = bytes[next_random(sizeof bytes - 1)];
      switch (next_random(3)) {
      case 0: /* replace */
        if (len)
          text[at] = c;
        break;
      case 1: /* insert */
        if (len + 1 < sizeof text) {
          memmove(text + at + 1, text + at, len - at);
          text[at] = c;
          len++;
        }
        break;
      default: /* delete */
        if (len) {
          memmove(text + at, text + at + 1, len - at - 1);
          len--;
        }
      }
    }
    text[len] = '\0';
    ok += agrees((tl_str){text, len});
    total++;
  }
  CHECK_INT_EQ(ok, total);
}

int main(void) {
  RUN(hand_made_objects_read_as_cjson_reads_them_whole);
  RUN(mutated_objects_read_as_cjson_reads_them_whole);
  return check_summary();
}
