/* json_print.h: a JSON document laid out exactly as cJSON_Print lays it out
 * (tabs, "key":<tab>value, arrays on one line with ", "), written one member
 * at a time, so that a large document (a huge compile's provenance view) is
 * never one cJSON tree whole: each member is a small tree printed and freed
 * as soon as it is given, or a container opened and closed around members.
 *
 *   tl_json_printer p;
 *   tl_json_printer_init(&p, &out);
 *   tl_json_print_open(&p, NULL, false);          -- the document's {
 *   tl_json_print_item(&p, "schema", cJSON_CreateNumber(1));
 *   tl_json_print_open(&p, "kernels", true);      -- "kernels": [
 *   tl_json_print_item(&p, NULL, kernel);         -- one element
 *   tl_json_print_close(&p);                      -- ]
 *   tl_json_print_close(&p);                      -- }
 *
 * Out of memory aborts with one line, as everywhere (buf.h).
 */
#ifndef TL_JSON_PRINT_H
#define TL_JSON_PRINT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

enum { TL_JSON_PRINT_MAX_DEPTH = 32 };

typedef struct tl_json_printer {
  tl_buf *out;
  int depth; /* containers open */
  struct {
    bool array;
    size_t count; /* members written */
  } open[TL_JSON_PRINT_MAX_DEPTH];
} tl_json_printer;

void tl_json_printer_init(tl_json_printer *p, tl_buf *out);
/* Opens an object (or an array) as the member `key` of the object open now;
 * key NULL for the document itself or an element of the array open now. */
void tl_json_print_open(tl_json_printer *p, const char *key, bool array);
void tl_json_print_close(tl_json_printer *p);
/* Writes `value` as the member `key` (NULL as in tl_json_print_open) and
 * deletes it. */
void tl_json_print_item(tl_json_printer *p, const char *key, cJSON *value);
/* Writes `value` as the member `key`, as cJSON prints a number holding it,
 * without making one. */
void tl_json_print_int(tl_json_printer *p, const char *key, int value);

/* Appends cJSON_Print's text of `value` (a whole document). */
void tl_json_print_tree(tl_buf *out, const cJSON *value);

/* Parses JSON text this printer or cJSON wrote (so only memory can fail:
 * then it aborts with one line); the caller frees the tree. */
cJSON *tl_json_parse_printed(tl_str text);

/* Appends `formatted` (text laid out by cJSON_Print or this printer)
 * without its layout: what cJSON_PrintUnformatted prints for the same tree.
 * `formatted` is either the whole text of `out` (which then shrinks in
 * place) or lies outside `out`. */
void tl_json_compact(tl_buf *out, tl_str formatted);

#endif
