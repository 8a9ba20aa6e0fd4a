/* recompile_parts.c: a recompile diff's kernels, metrics and summary, as
 * JSON (see recompile_parts.h). */
#include "diff/recompile_parts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/code_rest.h"
#include "diff/compile_kernels.h"
#include "diff/kernel_diff.h"
#include "json/json_build.h"

/* ---- kernels ------------------------------------------------------------ */

static const char *kernel_change_name(tl_kernel_change c) {
  switch (c) {
  case TL_KERNEL_SAME:
    return "same";
  case TL_KERNEL_CHANGED:
    return "changed";
  case TL_KERNEL_REMOVED:
    return "removed";
  case TL_KERNEL_ADDED:
    break;
  }
  return "added";
}

static cJSON *kernel_json(const tl_kernel_item *k) {
  cJSON *o = cJSON_CreateObject();
  tl_json_add_str(o, "key", k->key);
  tl_json_add_str(o, "name", k->name);
  tl_json_add_str(o, "kind", k->kind);
  tl_json_add_str(o, "fused_ops", tl_kernel_fused_ops(k));
  cJSON *nodes = cJSON_AddArrayToObject(o, "post_nodes");
  for (size_t i = 0; i < k->node_count; i++) {
    char *copy = tl_xmalloc(k->nodes[i].len + 1);
    memcpy(copy, k->nodes[i].ptr, k->nodes[i].len);
    copy[k->nodes[i].len] = '\0';
    cJSON_AddItemToArray(nodes, cJSON_CreateString(copy));
    free(copy);
  }
  if (k->first) {
    cJSON *def = cJSON_AddObjectToObject(o, "definition");
    tl_json_add_str(def, "file", k->file);
    cJSON_AddNumberToObject(def, "first", k->first);
    cJSON_AddNumberToObject(def, "last", k->last);
  } else {
    cJSON_AddNullToObject(o, "definition");
  }
  return o;
}

static const char *code_op_name(tl_code_op op) {
  switch (op) {
  case TL_CODE_SAME:
    return "same";
  case TL_CODE_REMOVED:
    return "removed";
  case TL_CODE_ADDED:
    return "added";
  case TL_CODE_GAP:
    break;
  }
  return "gap";
}

static void add_line(cJSON *o, const char *key, int line) {
  if (line)
    cJSON_AddNumberToObject(o, key, line);
  else
    cJSON_AddNullToObject(o, key);
}

/* The two codes line by line (kernel_diff.h), or null when too long. */
static cJSON *code_rows_json(const tl_code_rows *rows, bool cut);

/* The two codes line by line (kernel_diff.h), or null when too long. */
static cJSON *code_diff_json(const tl_kernel_item *x, const tl_kernel_item *y) {
  tl_code_rows rows = {0};
  bool cut;
  cJSON *o = tl_kernel_code_diff(x, y, &rows, &cut) ? code_rows_json(&rows, cut)
                                                    : cJSON_CreateNull();
  TL_VEC_FREE(rows);
  return o;
}

static cJSON *code_rows_json(const tl_code_rows *rows, bool cut) {
  cJSON *o = cJSON_CreateObject();
  cJSON *list = cJSON_AddArrayToObject(o, "lines");
  for (size_t i = 0; i < rows->count; i++) {
    const tl_code_row *r = &rows->items[i];
    cJSON *row = cJSON_CreateObject();
    cJSON_AddStringToObject(row, "op", code_op_name(r->op));
    add_line(row, "before", r->before);
    add_line(row, "after", r->after);
    tl_json_add_str(row, "text", r->text);
    cJSON_AddItemToArray(list, row);
  }
  cJSON_AddBoolToObject(o, "cut", cut);
  return o;
}

/* The entry functions line by line (kernel_diff.h), or null when either
 * was not found or they are too long. */
static cJSON *entry_json(const tl_compile_kernels *ka,
                         const tl_compile_kernels *kb,
                         const tl_kernel_diff *d) {
  if (!ka->entry_first || !kb->entry_first)
    return cJSON_CreateNull();
  tl_code_rows rows = {0};
  bool cut;
  cJSON *o = NULL;
  if (tl_entry_code_diff(ka->entry, ka->entry_first, kb->entry, kb->entry_first,
                         ka->items.items, kb->items.items, d, &rows, &cut)) {
    o = code_rows_json(&rows, cut);
    cJSON_AddNumberToObject(o, "before_first", ka->entry_first);
    cJSON_AddNumberToObject(o, "after_first", kb->entry_first);
  }
  TL_VEC_FREE(rows);
  return o ? o : cJSON_CreateNull();
}

