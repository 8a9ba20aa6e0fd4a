/* compile_files.c: a compile's files read back (compile_files.h). */
#include "diff/compile_files.h"

#include "util/fsutil.h"

void tl_compile_file_read(const char *out_dir, const tl_artifact *a,
                          tl_compile_file_text *t) {
  tl_buf_init(&t->text);
  t->ok = false;
  if (!a || !a->text_path)
    return;
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s", out_dir, a->text_path);
  char error[256];
  t->ok = tl_fs_read_file(path.data, &t->text, error, sizeof error);
  tl_buf_free(&path);
}

tl_compile_files tl_compile_files_backward(const tl_compile_files *c) {
  tl_compile_files b = *c;
  b.post_grad = c->bw_post_grad;
  b.code = c->bw_code;
  b.kernel_code = c->bw_kernel_code;
  b.mappings = c->bw_mappings;
  b.other_mappings = c->mappings;
  return b;
}
