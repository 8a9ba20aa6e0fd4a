/* json_members.c: a JSON object's members one at a time (json_members.h).
 *
 * The walk follows cJSON 1.7's parse_object step by step: a UTF-8 byte order
 * mark only at the very start, "whitespace" any byte up to 32, '{', then
 * either '}' or members `"key" : value` separated by ',', then '}'. Keys and
 * values are parsed by cJSON_ParseWithLengthOpts at the byte where
 * parse_object would parse them, which gives where each ends. Two things
 * differ in a parse started there, and are checked: it would skip a byte
 * order mark (parse_object fails on one), and it counts nesting from the
 * value instead of from the object around it (one level fewer). */
#include "json/json_members.h"

#include <string.h>

static size_t skip_whitespace(tl_str t, size_t i) {
  while (i < t.len && (unsigned char)t.ptr[i] <= 32)
    i++;
  return i;
}

static bool is_bom(tl_str t, size_t i) {
  return t.len - i >= 3 && memcmp(t.ptr + i, "\xEF\xBB\xBF", 3) == 0;
}

/* Containers on the deepest path of `j` (0 for a scalar). */
static int nesting(const cJSON *j, int limit) {
  if (!cJSON_IsArray(j) && !cJSON_IsObject(j))
    return 0;
  int deepest = 0;
  for (const cJSON *c = j->child; c && deepest < limit; c = c->next) {
    int d = nesting(c, limit - 1);
    if (d > deepest)
      deepest = d;
  }
  return deepest + 1;
}

/* The value (or key) at text[i], its end in *end; NULL when cJSON would
 * not parse it there. */
static cJSON *parse_at(tl_str t, size_t i, size_t *end) {
  if (i >= t.len || is_bom(t, i))
    return NULL;
  const char *stop = NULL;
  cJSON *j = cJSON_ParseWithLengthOpts(t.ptr + i, t.len - i, &stop, false);
  if (j)
    *end = (size_t)(stop - t.ptr);
  return j;
}

tl_json_members_status
tl_json_members(tl_str text,
                void (*member)(void *ctx, const char *key, tl_str value_text,
                               const cJSON *value),
                void *ctx) {
  if (!text.ptr || text.len == 0)
    return TL_JSON_MEMBERS_NOT_OBJECT;
  size_t i = skip_whitespace(text, is_bom(text, 0) ? 3 : 0);
  if (i >= text.len || text.ptr[i] != '{')
    return TL_JSON_MEMBERS_NOT_OBJECT;
  i = skip_whitespace(text, i + 1);
  if (i < text.len && text.ptr[i] == '}')
    return TL_JSON_MEMBERS_OBJECT;
  for (;;) {
    if (i >= text.len || text.ptr[i] != '"')
      return TL_JSON_MEMBERS_INVALID;
    size_t end;
    cJSON *key = parse_at(text, i, &end);
    if (!key)
      return TL_JSON_MEMBERS_INVALID;
    i = skip_whitespace(text, end);
    if (i >= text.len || text.ptr[i] != ':') {
      cJSON_Delete(key);
      return TL_JSON_MEMBERS_INVALID;
    }
    i = skip_whitespace(text, i + 1);
    cJSON *value = parse_at(text, i, &end);
    /* Inside the object a value may nest one level fewer. */
    if (!value || nesting(value, CJSON_NESTING_LIMIT) >= CJSON_NESTING_LIMIT) {
      cJSON_Delete(key);
      cJSON_Delete(value);
      return TL_JSON_MEMBERS_INVALID;
    }
    member(ctx, key->valuestring, (tl_str){text.ptr + i, end - i}, value);
    cJSON_Delete(key);
    cJSON_Delete(value);
    i = skip_whitespace(text, end);
    if (i < text.len && text.ptr[i] == ',') {
      i = skip_whitespace(text, i + 1);
      continue;
    }
    break;
  }
  return i < text.len && text.ptr[i] == '}' ? TL_JSON_MEMBERS_OBJECT
                                            : TL_JSON_MEMBERS_INVALID;
}
