/* mapped_text.c: texts mapped from their files, their pages given back as
 * the analyses pass them (mapped_text.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise, O_NOFOLLOW */
#include "util/mapped_text.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fsutil.h"

/* The texts mapped now: at most two per view being analyzed (its code and
 * an FX graph on the graph thread), one view per core. One that finds no
 * free place is mapped but never given back. */
enum { MAX_MAPPED = 256 };
static struct {
  const char *base;
  size_t len;
  size_t given_back; /* the end of the pages last given back */
} mapped[MAX_MAPPED];
static pthread_mutex_t mapped_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t page_size(void) {
  long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? (size_t)page : 4096;
}

/* Maps the open regular file `fd` of `len` bytes (not closed here). */
static bool map_fd(tl_mapped_text *m, int fd, size_t len) {
  size_t page = page_size();
  /* Zeroed pages reserved past the file's end, then the file mapped over
   * their start: the text is followed by a NUL even when it fills its last
   * page, as a tl_buf's would be. */
  size_t span = (len / page + 1) * page;
  char *base = mmap(NULL, span, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED)
    return false;
  if (mmap(base, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) ==
      MAP_FAILED) {
    munmap(base, span);
    return false;
  }
  m->text = (tl_str){base, len};
  m->span = span;
  pthread_mutex_lock(&mapped_lock);
  for (int i = 0; i < MAX_MAPPED; i++)
    if (!mapped[i].base) {
      mapped[i].base = base;
      mapped[i].len = len;
      mapped[i].given_back = 0;
      break;
    }
  pthread_mutex_unlock(&mapped_lock);
  return true;
}

/* The size of the open `fd` when it is a regular file to map (at least
 * `min_size` bytes), else 0. */
static size_t size_to_map(int fd, size_t min_size) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
      (size_t)st.st_size < min_size || (uint64_t)st.st_size >= SIZE_MAX / 2)
    return 0;
  return (size_t)st.st_size;
}

bool tl_mapped_text_open(tl_mapped_text *m, const char *path, size_t min_size) {
  memset(m, 0, sizeof *m);
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return false;
  size_t len = size_to_map(fd, min_size);
  bool ok = len && map_fd(m, fd, len);
  close(fd);
  return ok;
}

int tl_mapped_text_load(tl_mapped_text *m, tl_buf *into, const char *path,
                        size_t min_size, char *error, size_t error_size) {
  memset(m, 0, sizeof *m);
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) /* a link, or an error: read (or said) as tl_fs_read_file does */
    return tl_fs_read_file(path, into, error, error_size) ? 0 : -1;
  size_t len = size_to_map(fd, min_size);
  int result = len && map_fd(m, fd, len) ? 1 : -1;
  if (result < 0)
    result = tl_fs_read_fd(fd, path, into, error, error_size) ? 0 : -1;
  close(fd);
  return result;
}

void tl_mapped_text_close(tl_mapped_text *m) {
  if (!m->span)
    return;
  pthread_mutex_lock(&mapped_lock);
  for (int i = 0; i < MAX_MAPPED; i++)
    if (mapped[i].base == m->text.ptr)
      mapped[i].base = NULL;
  pthread_mutex_unlock(&mapped_lock);
  munmap((void *)m->text.ptr, m->span);
  memset(m, 0, sizeof *m);
}

void tl_text_passed(const char *place) {
  pthread_mutex_lock(&mapped_lock);
  for (int i = 0; i < MAX_MAPPED; i++) {
    const char *base = mapped[i].base;
    if (!base || place < base || place > base + mapped[i].len)
      continue;
    size_t page = page_size();
    size_t end = (size_t)(place - base) / page * page;
    /* Once a megabyte further on, or behind (a new pass read the start
     * again): every page before `end` goes back. */
    size_t last = mapped[i].given_back;
    if (end >= last + TL_TEXT_PASSED_EVERY ||
        end + TL_TEXT_PASSED_EVERY <= last) {
      madvise((void *)base, end, MADV_DONTNEED);
      mapped[i].given_back = end;
    }
    break;
  }
  pthread_mutex_unlock(&mapped_lock);
}

bool tl_text_has_nul(tl_str text) {
  for (size_t at = 0; at < text.len; at += TL_TEXT_PASSED_EVERY) {
    size_t n = text.len - at < TL_TEXT_PASSED_EVERY ? text.len - at
                                                    : TL_TEXT_PASSED_EVERY;
    if (memchr(text.ptr + at, '\0', n))
      return true;
    tl_text_passed(text.ptr + at + n);
  }
  return false;
}
