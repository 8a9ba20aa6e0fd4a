/* sink.c: the store's byte work (md5, raw.jsonl, raw.log, artifact files) in
 * the order asked, inline or on a second thread fed by a bounded queue. */
#define _POSIX_C_SOURCE 200809L
#include "store/sink.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/reader.h"
#include "util/fsutil.h"
#include "util/html.h"
#include "json/chromium_events.h"
#include "json/json_serde.h"

/* Bytes queued (copied, or payloads taken from the reader), waiting or
 * being written, past which the reading thread
 * waits while anything is still queued. An item larger than this is taken
 * when the queue is empty, so at worst this much and two records more are
 * held. */
enum { MAX_BYTES_QUEUED = 8 << 20 };
/* Bytes queued past which the thread is behind: the reading thread then
 * computes a record's md5 itself (the thread still counts a mismatch, in
 * the order of the records) instead of waiting for room in the queue. */
enum { BEHIND_BYTES = MAX_BYTES_QUEUED / 2 };
/* The scratch buffer (raw.jsonl lines, paths) is kept up to this size. */
enum { SCRATCH_KEPT = 1 << 20 };
/* raw.log blocks given back by the thread and kept for the next chunks'
 * copies: at most what the queue holds at once. */
enum { RAW_LOG_BLOCKS_KEPT = MAX_BYTES_QUEUED / (1 << 20) };

typedef enum step_kind {
  STEP_RECORD,        /* md5 check; becomes "current" */
  STEP_RAW_JSONL,     /* the current record's raw.jsonl line */
  STEP_WRITE_PAYLOAD, /* the current record's payload to `path` */
  STEP_WRITE,         /* `data` to `path` */
  STEP_WRITE_ESCAPED, /* `data` around the current record's payload, escaped */
  STEP_RAW_LOG,       /* `data` appended to raw.log */
  STEP_CHROMIUM,      /* the current record's payload to `chromium` */
  STEP_RECORD_END     /* the current record let go */
} step_kind;

typedef struct step {
  struct step *next;
  step_kind kind;
  char *path;
  /* RECORD: the envelope text, then (unless taken whole: payload_owned) the
   * payload; else the bytes to write. */
  char *data;
  char *payload; /* RECORD: in `data`, or a buffer of its own */
  bool payload_owned;
  /* RECORD inline: `data` and `payload` are the caller's, valid until the
   * record ends (the caller's thread does every step before then). */
  bool borrowed;
  size_t block_size;        /* RAW_LOG in the background: `data`'s size */
  size_t envelope_len, len; /* WRITE_ESCAPED: envelope_len is before's */
  bool has_payload;
  size_t line;
  char *kind_name; /* RECORD with an md5 check */
  /* RAW_JSONL: the members added, their values packed in `data`. */
  tl_json_member members[TL_RAW_JSONL_MEMBERS];
  size_t member_count;
  char *expected_md5; /* may be NULL: "not a string" */
  bool check_md5;
  bool md5_computed; /* md5_hex computed by the reading thread */
  char md5_hex[33];
  tl_chromium_out *chromium; /* CHROMIUM */
} step;

typedef struct digest_text {
  char hex[33];
} digest_text;

struct tl_sink {
  const char *out_dir;
  FILE *raw_jsonl, *raw_log;
  tl_diag *caller_diag;
  tl_diag own_diag; /* background: the thread's diagnostics until finish */
  tl_diag *diag;    /* where diagnostics go now */
  bool background;
  size_t tickets; /* md5 checks asked for */
  TL_VEC(digest_text) digests;
  step *current;       /* the record whose payload STEP_WRITE_PAYLOAD writes */
  size_t record_bytes; /* of the record begun last */
  bool failed;
  char error[512];
  tl_buf scratch;
  /* The queue (background only). */
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t changed;
  step *head, *tail;
  size_t queued_bytes;
  /* Steps done, freed by the submitting thread, which allocated them: a
   * free on the thread would take the lock of the other thread's malloc
   * arena while that thread allocates (the two contended in futex calls). */
  step *done;
  bool closing;
  /* raw.log blocks the thread is done with, for the next chunks' copies
   * (submitting thread only): a fresh block for each MiB read was faulted
   * in and zeroed page by page, most of the copy's time. */
  char *raw_log_blocks[RAW_LOG_BLOCKS_KEPT];
  size_t raw_log_block_sizes[RAW_LOG_BLOCKS_KEPT];
  size_t raw_log_block_count;
  bool raw_log_failed; /* reported; nothing more is written to it */
};

