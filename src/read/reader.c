/* reader.c: glog prefix, JSON envelope, payload lines, md5, string table and
 * rank filter (formats doc section 1). One pass, one line of lookahead. */
#define _POSIX_C_SOURCE 200809L
#include "read/reader.h"

#include <errno.h>
#include <md5.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

enum { CHUNK_SIZE = 1 << 20, PROGRESS_STEP = 4 << 20 };

typedef struct line_source {
  FILE *file;
  char *chunk;
  size_t chunk_len, chunk_pos;
  bool eof;
  bool read_error;
  uint64_t bytes_read, total_bytes, next_progress;
  const tl_reader_options *options;
} line_source;

/* A buffer that one huge payload or line grew is freed once used, so that
 * the rest of the run does not keep its capacity (a 57 MB wrapper payload
 * left 64 MiB held while the next artifacts were written). */
enum { READER_KEEP_CAP = 4 << 20 };
static void release_if_large(tl_buf *b) {
  if (b->cap > READER_KEEP_CAP) {
    tl_buf_free(b);
    tl_buf_init(b);
  }
}

/* Reads the next physical line into `line` without its "\n" or "\r\n".
 * Returns false at end of file. *had_newline tells whether the line was
 * terminated (false only for a last line cut short). */
static bool next_line(line_source *src, tl_buf *line, bool *had_newline) {
  tl_buf_clear(line);
  bool any = false;
  for (;;) {
    if (src->chunk_pos == src->chunk_len) {
      if (src->eof)
        break;
      src->chunk_len = fread(src->chunk, 1, CHUNK_SIZE, src->file);
      src->chunk_pos = 0;
      if (src->chunk_len < CHUNK_SIZE) {
        src->eof = true;
        if (ferror(src->file))
          src->read_error = true;
      }
      if (src->options && src->options->raw_copy && src->chunk_len)
        src->options->raw_copy(src->options->raw_copy_ctx, src->chunk,
                               src->chunk_len);
      src->bytes_read += src->chunk_len;
      if (src->options && src->options->progress &&
          src->bytes_read >= src->next_progress) {
        src->options->progress(src->options->progress_ctx, src->bytes_read,
                               src->total_bytes);
        src->next_progress = src->bytes_read + PROGRESS_STEP;
      }
      if (src->chunk_len == 0)
        break;
    }
    any = true;
    char *start = src->chunk + src->chunk_pos;
    size_t avail = src->chunk_len - src->chunk_pos;
    char *nl = memchr(start, '\n', avail);
    if (nl) {
      tl_buf_append(line, start, (size_t)(nl - start));
      src->chunk_pos += (size_t)(nl - start) + 1;
      if (line->len && line->data[line->len - 1] == '\r')
        line->data[--line->len] = '\0';
      *had_newline = true;
      return true;
    }
    tl_buf_append(line, start, avail);
    src->chunk_pos = src->chunk_len;
  }
  if (line->len && line->data[line->len - 1] == '\r')
    line->data[--line->len] = '\0';
  *had_newline = false;
  return any;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static size_t skip_digits(const char *s, size_t i, size_t n, size_t count) {
  for (size_t k = 0; k < count; k++, i++)
    if (i >= n || !is_digit(s[i]))
      return (size_t)-1;
  return i;
}

/* Matches the glog prefix starting at `i`:
 * L MMDD HH:MM:SS.uuuuuu THREAD PATH:LINE] <envelope> */
static long match_glog_at(const char *s, size_t n, size_t i) {
  if (!strchr("VIWEC", s[i]) || s[i] == '\0')
    return -1;
  size_t p = skip_digits(s, i + 1, n, 4);
  if (p == (size_t)-1 || p >= n || s[p] != ' ')
    return -1;
  p = skip_digits(s, p + 1, n, 2);
  if (p == (size_t)-1 || p >= n || s[p] != ':')
    return -1;
  p = skip_digits(s, p + 1, n, 2);
  if (p == (size_t)-1 || p >= n || s[p] != ':')
    return -1;
  p = skip_digits(s, p + 1, n, 2);
  if (p == (size_t)-1 || p >= n) /* any one character, usually '.' */
    return -1;
  p = skip_digits(s, p + 1, n, 6);
  if (p == (size_t)-1 || p >= n || s[p] != ' ')
    return -1;
  size_t thread_start = ++p;
  while (p < n && is_digit(s[p]))
    p++;
  if (p == thread_start)
    return -1;
  /* The path is one or more non-':' characters; when the thread digits run
   * straight into ':' the regex gives the last digit to the path. */
  size_t colon = p;
  while (colon < n && s[colon] != ':')
    colon++;
  if (colon >= n)
    return -1;
  if (colon == p && p - thread_start < 2)
    return -1;
  p = colon + 1;
  size_t line_start = p;
  while (p < n && is_digit(s[p]))
    p++;
  if (p == line_start || p + 2 >= n + 0 || s[p] != ']' || s[p + 1] != ' ')
    return -1;
  if (p + 2 >= n) /* the envelope must have at least one character */
    return -1;
  return (long)(p + 2);
}

/* Splits the glog prefix that starts at `start` and ends at
 * `envelope_offset` (both found by match_glog_at) into its fields. */
static void read_glog(const char *s, size_t start, size_t envelope_offset,
                      tl_glog *g) {
  memset(g, 0, sizeof *g);
  memcpy(g->month, s + start + 1, 2);
  memcpy(g->day, s + start + 3, 2);
  memcpy(g->time, s + start + 6, 15);
  size_t end = envelope_offset - 2; /* the ']' */
  size_t line_start = end;
  while (line_start > start && is_digit(s[line_start - 1]))
    line_start--;
  g->lineno = (tl_str){s + line_start, end - line_start};
  size_t colon = line_start - 1;
  size_t thread_start = start + 22;
  size_t p = thread_start;
  while (p < colon && is_digit(s[p]))
    p++;
  if (p == colon)
    p--; /* the regex gives the last digit to the path (match_glog_at) */
  g->thread = (tl_str){s + thread_start, p - thread_start};
  g->pathname = (tl_str){s + p, colon - p};
}

/* The offset of the envelope, or -1; *start gets where the prefix starts. */
static long find_glog(tl_str line, size_t *start) {
  for (size_t i = 0; i < line.len; i++) {
    long off = match_glog_at(line.ptr, line.len, i);
    if (off >= 0) {
      *start = i;
      return off;
    }
  }
  return -1;
}

long tl_reader_glog_envelope_offset(tl_str line) {
  size_t start;
  return find_glog(line, &start);
}

const char *tl_string_table_get(const tl_string_table *t, int64_t index) {
  if (index < 0 || (uint64_t)index >= t->count)
    return NULL;
  return t->items[index];
}

/* Interned indices count up from 0, one `str` entry each. The table may
 * grow to at most twice the entries seen plus a margin, so a hostile index
 * (`{"str": ["x", 99999999]}`) cannot make one line allocate gigabytes.
 * Returns false for an index out of that range. */
static bool string_table_set(tl_string_table *t, size_t *entries,
                             double index_value, const char *s) {
  if (!(index_value >= 0 && index_value <= 2.0 * (double)*entries + 1024) ||
      index_value != (double)(int64_t)index_value)
    return false;
  int64_t index = (int64_t)index_value;
  (*entries)++;
  if ((uint64_t)index >= t->count) {
    size_t count = (size_t)index + 1;
    t->items = tl_xrealloc(t->items, count * sizeof(char *));
    memset(t->items + t->count, 0, (count - t->count) * sizeof(char *));
    t->count = count;
  }
  free(t->items[index]);
  t->items[index] = tl_xstrdup(s);
  return true;
}

void tl_string_table_free(tl_string_table *t) {
  for (size_t i = 0; i < t->count; i++)
    free(t->items[i]);
  free(t->items);
  t->items = NULL;
  t->count = 0;
}

static bool is_meta_key(const char *key) {
  static const char *const meta[] = {"rank",       "compiled_autograd_id",
                                     "frame_id",   "frame_compile_id",
                                     "attempt",    "stack",
                                     "has_payload"};
  for (size_t i = 0; i < sizeof meta / sizeof *meta; i++)
    if (strcmp(key, meta[i]) == 0)
      return true;
  return false;
}

static bool is_md5_hex(const char *s) {
  if (strlen(s) != 32)
    return false;
  for (int i = 0; i < 32; i++)
    if (!strchr("0123456789abcdefABCDEF", s[i]))
      return false;
  return true;
}

typedef struct reader_state {
  tl_diag *diag;
  tl_record_fn on_record;
  void *ctx;
  tl_string_table strings;
  size_t string_entries; /* `str` entries stored so far */
  bool have_rank;
  double expected_rank;
  bool defer_md5;
} reader_state;

void tl_reader_md5_hex(tl_str payload, char digest[33]) {
  MD5Data((const uint8_t *)payload.ptr, payload.len, digest);
}

bool tl_reader_check_md5(tl_diag *diag, size_t line, const char *kind,
                         tl_str payload, const char *expected,
                         char digest[33]) {
  tl_reader_md5_hex(payload, digest);
  return tl_reader_md5_verdict(diag, line, kind, digest, expected);
}

bool tl_reader_md5_verdict(tl_diag *diag, size_t line, const char *kind,
                           const char digest[33], const char *expected) {
  bool ok = expected && is_md5_hex(expected) &&
            strncasecmp(digest, expected, 32) == 0;
  if (!ok && diag)
    tl_diag_add(diag, TL_DIAG_MD5, line,
                "payload md5 %s does not match has_payload %s in \"%s\" "
                "entry (payload kept)",
                digest, expected ? expected : "(not a string)", kind);
  return ok;
}

/* Handles one parsed envelope with its payload. */
static void dispatch(reader_state *st, cJSON *env, tl_str envelope_text,
                     const tl_glog *glog, size_t line, tl_buf *payload,
                     bool has_payload_lines, bool truncated) {
  if (!cJSON_IsObject(env)) {
    tl_diag_add(st->diag, TL_DIAG_ENVELOPE, line,
                "envelope is not a JSON object");
    return;
  }
  const cJSON *kind = NULL;
  for (const cJSON *item = env->child; item; item = item->next) {
    if (item->string && !is_meta_key(item->string)) {
      kind = item;
      break;
    }
  }
  if (!kind) {
    tl_diag_add(st->diag, TL_DIAG_ENVELOPE, line, "envelope has no kind key");
    return;
  }
  if (strcmp(kind->string, "str") == 0) {
    const cJSON *s = cJSON_GetArrayItem(kind, 0);
    const cJSON *i = cJSON_GetArrayItem(kind, 1);
    if (cJSON_IsString(s) && cJSON_IsNumber(i)) {
      if (!string_table_set(&st->strings, &st->string_entries, i->valuedouble,
                            s->valuestring))
        tl_diag_add(st->diag, TL_DIAG_ENVELOPE, line,
                    "\"str\" index %.0f is not the next index (not kept)",
                    i->valuedouble);
    } else
      tl_diag_add(st->diag, TL_DIAG_ENVELOPE, line,
                  "\"str\" entry is not [string, index]");
    return;
  }
  const cJSON *rank = cJSON_GetObjectItemCaseSensitive(env, "rank");
  if (cJSON_IsNumber(rank) && !st->have_rank) {
    st->have_rank = true;
    st->expected_rank = rank->valuedouble;
  }
  tl_record rec = {0};
  if (st->have_rank &&
      (!cJSON_IsNumber(rank) || rank->valuedouble != st->expected_rank)) {
    /* Rank-less entries are skipped too, as the Rust tool skips them
     * (torch 2.13 logs torch_version without a rank in every rank's log). */
    if (rank)
      tl_diag_add(st->diag, TL_DIAG_OTHER_RANK, line,
                  "entry of another rank skipped (first rank seen: %g)",
                  st->expected_rank);
    else
      tl_diag_add(st->diag, TL_DIAG_OTHER_RANK, line,
                  "entry without a rank in a log of rank %g skipped (as the "
                  "Rust tool skips it)",
                  st->expected_rank);
    rec.other_rank = true;
  }
  rec.line = line;
  rec.glog = *glog;
  rec.envelope = env;
  rec.envelope_text = envelope_text;
  rec.kind = kind->string;
  rec.kind_value = kind;
  rec.strings = &st->strings;
  if (!rec.other_rank && !tl_compile_id_from_envelope(env, &rec.compile_id)) {
    tl_diag_add(st->diag, TL_DIAG_NO_COMPILE_ID, line,
                "compile id field is not an integer from 0 to 2^32-1 in "
                "\"%s\" entry (its files go to unknown_%zu/)",
                kind->string, line);
    rec.compile_id_unknown = true;
  }
  const cJSON *md5 = cJSON_GetObjectItemCaseSensitive(env, "has_payload");
  if (md5) {
    rec.has_payload = true;
    rec.payload = tl_buf_str(payload);
    rec.md5 = cJSON_IsString(md5) ? md5->valuestring : NULL;
    /* Deferred, the callback counts a mismatch; a record the file ends in
     * is checked here, uncounted, to tell a cut from a whole one (a cut is
     * counted as truncated below, not as a mismatch). */
    rec.md5_deferred = st->defer_md5;
    if (!rec.md5_deferred || truncated)
      rec.md5_ok = tl_reader_check_md5(
          rec.md5_deferred || truncated ? NULL : st->diag, line, kind->string,
          rec.payload, rec.md5, rec.digest);
  } else if (has_payload_lines) {
    tl_diag_add(st->diag, TL_DIAG_PAYLOAD, line,
                "payload lines after \"%s\" entry without has_payload (kept)",
                kind->string);
    rec.payload = tl_buf_str(payload);
  }
  /* A last line without "\n" is normal at the end of a file; it is a cut
   * only when the payload then fails its md5. */
  rec.truncated = truncated && rec.has_payload && !rec.md5_ok;
  if (rec.truncated)
    tl_diag_add(st->diag, TL_DIAG_TRUNCATED, line,
                "file ends inside the \"%s\" entry's payload (kept as read)",
                kind->string);
  if (rec.payload.ptr)
    rec.payload_buf = payload;
  st->on_record(st->ctx, &rec);
  if (!payload->data) /* taken by the callback */
    tl_buf_init(payload);
}

/* Blank lines after a payload's last line are the payload's own last lines
 * (a payload ending in "\n" is logged with a last line of "\t" alone) when,
 * and only when, the payload's md5 says so; otherwise they separate entries. */
static void keep_trailing_blank_lines(const cJSON *env, tl_buf *payload,
                                      bool *any_payload, size_t blank_lines) {
  const cJSON *md5 = cJSON_GetObjectItemCaseSensitive(env, "has_payload");
  if (!cJSON_IsString(md5) || !is_md5_hex(md5->valuestring))
    return;
  size_t len = payload->len;
  bool any = *any_payload;
  for (size_t k = 0; k < blank_lines; k++) {
    if (any)
      tl_buf_putc(payload, '\n');
    any = true;
  }
  char digest[MD5_DIGEST_STRING_LENGTH];
  MD5Data((const uint8_t *)payload->data, payload->len, digest);
  if (strncasecmp(digest, md5->valuestring, 32) == 0) {
    *any_payload = true;
    return;
  }
  payload->len = len;
  payload->data[len] = '\0';
}

bool tl_reader_run(const char *path, const tl_reader_options *options,
                   tl_diag *diag, tl_record_fn on_record, void *ctx,
                   char *error, size_t error_size) {
  FILE *file = fopen(path, "rb");
  if (!file) {
    snprintf(error, error_size, "cannot open %s: %s", path, strerror(errno));
    return false;
  }
  struct stat st_info;
  line_source src = {0};
  src.file = file;
  src.options = options;
  src.chunk = tl_xmalloc(CHUNK_SIZE);
  if (fstat(fileno(file), &st_info) == 0)
    src.total_bytes = (uint64_t)st_info.st_size;
  src.next_progress = PROGRESS_STEP;

  reader_state st = {0};
  st.diag = diag;
  st.on_record = on_record;
  st.ctx = ctx;
  st.defer_md5 = options && options->defer_md5;

  tl_buf line, envelope, payload;
  tl_buf_init(&line);
  tl_buf_init(&envelope);
  tl_buf_init(&payload);
  size_t lineno = 0;
  bool had_newline = true;
  bool have = next_line(&src, &line, &had_newline);
  while (have) {
    lineno++;
    if (line.len == 0) {
      have = next_line(&src, &line, &had_newline);
      continue;
    }
    size_t env_line = lineno;
    if (line.data[0] == '\t') {
      tl_diag_add(diag, TL_DIAG_GLOG, env_line,
                  "payload line without an entry before it");
      have = next_line(&src, &line, &had_newline);
      continue;
    }
    size_t glog_start = 0;
    long off = find_glog(tl_buf_str(&line), &glog_start);
    if (off < 0) {
      tl_diag_add(diag, TL_DIAG_GLOG, env_line, "not a glog line");
      have = next_line(&src, &line, &had_newline);
      continue;
    }
    const char *parse_end = NULL;
    cJSON *env = cJSON_ParseWithLengthOpts(
        line.data + off, line.len - (size_t)off, &parse_end, false);
    size_t json_len =
        env && parse_end ? (size_t)(parse_end - line.data) - off : 0;
    /* Like the Rust tool (serde_json), characters after the envelope's
     * object make the line bad JSON (two envelopes run together, say). */
    if (env && parse_end) {
      while (parse_end < line.data + line.len &&
             (*parse_end == ' ' || *parse_end == '\t' || *parse_end == '\r'))
        parse_end++;
      if (parse_end < line.data + line.len) {
        cJSON_Delete(env);
        env = NULL;
      }
    }
    size_t error_column =
        env || !parse_end ? 0 : (size_t)(parse_end - line.data) + 1;
    /* Keep the envelope's text (the next lines are read into `line`). */
    tl_buf swap = envelope;
    envelope = line;
    line = swap;
    tl_str envelope_text = {envelope.data + off, json_len};
    /* Collect the payload lines (also for a broken envelope, which skips
     * them with it instead of reporting each as a bad glog line). */
    tl_buf_clear(&payload);
    bool any_payload = false;
    /* Blank lines are payload lines whose tab a whitespace-stripping editor
     * removed ("\t" alone): kept as empty lines when another payload line
     * follows; blank lines that end the payload are not part of it. */
    size_t blank_lines = 0;
    while ((have = next_line(&src, &line, &had_newline))) {
      if (line.len == 0) {
        lineno++;
        blank_lines++;
        continue;
      }
      if (line.data[0] != '\t')
        break;
      lineno++;
      for (; blank_lines; blank_lines--) {
        if (any_payload)
          tl_buf_putc(&payload, '\n');
        any_payload = true;
      }
      if (any_payload) {
        tl_buf_putc(&payload, '\n');
        tl_buf_append(&payload, line.data + 1, line.len - 1);
      } else { /* the first line becomes the payload, without a copy (a
                  JSON payload is one line, often megabytes) */
        tl_buf was_payload = payload;
        payload = line;
        line = was_payload;
        memmove(payload.data, payload.data + 1, payload.len - 1);
        payload.data[--payload.len] = '\0';
      }
      any_payload = true;
    }
    if (env && blank_lines)
      keep_trailing_blank_lines(env, &payload, &any_payload, blank_lines);
    if (!env) {
      tl_diag_add(diag, TL_DIAG_JSON, env_line,
                  "bad JSON envelope at column %zu%s", error_column,
                  any_payload ? " (its payload lines skipped)" : "");
      release_if_large(&payload);
      release_if_large(&envelope);
      continue;
    }
    /* The file ends in this entry (inside its envelope's line, in its
     * payload, or at a line's end after it): whether that is a cut is told
     * by the md5 (dispatch). */
    bool truncated =
        !have && cJSON_GetObjectItemCaseSensitive(env, "has_payload");
    tl_glog glog;
    read_glog(envelope.data, glog_start, (size_t)off, &glog);
    dispatch(&st, env, envelope_text, &glog, env_line, &payload, any_payload,
             truncated);
    cJSON_Delete(env);
    release_if_large(&payload);
    release_if_large(&envelope);
  }
  bool ok = !src.read_error;
  if (!ok)
    snprintf(error, error_size, "error reading %s: %s", path, strerror(errno));
  if (options && options->progress)
    options->progress(options->progress_ctx, src.bytes_read, src.total_bytes);
  tl_buf_free(&line);
  tl_buf_free(&envelope);
  tl_buf_free(&payload);
  if (options && options->keep_strings)
    *options->keep_strings = st.strings;
  else
    tl_string_table_free(&st.strings);
  free(src.chunk);
  fclose(file);
  return ok;
}
