/* store.c: one table maps envelope kinds to output files; each record's file
 * is handed to the sink as soon as the record is read (formats doc 1.7).
 * Here: the compile folders and their artifacts, the running counter, the
 * payloads/ files and raw.jsonl's lines; the pages of single entries are
 * the page writers' (options.pages, from the driver), which file them
 * through tl_store_add_page.
 * Why one file past ~800 lines: it is the kind table and the filing of
 * each row (store_entry's switch over out_kind), sharing the folder
 * lookup and the running counter that give every file its name and
 * number; its byte work is sink.c's, its stacks store_stacks.c's. */
#include "store/store.h"

#include <errno.h>
#include <md5.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/fsutil.h"
#include "util/html.h"
#include "util/resources.h"
#include "json/json_serde.h"

typedef enum out_kind {
  OUT_TEXT,        /* <key>_N.txt */
  OUT_NAMED_TEXT,  /* <key>_<name>_N.txt */
  OUT_ARTIFACT,    /* artifact {name, encoding} -> <name>_N.txt|.json */
  OUT_GRAPH_DUMP,  /* graph_dump {name} -> <name>_N.txt */
  OUT_OUTPUT_CODE, /* inductor_output_code_<stem>_N.html (+ .py text) */
  OUT_GUARDS,      /* dynamo_guards_N.html */
  OUT_METRICS,     /* compilation_metrics_N.html */
  OUT_LINK,        /* link {name, url}: a counted link, no file */
  OUT_CHROMIUM,    /* appended to chromium_events.json */
  OUT_DUMP_FILE,   /* dump_file {name} -> <name>_N.txt */
  OUT_START,       /* dynamo_start: the frame that is compiled */
  OUT_SHAPE_SPEC,  /* symbolic_shape_specialization: on the metrics page */
  OUT_FAST_GUARD,  /* guard_added_fast: on the metrics page */
  OUT_NONE         /* kept in raw.jsonl only */
} out_kind;

typedef struct kind_row {
  const char *key;
  out_kind out;
  tl_role role;
} kind_row;

static const kind_row KINDS[] = {
    {"dynamo_output_graph", OUT_TEXT, TL_ROLE_NONE},
    {"inductor_pre_grad_graph", OUT_TEXT, TL_ROLE_PRE_GRAD_FALLBACK},
    {"inductor_post_grad_graph", OUT_TEXT, TL_ROLE_POST_GRAD_FALLBACK},
    {"aot_forward_graph", OUT_TEXT, TL_ROLE_NONE},
    {"aot_backward_graph", OUT_TEXT, TL_ROLE_NONE},
    {"aot_inference_graph", OUT_TEXT, TL_ROLE_NONE},
    {"aot_joint_graph", OUT_TEXT, TL_ROLE_NONE},
    {"compiled_autograd_graph", OUT_TEXT, TL_ROLE_NONE},
    {"optimize_ddp_split_graph", OUT_TEXT, TL_ROLE_NONE},
    {"dynamo_cpp_guards_str", OUT_TEXT, TL_ROLE_NONE},
    {"optimize_ddp_split_child", OUT_NAMED_TEXT, TL_ROLE_NONE},
    {"artifact", OUT_ARTIFACT, TL_ROLE_NONE},
    {"graph_dump", OUT_GRAPH_DUMP, TL_ROLE_NONE},
    {"inductor_output_code", OUT_OUTPUT_CODE, TL_ROLE_OUTPUT_CODE},
    {"dynamo_guards", OUT_GUARDS, TL_ROLE_NONE},
    {"compilation_metrics", OUT_METRICS, TL_ROLE_NONE},
    {"bwd_compilation_metrics", OUT_METRICS, TL_ROLE_NONE},
    {"aot_autograd_backward_compilation_metrics", OUT_METRICS, TL_ROLE_NONE},
    {"link", OUT_LINK, TL_ROLE_NONE},
    {"chromium_event", OUT_CHROMIUM, TL_ROLE_NONE},
    {"dump_file", OUT_DUMP_FILE, TL_ROLE_NONE},
    {"dynamo_start", OUT_START, TL_ROLE_NONE},
    {"symbolic_shape_specialization", OUT_SHAPE_SPEC, TL_ROLE_NONE},
    {"guard_added_fast", OUT_FAST_GUARD, TL_ROLE_NONE},
    /* Kinds the Rust tool knows but writes no file of its own for. */
    {"describe_storage", OUT_NONE, TL_ROLE_NONE},
    {"describe_tensor", OUT_NONE, TL_ROLE_NONE},
    {"describe_source", OUT_NONE, TL_ROLE_NONE},
    {"propagate_real_tensors_provenance", OUT_NONE, TL_ROLE_NONE},
    {"guard_added", OUT_NONE, TL_ROLE_NONE},
    {"create_unbacked_symbol", OUT_NONE, TL_ROLE_NONE},
    {"expression_created", OUT_NONE, TL_ROLE_NONE},
    {"missing_fake_kernel", OUT_NONE, TL_ROLE_NONE},
    {"mismatched_fake_kernel", OUT_NONE, TL_ROLE_NONE},
    {"exported_program", OUT_NONE, TL_ROLE_NONE},
};

