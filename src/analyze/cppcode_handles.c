/* cppcode_handles.c: the AOT wrapper's `// [Provenance debug handles]`
 * comments, part of cppcode.c's walk: each comment read into its key and
 * pure kernel name, and bound to the first call of that kernel after it
 * in the same function (a call site of its own when the walk found none).
 */
#include "analyze/cppcode_internal.h"

#include <stdlib.h>
#include <string.h>

/* Parses `// [Provenance debug handles] <key>`: the key is the rest of the
 * line (one token); the pure name is the key before its last `:` when only
 * digits follow it. False for any other comment. */
bool tl_cpp_parse_handle_comment(tl_str c, tl_str *key, tl_str *pure) {
  static const char tag[] = "[Provenance debug handles]";
  size_t i = 2, n = c.len;
  if (n < 2 || c.ptr[0] != '/' || c.ptr[1] != '/')
    return false;
  while (i < n && (c.ptr[i] == ' ' || c.ptr[i] == '\t'))
    i++;
  if (n - i < sizeof tag - 1 || memcmp(c.ptr + i, tag, sizeof tag - 1) != 0)
    return false;
  i += sizeof tag - 1;
  while (i < n && (c.ptr[i] == ' ' || c.ptr[i] == '\t'))
    i++;
  while (n > i && (c.ptr[n - 1] == ' ' || c.ptr[n - 1] == '\t' ||
                   c.ptr[n - 1] == '\r' || c.ptr[n - 1] == '\n'))
    n--;
  if (i == n)
    return false;
  for (size_t j = i; j < n; j++)
    if (c.ptr[j] == ' ' || c.ptr[j] == '\t')
      return false;
  *key = (tl_str){c.ptr + i, n - i};
  *pure = *key;
  size_t colon = key->len;
  while (colon > 0 && key->ptr[colon - 1] != ':')
    colon--;
  if (colon > 1 && colon < key->len) {
    bool digits = true;
    for (size_t j = colon; j < key->len; j++)
      digits &= key->ptr[j] >= '0' && key->ptr[j] <= '9';
    if (digits)
      pure->len = colon - 1;
  }
  return true;
}

/* The end byte of the function definition around `node`, or the text's end
 * when it is outside any function. */
uint32_t tl_cpp_enclosing_function_end(TSNode node, uint32_t text_end) {
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n);
       n = ts_node_parent(n))
    if (strcmp(ts_node_type(n), "function_definition") == 0)
      return ts_node_end_byte(n);
  return text_end;
}

static site *find_site(state *s, uint32_t byte) {
  site key = {{{0}, 0, 0, {0}, {0}}, byte};
  if (s->sites.count == 0)
    return NULL;
  return bsearch(&key, s->sites.items, s->sites.count, sizeof key,
                 tl_cpp_cmp_site);
}

/* Does raw call `r` call the kernel whose pure name is `pure`, by name or
 * through its launcher `call_<pure>`? */
static bool calls_pure(state *s, const raw_call *r, tl_str pure) {
  tl_kernel_kind kind;
  if (tl_str_eq(r->callee, pure))
    return true;
  return r->form == FORM_PLAIN && r->callee.len == pure.len + 5 &&
         tl_str_starts_with(r->callee, "call_") &&
         memcmp(r->callee.ptr + 5, pure.ptr, pure.len) == 0 &&
         tl_cpp_is_launched(s, pure, &kind);
}

/* Binds handle comment `h` to the first call of its pure name after it in
 * the same function, before the next comment with the same pure name. */
void tl_cpp_bind_handle(state *s, size_t index) {
  const handle_comment *h = &s->handles.items[index];
  uint32_t limit = h->limit;
  for (size_t j = index + 1; j < s->handles.count; j++)
    if (tl_str_eq(s->handles.items[j].pure, h->pure)) {
      if (s->handles.items[j].end < limit)
        limit = s->handles.items[j].end;
      break;
    }
  size_t lo = 0, hi = s->raws.count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->raws.items[mid].byte < h->end)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t i = lo; i < s->raws.count && s->raws.items[i].byte < limit; i++) {
    const raw_call *r = &s->raws.items[i];
    if (!calls_pure(s, r, h->pure))
      continue;
    site *found = find_site(s, r->byte);
    if (found) {
      if (found->call.handle_key.len == 0)
        found->call.handle_key = h->key;
      return;
    }
    def *d = find_def(s, h->pure);
    tl_kernel_kind kind = d ? d->def.kind : tl_cpp_kind_of_name(h->pure);
    if (kind == TL_KERNEL_UNKNOWN && r->form != FORM_PLAIN)
      kind = r->form == FORM_SHIM ? TL_KERNEL_SHIM : TL_KERNEL_TRITON;
    site add = {{h->pure, kind, r->line, h->key, {NULL, 0}}, r->byte};
    TL_VEC_PUSH(s->sites, add);
    tl_sort(s->sites.items, s->sites.count, sizeof add, tl_cpp_cmp_site);
    return;
  }
}
