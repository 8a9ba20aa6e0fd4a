/* code_rest.c: two output codes outside their kernels and entry functions
 * -> the statements that differ (see code_rest.h). */
#include "diff/code_rest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/ts_query.h"
#include "util/blob.h"

static bool is_type(TSNode n, const char *type) {
  return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

/* A line range left out: a kernel's definition or the entry function. */
typedef struct range {
  int first, last;
} range;

/* A leaf of a unit, as compared: its bytes in the code. */
typedef struct leaf {
  uint32_t at, len;
} leaf;

typedef struct side {
  tl_str code;
  bool cpp; /* the code is C++ (else Python) */
  const range *skip;
  size_t skip_count;
  TL_VEC(leaf) leaves;    /* each unit's leaves, comments left out, in order */
  TL_VEC(size_t) leaf_at; /* where unit i's leaves start in leaves */
  tl_buf keys;            /* each unit's key, one after the other */
  TL_VEC(size_t) key_at;  /* where unit i's key starts in keys */
  TL_VEC(uint64_t) hash;  /* of each key */
  tl_code_words words;
  tl_code_units *units; /* the side being filled */
} side;

static bool overlaps(const side *s, int first, int last) {
  for (size_t i = 0; i < s->skip_count; i++)
    if (s->skip[i].first <= last && first <= s->skip[i].last)
      return true;
  return false;
}

/* Is every line of first..last left out (in one range or several)? */
static bool covered(const side *s, int first, int last) {
  for (int line = first; line <= last;) {
    int through = line - 1; /* the last line left out from `line` on */
    for (size_t i = 0; i < s->skip_count; i++)
      if (s->skip[i].first <= line && line <= s->skip[i].last &&
          s->skip[i].last > through)
        through = s->skip[i].last;
    if (through < line)
      return false;
    if (through >= last)
      return true;
    line = through + 1;
  }
  return true;
}

/* The containers read into when they hold what is left out. */
static TSNode body_of(TSNode n) {
  const char *t = ts_node_type(n);
  if (strcmp(t, "class_definition") == 0 ||
      strcmp(t, "namespace_definition") == 0 ||
      strcmp(t, "linkage_specification") == 0 ||
      strcmp(t, "class_specifier") == 0 || strcmp(t, "struct_specifier") == 0)
    return ts_node_child_by_field_name(n, "body", 4);
  if (strcmp(t, "declaration") == 0 || strcmp(t, "expression_statement") == 0 ||
      strcmp(t, "template_declaration") == 0) {
    /* `class X {...};` is a declaration of a class specifier */
    uint32_t c = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < c; i++) {
      TSNode k = ts_node_named_child(n, i);
      if (is_type(k, "class_specifier") || is_type(k, "struct_specifier"))
        return ts_node_child_by_field_name(k, "body", 4);
    }
  }
  return (TSNode){{0}, 0, 0};
}

static tl_str text_of(TSNode n, tl_str code) { return tl_ts_text(n, code); }

/* The name of a unit: a function's or class's, an assignment's target, a
 * declaration's declarator (without its parameters or initializer). */
static tl_str name_of(TSNode n, tl_str code) {
  const char *t = ts_node_type(n);
  if (strcmp(t, "linkage_specification") == 0) { /* extern "C" void f(...); */
    TSNode body = ts_node_child_by_field_name(n, "body", 4);
    return is_type(body, "declaration") || is_type(body, "function_definition")
               ? name_of(body, code)
               : (tl_str){"", 0};
  }
  if (strcmp(t, "function_definition") == 0 || strcmp(t, "declaration") == 0 ||
      strcmp(t, "field_declaration") == 0) {
    TSNode d = ts_node_child_by_field_name(n, "declarator", 10);
    TSNode type = ts_node_child_by_field_name(n, "type", 4);
    if (ts_node_is_null(d) &&
        (is_type(type, "class_specifier") || is_type(type, "struct_specifier")))
      return text_of(ts_node_child_by_field_name(type, "name", 4), code);
    if (ts_node_is_null(d)) /* Python: def name(...) */
      return text_of(ts_node_child_by_field_name(n, "name", 4), code);
    while (!ts_node_is_null(d) &&
           (is_type(d, "function_declarator") ||
            is_type(d, "init_declarator") || is_type(d, "pointer_declarator") ||
            is_type(d, "reference_declarator") ||
            is_type(d, "array_declarator")))
      d = ts_node_child_by_field_name(d, "declarator", 10);
    return text_of(d, code);
  }
  if (strcmp(t, "class_definition") == 0 ||
      strcmp(t, "decorated_definition") == 0)
    return text_of(ts_node_child_by_field_name(
                       is_type(n, "decorated_definition")
                           ? ts_node_child_by_field_name(n, "definition", 10)
                           : n,
                       "name", 4),
                   code);
  if (strcmp(t, "preproc_def") == 0 || strcmp(t, "preproc_function_def") == 0)
    return text_of(ts_node_child_by_field_name(n, "name", 4), code);
  if (strcmp(t, "preproc_include") == 0)
    return text_of(ts_node_child_by_field_name(n, "path", 4), code);
  if (strcmp(t, "expression_statement") == 0) {
    TSNode e = ts_node_named_child(n, 0);
    if (is_type(e, "assignment") || is_type(e, "augmented_assignment"))
      return text_of(ts_node_child_by_field_name(e, "left", 4), code);
  }
  return (tl_str){"", 0};
}