static void step_free(step *s) {
  if (!s)
    return;
  free(s->path);
  if (!s->borrowed)
    free(s->data);
  if (s->payload_owned)
    free(s->payload);
  free(s->kind_name);
  free(s->expected_md5);
  free(s);
}

static void note_write_error(tl_sink *sink, const char *error) {
  tl_diag_add(sink->diag, TL_DIAG_OUTPUT, 0, "%s", error);
  if (!sink->failed) {
    sink->failed = true;
    snprintf(sink->error, sizeof sink->error, "%s", error);
  }
}

/* Appends to raw.log; the first write that fails is reported with its
 * reason (a full disk, a file-size limit) and ends the file's writes. */
static void write_raw_log(tl_sink *sink, const char *data, size_t len) {
  if (sink->raw_log_failed || fwrite(data, 1, len, sink->raw_log) == len)
    return;
  int why = errno;
  sink->raw_log_failed = true;
  char error[512];
  snprintf(error, sizeof error, "cannot write %s/raw.log: %s", sink->out_dir,
           strerror(why ? why : EIO));
  note_write_error(sink, error);
}

static void write_file(tl_sink *sink, const char *relative_path,
                       const char *data, size_t len) {
  tl_buf *path = &sink->scratch;
  tl_buf_clear(path);
  tl_buf_printf(path, "%s/%s", sink->out_dir, relative_path);
  char error[512];
  if (!tl_fs_write_file(path->data, data, len, error, sizeof error))
    note_write_error(sink, error);
}

/* STEP_WRITE_ESCAPED: streamed through a draining buffer. */
static void write_escaped(tl_sink *sink, const step *s) {
  tl_buf *path = &sink->scratch;
  tl_buf_clear(path);
  tl_buf_printf(path, "%s/%s", sink->out_dir, s->path);
  char error[512];
  tl_fs_writer file;
  if (!tl_fs_writer_open(&file, path->data, error, sizeof error)) {
    note_write_error(sink, error);
    return;
  }
  tl_buf page;
  tl_buf_init(&page);
  tl_buf_drain_into(&page, tl_fs_writer_write, &file);
  tl_buf_append(&page, s->data, s->envelope_len);
  if (sink->current)
    tl_html_escape(&page, (tl_str){sink->current->payload, sink->current->len});
  tl_buf_append(&page, s->data + s->envelope_len, s->len - s->envelope_len);
  tl_buf_drain(&page);
  tl_buf_free(&page);
  if (!tl_fs_writer_close(&file, error, sizeof error))
    note_write_error(sink, error);
}

/* The scratch buffer after a use: not kept past SCRATCH_KEPT (a large
 * entry's or event's copy is not held until the next one). */
static void trim_scratch(tl_sink *sink) {
  if (sink->scratch.cap > SCRATCH_KEPT) {
    tl_buf_free(&sink->scratch);
    tl_buf_init(&sink->scratch);
  }
}

/* raw.jsonl: the current record's envelope re-written as the Rust tool
 * writes it, with the step's members added (raw_jsonl.h). */
static void write_raw_jsonl(tl_sink *sink, const step *s) {
  if (!sink->raw_jsonl || !sink->current)
    return;
  const step *record = sink->current;
  tl_buf *line = &sink->scratch;
  tl_buf_clear(line);
  tl_json_serde_options o = {false, 0, s->members, s->member_count, 0};
  size_t repaired = 0;
  char error[128] = "";
  tl_json_serde_status st =
      tl_json_serde(line, (tl_str){record->data, record->envelope_len}, &o,
                    &repaired, error, sizeof error);
  if (st == TL_JSON_SERDE_KEY_CONFLICT)
    tl_diag_add(sink->diag, TL_DIAG_RAW_JSONL, record->line,
                "envelope already has a \"%s\" key: entry left out of "
                "raw.jsonl (as the Rust tool does)",
                error);
  else if (st != TL_JSON_SERDE_OK)
    tl_diag_add(sink->diag, TL_DIAG_RAW_JSONL, record->line,
                "envelope not re-read for raw.jsonl (%s): entry left out",
                error);
  else if (repaired)
    tl_diag_add(sink->diag, TL_DIAG_RAW_JSONL, record->line,
                "%zu invalid UTF-8 sequence%s written as U+FFFD in raw.jsonl",
                repaired, repaired == 1 ? "" : "s");
  if (st == TL_JSON_SERDE_OK) {
    tl_buf_putc(line, '\n');
    fwrite(line->data, 1, line->len, sink->raw_jsonl);
  }
  trim_scratch(sink);
}

