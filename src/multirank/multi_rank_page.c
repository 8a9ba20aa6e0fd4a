/* multi_rank_page.c: the landing page OUT/index.html of --all-ranks-html
 * (parity spec 1.7, top to bottom: custom header, warning box, rank count,
 * combined traces, rank links, runtime analysis, execution order, tensor
 * metadata) in the report's own style sheet (OUT/static/report.css). Every
 * text that comes from a trace or a file name is escaped (html.h); only the
 * user's --custom-header-html is inserted as it is.
 */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <string.h>

#include "multirank/multi_rank_internal.h"
#include "util/fsutil.h"
#include "util/html.h"
#include "util/resources.h"
#include "json/json_number.h"

static const char STYLE[] =
    ".warning-box { background: #f9b2b2; color: #300; border: 1px solid "
    "#e08080; padding: 12px 16px; margin: 16px 0; }\n"
    ".warning-box p { margin: 4px 0; }\n";

static void head(tl_buf *h) {
  tl_buf_puts(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                 "<meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width\">\n"
                 "<title>Multi-rank tlparse report</title>\n"
                 "<link rel=\"stylesheet\" href=\"static/report.css\">\n"
                 "<style>\n");
  tl_buf_puts(h, STYLE);
  tl_buf_puts(h, "</style>\n</head>\n<body>\n");
}

static void rank_list(tl_buf *h, const tl_mr_ranks *ranks) {
  for (size_t i = 0; i < ranks->count; i++)
    tl_buf_printf(h, "%s%u", i ? ", " : "", ranks->items[i]);
}

static void group_list(tl_buf *h, const tl_mr_groups *groups) {
  tl_buf_puts(h, "<ul>\n");
  for (size_t i = 0; i < groups->count; i++) {
    tl_buf_puts(h, "<li>Ranks: ");
    rank_list(h, &groups->items[i]);
    tl_buf_puts(h, "</li>\n");
  }
  tl_buf_puts(h, "</ul>\n");
}

static void warning_box(tl_buf *h, const tl_mr_analysis *a) {
  if (!a->compile_id_divergence && !a->cache_divergence && !a->sched_divergence)
    return;
  tl_buf_puts(h, "<div class=\"warning-box\">\n");
  if (a->compile_id_divergence)
    tl_buf_puts(h, "<p><strong>Warning:</strong> Diverging Compilation IDs "
                   "detected across ranks. This may lead to hangs or "
                   "timeouts during distributed execution.</p>\n");
  if (a->cache_divergence) {
    tl_buf_puts(h, "<p><strong>Warning:</strong> Diverging Cache hit/miss "
                   "patterns detected across ranks. Cache hit/miss pattern "
                   "groups:</p>\n");
    group_list(h, &a->cache_groups);
  }
  if (a->sched_divergence) {
    tl_buf_puts(h, "<p><strong>Warning:</strong> Diverging collective "
                   "operation sequences detected across ranks. This can "
                   "lead to hangs or timeouts during distributed "
                   "execution.</p>\n<p>Collective operation sequence "
                   "groups:</p>\n");
    group_list(h, &a->sched_groups);
  }
  tl_buf_puts(h, "</div>\n");
}

static void traces(tl_buf *h, const tl_mr_analysis *a) {
  if (a->chromium)
    tl_buf_puts(h, "<h3> Chromium Events </h3>\n<p>PT2 generates <a "
                   "href=\"chromium_events.json\">Chromium Trace Events</a> "
                   "in JSON on specific events during compilation. You can "
                   "download and view them in a tool like <a "
                   "href=\"https://ui.perfetto.dev/\">Perfetto</a>. This is "
                   "a combined trace from all ranks (process id = "
                   "rank).</p>\n");
  if (a->runtime)
    tl_buf_puts(h, "<h3> Runtime Trace Visualization </h3>\n<p>The "
                   "inductor's estimated runtime of every op, one process "
                   "per rank (PID = rank) and one thread per graph (TID = "
                   "graph): <a href=\"chromium_trace_with_runtime.json\">"
                   "Runtime Estimation Chromium Trace</a> (open it in "
                   "Perfetto). The estimates themselves are in <a "
                   "href=\"runtime_estimations.json\">"
                   "runtime_estimations.json</a>.</p>\n");
}

static void rank_item(tl_buf *h, const tl_multi_rank_options *o,
                      const tl_mr_rank *r) {
  tl_buf index;
  tl_buf_init(&index);
  tl_buf_printf(&index, "%s/%s/index.html", o->out_dir, r->dir_name);
  bool linked = tl_fs_exists(index.data);
  tl_buf_clear(&index);
  tl_buf_printf(&index, "%s/index.html", r->dir_name);
  tl_buf_puts(h, "<li>");
  if (linked) {
    tl_buf_puts(h, "<a href=\"");
    tl_url_path(h, index.data);
    tl_buf_puts(h, "\">");
  }
  tl_buf_printf(h, "Rank %u", r->rank);
  if (linked)
    tl_buf_puts(h, "</a>");
  if (r->duplicate) {
    tl_buf_puts(h, " (another file of this rank: <code>");
    tl_html_escape_cstr(h, r->file_name);
    tl_buf_puts(h, "</code>; not in the cross-rank analyses)");
  }
  if (r->failed) {
    tl_buf_puts(h, " <span class=\"fail\">failed: ");
    tl_html_escape_cstr(h, r->failure ? r->failure : "");
    tl_buf_puts(h, "; not in the cross-rank analyses</span>");
  }
  tl_buf_puts(h, "</li>\n");
  tl_buf_free(&index);
}

