/* raw_jsonl.h: raw.jsonl as the Rust tlparse writes it (parity spec 3), so
 * that a script reading its raw.jsonl reads ours unchanged:
 *
 *   {"string_table":["/path/a.py",null,...]}                   line 1
 *   {"artifact":{...},"attempt":0,...,"lineno":12,"pathname":" x.py",
 *    "payload_filename":"-_0_0_0/x_0.json","thread":1398,"timestamp":
 *    "2026-12-06T15:18:16.012000Z"}                            one per entry
 *
 * Each entry is its envelope re-written by json_serde.c (keys sorted) with
 * the glog fields added. The string table is known only at the end, so the
 * entry lines go to a scratch file in the output folder while reading, and
 * tl_raw_jsonl_finish writes raw.jsonl as the table's line followed by them.
 */
#ifndef TL_RAW_JSONL_H
#define TL_RAW_JSONL_H

#include <stdbool.h>
#include <stdio.h>

#include "read/reader.h"
#include "util/buf.h"
#include "json/json_serde.h"

enum { TL_RAW_JSONL_MEMBERS = 5 };

typedef struct tl_raw_jsonl {
  FILE *entries; /* the scratch file the entry lines are appended to */
  char *entries_path, *path;
  int year; /* glog has no year: the current UTC year, as Rust does */
} tl_raw_jsonl;

/* Opens the scratch file in out_dir. False with a message in error. */
bool tl_raw_jsonl_open(tl_raw_jsonl *r, const char *out_dir, char *error,
                       size_t error_size);

/* The members added to an entry: timestamp, thread, pathname, lineno and,
 * when payload_file is not NULL, payload_filename. Their texts are written
 * into `storage` (cleared first), which must outlive `members`. Returns
 * their count. */
size_t tl_raw_jsonl_members(const tl_raw_jsonl *r, const tl_glog *glog,
                            const char *payload_file, tl_buf *storage,
                            tl_json_member members[TL_RAW_JSONL_MEMBERS]);

/* Writes raw.jsonl (the string table's line, then the entries) and removes
 * the scratch file. False with a message when it cannot be written. */
bool tl_raw_jsonl_finish(tl_raw_jsonl *r, const tl_string_table *strings,
                         char *error, size_t error_size);
/* Closes and removes the scratch file if still there; frees. */
void tl_raw_jsonl_free(tl_raw_jsonl *r);

#endif