static int last_line(const tl_compile_kernels *k) {
  int lines = 1;
  for (size_t i = 0; i < k->entry.len; i++)
    lines += k->entry.ptr[i] == '\n';
  return k->entry_first ? k->entry_first + lines - 1 : 0;
}

static const char *unit_change_name(tl_unit_change c) {
  return c == TL_UNIT_CHANGED   ? "changed"
         : c == TL_UNIT_REMOVED ? "removed"
                                : "added";
}

static cJSON *unit_json(const tl_code_unit *u) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "first", u->first);
  cJSON_AddNumberToObject(o, "last", u->last);
  size_t head = 0;
  while (head < u->text.len && u->text.ptr[head] != '\n')
    head++;
  tl_json_add_str(o, "head", (tl_str){u->text.ptr, head});
  return o;
}

/* The code outside the kernels and the entry functions, unit by unit
 * (code_rest.h), or null when either compile logged no code. */
static cJSON *other_code_json(const tl_compile_kernels *ka,
                              const tl_compile_kernels *kb,
                              const tl_kernel_diff *d,
                              tl_analysis_cache *cache) {
  if (!ka->code.ptr || !kb->code.ptr || ka->cpp != kb->cpp)
    return cJSON_CreateNull();
  tl_code_rest r;
  tl_code_rest_diff(ka->code, kb->code, ka->cpp, ka->items.items,
                    ka->items.count, kb->items.items, kb->items.count,
                    ka->entry_first, last_line(ka), kb->entry_first,
                    last_line(kb), d, cache, &r);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "before_units", (double)r.a.count);
  cJSON_AddNumberToObject(o, "after_units", (double)r.b.count);
  cJSON_AddBoolToObject(o, "compared", r.compared);
  cJSON *sum = cJSON_AddObjectToObject(o, "summary");
  cJSON_AddNumberToObject(sum, "same", (double)r.same);
  cJSON_AddNumberToObject(sum, "changed", (double)r.changed);
  cJSON_AddNumberToObject(sum, "removed", (double)r.removed);
  cJSON_AddNumberToObject(sum, "added", (double)r.added);
  cJSON *units = cJSON_AddArrayToObject(o, "units");
  for (size_t i = 0; i < r.rows.count && i < TL_CODE_DIFF_MAX_ROWS; i++) {
    const tl_unit_row *row = &r.rows.items[i];
    const tl_code_unit *x = row->before >= 0 ? &r.a.items[row->before] : NULL;
    const tl_code_unit *y = row->after >= 0 ? &r.b.items[row->after] : NULL;
    const tl_code_unit *u = y ? y : x;
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "change", unit_change_name(row->change));
    tl_json_add_str(e, "kind", u->kind);
    tl_json_add_str(e, "name", u->name);
    cJSON_AddItemToObject(e, "before", x ? unit_json(x) : cJSON_CreateNull());
    cJSON_AddItemToObject(e, "after", y ? unit_json(y) : cJSON_CreateNull());
    if (x && y) {
      tl_code_rows rows = {0};
      bool cut;
      cJSON_AddItemToObject(e, "code_diff",
                            tl_entry_code_diff(x->text, x->first, y->text,
                                               y->first, ka->items.items,
                                               kb->items.items, d, &rows, &cut)
                                ? code_rows_json(&rows, cut)
                                : cJSON_CreateNull());
      TL_VEC_FREE(rows);
    }
    cJSON_AddItemToArray(units, e);
  }
  cJSON_AddBoolToObject(o, "cut", r.rows.count > TL_CODE_DIFF_MAX_ROWS);
  tl_code_rest_free(&r);
  return o;
}

static cJSON *kernel_row_json(const tl_kernel_row *r,
                              const tl_compile_kernels *ka,
                              const tl_compile_kernels *kb) {
  cJSON *row = cJSON_CreateObject();
  cJSON_AddStringToObject(row, "change", kernel_change_name(r->change));
  if (r->before >= 0 && r->after >= 0) {
    cJSON_AddBoolToObject(row, "renamed", r->renamed);
    cJSON_AddBoolToObject(row, "nodes_changed", r->nodes_changed);
    cJSON_AddBoolToObject(row, "ops_changed", r->ops_changed);
    cJSON_AddBoolToObject(row, "code_changed", r->code_changed);
  }
  cJSON_AddItemToObject(row, "before",
                        r->before >= 0
                            ? kernel_json(&ka->items.items[r->before])
                            : cJSON_CreateNull());
  cJSON_AddItemToObject(row, "after",
                        r->after >= 0 ? kernel_json(&kb->items.items[r->after])
                                      : cJSON_CreateNull());
  if (r->code_changed) {
    cJSON *c = cJSON_AddObjectToObject(row, "code_difference");
    cJSON_AddNumberToObject(c, "before_line", r->before_line);
    cJSON_AddNumberToObject(c, "after_line", r->after_line);
    tl_json_add_str(c, "before", r->before_text);
    tl_json_add_str(c, "after", r->after_text);
    cJSON_AddItemToObject(row, "code_diff",
                          code_diff_json(&ka->items.items[r->before],
                                         &kb->items.items[r->after]));
  }
  return row;
}

