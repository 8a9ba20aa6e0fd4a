/* compile_files.c: a compile's files read back (compile_files.h). */
#include "diff/compile_files.h"

#include <string.h>

#include "util/fsutil.h"

void tl_compile_reader_init(tl_compile_reader *r, const char *out_dir) {
  memset(r, 0, sizeof *r);
  r->out_dir = out_dir;
}

void tl_compile_reader_free(tl_compile_reader *r) {
  for (size_t i = 0; i < r->count; i++)
    tl_buf_free(&r->texts[i].text);
  memset(r, 0, sizeof *r);
}

static tl_compile_reader_text *kept_text(tl_compile_reader *r,
                                         const char *text_path) {
  for (size_t i = 0; i < r->count; i++)
    if (strcmp(r->texts[i].text_path, text_path) == 0)
      return &r->texts[i];
  return NULL;
}

static void drop_least_recent(tl_compile_reader *r) {
  size_t oldest = 0;
  for (size_t i = 1; i < r->count; i++)
    if (r->texts[i].last_read < r->texts[oldest].last_read)
      oldest = i;
  r->bytes -= r->texts[oldest].text.len;
  tl_buf_free(&r->texts[oldest].text);
  r->texts[oldest] = r->texts[--r->count];
}

/* Keeps a copy of `text` for the next read of `text_path` when it fits the
 * bounds (an empty text is read again: its buffer may hold no bytes). */
static void keep_text(tl_compile_reader *r, const char *text_path,
                      const tl_buf *text) {
  if (!text->len || text->len > TL_COMPILE_READER_BYTES / 4)
    return;
  while (r->count && (r->count == TL_COMPILE_READER_TEXTS ||
                      r->bytes + text->len > TL_COMPILE_READER_BYTES))
    drop_least_recent(r);
  tl_compile_reader_text *k = &r->texts[r->count++];
  k->text_path = text_path;
  tl_buf_init(&k->text);
  tl_buf_append(&k->text, text->data, text->len);
  k->last_read = r->reads;
  r->bytes += text->len;
}

void tl_compile_file_read(tl_compile_reader *r, const tl_artifact *a,
                          tl_compile_file_text *t) {
  tl_buf_init(&t->text);
  t->ok = false;
  if (!a || !a->text_path)
    return;
  r->reads++;
  tl_compile_reader_text *k = kept_text(r, a->text_path);
  if (k) {
    k->last_read = r->reads;
    tl_buf_append(&t->text, k->text.data, k->text.len);
    t->ok = true;
    return;
  }
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s", r->out_dir, a->text_path);
  char error[256];
  t->ok = tl_fs_read_file(path.data, &t->text, error, sizeof error);
  tl_buf_free(&path);
  if (t->ok)
    keep_text(r, a->text_path, &t->text);
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
