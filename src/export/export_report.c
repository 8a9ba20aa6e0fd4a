/* export_report.c: the Draft Export Report (-e); see export_report.h.
 *
 * The entries it reads, as torch.export's draft export logs them:
 *   {"expression_created": {"method": "add", "result": "s0 + 1",
 *     "result_id": 1407, "arguments": ["s0", "1"], "argument_ids": [1406],
 *     "user_stack": [frames], "stack": [frames]}}
 *   {"create_unbacked_symbol": {"symbol": "u0", "node_id": 1406, ...}}
 *   {"guard_added": {"expr": "Eq(s0, 3)", "prefix": "eval",
 *     "expr_node_id": 1407, "frame_locals": {"locals": {..},
 *     "symbols": {..}}, "user_stack": [..], "stack": [..]}}
 *   {"propagate_real_tensors_provenance": {"expr": .., "result": "False",
 *     "expr_node_id": ..}}
 *   {"missing_fake_kernel": {"op": "mylib.foo.default"}}
 *   {"mismatched_fake_kernel": {"op": .., "reason": ..}}
 *   {"exported_program": {}, "has_payload": "<md5>"} + the program text
 * Output numbers follow the Rust tool's running counter: each exported
 * program and each symbolic page takes the next one. Every text from the
 * trace is escaped; a missing field is shown empty (parity spec 2).
 */
#define _XOPEN_SOURCE 700
#include "export/export_report.h"

#include <cjson/cJSON.h>
#include <md5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export_page.h"
#include "read/compile_id.h"
#include "util/buf.h"
#include "util/fsutil.h"
#include "util/html.h"

/* The Rust tool's texts break their lines with 20 spaces of indent. */
#define BREAK "\n                    "

static const char FAKE_KERNEL_INFO[] =
    "Please refer to <a "
    "href='https://docs.google.com/document/d/"
    "1_W62p8WJOQQUzPsJYa7s701JXt0qf2OfLub2sbkHOaU/"
    "edit#heading=h.ahugy69p2jmz'>this doc</a> for more detailed "
    "instructions on how to write a fake kernel.";

static const char INDEX_CSS[] =
    "table { width: 90%; border-collapse: collapse; margin: 20px 0;\n"
    "  border: 2px solid #000; }\n"
    "table, th, td { border: 1px solid #999; padding: 10px;\n"
    "  text-align: left; }\n"
    "th { background-color: #d3d3d3; font-weight: bold; }\n"
    "tr:nth-child(odd) { background-color: #f2f2f2; }\n"
    "a { color: #0066cc; text-decoration: none; }\n"
    "a:hover { text-decoration: underline; }\n"
    "td:first-child { width: auto; white-space: nowrap; overflow: hidden;\n"
    "  text-overflow: ellipsis; }\n";

/* A compile folder, in the order the trace first names it. */
typedef struct ex_dir {
  tl_compile_id id; /* attempt 0 when frame_compile_id has none */
  bool unknown;     /* compile id unreadable */
  char *program_url;
  struct ex_dir *next; /* same hash */
} ex_dir;

typedef struct exporter {
  const tl_export_options *options;
  tl_diag *diag;
  tl_arena arena;
  tl_export_pages pages; /* the symbolic pages and their expressions */
  tl_export_ids dirs;    /* compile id hash -> ex_dir chain */
  TL_VEC(ex_dir *) dir_order;
  tl_buf rows; /* the index's failure rows */
  size_t failures;
  unsigned long counter; /* the running output number */
  bool payloads_dir_made;
  bool failed;
  char error[512];
} exporter;

/* ---- fields of the trace ---------------------------------------------- */

/* A field every entry of its kind has: "" and a diagnostic without it. */
static const char *needed_string(exporter *ex, const tl_record *rec,
                                 const char *kind, const cJSON *obj,
                                 const char *key) {
  const char *s = tl_export_string(ex->diag, rec, obj, key);
  const cJSON *v = tl_export_get(obj, key);
  if (!s && (!v || cJSON_IsNull(v)))
    tl_diag_add(ex->diag, TL_DIAG_ENVELOPE, rec->line,
                "\"%s\" entry has no \"%s\" (shown empty)", kind, key);
  return s ? s : "";
}

