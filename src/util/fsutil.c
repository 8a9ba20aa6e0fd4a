/* fsutil.c: folders, atomic file writes, safe removal and safe names. */
#define _GNU_SOURCE /* copy_file_range */
#include "util/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool tl_fs_mkdirs(const char *path, char *error, size_t error_size) {
  tl_fs_made made;
  return tl_fs_mkdirs_made(path, &made, error, error_size);
}

bool tl_fs_made_note(tl_fs_made *made, const char *path) {
  size_t n = strlen(path);
  if (n >= sizeof made->path || made->count >= TL_FS_MADE_MAX)
    return false;
  if (made->count) {
    size_t deepest = made->ends[made->count - 1];
    if (n <= deepest || path[deepest] != '/' ||
        memcmp(path, made->path, deepest) != 0)
      return false;
  }
  memcpy(made->path, path, n + 1);
  made->ends[made->count++] = n;
  return true;
}

bool tl_fs_mkdirs_made(const char *path, tl_fs_made *made, char *error,
                       size_t error_size) {
  char *copy = tl_xstrdup(path);
  size_t n = strlen(copy);
  made->count = 0;
  made->path[0] = '\0';
  for (size_t i = 1; i <= n; i++) {
    if (copy[i] != '/' && copy[i] != '\0')
      continue;
    char saved = copy[i];
    copy[i] = '\0';
    if (mkdir(copy, 0777) == 0) {
      tl_fs_made_note(made, copy);
    } else if (errno != EEXIST) {
      snprintf(error, error_size, "cannot create folder %s: %s", copy,
               strerror(errno));
      free(copy);
      return false;
    }
    copy[i] = saved;
  }
  free(copy);
  if (!tl_fs_is_dir(path)) {
    snprintf(error, error_size, "cannot create folder %s: not a folder", path);
    return false;
  }
  return true;
}

bool tl_fs_remove_made(tl_fs_made *made) {
  bool deepest = false;
  for (size_t i = made->count; i-- > 0;) {
    made->path[made->ends[i]] = '\0';
    bool removed = rmdir(made->path) == 0;
    if (i == made->count - 1)
      deepest = removed;
  }
  made->count = 0;
  return deepest;
}

bool tl_fs_mkdirs_in(const char *root, const char *rel, char *error,
                     size_t error_size) {
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/", root);
  size_t start = path.len;
  tl_buf_puts(&path, rel);
  bool ok = true;
  for (size_t i = start; ok && i <= path.len; i++) {
    if (path.data[i] != '/' && path.data[i] != '\0')
      continue;
    if (i == start || path.data[i - 1] == '/')
      continue; /* an empty component */
    char saved = path.data[i];
    path.data[i] = '\0';
    if (mkdir(path.data, 0777) != 0 && errno != EEXIST) {
      snprintf(error, error_size, "cannot create folder %s: %s", path.data,
               strerror(errno));
      ok = false;
    }
    path.data[i] = saved;
  }
  if (ok && !tl_fs_is_dir(path.data)) {
    snprintf(error, error_size, "cannot create folder %s: not a folder",
             path.data);
    ok = false;
  }
  tl_buf_free(&path);
  return ok;
}

bool tl_fs_writer_open(tl_fs_writer *w, const char *path, char *error,
                       size_t error_size) {
  /* O_NOFOLLOW: a symlink planted at an output name is never written
   * through. Atomicity comes from the staging folder (see main.c). */
  w->path = path;
  w->error[0] = '\0';
  w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0666);
  if (w->fd < 0) {
    snprintf(error, error_size, "cannot write %s: %s", path, strerror(errno));
    return false;
  }
  return true;
}

void tl_fs_writer_write(void *writer, const char *data, size_t len) {
  tl_fs_writer *w = writer;
  while (len && !w->error[0]) {
    ssize_t n = write(w->fd, data, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      snprintf(w->error, sizeof w->error, "cannot write %s: %s", w->path,
               strerror(errno));
      return;
    }
    data += n;
    len -= (size_t)n;
  }
}

