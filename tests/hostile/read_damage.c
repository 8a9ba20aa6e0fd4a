/* read_damage.c: preloaded (LD_PRELOAD) into tlparse by test_modes.py to
 * refuse reading some files: with TL_TEST_DENY_READ=SUFFIX, opening a path
 * that ends in SUFFIX for reading fails with EACCES (as a file left
 * unreadable by another user would). Never part of tlparse. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef int (*open_fn)(const char *, int, ...);

static int denied(const char *path, int flags) {
  const char *suffix = getenv("TL_TEST_DENY_READ");
  if (!suffix || !*suffix || (flags & O_ACCMODE) != O_RDONLY)
    return 0;
  size_t n = strlen(path), m = strlen(suffix);
  return n >= m && strcmp(path + n - m, suffix) == 0;
}

static int through(const char *name, const char *path, int flags, va_list ap) {
  open_fn real = (open_fn)dlsym(RTLD_NEXT, name);
  int mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, int) : 0;
  if (denied(path, flags)) {
    errno = EACCES;
    return -1;
  }
  return real(path, flags, mode);
}

int open(const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  int fd = through("open", path, flags, ap);
  va_end(ap);
  return fd;
}

int open64(const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  int fd = through("open64", path, flags, ap);
  va_end(ap);
  return fd;
}