/* chromium_events.json: the current record's payload as one element of
 * the pretty array, keys sorted (and, for --all-ranks-html, the combined
 * file's form from the very text just written, as the parent would make it
 * from this rank's file). */
static void write_chromium_event(tl_sink *sink, tl_chromium_out *out) {
  const step *record = sink->current;
  if (!record || !record->has_payload || !out->events)
    return;
  tl_buf *event = &sink->scratch;
  tl_buf_clear(event);
  tl_json_serde_options o = {true, 1, NULL, 0,
                             tl_json_layout_limit(record->len)};
  size_t repaired = 0;
  tl_json_serde_status st = tl_json_serde(
      event, (tl_str){record->payload, record->len}, &o, &repaired, NULL, 0);
  if (st != TL_JSON_SERDE_OK && st != TL_JSON_SERDE_OK_COMPACT) {
    tl_diag_add(sink->diag, TL_DIAG_CHROMIUM, record->line,
                "chromium_event payload is not JSON (left out of "
                "chromium_events.json; the line is in raw.log)");
    return;
  }
  if (st == TL_JSON_SERDE_OK_COMPACT)
    tl_diag_add(sink->diag, TL_DIAG_COMPACT, record->line,
                "chromium_events.json: an event written compact: indented, "
                "it would be more than 13 times its %zu bytes",
                record->len);
  if (repaired)
    tl_diag_add(sink->diag, TL_DIAG_UTF8, record->line,
                "chromium_events.json: %zu invalid UTF-8 sequence%s written "
                "as U+FFFD (the exact bytes are in raw.log)",
                repaired, repaired == 1 ? "" : "s");
  fputs(out->count ? ",\n  " : "\n  ", out->events);
  fwrite(event->data, 1, event->len, out->events);
  out->count++;
  if (out->part) {
    tl_buf with_pid;
    tl_buf_init(&with_pid);
    if (tl_chromium_event_with_pid_pretty(&with_pid, event->data, event->len,
                                          out->pid) ||
        tl_chromium_event_with_pid(&with_pid, event->data, 0, event->len,
                                   out->pid)) {
      fputs(",\n  ", out->part);
      fwrite(with_pid.data, 1, with_pid.len, out->part);
    }
    tl_buf_free(&with_pid);
  }
  trim_scratch(sink);
}

/* Does one step; returns the step if it must stay (the current record). */
static step *run_step(tl_sink *sink, step *s) {
  switch (s->kind) {
  case STEP_RECORD: {
    if (s->check_md5) {
      digest_text digest;
      if (s->md5_computed)
        memcpy(digest.hex, s->md5_hex, sizeof digest.hex);
      else
        tl_reader_md5_hex((tl_str){s->payload, s->len}, digest.hex);
      tl_reader_md5_verdict(sink->diag, s->line, s->kind_name, digest.hex,
                            s->expected_md5);
      TL_VEC_PUSH(sink->digests, digest);
    }
    return s;
  }
  case STEP_RAW_JSONL:
    write_raw_jsonl(sink, s);
    break;
  case STEP_WRITE_PAYLOAD:
    if (sink->current)
      write_file(sink, s->path, sink->current->payload, sink->current->len);
    break;
  case STEP_WRITE:
    write_file(sink, s->path, s->data, s->len);
    break;
  case STEP_WRITE_ESCAPED:
    write_escaped(sink, s);
    break;
  case STEP_RAW_LOG:
    if (sink->raw_log)
      write_raw_log(sink, s->data, s->len);
    break;
  case STEP_CHROMIUM:
    write_chromium_event(sink, s->chromium);
    break;
  case STEP_RECORD_END:
    break; /* run_steps lets the current record go */
  }
  return NULL;
}

static size_t step_bytes(const step *s) {
  return s->kind == STEP_RECORD ? s->envelope_len + s->len : s->len;
}

/* A step done: freed at once inline, else put on `done` for the
 * submitting thread. */
static void retire(tl_sink *sink, step *s, step **done) {
  if (!s)
    return;
  if (!sink->background) {
    step_free(s);
    return;
  }
  s->next = *done;
  *done = s;
}