bool tl_fs_writer_close(tl_fs_writer *w, char *error, size_t error_size) {
  if (close(w->fd) != 0 && !w->error[0])
    snprintf(w->error, sizeof w->error, "cannot write %s: %s", w->path,
             strerror(errno));
  w->fd = -1;
  if (!w->error[0])
    return true;
  snprintf(error, error_size, "%s", w->error);
  return false;
}

bool tl_fs_write_file(const char *path, const void *data, size_t len,
                      char *error, size_t error_size) {
  tl_fs_writer w;
  if (!tl_fs_writer_open(&w, path, error, error_size))
    return false;
  tl_fs_writer_write(&w, data, len);
  return tl_fs_writer_close(&w, error, error_size);
}

bool tl_fs_reader_open(tl_fs_reader *r, const char *path, char *error,
                       size_t error_size) {
  struct stat st;
  memset(r, 0, sizeof *r);
  r->file = fopen(path, "rb");
  const char *problem = NULL;
  if (!r->file || fstat(fileno(r->file), &st) != 0)
    problem = strerror(errno);
  else if (!S_ISREG(st.st_mode))
    problem = "not a regular file";
  if (!problem) {
    r->size = (size_t)st.st_size;
    return true;
  }
  snprintf(error, error_size, "cannot read %s: %s", path, problem);
  tl_fs_reader_close(r);
  return false;
}

size_t tl_fs_reader_read(tl_fs_reader *r, char *buf, size_t cap) {
  if (!r->file || r->failed)
    return 0;
  size_t n = fread(buf, 1, cap, r->file);
  r->read += n;
  if ((n < cap && ferror(r->file)) || r->read > r->size ||
      (n == 0 && r->read < r->size))
    r->failed = true;
  return r->failed ? 0 : n;
}

void tl_fs_reader_close(tl_fs_reader *r) {
  if (r->file)
    fclose(r->file);
  r->file = NULL;
  r->size = r->read = 0;
  r->failed = false;
}

/* Reads into `out` after what it holds; returns the byte count, or -1 with
 * errno set. Bytes go straight into the buffer; when it is full, a read into
 * a small block tells the end of the file (no growth for it). */
static ssize_t read_into(int fd, tl_buf *out) {
  size_t total = 0;
  for (;;) {
    size_t room = out->cap - out->len - 1;
    char probe[4096];
    char *at = room ? out->data + out->len : probe;
    size_t want = room ? room : sizeof probe;
    ssize_t n = read(fd, at, want);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -1;
    if (n == 0)
      return (ssize_t)total;
    if (room) {
      out->len += (size_t)n;
      out->data[out->len] = '\0';
    } else {
      tl_buf_append(out, probe, (size_t)n);
    }
    total += (size_t)n;
  }
}

bool tl_fs_read_fd(int fd, const char *path, tl_buf *out, char *error,
                   size_t error_size) {
  /* A buffer of the file's size, not grown by doubling: the texts a view
   * reads back can be tens of megabytes. */
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    tl_buf_reserve_exact(out, (size_t)st.st_size);
  bool ok;
  if (out->drain) { /* a draining buffer hands on what it is given */
    char chunk[65536];
    ssize_t n;
    while ((n = read(fd, chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR))
      if (n > 0)
        tl_buf_append(out, chunk, (size_t)n);
    ok = n == 0;
  } else {
    ok = read_into(fd, out) >= 0;
  }
  if (!ok)
    snprintf(error, error_size, "cannot read %s: %s", path, strerror(errno));
  return ok;
}

bool tl_fs_read_file(const char *path, tl_buf *out, char *error,
                     size_t error_size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(error, error_size, "cannot read %s: %s", path, strerror(errno));
    return false;
  }
  bool ok = tl_fs_read_fd(fd, path, out, error, error_size);
  close(fd);
  return ok;
}

char *tl_fs_read_all(const char *path, size_t *len) {
  tl_buf b;
  tl_buf_init(&b);
  char error[512];
  if (!tl_fs_read_file(path, &b, error, sizeof error)) {
    tl_buf_free(&b);
    return NULL;
  }
  if (len)
    *len = b.len;
  return tl_buf_detach(&b);
}