/* Artifact and graph_dump names that feed the provenance panels. */
static const struct {
  const char *name;
  tl_role role;
} NAMED_ROLES[] = {
    {"before_pre_grad_graph", TL_ROLE_PRE_GRAD},
    {"inductor_pre_grad_graph", TL_ROLE_PRE_GRAD_FALLBACK},
    {"after_post_grad_graph", TL_ROLE_POST_GRAD},
    {"inductor_post_grad_graph", TL_ROLE_POST_GRAD_FALLBACK},
    {"inductor_aot_wrapper_code", TL_ROLE_AOT_WRAPPER},
    {"inductor_aot_kernel_code", TL_ROLE_AOT_KERNELS},
    {"inductor_provenance_tracking_node_mappings", TL_ROLE_NODE_MAPPINGS},
    {"inductor_provenance_tracking_kernel_stack_traces", TL_ROLE_STACK_TRACES},
};

static const kind_row *find_kind(const char *key) {
  for (size_t i = 0; i < sizeof KINDS / sizeof *KINDS; i++)
    if (strcmp(KINDS[i].key, key) == 0)
      return &KINDS[i];
  return NULL;
}

static tl_role role_of_name(const char *name) {
  for (size_t i = 0; i < sizeof NAMED_ROLES / sizeof *NAMED_ROLES; i++)
    if (strcmp(NAMED_ROLES[i].name, name) == 0)
      return NAMED_ROLES[i].role;
  return TL_ROLE_NONE;
}

static const char *object_string(const cJSON *obj, const char *key) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(item) ? item->valuestring : NULL;
}

bool tl_store_write(tl_store *store, const char *relative_path,
                    const void *data, size_t len) {
  if (store->sink) {
    tl_sink_write(store->sink, relative_path, data, len);
    return true;
  }
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s", store->out_dir, relative_path);
  char error[512];
  bool ok = tl_fs_write_file(path.data, data, len, error, sizeof error);
  if (!ok) {
    tl_diag_add(store->diag, TL_DIAG_OUTPUT, 0, "%s", error);
    if (!store->failed) {
      store->failed = true;
      snprintf(store->error, sizeof store->error, "%s", error);
    }
  }
  tl_buf_free(&path);
  return ok;
}

