/* json_build.c: building and reading cJSON members (json_build.h). */
#include "json/json_build.h"

#include <stdlib.h>
#include <string.h>

cJSON *tl_json_str(tl_str s) {
  char *copy = tl_xmalloc(s.len + 1);
  if (s.len) /* an empty slice may have no pointer */
    memcpy(copy, s.ptr, s.len);
  copy[s.len] = '\0';
  cJSON *j = cJSON_CreateString(copy);
  free(copy);
  return j;
}

void tl_json_add_str(cJSON *o, const char *key, tl_str s) {
  cJSON_AddItemToObject(o, key, tl_json_str(s));
}

const char *tl_json_get_str(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : "";
}

double tl_json_get_num(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : 0;
}