/* Frees steps on the submitting thread, keeping raw.log blocks. */
static void free_steps(tl_sink *sink, step *s) {
  while (s) {
    step *next = s->next;
    if (s->kind == STEP_RAW_LOG && s->data &&
        sink->raw_log_block_count < RAW_LOG_BLOCKS_KEPT) {
      sink->raw_log_blocks[sink->raw_log_block_count] = s->data;
      sink->raw_log_block_sizes[sink->raw_log_block_count++] = s->block_size;
      s->data = NULL;
    }
    step_free(s);
    s = next;
  }
}

/* Runs a chain of steps; returns the bytes done with, and (background) the
 * steps done in *done. */
static size_t run_steps(tl_sink *sink, step *s, step **done) {
  size_t freed = 0;
  while (s) {
    step *next = s->next;
    size_t bytes = step_bytes(s);
    step_kind kind = s->kind;
    step *kept = run_step(sink, s);
    if (kept || kind == STEP_RECORD_END) {
      if (sink->current)
        freed += step_bytes(sink->current);
      retire(sink, sink->current, done);
      sink->current = kept;
    }
    if (!kept) {
      freed += bytes;
      retire(sink, s, done);
    }
    s = next;
  }
  return freed;
}

/* The steps the thread has done, taken to be freed (lock held). */
static step *take_done(tl_sink *sink) {
  step *done = sink->done;
  sink->done = NULL;
  return done;
}

static void *sink_thread(void *arg) {
  tl_sink *sink = arg;
  pthread_mutex_lock(&sink->lock);
  for (;;) {
    while (!sink->head && !sink->closing)
      pthread_cond_wait(&sink->changed, &sink->lock);
    step *chain = sink->head;
    sink->head = sink->tail = NULL;
    if (!chain && sink->closing)
      break;
    pthread_mutex_unlock(&sink->lock);
    step *done = NULL;
    size_t freed = run_steps(sink, chain, &done);
    pthread_mutex_lock(&sink->lock);
    sink->queued_bytes -= freed;
    if (done) { /* appended: the list's order does not matter */
      step *last = done;
      while (last->next)
        last = last->next;
      last->next = sink->done;
      sink->done = done;
    }
    pthread_cond_broadcast(&sink->changed);
  }
  pthread_mutex_unlock(&sink->lock);
  return NULL;
}

/* Whether the thread is behind (BEHIND_BYTES). */
static bool sink_behind(tl_sink *sink) {
  pthread_mutex_lock(&sink->lock);
  bool behind = sink->head && sink->queued_bytes >= BEHIND_BYTES;
  pthread_mutex_unlock(&sink->lock);
  return behind;
}

/* Hands a step over: done at once inline, queued in the background (waiting
 * while the queue is full). */
static void submit(tl_sink *sink, step *s) {
  if (!sink->background) {
    run_steps(sink, s, NULL);
    return;
  }
  size_t bytes = step_bytes(s);
  pthread_mutex_lock(&sink->lock);
  /* queued_bytes also counts the record the thread holds as current, so
   * only a non-empty queue makes the caller wait. */
  while (sink->head && sink->queued_bytes + bytes > MAX_BYTES_QUEUED)
    pthread_cond_wait(&sink->changed, &sink->lock);
  sink->queued_bytes += bytes;
  if (sink->tail)
    sink->tail->next = s;
  else
    sink->head = s;
  sink->tail = s;
  pthread_cond_broadcast(&sink->changed);
  step *done = take_done(sink);
  pthread_mutex_unlock(&sink->lock);
  free_steps(sink, done);
}

tl_sink *tl_sink_start(const char *out_dir, FILE *raw_jsonl, FILE *raw_log,
                       tl_diag *diag, bool background) {
  tl_sink *sink = tl_xcalloc(1, sizeof *sink);
  sink->out_dir = out_dir;
  sink->raw_jsonl = raw_jsonl;
  sink->raw_log = raw_log;
  sink->caller_diag = diag;
  sink->diag = diag;
  tl_buf_init(&sink->scratch);
  if (!background)
    return sink;
  tl_diag_init(&sink->own_diag, diag->file_name);
  sink->own_diag.verbose = diag->verbose;
  sink->own_diag.staged = diag->staged;
  sink->own_diag.shown = diag->shown;
  sink->diag = &sink->own_diag;
  pthread_mutex_init(&sink->lock, NULL);
  pthread_cond_init(&sink->changed, NULL);
  sink->background =
      pthread_create(&sink->thread, NULL, sink_thread, sink) == 0;
  if (!sink->background) { /* no thread to be had: work inline */
    pthread_mutex_destroy(&sink->lock);
    pthread_cond_destroy(&sink->changed);
    tl_diag_free(&sink->own_diag);
    sink->diag = diag;
  }
  return sink;
}