/* A unit's leaves with text, comments left out (its key is made of them:
 * side_keys). */
static bool add_leaf(TSNode n, void *ctx) {
  side *s = ctx;
  if (is_type(n, "comment"))
    return false;
  if (ts_node_child_count(n) == 0) {
    tl_str t = text_of(n, s->code);
    if (t.len) {
      leaf l = {(uint32_t)(t.ptr - s->code.ptr), (uint32_t)t.len};
      TL_VEC_PUSH(s->leaves, l);
    }
    return false;
  }
  return true;
}

static uint64_t fnv(tl_str s) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < s.len; i++)
    h = (h ^ (unsigned char)s.ptr[i]) * 1099511628211ull;
  return h;
}

static void add_unit(side *s, TSNode n) {
  tl_code_unit u = {tl_str_from(ts_node_type(n)), name_of(n, s->code),
                    text_of(n, s->code), tl_ts_first_line(n),
                    tl_ts_last_line(n)};
  TL_VEC_PUSH(*s->units, u);
  TL_VEC_PUSH(s->leaf_at, s->leaves.count);
  tl_ts_walk(n, add_leaf, s);
}

static void read_units(side *s, TSNode parent);

#ifdef HAVE_CPPCODE
/* The C++ source strings inside a Python statement that holds what is
 * left out (cpp_wrapper code: `cpp_wrapper_src = r"""..."""` around
 * `inductor_entry_impl`): each read with the C++ grammar, in the outer
 * code's coordinates, into units of its own. */
static bool read_cpp_strings(TSNode n, void *ctx) {
  side *s = ctx;
  if (!is_type(n, "string_content"))
    return true;
  int first = tl_ts_first_line(n), last = tl_ts_last_line(n);
  /* A string with no line left out is part of its unit; one with every
   * line left out (a kernel's source: the Triton or C++ of a definition)
   * would give no unit, every node of it being left out: neither is
   * parsed. */
  if (!overlaps(s, first, last) || covered(s, first, last))
    return false;
  TSRange within = {ts_node_start_point(n), ts_node_end_point(n),
                    ts_node_start_byte(n), ts_node_end_byte(n)};
  TSTree *tree = tl_ts_parse(tree_sitter_cpp(), s->code, &within, 1);
  if (tree) {
    read_units(s, ts_tree_root_node(tree));
    ts_tree_delete(tree);
  }
  return false;
}
#endif

/* The units of a container's children (see code_rest.h). */
static void read_units(side *s, TSNode parent) {
  uint32_t count = ts_node_named_child_count(parent);
  for (uint32_t i = 0; i < count; i++) {
    TSNode n = ts_node_named_child(parent, i);
    if (is_type(n, "comment") || is_type(n, "preproc_call"))
      continue;
    TSNode body = body_of(n);
    /* A namespace or `extern "C" { ... }` block is read into its members
     * always: the AOT wrapper keeps most of its code in a few such blocks,
     * and one unit each would say only that a whole block differs. */
    bool block = is_type(body, "declaration_list") &&
                 (is_type(n, "namespace_definition") ||
                  is_type(n, "linkage_specification"));
    if (!block && !overlaps(s, tl_ts_first_line(n), tl_ts_last_line(n))) {
      add_unit(s, n);
      continue;
    }
    if (!ts_node_is_null(body))
      read_units(s, body);
#ifdef HAVE_CPPCODE
    else if (!s->cpp)
      tl_ts_walk(n, read_cpp_strings, s);
#endif
  }
}

