/* fsutil.h: the file-system side of the emit stage.
 *
 * A run writes into a staging folder beside the output folder and renames it
 * into place at the end (main.c), so an interrupted run never leaves a report
 * that looks complete, and an old report stays whole until the new one is.
 * Removing an old output folder never follows a symbolic link out of it.
 * Every function returns false on failure with a message in `error`, but
 * tl_fs_writer_write, which keeps its error for tl_fs_writer_close.
 */
#ifndef TL_FSUTIL_H
#define TL_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/buf.h"

/* mkdir -p: every missing folder of `path`. */
bool tl_fs_mkdirs(const char *path, char *error, size_t error_size);
/* The folders one tl_fs_mkdirs_made call created, so that a caller can
 * remove exactly those: each is a prefix of `path`, `ends` holding their
 * lengths, shallowest first. Only the prefixes whose mkdir succeeded are
 * recorded: in `new/../keep/out` an existing `keep` is not one of them,
 * though it lies below the first folder made. At most TL_FS_MADE_MAX are
 * recorded, and none of TL_FS_MADE_PATH bytes or more (mkdir makes none
 * that long); folders not recorded are made but never removed (nor, then,
 * the folders holding them). */
enum { TL_FS_MADE_MAX = 64, TL_FS_MADE_PATH = 4096 /* Linux's PATH_MAX */ };
typedef struct tl_fs_made {
  char path[TL_FS_MADE_PATH];
  size_t ends[TL_FS_MADE_MAX];
  size_t count; /* 0: none made */
} tl_fs_made;
/* Records `path`, a folder the caller made itself (mkdtemp), as made, below
 * those already recorded; false, and nothing recorded, when it does not lie
 * below the deepest one recorded, is TL_FS_MADE_PATH bytes or longer, or
 * TL_FS_MADE_MAX are recorded already. `made` starts empty with count 0. */
bool tl_fs_made_note(tl_fs_made *made, const char *path);
/* mkdir -p, recording in *made what it created. */
bool tl_fs_mkdirs_made(const char *path, tl_fs_made *made, char *error,
                       size_t error_size);
/* Removes the folders *made records, deepest first, each only while empty
 * (rmdir), and empties *made; true when the deepest one was removed.
 * Async-signal-safe. */
bool tl_fs_remove_made(tl_fs_made *made);
/* The folders of `rel` under `root`, which must exist: `root` itself is
 * never made, so a folder a signal handler moved away (the staging folder,
 * outdir.h) is not made again by a thread still writing into it. */
bool tl_fs_mkdirs_in(const char *root, const char *rel, char *error,
                     size_t error_size);
bool tl_fs_write_file(const char *path, const void *data, size_t len,
                      char *error, size_t error_size);
/* A file written in pieces, for output too large to hold whole (a page
 * streamed through a draining tl_buf: tl_fs_writer_write is a
 * tl_buf_drain_fn). Opened like tl_fs_write_file, never through a symbolic
 * link; the first error is kept and the writes after it are skipped. `path`
 * must live until tl_fs_writer_close. */
typedef struct tl_fs_writer {
  int fd;
  const char *path;
  char error[512]; /* "" until something failed */
} tl_fs_writer;
bool tl_fs_writer_open(tl_fs_writer *w, const char *path, char *error,
                       size_t error_size);
void tl_fs_writer_write(void *writer, const char *data, size_t len);
/* Closes the file; false (with the first error) when any step failed. */
bool tl_fs_writer_close(tl_fs_writer *w, char *error, size_t error_size);
/* A regular file read a piece at a time, its size known from the start (a
 * page reads a huge compile's texts back from their files this way). */
typedef struct tl_fs_reader {
  FILE *file;
  size_t size, read;
  bool failed; /* a read error, or the file ended before `size` bytes */
} tl_fs_reader;
bool tl_fs_reader_open(tl_fs_reader *r, const char *path, char *error,
                       size_t error_size);
/* The next at most `cap` bytes; 0 at the end, on an error (failed) or when
 * closed. */
size_t tl_fs_reader_read(tl_fs_reader *r, char *buf, size_t cap);
void tl_fs_reader_close(tl_fs_reader *r);
bool tl_fs_read_file(const char *path, tl_buf *out, char *error,
                     size_t error_size);
/* tl_fs_read_file on a file already open as `fd` (read from where it is;
 * not closed); `path` only names it in the error. */
bool tl_fs_read_fd(int fd, const char *path, tl_buf *out, char *error,
                   size_t error_size);
/* The whole file, NUL-terminated and malloc'd, its length in *len; NULL when
 * it cannot be read. */
char *tl_fs_read_all(const char *path, size_t *len);
/* Removes `path` and everything under it; symlinks are removed, never
 * followed. A missing path is not an error. */
bool tl_fs_remove_tree(const char *path, char *error, size_t error_size);
bool tl_fs_exists(const char *path);
bool tl_fs_is_dir(const char *path);
/* The most recently modified regular file directly in `dir`, malloc'd; NULL
 * when there is none. */
char *tl_fs_latest_file(const char *dir);
/* How many regular files are directly in `dir` (links not followed; 0 when
 * it cannot be read). */
size_t tl_fs_count_files(const char *dir);
/* Reduces `name` to the safe file-name alphabet [A-Za-z0-9._-] (other bytes
 * become '_'; a leading '.' too), so it can never leave its folder. */
void tl_fs_safe_name(tl_buf *out, tl_str name);

/* Appends the regular file at `path`, from byte `skip` on, to `out`
 * (flushed first): copied by the kernel where it can (copy_file_range),
 * else through a buffer. 1 when appended, 0 when the file holds no more than
 * `skip` bytes (nothing written, `out` not touched), -1 when it cannot be
 * opened or is not a regular file, -2 when the copy failed (errno). */
int tl_fs_append_file(FILE *out, const char *path, size_t skip);

#endif
