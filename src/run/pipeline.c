/* pipeline.c: read -> store -> report for one trace log, or the export
 * report (see pipeline.h). */
#include "run/pipeline.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emit/artifact_pages.h"
#include "emit/report.h"
#include "export/export_report.h"
#include "read/reader.h"
#include "store/store.h"
#include "util/cores.h"

typedef struct progress {
  bool shown;
} progress;

static void show_progress(void *ctx, uint64_t done, uint64_t total) {
  progress *p = ctx;
  if (!total)
    return;
  int width = 40;
  int filled = (int)((double)done / (double)total * width);
  if (filled > width)
    filled = width;
  fprintf(stderr, "\r[%.*s%*s] %.1f/%.1f MB", filled,
          "########################################", width - filled, "",
          (double)done / 1e6, (double)total / 1e6);
  if (done >= total)
    fputc('\n', stderr);
  p->shown = true;
}

static bool is_big(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && st.st_size > 16 * 1024 * 1024;
}

static bool run_export(const tl_pipeline_options *options, tl_diag *diag,
                       char *error, size_t error_size) {
  progress prog = {false};
  tl_export_options export_options = {0};
  export_options.input = options->input;
  export_options.out_dir = options->out_dir;
  export_options.custom_header_html = options->custom_header_html;
  if (options->show_progress && is_big(options->input)) {
    export_options.progress = show_progress;
    export_options.progress_ctx = &prog;
  }
  return tl_export_report_run(&export_options, diag, error, error_size);
}

/* With TLPARSE_STATS=1: how many view workers the run starts, against
 * the cores it may run on. */
static void print_worker_stats(int workers) {
  const char *stats = getenv("TLPARSE_STATS");
  if (!stats || strcmp(stats, "1") != 0)
    return;
  int cores = tl_cores_usable();
  fprintf(stderr, "tlparse: stats: %d view worker%s, %d usable core%s\n",
          workers, workers == 1 ? "" : "s", cores, cores == 1 ? "" : "s");
}

bool tl_pipeline_run(const tl_pipeline_options *options, tl_diag *diag,
                     char *error, size_t error_size) {
  if (options->export_report)
    return run_export(options, diag, error, error_size);
  tl_store store;
  tl_store_options store_options = {
      options->plain_text,         options->provenance,
      options->strict_compile_id,  options->workers > 1,
      options->chromium_part_path, options->chromium_pid,
      &tl_artifact_page_writers};
  bool ok = tl_store_open(&store, options->out_dir, &store_options, diag);
  store.collectives_parity_link = options->collectives_parity_link;
  if (ok) {
    progress prog = {false};
    bool big = is_big(options->input);
    tl_reader_options reader_options = {0};
    reader_options.raw_copy = tl_store_raw_log;
    reader_options.raw_copy_ctx = &store;
    reader_options.defer_md5 = true;
    reader_options.keep_strings = &store.strings;
    if (big && options->show_progress) {
      reader_options.progress = show_progress;
      reader_options.progress_ctx = &prog;
    }
    ok = tl_reader_run(options->input, &reader_options, diag, tl_store_record,
                       &store, error, error_size);
  } else {
    snprintf(error, error_size, "%s", store.error);
  }
  if (!tl_store_close(&store) && ok) {
    snprintf(error, error_size, "%s", store.error);
    ok = false;
  }
  int workers = options->workers > 0 ? options->workers : 1;
  print_worker_stats(workers);
  tl_report_options report_options = {
      options->input,          options->custom_header_html,
      options->provenance,     workers,
      options->profiles,       options->profile_count,
      options->shared_analyses};
  if (ok && !tl_report_write(&store, &report_options, diag)) {
    snprintf(error, error_size, "%s", store.error);
    ok = false;
  }
  if (ok && options->on_report)
    options->on_report(options->on_report_ctx, &store);
  tl_store_free(&store);
  return ok;
}