/* ---- output files ------------------------------------------------------ */

/* The run reports its first error and stops at the next entry. */
static void note_error(exporter *ex, const char *error) {
  if (!ex->failed)
    snprintf(ex->error, sizeof ex->error, "%s", error);
  ex->failed = true;
}

static char *out_path(exporter *ex, const char *rel) {
  return tl_arena_printf(&ex->arena, "%s/%s", ex->options->out_dir, rel);
}

static bool make_dir(exporter *ex, const char *dir) {
  char error[512];
  if (tl_fs_mkdirs_in(ex->options->out_dir, dir, error, sizeof error))
    return true;
  note_error(ex, error);
  return false;
}

static void write_file(exporter *ex, const char *dir, const char *rel,
                       tl_str data) {
  char error[512];
  if (!make_dir(ex, dir))
    return;
  if (!tl_fs_write_file(out_path(ex, rel), data.ptr, data.len, error,
                        sizeof error))
    note_error(ex, error);
}

/* ---- failures ------------------------------------------------------------ */

static void add_row(exporter *ex, const char *type, const tl_buf *reason,
                    const char *info) {
  tl_buf_printf(&ex->rows, "<tr>\n    <td>%s</td>\n    <td>", type);
  tl_buf_append_str(&ex->rows, tl_buf_str(reason));
  tl_buf_printf(&ex->rows, "</td>\n    <td>%s</td>\n</tr>\n", info);
  ex->failures++;
}

/* An evaluated guard or a data-dependent error: its page and its row. */
static void add_guard(exporter *ex, const tl_record *rec, const char *dir,
                      const char *kind, const cJSON *meta, const char *type,
                      const tl_buf *reason, const char *expr) {
  char file[64], *rel, *info;
  snprintf(file, sizeof file, "symbolic_guard_information_%lu.html",
           ex->counter++);
  rel = tl_arena_printf(&ex->arena, "%s/%s", dir, file);
  char error[512];
  if (!tl_export_page_write(&ex->pages, rec, kind, meta, expr, dir, rel, error,
                            sizeof error))
    note_error(ex, error);
  info = tl_arena_printf(&ex->arena,
                         "Please click <a href='%s'>here</a> for more "
                         "information.",
                         rel);
  add_row(ex, type, reason, info);
}

static void guard_added(exporter *ex, const tl_record *rec, const char *dir,
                        const cJSON *meta) {
  const char *expr = needed_string(ex, rec, "guard_added", meta, "expr");
  tl_buf reason;
  tl_buf_init(&reason);
  tl_buf_puts(&reason,
              "When exporting, the following guard was evaluated <code>");
  tl_export_text(&reason, expr);
  tl_buf_puts(&reason, "</code>. This" BREAK
                       "might've resulted in a constraint violation error.");
  add_guard(ex, rec, dir, "guard_added", meta, "Guard Evaluated", &reason,
            expr);
  tl_buf_free(&reason);
}

static void data_dependent(exporter *ex, const tl_record *rec, const char *dir,
                           const cJSON *meta) {
  static const char KIND[] = "propagate_real_tensors_provenance";
  const char *expr = needed_string(ex, rec, KIND, meta, "expr");
  const char *result = needed_string(ex, rec, KIND, meta, "result");
  tl_buf reason;
  tl_buf_init(&reason);
  tl_buf_puts(&reason, "When exporting, we were unable to figure out if "
                       "the" BREAK "expression <code>");
  tl_export_text(&reason, expr);
  tl_buf_puts(&reason, "</code> always holds.<br> As a result, it" BREAK
                       "was specialized to evaluate to <code>");
  tl_export_text(&reason, result);
  tl_buf_puts(&reason,
              "</code>, and asserts" BREAK "were inserted into the graph.");
  add_guard(ex, rec, dir, KIND, meta, "Data Dependent Error", &reason, expr);
  tl_buf_free(&reason);
}

