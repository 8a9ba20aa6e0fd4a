/* work_dir.c: see work_dir.h. Its own file so that mkdtemp's feature macro
 * is set here only, not in every harness that includes fuzz.h. */
#define _XOPEN_SOURCE 700
#include "work_dir.h"

#include <stdbool.h>

#include "fuzz.h"
#include "util/fsutil.h"

static char *work_dir;

const char *fuzz_work_dir(const char *target) {
  if (work_dir)
    return work_dir;
  const char *tmp = getenv("TMPDIR");
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/tl-fuzz-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp",
                target);
  FUZZ_CHECK(mkdtemp(path.data));
  work_dir = tl_buf_detach(&path);
  return work_dir;
}

char *fuzz_work_path(const char *name) {
  FUZZ_CHECK(work_dir);
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s", work_dir, name);
  return tl_buf_detach(&path);
}

static void remove_work(void) {
  char error[512];
  tl_fs_remove_tree(work_dir, error, sizeof error);
}

void fuzz_work_remove_at_exit(void) {
  static bool registered;
  if (registered || !work_dir)
    return;
  atexit(remove_work);
  registered = true;
}
