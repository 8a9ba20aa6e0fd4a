/* report_views.c: which artifacts of a compile folder form each provenance
 * view (one per node-mappings artifact, with the graphs and code logged
 * around it) and what each view's files are called, the Rust tool's names
 * kept. Part of emit/'s report (report.h); writes nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "emit/report_internal.h"

static bool is_pre(tl_role r) {
  return r == TL_ROLE_PRE_GRAD || r == TL_ROLE_PRE_GRAD_FALLBACK;
}
static bool is_post(tl_role r) {
  return r == TL_ROLE_POST_GRAD || r == TL_ROLE_POST_GRAD_FALLBACK;
}
static bool is_code(tl_role r) {
  return r == TL_ROLE_OUTPUT_CODE || r == TL_ROLE_AOT_WRAPPER;
}

/* The preferred graph of [from, to): the last of the preferred role, else
 * the last of the fallback role. */
static const tl_artifact *pick_graph(const tl_compile_dir *dir, size_t from,
                                     size_t to, tl_role preferred,
                                     tl_role fallback) {
  const tl_artifact *best = NULL, *second = NULL;
  for (size_t i = from; i < to; i++) {
    const tl_artifact *a = &dir->artifacts.items[i];
    if (a->role == preferred)
      best = a;
    else if (a->role == fallback)
      second = a;
  }
  return best ? best : second;
}

static const tl_artifact *pick_last(const tl_compile_dir *dir, size_t from,
                                    size_t to, bool (*match)(tl_role)) {
  const tl_artifact *found = NULL;
  for (size_t i = from; i < to; i++)
    if (match(dir->artifacts.items[i].role))
      found = &dir->artifacts.items[i];
  return found;
}

static bool is_kernels(tl_role r) { return r == TL_ROLE_AOT_KERNELS; }
static bool is_stack(tl_role r) { return r == TL_ROLE_STACK_TRACES; }
static bool starts_next_view(tl_role r) {
  return is_pre(r) || is_post(r) || r == TL_ROLE_NODE_MAPPINGS;
}

size_t tl_report_choose_views(const tl_compile_dir *dir, tl_view **views) {
  TL_VEC(tl_view) out = {0};
  size_t n = dir->artifacts.count;
  size_t segment_start = 0;
  const tl_artifact *carried_pre = NULL;
  for (size_t i = 0; i < n; i++) {
    if (dir->artifacts.items[i].role != TL_ROLE_NODE_MAPPINGS)
      continue;
    tl_view v = {0};
    v.dir = dir;
    v.mappings = &dir->artifacts.items[i];
    v.pre = pick_graph(dir, segment_start, i, TL_ROLE_PRE_GRAD,
                       TL_ROLE_PRE_GRAD_FALLBACK);
    if (!v.pre)
      v.pre = carried_pre; /* a backward compile reuses the forward's graph */
    carried_pre = v.pre;
    v.post = pick_graph(dir, segment_start, i, TL_ROLE_POST_GRAD,
                        TL_ROLE_POST_GRAD_FALLBACK);
    v.code = pick_last(dir, segment_start, i, is_code);
    v.kernel_code = pick_last(dir, segment_start, i, is_kernels);
    /* What this compilation logs after its mapping: the stack traces, and in
     * early-2025 AOT traces the wrapper and kernel code. */
    size_t end = i + 1;
    while (end < n && !starts_next_view(dir->artifacts.items[end].role))
      end++;
    const tl_artifact *late_code = pick_last(dir, i + 1, end, is_code);
    const tl_artifact *late_kernels = pick_last(dir, i + 1, end, is_kernels);
    if (!v.code && late_code) {
      v.code = late_code;
      if (!v.kernel_code)
        v.kernel_code = late_kernels;
    }
    v.stack_traces = pick_last(dir, i + 1, end, is_stack);
    TL_VEC_PUSH(out, v);
    segment_start = end;
  }
  if (out.count == 0) {
    tl_view v = {0};
    v.dir = dir;
    v.pre = pick_graph(dir, 0, n, TL_ROLE_PRE_GRAD, TL_ROLE_PRE_GRAD_FALLBACK);
    v.post =
        pick_graph(dir, 0, n, TL_ROLE_POST_GRAD, TL_ROLE_POST_GRAD_FALLBACK);
    v.code = pick_last(dir, 0, n, is_code);
    v.kernel_code = pick_last(dir, 0, n, is_kernels);
    TL_VEC_PUSH(out, v);
  }
  for (size_t k = 0; k < out.count; k++) {
    tl_buf name;
    tl_buf_init(&name);
    tl_buf_printf(&name, "provenance_tracking_%s", dir->dir_name);
    if (k + 1 < out.count)
      tl_buf_printf(&name, "_%zu", k);
    out.items[k].name = tl_buf_detach(&name);
  }
  *views = out.items;
  return out.count;
}

/* The Rust tool names a folder's provenance page by its compile id, with a
 * missing attempt read as 0: `-_0_1_-` gets provenance_tracking_-_0_1_0.
 * Writes that name into `out` when it differs from the folder's and no
 * folder of the store has it (a folder `-_0_1_0` keeps its own page). */
static bool rust_view_base(const tl_store *store, const tl_compile_dir *dir,
                           tl_buf *out) {
  size_t n = strlen(dir->dir_name);
  if (dir->unknown_id || n < 4 || strcmp(dir->dir_name + n - 2, "_-") != 0 ||
      dir->dir_name[n - 3] == '-')
    return false;
  tl_buf_clear(out);
  tl_buf_append(out, dir->dir_name, n - 1);
  tl_buf_putc(out, '0');
  for (size_t i = 0; i < store->dirs.count; i++)
    if (strcmp(store->dirs.items[i]->dir_name, out->data) == 0)
      return false;
  return true;
}

void tl_report_name_views(const tl_store *store, const tl_compile_dir *dir,
                          tl_view *views, size_t count) {
  tl_buf base;
  tl_buf_init(&base);
  if (rust_view_base(store, dir, &base)) {
    for (size_t k = 0; k < count; k++) {
      tl_buf name;
      tl_buf_init(&name);
      tl_buf_printf(&name, "provenance_tracking_%s", base.data);
      if (k + 1 < count)
        tl_buf_printf(&name, "_%zu", k);
      free(views[k].name);
      views[k].name = tl_buf_detach(&name);
    }
  }
  tl_buf_free(&base);
}
