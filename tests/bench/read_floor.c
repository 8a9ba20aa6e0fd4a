/* read_floor.c: the reading floor of a tlparse run (tests/bench/bench.py,
 * multi_rank_bench.py). A minimal reader: it reads each TORCH_TRACE log in
 * 1 MiB pieces, finds its lines, computes the MD5 of every payload (the
 * lines after an envelope that begin with a tab, without the tab, joined by
 * line breaks: the bytes an envelope's has_payload md5 covers), as any tool
 * that checks each payload against its envelope must, and reads once, with
 * yajl and no callbacks past what tells a payload's kind, every JSON text a
 * tool that writes the Rust tool's files must re-write: each envelope
 * (raw.jsonl), and the payload of each chromium_event
 * (chromium_events.json) and of each artifact with "encoding": "json" (its
 * pretty .json file). It builds no tree and writes nothing, so no run that
 * reads, checks and re-writes these logs can spend less CPU on it. Prints
 * the wall and CPU seconds it took, the bytes read, the payloads hashed and
 * the bytes of JSON read.
 *
 *   read_floor LOG...
 *
 * Standard C and POSIX, with libmd's MD5 and yajl (the ones tlparse uses);
 * built by the benchmarks with the system's cc, -lmd and -lyajl.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <md5.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yajl/yajl_parse.h>

#include "floor_clock.h"

enum { PIECE = 1 << 20 };

/* What an envelope's callbacks learn: whether its payload is JSON that is
 * re-written (a chromium_event, or an artifact whose "encoding" is
 * "json"). */
typedef struct envelope_kind {
  int depth;
  bool in_artifact, encoding_key, json_payload;
} envelope_kind;

static int on_start_map(void *ctx) {
  ((envelope_kind *)ctx)->depth++;
  return 1;
}

static int on_end_map(void *ctx) {
  envelope_kind *k = ctx;
  if (--k->depth == 1)
    k->in_artifact = false;
  return 1;
}

static bool key_is(const unsigned char *key, size_t len, const char *name) {
  return len == strlen(name) && memcmp(key, name, len) == 0;
}

static int on_map_key(void *ctx, const unsigned char *key, size_t len) {
  envelope_kind *k = ctx;
  k->encoding_key = false;
  if (k->depth == 1) {
    k->in_artifact = key_is(key, len, "artifact");
    if (key_is(key, len, "chromium_event"))
      k->json_payload = true;
  } else if (k->depth == 2 && k->in_artifact) {
    k->encoding_key = key_is(key, len, "encoding");
  }
  return 1;
}

static int on_string(void *ctx, const unsigned char *s, size_t len) {
  envelope_kind *k = ctx;
  if (k->encoding_key && key_is(s, len, "json"))
    k->json_payload = true;
  k->encoding_key = false;
  return 1;
}

static const yajl_callbacks ENVELOPE = {
    NULL,         NULL,       NULL,       NULL, NULL, on_string,
    on_start_map, on_map_key, on_end_map, NULL, NULL};

/* One log's reading state: the line being assembled across pieces, the
 * payload being hashed, and the JSON payload being read. */
typedef struct reading {
  char *line;
  size_t len, cap;
  MD5_CTX md5;
  bool payload_open; /* a payload line was hashed since that envelope */
  bool json;         /* the payload is JSON to re-write: kept to be read */
  char *text;        /* that payload's lines so far, joined */
  size_t text_len, text_cap;
  unsigned long long payloads, json_bytes;
} reading;

/* Reads a JSON text once, as tlparse's re-writing must. */
static void read_json(const char *text, size_t len) {
  yajl_handle h = yajl_alloc(NULL, NULL, NULL);
  yajl_parse(h, (const unsigned char *)text, len);
  yajl_complete_parse(h);
  yajl_free(h);
}

static void keep_text(reading *r, const char *p, size_t n) {
  if (r->text_len + n > r->text_cap)
    r->text = realloc(r->text, r->text_cap = (r->text_len + n) * 2);
  memcpy(r->text + r->text_len, p, n);
  r->text_len += n;
}