cJSON *tl_recompile_kernels_json(tl_compile_reader *files,
                                 const tl_compile_files *a,
                                 const tl_compile_files *b,
                                 const tl_fx_diff *post,
                                 tl_analysis_cache *cache) {
  cJSON *o = cJSON_CreateObject();
  tl_compile_kernels ka, kb;
  tl_compile_kernels_read(files, a->post_grad, a->code, a->kernel_code,
                          a->mappings, a->other_mappings, cache, &ka);
  tl_compile_kernels_read(files, b->post_grad, b->code, b->kernel_code,
                          b->mappings, b->other_mappings, cache, &kb);
  cJSON_AddBoolToObject(o, "available", ka.available && kb.available);
  cJSON *by = cJSON_AddObjectToObject(o, "matched_by");
  cJSON_AddStringToObject(by, "before", ka.from_mapping ? "nodes" : "code");
  cJSON_AddStringToObject(by, "after", kb.from_mapping ? "nodes" : "code");
  if (ka.available && kb.available) {
    /* Nodes on one side only say nothing: then both sides are matched
     * without them (by fused ops), and still listed. */
    bool mixed = ka.from_mapping != kb.from_mapping;
    tl_compile_kernels *with = ka.from_mapping ? &ka : &kb;
    size_t *counts = tl_xmalloc((with->items.count + 1) * sizeof *counts);
    for (size_t i = 0; i < with->items.count && mixed; i++) {
      counts[i] = with->items.items[i].node_count;
      with->items.items[i].node_count = 0;
    }
    tl_kernel_diff d;
    tl_kernel_diff_run(ka.items.items, ka.items.count, kb.items.items,
                       kb.items.count, post, &d);
    for (size_t i = 0; i < with->items.count && mixed; i++)
      with->items.items[i].node_count = counts[i];
    free(counts);
    cJSON *sum = cJSON_AddObjectToObject(o, "summary");
    cJSON_AddNumberToObject(sum, "same", (double)d.same);
    cJSON_AddNumberToObject(sum, "renamed", (double)d.renamed);
    cJSON_AddNumberToObject(sum, "changed", (double)d.changed);
    cJSON_AddNumberToObject(sum, "removed", (double)d.removed);
    cJSON_AddNumberToObject(sum, "added", (double)d.added);
    cJSON *rows = cJSON_AddArrayToObject(o, "kernels");
    for (size_t i = 0; i < d.rows.count; i++)
      cJSON_AddItemToArray(rows, kernel_row_json(&d.rows.items[i], &ka, &kb));
    cJSON_AddItemToObject(o, "entry_code", entry_json(&ka, &kb, &d));
    cJSON_AddItemToObject(o, "other_code",
                          other_code_json(&ka, &kb, &d, cache));
    tl_kernel_diff_free(&d);
  }
  tl_compile_kernels_free(&ka);
  tl_compile_kernels_free(&kb);
  return o;
}

/* ---- metrics ------------------------------------------------------------ */

/* The members of compilation_metrics compared, in the order shown. */
static const char *const METRICS[] = {
    "entire_frame_compile_time_s",
    "backend_compile_time_s",
    "inductor_compile_time_s",
    "code_gen_time_s",
    "guard_count",
    "shape_env_guard_count",
    "graph_op_count",
    "graph_node_count",
    "graph_input_count",
    "ir_count",
    "num_graph_breaks",
    "inductor_fx_local_cache_hit_count",
    "inductor_fx_local_cache_miss_count",
    "aotautograd_local_cache_hit_count",
    "aotautograd_local_cache_miss_count",
};

cJSON *tl_recompile_metrics_json(const tl_compile_files *a,
                                 const tl_compile_files *b) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddBoolToObject(o, "available", a->metrics && b->metrics);
  cJSON *rows = cJSON_AddArrayToObject(o, "metrics");
  if (!a->metrics || !b->metrics)
    return o;
  for (size_t i = 0; i < sizeof METRICS / sizeof *METRICS; i++) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(a->metrics, METRICS[i]);
    const cJSON *y = cJSON_GetObjectItemCaseSensitive(b->metrics, METRICS[i]);
    if (!cJSON_IsNumber(x) || !cJSON_IsNumber(y))
      continue;
    cJSON *row = cJSON_CreateObject();
    cJSON_AddStringToObject(row, "name", METRICS[i]);
    cJSON_AddNumberToObject(row, "before", x->valuedouble);
    cJSON_AddNumberToObject(row, "after", y->valuedouble);
    /* to the microsecond, as the metrics are logged */
    cJSON_AddNumberToObject(
        row, "delta", round((y->valuedouble - x->valuedouble) * 1e6) / 1e6);
    cJSON_AddItemToArray(rows, row);
  }
  return o;
}

