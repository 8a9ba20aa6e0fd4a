/* multi_rank_summary.c: a finished rank folder read back into the small
 * summary the cross-rank analyses need (multi_rank_internal.h): its
 * compile_directory.json, and per compile folder the lowest-numbered
 * runtime/tensor-meta and collective-schedule artifacts, its cache status
 * and output code; the rank's graph execution order. Also the rank's
 * collectives_parity.json (parity spec 1.4), written by the rank's child.
 */
#define _XOPEN_SOURCE 700
#include <cjson/cJSON.h>
#include <md5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multirank/multi_rank_internal.h"
#include "util/fsutil.h"
#include "json/json_serde.h"

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

static bool starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool is_known_id(const char *key) {
  return strcmp(key, "unknown") != 0 && !starts_with(key, "unknown_");
}

static int cmp_cstr(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_graph(const void *a, const void *b) {
  return strcmp(((const tl_mr_graph *)a)->dir, ((const tl_mr_graph *)b)->dir);
}

typedef struct suffix_entry {
  double number;
  const char *suffix;
} suffix_entry;

static int cmp_suffix(const void *a, const void *b) {
  double x = ((const suffix_entry *)a)->number;
  double y = ((const suffix_entry *)b)->number;
  return x < y ? -1 : x > y;
}

static tl_mr_graph *graph_for(tl_mr_rank *r, const char *url, size_t *last) {
  const char *slash = strchr(url, '/');
  if (!slash || slash == url)
    return NULL;
  size_t len = (size_t)(slash - url);
  if (*last < r->graphs.count) {
    tl_mr_graph *g = &r->graphs.items[*last];
    if (strlen(g->dir) == len && memcmp(g->dir, url, len) == 0)
      return g;
  }
  for (size_t i = 0; i < r->graphs.count; i++) {
    tl_mr_graph *g = &r->graphs.items[i];
    if (strlen(g->dir) == len && memcmp(g->dir, url, len) == 0) {
      *last = i;
      return g;
    }
  }
  tl_mr_graph g = {0};
  g.dir = tl_xmalloc(len + 1);
  memcpy(g.dir, url, len);
  g.dir[len] = '\0';
  TL_VEC_PUSH(r->graphs, g);
  *last = r->graphs.count - 1;
  return &r->graphs.items[*last];
}

/* Keeps `name` in *slot when its number is the lowest seen so far. */
static void keep_lowest(char **slot, double *slot_num, const char *name,
                        double number) {
  if (*slot && *slot_num <= number)
    return;
  free(*slot);
  *slot = tl_xstrdup(name);
  *slot_num = number;
}

typedef struct dir_scan {
  TL_VEC(char *) ids;
  TL_VEC(suffix_entry) suffixes;
  char *exec_url;
  double exec_num;
  size_t last;
} dir_scan;

static void scan_artifact(tl_mr_rank *r, const char *key, const cJSON *a,
                          bool plain_text, dir_scan *s) {
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(a, "name");
  const cJSON *url = cJSON_GetObjectItemCaseSensitive(a, "url");
  const cJSON *number = cJSON_GetObjectItemCaseSensitive(a, "number");
  const cJSON *suffix = cJSON_GetObjectItemCaseSensitive(a, "suffix");
  if (!cJSON_IsString(name) || !cJSON_IsString(url))
    return;
  double num = cJSON_IsNumber(number) ? number->valuedouble : 0;
  const char *n = name->valuestring;
  if (cJSON_IsString(suffix) && suffix->valuestring[0])
    TL_VEC_PUSH(s->suffixes, ((suffix_entry){num, suffix->valuestring}));
  if (strstr(n, "graph_execution") && ends_with(n, ".json") &&
      (!s->exec_url || num >= s->exec_num)) {
    free(s->exec_url);
    s->exec_url = tl_xstrdup(url->valuestring);
    s->exec_num = num;
  }
  tl_mr_graph *g = graph_for(r, url->valuestring, &s->last);
  if (!g)
    return;
  if (!g->compile_id)
    g->compile_id = tl_xstrdup(key);
  if (starts_with(n, "inductor_runtime_and_tensor_meta") &&
      ends_with(n, ".json"))
    keep_lowest(&g->runtime_name, &g->runtime_num, n, num);
  if (starts_with(n, "inductor_collective_schedule") && ends_with(n, ".json"))
    keep_lowest(&g->sched_name, &g->sched_num, n, num);
  if (starts_with(n, "inductor_output_code") &&
      ends_with(n, plain_text ? ".txt" : ".html"))
    keep_lowest(&g->code_name, &g->code_num, n, num);
  int cache = strstr(n, "cache_miss")     ? 3
              : strstr(n, "cache_hit")    ? 2
              : strstr(n, "cache_bypass") ? 1
                                          : 0;
  if (cache > g->cache)
    g->cache = cache;
}

static void join_sorted(char **out, char **items, size_t count,
                        const char *sep) {
  tl_sort(items, count, sizeof *items, cmp_cstr);
  tl_buf b;
  tl_buf_init(&b);
  for (size_t i = 0; i < count; i++) {
    if (i)
      tl_buf_puts(&b, sep);
    tl_buf_puts(&b, items[i]);
  }
  *out = tl_buf_detach(&b);
}

static void scan_directory(tl_mr_rank *r, const cJSON *root, bool plain_text,
                           dir_scan *s) {
  const cJSON *entry;
  cJSON_ArrayForEach(entry, root) {
    if (!entry->string)
      continue;
    if (is_known_id(entry->string))
      TL_VEC_PUSH(s->ids, entry->string);
    const cJSON *arts = cJSON_GetObjectItemCaseSensitive(entry, "artifacts");
    const cJSON *a;
    cJSON_ArrayForEach(a, arts) {
      scan_artifact(r, entry->string, a, plain_text, s);
    }
  }
  join_sorted(&r->compile_ids, s->ids.items, s->ids.count, "\n");
  tl_sort(s->suffixes.items, s->suffixes.count, sizeof *s->suffixes.items,
          cmp_suffix);
  tl_buf b;
  tl_buf_init(&b);
  for (size_t i = 0; i < s->suffixes.count; i++) {
    if (i)
      tl_buf_putc(&b, ',');
    tl_buf_puts(&b, s->suffixes.items[i].suffix);
  }
  r->cache_seq = tl_buf_detach(&b);
  tl_sort(r->graphs.items, r->graphs.count, sizeof *r->graphs.items, cmp_graph);
}

/* Reads rank_dir/dir/name as JSON; NULL (with a diagnostic) when it is not
 * JSON. *text gets the file's bytes (free it). */
static cJSON *read_json(const tl_mr_rank *r, const char *rank_dir,
                        const char *rel, char **text, size_t *len,
                        tl_diag *diag) {
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s", rank_dir, rel);
  *text = tl_fs_read_all(path.data, len);
  tl_buf_free(&path);
  if (!*text) {
    tl_diag_add(diag, TL_DIAG_PAYLOAD, 0,
                "%s: %s/%s cannot be read; left out of the cross-rank "
                "analyses",
                r->file_name, r->dir_name, rel);
    return NULL;
  }
  cJSON *json = cJSON_ParseWithLength(*text, *len);
  if (!json)
    tl_diag_add(diag, TL_DIAG_PAYLOAD, 0,
                "%s: %s/%s is not JSON; left out of the cross-rank analyses",
                r->file_name, r->dir_name, rel);
  return json;
}

static void bad_artifact(const tl_mr_rank *r, const char *dir, const char *name,
                         const char *what, tl_diag *diag) {
  tl_diag_add(diag, TL_DIAG_PAYLOAD, 0,
              "%s: %s/%s/%s %s; left out of the cross-rank analyses",
              r->file_name, r->dir_name, dir, name, what);
}

static void read_runtime(tl_mr_rank *r, tl_mr_graph *g, const char *rank_dir,
                         MD5_CTX *meta, tl_diag *diag) {
  char rel[4096], *text = NULL;
  size_t len = 0;
  snprintf(rel, sizeof rel, "%s/%s", g->dir, g->runtime_name);
  cJSON *json = read_json(r, rank_dir, rel, &text, &len, diag);
  if (json) {
    /* The fingerprint: the whole artifact, compact with sorted keys. */
    tl_buf compact;
    tl_buf_init(&compact);
    tl_json_serde_options opts = {0};
    tl_json_serde(&compact, (tl_str){text, len}, &opts, NULL, NULL, 0);
    if (r->has_meta)
      MD5Update(meta, (const unsigned char *)",", 1);
    MD5Update(meta, (const unsigned char *)compact.data, compact.len);
    r->has_meta = true;
    tl_buf_free(&compact);
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(json, "ops");
    const char *bad = cJSON_IsArray(ops) ? NULL : "has no \"ops\" array";
    const cJSON *op;
    cJSON_ArrayForEach(op, ops) {
      const cJSON *name = cJSON_GetObjectItemCaseSensitive(op, "name");
      const cJSON *ns =
          cJSON_GetObjectItemCaseSensitive(op, "estimated_runtime_ns");
      if (!bad && (!cJSON_IsString(name) || !cJSON_IsNumber(ns)))
        bad = "has an op without a string \"name\" and a number "
              "\"estimated_runtime_ns\"";
      if (bad)
        break;
      tl_mr_op o = {tl_xstrdup(name->valuestring), ns->valuedouble};
      TL_VEC_PUSH(g->ops, o);
    }
    if (bad) {
      bad_artifact(r, g->dir, g->runtime_name, bad, diag);
      for (size_t i = 0; i < g->ops.count; i++)
        free(g->ops.items[i].name);
      TL_VEC_FREE(g->ops);
    }
  }
  cJSON_Delete(json);
  free(text);
}

static void read_schedule(tl_mr_rank *r, tl_mr_graph *g, const char *rank_dir,
                          tl_diag *diag) {
  char rel[4096], *text = NULL;
  size_t len = 0;
  snprintf(rel, sizeof rel, "%s/%s", g->dir, g->sched_name);
  cJSON *json = read_json(r, rank_dir, rel, &text, &len, diag);
  free(text);
  if (!json)
    return;
  bool ok = cJSON_IsArray(json);
  const cJSON *op;
  cJSON_ArrayForEach(op, json) {
    if (!cJSON_IsString(op))
      ok = false;
  }
  if (ok) {
    g->has_sched = true;
    cJSON_ArrayForEach(op, json) {
      TL_VEC_PUSH(g->sched, tl_xstrdup(op->valuestring));
    }
  } else {
    bad_artifact(r, g->dir, g->sched_name, "is not an array of strings", diag);
  }
  cJSON_Delete(json);
}

static void read_exec_order(tl_mr_rank *r, const char *rank_dir,
                            const char *url, tl_diag *diag) {
  char *text = NULL;
  size_t len = 0;
  cJSON *json = read_json(r, rank_dir, url, &text, &len, diag);
  free(text);
  if (!json)
    return;
  const cJSON *order =
      cJSON_GetObjectItemCaseSensitive(json, "graph_execution_order");
  bool ok = cJSON_IsArray(order);
  const cJSON *item;
  cJSON_ArrayForEach(item, order) {
    const cJSON *id = cJSON_IsObject(item)
                          ? cJSON_GetObjectItemCaseSensitive(item, "compile_id")
                          : item;
    if (!cJSON_IsString(id)) {
      ok = false;
      break;
    }
    size_t n = strlen(id->valuestring) + 3;
    char *s = tl_xmalloc(n);
    snprintf(s, n, "[%s]", id->valuestring);
    TL_VEC_PUSH(r->exec, s);
  }
  if (ok) {
    r->has_exec = true;
  } else {
    tl_diag_add(diag, TL_DIAG_PAYLOAD, 0,
                "%s: %s/%s has no \"graph_execution_order\" list of compile "
                "ids; left out of the execution-order analysis",
                r->file_name, r->dir_name, url);
    for (size_t i = 0; i < r->exec.count; i++)
      free(r->exec.items[i]);
    TL_VEC_FREE(r->exec);
  }
  cJSON_Delete(json);
}

void tl_mr_summary_read(tl_mr_rank *r, const char *out_dir, bool plain_text,
                        tl_diag *diag) {
  tl_buf rank_dir;
  tl_buf_init(&rank_dir);
  tl_buf_printf(&rank_dir, "%s/%s", out_dir, r->dir_name);
  char *text = NULL;
  size_t len = 0;
  cJSON *root =
      read_json(r, rank_dir.data, "compile_directory.json", &text, &len, diag);
  free(text);
  if (!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    tl_buf_free(&rank_dir);
    return;
  }
  dir_scan s = {0};
  scan_directory(r, root, plain_text, &s);
  MD5_CTX meta;
  MD5Init(&meta);
  for (size_t i = 0; i < r->graphs.count; i++) {
    tl_mr_graph *g = &r->graphs.items[i];
    if (g->runtime_name)
      read_runtime(r, g, rank_dir.data, &meta, diag);
    if (g->sched_name)
      read_schedule(r, g, rank_dir.data, diag);
  }
  MD5Final(r->meta_md5, &meta);
  if (s.exec_url)
    read_exec_order(r, rank_dir.data, s.exec_url, diag);
  r->summary = true;
  free(s.exec_url);
  TL_VEC_FREE(s.ids);
  TL_VEC_FREE(s.suffixes);
  cJSON_Delete(root);
  tl_buf_free(&rank_dir);
}

static void graph_free(tl_mr_graph *g) {
  for (size_t i = 0; i < g->ops.count; i++)
    free(g->ops.items[i].name);
  TL_VEC_FREE(g->ops);
  for (size_t i = 0; i < g->sched.count; i++)
    free(g->sched.items[i]);
  TL_VEC_FREE(g->sched);
  free(g->dir);
  free(g->compile_id);
  free(g->runtime_name);
  free(g->sched_name);
  free(g->code_name);
}

void tl_mr_summary_clear(tl_mr_rank *r) {
  for (size_t i = 0; i < r->graphs.count; i++)
    graph_free(&r->graphs.items[i]);
  TL_VEC_FREE(r->graphs);
  for (size_t i = 0; i < r->exec.count; i++)
    free(r->exec.items[i]);
  TL_VEC_FREE(r->exec);
  free(r->compile_ids);
  free(r->cache_seq);
  r->compile_ids = r->cache_seq = NULL;
  r->summary = r->has_meta = r->has_exec = false;
  memset(r->meta_md5, 0, sizeof r->meta_md5);
}

void tl_mr_rank_free(tl_mr_rank *r) {
  tl_mr_summary_clear(r);
  free(r->path);
  free(r->file_name);
  free(r->dir_name);
  free(r->failure);
  if (r->diag)
    tl_diag_free(r->diag);
  free(r->diag);
}

/* ---- the summary sent from a rank's child to the parent ---------------- */

static void put_bytes(tl_buf *b, const void *data, size_t len) {
  tl_buf_append(b, data, len);
}

static void put_u32(tl_buf *b, uint32_t v) { put_bytes(b, &v, sizeof v); }

static void put_f64(tl_buf *b, double v) { put_bytes(b, &v, sizeof v); }

/* A string, or NULL (length UINT32_MAX). */
static void put_str(tl_buf *b, const char *s) {
  uint32_t len = s ? (uint32_t)strlen(s) : UINT32_MAX;
  put_u32(b, len);
  if (s)
    put_bytes(b, s, len);
}

void tl_mr_summary_encode(tl_buf *b, const tl_mr_rank *r) {
  put_u32(b, r->summary | r->has_meta << 1 | r->has_exec << 2);
  put_str(b, r->compile_ids);
  put_str(b, r->cache_seq);
  put_bytes(b, r->meta_md5, sizeof r->meta_md5);
  put_u32(b, (uint32_t)r->exec.count);
  for (size_t i = 0; i < r->exec.count; i++)
    put_str(b, r->exec.items[i]);
  put_u32(b, (uint32_t)r->graphs.count);
  for (size_t i = 0; i < r->graphs.count; i++) {
    const tl_mr_graph *g = &r->graphs.items[i];
    put_str(b, g->dir);
    put_str(b, g->compile_id);
    put_u32(b, (uint32_t)g->ops.count);
    for (size_t k = 0; k < g->ops.count; k++) {
      put_str(b, g->ops.items[k].name);
      put_f64(b, g->ops.items[k].ns);
    }
    put_u32(b, (uint32_t)g->sched.count);
    for (size_t k = 0; k < g->sched.count; k++)
      put_str(b, g->sched.items[k]);
    put_u32(b, (uint32_t)g->has_sched | (uint32_t)g->cache << 1);
    put_str(b, g->runtime_name);
    put_str(b, g->sched_name);
    put_str(b, g->code_name);
    put_f64(b, g->runtime_num);
    put_f64(b, g->sched_num);
    put_f64(b, g->code_num);
  }
}

typedef struct reading {
  const char *data;
  size_t len, at;
  bool ok;
} reading;

static void take_bytes(reading *rd, void *out, size_t len) {
  if (!rd->ok || rd->len - rd->at < len) {
    rd->ok = false;
    memset(out, 0, len);
    return;
  }
  memcpy(out, rd->data + rd->at, len);
  rd->at += len;
}

static uint32_t take_u32(reading *rd) {
  uint32_t v;
  take_bytes(rd, &v, sizeof v);
  return v;
}

static double take_f64(reading *rd) {
  double v;
  take_bytes(rd, &v, sizeof v);
  return v;
}

static char *take_str(reading *rd) {
  uint32_t len = take_u32(rd);
  if (!rd->ok || len == UINT32_MAX)
    return NULL;
  if (rd->len - rd->at < len) {
    rd->ok = false;
    return NULL;
  }
  char *s = tl_xmalloc((size_t)len + 1);
  memcpy(s, rd->data + rd->at, len);
  s[len] = '\0';
  rd->at += len;
  return s;
}

/* A count of items each at least `least` bytes long, checked against
 * what is left (a cut or damaged message cannot make a huge vector). */
static uint32_t take_count(reading *rd, size_t least) {
  uint32_t n = take_u32(rd);
  if (rd->ok && (size_t)n > (rd->len - rd->at) / least)
    rd->ok = false;
  return rd->ok ? n : 0;
}

/* A string that tl_mr_summary_read always sets: NULL is damage. */
static char *take_set_str(reading *rd) {
  char *s = take_str(rd);
  if (!s)
    rd->ok = false;
  return s;
}

bool tl_mr_summary_decode(tl_mr_rank *r, const char *data, size_t len,
                          size_t *at) {
  reading rd = {data, len, *at, *at <= len};
  uint32_t flags = take_u32(&rd);
  if (flags >> 3)
    rd.ok = false; /* bits no encoder sets */
  r->summary = flags & 1;
  r->has_meta = flags >> 1 & 1;
  r->has_exec = flags >> 2 & 1;
  r->compile_ids = r->summary ? take_set_str(&rd) : take_str(&rd);
  r->cache_seq = r->summary ? take_set_str(&rd) : take_str(&rd);
  take_bytes(&rd, r->meta_md5, sizeof r->meta_md5);
  for (uint32_t n = take_count(&rd, 4), i = 0; i < n && rd.ok; i++)
    TL_VEC_PUSH(r->exec, take_set_str(&rd));
  for (uint32_t n = take_count(&rd, 4), i = 0; i < n && rd.ok; i++) {
    tl_mr_graph g;
    memset(&g, 0, sizeof g);
    g.dir = take_set_str(&rd);
    g.compile_id = take_set_str(&rd);
    for (uint32_t m = take_count(&rd, 12), k = 0; k < m && rd.ok; k++) {
      tl_mr_op op;
      op.name = take_set_str(&rd);
      op.ns = take_f64(&rd);
      TL_VEC_PUSH(g.ops, op);
    }
    for (uint32_t m = take_count(&rd, 4), k = 0; k < m && rd.ok; k++)
      TL_VEC_PUSH(g.sched, take_set_str(&rd));
    uint32_t bits = take_u32(&rd);
    if (bits >> 3)
      rd.ok = false;
    g.has_sched = bits & 1;
    g.cache = (int)(bits >> 1 & 3);
    g.runtime_name = take_str(&rd);
    g.sched_name = take_str(&rd);
    g.code_name = take_str(&rd);
    g.runtime_num = take_f64(&rd);
    g.sched_num = take_f64(&rd);
    g.code_num = take_f64(&rd);
    TL_VEC_PUSH(r->graphs, g);
  }
  if (rd.at != rd.len)
    rd.ok = false; /* bytes the summary does not account for */
  if (!rd.ok) {
    tl_mr_summary_clear(r);
    return false;
  }
  *at = rd.at;
  return true;
}
