/* fuzz_discovery.c: rank-log discovery of --all-ranks-html on any folder
 * listing (src/multirank/multi_rank.c, tl_multi_rank_count_logs).
 *
 * Input: file names separated by '\n' (at most 64, each cut to 200 bytes;
 * '/' and NUL become '_'). A name whose first byte is 0x01 is made as a
 * folder, 0x02 as a FIFO, 0x03 as a symbolic link to a regular file, 0x04
 * as a dangling link (the marker byte is dropped); any other as a regular
 * file. Invariant: the count equals this harness's own reading of the
 * rule (docs/multi-rank.md): a regular file, or a link to one, named
 * `dedicated_log_torch_trace_rank_<N>[_anything].log`, N decimal digits
 * (one '+' allowed before them) from 0 to 2^32-1. Nothing is opened for
 * reading, so a FIFO cannot hang it.
 */
#define _XOPEN_SOURCE 700
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "multirank/multi_rank.h"
#include "util/fsutil.h"
#include "work_dir.h"

enum { MAX_NAMES = 64, MAX_NAME = 200 };

static const char *work_dir;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  work_dir = fuzz_work_dir("discovery");
  return 0;
}

/* The rule, read independently of multi_rank.c's rank_of. */
static bool names_a_rank_log(const char *name) {
  static const char prefix[] = "dedicated_log_torch_trace_rank_";
  size_t n = strlen(name), p = strlen(prefix);
  if (n < p + 4 || memcmp(name, prefix, p) != 0 ||
      memcmp(name + n - 4, ".log", 4) != 0)
    return false;
  /* The rank: from after the prefix to the first '_' or the ".log". */
  char number[MAX_NAME + 1];
  size_t k = 0;
  for (size_t i = p; i < n - 4 && name[i] != '_'; i++)
    number[k++] = name[i];
  number[k] = '\0';
  const char *digits = number[0] == '+' ? number + 1 : number;
  if (!*digits || strspn(digits, "0123456789") != strlen(digits))
    return false;
  while (*digits == '0' && digits[1])
    digits++;
  return strlen(digits) < 10 ||
         (strlen(digits) == 10 && strcmp(digits, "4294967295") <= 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_work_remove_at_exit();
  char error[512];
  tl_buf dir, path, target;
  tl_buf_init(&dir);
  tl_buf_init(&path);
  tl_buf_init(&target);
  tl_buf_printf(&dir, "%s/d", work_dir);
  tl_fs_remove_tree(dir.data, error, sizeof error);
  FUZZ_CHECK(mkdir(dir.data, 0700) == 0);
  tl_buf_printf(&target, "%s/target", work_dir);
  FILE *t = fopen(target.data, "w");
  FUZZ_CHECK(t);
  fclose(t);

  size_t expected = 0, names = 0;
  const char *p = (const char *)data, *end = p + size;
  while (p < end && names < MAX_NAMES) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *stop = nl ? nl : end;
    int kind = p < stop && *p >= 1 && *p <= 4 ? *p++ : 0;
    char name[MAX_NAME + 1];
    size_t len = 0;
    for (const char *c = p; c < stop && len < MAX_NAME; c++)
      name[len++] = *c == '/' || *c == '\0' ? '_' : *c;
    name[len] = '\0';
    p = nl ? nl + 1 : end;
    if (!len || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
      continue;
    tl_buf_clear(&path);
    tl_buf_printf(&path, "%s/%s", dir.data, name);
    struct stat st;
    if (lstat(path.data, &st) == 0)
      continue; /* the same name twice */
    names++;
    bool made;
    if (kind == 1) {
      made = mkdir(path.data, 0700) == 0;
    } else if (kind == 2) {
      made = mkfifo(path.data, 0600) == 0;
    } else if (kind == 3) {
      made = symlink(target.data, path.data) == 0;
    } else if (kind == 4) {
      made = symlink("missing", path.data) == 0;
    } else {
      FILE *f = fopen(path.data, "w");
      made = f != NULL;
      if (f)
        fclose(f);
    }
    FUZZ_CHECK(made);
    if ((kind == 0 || kind == 3) && names_a_rank_log(name))
      expected++;
  }
  size_t found = tl_multi_rank_count_logs(dir.data);
  if (found != expected)
    fprintf(stderr, "found %zu rank logs, expected %zu\n", found, expected);
  FUZZ_CHECK(found == expected);
  tl_fs_remove_tree(dir.data, error, sizeof error);
  tl_buf_free(&dir);
  tl_buf_free(&path);
  tl_buf_free(&target);
  return 0;
}
