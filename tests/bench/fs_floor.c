/* fs_floor.c: the file-system floor of a tlparse run (tests/bench/bench.py).
 * A minimal writer: it creates the tree that a listing names, the same
 * folders and the same files with the same sizes, on the disk where it is
 * run, and prints how long that took. No run of any tool that writes this
 * tree can take less on that disk, whatever it computes first.
 *
 *   fs_floor LISTING DEST
 *
 * LISTING has one entry a line, parents before their contents (the order
 * of a top-down walk): `d<TAB>PATH` for a folder, `f<TAB>SIZE<TAB>PATH`
 * for a file, PATH relative to the listed tree. DEST must not exist; it is
 * made, filled and left for the caller to delete (deleting is not timed).
 * Each file is created, written in one write(2) of SIZE bytes (from a
 * buffer of zeros; larger files in 1 MiB writes) and closed, as tlparse
 * writes a file it holds whole. The time printed (seconds, monotonic clock)
 * covers reading nothing but the listing already in memory; so does the
 * CPU time printed after it (user and system: on a page-cache disk the
 * writes are the kernel's copying, CPU that the same cores must give any
 * tool that writes this tree). Prints: WALL FILES FOLDERS BYTES CPU.
 * Standard C and POSIX only; built by bench.py with the system's cc.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "floor_clock.h"

enum { CHUNK = 1 << 20 };

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, n = 0;
  char *data = malloc(cap + 1);
  for (size_t got; data && (got = fread(data + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap)
      data = realloc(data, (cap *= 2) + 1);
  }
  fclose(f);
  if (data)
    data[n] = '\0';
  *len = n;
  return data;
}

static int write_size(int fd, const char *zeros, unsigned long long size) {
  while (size > 0) {
    size_t part = size < CHUNK ? (size_t)size : CHUNK;
    ssize_t w = write(fd, zeros, part);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    size -= (unsigned long long)w;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: fs_floor LISTING DEST\n");
    return 2;
  }
  size_t len;
  char *listing = read_all(argv[1], &len);
  char *zeros = calloc(1, CHUNK);
  if (!listing || !zeros) {
    fprintf(stderr, "fs_floor: cannot read %s\n", argv[1]);
    return 1;
  }
  if (chdir("/") != 0)
    return 1;
  char path[8192];
  size_t files = 0, folders = 0;
  unsigned long long bytes = 0;
  double start = now(), cpu_start = cpu_seconds();
  if (mkdir(argv[2], 0777) != 0) {
    fprintf(stderr, "fs_floor: mkdir %s: %s\n", argv[2], strerror(errno));
    return 1;
  }
  for (char *line = listing, *next; *line; line = next) {
    next = strchr(line, '\n');
    next = next ? (*next = '\0', next + 1) : line + strlen(line);
    if (line[0] == 'd' && line[1] == '\t') {
      snprintf(path, sizeof path, "%s/%s", argv[2], line + 2);
      if (mkdir(path, 0777) != 0) {
        fprintf(stderr, "fs_floor: mkdir %s: %s\n", path, strerror(errno));
        return 1;
      }
      folders++;
    } else if (line[0] == 'f' && line[1] == '\t') {
      char *end;
      unsigned long long size = strtoull(line + 2, &end, 10);
      if (*end != '\t')
        return 1;
      snprintf(path, sizeof path, "%s/%s", argv[2], end + 1);
      int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
      if (fd < 0 || write_size(fd, zeros, size) != 0 || close(fd) != 0) {
        fprintf(stderr, "fs_floor: %s: %s\n", path, strerror(errno));
        return 1;
      }
      files++;
      bytes += size;
    }
  }
  double took = now() - start, cpu = cpu_seconds() - cpu_start;
  printf("%.6f %zu %zu %llu %.6f\n", took, files, folders, bytes, cpu);
  free(listing);
  free(zeros);
  return 0;
}
