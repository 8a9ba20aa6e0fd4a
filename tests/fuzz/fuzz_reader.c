/* fuzz_reader.c: the read stage on any bytes (tl_reader_run).
 *
 * The input is written to a temporary file and read with a callback that
 * touches every field of every record. Invariants: the reader never fails on
 * input (only on I/O), records come in increasing line order, md5_ok implies
 * a payload, and the glog matcher's offset lies inside the line.
 */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "fuzz.h"
#include "read/reader.h"

static char *trace_path;
static volatile unsigned sink; /* keeps the touched bytes' sum alive */

typedef struct seen {
  size_t last_line;
  size_t records;
  unsigned sum;
} seen;

static void on_record(void *ctx, const tl_record *r) {
  seen *s = ctx;
  FUZZ_CHECK(r->line > s->last_line);
  s->last_line = r->line;
  s->records++;
  FUZZ_CHECK(r->kind); /* may be "": `{"": 0}` is an unknown kind */
  FUZZ_CHECK(r->envelope && r->kind_value);
  FUZZ_CHECK(!r->md5_ok || r->has_payload);
  FUZZ_CHECK(!r->truncated || r->has_payload);
  FUZZ_CHECK(r->payload.ptr || r->payload.len == 0);
  s->sum += fuzz_touch(r->payload);
  if (r->md5)
    s->sum += (unsigned)strlen(r->md5);
  char name[96], display[96];
  tl_compile_id_dir_name(&r->compile_id, name, sizeof name);
  tl_compile_id_display(&r->compile_id, display, sizeof display);
  FUZZ_CHECK(strlen(name) < sizeof name - 1 && !strstr(name, "/") &&
             strcmp(name, "..") != 0);
  for (int64_t i = -1; i < 3; i++) {
    const char *str = tl_string_table_get(r->strings, i);
    if (str)
      s->sum += (unsigned)strlen(str);
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  const char *tmp = getenv("TMPDIR");
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/tl-fuzz-reader-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(path.data);
  FUZZ_CHECK(fd >= 0);
  close(fd);
  trace_path = tl_buf_detach(&path);
  return 0;
}

static void remove_trace(void) { unlink(trace_path); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool registered;
  if (!registered) {
    atexit(remove_trace);
    registered = true;
  }
  FILE *f = fopen(trace_path, "wb");
  FUZZ_CHECK(f);
  FUZZ_CHECK(fwrite(data, 1, size, f) == size);
  FUZZ_CHECK(fclose(f) == 0);

  /* The glog matcher on each physical line of the input. */
  size_t start = 0;
  for (size_t i = 0; i <= size; i++) {
    if (i < size && data[i] != '\n')
      continue;
    tl_str line = {(const char *)data + start, i - start};
    long off = tl_reader_glog_envelope_offset(line);
    FUZZ_CHECK(off < 0 || (size_t)off < line.len);
    start = i + 1;
  }

  tl_diag diag;
  tl_diag_init(&diag, "fuzz.log");
  seen s = {0};
  char error[256];
  bool ok = tl_reader_run(trace_path, NULL, &diag, on_record, &s, error,
                          sizeof error);
  FUZZ_CHECK(ok);
  /* Every diagnostic names a line inside the input. */
  for (int k = 0; k < TL_DIAG_KIND_COUNT; k++)
    for (int i = 0; i < TL_DIAG_EXAMPLES; i++)
      if (diag.examples[k][i].message)
        FUZZ_CHECK(diag.examples[k][i].line <=
                   (size_t)fuzz_line_count((tl_str){(const char *)data, size}));
  tl_diag_free(&diag);
  sink = s.sum;
  return 0;
}