/* The units and their leaves, read from the code's tree. */
static void side_parse(side *s) {
  const TSLanguage *lang = tree_sitter_python();
#ifdef HAVE_CPPCODE
  if (s->cpp)
    lang = tree_sitter_cpp();
#endif
  TSTree *tree = s->code.ptr ? tl_ts_parse(lang, s->code, NULL, 0) : NULL;
  if (tree) {
    read_units(s, ts_tree_root_node(tree));
    ts_tree_delete(tree);
  }
  TL_VEC_PUSH(s->leaf_at, s->leaves.count);
}

/* ---- a side's units kept in the analysis cache ------------------------- */

/* What side_parse finds, as one blob of 64-bit words and strings (length,
 * then bytes): the language and the lines left out it was read with (a
 * blob read with others is not used), then each unit (its kind, its name
 * and text as places in the code, its lines, its leaves' count), then the
 * leaves. A slice outside the code (an empty name) is EMPTY. */
static const uint64_t EMPTY = UINT64_MAX;

static bool put_slice(tl_buf *b, tl_str code, tl_str s) {
  if (s.ptr >= code.ptr && s.ptr + s.len <= code.ptr + code.len) {
    tl_blob_put_u64(b, (uint64_t)(s.ptr - code.ptr));
  } else if (s.len == 0) {
    tl_blob_put_u64(b, EMPTY);
  } else {
    return false;
  }
  tl_blob_put_u64(b, s.len);
  return true;
}

/* False when a slice is neither in the code nor empty: not kept. */
static bool serialize_side(tl_buf *b, const side *s) {
  tl_blob_put_u64(b, s->cpp);
  tl_blob_put_u64(b, s->skip_count);
  for (size_t i = 0; i < s->skip_count; i++) {
    tl_blob_put_u64(b, (uint64_t)(int64_t)s->skip[i].first);
    tl_blob_put_u64(b, (uint64_t)(int64_t)s->skip[i].last);
  }
  tl_blob_put_u64(b, s->units->count);
  for (size_t i = 0; i < s->units->count; i++) {
    const tl_code_unit *u = &s->units->items[i];
    tl_blob_put_u64(b, u->kind.len);
    tl_buf_append(b, u->kind.ptr, u->kind.len);
    if (!put_slice(b, s->code, u->name) || !put_slice(b, s->code, u->text))
      return false;
    tl_blob_put_u64(b, (uint64_t)(int64_t)u->first);
    tl_blob_put_u64(b, (uint64_t)(int64_t)u->last);
    tl_blob_put_u64(b, s->leaf_at.items[i + 1] - s->leaf_at.items[i]);
  }
  tl_blob_put_u64(b, s->leaves.count);
  tl_buf_append(b, s->leaves.items, s->leaves.count * sizeof(leaf));
  return true;
}

static tl_str get_slice(tl_blob_reader *r, tl_str code) {
  uint64_t at = tl_blob_get_u64(r), len = tl_blob_get_u64(r);
  if (!r->ok)
    return (tl_str){"", 0};
  if (at == EMPTY && len == 0)
    return (tl_str){"", 0};
  if (at > code.len || len > code.len - at) {
    r->ok = false;
    return (tl_str){"", 0};
  }
  return (tl_str){code.ptr + at, (size_t)len};
}

/* The units and leaves of a blob read with the side's language and lines
 * left out, their kinds in `arena`; false (and nothing read) otherwise. */
