/* store.h: the store stage. Takes each record from the reader, decides from
 * one table of envelope kinds which file it becomes, and hands that file to
 * the sink (sink.h) to be written under `<out>/<compile dir>/<stem>_<N>.<ext>`
 * with the Rust tlparse's folder names, stems and single running counter N;
 * the kinds that become HTML pages are handed, as each is read, to the page
 * writers the driver passes in (tl_store_pages: emit/artifact_pages.h).
 * What it keeps in memory is the list of compile folders and their artifacts
 * (names and paths, never payloads), which the report stage reads after the
 * whole trace is stored and tl_store_close has waited for the sink.
 */
#ifndef TL_STORE_H
#define TL_STORE_H

#include <stdbool.h>
#include <stdio.h>

#include "read/compile_id.h"
#include "read/reader.h"
#include "store/raw_jsonl.h"
#include "store/sink.h"
#include "store/store_stacks.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/intern.h"

/* What an artifact is for in a provenance view (see report.c). */
typedef enum tl_role {
  TL_ROLE_NONE,
  TL_ROLE_PRE_GRAD,           /* artifact before_pre_grad_graph */
  TL_ROLE_PRE_GRAD_FALLBACK,  /* inductor_pre_grad_graph */
  TL_ROLE_POST_GRAD,          /* artifact after_post_grad_graph */
  TL_ROLE_POST_GRAD_FALLBACK, /* inductor_post_grad_graph */
  TL_ROLE_OUTPUT_CODE,        /* inductor_output_code (JIT Python) */
  TL_ROLE_AOT_WRAPPER,        /* graph_dump inductor_aot_wrapper_code */
  TL_ROLE_AOT_KERNELS,        /* graph_dump inductor_aot_kernel_code */
  TL_ROLE_NODE_MAPPINGS,      /* inductor_provenance_tracking_node_mappings */
  TL_ROLE_STACK_TRACES        /* ..._kernel_stack_traces */
} tl_role;

typedef struct tl_artifact {
  char *name;      /* link text: "after_post_grad_graph_8.txt" */
  char *path;      /* relative to the output folder */
  char *text_path; /* file with the exact payload text, or NULL */
  char *url;       /* link entries: the URL (already checked safe) or NULL */
  char *readable_path; /* a readable page of this artifact, or NULL */
  int number;          /* the running counter in the file name; -1: none */
  /* The number the index and compile_directory.json show: `number`, but
   * one more for an artifact with a readable page (the Rust tool counts the
   * page first, then records the entry). */
  int listed_number;
  tl_role role;
  size_t line;  /* trace line of the entry */
  char md5[33]; /* md5 of the payload (hex), "" when none */
} tl_artifact;

/* A dynamo_start filed under a compile id: its trace line and its stack
 * (index in the folder's stacks, or SIZE_MAX when it logged none). An id
 * logged again after torch._dynamo.reset() has several (diff/recompiles.h
 * splits its files by them). */
typedef struct tl_dir_start {
  size_t line;
  size_t stack;
} tl_dir_start;

/* The numeric members of one compilation_metrics entry (a copy) and its
 * trace line. */
typedef struct tl_metric_numbers {
  size_t line;
  cJSON *numbers;
} tl_metric_numbers;

