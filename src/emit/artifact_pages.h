/* artifact_pages.h: the HTML pages of single entries: the highlighted
 * output code page (highlight.js copied under static/) beside its exact .py
 * text, the kernel stack traces' readable page, dynamo_guards_N.html and the
 * three metrics pages (laid out by metrics_pages.c). Emit stage, called
 * while the trace is stored: the driver hands tl_artifact_page_writers to
 * tl_store_open, the store calls them as each entry is read, and they number
 * and file each page through store.h (counter, artifact list); the sink
 * takes its bytes.
 */
#ifndef TL_ARTIFACT_PAGES_H
#define TL_ARTIFACT_PAGES_H

#include <stdbool.h>

#include "read/reader.h"
#include "store/store.h"

/* inductor_output_code as `<stem>_N.html` (highlight.js runs in the page)
 * beside `<stem>_N.py`, the exact payload text the page links. */
void tl_artifact_pages_output_code(tl_store *store, tl_compile_dir *dir,
                                   const tl_record *rec, const char *stem);

/* The readable page of artifact `a` (just stored from `rec`, named `name`),
 * for the kinds that have one: the kernel stack traces, as
 * `<name>_N_readable.html` with the artifact's N. Sets a->readable_path and
 * a->listed_number; does nothing for other artifacts. */
void tl_artifact_pages_readable(tl_store *store, tl_compile_dir *dir,
                                tl_artifact *a, const char *name,
                                const tl_record *rec);

/* dynamo_guards_N.html; a payload that is not a list of guards gets no page
 * (as in the Rust tool) and a diagnostic. */
void tl_artifact_pages_guards(tl_store *store, tl_compile_dir *dir,
                              const tl_record *rec);

/* A metrics entry's page and, for compilation_metrics, its rows on
 * failures_and_restarts.html. `home` is the id's attempt-0 folder whose
 * stack, specializations and fast guards a compilation_metrics page shows
 * (NULL: none); `known_id`: the page shows the id. */
void tl_artifact_pages_metrics(tl_store *store, tl_compile_dir *dir,
                               const tl_compile_dir *home, bool known_id,
                               const tl_record *rec);

/* dump_file {name}: the source as dump_file/eval_with_key_<K>.html (a name
 * with "<eval_with_key>.K") or dump_file/<name>.html, one <span id="L<n>">
 * per line, listed under `dir` with a number (as the Rust tool). */
void tl_artifact_pages_dump_file(tl_store *store, tl_compile_dir *dir,
                                 const tl_record *rec);

/* Writes static/highlight.min.js and static/hljs.css (light, and dark under
 * prefers-color-scheme), which the output code pages link. False when a file
 * could not be written (store->error says which). */
bool tl_artifact_pages_write_static(tl_store *store);

/* The functions above as the store's page writers (tl_store_options.pages). */
extern const tl_store_pages tl_artifact_page_writers;

#endif
