/* raw_jsonl.c: raw.jsonl in the Rust tool's shape (raw_jsonl.h). */
#define _POSIX_C_SOURCE 200809L
#include "store/raw_jsonl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/utf8.h"

static const char SCRATCH_NAME[] = ".raw.jsonl.entries";

bool tl_raw_jsonl_open(tl_raw_jsonl *r, const char *out_dir, char *error,
                       size_t error_size) {
  memset(r, 0, sizeof *r);
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s", out_dir, SCRATCH_NAME);
  r->entries_path = tl_xstrdup(path.data);
  tl_buf_clear(&path);
  tl_buf_printf(&path, "%s/raw.jsonl", out_dir);
  r->path = tl_buf_detach(&path);
  /* "x": the output folder is ours and new; never open what is there. */
  r->entries = fopen(r->entries_path, "w+x");
  if (!r->entries) {
    snprintf(error, error_size, "cannot write %s: %s", r->entries_path,
             strerror(errno));
    return false;
  }
  time_t now = time(NULL);
  struct tm utc;
  r->year = gmtime_r(&now, &utc) ? utc.tm_year + 1900 : 1970;
  return true;
}

/* Digits without their leading zeros, as a u64 is printed ("0" stays). */
static tl_str without_leading_zeros(tl_str digits) {
  while (digits.len > 1 && digits.ptr[0] == '0') {
    digits.ptr++;
    digits.len--;
  }
  return digits;
}

size_t tl_raw_jsonl_members(const tl_raw_jsonl *r, const tl_glog *glog,
                            const char *payload_file, tl_buf *storage,
                            tl_json_member members[TL_RAW_JSONL_MEMBERS]) {
  tl_buf_clear(storage);
  /* Offsets first: storage may move while it grows. */
  size_t at[TL_RAW_JSONL_MEMBERS + 1];
  size_t n = 0;
  at[n++] = storage->len;
  char time_text[16];
  memcpy(time_text, glog->time, sizeof time_text);
  time_text[8] = '.';
  tl_buf_printf(storage, "\"%04d-%.2s-%.2sT%.15sZ\"", r->year, glog->month,
                glog->day, time_text);
  at[n++] = storage->len;
  tl_buf_append_str(storage, without_leading_zeros(glog->thread));
  at[n++] = storage->len;
  tl_buf valid;
  tl_buf_init(&valid);
  tl_utf8_repair(&valid, glog->pathname);
  tl_json_serde_string(storage, tl_buf_str(&valid));
  tl_buf_free(&valid);
  at[n++] = storage->len;
  tl_buf_append_str(storage, without_leading_zeros(glog->lineno));
  if (payload_file) {
    at[n++] = storage->len;
    tl_json_serde_string(storage, tl_str_from(payload_file));
  }
  at[n] = storage->len;
  static const char *const keys[] = {"timestamp", "thread", "pathname",
                                     "lineno", "payload_filename"};
  for (size_t i = 0; i < n; i++)
    members[i] = (tl_json_member){
        keys[i], (tl_str){storage->data + at[i], at[i + 1] - at[i]}};
  return n;
}

static bool write_all(FILE *out, const char *data, size_t len) {
  return fwrite(data, 1, len, out) == len;
}

bool tl_raw_jsonl_finish(tl_raw_jsonl *r, const tl_string_table *strings,
                         char *error, size_t error_size) {
  if (!r->entries)
    return true;
  FILE *out = fopen(r->path, "wx");
  if (!out) {
    snprintf(error, error_size, "cannot write %s: %s", r->path,
             strerror(errno));
    return false;
  }
  tl_buf line;
  tl_buf_init(&line);
  tl_buf_puts(&line, "{\"string_table\":[");
  size_t count = strings && strings->count ? strings->count : 1;
  for (size_t i = 0; i < count; i++) {
    if (i)
      tl_buf_putc(&line, ',');
    const char *s = strings && i < strings->count ? strings->items[i] : NULL;
    if (s) {
      tl_buf valid;
      tl_buf_init(&valid);
      tl_utf8_repair(&valid, tl_str_from(s));
      tl_json_serde_string(&line, tl_buf_str(&valid));
      tl_buf_free(&valid);
    } else {
      tl_buf_puts(&line, "null");
    }
  }
  tl_buf_puts(&line, "]}\n");
  bool ok = write_all(out, line.data, line.len);
  tl_buf_free(&line);
  char *chunk = tl_xmalloc(1 << 20);
  ok = ok && fflush(r->entries) == 0 && fseek(r->entries, 0, SEEK_SET) == 0;
  size_t got;
  while (ok && (got = fread(chunk, 1, 1 << 20, r->entries)) > 0)
    ok = write_all(out, chunk, got);
  ok = ok && !ferror(r->entries);
  int why = ok ? 0 : errno;
  free(chunk);
  if (fclose(out) != 0 && ok) {
    ok = false;
    why = errno;
  }
  if (!ok)
    snprintf(error, error_size, "cannot write %s: %s", r->path,
             strerror(why ? why : EIO));
  fclose(r->entries);
  r->entries = NULL;
  unlink(r->entries_path);
  return ok;
}

void tl_raw_jsonl_free(tl_raw_jsonl *r) {
  if (r->entries) {
    fclose(r->entries);
    unlink(r->entries_path);
  }
  free(r->entries_path);
  free(r->path);
  memset(r, 0, sizeof *r);
}
