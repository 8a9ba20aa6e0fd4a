/* blob.c: see blob.h. */
#include "util/blob.h"

#include <string.h>

void tl_blob_put_u64(tl_buf *b, uint64_t v) { tl_buf_append(b, &v, sizeof v); }

void tl_blob_put_str(tl_buf *b, tl_str s) {
  tl_blob_put_u64(b, s.ptr ? (uint64_t)s.len : UINT64_MAX);
  if (s.ptr && s.len)
    tl_buf_append(b, s.ptr, s.len);
}

tl_blob_reader tl_blob_reader_of(tl_str blob, tl_arena *arena) {
  return (tl_blob_reader){blob, 0, true, arena};
}

uint64_t tl_blob_get_u64(tl_blob_reader *r) {
  uint64_t v = 0;
  if (!r->ok || r->blob.len - r->at < sizeof v) {
    r->ok = false;
    return 0;
  }
  memcpy(&v, r->blob.ptr + r->at, sizeof v);
  r->at += sizeof v;
  return v;
}

const char *tl_blob_get_bytes(tl_blob_reader *r, uint64_t len) {
  if (!r->ok || r->blob.len - r->at < len) {
    r->ok = false;
    return NULL;
  }
  const char *p = r->blob.ptr + r->at;
  r->at += (size_t)len;
  return p;
}

tl_str tl_blob_get_str(tl_blob_reader *r) {
  uint64_t len = tl_blob_get_u64(r);
  if (!r->ok || len == UINT64_MAX)
    return (tl_str){NULL, 0};
  const char *p = tl_blob_get_bytes(r, len);
  if (!p)
    return (tl_str){NULL, 0};
  tl_str s = {p, (size_t)len};
  return r->arena ? tl_arena_str(r->arena, s) : s;
}

bool tl_blob_read_whole(const tl_blob_reader *r) {
  return r->ok && r->at == r->blob.len;
}