static uint64_t hash_name(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* The folder of a compile id, found through an open-addressing table of the
 * folder names (a trace may hold thousands of compile ids). */
static tl_compile_dir *find_dir(tl_store *store, const char *name,
                                size_t *slot_out) {
  size_t mask = store->dir_table_size - 1;
  size_t slot = store->dir_table_size ? hash_name(name) & mask : 0;
  while (store->dir_table_size && store->dir_table[slot]) {
    if (strcmp(store->dir_table[slot]->dir_name, name) == 0)
      return store->dir_table[slot];
    slot = (slot + 1) & mask;
  }
  *slot_out = slot;
  return NULL;
}

/* The folder the id's non-file entries go to (attempt 0), if it exists. */
static tl_compile_dir *attempt0_dir(tl_store *store, tl_compile_id id) {
  if (id.has_frame_compile) {
    id.has_attempt = true;
    id.attempt = 0;
  }
  char name[96];
  size_t slot;
  tl_compile_id_dir_name(&id, name, sizeof name);
  return find_dir(store, name, &slot);
}

static tl_compile_dir *dir_for(tl_store *store, const tl_compile_id *id) {
  char name[96];
  tl_compile_id_dir_name(id, name, sizeof name);
  if (store->last_dir && strcmp(store->last_dir->dir_name, name) == 0)
    return store->last_dir;
  size_t slot = 0;
  tl_compile_dir *found = find_dir(store, name, &slot);
  if (found)
    return store->last_dir = found;
  tl_compile_dir *dir = tl_xcalloc(1, sizeof *dir);
  memcpy(dir->dir_name, name, sizeof name);
  tl_compile_id_display(id, dir->display, sizeof dir->display);
  TL_VEC_PUSH(store->dirs, dir);
  if (2 * store->dirs.count > store->dir_table_size) {
    /* Grow to keep the table at most half full, and re-insert. */
    size_t size = store->dir_table_size ? 2 * store->dir_table_size : 64;
    free(store->dir_table);
    store->dir_table = tl_xcalloc(size, sizeof *store->dir_table);
    store->dir_table_size = size;
    for (size_t i = 0; i < store->dirs.count; i++) {
      size_t k = hash_name(store->dirs.items[i]->dir_name) & (size - 1);
      while (store->dir_table[k])
        k = (k + 1) & (size - 1);
      store->dir_table[k] = store->dirs.items[i];
    }
  } else {
    store->dir_table[slot] = dir;
  }
  return store->last_dir = dir;
}

/* Folders are made when their first file is written, so ids that only
 * chromium events or metrics carry leave no empty folder behind. */
static void make_folder(tl_store *store, tl_compile_dir *dir) {
  if (dir->folder_made)
    return;
  dir->folder_made = true;
  char error[512];
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s", store->out_dir, dir->dir_name);
  if (!tl_fs_mkdirs_in(store->out_dir, dir->dir_name, error, sizeof error)) {
    tl_diag_add(store->diag, TL_DIAG_OUTPUT, 0, "%s", error);
    if (!store->failed) {
      store->failed = true;
      snprintf(store->error, sizeof store->error, "%s", error);
    }
  }
  tl_buf_free(&path);
}

/* Adds an artifact entry; `file_name` is relative to the compile folder. */
static tl_artifact *add_artifact(tl_store *store, tl_compile_dir *dir,
                                 const char *file_name, int number,
                                 tl_role role, size_t line) {
  make_folder(store, dir);
  tl_artifact a = {0};
  a.name = tl_xstrdup(file_name);
  size_t n = strlen(dir->dir_name) + strlen(file_name) + 2;
  a.path = tl_xmalloc(n);
  snprintf(a.path, n, "%s/%s", dir->dir_name, file_name);
  a.number = number;
  a.listed_number = number;
  a.role = role;
  a.line = line;
  TL_VEC_PUSH(dir->artifacts, a);
  return &dir->artifacts.items[dir->artifacts.count - 1];
}

tl_artifact *tl_store_add_shared(tl_store *store, tl_compile_dir *dir,
                                 const char *folder, const char *file_name,
                                 size_t line) {
  if (!store->shared_folder_made) {
    store->shared_folder_made = true;
    char error[512];
    tl_buf path;
    tl_buf_init(&path);
    tl_buf_printf(&path, "%s/%s", store->out_dir, folder);
    if (!tl_fs_mkdirs_in(store->out_dir, folder, error, sizeof error))
      tl_diag_add(store->diag, TL_DIAG_OUTPUT, 0, "%s", error);
    tl_buf_free(&path);
  }
  tl_artifact a = {0};
  a.name = tl_xstrdup(file_name);
  a.path = tl_xmalloc(strlen(folder) + strlen(file_name) + 2);
  sprintf(a.path, "%s/%s", folder, file_name);
  a.number = a.listed_number = tl_store_take_number(store);
  a.line = line;
  TL_VEC_PUSH(dir->artifacts, a);
  return &dir->artifacts.items[dir->artifacts.count - 1];
}

void tl_store_set_md5(tl_store *store, tl_compile_dir *dir,
                      const tl_record *rec) {
  tl_artifact *a = &dir->artifacts.items[dir->artifacts.count - 1];
  if (store->record_md5_ticket == TL_SINK_NO_TICKET) {
    memcpy(a->md5, rec->digest, sizeof a->md5);
    return;
  }
  tl_pending_md5 p = {dir, dir->artifacts.count - 1, store->record_md5_ticket};
  TL_VEC_PUSH(store->pending_md5, p);
}

/* Writes the record's payload as `<stem>_N.<ext>` and records it. */
static tl_artifact *write_counted(tl_store *store, tl_compile_dir *dir,
                                  const char *stem, const char *ext,
                                  const tl_record *rec, tl_role role) {
  tl_buf name;
  tl_buf_init(&name);
  tl_fs_safe_name(&name, tl_str_from(stem));
  int number = tl_store_take_number(store);
  tl_buf_printf(&name, "_%d.%s", number, ext);
  tl_artifact *a = add_artifact(store, dir, name.data, number, role, rec->line);
  tl_buf pretty;
  tl_buf_init(&pretty);
  tl_json_serde_options o = {true, 0, NULL, 0,
                             tl_json_layout_limit(rec->payload.len)};
  size_t repaired = 0;
  /* JSON is written as the Rust tool writes it (pretty, keys sorted), or
   * compact when nested too deep to indent; what does not parse is kept as
   * it is. */
  tl_json_serde_status st =
      strcmp(ext, "json") == 0
          ? tl_json_serde(&pretty, rec->payload, &o, &repaired, NULL, 0)
          : TL_JSON_SERDE_NOT_JSON;
  if (st == TL_JSON_SERDE_OK || st == TL_JSON_SERDE_OK_COMPACT) {
    if (st == TL_JSON_SERDE_OK_COMPACT)
      tl_diag_add(store->diag, TL_DIAG_COMPACT, rec->line,
                  "%s: written compact: indented, it would be more than 13 "
                  "times its %zu bytes",
                  a->path, rec->payload.len);
    if (repaired)
      tl_diag_add(store->diag, TL_DIAG_UTF8, rec->line,
                  "%s: %zu invalid UTF-8 sequence%s written as U+FFFD (the "
                  "exact bytes are in raw.log)",
                  a->path, repaired, repaired == 1 ? "" : "s");
    tl_sink_write_buf(store->sink, a->path, &pretty);
  } else
    tl_sink_write_payload(store->sink, a->path);
  tl_buf_free(&pretty);
  a->text_path = tl_xstrdup(a->path);
  free(store->payload_file);
  store->payload_file = tl_xstrdup(a->path);
  tl_store_set_md5(store, dir, rec);
  tl_buf_free(&name);
  return a;
}

int tl_store_take_number(tl_store *store) { return store->counter++; }

static tl_artifact *page_artifact(tl_store *store, tl_compile_dir *dir,
                                  const char *stem, int number,
                                  const char *suffix, size_t line) {
  tl_buf name;
  tl_buf_init(&name);
  tl_fs_safe_name(&name, tl_str_from(stem));
  tl_buf_printf(&name, "_%d%s.html", number, suffix);
  tl_artifact *a =
      add_artifact(store, dir, name.data, number, TL_ROLE_NONE, line);
  tl_buf_free(&name);
  return a;
}

tl_artifact *tl_store_add_page(tl_store *store, tl_compile_dir *dir,
                               const char *stem, int number, const char *suffix,
                               tl_buf *html, size_t line) {
  tl_artifact *a = page_artifact(store, dir, stem, number, suffix, line);
  tl_sink_write_buf(store->sink, a->path, html);
  return a;
}

tl_artifact *tl_store_add_payload_page(tl_store *store, tl_compile_dir *dir,
                                       const char *stem, int number,
                                       tl_str before, tl_str after,
                                       size_t line) {
  tl_artifact *a = page_artifact(store, dir, stem, number, "", line);
  tl_sink_write_escaped_payload(store->sink, a->path, before, after);
  return a;
}

static bool is_md5_text(const char *s) {
  if (!s || strlen(s) != 32)
    return false;
  for (int i = 0; i < 32; i++)
    if (!strchr("0123456789abcdefABCDEF", s[i]))
      return false;
  return true;
}

/* Adds `md5` to the set of payload files written; false if it was there. */
static bool first_payload_file(tl_store *store, const char *md5) {
  if (2 * (store->payload_md5_count + 1) > store->payload_md5_size) {
    size_t size = store->payload_md5_size ? 2 * store->payload_md5_size : 64;
    char(*table)[33] = tl_xcalloc(size, sizeof *table);
    for (size_t i = 0; i < store->payload_md5_size; i++) {
      if (!store->payload_md5s[i][0])
        continue;
      size_t k = hash_name(store->payload_md5s[i]) & (size - 1);
      while (table[k][0])
        k = (k + 1) & (size - 1);
      memcpy(table[k], store->payload_md5s[i], 33);
    }
    free(store->payload_md5s);
    store->payload_md5s = table;
    store->payload_md5_size = size;
  }
  size_t mask = store->payload_md5_size - 1;
  size_t k = hash_name(md5) & mask;
  while (store->payload_md5s[k][0]) {
    if (strcmp(store->payload_md5s[k], md5) == 0)
      return false;
    k = (k + 1) & mask;
  }
  snprintf(store->payload_md5s[k], 33, "%s", md5);
  store->payload_md5_count++;
  return true;
}

/* A payload no file of its kind holds goes to payloads/<md5>.txt, named
 * by the md5 the entry declares (as the Rust tool does), or by the one
 * computed when the declared one is not 32 hex digits. One file per md5. */
static void write_unconsumed_payload(tl_store *store, const tl_record *rec) {
  if (!rec->payload.ptr || !rec->payload.len)
    return;
  if (!store->payloads_dir_made) {
    tl_buf path;
    tl_buf_init(&path);
    tl_buf_printf(&path, "%s/payloads", store->out_dir);
    char error[512];
    if (!tl_fs_mkdirs_in(store->out_dir, "payloads", error, sizeof error))
      tl_diag_add(store->diag, TL_DIAG_OUTPUT, 0, "%s", error);
    tl_buf_free(&path);
    store->payloads_dir_made = true;
  }
  char digest[MD5_DIGEST_STRING_LENGTH];
  if (is_md5_text(rec->md5))
    snprintf(digest, sizeof digest, "%s", rec->md5);
  else
    MD5Data((const uint8_t *)rec->payload.ptr, rec->payload.len, digest);
  char rel[64];
  snprintf(rel, sizeof rel, "payloads/%s.txt", digest);
  if (first_payload_file(store, digest))
    tl_sink_write_payload(store->sink, rel);
  free(store->payload_file);
  store->payload_file = tl_xstrdup(rel);
}

static void store_artifact(tl_store *store, tl_compile_dir *dir,
                           const tl_record *rec) {
  const char *name = object_string(rec->kind_value, "name");
  const char *encoding = object_string(rec->kind_value, "encoding");
  if (!name) {
    tl_diag_add(store->diag, TL_DIAG_ENVELOPE, rec->line,
                "artifact entry without a name (payload kept in payloads/)");
    if (rec->payload.ptr)
      write_unconsumed_payload(store, rec);
    return;
  }
  tl_role role = rec->has_payload ? role_of_name(name) : TL_ROLE_NONE;
  if (!rec->has_payload)
    tl_diag_add(store->diag, TL_DIAG_PAYLOAD, rec->line,
                "artifact \"%s\" has no payload (written empty, not used "
                "for provenance)",
                name);
  const char *ext = "txt";
  if (encoding && strcmp(encoding, "json") == 0)
    ext = "json";
  else if (!encoding || strcmp(encoding, "string") != 0)
    tl_diag_add(store->diag, TL_DIAG_ENVELOPE, rec->line,
                "artifact \"%s\" has unknown encoding %s (kept as text)", name,
                encoding ? encoding : "(none)");
  tl_artifact *a = write_counted(store, dir, name, ext, rec, role);
  if (store->options.pages)
    store->options.pages->readable(store, dir, a, name, rec);
}

static void store_output_code(tl_store *store, tl_compile_dir *dir,
                              const tl_record *rec) {
  const char *filename = object_string(rec->kind_value, "filename");
  tl_buf stem;
  tl_buf_init(&stem);
  tl_buf_puts(&stem, "inductor_output_code");
  if (filename) {
    const char *base = strrchr(filename, '/');
    base = base ? base + 1 : filename;
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (len) {
      tl_buf_putc(&stem, '_');
      tl_fs_safe_name(&stem, (tl_str){base, len});
    }
  }
  if (store->options.plain_text) {
    write_counted(store, dir, stem.data, "txt", rec, TL_ROLE_OUTPUT_CODE);
    tl_buf_free(&stem);
    return;
  }
  if (store->options.pages)
    store->options.pages->output_code(store, dir, rec, stem.data);
  tl_buf_free(&stem);
}

static void free_shape_entries(tl_compile_dir *dir) {
  for (size_t i = 0; i < dir->specializations.count; i++)
    cJSON_Delete(dir->specializations.items[i]);
  for (size_t i = 0; i < dir->fast_guards.count; i++)
    cJSON_Delete(dir->fast_guards.items[i]);
  TL_VEC_FREE(dir->specializations);
  TL_VEC_FREE(dir->fast_guards);
}

/* The numeric members of a metrics object, copied. */
static cJSON *metric_numbers(const cJSON *m) {
  cJSON *out = cJSON_CreateObject();
  const cJSON *v;
  cJSON_ArrayForEach(v, m) {
    if (cJSON_IsNumber(v) && v->string)
      cJSON_AddNumberToObject(out, v->string, v->valuedouble);
  }
  return out;
}

/* A metrics entry: its part in the index's status of the id (filed under
 * attempt 0), then its page and failure rows (the page writers), which take
 * the id's specializations and fast guards. */
static void store_metrics(tl_store *store, tl_compile_dir *dir,
                          const tl_record *rec) {
  const cJSON *m = rec->kind_value;
  bool known_id =
      !rec->compile_id_unknown && !tl_compile_id_is_empty(&rec->compile_id);
  tl_compile_dir *home = known_id ? attempt0_dir(store, rec->compile_id) : NULL;
  bool compilation = strcmp(rec->kind, "compilation_metrics") == 0;
  const char *fail_type =
      cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "fail_type"));
  if (fail_type && !dir->fail_type)
    dir->fail_type = tl_xstrdup(fail_type);
  if (compilation && home) {
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(m, "graph_op_count");
    const cJSON *restarts =
        cJSON_GetObjectItemCaseSensitive(m, "restart_reasons");
    home->metrics_count++;
    home->any_fail |=
        cJSON_GetObjectItemCaseSensitive(m, "fail_type") &&
        !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(m, "fail_type"));
    home->any_empty |= !cJSON_IsNumber(ops) || ops->valuedouble == 0;
    home->any_restart |= cJSON_IsArray(restarts) && restarts->child;
    tl_metric_numbers numbers = {rec->line, metric_numbers(m)};
    TL_VEC_PUSH(home->metrics_by_line, numbers);
  }
  if (store->options.pages)
    store->options.pages->metrics(store, dir, home, known_id, rec);
  if (compilation && home)
    free_shape_entries(home);
}

