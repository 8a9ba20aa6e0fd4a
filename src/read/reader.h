/* reader.h: the read stage. Streams a TORCH_TRACE log and hands each record
 * (glog line + JSON envelope + tab-prefixed payload lines) to a callback.
 *
 *   V0819 12:42:50.489000 888578 torch/_inductor/compile_fx.py:2223]
 * {"artifact": {...}, "has_payload": "7035..."} \t<payload line 1> \t<payload
 * line 2>
 *
 * Memory is bounded by the largest single line and payload, not the file.
 * Bad input is counted in the tl_diag and skipped; the reader never fails on
 * input, only when the file cannot be opened or read.
 */
#ifndef TL_READER_H
#define TL_READER_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "read/compile_id.h"
#include "util/buf.h"
#include "util/diag.h"

/* The interned strings of `{"str": [s, i]}` entries (stack filenames). */
typedef struct tl_string_table {
  char **items; /* index -> string or NULL; malloc'd */
  size_t count;
} tl_string_table;

const char *tl_string_table_get(const tl_string_table *t, int64_t index);
void tl_string_table_free(tl_string_table *t);

/* The glog prefix of an entry's line, as written:
 *   V1206 15:18:16.012000 139877824898048 torch/_dynamo/x.py:12] */
typedef struct tl_glog {
  char month[3], day[3], time[16]; /* "12", "06", "15:18:16.012000" */
  tl_str thread;                   /* the digits */
  tl_str pathname; /* from the space after the thread to the ':' */
  tl_str lineno;   /* the digits */
} tl_glog;

typedef struct tl_record {
  size_t line; /* 1-based line of the envelope */
  tl_glog glog;
  const cJSON *envelope; /* valid during the callback only */
  tl_str envelope_text;  /* the envelope's JSON exactly as in the line */
  const char *kind;      /* the envelope's kind key ("artifact", ...) */
  const cJSON *kind_value;
  tl_compile_id compile_id;
  /* A compile id field that is not a u32: the id is unknown (the files go to
   * `unknown_<line>/`); counted in TL_DIAG_NO_COMPILE_ID by the reader. */
  bool compile_id_unknown;
  /* An entry of a rank other than the first one seen: counted in
   * TL_DIAG_OTHER_RANK; only raw.jsonl keeps it. */
  bool other_rank;
  bool has_payload; /* has_payload was present */
  tl_str payload;   /* tab-stripped lines joined by \n; valid in callback */
  /* The reader's buffer that `payload` is (NULL when none): the callback
   * may take its memory (tl_buf_detach; `payload` then stays valid as long
   * as the taker keeps it), and the reader starts a new buffer. */
  tl_buf *payload_buf;
  const char *md5; /* has_payload's value, or NULL */
  bool md5_ok;     /* md5 matched (false when no payload or deferred) */
  char digest[33]; /* md5 of the payload as read (hex), "" when none */
  /* With tl_reader_options.defer_md5: a payload's md5 mismatch is not
   * counted, and md5_ok and digest are set only in a record the file ends
   * in; the callback checks with tl_reader_check_md5. */
  bool md5_deferred;
  bool truncated; /* the file ended inside this record */
  const tl_string_table *strings;
} tl_record;

typedef void (*tl_record_fn)(void *ctx, const tl_record *record);
typedef void (*tl_progress_fn)(void *ctx, uint64_t bytes_read,
                               uint64_t total_bytes);

typedef struct tl_reader_options {
  tl_progress_fn progress; /* may be NULL; called about every 4 MiB */
  void *progress_ctx;
  /* When set, called with every byte read, in order (raw.log). */
  void (*raw_copy)(void *ctx, const char *data, size_t len);
  void *raw_copy_ctx;
  /* Leave the md5 check of payloads to the callback, which may do it on
   * another thread; the reader still checks a payload the file ends in, to
   * tell a cut record from a complete one. */
  bool defer_md5;
  /* When set, the `str` entries' table is moved here at the end of the run
   * (the caller frees it with tl_string_table_free) instead of freed. */
  tl_string_table *keep_strings;
} tl_reader_options;

/* Reads `path` to its end. Returns false (and sets errno-style message in
 * `error`, size 256) only when the file cannot be opened or read. */
bool tl_reader_run(const char *path, const tl_reader_options *options,
                   tl_diag *diag, tl_record_fn on_record, void *ctx,
                   char *error, size_t error_size);

/* Computes the md5 of `payload` into `digest` (32 hex digits) and compares
 * it with `expected` (NULL: has_payload was not a string). A mismatch is
 * counted in `diag` (unless NULL) at `line`, naming the entry's `kind`.
 * Returns true when they match. */
bool tl_reader_check_md5(tl_diag *diag, size_t line, const char *kind,
                         tl_str payload, const char *expected, char digest[33]);

/* tl_reader_check_md5 in two halves, for a caller that computes the digest
 * on one thread and counts the mismatch on another (in the order of the
 * records): the md5 of `payload` in hex, then the comparison with
 * `expected` and the mismatch counted as tl_reader_check_md5 does. */
void tl_reader_md5_hex(tl_str payload, char digest[33]);
bool tl_reader_md5_verdict(tl_diag *diag, size_t line, const char *kind,
                           const char digest[33], const char *expected);

/* Exposed for tests: the offset of the JSON envelope in a glog line, or -1
 * when the line does not match the glog prefix anywhere. */
long tl_reader_glog_envelope_offset(tl_str line);

#endif