static void fake_kernel(exporter *ex, const tl_record *rec, const cJSON *meta,
                        bool mismatched) {
  const char *kind =
      mismatched ? "mismatched_fake_kernel" : "missing_fake_kernel";
  tl_buf reason;
  tl_buf_init(&reason);
  tl_buf_puts(&reason, "<code>torch.ops.");
  tl_export_text(&reason, needed_string(ex, rec, kind, meta, "op"));
  if (mismatched) {
    tl_buf_puts(&reason,
                "</code> has a fake kernel implementation," BREAK
                "but it has incorrect behavior, based on the real "
                "kernel.<br>" BREAK "The reason for the mismatch is: ");
    tl_export_text(&reason, needed_string(ex, rec, kind, meta, "reason"));
  } else {
    tl_buf_puts(&reason, "</code> is missing a fake kernel implementation");
  }
  add_row(ex, mismatched ? "Mismatched Fake Kernel" : "Missing Fake Kernel",
          &reason, FAKE_KERNEL_INFO);
  tl_buf_free(&reason);
}

/* ---- entries ------------------------------------------------------------- */

static uint64_t dir_hash(const tl_compile_id *id, bool unknown) {
  uint64_t h = unknown ? 1 : 2;
  int64_t parts[4] = {id->has_autograd ? id->autograd : -1,
                      id->has_frame ? id->frame : -1,
                      id->has_frame_compile ? id->frame_compile : -1,
                      id->has_attempt ? id->attempt : -1};
  for (int i = 0; i < 4; i++)
    h = tl_export_mix(h ^ (uint64_t)parts[i]) + (uint64_t)i;
  return h;
}

/* The entry's compile folder, in the order the Rust tool lists folders
 * (the first entry naming it; attempt 0 when frame_compile_id has none). */
static ex_dir *note_dir(exporter *ex, const tl_record *rec) {
  tl_compile_id id = rec->compile_id;
  bool unknown = rec->compile_id_unknown;
  if (unknown)
    memset(&id, 0, sizeof id);
  if (id.has_frame_compile && !id.has_attempt) {
    id.has_attempt = true;
    id.attempt = 0;
  }
  uint64_t h = dir_hash(&id, unknown);
  ex_dir *first = tl_export_ids_get(&ex->dirs, h);
  for (ex_dir *d = first; d; d = d->next)
    if (d->unknown == unknown && tl_compile_id_eq(&d->id, &id))
      return d;
  ex_dir *d = tl_arena_alloc(&ex->arena, sizeof *d);
  d->id = id;
  d->unknown = unknown;
  d->next = first;
  tl_export_ids_put(&ex->dirs, h, d);
  TL_VEC_PUSH(ex->dir_order, d);
  return d;
}

static void exported_program(exporter *ex, const tl_record *rec,
                             const char *dir, ex_dir *d) {
  char *rel = tl_arena_printf(&ex->arena, "%s/exported_program_%lu.txt", dir,
                              ex->counter++);
  write_file(ex, dir, rel, rec->payload);
  if (!d->program_url)
    d->program_url = rel;
}

/* A payload no file holds: payloads/<md5>.txt, named by the declared md5
 * (or the computed one when that is not 32 hex digits); the last entry
 * with an md5 wins, as in the Rust tool. */
static void other_payload(exporter *ex, const tl_record *rec) {
  if (!rec->has_payload || !rec->payload.len)
    return;
  char digest[33];
  bool hex = rec->md5 && strlen(rec->md5) == 32 &&
             strspn(rec->md5, "0123456789abcdefABCDEF") == 32;
  if (hex)
    snprintf(digest, sizeof digest, "%s", rec->md5);
  else
    MD5Data((const uint8_t *)rec->payload.ptr, rec->payload.len, digest);
  char rel[64];
  snprintf(rel, sizeof rel, "payloads/%s.txt", digest);
  write_file(ex, "payloads", rel, rec->payload);
}

