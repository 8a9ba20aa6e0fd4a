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
  /* The numeric members of its compilation_metrics, or NULL. */
  const cJSON *metrics;
} tl_compile_files;

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
