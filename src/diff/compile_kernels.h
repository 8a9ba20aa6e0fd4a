/* compile_kernels.h: a compile's kernels, read from the store's files for
 * kernel_diff.h.
 *
 * With node mappings (`inductor_provenance_tracking_node_mappings`), the
 * compile's view is joined as the provenance page's is
 * (join/provenance.h, any mode: JIT Python, cpp_wrapper, AOTInductor):
 * one kernel per mapping key, with its post-grad nodes and the text of its
 * definition. Without them (a trace logged without INDUCTOR_PROVENANCE),
 * the kernels the output code defines, without nodes.
 */
#ifndef TL_COMPILE_KERNELS_H
#define TL_COMPILE_KERNELS_H

#include "analyze/analysis_cache.h"
#include "diff/compile_files.h"
#include "diff/kernel_diff.h"
#include "store/store.h"

typedef struct tl_compile_kernels {
  tl_arena arena; /* every slice of the items */
  TL_VEC(tl_kernel_item) items;
  bool available;    /* output code was logged and read */
  bool from_mapping; /* the node mappings named the kernels */
  tl_str entry;      /* the entry function's lines (`call`, `run_impl`,
                        `inductor_entry_impl`), empty when not found */
  int entry_first;   /* its first line in the code, 0 when not found */
  tl_str code;       /* the whole output code (or AOT wrapper), empty when
                        not logged */
  bool cpp;          /* the code is the AOT C++ wrapper */
} tl_compile_kernels;

/* Reads the kernels of one compilation: its post-grad graph, output code
 * (inductor_output_code or the AOT wrapper), AOT kernel code and node
 * mappings, any of them NULL, read through `files`; the keys of
 * `other_mappings` (NULL: none) are another compilation's kernels and are
 * left out. The code and graph analyses come from `cache` when a text was
 * analyzed before (the run's provenance views, the other recompile diffs;
 * NULL: none) and go into it. */
void tl_compile_kernels_read(tl_compile_reader *files, const tl_artifact *post,
                             const tl_artifact *code,
                             const tl_artifact *kernel_code,
                             const tl_artifact *mappings,
                             const tl_artifact *other_mappings,
                             tl_analysis_cache *cache, tl_compile_kernels *out);
void tl_compile_kernels_free(tl_compile_kernels *k);

#endif