/* The folder of an entry whose compile id cannot be read: one per entry,
 * `unknown_<line>/`, all listed under "unknown" (as in the Rust tool). */
static tl_compile_dir *unknown_dir(tl_store *store, size_t line) {
  tl_compile_dir *dir = tl_xcalloc(1, sizeof *dir);
  snprintf(dir->dir_name, sizeof dir->dir_name, "unknown_%zu", line);
  snprintf(dir->display, sizeof dir->display, "unknown");
  dir->unknown_id = true;
  TL_VEC_PUSH(store->dirs, dir);
  return dir;
}

/* dynamo_start: the user stack that led to this compilation (outermost
 * first), filed under `dir` and in the log's order of starts, for the
 * stack tries. */
static void file_start_stack(tl_store *store, tl_compile_dir *dir,
                             const tl_record *rec) {
  tl_stack s;
  tl_dir_start at = {rec->line, SIZE_MAX};
  bool has_stack =
      tl_stack_of(rec->kind_value, rec->strings, &store->frame_files, true, &s);
  if (has_stack)
    at.stack = dir->stacks.count;
  TL_VEC_PUSH(dir->starts, at);
  if (!has_stack)
    return;
  TL_VEC_PUSH(dir->stacks, s);
  tl_start start = {dir, dir->stacks.count - 1};
  TL_VEC_PUSH(store->starts, start);
}

