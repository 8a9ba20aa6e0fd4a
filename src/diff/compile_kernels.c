/* compile_kernels.c: a compile's files -> its kernels, through the
 * provenance join when it has node mappings, else the output code's
 * definitions (see compile_kernels.h). */
#include "diff/compile_kernels.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "diff/compile_files.h"
#include "join/provenance.h"
#include "util/fsutil.h"

static tl_str text_or_null(const tl_compile_file_text *t) {
  return t->ok ? tl_buf_str(&t->text) : (tl_str){NULL, 0};
}

/* Where each line of a text starts: starts[k] is line k + 1's first byte;
 * starts[count] is the text's length. */
typedef struct line_starts {
  size_t *at;
  size_t count;
} line_starts;

static void index_lines(tl_str s, line_starts *out) {
  size_t n = 1;
  for (size_t i = 0; i < s.len; i++)
    n += s.ptr[i] == '\n';
  out->at = tl_xmalloc((n + 1) * sizeof *out->at);
  out->count = 0;
  out->at[out->count++] = 0;
  for (size_t i = 0; i < s.len; i++)
    if (s.ptr[i] == '\n')
      out->at[out->count++] = i + 1;
  out->at[out->count] = s.len;
}

/* Lines first..last (1-based) of `s`, without the last newline. */
static tl_str lines_of(tl_str s, const line_starts *ls, int first, int last) {
  if (first < 1 || last < first || (size_t)first > ls->count)
    return (tl_str){"", 0};
  if ((size_t)last > ls->count)
    last = (int)ls->count;
  size_t from = ls->at[first - 1], to = ls->at[last];
  if (to > from && s.ptr[to - 1] == '\n')
    to--;
  return (tl_str){s.ptr + from, to - from};
}

static tl_str copy_cstr(tl_arena *arena, const char *s) {
  return s ? tl_arena_str(arena, tl_str_from(s)) : (tl_str){"", 0};
}