static bool deserialize_side(side *s, tl_str blob, tl_arena *arena) {
  tl_blob_reader r = tl_blob_reader_of(blob, NULL);
  bool ok = tl_blob_get_u64(&r) == (uint64_t)s->cpp &&
            tl_blob_get_u64(&r) == s->skip_count;
  for (size_t i = 0; ok && i < s->skip_count; i++)
    ok = tl_blob_get_u64(&r) == (uint64_t)(int64_t)s->skip[i].first &&
         tl_blob_get_u64(&r) == (uint64_t)(int64_t)s->skip[i].last;
  uint64_t count = ok ? tl_blob_get_u64(&r) : 0;
  size_t leaves = 0;
  for (uint64_t i = 0; ok && r.ok && i < count; i++) {
    tl_code_unit u;
    uint64_t kind_len = tl_blob_get_u64(&r);
    const char *kind = tl_blob_get_bytes(&r, kind_len);
    u.name = get_slice(&r, s->code);
    u.text = get_slice(&r, s->code);
    u.first = (int)(int64_t)tl_blob_get_u64(&r);
    u.last = (int)(int64_t)tl_blob_get_u64(&r);
    uint64_t n = tl_blob_get_u64(&r);
    if (!r.ok)
      break;
    u.kind = tl_arena_str(arena, (tl_str){kind, (size_t)kind_len});
    TL_VEC_PUSH(*s->units, u);
    TL_VEC_PUSH(s->leaf_at, leaves);
    leaves += (size_t)n;
  }
  uint64_t total = ok && r.ok ? tl_blob_get_u64(&r) : 0;
  const char *data = tl_blob_get_bytes(&r, total * sizeof(leaf));
  ok = ok && r.ok && total == leaves && r.at == blob.len &&
       total <= SIZE_MAX / sizeof(leaf);
  for (size_t i = 0; ok && i < leaves; i++) {
    leaf l;
    memcpy(&l, data + i * sizeof l, sizeof l);
    ok = l.at <= s->code.len && l.len <= s->code.len - l.at;
    TL_VEC_PUSH(s->leaves, l);
  }
  if (!ok) {
    s->units->count = 0;
    s->leaves.count = s->leaf_at.count = 0;
    return false;
  }
  TL_VEC_PUSH(s->leaf_at, s->leaves.count);
  return true;
}

/* Each unit's key: its leaves' texts, each read by the side's words,
 * separated by byte 2; and the keys' hashes. */
static void side_keys(side *s) {
  for (size_t i = 0; i + 1 < s->leaf_at.count; i++) {
    TL_VEC_PUSH(s->key_at, s->keys.len);
    for (size_t k = s->leaf_at.items[i]; k < s->leaf_at.items[i + 1]; k++) {
      const leaf *l = &s->leaves.items[k];
      tl_code_words_key(&s->words, &s->keys,
                        (tl_str){s->code.ptr + l->at, l->len});
      tl_buf_putc(&s->keys, '\2');
    }
  }
  TL_VEC_PUSH(s->key_at, s->keys.len);
  for (size_t i = 0; i + 1 < s->key_at.count; i++)
    TL_VEC_PUSH(s->hash,
                fnv((tl_str){s->keys.data + s->key_at.items[i],
                             s->key_at.items[i + 1] - s->key_at.items[i]}));
}

/* Reads a side's units, through the cache: a code read before with the same
 * lines left out (by this process or, with a shared folder, another) is not
 * parsed again. */
static void side_read(side *s, tl_str code, bool cpp, tl_code_units *units,
                      tl_analysis_cache *cache, tl_arena *arena) {
  s->units = units;
  s->cpp = cpp;
  s->code = code;
  tl_buf_init(&s->keys);
  if (!code.ptr || !tl_analysis_cache_wants(cache, code.len) ||
      code.len > UINT32_MAX) {
    side_parse(s);
    side_keys(s);
    return;
  }
  tl_buf blob;
  tl_buf_init(&blob);
  if (!tl_analysis_cache_get_blob(cache, TL_ANALYSIS_CODE_REST_UNITS, code,
                                  &blob) ||
      !deserialize_side(s, tl_buf_str(&blob), arena)) {
    side_parse(s);
    tl_buf_clear(&blob);
    if (serialize_side(&blob, s))
      tl_analysis_cache_put_blob(cache, TL_ANALYSIS_CODE_REST_UNITS, code,
                                 blob.data, blob.len);
  }
  tl_buf_free(&blob);
  side_keys(s);
}

static void side_free(side *s) {
  TL_VEC_FREE(s->leaves);
  TL_VEC_FREE(s->leaf_at);
  tl_buf_free(&s->keys);
  TL_VEC_FREE(s->key_at);
  TL_VEC_FREE(s->hash);
  tl_code_words_free(&s->words);
}

static bool same_key(const side *x, size_t i, const side *y, size_t j) {
  size_t lx = x->key_at.items[i + 1] - x->key_at.items[i];
  size_t ly = y->key_at.items[j + 1] - y->key_at.items[j];
  return x->hash.items[i] == y->hash.items[j] && lx == ly &&
         memcmp(x->keys.data + x->key_at.items[i],
                y->keys.data + y->key_at.items[j], lx) == 0;
}

static range *skips(const tl_kernel_item *k, size_t n, int entry,
                    int entry_last, size_t *count) {
  range *r = tl_xmalloc((n + 1) * sizeof *r);
  size_t c = 0;
  for (size_t i = 0; i < n; i++)
    if (k[i].first && tl_str_eq_cstr(k[i].file, "code"))
      r[c++] = (range){k[i].first, k[i].last};
  if (entry)
    r[c++] = (range){entry, entry_last};
  *count = c;
  return r;
}

