/* cppcode_skips.c: the wrapper's functions left out of its parse. Finds,
 * with a byte scan (no parse), the functions of an AOT wrapper that hold no
 * word the analysis reads, so that tl_ts_chunker_skip leaves them (or their
 * bodies) out, and says afterwards whether one of them turned out to be
 * needed, when cppcode.c parses the wrapper again with every function.
 */
#include <stdlib.h>

#include "analyze/cppcode_internal.h"
#include "util/mapped_text.h"

/* The C++ grammar costs tree-sitter about 1,400 instructions a byte of an
 * AOT wrapper, and most of a wrapper is functions the analysis reads
 * nothing from (the model container's C API, the constructor, input
 * checks). What it reads needs these words: a function is left out of the
 * parse (tl_ts_chunker_skip) when its head names no launcher or entry and
 * its body holds none of them; only its body when a comment before its head
 * may be a handle comment. Words are read over all bytes, comments and
 * literals too, so a function that might hold one is parsed. */
static const char *const entry_words[] = {"run_impl", "_const_run_impl",
                                          "inductor_entry_impl", NULL};
static const char *const body_words[] = {
    "run_impl",   "_const_run_impl", "inductor_entry_impl",
    "extern",     /* linkage: declared CPU kernels */
    "Provenance", /* `// [Provenance debug handles]` */
    "subgraph",   /* `// subgraph: NAME`: the scopes of calls */
    NULL};
/* Words that keep a function in the parse: before its first `(`, a
 * launcher's or an entry's name (a handle comment there keeps its head
 * only); from there on, a call of a launcher or CPU kernel, a nested entry,
 * a linkage declaration, a handle comment. A CPU kernel's own name before
 * its `(` is no call. */
static const struct needed {
  const char *const *prefixes, *const *words;
} head_needs = {(const char *const[]){"call_", NULL}, entry_words},
  body_needs = {(const char *const[]){"call_", "cpp_", NULL}, body_words},
  comment_needs = {(const char *const[]){NULL},
                   (const char *const[]){"Provenance", NULL}};

/* Bytes of 0x80 and up end a word: tree-sitter may read `\xc2\xa0call_x(a)`
 * as an error and then the call, so `call_x` must be a word of its own. */
static bool is_word_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

/* Calls `fn` on each word (a run of identifier bytes not starting with a
 * digit) of text[start, end) until it returns true; returns whether it
 * did. */
static bool any_word(tl_str text, uint32_t start, uint32_t end,
                     bool (*fn)(tl_str word, const void *ctx),
                     const void *ctx) {
  size_t next_passed = start;
  for (uint32_t i = start; i < end;) {
    tl_text_passing(text.ptr, i, &next_passed);
    if (!is_word_byte((unsigned char)text.ptr[i])) {
      i++;
      continue;
    }
    uint32_t w = i;
    while (i < end && is_word_byte((unsigned char)text.ptr[i]))
      i++;
    bool digit = text.ptr[w] >= '0' && text.ptr[w] <= '9';
    if (!digit && fn((tl_str){text.ptr + w, i - w}, ctx))
      return true;
  }
  return false;
}

static bool starts_with_any(tl_str word, const char *const *prefixes) {
  for (; *prefixes; prefixes++)
    if (tl_str_starts_with(word, *prefixes))
      return true;
  return false;
}

static bool is_needed_word(tl_str word, const void *needs) {
  const struct needed *n = needs;
  if (starts_with_any(word, n->prefixes))
    return true;
  for (const char *const *w = n->words; *w; w++)
    if (tl_str_eq_cstr(word, *w))
      return true;
  return false;
}

static void push_pair(skip_vec *v, uint32_t start, uint32_t end) {
  TL_VEC_PUSH(*v, start);
  TL_VEC_PUSH(*v, end);
}

/* The functions (or their bodies) among the items text[start, end) holds
 * (cut by `cuts`, offsets of the text) that the analysis needs nothing
 * from, gone into namespaces and `extern "C"` blocks as the chunker does.
 * The words before a function's first `(` (its comments, return type and
 * name) are read for a launcher's or entry's name and a handle comment,
 * from there on (parameters, initializers, body) for all needed words. */