static const char *member_str(const cJSON *o, const char *key) {
  return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* The code text a definition lies in. */
typedef struct code_texts {
  tl_str code, kernel_code;
  line_starts code_lines, kernel_lines;
} code_texts;

static void set_code(tl_arena *arena, const code_texts *t, tl_str file,
                     int first, int last, tl_kernel_item *k) {
  bool kernels = tl_str_eq_cstr(file, "kernel_code");
  tl_str s = kernels ? t->kernel_code : t->code;
  if (!s.ptr || !first)
    return;
  k->code = tl_arena_str(
      arena,
      lines_of(s, kernels ? &t->kernel_lines : &t->code_lines, first, last));
  k->first = first;
  k->last = last < first ? first : last;
  k->file = file;
}

/* The entry function's lines first..last of the code. */
static void set_entry(tl_compile_kernels *out, const code_texts *t, int first,
                      int last) {
  if (!t->code.ptr || first < 1 || last < first)
    return;
  out->entry =
      tl_arena_str(&out->arena, lines_of(t->code, &t->code_lines, first, last));
  out->entry_first = first;
}

/* The mapping's kernels, from the view's JSON (provenance-json.md). */
static void from_provenance(tl_compile_kernels *out, const cJSON *view,
                            const code_texts *t, const cJSON *others) {
  const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(view, "kernels"), *k;
  cJSON_ArrayForEach(k, kernels) {
    const char *key = member_str(k, "key");
    if (key && cJSON_GetObjectItemCaseSensitive(others, key))
      continue; /* another compilation's */
    tl_kernel_item item = {0};
    item.key = copy_cstr(&out->arena, member_str(k, "key"));
    item.name = copy_cstr(&out->arena, member_str(k, "name"));
    item.kind = copy_cstr(&out->arena, member_str(k, "kind"));
    item.code = item.file = (tl_str){"", 0};
    const cJSON *def = cJSON_GetObjectItemCaseSensitive(k, "definition");
    if (cJSON_IsObject(def))
      set_code(&out->arena, t, copy_cstr(&out->arena, member_str(def, "file")),
               (int)cJSON_GetNumberValue(
                   cJSON_GetObjectItemCaseSensitive(def, "first")),
               (int)cJSON_GetNumberValue(
                   cJSON_GetObjectItemCaseSensitive(def, "last")),
               &item);
    const cJSON *posts = cJSON_GetObjectItemCaseSensitive(k, "post_nodes"), *p;
    size_t n = (size_t)cJSON_GetArraySize(posts), c = 0;
    tl_str *nodes = tl_arena_alloc(&out->arena, (n + 1) * sizeof *nodes);
    cJSON_ArrayForEach(p, posts) {
      if (cJSON_IsString(p))
        nodes[c++] = copy_cstr(&out->arena, p->valuestring);
    }
    item.nodes = nodes;
    item.node_count = c;
    TL_VEC_PUSH(out->items, item);
  }
}

/* The kernels the code defines, in definition order, without nodes. */
static void from_definitions(tl_compile_kernels *out, bool aot,
                             const code_texts *t, tl_analysis_cache *cache) {
  out->entry = (tl_str){"", 0};
  out->entry_first = 0;
  tl_code_analysis a;
  memset(&a, 0, sizeof a);
#ifndef HAVE_CPPCODE
  if (aot)
    return;
#endif
  /* The wrapper's analysis is kept before the kernel code's is added, as
   * the provenance join keeps it (provenance.c). */
  tl_analysis_kind kind = aot ? TL_ANALYSIS_CPPCODE : TL_ANALYSIS_PYCODE;
  if (!tl_analysis_cache_get_code(cache, kind, t->code, &out->arena, &a)) {
    if (!aot)
      tl_pycode_analyze(&out->arena, t->code, &a);
#ifdef HAVE_CPPCODE
    else
      tl_cppcode_analyze(&out->arena, t->code, &a);
#endif
    tl_analysis_cache_put_code(cache, kind, t->code, &a);
  }
#ifdef HAVE_CPPCODE
  if (aot && t->kernel_code.ptr)
    tl_cppkernels_analyze(&out->arena, t->kernel_code, &a);
#endif
  set_entry(out, t, a.entry_first, a.entry_last);
  for (size_t i = 0; i < a.def_count; i++) {
    const tl_kernel_def *d = &a.defs[i];
    tl_kernel_item item = {0};
    item.name = item.key = tl_arena_str(&out->arena, d->name);
    item.kind = tl_str_from(tl_kernel_kind_name(d->kind));
    item.code = item.file = (tl_str){"", 0};
    set_code(&out->arena, t, tl_str_from(tl_code_file_name(d->file)), d->first,
             d->last, &item);
    TL_VEC_PUSH(out->items, item);
  }
}

void tl_compile_kernels_read(tl_compile_reader *files, const tl_artifact *post,
                             const tl_artifact *code,
                             const tl_artifact *kernel_code,
                             const tl_artifact *mappings,
                             const tl_artifact *other_mappings,
                             tl_analysis_cache *cache,
                             tl_compile_kernels *out) {
  memset(out, 0, sizeof *out);
  tl_arena_init(&out->arena);
  tl_compile_file_text tpost, tcode, tkernels, tmap;
  tl_compile_file_read(files, post, &tpost);
  tl_compile_file_read(files, code, &tcode);
  tl_compile_file_read(files, kernel_code, &tkernels);
  tl_compile_file_read(files, mappings, &tmap);
  out->available = tcode.ok || tmap.ok;
  bool aot = code && code->role == TL_ROLE_AOT_WRAPPER;
  code_texts t = {text_or_null(&tcode), text_or_null(&tkernels), {0}, {0}};
  if (t.code.ptr)
    out->code = tl_arena_str(&out->arena, t.code);
  out->cpp = aot;
  index_lines(t.code, &t.code_lines);
  index_lines(t.kernel_code, &t.kernel_lines);
  if (tmap.ok) {
    tl_prov_inputs in = {0};
    in.compile_dir = "";
    in.compile_id = "";
    in.aot = aot;
    in.post_graph = text_or_null(&tpost);
    in.code = t.code;
    in.kernel_code = t.kernel_code;
    in.node_mappings = text_or_null(&tmap);
    in.cache = cache;
    cJSON *view = tl_provenance_build(&in);
    tl_compile_file_text tother;
    tl_compile_file_read(files, other_mappings, &tother);
    cJSON *other =
        tother.ok ? cJSON_ParseWithLength(tother.text.data, tother.text.len)
                  : NULL;
    if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(view, "no_links_reason")))
      from_provenance(out, view, &t,
                      cJSON_GetObjectItemCaseSensitive(other, "cppCodeToPost"));
    cJSON_Delete(other);
    tl_buf_free(&tother.text);
    const cJSON *entry = cJSON_GetObjectItemCaseSensitive(view, "entry");
    if (cJSON_IsObject(entry))
      set_entry(out, &t,
                (int)cJSON_GetNumberValue(
                    cJSON_GetObjectItemCaseSensitive(entry, "first")),
                (int)cJSON_GetNumberValue(
                    cJSON_GetObjectItemCaseSensitive(entry, "last")));
    out->from_mapping = out->items.count > 0;
    cJSON_Delete(view);
  }
  if (!out->from_mapping && t.code.ptr)
    from_definitions(out, aot, &t, cache);
  free(t.code_lines.at);
  free(t.kernel_lines.at);
  tl_buf_free(&tpost.text);
  tl_buf_free(&tcode.text);
  tl_buf_free(&tkernels.text);
  tl_buf_free(&tmap.text);
}

void tl_compile_kernels_free(tl_compile_kernels *k) {
  TL_VEC_FREE(k->items);
  tl_arena_free(&k->arena);
}