/* What the entry becomes: its files, and what the report needs of it. */
static void store_entry(tl_store *store, const tl_record *rec) {
  const kind_row *row = find_kind(rec->kind);
  out_kind out = row ? row->out : OUT_NONE;
  /* As in the Rust tool: files go to the folder of the raw id (`-_0_0_-`
   * when attempt is absent), while entries that write no file count for the
   * id with attempt 0. */
  tl_compile_id id = rec->compile_id;
  bool writes_file = out != OUT_NONE && out != OUT_START &&
                     out != OUT_CHROMIUM && out != OUT_LINK;
  if (!writes_file && id.has_frame_compile && !id.has_attempt) {
    id.has_attempt = true;
    id.attempt = 0;
  }
  tl_compile_dir *dir = rec->compile_id_unknown ? unknown_dir(store, rec->line)
                                                : dir_for(store, &id);
  switch (out) {
  case OUT_TEXT:
    write_counted(store, dir, rec->kind, "txt", rec,
                  rec->has_payload ? row->role : TL_ROLE_NONE);
    return;
  case OUT_NAMED_TEXT: {
    const char *name = object_string(rec->kind_value, "name");
    tl_buf stem;
    tl_buf_init(&stem);
    tl_buf_printf(&stem, "%s_%s", rec->kind, name ? name : "");
    write_counted(store, dir, stem.data, "txt", rec, TL_ROLE_NONE);
    tl_buf_free(&stem);
    return;
  }
  case OUT_ARTIFACT:
    store_artifact(store, dir, rec);
    return;
  case OUT_GRAPH_DUMP: {
    const char *name = object_string(rec->kind_value, "name");
    if (!name) {
      tl_diag_add(store->diag, TL_DIAG_ENVELOPE, rec->line,
                  "graph_dump entry without a name (payload kept in "
                  "payloads/)");
      if (rec->payload.ptr)
        write_unconsumed_payload(store, rec);
      return;
    }
    write_counted(store, dir, name, "txt", rec,
                  rec->has_payload ? role_of_name(name) : TL_ROLE_NONE);
    return;
  }
  case OUT_OUTPUT_CODE:
    store_output_code(store, dir, rec);
    return;
  case OUT_GUARDS:
    if (store->options.pages)
      store->options.pages->guards(store, dir, rec);
    return;
  case OUT_METRICS:
    store_metrics(store, dir, rec);
    return;
  case OUT_LINK: {
    const char *name = object_string(rec->kind_value, "name");
    const char *url = object_string(rec->kind_value, "url");
    tl_artifact *a =
        add_artifact(store, dir, name ? name : "link",
                     tl_store_take_number(store), TL_ROLE_NONE, rec->line);
    free(a->path);
    a->path = NULL;
    if (url && tl_url_is_safe(tl_str_from(url)))
      a->url = tl_xstrdup(url);
    else
      tl_diag_add(store->diag, TL_DIAG_ENVELOPE, rec->line,
                  "link \"%s\" has an unsafe or missing URL (shown as text)",
                  name ? name : "");
    return;
  }
  case OUT_CHROMIUM:
    if (store->chromium.events && rec->payload.ptr)
      tl_sink_chromium_event(store->sink, &store->chromium);
    return;
  case OUT_DUMP_FILE:
    if (store->options.pages)
      store->options.pages->dump_file(store, dir, rec);
    return; /* its payload goes to payloads/, as in the Rust tool */
  case OUT_START:
    file_start_stack(store, dir, rec);
    return;
  case OUT_SHAPE_SPEC:
    TL_VEC_PUSH(dir->specializations, cJSON_Duplicate(rec->kind_value, true));
    return;
  case OUT_FAST_GUARD:
    TL_VEC_PUSH(dir->fast_guards, cJSON_Duplicate(rec->kind_value, true));
    return;
  case OUT_NONE:
    if (!row && !store->unknown_count++)
      snprintf(store->first_unknown, sizeof store->first_unknown, "%s",
               rec->kind);
    return;
  }
}