typedef struct tl_compile_dir {
  char dir_name[96]; /* "-_0_0_0" */
  char display[96];  /* "[0/0]" */
  TL_VEC(tl_artifact) artifacts;
  /* Every dynamo_start's stack, outermost frame first ("file.py:12 in fn"):
   * a compile id logged by several runs has several. */
  TL_VEC(tl_stack) stacks;
  TL_VEC(tl_dir_start) starts; /* every dynamo_start, in log order */
  char *fail_type;             /* from compilation_metrics, or NULL */
  /* The compilation_metrics filed under this id with attempt 0, for the
   * index's status colour (parity spec 5). */
  size_t metrics_count;
  bool any_fail, any_empty, any_restart;
  /* The numeric members (compile times, guard and node counts) of every
   * compilation_metrics filed under this id with attempt 0, in log order,
   * for the recompile diffs (an id compiled again after a reset has
   * several). */
  TL_VEC(tl_metric_numbers) metrics_by_line;
  /* symbolic_shape_specialization and guard_added_fast values filed under
   * this id (copies), until a metrics page of the id takes them. */
  TL_VEC(cJSON *) specializations;
  TL_VEC(cJSON *) fast_guards;
  bool folder_made;
  bool unknown_id; /* unknown_<line>/: the compile id could not be read */
  /* The metrics pages' "Output files" items of artifacts[0, n) as rendered
   * (emit/metrics_pages.c): every page of an id lists all the files before
   * it, so each item is rendered once and copied after. */
  tl_buf output_files_html;
  size_t output_files_rendered; /* n */
} tl_compile_dir;

typedef struct tl_store tl_store;

/* The page writers of single entries, which emit/ lays out
 * (tl_artifact_page_writers, emit/artifact_pages.h) and the driver hands to
 * tl_store_open: the store calls them as each entry is read, and they file
 * each page through the bookkeeping calls below. The store never includes
 * emit/. */
typedef struct tl_store_pages {
  /* inductor_output_code as a highlighted page beside its `<stem>_N.py` */
  void (*output_code)(tl_store *store, tl_compile_dir *dir,
                      const tl_record *rec, const char *stem);
  /* the readable page of artifact `a` just stored (only some kinds) */
  void (*readable)(tl_store *store, tl_compile_dir *dir, tl_artifact *a,
                   const char *name, const tl_record *rec);
  void (*guards)(tl_store *store, tl_compile_dir *dir, const tl_record *rec);
  /* `home`: the id's attempt-0 folder or NULL; `known_id`: show the id */
  void (*metrics)(tl_store *store, tl_compile_dir *dir,
                  const tl_compile_dir *home, bool known_id,
                  const tl_record *rec);
  void (*dump_file)(tl_store *store, tl_compile_dir *dir, const tl_record *rec);
  /* the static files the pages link; false (store->error set) on failure */
  bool (*write_static)(tl_store *store);
} tl_store_pages;

typedef struct tl_store_options {
  bool plain_text; /* -p: output code as .txt, no highlighted HTML */
  bool provenance; /* -i */
  bool strict_compile_id;
  bool background_writes; /* the sink on a second thread */
  /* Each chromium event also goes, with its pid set, to this file
   * (chromium_events.h), for --all-ranks-html; NULL: not. */
  const char *chromium_part_path;
  unsigned chromium_pid;
  /* The page writers of single entries; NULL: no such pages are written. */
  const tl_store_pages *pages;
} tl_store_options;

/* An artifact whose md5 the sink computes: filled in by tl_store_close. */
typedef struct tl_pending_md5 {
  tl_compile_dir *dir;
  size_t artifact; /* index in dir->artifacts */
  size_t ticket;
} tl_pending_md5;

/* One dynamo_start in log order: the stack trie is built in this order. */
typedef struct tl_start {
  tl_compile_dir *dir;
  size_t stack; /* index in dir->stacks */
} tl_start;

