/* compile_id.c: reading compile ids from envelopes and naming them. */
#include "read/compile_id.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Returns false for a present field that is neither null nor an integer
 * from 0 to 2^32-1 (the Rust tool reads the ids as u32). */
static bool read_id(const cJSON *envelope, const char *key, bool *has,
                    int64_t *value) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(envelope, key);
  *has = false;
  *value = 0;
  if (!item || cJSON_IsNull(item))
    return true;
  if (!cJSON_IsNumber(item))
    return false;
  double v = item->valuedouble;
  if (v != floor(v) || v < 0 || v > 4294967295.0)
    return false;
  *has = true;
  *value = (int64_t)v;
  return true;
}

bool tl_compile_id_from_envelope(const cJSON *envelope, tl_compile_id *out) {
  memset(out, 0, sizeof *out);
  bool ok = read_id(envelope, "compiled_autograd_id", &out->has_autograd,
                    &out->autograd);
  ok &= read_id(envelope, "frame_id", &out->has_frame, &out->frame);
  ok &= read_id(envelope, "frame_compile_id", &out->has_frame_compile,
                &out->frame_compile);
  ok &= read_id(envelope, "attempt", &out->has_attempt, &out->attempt);
  return ok;
}

bool tl_compile_id_is_empty(const tl_compile_id *id) {
  return !id->has_autograd && !id->has_frame && !id->has_frame_compile &&
         !id->has_attempt;
}

bool tl_compile_id_eq(const tl_compile_id *a, const tl_compile_id *b) {
  return a->has_autograd == b->has_autograd && a->has_frame == b->has_frame &&
         a->has_frame_compile == b->has_frame_compile &&
         a->has_attempt == b->has_attempt &&
         (!a->has_autograd || a->autograd == b->autograd) &&
         (!a->has_frame || a->frame == b->frame) &&
         (!a->has_frame_compile || a->frame_compile == b->frame_compile) &&
         (!a->has_attempt || a->attempt == b->attempt);
}

static void put_id(char *out, size_t size, bool has, int64_t value) {
  if (has)
    snprintf(out, size, "%" PRId64, value);
  else
    snprintf(out, size, "-");
}

void tl_compile_id_dir_name(const tl_compile_id *id, char *out, size_t size) {
  char a[24], f[24], c[24], t[24];
  put_id(a, sizeof a, id->has_autograd, id->autograd);
  put_id(f, sizeof f, id->has_frame, id->frame);
  put_id(c, sizeof c, id->has_frame_compile, id->frame_compile);
  put_id(t, sizeof t, id->has_attempt, id->attempt);
  snprintf(out, size, "%s_%s_%s_%s", a, f, c, t);
}

void tl_compile_id_display(const tl_compile_id *id, char *out, size_t size) {
  char f[24], c[24], prefix[32] = "", suffix[32] = "";
  put_id(f, sizeof f, id->has_frame, id->frame);
  put_id(c, sizeof c, id->has_frame_compile, id->frame_compile);
  if (id->has_autograd)
    snprintf(prefix, sizeof prefix, "!%" PRId64 "/", id->autograd);
  if (id->has_attempt && id->attempt != 0)
    snprintf(suffix, sizeof suffix, "_%" PRId64, id->attempt);
  snprintf(out, size, "[%s%s/%s%s]", prefix, f, c, suffix);
}