void tl_store_record(void *ctx, const tl_record *rec) {
  tl_store *store = ctx;
  store->record_count++;
  /* A truncated record's md5 was checked by the reader (uncounted: the cut
   * is the diagnostic, not a mismatch), its digest is rec->digest. */
  bool check_md5 = rec->md5_deferred && rec->has_payload && !rec->other_rank &&
                   !rec->truncated;
  store->record_md5_ticket = tl_sink_record_taking(
      store->sink, rec->line, rec->envelope_text, rec->payload,
      rec->payload_buf, rec->kind, rec->md5, check_md5);
  free(store->payload_file);
  store->payload_file = NULL;
  bool chromium = strcmp(rec->kind, "chromium_event") == 0;
  if (!rec->other_rank) {
    tl_stack beside; /* the index's "Unknown stacks" */
    if (tl_stack_of(rec->envelope, rec->strings, &store->frame_files, false,
                    &beside))
      TL_VEC_PUSH(store->unknown_stacks, beside);
    store_entry(store, rec);
    if (!store->payload_file && !chromium)
      write_unconsumed_payload(store, rec);
  }
  if (!chromium) { /* left out of raw.jsonl, as in the Rust tool */
    tl_json_member members[TL_RAW_JSONL_MEMBERS];
    size_t n =
        tl_raw_jsonl_members(&store->raw_jsonl, &rec->glog, store->payload_file,
                             &store->raw_members, members);
    tl_sink_raw_jsonl(store->sink, members, n);
  }
  tl_sink_record_end(store->sink);
}

