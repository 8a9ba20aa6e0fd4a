/* sink.h: the writing half of the store stage. The store decides, on the
 * reading thread, what each record becomes; the sink does the byte work:
 * it checks payload md5s, appends raw.log and raw.jsonl's entries, writes
 * artifact files, strictly in the order it was asked to. Started in the
 * background it does so on a second thread, fed through a queue that holds at
 * most a few MiB of copied bytes, so reading and writing share two cores;
 * started inline it does each step at once on the caller's thread.
 *
 * Ownership: in the background the sink copies what it is given, except
 * buffers passed to tl_sink_write_buf, which it takes; inline it uses what
 * it is given at once, and a record's envelope and payload (borrowed, not
 * copied) until the record ends. Its diagnostics (md5 mismatches and
 * files it could not write) go to the caller's tl_diag inline, or to its own
 * until tl_sink_finish adds them in the order they happened.
 */
#ifndef TL_SINK_H
#define TL_SINK_H

#include <stdbool.h>
#include <stdio.h>

#include "store/raw_jsonl.h"
#include "util/buf.h"
#include "util/diag.h"
#include "json/json_serde.h"

typedef struct tl_sink tl_sink;

/* What tl_sink_record returns when it was not asked to check an md5. */
#define TL_SINK_NO_TICKET ((size_t)-1)

/* Files are written under out_dir; raw_jsonl and raw_log (either may be NULL)
 * are the streams of the two top-level copies, closed by the caller after
 * tl_sink_finish. */
tl_sink *tl_sink_start(const char *out_dir, FILE *raw_jsonl, FILE *raw_log,
                       tl_diag *diag, bool background);

/* Begins a trace record (its envelope text and payload are kept until the
 * next record begins). With `expected_md5` set the
 * payload's md5 is checked against it and a mismatch is counted (see
 * tl_reader_check_md5); the digest is read back with tl_sink_digest and the
 * returned ticket. `kind` names the entry in that message. In the background,
 * while the thread is behind (half its queue waiting), the digest is
 * computed here on the caller's thread instead of waiting for room; the
 * thread still compares it and counts a mismatch in the order of the
 * records. */
size_t tl_sink_record(tl_sink *sink, size_t line, tl_str envelope_text,
                      tl_str payload, const char *kind,
                      const char *expected_md5, bool check_md5);
/* As tl_sink_record, but a payload of TL_SINK_TAKE_AT bytes or more that is
 * the whole of `owner`'s text is taken from it (tl_buf_detach) instead of
 * copied: a huge payload is never held twice. `payload` stays valid until
 * tl_sink_record_end or the next record begins. */
size_t tl_sink_record_taking(tl_sink *sink, size_t line, tl_str envelope_text,
                             tl_str payload, tl_buf *owner, const char *kind,
                             const char *expected_md5, bool check_md5);
enum { TL_SINK_TAKE_AT = 1 << 20 };
/* chromium_events.json, and this rank's part for --all-ranks-html: files
 * the caller opens and closes (after tl_sink_finish), written by the sink
 * in record order; `count` events written so far. */
typedef struct tl_chromium_out {
  FILE *events, *part;
  unsigned pid;
  size_t count;
} tl_chromium_out;
/* Appends the payload of the record begun last to `out`, as the Rust tool
 * writes chromium_events.json (one pretty array, keys sorted), on the
 * sink's thread: the re-writing was a third of the reading thread's time
 * on a long training job's events. A payload that is not JSON is left out,
 * with a diagnostic at the record's line. `out` lives until tl_sink_finish. */
void tl_sink_chromium_event(tl_sink *sink, tl_chromium_out *out);
/* The record begun last needs no more steps: its copy or taken payload is
 * let go once the steps before are done, not held while the next record is
 * read (the 14 MB post-grad graph of a huge compile while its 57 MB wrapper
 * was). A record's payload is valid until then. */
void tl_sink_record_end(tl_sink *sink);
/* Appends the raw.jsonl line of the record begun last: its envelope
 * re-written with `members` added (raw_jsonl.h); keys are kept as given
 * (string literals), values copied. */
void tl_sink_raw_jsonl(tl_sink *sink, const tl_json_member *members,
                       size_t count);
/* Writes the payload of the record begun last to out_dir/relative_path. */
void tl_sink_write_payload(tl_sink *sink, const char *relative_path);
/* Writes a copy of data to out_dir/relative_path. */
void tl_sink_write(tl_sink *sink, const char *relative_path, const void *data,
                   size_t len);
/* The same, taking `data`'s memory (it is left empty). */
void tl_sink_write_buf(tl_sink *sink, const char *relative_path, tl_buf *data);
/* Writes `before`, the payload of the record begun last HTML-escaped
 * (tl_html_escape) and `after` to out_dir/relative_path, a megabyte at a
 * time: a page around a huge payload (the output code's) is never held
 * whole. */
void tl_sink_write_escaped_payload(tl_sink *sink, const char *relative_path,
                                   tl_str before, tl_str after);
/* Appends bytes to raw.log. */
void tl_sink_raw_log(tl_sink *sink, const char *data, size_t len);

/* Waits until everything asked has been done and stops the thread. Adds the
 * sink's diagnostics to the caller's tl_diag. Returns false when a file could
 * not be written, with the first such error in `error`. */
bool tl_sink_finish(tl_sink *sink, char *error, size_t error_size);
/* After tl_sink_finish: the md5 (32 hex digits) of a checked payload. */
const char *tl_sink_digest(const tl_sink *sink, size_t ticket);
void tl_sink_free(tl_sink *sink);

#endif