typedef struct tl_store {
  const char *out_dir;
  tl_store_options options;
  tl_diag *diag;
  int counter;
  TL_VEC(tl_compile_dir *) dirs; /* in order of first appearance */
  tl_compile_dir *last_dir;
  tl_compile_dir **dir_table; /* open addressing by folder name */
  size_t dir_table_size;      /* a power of two, or 0 */
  FILE *raw_log;
  /* chromium_events.json and the part of store options'
   * chromium_part_path (or NULL), written by the sink */
  tl_chromium_out chromium;
  tl_raw_jsonl raw_jsonl;
  /* The `str` entries' table: the reader moves it here at the end of the
   * run (tl_reader_options.keep_strings), for raw.jsonl's first line. */
  tl_string_table strings;
  /* The file names of the stacks' frames, each kept once (frames point
   * into it). */
  tl_intern frame_files;
  /* The file that holds the current record's payload (payload_filename in
   * raw.jsonl), or NULL; set while the record is stored. */
  char *payload_file;
  /* payloads/<md5>.txt files written, by md5 (open addressing). */
  char (*payload_md5s)[33];
  size_t payload_md5_count, payload_md5_size;
  tl_buf raw_members;       /* scratch for raw.jsonl's added members */
  tl_sink *sink;            /* between open and close; NULL after */
  size_t record_md5_ticket; /* the current record's, or TL_SINK_NO_TICKET */
  TL_VEC(tl_pending_md5) pending_md5;
  size_t record_count;
  TL_VEC(tl_start) starts;
  /* Stacks logged beside an entry's kind (a top-level "stack"), in log
   * order: the index's "Unknown stacks". */
  TL_VEC(tl_stack) unknown_stacks;
  /* failures_and_restarts.html's rows, built as metrics entries are read */
  tl_buf failure_rows;
  size_t failure_count;
  /* Entries of a kind the Rust tool does not know either (its "Unknown
   * fields"): kept in raw.jsonl and named in the index. */
  size_t unknown_count;
  char first_unknown[64];
  /* The index links collectives_parity.json (which the Rust tool links on
   * every index, dead in single-log mode): set after tl_store_open by a
   * driver that writes that file beside the index (multi-rank mode). */
  bool collectives_parity_link;
  bool payloads_dir_made;
  bool shared_folder_made; /* dump_file/ */
  char error[512];         /* first environment error (unwritable output) */
  bool failed;
} tl_store;

/* Writes the static files and opens the top-level streams (raw.log,
 * raw.jsonl, chromium_events.json) in out_dir, which must exist, and starts
 * the sink. Returns false with store->error set on failure. */
bool tl_store_open(tl_store *store, const char *out_dir,
                   const tl_store_options *options, tl_diag *diag);
/* The reader callback: `ctx` is the tl_store. */
void tl_store_record(void *ctx, const tl_record *record);
/* The reader's raw-copy callback (raw.log): `ctx` is the tl_store. */
void tl_store_raw_log(void *ctx, const char *data, size_t len);
/* Waits for the sink, fills in the md5s it computed and closes the streams.
 * Returns false when an output could not be written. */
bool tl_store_close(tl_store *store);
void tl_store_free(tl_store *store);
/* Writes `data` to out_dir/relative_path, counting a failure in the diag. */
bool tl_store_write(tl_store *store, const char *relative_path,
                    const void *data, size_t len);

/* The store's bookkeeping as its page writers (tl_store_pages) use it. */

/* The running counter's next number (the N in `<stem>_N.<ext>`). */
int tl_store_take_number(tl_store *store);
/* Files `<stem>_<number><suffix>.html` as an artifact of `dir` (folder made
 * on first use) and hands `html`'s memory to the sink. The pointer is valid
 * until the next artifact is added to `dir`. */
tl_artifact *tl_store_add_page(tl_store *store, tl_compile_dir *dir,
                               const char *stem, int number, const char *suffix,
                               tl_buf *html, size_t line);
/* The same for a page of `before`, the current record's payload
 * HTML-escaped and `after` (the output code's page), which the sink writes
 * a megabyte at a time (tl_sink_write_escaped_payload). */
tl_artifact *tl_store_add_payload_page(tl_store *store, tl_compile_dir *dir,
                                       const char *stem, int number,
                                       tl_str before, tl_str after,
                                       size_t line);
/* Files `folder/file_name` (a folder beside the compile folders, made on
 * first use: only dump_file/ uses one) as an artifact of `dir`, numbered
 * with the running counter; the caller writes the file. */
tl_artifact *tl_store_add_shared(tl_store *store, tl_compile_dir *dir,
                                 const char *folder, const char *file_name,
                                 size_t line);
/* The md5 of the record's payload for the artifact just added to `dir`:
 * known now, or filled in by tl_store_close once the sink has computed it. */
void tl_store_set_md5(tl_store *store, tl_compile_dir *dir,
                      const tl_record *rec);

#endif
