/* analysis.c: the names of the analysis enums (analysis.h) and of
 * subgraphs, shared by the analyzers, the join, their tests and the
 * JSON. */
#define _GNU_SOURCE /* memmem */
#include "analyze/analysis.h"

#include <string.h>

const char *tl_kernel_kind_name(tl_kernel_kind kind) {
  switch (kind) {
  case TL_KERNEL_TRITON:
    return "triton";
  case TL_KERNEL_COMBO:
    return "combo";
  case TL_KERNEL_TEMPLATE:
    return "template";
  case TL_KERNEL_CPP:
    return "cpp";
  case TL_KERNEL_EXTERN:
    return "extern";
  case TL_KERNEL_FALLBACK:
    return "fallback";
  case TL_KERNEL_SHIM:
    return "shim";
  case TL_KERNEL_UNKNOWN:
    return "unknown";
  }
  return "unknown";
}

tl_str tl_subgraph_name(tl_arena *arena, const tl_str *outer, tl_str own,
                        size_t *budget) {
  size_t prefix = outer ? outer->len + 1 : 0;
  if (!own.len || (outer && !outer->len) || prefix > TL_FX_SUBGRAPH_NAME_MAX ||
      own.len > TL_FX_SUBGRAPH_NAME_MAX - prefix ||
      prefix + own.len + 1 > *budget)
    return (tl_str){"", 0};
  *budget -= prefix + own.len + 1;
  char *name = tl_arena_alloc(arena, prefix + own.len + 1);
  if (outer) {
    memcpy(name, outer->ptr, outer->len);
    name[outer->len] = '_';
  }
  memcpy(name + prefix, own.ptr, own.len);
  name[prefix + own.len] = '\0';
  return (tl_str){name, prefix + own.len};
}

const char *tl_code_file_name(tl_code_file file) {
  switch (file) {
  case TL_CODE_MAIN:
    return "code";
  case TL_CODE_KERNELS:
    return "kernel_code";
  }
  return "code";
}

bool tl_triton_may_be_combo(tl_str text, uint32_t start, uint32_t end) {
  if (end > text.len)
    end = (uint32_t)text.len;
  if (start >= end)
    return false;
  const char *p = text.ptr + start;
  size_t n = end - start;
  if (memmem(p, n, "combo_grid_meta", 15))
    return true;
  return memmem(p, n, "pid", 3) && memmem(p, n, "elif", 4);
}
