/* replay_main.c: a libFuzzer-compatible replay driver for ctest.
 *
 *   fuzz_replay_reader DIR_OR_FILE...
 *
 * Runs LLVMFuzzerTestOneInput once on every regular file of each folder (in
 * name order, dotfiles and README* skipped) or on each file named. A folder
 * that does not exist is skipped with a message (the shared fixtures may be
 * absent); the run fails when no input at all was replayed, so a missing
 * committed corpus cannot pass unnoticed. Crashes and broken invariants
 * abort, which ctest reports as a failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "util/fsutil.h"

/* Harnesses that need no set-up leave this undefined. */
#pragma weak LLVMFuzzerInitialize

static size_t replay_file(const char *path) {
  tl_buf data;
  tl_buf_init(&data);
  char error[512];
  if (!tl_fs_read_file(path, &data, error, sizeof error)) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    tl_buf_free(&data);
    exit(1);
  }
  /* A private copy of exactly `len` bytes, so ASan catches reads past it. */
  uint8_t *copy = tl_xmalloc(data.len ? data.len : 1);
  memcpy(copy, data.data, data.len);
  LLVMFuzzerTestOneInput(copy, data.len);
  free(copy);
  tl_buf_free(&data);
  return 1;
}

static int by_name(const struct dirent **a, const struct dirent **b) {
  return strcmp((*a)->d_name, (*b)->d_name);
}

static size_t replay_dir(const char *dir) {
  struct dirent **names = NULL;
  int n = scandir(dir, &names, NULL, by_name);
  if (n < 0) {
    fprintf(stderr, "replay: cannot list %s\n", dir);
    exit(1);
  }
  size_t done = 0;
  tl_buf path;
  tl_buf_init(&path);
  for (int i = 0; i < n; i++) {
    const char *name = names[i]->d_name;
    bool skip = name[0] == '.' || strncmp(name, "README", 6) == 0;
    tl_buf_clear(&path);
    tl_buf_printf(&path, "%s/%s", dir, name);
    struct stat st;
    if (!skip && stat(path.data, &st) == 0 && S_ISREG(st.st_mode))
      done += replay_file(path.data);
    free(names[i]);
  }
  free(names);
  tl_buf_free(&path);
  return done;
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  size_t total = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      printf("replay: %s is absent: skipped\n", argv[i]);
      continue;
    }
    size_t n = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]);
    printf("replay: %zu inputs from %s\n", n, argv[i]);
    total += n;
  }
  if (total == 0) {
    fprintf(stderr, "replay: no input replayed\n");
    return 1;
  }
  printf("replay: %zu inputs, no crash\n", total);
  return 0;
}
