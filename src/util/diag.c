/* diag.c: counting parse diagnostics and printing their one-line summary. */
#include "util/diag.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes the trace's name on one line: control bytes (a newline in a file
 * name) show as '?'. */
static void put_name(const char *name) {
  for (const char *c = name; *c; c++)
    fputc((unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c, stderr);
}

void tl_diag_init(tl_diag *d, const char *file_name) {
  memset(d, 0, sizeof *d);
  d->file_name = file_name;
}

void tl_diag_free(tl_diag *d) {
  for (int k = 0; k < TL_DIAG_KIND_COUNT; k++)
    for (int i = 0; i < TL_DIAG_EXAMPLES; i++)
      free(d->examples[k][i].message);
  memset(d->examples, 0, sizeof d->examples);
}

/* Each kind's short name (for scripts), and its title for a count of
 * many and of one (the index and the stderr summary). */
static const struct {
  const char *name, *title, *title_one;
} KINDS[] = {
    [TL_DIAG_GLOG] = {"glog", "lines that are not glog lines",
                      "line that is not a glog line"},
    [TL_DIAG_JSON] = {"json", "broken JSON envelopes", "broken JSON envelope"},
    [TL_DIAG_ENVELOPE] = {"envelope", "envelopes of an unexpected shape",
                          "envelope of an unexpected shape"},
    [TL_DIAG_MD5] = {"md5", "payloads whose md5 does not match",
                     "payload whose md5 does not match"},
    [TL_DIAG_TRUNCATED] = {"truncated", "truncated records",
                           "truncated record"},
    [TL_DIAG_PAYLOAD] = {"payload", "missing or unusable payloads",
                         "missing or unusable payload"},
    [TL_DIAG_OTHER_RANK] = {"other_rank", "entries of another rank (skipped)",
                            "entry of another rank (skipped)"},
    [TL_DIAG_NO_COMPILE_ID] = {"no_compile_id",
                               "entries whose compile id cannot be read",
                               "entry whose compile id cannot be read"},
    [TL_DIAG_RAW_JSONL] = {"raw_jsonl",
                           "entries changed or left out in raw.jsonl",
                           "entry changed or left out in raw.jsonl"},
    [TL_DIAG_CHROMIUM] = {"chromium", "chromium events left out (not JSON)",
                          "chromium event left out (not JSON)"},
    [TL_DIAG_UTF8] =
        {"utf8", "JSON artifacts whose invalid UTF-8 was written as U+FFFD",
         "JSON artifact whose invalid UTF-8 was written as U+FFFD"},
    [TL_DIAG_COMPACT] =
        {"compact", "JSON texts written compact (nested too deep to indent)",
         "JSON text written compact (nested too deep to indent)"},
    [TL_DIAG_OUTPUT] = {"output", "output files not written",
                        "output file not written"},
    [TL_DIAG_PROVENANCE] = {"provenance", "provenance views with problems",
                            "provenance view with problems"},
    [TL_DIAG_PROFILE] = {"profile", "problems with the profile",
                         "problem with the profile"},
    [TL_DIAG_PROFILE_MISMATCH] =
        {"profile_mismatch", "provenance views that the profile does not match",
         "provenance view that the profile does not match"},
    [TL_DIAG_PROFILE_UNUSABLE] =
        {"profile_unusable",
         "profile traces unreadable, truncated, empty or matching no view",
         "profile trace unreadable, truncated, empty or matching no view"},
};
_Static_assert(sizeof KINDS / sizeof *KINDS == TL_DIAG_KIND_COUNT,
               "a row of KINDS for each tl_diag_kind");

static bool known(tl_diag_kind kind) {
  return kind >= 0 && kind < TL_DIAG_KIND_COUNT && KINDS[kind].name;
}

const char *tl_diag_kind_name(tl_diag_kind kind) {
  return known(kind) ? KINDS[kind].name : "?";
}

const char *tl_diag_kind_title(tl_diag_kind kind) {
  return known(kind) ? KINDS[kind].title : "?";
}

const char *tl_diag_kind_title_one(tl_diag_kind kind) {
  return known(kind) ? KINDS[kind].title_one : "?";
}

char *tl_renamed_paths(const char *text, const char *staged,
                       const char *shown) {
  tl_buf out;
  tl_buf_init(&out);
  size_t n = staged ? strlen(staged) : 0;
  size_t shown_len = shown ? strlen(shown) : 0;
  while (shown_len > 1 && shown[shown_len - 1] == '/')
    shown_len--; /* `-o out/`: out/raw.log, not out//raw.log */
  for (const char *at; n && (at = strstr(text, staged));) {
    tl_buf_append(&out, text, (size_t)(at - text));
    if (at[n] == '/')
      tl_buf_append(&out, shown, shown_len);
    else
      tl_buf_append(&out, at, n);
    text = at + n;
  }
  tl_buf_puts(&out, text);
  return tl_buf_detach(&out);
}

char *tl_diag_renamed(const tl_diag *d, const char *text) {
  return tl_renamed_paths(text, d->staged, d->shown);
}

void tl_diag_add(tl_diag *d, tl_diag_kind kind, size_t line, const char *fmt,
                 ...) {
  size_t n = d->counts[kind]++;
  bool keep = n < TL_DIAG_EXAMPLES;
  if (!keep && !d->verbose)
    return;
  tl_buf msg;
  tl_buf_init(&msg);
  va_list ap;
  va_start(ap, fmt);
  char small[512];
  vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  /* One line each: a newline or other control byte from the trace or a
   * file name would break it. */
  for (char *c = small; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f)
      *c = '?';
  char *renamed = tl_diag_renamed(d, small);
  tl_buf_puts(&msg, renamed);
  free(renamed);
  if (d->verbose) {
    if (line) {
      fputs("tlparse: ", stderr);
      put_name(d->file_name);
      fprintf(stderr, ":%zu: %s\n", line, msg.data);
    } else {
      fputs("tlparse: ", stderr);
      put_name(d->file_name);
      fprintf(stderr, ": %s\n", msg.data);
    }
  }
  if (keep) {
    d->examples[kind][n].line = line;
    d->examples[kind][n].message = tl_buf_detach(&msg);
  } else {
    tl_buf_free(&msg);
  }
}

void tl_diag_merge(tl_diag *into, const tl_diag *from) {
  for (int k = 0; k < TL_DIAG_KIND_COUNT; k++) {
    size_t kept =
        into->counts[k] < TL_DIAG_EXAMPLES ? into->counts[k] : TL_DIAG_EXAMPLES;
    for (size_t i = 0; i < TL_DIAG_EXAMPLES && kept < TL_DIAG_EXAMPLES; i++) {
      const tl_diag_example *e = &from->examples[k][i];
      if (!e->message)
        break;
      into->examples[k][kept].line = e->line;
      into->examples[k][kept].message = tl_xstrdup(e->message);
      kept++;
    }
    into->counts[k] += from->counts[k];
  }
}

size_t tl_diag_total(const tl_diag *d) {
  size_t total = 0;
  for (int k = 0; k < TL_DIAG_KIND_COUNT; k++)
    total += d->counts[k];
  return total;
}

size_t tl_diag_parse_failures(const tl_diag *d) {
  return d->counts[TL_DIAG_GLOG] + d->counts[TL_DIAG_JSON] +
         d->counts[TL_DIAG_ENVELOPE] + d->counts[TL_DIAG_MD5] +
         d->counts[TL_DIAG_TRUNCATED] + d->counts[TL_DIAG_PAYLOAD] +
         d->counts[TL_DIAG_OTHER_RANK];
}

void tl_diag_print_summary(const tl_diag *d) {
  for (int k = 0; k < TL_DIAG_KIND_COUNT; k++) {
    if (!d->counts[k])
      continue;
    const tl_diag_example *first = &d->examples[k][0];
    fputs("tlparse: ", stderr);
    put_name(d->file_name);
    if (first->line)
      fprintf(stderr, ":%zu", first->line);
    fprintf(stderr, ": %s (%zu %s)\n", first->message ? first->message : "",
            d->counts[k],
            d->counts[k] == 1 ? tl_diag_kind_title_one((tl_diag_kind)k)
                              : tl_diag_kind_title((tl_diag_kind)k));
  }
}
