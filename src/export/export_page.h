/* export_page.h: the symbolic guard pages of the export report (-e), one
 * <dir>/symbolic_guard_information_N.html per evaluated guard or
 * data-dependent error: its stacks, its locals and symbols, and the tree of
 * expressions under it, one card each. Internal to export_report.c, which
 * reads the trace, numbers the pages and writes the index. The expressions
 * are kept in the run's arena; tl_export_pages owns only its table.
 */
#ifndef TL_EXPORT_PAGE_H
#define TL_EXPORT_PAGE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/reader.h"
#include "util/buf.h"
#include "util/diag.h"

/* uint64 -> pointer, open addressing; a NULL value is an empty slot.
 * export_report.c keeps its compile folders in one too. */
typedef struct tl_export_ids {
  uint64_t *keys;
  void **values;
  size_t size, count;
} tl_export_ids;

void *tl_export_ids_get(const tl_export_ids *t, uint64_t key);
void tl_export_ids_put(tl_export_ids *t, uint64_t key, void *value);
void tl_export_ids_free(tl_export_ids *t);
/* The table's hash, for keys made of several parts. */
uint64_t tl_export_mix(uint64_t x);

/* Text inside an element, escaped as the Rust tool escapes text (& < >). */
void tl_export_text(tl_buf *out, const char *s);
/* obj[key]; NULL when obj is not an object or has no such key. */
const cJSON *tl_export_get(const cJSON *obj, const char *key);
/* obj[key] as a string; NULL when absent or null, and when of another
 * type, with a diagnostic. */
const char *tl_export_string(tl_diag *diag, const tl_record *rec,
                             const cJSON *obj, const char *key);

/* The pages of one run: zero it, then set the first three fields. */
typedef struct tl_export_pages {
  const char *out_dir;
  tl_diag *diag;
  tl_arena *arena;     /* the run's; the expressions live in it */
  tl_export_ids nodes; /* expression id -> its card */
  unsigned page;       /* pages drawn so far */
  size_t cards;        /* cards drawn, over all pages */
} tl_export_pages;

/* Keeps an expression_created entry (is_symbol false) or a
 * create_unbacked_symbol entry by its id, for the trees of later guards; a
 * later entry with the same id replaces it. */
void tl_export_page_remember(tl_export_pages *pages, const tl_record *rec,
                             const char *kind, const cJSON *meta,
                             bool is_symbol);
/* Draws the page of the guard_added or propagate_real_tensors_provenance
 * entry `meta` (of kind `kind`, on `expr`) and writes it to
 * <out_dir>/<rel>, making <out_dir>/<dir> first. The page is drawn even
 * when it cannot be written; false then, with one line in `error`. */
bool tl_export_page_write(tl_export_pages *pages, const tl_record *rec,
                          const char *kind, const cJSON *meta, const char *expr,
                          const char *dir, const char *rel, char *error,
                          size_t error_size);
void tl_export_page_free(tl_export_pages *pages);

#endif
