/* analysis.c: the names of the analysis enums (analysis.h), shared by the
 * join, the analyzers' tests and the JSON. */
#include "analysis.h"

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

const char *tl_code_file_name(tl_code_file file) {
  switch (file) {
  case TL_CODE_MAIN:
    return "code";
  case TL_CODE_KERNELS:
    return "kernel_code";
  }
  return "code";
}