static void find_skips(tl_str text, const tl_ts_cuts *cuts, uint32_t start,
                       uint32_t end, int depth, skip_plan *out) {
  for (size_t i = 0; i <= cuts->count; i++) {
    uint32_t s = i ? cuts->items[i - 1] : start;
    uint32_t e = i < cuts->count ? cuts->items[i] : end;
    tl_text_passed(text.ptr + s);
    tl_ts_body body;
    tl_ts_cuts members = {0};
    char kind = tl_ts_cpp_item_body(text, s, e, &body, &members);
    uint32_t head_end = body.open + 1, paren = s;
    while (kind == 'f' && paren < body.open && text.ptr[paren] != '(')
      paren++;
    if (kind == 'n' && depth < TL_TS_MAX_NEST) {
      find_skips(text, &members, body.open + 1, body.close, depth + 1, out);
    } else if (kind == 'f' &&
               !any_word(text, s, head_end, is_needed_word, &head_needs) &&
               !any_word(text, paren, body.close, is_needed_word,
                         &body_needs)) {
      /* A comment before the head may be a handle comment: keep the head
       * then (its comments are parsed), else leave out the whole item. */
      if (!any_word(text, s, paren, is_needed_word, &comment_needs)) {
        push_pair(&out->parse, s, e);
        push_pair(&out->calls, paren, e);
      } else if (head_end < body.close) {
        push_pair(&out->parse, head_end, body.close);
        push_pair(&out->calls, head_end, body.close);
      }
    }
    TL_VEC_FREE(members);
  }
}

static bool is_listed(tl_str word, const void *sorted) {
  const tl_str *const *list = sorted; /* {items, end} */
  size_t count = (size_t)(list[1] - list[0]);
  return count && bsearch(&word, list[0], count, sizeof word, tl_str_cmp_p);
}

/* Does a range of `v` overlap text[start, end)? */
static bool overlaps(const skip_vec *v, uint32_t start, uint32_t end) {
  for (size_t i = 0; i + 1 < v->count; i += 2)
    if (v->items[i] < end && v->items[i + 1] > start)
      return true;
  return false;
}

/* Did a function left out hold something the analysis turned out to need?
 * Tree-sitter may see a function where the scanner saw two (a `#define`
 * that does not start its line hides a `}` from tree-sitter only; a
 * function-try-block's handler is an item of its own to the scanner): an
 * entry that holds a range left out needs it. A call there by a name an
 * `extern "C"` block declares, or by the pure name of a handle comment
 * whose reach (the rest of its function, or of the text outside any)
 * holds a range left out, would have been a call site. Compares the last
 * `::` part of each name with the words where a call could be; a name
 * whose last part is no word counts as found. */
bool tl_cpp_skipped_names_needed(const state *s, const skip_vec *calls) {
  TL_VEC(tl_str) names = {0};
  bool found = false;
  for (size_t i = 0; i < s->entries.count && !found; i++)
    found = overlaps(calls, s->entries.items[i].start, s->entries.items[i].end);
  for (size_t i = 0; i < s->decls.count + s->handles.count && !found; i++) {
    const handle_comment *h =
        i < s->decls.count ? NULL : &s->handles.items[i - s->decls.count];
    if (h && !overlaps(calls, h->end, h->limit))
      continue; /* binds only to calls that were parsed */
    tl_str name = h ? h->pure : s->decls.items[i];
    size_t last = name.len;
    while (last > 0 && name.ptr[last - 1] != ':')
      last--;
    tl_str part = {name.ptr + last, name.len - last};
    found = part.len == 0 || (part.ptr[0] >= '0' && part.ptr[0] <= '9');
    for (size_t j = 0; j < part.len; j++)
      found |= !is_word_byte((unsigned char)part.ptr[j]);
    TL_VEC_PUSH(names, part);
  }
  if (!found && names.count) {
    tl_sort(names.items, names.count, sizeof(tl_str), tl_str_cmp_p);
    const tl_str *list[2] = {names.items, names.items + names.count};
    for (size_t i = 0; i + 1 < calls->count && !found; i += 2)
      found = any_word(s->text, calls->items[i], calls->items[i + 1], is_listed,
                       list);
  }
  TL_VEC_FREE(names);
  return found;
}

/* What of the chunker's region the analysis may leave out, cut into items
 * as the chunker cuts them. */
void tl_cpp_skips_of(const tl_ts_chunker *ch, skip_plan *skips) {
  uint32_t start = ch->region.start_byte, end = ch->region.end_byte;
  if (ch->scanned && ch->cuts.count) { /* a region larger than a chunk */
    find_skips(ch->text, &ch->cuts, start, end, 0, skips);
    return;
  }
  tl_ts_cuts cuts = {0};
  if (start < end &&
      tl_ts_cpp_cuts((tl_str){ch->text.ptr + start, end - start}, &cuts)) {
    for (size_t i = 0; i < cuts.count; i++)
      cuts.items[i] += start;
    find_skips(ch->text, &cuts, start, end, 0, skips);
  }
  TL_VEC_FREE(cuts);
}
