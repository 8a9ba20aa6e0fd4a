/* read_floor.c: the reading floor of a tlparse run (tests/bench/bench.py,
 * multi_rank_bench.py). A minimal reader: it reads each TORCH_TRACE log in
 * 1 MiB pieces, finds its lines, and computes the MD5 of every payload (the
 * lines after an envelope that begin with a tab, without the tab, joined by
 * line breaks: the bytes an envelope's has_payload md5 covers), as any tool
 * that checks each payload against its envelope must. It parses no JSON and
 * writes nothing, so no run that reads and checks these logs can spend less
 * CPU on it. Prints the wall and CPU seconds it took, the bytes read and the
 * payloads hashed.
 *
 *   read_floor LOG...
 *
 * Standard C and POSIX, with libmd's MD5 (the one tlparse uses); built by
 * the benchmarks with the system's cc and -lmd.
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

#include "floor_clock.h"

enum { PIECE = 1 << 20 };

/* One log's reading state: the line being assembled across pieces, and the
 * payload being hashed. */
typedef struct reading {
  char *line;
  size_t len, cap;
  MD5_CTX md5;
  bool in_payload;   /* lines since the last envelope are payload lines */
  bool payload_open; /* a payload line was hashed since that envelope */
  unsigned long long payloads;
} reading;

static void end_payload(reading *r) {
  if (r->payload_open) {
    unsigned char digest[MD5_DIGEST_LENGTH];
    MD5Final(digest, &r->md5);
    r->payloads++;
  }
  r->payload_open = false;
}

static void take_line(reading *r, const char *p, size_t n) {
  if (n > 0 && p[0] == '\t') {
    if (!r->payload_open) {
      MD5Init(&r->md5);
      r->payload_open = true;
    } else {
      MD5Update(&r->md5, (const unsigned char *)"\n", 1);
    }
    MD5Update(&r->md5, (const unsigned char *)p + 1, n - 1);
  } else {
    end_payload(r); /* an envelope (or any other line) ends a payload */
  }
}

static int read_log(const char *path, char *piece, unsigned long long *bytes,
                    unsigned long long *payloads) {
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
  *payloads += r.payloads;
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
  unsigned long long bytes = 0, payloads = 0;
  double start = now(), cpu_start = cpu_seconds();
  for (int i = 1; i < argc; i++)
    if (read_log(argv[i], piece, &bytes, &payloads) != 0)
      return 1;
  printf("%.6f %.6f %llu %llu\n", now() - start, cpu_seconds() - cpu_start,
         bytes, payloads);
  free(piece);
  return 0;
}
