/* chromium_events.h: chromium events re-written as the Rust tlparse writes
 * them into the combined chromium_events.json of --all-ranks-html: one
 * event pretty at depth 1 (keys sorted, serde_json's numbers and escaping,
 * json_serde.h) with its "pid" member set to the rank. A rank's child
 * writes its events so (multi_rank.c), and the parent reads a rank's own
 * chromium_events.json the same way where that was not done.
 */
#ifndef TL_CHROMIUM_EVENTS_H
#define TL_CHROMIUM_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* Appends the event text[i..end) with every top-level "pid" member removed
 * and "pid": rank added (an event that is not an object is written as it
 * is). False, with nothing appended, when it is not JSON. */
bool tl_chromium_event_with_pid(tl_buf *out, const char *text, size_t i,
                                size_t end, unsigned rank);

/* The same for an event that json_serde.h wrote pretty at depth 1 with
 * sorted keys (as chromium_events.json holds it): the "pid" member's value
 * replaced, or the member put in its sorted place, as text, without
 * parsing the event again. False, with nothing appended, where that text
 * is not such an object with at least one member or a key holds an escape:
 * use tl_chromium_event_with_pid then. */
bool tl_chromium_event_with_pid_pretty(tl_buf *out, const char *text,
                                       size_t len, unsigned rank);

/* The file a rank's child writes its events into with the pid set (each
 * event as ",\n  " then its text, so the parent joins the ranks' files
 * byte for byte): `<out_dir>/.<dir_name>.chromium_events.part`, in the
 * staging folder, removed before the report is published. */
void tl_chromium_part_path(tl_buf *path, const char *out_dir,
                           const char *dir_name);

/* The end of the JSON value starting at text[i] (a scan, no recursion):
 * strings skipped whole, brackets counted, up to a ',' or a closing
 * bracket at the value's own level, or n. */
size_t tl_chromium_value_end(const char *text, size_t i, size_t n);

/* The first byte at or after i that is not JSON white space, or n. */
size_t tl_chromium_skip_ws(const char *text, size_t i, size_t n);

#endif