static FILE *open_stream(tl_store *store, const char *name) {
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s", store->out_dir, name);
  FILE *f = fopen(path.data, "wb");
  if (!f && !store->failed) {
    store->failed = true;
    snprintf(store->error, sizeof store->error, "cannot write %s: %s",
             path.data, strerror(errno));
  }
  tl_buf_free(&path);
  return f;
}

bool tl_store_open(tl_store *store, const char *out_dir,
                   const tl_store_options *options, tl_diag *diag) {
  memset(store, 0, sizeof *store);
  tl_buf_init(&store->failure_rows);
  store->out_dir = out_dir;
  store->options = *options;
  store->diag = diag;
  char error[512];
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/static", out_dir);
  if (!tl_fs_mkdirs_in(out_dir, "static", error, sizeof error)) {
    snprintf(store->error, sizeof store->error, "%s", error);
    store->failed = true;
    tl_buf_free(&path);
    return false;
  }
  tl_buf_free(&path);
  tl_str css = TL_RES(report_css);
  if ((options->pages && !options->pages->write_static(store)) ||
      !tl_store_write(store, "static/report.css", css.ptr, css.len))
    return false;
  store->raw_log = open_stream(store, "raw.log");
  tl_buf_init(&store->raw_members);
  if (!tl_raw_jsonl_open(&store->raw_jsonl, out_dir, error, sizeof error) &&
      !store->failed) {
    store->failed = true;
    snprintf(store->error, sizeof store->error, "%s", error);
  }
  store->chromium.events = open_stream(store, "chromium_events.json");
  if (store->chromium.events)
    fputs("[", store->chromium.events);
  if (options->chromium_part_path) {
    store->chromium.pid = options->chromium_pid;
    store->chromium.part = fopen(options->chromium_part_path, "wbx");
    if (!store->chromium.part && !store->failed) {
      store->failed = true;
      snprintf(store->error, sizeof store->error, "cannot write %s: %s",
               options->chromium_part_path, strerror(errno));
    }
  }
  store->sink = tl_sink_start(out_dir, store->raw_jsonl.entries, store->raw_log,
                              diag, options->background_writes);
  return !store->failed;
}

