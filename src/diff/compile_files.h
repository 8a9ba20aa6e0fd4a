/* compile_files.h: the files of one compile of a frame that the recompile
 * diffs read (recompiles.h finds them in the store's folders).
 */
#ifndef TL_COMPILE_FILES_H
#define TL_COMPILE_FILES_H

#include <cjson/cJSON.h>

#include "store/store.h"
#include "util/buf.h"

typedef struct tl_compile_files {
  char autograd[24];          /* "-" or the compiled-autograd id */
  long long frame, compile;   /* frame id, frame compile id */
  char display[96];           /* "[0/1]" (compiled autograd: "[!0/0/1]") */
  const tl_compile_dir *home; /* the folder holding its graphs, else the
                                 first of its folders */
  const tl_artifact *reasons, *guards, *dynamo_graph, *pre_grad, *post_grad;
  /* The compilation of `post_grad`: its output code (inductor_output_code
   * or the AOT wrapper), AOT kernel code and node mappings, the first of
   * each after the graph in its folder (the code may follow the mappings);
   * NULL where absent. */
  const tl_artifact *code, *kernel_code, *mappings;
  /* A training compile's backward, which torch logs under the same compile
   * id: its AOT backward graph (aot_backward_graph), and the backward's
   * Inductor compilation (compiled when the backward first runs): the
   * post-grad graph of the forward's kind logged next after it in its
   * folder, when the compile logged an AOT backward graph, with its code,
   * kernel code and mappings as above; NULL where absent. */
  const tl_artifact *aot_backward, *bw_post_grad, *bw_code, *bw_kernel_code,
      *bw_mappings;
  /* Mappings whose keys belong to another compilation, left out of this
   * one's kernels: the forward's, in the backward's place (torch logs a
   * backward compiled right after its forward with the forward's keys
   * first); NULL otherwise. */
  const tl_artifact *other_mappings;
  /* The numeric members of its compilation_metrics, or NULL. */
  const cJSON *metrics;
} tl_compile_files;

/* `c` with its backward's compilation in the place of the forward's
 * (post_grad, code, kernel_code, mappings; other_mappings the forward's),
 * for the kernels' comparison. */
tl_compile_files tl_compile_files_backward(const tl_compile_files *c);

/* One of those files read back from the output folder. */
typedef struct tl_compile_file_text {
  tl_buf text;
  bool ok; /* false: no such artifact, or it could not be read */
} tl_compile_file_text;

/* Reads artifact `a` (may be NULL) as written under `out_dir`; the caller
 * frees t->text. */
void tl_compile_file_read(const char *out_dir, const tl_artifact *a,
                          tl_compile_file_text *t);

#endif