/* Among the removed units a[i0..i1) and added b[j0..j1) of one gap, those
 * of the same name are one unit changed, whatever their kinds: a function
 * that a macro makes a declaration and a statement to tree-sitter
 * (`AOTIRuntimeError f(...) AOTI_RUNTIME_TRY({...})`) is still f. */
static void gap_rows(tl_code_rest *out, size_t i0, size_t i1, size_t j0,
                     size_t j1) {
  bool *taken = tl_xcalloc(j1 - j0 + 1, sizeof *taken);
  long *partner = tl_xmalloc((i1 - i0 + 1) * sizeof *partner);
  for (size_t i = i0; i < i1; i++) {
    partner[i - i0] = -1;
    const tl_code_unit *x = &out->a.items[i];
    for (size_t j = j0; j < j1 && x->name.len; j++) {
      const tl_code_unit *y = &out->b.items[j];
      if (!taken[j - j0] && tl_str_eq(x->name, y->name)) {
        taken[j - j0] = true;
        partner[i - i0] = (long)j;
        break;
      }
    }
  }
  for (size_t i = i0; i < i1; i++) {
    tl_unit_row r = {partner[i - i0] >= 0 ? TL_UNIT_CHANGED : TL_UNIT_REMOVED,
                     (long)i, partner[i - i0]};
    TL_VEC_PUSH(out->rows, r);
    if (r.change == TL_UNIT_CHANGED)
      out->changed++;
    else
      out->removed++;
  }
  for (size_t j = j0; j < j1; j++)
    if (!taken[j - j0]) {
      tl_unit_row r = {TL_UNIT_ADDED, -1, (long)j};
      TL_VEC_PUSH(out->rows, r);
      out->added++;
    }
  free(taken);
  free(partner);
}

void tl_code_rest_diff(tl_str a, tl_str b, bool cpp, const tl_kernel_item *ka,
                       size_t na, const tl_kernel_item *kb, size_t nb,
                       int a_entry, int a_entry_last, int b_entry,
                       int b_entry_last, const tl_kernel_diff *kernels,
                       tl_analysis_cache *cache, tl_code_rest *out) {
  memset(out, 0, sizeof *out);
  tl_arena_init(&out->arena);
#ifndef HAVE_CPPCODE
  if (cpp)
    return;
#endif
  side x = {0}, y = {0};
  x.skip = skips(ka, na, a_entry, a_entry_last, &x.skip_count);
  y.skip = skips(kb, nb, b_entry, b_entry_last, &y.skip_count);
  tl_code_words_init(&x.words, ka, kb, kernels, false);
  tl_code_words_init(&y.words, ka, kb, kernels, true);
  side_read(&x, a, cpp, &out->a, cache, &out->arena);
  side_read(&y, b, cpp, &out->b, cache, &out->arena);
  size_t n = out->a.count, m = out->b.count;
  if ((double)(n + 1) * (double)(m + 1) <= TL_CODE_DIFF_MAX_CELLS) {
    out->compared = true;
    uint32_t *lcs = tl_xcalloc((n + 1) * (m + 1), sizeof *lcs);
#define LCS(i, j) lcs[(size_t)(i) * (m + 1) + (j)]
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        LCS(i, j) = same_key(&x, i, &y, j)
                        ? LCS(i + 1, j + 1) + 1
                        : (LCS(i + 1, j) > LCS(i, j + 1) ? LCS(i + 1, j)
                                                         : LCS(i, j + 1));
    size_t i = 0, j = 0, gi = 0, gj = 0;
    while (i < n || j < m) {
      if (i < n && j < m && same_key(&x, i, &y, j)) {
        gap_rows(out, gi, i, gj, j);
        out->same++;
        gi = ++i;
        gj = ++j;
      } else if (i < n && (j == m || LCS(i + 1, j) >= LCS(i, j + 1)))
        i++;
      else
        j++;
    }
    gap_rows(out, gi, n, gj, m);
#undef LCS
    free(lcs);
  }
  free((void *)x.skip);
  free((void *)y.skip);
  side_free(&x);
  side_free(&y);
}

void tl_code_rest_free(tl_code_rest *r) {
  TL_VEC_FREE(r->a);
  TL_VEC_FREE(r->b);
  TL_VEC_FREE(r->rows);
  tl_arena_free(&r->arena);
}