void tl_store_raw_log(void *ctx, const char *data, size_t len) {
  tl_store *store = ctx;
  if (store->sink)
    tl_sink_raw_log(store->sink, data, len);
}

/* Closes a file of the store: `name` in the output folder, or the file
 * `path` when `name` is NULL. */
static void close_stream(tl_store *store, FILE **stream, const char *name,
                         const char *path) {
  if (!*stream)
    return;
  /* A write that failed earlier (ferror) fails the run as the final
   * flush does; only the flush's own error has a reason to give. */
  bool earlier = ferror(*stream);
  bool closed = fclose(*stream) == 0;
  int why = errno;
  if ((earlier || !closed) && !store->failed) {
    store->failed = true;
    const char *reason = closed ? "a write failed" : strerror(why);
    if (name)
      snprintf(store->error, sizeof store->error, "cannot write %s/%s: %s",
               store->out_dir, name, reason);
    else
      snprintf(store->error, sizeof store->error, "cannot write %s: %s", path,
               reason);
  }
  *stream = NULL;
}

bool tl_store_close(tl_store *store) {
  if (store->sink) {
    char error[512];
    if (!tl_sink_finish(store->sink, error, sizeof error) && !store->failed) {
      store->failed = true;
      snprintf(store->error, sizeof store->error, "%s", error);
    }
    for (size_t i = 0; i < store->pending_md5.count; i++) {
      const tl_pending_md5 *p = &store->pending_md5.items[i];
      memcpy(p->dir->artifacts.items[p->artifact].md5,
             tl_sink_digest(store->sink, p->ticket), 33);
    }
    TL_VEC_FREE(store->pending_md5);
    tl_sink_free(store->sink);
    store->sink = NULL;
  }
  if (store->chromium.events)
    fputs(store->chromium.count ? "\n]" : "]", store->chromium.events);
  close_stream(store, &store->chromium.events, "chromium_events.json", NULL);
  close_stream(store, &store->chromium.part, NULL,
               store->options.chromium_part_path);
  if (store->raw_jsonl.entries) {
    char error[512];
    if (!tl_raw_jsonl_finish(&store->raw_jsonl, &store->strings, error,
                             sizeof error) &&
        !store->failed) {
      store->failed = true;
      snprintf(store->error, sizeof store->error, "%s", error);
    }
  }
  close_stream(store, &store->raw_log, "raw.log", NULL);
  return !store->failed;
}

void tl_store_free(tl_store *store) {
  tl_store_close(store);
  for (size_t i = 0; i < store->dirs.count; i++) {
    tl_compile_dir *dir = store->dirs.items[i];
    for (size_t k = 0; k < dir->artifacts.count; k++) {
      tl_artifact *a = &dir->artifacts.items[k];
      free(a->name);
      free(a->path);
      free(a->text_path);
      free(a->url);
      free(a->readable_path);
    }
    TL_VEC_FREE(dir->artifacts);
    tl_store_stacks_free(dir->stacks.items, dir->stacks.count);
    TL_VEC_FREE(dir->stacks);
    free(dir->fail_type);
    for (size_t k = 0; k < dir->metrics_by_line.count; k++)
      cJSON_Delete(dir->metrics_by_line.items[k].numbers);
    TL_VEC_FREE(dir->metrics_by_line);
    TL_VEC_FREE(dir->starts);
    free_shape_entries(dir);
    tl_buf_free(&dir->output_files_html);
    free(dir);
  }
  TL_VEC_FREE(store->dirs);
  TL_VEC_FREE(store->starts);
  tl_store_stacks_free(store->unknown_stacks.items,
                       store->unknown_stacks.count);
  TL_VEC_FREE(store->unknown_stacks);
  tl_buf_free(&store->failure_rows);
  tl_raw_jsonl_free(&store->raw_jsonl);
  tl_string_table_free(&store->strings);
  tl_intern_free(&store->frame_files);
  free(store->payload_file);
  store->payload_file = NULL;
  free(store->payload_md5s);
  store->payload_md5s = NULL;
  tl_buf_free(&store->raw_members);
  free(store->dir_table);
  store->dir_table = NULL;
}