static step *new_step(step_kind kind, const char *relative_path) {
  step *s = tl_xcalloc(1, sizeof *s);
  s->kind = kind;
  if (relative_path)
    s->path = tl_xstrdup(relative_path);
  return s;
}

size_t tl_sink_record(tl_sink *sink, size_t line, tl_str envelope_text,
                      tl_str payload, const char *kind,
                      const char *expected_md5, bool check_md5) {
  return tl_sink_record_taking(sink, line, envelope_text, payload, NULL, kind,
                               expected_md5, check_md5);
}

size_t tl_sink_record_taking(tl_sink *sink, size_t line, tl_str envelope_text,
                             tl_str payload, tl_buf *owner, const char *kind,
                             const char *expected_md5, bool check_md5) {
  step *s = new_step(STEP_RECORD, NULL);
  s->line = line;
  s->envelope_len = envelope_text.len;
  s->has_payload = payload.ptr != NULL;
  s->len = s->has_payload ? payload.len : 0;
  if (!sink->background) {
    /* Inline, every step of the record is done before it ends, while the
     * caller's texts are valid: no copy (a rank's payloads and envelopes
     * were copied once each only to be freed). */
    s->borrowed = true;
    s->data = envelope_text.ptr ? (char *)envelope_text.ptr : (char *)"";
    s->payload = s->has_payload ? (char *)payload.ptr : (char *)"";
  } else {
    s->payload_owned = owner && owner->data && s->len >= TL_SINK_TAKE_AT &&
                       payload.ptr == owner->data && payload.len == owner->len;
    s->data = tl_xmalloc(s->envelope_len + (s->payload_owned ? 0 : s->len) + 1);
    if (s->envelope_len)
      memcpy(s->data, envelope_text.ptr, s->envelope_len);
    s->payload =
        s->payload_owned ? tl_buf_detach(owner) : s->data + s->envelope_len;
    if (s->len && !s->payload_owned)
      memcpy(s->payload, payload.ptr, s->len);
  }
  size_t ticket = TL_SINK_NO_TICKET;
  if (check_md5) {
    s->check_md5 = true;
    s->kind_name = tl_xstrdup(kind);
    s->expected_md5 = expected_md5 ? tl_xstrdup(expected_md5) : NULL;
    ticket = sink->tickets++;
    if (sink->background && sink_behind(sink)) {
      tl_reader_md5_hex((tl_str){s->payload, s->len}, s->md5_hex);
      s->md5_computed = true;
    }
  }
  sink->record_bytes = step_bytes(s);
  submit(sink, s);
  return ticket;
}

void tl_sink_chromium_event(tl_sink *sink, tl_chromium_out *out) {
  step *s = new_step(STEP_CHROMIUM, NULL);
  s->chromium = out;
  submit(sink, s);
}

void tl_sink_record_end(tl_sink *sink) {
  submit(sink, new_step(STEP_RECORD_END, NULL));
  if (!sink->background || sink->record_bytes < MAX_BYTES_QUEUED)
    return;
  /* A large record is let go before the next is read: two would be held
   * at once while the thread checks and writes the first. */
  pthread_mutex_lock(&sink->lock);
  while (sink->queued_bytes)
    pthread_cond_wait(&sink->changed, &sink->lock);
  step *done = take_done(sink);
  pthread_mutex_unlock(&sink->lock);
  free_steps(sink, done); /* the large record too, before the next is read */
}

void tl_sink_raw_jsonl(tl_sink *sink, const tl_json_member *members,
                       size_t count) {
  step *s = new_step(STEP_RAW_JSONL, NULL);
  size_t total = 0;
  for (size_t i = 0; i < count; i++)
    total += members[i].value.len;
  s->data = tl_xmalloc(total + 1);
  s->member_count = count < TL_RAW_JSONL_MEMBERS ? count : TL_RAW_JSONL_MEMBERS;
  size_t at = 0;
  for (size_t i = 0; i < s->member_count; i++) {
    memcpy(s->data + at, members[i].value.ptr, members[i].value.len);
    s->members[i] = (tl_json_member){
        members[i].key, (tl_str){s->data + at, members[i].value.len}};
    at += members[i].value.len;
  }
  s->len = total;
  submit(sink, s);
}

