/* ts_heads.c: C++ parsed without its function bodies (see ts_heads.h). */
#include "analyze/ts_heads.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/ts_chunk.h"
#include "analyze/ts_chunk_internal.h"
#include "analyze/ts_query.h"

typedef TL_VEC(TSRange) range_vec;

typedef struct heads {
  tl_str text;
  range_vec ranges; /* of the group being gathered */
  uint32_t at;      /* where the last range ends */
  TSPoint point;    /* its point */
  size_t bytes;     /* parsed so far, over all groups */
} heads;

/* Appends text[start, end) to the group, joined to the last range when
 * they touch. */
static void add_range(heads *h, uint32_t start, uint32_t end) {
  if (start >= end)
    return;
  TSPoint from = advance_point(h->point, h->text, h->at, start);
  TSPoint to = advance_point(from, h->text, start, end);
  TSRange *last =
      h->ranges.count ? &h->ranges.items[h->ranges.count - 1] : NULL;
  if (last && last->end_byte == start) {
    last->end_byte = end;
    last->end_point = to;
  } else {
    TL_VEC_PUSH(h->ranges, ((TSRange){from, to, start, end}));
  }
  h->at = end;
  h->point = to;
  h->bytes += end - start;
}

/* The item text[start, end): a function without what lies between its
 * body's braces, a namespace or `extern "C"` block gone into member by
 * member, anything else (or what the scanner is unsure of) whole. */
static void add_item(heads *h, uint32_t start, uint32_t end, int depth) {
  tl_ts_body body;
  tl_ts_cuts members = {0};
  char kind = tl_ts_cpp_item_body(h->text, start, end, &body, &members);
  if (kind == 'f' || (kind == 'n' && depth < TL_TS_MAX_NEST)) {
    add_range(h, start, body.open + 1);
    for (size_t i = 0; kind == 'n' && i <= members.count; i++)
      add_item(h, i ? members.items[i - 1] : body.open + 1,
               i < members.count ? members.items[i] : body.close, depth + 1);
    add_range(h, body.close, end);
  } else {
    add_range(h, start, end);
  }
  TL_VEC_FREE(members);
}

/* Parses the group gathered and hands its tree to `visit`; false when it
 * has a syntax error (or tree-sitter refused it). */
static bool parse_group(heads *h, TSParser *parser,
                        void (*visit)(TSTree *, void *), void *ctx) {
  if (!h->ranges.count)
    return true;
  TSTree *tree = NULL;
  if (ts_parser_set_included_ranges(parser, h->ranges.items,
                                    (uint32_t)h->ranges.count)) {
    uint64_t begun = tl_ts_stats_parse_begin();
    tree = ts_parser_parse_string(parser, NULL, h->text.ptr,
                                  (uint32_t)h->text.len);
    tl_ts_stats_parse_end(begun);
  }
  h->ranges.count = 0;
  bool ok = tree && !ts_node_has_error(ts_tree_root_node(tree));
  if (ok)
    visit(tree, ctx);
  if (tree)
    ts_tree_delete(tree);
  return ok;
}

bool tl_ts_cpp_heads(tl_str text, uint32_t start, uint32_t end,
                     void (*visit)(TSTree *, void *), void *ctx) {
  if (!text.ptr || text.len >= UINT32_MAX)
    return false;
  if (end > text.len)
    end = (uint32_t)text.len;
  if (start >= end)
    return false;
  heads h = {text, {0}, 0, {0, 0}, 0};
  tl_ts_cuts cuts = {0};
  tl_str part = {text.ptr + start, end - start};
  TSParser *parser = ts_parser_new();
  bool ok = ts_parser_set_language(parser, tree_sitter_cpp()) &&
            tl_ts_cpp_cuts(part, &cuts);
  /* Top-level items are gathered into groups of about the chunk limit. */
  size_t limit = tl_ts_chunk_limit ? tl_ts_chunk_limit : 1, group = 0;
  for (size_t i = 0; ok && i <= cuts.count; i++) {
    uint32_t s = i ? start + cuts.items[i - 1] : start;
    uint32_t e = i < cuts.count ? start + cuts.items[i] : end;
    size_t before = h.bytes;
    add_item(&h, s, e, 0);
    group += h.bytes - before;
    if (group >= limit || i == cuts.count) {
      ok = parse_group(&h, parser, visit, ctx);
      group = 0;
    }
  }
  if (ok) /* else the caller counts the text it parses instead */
    tl_ts_stats_parsed(h.bytes);
  TL_VEC_FREE(h.ranges);
  TL_VEC_FREE(cuts);
  ts_parser_delete(parser);
  return ok;
}