static void runtime_section(tl_buf *h, const tl_mr_analysis *a) {
  if (!a->runtime)
    return;
  tl_buf_puts(h, "<h3>Graph Runtime Analysis</h3>\n");
  if (!a->runtime_available) {
    tl_buf_puts(h, "<p><strong>Runtime analysis not available:</strong> "
                   "Ranks have different numbers of compiled graphs, so "
                   "their graphs cannot be paired.</p>\n");
    return;
  }
  tl_buf_puts(h, "<p>The estimated runtime of each graph (the sum of its "
                 "ops) on the fastest and the slowest rank.</p>\n");
  for (size_t i = 0; i < a->runtime_rows.count; i++) {
    const tl_mr_runtime_row *row = &a->runtime_rows.items[i];
    tl_buf_puts(h, "<p><strong>Graph ");
    tl_html_escape_cstr(h, row->graph);
    tl_buf_puts(h, ":</strong> ");
    tl_json_double(h, row->delta_ms);
    tl_buf_printf(h, " ms delta (Fastest: Rank %u - ", row->fast_rank);
    tl_json_double(h, row->fast_ms);
    tl_buf_printf(h, " ms, Slowest: Rank %u - ", row->slow_rank);
    tl_json_double(h, row->slow_ms);
    tl_buf_puts(h, " ms)</p>\n");
  }
}

static void exec_ranks(tl_buf *h, const tl_mr_ranks *ranks) {
  for (size_t i = 0; i < ranks->count; i++)
    tl_buf_printf(h, "%sRank %u", i ? ", " : "", ranks->items[i]);
}

static void exec_section(tl_buf *h, const tl_mr_analysis *a) {
  tl_buf_puts(h, "<h3>Graph Execution-Order Diagnostics</h3>\n<p>Note: To "
                 "enable this feature, wrap your code with "
                 "torch._inductor.debug.record_and_log_graph_execution_order"
                 "()</p>\n");
  if (!a->exec_available) {
    tl_buf_puts(h, "<p>Execution-order analysis unavailable.</p>\n");
    return;
  }
  tl_buf_puts(h, a->exec_order_differs
                     ? "<p>Graph execution order differs across ranks.</p>\n"
                     : "<p>Graph execution order: consistent across "
                       "ranks.</p>\n");
  if (a->exec_sched_ranks.count) {
    tl_buf_puts(h, "<p><strong>Warning:</strong> Schedule mismatch across "
                   "ranks: ");
    exec_ranks(h, &a->exec_sched_ranks);
    tl_buf_puts(h, "</p>\n");
  } else {
    tl_buf_puts(h, "<p>Collectives Schedule: Consistent across ranks.</p>\n");
  }
  if (a->exec_cache_ranks.count) {
    tl_buf_puts(h, "<p><strong>Warning:</strong> Cache hit/miss mismatch "
                   "across ranks: ");
    exec_ranks(h, &a->exec_cache_ranks);
    tl_buf_puts(h, "</p>\n");
  } else {
    tl_buf_puts(h,
                "<p>Cache hit/miss sequence: Consistent across ranks.</p>\n");
  }
}

static void meta_section(tl_buf *h, const tl_mr_analysis *a) {
  tl_buf_puts(h, "<h3>Tensor Metadata Analysis</h3>\n<p>Compares inductor "
                 "tensor metadata (shapes, dtypes, strides) across ranks to "
                 "detect compilation divergence.</p>\n");
  if (a->meta_divergence) {
    tl_buf_puts(h, "<p>Ranks exhibit divergent inductor tensor metadata "
                   "across graphs. Groups with identical signatures:</p>\n");
    group_list(h, &a->meta_groups);
  } else {
    tl_buf_puts(h, "<p>All ranks have matching tensor meta signatures across "
                   "graphs.</p>\n");
  }
}

bool tl_mr_page_write(const tl_multi_rank_options *o, tl_mr_rank **all,
                      size_t count, const tl_mr_analysis *a, char *error,
                      size_t error_size) {
  tl_buf h;
  tl_buf_init(&h);
  head(&h);
  if (o->custom_header_html)
    tl_buf_puts(&h, o->custom_header_html); /* the user's own HTML */
  warning_box(&h, a);
  tl_buf_printf(&h,
                "<h2>Multi-Rank TLParse Report</h2>\n<p>This report "
                "contains TLParse links from <strong>%zu</strong> rank(s). "
                "Click on any rank below to view its detailed compilation "
                "report.</p>\n",
                count);
  traces(&h, a);
  tl_buf_puts(&h, "<p>Individual rank reports:</p>\n<ul>\n");
  for (size_t i = 0; i < count; i++)
    rank_item(&h, o, all[i]);
  tl_buf_puts(&h, "</ul>\n");
  runtime_section(&h, a);
  exec_section(&h, a);
  meta_section(&h, a);
  tl_html_page_end(&h);
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/static", o->out_dir);
  tl_str css = TL_RES(report_css);
  bool ok = tl_fs_mkdirs_in(o->out_dir, "static", error, error_size);
  tl_buf_puts(&path, "/report.css");
  ok = ok && tl_fs_write_file(path.data, css.ptr, css.len, error, error_size);
  tl_buf_clear(&path);
  tl_buf_printf(&path, "%s/index.html", o->out_dir);
  ok = ok && tl_fs_write_file(path.data, h.data, h.len, error, error_size);
  tl_buf_free(&path);
  tl_buf_free(&h);
  return ok;
}
