/* store_stacks.c: the stacks the store keeps, read from a trace
 * (store_stacks.h). */
#include "store/store_stacks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s) { return s ? tl_xstrdup(s) : NULL; }

static const char *frame_string(const cJSON *frame, const char *key) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(frame, key);
  return cJSON_IsString(item) ? item->valuestring : NULL;
}

void tl_frame_read(const cJSON *frame, const tl_string_table *strings,
                   tl_frame *out) {
  memset(out, 0, sizeof *out);
  const char *file = frame_string(frame, "uninterned_filename");
  const cJSON *index = cJSON_GetObjectItemCaseSensitive(frame, "filename");
  if (!file && cJSON_IsString(index))
    file = index->valuestring;
  if (!file && cJSON_IsNumber(index) && index->valuedouble >= 0 &&
      index->valuedouble < 4294967296.0 &&
      index->valuedouble == floor(index->valuedouble))
    file = tl_string_table_get(strings, (long long)index->valuedouble);
  out->file = file;
  out->name = frame_string(frame, "name");
  out->loc = frame_string(frame, "loc");
  const cJSON *line = cJSON_GetObjectItemCaseSensitive(frame, "line");
  if (cJSON_IsNumber(line) && fabs(line->valuedouble) < 9e15)
    out->line = (long long)line->valuedouble;
}

/* The Rust tool drops the convert_frame.py frames that end some stacks:
 * catch_errors, _convert_frame, _convert_frame_assert, or three __call__. */
static size_t without_convert_frame(const tl_frame *f, size_t n) {
  static const char *const SUFFIXES[][3] = {
      {"catch_errors", "_convert_frame", "_convert_frame_assert"},
      {"__call__", "__call__", "__call__"}};
  for (size_t s = 0; s < 2; s++) {
    bool match = n >= 3;
    for (size_t k = 0; match && k < 3; k++) {
      const tl_frame *x = &f[n - 3 + k];
      match = x->file && x->name &&
              strcmp(x->file, "torch/_dynamo/convert_frame.py") == 0 &&
              strcmp(x->name, SUFFIXES[s][k]) == 0;
    }
    if (match)
      n -= 3;
  }
  return n;
}

/* A trace stack's frames as the store keeps them (file names interned),
 * without the trailing convert_frame.py frames when `trim`. */
static tl_stack read_stack(tl_intern *files, const cJSON *stack,
                           const tl_string_table *strings, bool trim) {
  int n = cJSON_GetArraySize(stack);
  tl_frame *read = tl_xcalloc(n > 0 ? (size_t)n : 1, sizeof *read);
  size_t count = 0;
  const cJSON *frame;
  cJSON_ArrayForEach(frame, stack) {
    tl_frame_read(frame, strings, &read[count++]);
  }
  if (trim)
    count = without_convert_frame(read, count);
  tl_stack s = {tl_xcalloc(count ? count : 1, sizeof(tl_frame)), count};
  for (size_t i = 0; i < count; i++) {
    s.frames[i].file = tl_intern_get(files, read[i].file);
    s.frames[i].name = dup_or_null(read[i].name);
    s.frames[i].loc = dup_or_null(read[i].loc);
    s.frames[i].line = read[i].line;
  }
  free(read);
  return s;
}

void tl_store_stacks_free(tl_stack *stacks, size_t count) {
  for (size_t k = 0; k < count; k++) {
    for (size_t f = 0; f < stacks[k].count; f++) {
      free((char *)stacks[k].frames[f].name);
      free((char *)stacks[k].frames[f].loc);
    }
    free(stacks[k].frames);
  }
}

bool tl_stack_of(const cJSON *obj, const tl_string_table *strings,
                 tl_intern *files, bool trim, tl_stack *out) {
  const cJSON *stack = cJSON_GetObjectItemCaseSensitive(obj, "stack");
  if (!cJSON_IsArray(stack) || !stack->child)
    return false;
  *out = read_stack(files, stack, strings, trim);
  return true;
}