/* ---- summary ------------------------------------------------------------ */

static const cJSON *get(const cJSON *o, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *str_of(const cJSON *o, const char *key) {
  const char *s = cJSON_GetStringValue(get(o, key));
  return s ? s : "";
}

static void copy_counts(cJSON *to, const cJSON *from) {
  static const char *const KEYS[] = {"same", "renamed", "changed", "removed",
                                     "added"};
  for (size_t i = 0; i < 5; i++)
    cJSON_AddNumberToObject(to, KEYS[i],
                            cJSON_GetNumberValue(get(from, KEYS[i])));
}

void tl_recompile_summarize(const cJSON *diff, cJSON *summary) {
  const cJSON *graphs = get(diff, "graphs");
  static const char *const GRAPHS[] = {"post_grad", "pre_grad", "dynamo"};
  const cJSON *counted = NULL;
  const char *which = NULL;
  for (size_t i = 0; i < 3 && !counted; i++)
    if (cJSON_IsTrue(get(get(graphs, GRAPHS[i]), "available"))) {
      counted = get(graphs, GRAPHS[i]);
      which = GRAPHS[i];
    }
  if (counted) {
    cJSON *nodes = cJSON_AddObjectToObject(summary, "nodes");
    cJSON_AddStringToObject(nodes, "graph", which);
    copy_counts(nodes, get(counted, "summary"));
  } else {
    cJSON_AddNullToObject(summary, "nodes");
  }
  const cJSON *kernels = get(diff, "kernels");
  if (cJSON_IsTrue(get(kernels, "available")))
    copy_counts(cJSON_AddObjectToObject(summary, "kernels"),
                get(kernels, "summary"));
  else
    cJSON_AddNullToObject(summary, "kernels");
  /* The backward: its post-grad graph, else its AOT graph, and its
   * kernels; null when neither graph was logged by both compiles. */
  const cJSON *bw = NULL;
  const char *bw_which = NULL;
  static const char *const BACKWARD[] = {"backward_post_grad", "backward"};
  for (size_t i = 0; i < 2 && !bw; i++)
    if (cJSON_IsTrue(get(get(graphs, BACKWARD[i]), "available"))) {
      bw = get(graphs, BACKWARD[i]);
      bw_which = BACKWARD[i];
    }
  if (bw) {
    cJSON *o = cJSON_AddObjectToObject(summary, "backward");
    cJSON *nodes = cJSON_AddObjectToObject(o, "nodes");
    cJSON_AddStringToObject(nodes, "graph", bw_which);
    copy_counts(nodes, get(bw, "summary"));
    const cJSON *bk = get(diff, "backward_kernels");
    if (cJSON_IsTrue(get(bk, "available")))
      copy_counts(cJSON_AddObjectToObject(o, "kernels"), get(bk, "summary"));
    else
      cJSON_AddNullToObject(o, "kernels");
  } else {
    cJSON_AddNullToObject(summary, "backward");
  }
  const cJSON *row, *time = NULL;
  cJSON_ArrayForEach(row, get(get(diff, "metrics"), "metrics")) {
    if (strcmp(str_of(row, "name"), "entire_frame_compile_time_s") == 0)
      time = row;
  }
  if (time)
    cJSON_AddItemToObject(summary, "compile_time_s",
                          cJSON_Duplicate(time, true));
  else
    cJSON_AddNullToObject(summary, "compile_time_s");
  /* The graph's inputs whose annotation changed: the Dynamo graph's
   * placeholders (the user's tensors), said in words. */
  cJSON *inputs = cJSON_AddArrayToObject(summary, "inputs");
  cJSON_ArrayForEach(row, get(get(graphs, "dynamo"), "nodes")) {
    const cJSON *before = get(row, "before"), *after = get(row, "after");
    if (strcmp(str_of(row, "change"), "changed") != 0 ||
        strncmp(str_of(before, "op"), "placeholder", 11) != 0 ||
        !cJSON_IsString(get(row, "type_change")))
      continue;
    cJSON *in = cJSON_CreateObject();
    cJSON_AddStringToObject(in, "name", str_of(after, "name"));
    cJSON_AddStringToObject(in, "before", str_of(before, "type"));
    cJSON_AddStringToObject(in, "after", str_of(after, "type"));
    cJSON_AddStringToObject(in, "words", str_of(row, "type_change"));
    cJSON_AddItemToArray(inputs, in);
  }
}
