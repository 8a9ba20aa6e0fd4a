/* pipe_damage.c: preloaded (LD_PRELOAD) into tlparse by test_modes.py to
 * damage what a --all-ranks-html rank child sends its parent through the
 * pipe, the one pipe tlparse writes to besides its standard streams. Never
 * part of tlparse. Each write of n bytes to a pipe other than fds 0-2:
 *   TL_TEST_PIPE_CUT=k    writes n - k bytes (n > k) and tells n written;
 *   TL_TEST_PIPE_KEEP=k   writes the first k bytes (n > k) and tells n;
 *   TL_TEST_PIPE_EXTRA=k  writes the n bytes and k zero bytes after them.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef ssize_t (*write_fn)(int, const void *, size_t);

static size_t setting(const char *name) {
  const char *v = getenv(name);
  return v ? strtoul(v, NULL, 10) : 0;
}

ssize_t write(int fd, const void *data, size_t n) {
  static write_fn real;
  if (!real)
    real = (write_fn)dlsym(RTLD_NEXT, "write");
  struct stat st;
  if (fd <= 2 || fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode))
    return real(fd, data, n);
  size_t cut = setting("TL_TEST_PIPE_CUT");
  size_t keep = setting("TL_TEST_PIPE_KEEP");
  size_t extra = setting("TL_TEST_PIPE_EXTRA");
  if (cut && n > cut) {
    ssize_t w = real(fd, data, n - cut);
    return w < 0 ? w : (ssize_t)n;
  }
  if (keep && n > keep) {
    ssize_t w = real(fd, data, keep);
    return w < 0 ? w : (ssize_t)n;
  }
  ssize_t w = real(fd, data, n);
  if (extra && w == (ssize_t)n) {
    char zeros[64] = {0};
    for (size_t left = extra; left;) {
      size_t k = left < sizeof zeros ? left : sizeof zeros;
      if (real(fd, zeros, k) != (ssize_t)k)
        break;
      left -= k;
    }
  }
  return w;
}