/* One entry, in the Rust tool's order of handling. */
static void on_record(void *ctx, const tl_record *rec) {
  exporter *ex = ctx;
  if (ex->failed || rec->other_rank)
    return;
  ex_dir *d = note_dir(ex, rec);
  char dir[96];
  if (rec->compile_id_unknown)
    snprintf(dir, sizeof dir, "unknown_%zu", rec->line);
  else
    tl_compile_id_dir_name(&rec->compile_id, dir, sizeof dir);
  const cJSON *env = rec->envelope, *meta;
  bool payload_used = false;
  if (tl_export_get(env, "exported_program")) {
    exported_program(ex, rec, dir, d);
    payload_used = true;
  }
  if ((meta = tl_export_get(env, "guard_added"))) {
    const cJSON *prefix = tl_export_get(meta, "prefix");
    if (!cJSON_IsString(prefix) || strcmp(prefix->valuestring, "eval") != 0)
      return; /* not counted, and the rest of the entry is skipped */
    guard_added(ex, rec, dir, meta);
  }
  if ((meta = tl_export_get(env, "propagate_real_tensors_provenance")))
    data_dependent(ex, rec, dir, meta);
  if ((meta = tl_export_get(env, "missing_fake_kernel")))
    fake_kernel(ex, rec, meta, false);
  if ((meta = tl_export_get(env, "mismatched_fake_kernel")))
    fake_kernel(ex, rec, meta, true);
  if ((meta = tl_export_get(env, "expression_created")))
    tl_export_page_remember(&ex->pages, rec, "expression_created", meta, false);
  if ((meta = tl_export_get(env, "create_unbacked_symbol")))
    tl_export_page_remember(&ex->pages, rec, "create_unbacked_symbol", meta,
                            true);
  if (!payload_used && !tl_export_get(env, "chromium_event"))
    other_payload(ex, rec);
}

/* ---- index.html ------------------------------------------------------------
 */

static void write_index(exporter *ex) {
  tl_buf html;
  tl_buf_init(&html);
  tl_buf_printf(&html,
                "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"UTF-8\">\n"
                "<title>Draft Export Report</title>\n<style>\n%s</style>\n"
                "</head>\n<body>\n<div>\n",
                INDEX_CSS);
  if (ex->options->custom_header_html) /* the user's own HTML */
    tl_buf_puts(&html, ex->options->custom_header_html);
  tl_buf_puts(&html, "\n<h1>Draft Export Report</h1>\n");
  if (!ex->failures) {
    tl_buf_puts(&html, "<p>\nCongratulations! No issues are found during "
                       "export, and it was able to soundly\nproduce a "
                       "graph. You can now change back to "
                       "torch.export.export()\n</p>\n");
  } else {
    tl_buf_printf(&html,
                  "<b>%zu issue(s) were found during export</b>, and it "
                  "was not able to\nsoundly produce a graph. The following "
                  "is a list of all the issues found and how\nyou may "
                  "address them.\n<table>\n<tr> <th> Failure Type </th> "
                  "<th> Reason </th> <th> Additional Info </th> </tr>\n",
                  ex->failures);
    tl_buf_append_str(&html, tl_buf_str(&ex->rows));
    tl_buf_puts(&html, "</table>\n");
  }
  const char *url = "";
  for (size_t i = 0; i < ex->dir_order.count && !*url; i++)
    if (ex->dir_order.items[i]->program_url)
      url = ex->dir_order.items[i]->program_url;
  tl_buf_puts(&html, "\nHere is the resulting exported program: <a href=\"");
  tl_html_escape_cstr(&html, url);
  tl_buf_puts(&html, "\">link</a>.\n</div>\n</body>\n</html>\n");
  write_file(ex, ".", "index.html", tl_buf_str(&html));
  tl_buf_free(&html);
}

bool tl_export_report_run(const tl_export_options *options, tl_diag *diag,
                          char *error, size_t error_size) {
  exporter ex;
  memset(&ex, 0, sizeof ex);
  ex.options = options;
  ex.diag = diag;
  tl_arena_init(&ex.arena);
  ex.pages.out_dir = options->out_dir;
  ex.pages.diag = diag;
  ex.pages.arena = &ex.arena;
  tl_buf_init(&ex.rows);
  tl_reader_options reader_options = {0};
  reader_options.progress = options->progress;
  reader_options.progress_ctx = options->progress_ctx;
  bool ok = tl_reader_run(options->input, &reader_options, diag, on_record, &ex,
                          error, error_size);
  if (ok && !ex.failed)
    write_index(&ex);
  if (ok && ex.failed) {
    snprintf(error, error_size, "%s", ex.error);
    ok = false;
  }
  tl_buf_free(&ex.rows);
  TL_VEC_FREE(ex.dir_order);
  tl_export_page_free(&ex.pages);
  tl_export_ids_free(&ex.dirs);
  tl_arena_free(&ex.arena);
  return ok;
}