static void end_payload(reading *r) {
  if (r->payload_open) {
    unsigned char digest[MD5_DIGEST_LENGTH];
    MD5Final(digest, &r->md5);
    r->payloads++;
  }
  r->payload_open = false;
  if (r->json) {
    read_json(r->text, r->text_len);
    r->json_bytes += r->text_len;
    r->text_len = 0;
    r->json = false;
  }
}

/* An envelope line: its JSON (from the first '{') read once; a reader
 * for its payload when that is JSON to re-write. */
static void take_envelope(reading *r, const char *p, size_t n) {
  const char *brace = memchr(p, '{', n);
  if (!brace)
    return;
  size_t len = n - (size_t)(brace - p);
  envelope_kind kind = {0};
  yajl_handle h = yajl_alloc(&ENVELOPE, NULL, &kind);
  yajl_parse(h, (const unsigned char *)brace, len);
  yajl_complete_parse(h);
  yajl_free(h);
  r->json_bytes += len;
  r->json = kind.json_payload;
}

static void take_line(reading *r, const char *p, size_t n) {
  if (n > 0 && p[0] == '\t') {
    if (!r->payload_open) {
      MD5Init(&r->md5);
      r->payload_open = true;
    } else {
      MD5Update(&r->md5, (const unsigned char *)"\n", 1);
      if (r->json)
        keep_text(r, "\n", 1);
    }
    MD5Update(&r->md5, (const unsigned char *)p + 1, n - 1);
    if (r->json)
      keep_text(r, p + 1, n - 1);
  } else {
    end_payload(r); /* an envelope (or any other line) ends a payload */
    take_envelope(r, p, n);
  }
}

static int read_log(const char *path, char *piece, unsigned long long *bytes,
                    unsigned long long *payloads,
                    unsigned long long *json_bytes) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    fprintf(stderr, "read_floor: %s: %s\n", path, strerror(errno));
    return -1;
  }
  reading r = {0};
  for (;;) {
    ssize_t got = read(fd, piece, PIECE);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      fprintf(stderr, "read_floor: %s: %s\n", path, strerror(errno));
      close(fd);
      return -1;
    }
    if (got == 0)
      break;
    *bytes += (unsigned long long)got;
    const char *p = piece, *end = piece + got;
    for (const char *nl; (nl = memchr(p, '\n', (size_t)(end - p)));
         p = nl + 1) {
      if (r.len) { /* the line began in an earlier piece */
        size_t n = (size_t)(nl - p);
        if (r.len + n > r.cap)
          r.line = realloc(r.line, r.cap = (r.len + n) * 2);
        memcpy(r.line + r.len, p, n);
        take_line(&r, r.line, r.len + n);
        r.len = 0;
      } else {
        take_line(&r, p, (size_t)(nl - p));
      }
    }
    size_t rest = (size_t)(end - p);
    if (rest) {
      if (r.len + rest > r.cap)
        r.line = realloc(r.line, r.cap = (r.len + rest) * 2);
      memcpy(r.line + r.len, p, rest);
      r.len += rest;
    }
  }
  if (r.len)
    take_line(&r, r.line, r.len);
  end_payload(&r);
  close(fd);
  free(r.line);
  free(r.text);
  *payloads += r.payloads;
  *json_bytes += r.json_bytes;
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: read_floor LOG...\n");
    return 2;
  }
  char *piece = malloc(PIECE);
  if (!piece)
    return 1;
  unsigned long long bytes = 0, payloads = 0, json_bytes = 0;
  double start = now(), cpu_start = cpu_seconds();
  for (int i = 1; i < argc; i++)
    if (read_log(argv[i], piece, &bytes, &payloads, &json_bytes) != 0)
      return 1;
  printf("%.6f %.6f %llu %llu %llu\n", now() - start, cpu_seconds() - cpu_start,
         bytes, payloads, json_bytes);
  free(piece);
  return 0;
}