static int remove_entry(const char *path, const struct stat *sb, int flag,
                        struct FTW *ftw) {
  (void)sb;
  (void)ftw;
  int rc = (flag == FTW_DP) ? rmdir(path) : unlink(path);
  return rc == 0 || errno == ENOENT ? 0 : -1;
}

bool tl_fs_remove_tree(const char *path, char *error, size_t error_size) {
  struct stat st;
  if (lstat(path, &st) != 0)
    return errno == ENOENT || errno == ENOTDIR
               ? true
               : (snprintf(error, error_size, "cannot remove %s: %s", path,
                           strerror(errno)),
                  false);
  if (!S_ISDIR(st.st_mode)) {
    if (unlink(path) == 0)
      return true;
    snprintf(error, error_size, "cannot remove %s: %s", path, strerror(errno));
    return false;
  }
  /* FTW_PHYS: symlinks are reported as links and unlinked, never followed;
   * FTW_MOUNT: stay on the output folder's file system. */
  if (nftw(path, remove_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0) {
    snprintf(error, error_size, "cannot remove %s: %s", path, strerror(errno));
    return false;
  }
  return true;
}

bool tl_fs_exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

bool tl_fs_is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

size_t tl_fs_count_files(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    tl_buf path;
    tl_buf_init(&path);
    tl_buf_printf(&path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (lstat(path.data, &st) == 0 && S_ISREG(st.st_mode))
      n++;
    tl_buf_free(&path);
  }
  closedir(d);
  return n;
}

char *tl_fs_latest_file(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return NULL;
  char *best = NULL;
  struct timespec best_time = {0, 0};
  struct dirent *e;
  tl_buf path;
  tl_buf_init(&path);
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    tl_buf_clear(&path);
    tl_buf_printf(&path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path.data, &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    if (!best || st.st_mtim.tv_sec > best_time.tv_sec ||
        (st.st_mtim.tv_sec == best_time.tv_sec &&
         st.st_mtim.tv_nsec > best_time.tv_nsec)) {
      free(best);
      best = tl_xstrdup(path.data);
      best_time = st.st_mtim;
    }
  }
  tl_buf_free(&path);
  closedir(d);
  return best;
}

/* Names are also cut to 200 bytes: with the `_<N>.<ext>` suffix they stay
 * under NAME_MAX (255), so a long name from a trace cannot make its write
 * fail (the running number keeps cut names distinct). */
enum { SAFE_NAME_MAX = 200 };

void tl_fs_safe_name(tl_buf *out, tl_str name) {
  if (name.len > SAFE_NAME_MAX)
    name.len = SAFE_NAME_MAX;
  for (size_t i = 0; i < name.len; i++) {
    unsigned char c = (unsigned char)name.ptr[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              (c == '.' && i > 0);
    tl_buf_putc(out, ok ? (char)c : '_');
  }
  if (name.len == 0)
    tl_buf_putc(out, '_');
}

int tl_fs_append_file(FILE *out, const char *path, size_t skip) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  struct stat st;
  int result = 1, failure = 0; /* the failing call's errno */
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    result = -1;
  else if ((size_t)st.st_size <= skip)
    result = 0;
  else if (fflush(out) != 0) {
    failure = errno;
    result = -2;
  }
  loff_t at = (loff_t)skip;
  /* The kernel's copy, until it says it cannot (another file system, an
   * old kernel: nothing copied yet), then the rest through a buffer. */
  while (result == 1) {
    ssize_t n = copy_file_range(fd, &at, fileno(out), NULL,
                                (size_t)st.st_size - (size_t)at, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    if (at >= st.st_size)
      result = 2;
  }
  if (result == 1) {
    char chunk[65536];
    ssize_t n;
    while ((n = pread(fd, chunk, sizeof chunk, at)) > 0 ||
           (n < 0 && errno == EINTR)) {
      if (n < 0)
        continue;
      at += n;
      if (fwrite(chunk, 1, (size_t)n, out) != (size_t)n) {
        failure = errno;
        result = -2;
        break;
      }
    }
    if (result == 1 && n != 0)
      failure = errno;
    if (result == 1)
      result = n == 0 ? 2 : -2;
  }
  close(fd);
  if (result == -2)
    errno = failure ? failure : EIO; /* not what close may have left */
  return result == 2 ? 1 : result;
}
