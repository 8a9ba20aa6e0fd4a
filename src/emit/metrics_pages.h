/* metrics_pages.h: the pages about compilations a Rust-tlparse user knows
 * (parity spec 5-8, 11), laid out as the Rust tool lays them out: the three
 * metrics pages (one table row per envelope kind), dynamo_guards_N.html,
 * the rows of failures_and_restarts.html, and the stack tries the index and
 * the metrics pages show. Emit stage: the store calls the page writers as
 * each entry is read; everything is written into a caller's tl_buf, nothing
 * is kept. Every text from the trace goes through html.h's escapers.
 */
#ifndef TL_METRICS_PAGES_H
#define TL_METRICS_PAGES_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "store/store.h"
#include "util/buf.h"

/* What a metrics page shows besides the entry itself. All borrowed. */
typedef struct tl_metrics_input {
  /* Its folder: the files written before it (the folder keeps their
   * rendered list for the next page). */
  tl_compile_dir *dir;
  size_t line;           /* the entry's trace line */
  const char *display;   /* "[0/0_1]", or NULL: "(unknown)" */
  const cJSON *metrics;  /* the envelope's value for the kind */
  const tl_stack *stack; /* dynamo_start stack of the id, or NULL */
  /* symbolic_shape_specialization and guard_added_fast values of the id */
  cJSON *const *specializations;
  size_t specialization_count;
  cJSON *const *fast_guards;
  size_t fast_guard_count;
  const tl_string_table *strings; /* for interned frame file names */
  const char *bad_field; /* out: first field of the wrong type, or NULL */
} tl_metrics_input;

/* Renders the page of a metrics kind (compilation_metrics,
 * bwd_compilation_metrics, aot_autograd_backward_compilation_metrics) into
 * `html`; false (nothing written) for any other kind. */
bool tl_metrics_page_render(const char *kind, tl_buf *html,
                            tl_metrics_input *in);

/* dynamo_guards_N.html from its payload (a list of {code, stack?,
 * user_stack?}). False, with `error` set and nothing written, when the
 * payload is not such a list: the Rust tool then writes no page either. */
bool tl_guards_page_render(tl_buf *html, const char *display, tl_str payload,
                           const tl_string_table *strings, char *error,
                           size_t error_size);

/* Appends the failures_and_restarts.html rows of one compilation_metrics
 * entry (one per restart reason, then one if fail_type is set) and returns
 * how many. `page` is its metrics page's path, `display` its id or NULL. */
size_t tl_failure_rows(tl_buf *rows, const char *page, const char *display,
                       const cJSON *metrics);
/* The whole failures_and_restarts.html around `rows`. */
void tl_failures_page_render(tl_buf *html, const tl_buf *rows, size_t count);

/* One stack, collapsed under `caption`, as the Rust tool's format_stack. */
void tl_stack_html(tl_buf *html, const tl_frame *frames, size_t count,
                   const char *caption);

/* The index's stack trie: every dynamo_start stack of the store merged by
 * common prefix, each compile id on its last frame coloured by its status,
 * rendered without recursion. Writes nothing when there is no stack. */
void tl_stack_trie_render(tl_buf *html, const tl_store *store);
/* The trie of the stacks logged beside entries (store->unknown_stacks),
 * each ending in "(unknown) ", as the Rust index's "Unknown stacks". */
void tl_unknown_stack_trie_render(tl_buf *html, const tl_store *store);

/* The status class of a compile folder ("status-ok", ...; spec 5). */
const char *tl_compile_status(const tl_compile_dir *dir);

#endif