void tl_sink_write_payload(tl_sink *sink, const char *relative_path) {
  if (!sink->background) { /* run_step's STEP_WRITE_PAYLOAD, at once */
    if (sink->current)
      write_file(sink, relative_path, sink->current->payload,
                 sink->current->len);
    return;
  }
  submit(sink, new_step(STEP_WRITE_PAYLOAD, relative_path));
}

void tl_sink_write(tl_sink *sink, const char *relative_path, const void *data,
                   size_t len) {
  if (!sink->background) { /* run_step's STEP_WRITE, at once: no copy */
    write_file(sink, relative_path, data, len);
    return;
  }
  step *s = new_step(STEP_WRITE, relative_path);
  s->data = tl_xmalloc(len + 1);
  if (len)
    memcpy(s->data, data, len);
  s->len = len;
  submit(sink, s);
}

void tl_sink_write_buf(tl_sink *sink, const char *relative_path, tl_buf *data) {
  step *s = new_step(STEP_WRITE, relative_path);
  s->len = data->len;
  s->data = tl_buf_detach(data);
  submit(sink, s);
}

void tl_sink_write_escaped_payload(tl_sink *sink, const char *relative_path,
                                   tl_str before, tl_str after) {
  step *s = new_step(STEP_WRITE_ESCAPED, relative_path);
  s->envelope_len = before.len;
  s->len = before.len + after.len;
  s->data = tl_xmalloc(s->len + 1);
  if (before.len)
    memcpy(s->data, before.ptr, before.len);
  if (after.len)
    memcpy(s->data + before.len, after.ptr, after.len);
  submit(sink, s);
}

void tl_sink_raw_log(tl_sink *sink, const char *data, size_t len) {
  if (!sink->raw_log || !len)
    return;
  if (!sink->background) { /* run_step's STEP_RAW_LOG, at once: no copy */
    write_raw_log(sink, data, len);
    return;
  }
  step *s = new_step(STEP_RAW_LOG, NULL);
  size_t k = sink->raw_log_block_count;
  while (k > 0 && sink->raw_log_block_sizes[k - 1] < len)
    k--;
  if (k > 0) { /* a kept block that holds it; the last moves into its place */
    size_t last = --sink->raw_log_block_count;
    s->data = sink->raw_log_blocks[k - 1];
    s->block_size = sink->raw_log_block_sizes[k - 1];
    sink->raw_log_blocks[k - 1] = sink->raw_log_blocks[last];
    sink->raw_log_block_sizes[k - 1] = sink->raw_log_block_sizes[last];
  } else {
    s->data = tl_xmalloc(len);
    s->block_size = len;
  }
  memcpy(s->data, data, len);
  s->len = len;
  submit(sink, s);
}

bool tl_sink_finish(tl_sink *sink, char *error, size_t error_size) {
  if (sink->background) {
    pthread_mutex_lock(&sink->lock);
    sink->closing = true;
    pthread_cond_broadcast(&sink->changed);
    pthread_mutex_unlock(&sink->lock);
    pthread_join(sink->thread, NULL);
    free_steps(sink, take_done(sink));
    for (size_t i = 0; i < sink->raw_log_block_count; i++)
      free(sink->raw_log_blocks[i]);
    sink->raw_log_block_count = 0;
    pthread_mutex_destroy(&sink->lock);
    pthread_cond_destroy(&sink->changed);
    sink->background = false;
    tl_diag_merge(sink->caller_diag, &sink->own_diag);
    tl_diag_free(&sink->own_diag);
    sink->diag = sink->caller_diag;
  }
  step_free(sink->current);
  sink->current = NULL;
  if (sink->failed)
    snprintf(error, error_size, "%s", sink->error);
  return !sink->failed;
}

const char *tl_sink_digest(const tl_sink *sink, size_t ticket) {
  return ticket < sink->digests.count ? sink->digests.items[ticket].hex : "";
}

void tl_sink_free(tl_sink *sink) {
  if (!sink)
    return;
  if (sink->background) {
    char ignored[8];
    tl_sink_finish(sink, ignored, sizeof ignored);
  }
  TL_VEC_FREE(sink->digests);
  tl_buf_free(&sink->scratch);
  for (size_t i = 0; i < sink->raw_log_block_count; i++)
    free(sink->raw_log_blocks[i]);
  free(sink);
}
