/* diag.c: counting parse diagnostics and printing their one-line summary. */
#include "diag.h"

#include <stdarg.h>
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

const char *tl_diag_kind_name(tl_diag_kind kind) {
  switch (kind) {
  case TL_DIAG_GLOG:
    return "glog";
  case TL_DIAG_JSON:
    return "json";
  case TL_DIAG_ENVELOPE:
    return "envelope";
  case TL_DIAG_MD5:
    return "md5";
  case TL_DIAG_TRUNCATED:
    return "truncated";
  case TL_DIAG_PAYLOAD:
    return "payload";
  case TL_DIAG_OTHER_RANK:
    return "other_rank";
  case TL_DIAG_NO_COMPILE_ID:
    return "no_compile_id";
  case TL_DIAG_RAW_JSONL:
    return "raw_jsonl";
  case TL_DIAG_CHROMIUM:
    return "chromium";
  case TL_DIAG_UTF8:
    return "utf8";
  case TL_DIAG_OUTPUT:
    return "output";
  case TL_DIAG_PROVENANCE:
    return "provenance";
  case TL_DIAG_PROFILE:
    return "profile";
  case TL_DIAG_PROFILE_MISMATCH:
    return "profile_mismatch";
  case TL_DIAG_PROFILE_UNUSABLE:
    return "profile_unusable";
  case TL_DIAG_KIND_COUNT:
    break;
  }
  return "?";
}

const char *tl_diag_kind_title(tl_diag_kind kind) {
  switch (kind) {
  case TL_DIAG_GLOG:
    return "lines that are not glog lines";
  case TL_DIAG_JSON:
    return "broken JSON envelopes";
  case TL_DIAG_ENVELOPE:
    return "envelopes of an unexpected shape";
  case TL_DIAG_MD5:
    return "payloads whose md5 does not match";
  case TL_DIAG_TRUNCATED:
    return "truncated records";
  case TL_DIAG_PAYLOAD:
    return "missing or unusable payloads";
  case TL_DIAG_OTHER_RANK:
    return "entries of another rank (skipped)";
  case TL_DIAG_NO_COMPILE_ID:
    return "entries whose compile id cannot be read";
  case TL_DIAG_RAW_JSONL:
    return "entries changed or left out in raw.jsonl";
  case TL_DIAG_CHROMIUM:
    return "chromium events left out (not JSON)";
  case TL_DIAG_UTF8:
    return "JSON artifacts whose invalid UTF-8 was written as U+FFFD";
  case TL_DIAG_OUTPUT:
    return "output files not written";
  case TL_DIAG_PROVENANCE:
    return "provenance views with problems";
  case TL_DIAG_PROFILE:
    return "profile traces with problems";
  case TL_DIAG_PROFILE_MISMATCH:
    return "provenance views that the profile does not match";
  case TL_DIAG_PROFILE_UNUSABLE:
    return "profile traces unreadable, truncated, empty or matching no view";
  case TL_DIAG_KIND_COUNT:
    break;
  }
  return "?";
}

const char *tl_diag_kind_title_one(tl_diag_kind kind) {
  switch (kind) {
  case TL_DIAG_GLOG:
    return "line that is not a glog line";
  case TL_DIAG_JSON:
    return "broken JSON envelope";
  case TL_DIAG_ENVELOPE:
    return "envelope of an unexpected shape";
  case TL_DIAG_MD5:
    return "payload whose md5 does not match";
  case TL_DIAG_TRUNCATED:
    return "truncated record";
  case TL_DIAG_PAYLOAD:
    return "missing or unusable payload";
  case TL_DIAG_OTHER_RANK:
    return "entry of another rank (skipped)";
  case TL_DIAG_NO_COMPILE_ID:
    return "entry whose compile id cannot be read";
  case TL_DIAG_RAW_JSONL:
    return "entry changed or left out in raw.jsonl";
  case TL_DIAG_CHROMIUM:
    return "chromium event left out (not JSON)";
  case TL_DIAG_UTF8:
    return "JSON artifact whose invalid UTF-8 was written as U+FFFD";
  case TL_DIAG_OUTPUT:
    return "output file not written";
  case TL_DIAG_PROVENANCE:
    return "provenance view with problems";
  case TL_DIAG_PROFILE:
    return "profile trace with problems";
  case TL_DIAG_PROFILE_MISMATCH:
    return "provenance view that the profile does not match";
  case TL_DIAG_PROFILE_UNUSABLE:
    return "profile trace unreadable, truncated, empty or matching no view";
  case TL_DIAG_KIND_COUNT:
    break;
  }
  return "?";
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
  tl_buf_puts(&msg, small);
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
