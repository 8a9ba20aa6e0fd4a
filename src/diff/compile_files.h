/* compile_files.h: the files of one compile of a frame that the recompile
 * diffs read (recompiles.h finds them in the store's folders).
 */
#ifndef TL_COMPILE_FILES_H
#define TL_COMPILE_FILES_H

#include <cjson/cJSON.h>

#include "store/store.h"
#include "util/buf.h"

typedef struct tl_compile_files {
  char autograd[24];        /* "-" or the compiled-autograd id */
  long long frame, compile; /* frame id, frame compile id */
  /* The session of the log it belongs to, from 1: torch._dynamo.reset()
   * restarts the ids, and a compile id started again begins the next
   * session (diff/recompiles.h). */
  size_t session;
  /* "[0/1]" (compiled autograd: "[!0/0/1]"); a later session's with its
   * number: "[0/1] #2" */
  char display[96];
  /* The stack of its dynamo_start (the compiled function is its last
   * frame), or NULL when none was logged. */
  const tl_stack *stack;
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

/* Reads a compile's files from the output folder, each once while it stays
 * among the most recently read: one recompile diff reads a graph for its
 * nodes and again for its kernels, and the next diff of the frame reads
 * the later compile's files again as its earlier side. At most
 * TL_COMPILE_READER_TEXTS texts and TL_COMPILE_READER_BYTES bytes are kept
 * (the least recently read go first; a text over a quarter of those bytes
 * is not kept). */
enum {
  TL_COMPILE_READER_TEXTS = 32,
  TL_COMPILE_READER_BYTES = 32 << 20,
};
typedef struct tl_compile_reader_text {
  const char *text_path; /* the artifact's, as the key */
  tl_buf text;
  unsigned long long last_read;
} tl_compile_reader_text;
typedef struct tl_compile_reader {
  const char *out_dir;
  tl_compile_reader_text texts[TL_COMPILE_READER_TEXTS];
  size_t count, bytes;
  unsigned long long reads;
} tl_compile_reader;

void tl_compile_reader_init(tl_compile_reader *r, const char *out_dir);
void tl_compile_reader_free(tl_compile_reader *r);

/* Reads artifact `a` (may be NULL) as written under r->out_dir, or copies
 * it from the texts `r` kept; the caller frees t->text. */
void tl_compile_file_read(tl_compile_reader *r, const tl_artifact *a,
                          tl_compile_file_text *t);

#endif
