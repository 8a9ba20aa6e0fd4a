/* diag.h: parse diagnostics, counted per category with the first places.
 *
 * Every stage reports bad input here instead of printing: a category (one of
 * tl_diag_kind), the 1-based line of the trace, and a one-line message. The
 * report shows the counts and the first examples; main prints a summary.
 * Only main.c and this module write to stderr.
 */
#ifndef TL_DIAG_H
#define TL_DIAG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

typedef enum tl_diag_kind {
  TL_DIAG_GLOG,             /* line is not a glog line */
  TL_DIAG_JSON,             /* envelope is not valid JSON */
  TL_DIAG_ENVELOPE,         /* valid JSON of an unexpected shape */
  TL_DIAG_MD5,              /* payload does not match has_payload */
  TL_DIAG_TRUNCATED,        /* file ends inside a record */
  TL_DIAG_PAYLOAD,          /* payload missing or unusable for its kind */
  TL_DIAG_OTHER_RANK,       /* envelope of another rank, skipped */
  TL_DIAG_NO_COMPILE_ID,    /* compile id unreadable (--strict-compile-id) */
  TL_DIAG_RAW_JSONL,        /* entry changed or left out in raw.jsonl */
  TL_DIAG_CHROMIUM,         /* chromium_event payload that is not JSON */
  TL_DIAG_UTF8,             /* JSON artifact re-written with U+FFFD */
  TL_DIAG_COMPACT,          /* JSON nested too deep to indent: compact */
  TL_DIAG_OUTPUT,           /* an output file could not be written */
  TL_DIAG_PROVENANCE,       /* a provenance view could not be fully joined */
  TL_DIAG_PROFILE,          /* a --profile trace was unreadable in part */
  TL_DIAG_PROFILE_MISMATCH, /* a view that the --profile traces do not match */
  TL_DIAG_PROFILE_UNUSABLE, /* a --profile trace unreadable, truncated,
                               empty or matching no view (--strict) */
  TL_DIAG_KIND_COUNT
} tl_diag_kind;

enum { TL_DIAG_EXAMPLES = 5 };

typedef struct tl_diag_example {
  size_t line;   /* 0 when not tied to a trace line */
  char *message; /* malloc'd */
} tl_diag_example;

typedef struct tl_diag {
  const char *file_name; /* the trace's name as the user gave it */
  size_t counts[TL_DIAG_KIND_COUNT];
  tl_diag_example examples[TL_DIAG_KIND_COUNT][TL_DIAG_EXAMPLES];
  bool verbose; /* print every diagnostic to stderr as it happens */
  /* Messages name the paths under `staged/` as under `shown/`: the staging
   * folder, gone once the run ends, as the output folder the user named.
   * NULL for none. */
  const char *staged, *shown;
} tl_diag;

void tl_diag_init(tl_diag *d, const char *file_name);
void tl_diag_free(tl_diag *d);
void tl_diag_add(tl_diag *d, tl_diag_kind kind, size_t line, const char *fmt,
                 ...) __attribute__((format(printf, 4, 5)));
/* Adds `from`'s counts to `into` and its examples after `into`'s own, as if
 * they had been added to `into` after everything already there. Prints
 * nothing: `from` printed its own when verbose. */
void tl_diag_merge(tl_diag *into, const tl_diag *from);
size_t tl_diag_total(const tl_diag *d);
/* Failures that --strict turns into exit code 1: what the Rust tool's
 * --strict fails on (lines that are not glog lines or not JSON, envelopes
 * its parsers refuse, md5 mismatches, entries of another rank), and
 * nothing else (parity spec 9). */
size_t tl_diag_parse_failures(const tl_diag *d);
const char *tl_diag_kind_name(tl_diag_kind kind);
const char *tl_diag_kind_title(tl_diag_kind kind);
/* The same for one ("line that is not a glog line"). */
const char *tl_diag_kind_title_one(tl_diag_kind kind);
/* `text` (malloc'd) with each path under d->staged named under d->shown,
 * as tl_diag_add stores its messages. */
char *tl_diag_renamed(const tl_diag *d, const char *text);
/* `text` (malloc'd) with each path under `staged/` named under `shown/`
 * instead (`shown` given as `out/` or `out` alike); a copy when `staged`
 * is NULL. */
char *tl_renamed_paths(const char *text, const char *staged, const char *shown);
/* Prints one line per category with its count and first place to stderr. */
void tl_diag_print_summary(const tl_diag *d);

#endif
