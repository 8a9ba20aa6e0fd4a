/* ts_chunk.c: the chunker, which parses a long text whole items a chunk at
 * a time over included ranges (see ts_chunk.h): into bodies, skipped
 * ranges, FX forwards' parameter slices and nested classes, and again one
 * item at a time where tree-sitter's recovery from an error runs past an
 * item's start. The scanners that find the items are ts_chunk_cpp.c (C++)
 * and ts_chunk_py.c (Python). */
#include "analyze/ts_chunk.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/ts_chunk_internal.h"
#include "analyze/ts_query.h"
#include "util/cores.h"
#include "util/mapped_text.h"

size_t tl_ts_chunk_limit = TL_TS_CHUNK_LIMIT_DEFAULT;
size_t tl_ts_ahead_from = TL_TS_AHEAD_FROM_DEFAULT;

/* Fills c->cuts with the scanner's cuts of the region (none when it is
 * unsure), once. */
static void scan_cuts(tl_ts_chunker *c) {
  if (c->scanned || !c->scan)
    return;
  c->scanned = true;
  uint32_t start = c->region.start_byte;
  tl_str part = {c->text.ptr + start, c->region.end_byte - start};
  if (!c->scan(part, &c->cuts))
    c->cuts.count = 0;
  for (size_t i = 0; i < c->cuts.count; i++)
    c->cuts.items[i] += start;
}

void tl_ts_chunker_begin(tl_ts_chunker *c, const TSLanguage *lang, tl_str text,
                         bool (*scan)(tl_str, tl_ts_cuts *)) {
  tl_ts_chunker_begin_range(c, lang, text, 0, UINT32_MAX, scan);
}

void tl_ts_chunker_begin_range(tl_ts_chunker *c, const TSLanguage *lang,
                               tl_str text, uint32_t start, uint32_t end,
                               bool (*scan)(tl_str, tl_ts_cuts *)) {
  memset(c, 0, sizeof *c);
  c->text = text.ptr ? text : (tl_str){"", 0};
  c->limit = tl_ts_chunk_limit ? tl_ts_chunk_limit : 1;
  c->parser = ts_parser_new();
  c->done =
      !ts_parser_set_language(c->parser, lang) || c->text.len >= UINT32_MAX;
  if (c->done || end > c->text.len)
    end = c->done ? 0 : (uint32_t)c->text.len;
  if (start > end)
    start = end;
  c->start = start;
  c->point = advance_point((TSPoint){0, 0}, c->text, 0, start);
  c->region = (TSRange){c->point, advance_point(c->point, c->text, start, end),
                        start, end};
  c->scan = scan;
  if (!c->done && end - start > c->limit)
    scan_cuts(c);
  c->whole = c->cuts.count == 0;
}

void tl_ts_chunker_begin_nested(tl_ts_chunker *c, const TSLanguage *lang,
                                tl_str text, tl_ts_cuts cuts,
                                tl_ts_forward fwd) {
  tl_ts_chunker_begin(c, lang, (tl_str){NULL, 0}, NULL);
  c->text = text.ptr ? text : (tl_str){"", 0};
  c->done = c->done || c->text.len >= UINT32_MAX;
  c->region.end_byte = c->done ? 0 : (uint32_t)c->text.len;
  c->cuts = cuts;
  c->strict = true;
  if (c->text.len <= c->limit || cuts.count == 0 || c->done ||
      !(fwd.params_start <= fwd.params_end && fwd.params_end < fwd.body &&
        fwd.body <= cuts.items[0])) {
    c->cuts.count = 0;
    c->whole = true;
    return;
  }
  c->whole = false;
  TSPoint a = advance_point((TSPoint){0, 0}, c->text, 0, fwd.params_start);
  TSPoint b = advance_point(a, c->text, fwd.params_start, fwd.params_end);
  TSPoint e = advance_point(b, c->text, fwd.params_end, fwd.body);
  c->head[0] = (TSRange){{0, 0}, a, 0, fwd.params_start};
  c->head[1] = (TSRange){b, e, fwd.params_end, fwd.body};
  c->head_count = 2;
  if (fwd.classes) {
    /* The subgraph classes: their own chunks, each after the header and
     * the body's first statement, unless that statement is large (it would
     * be parsed again for every class): then the whole text at once. */
    uint32_t first_end = cuts.items[0];
    if (first_end - fwd.body > TL_TS_CHUNK_LIMIT_DEFAULT ||
        fwd.classes <= fwd.body) {
      c->cuts.count = 0;
      c->whole = true;
      return;
    }
    c->class_filler = (TSRange){
        e, advance_point(e, c->text, fwd.body, first_end), fwd.body, first_end};
    size_t k = 0;
    while (k < c->cuts.count && c->cuts.items[k] < fwd.classes)
      k++;
    for (size_t i = k; i < c->cuts.count; i++)
      TL_VEC_PUSH(c->classes, c->cuts.items[i]);
    c->cuts.count = k;
    c->body_end = fwd.classes;
  }
  /* Parameters larger than a chunk: in slices of about the chunk size,
   * then the body from its first statement, under the header. */
  tl_ts_cuts params = {0};
  if (fwd.params_end - fwd.params_start > c->limit &&
      tl_ts_python_param_cuts(c->text, fwd.params_start, fwd.params_end,
                              &params) &&
      params.count) {
    TL_VEC_PUSH(c->param_slices, fwd.params_start);
    for (size_t i = 0; i < params.count; i++) {
      uint32_t from = c->param_slices.items[c->param_slices.count - 1];
      bool fits =
          i + 1 < params.count && params.items[i + 1] - from <= c->limit;
      if (!fits)
        TL_VEC_PUSH(c->param_slices, params.items[i]);
    }
    TL_VEC_PUSH(c->param_slices, fwd.params_end);
    c->slice_point = a;
    c->slice_tail =
        (TSRange){b, advance_point(e, c->text, fwd.body, cuts.items[0]),
                  fwd.params_end, cuts.items[0]};
    c->start = fwd.body;
    c->point = e;
  }
  TL_VEC_FREE(params);
}

static TSTree *parse_ranges(tl_ts_chunker *c, const TSRange *ranges,
                            uint32_t count);

/* The text over `ranges`, or NULL, with *failed set, when it does not
 * parse cleanly (a slice of the forward's parameters, or subgraph classes,
 * whose failure gives up chunking). */
static TSTree *parse_clean(tl_ts_chunker *c, const TSRange *ranges,
                           uint32_t count, bool *failed) {
  TSTree *tree = parse_ranges(c, ranges, count);
  *failed = !tree || ts_node_has_error(ts_tree_root_node(tree));
  if (*failed && tree)
    ts_tree_delete(tree);
  return *failed ? NULL : tree;
}

/* The next slice of the forward's parameters (see begin_nested), or NULL
 * when none is left; sets *failed when it does not parse cleanly. */
static TSTree *next_param_slice(tl_ts_chunker *c, bool *failed) {
  *failed = false;
  if (c->next_slice + 1 >= c->param_slices.count)
    return NULL;
  uint32_t start = c->param_slices.items[c->next_slice];
  uint32_t end = c->param_slices.items[++c->next_slice];
  TSPoint from = c->slice_point;
  c->slice_point = advance_point(from, c->text, start, end);
  TSRange ranges[3] = {
      c->head[0], {from, c->slice_point, start, end}, c->slice_tail};
  return parse_clean(c, ranges, 3, failed);
}

void tl_ts_chunker_skip(tl_ts_chunker *c, const uint32_t *skip, size_t pairs) {
  uint32_t at = c->region.start_byte;
  TSPoint point = c->region.start_point;
  c->skips.count = 0;
  for (size_t i = 0; i < pairs && !c->done; i++) {
    uint32_t start = skip[2 * i], end = skip[2 * i + 1];
    if (start < at || start >= end || end > c->region.end_byte)
      continue;
    TSPoint from = advance_point(point, c->text, at, start);
    point = advance_point(from, c->text, start, end);
    at = end;
    TL_VEC_PUSH(c->skips, ((TSRange){from, point, start, end}));
  }
}

/* The index of the first skipped range that ends after byte `at`. */
static size_t first_skip_after(const tl_ts_chunker *c, uint32_t at) {
  size_t lo = 0, hi = c->skips.count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->skips.items[mid].end_byte <= at)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Does one skipped range hold all of text[start, end)? */
static bool is_skipped(const tl_ts_chunker *c, uint32_t start, uint32_t end) {
  size_t k = first_skip_after(c, start);
  return k < c->skips.count && c->skips.items[k].start_byte <= start &&
         c->skips.items[k].end_byte >= end;
}

void tl_ts_chunker_patch(tl_ts_chunker *c, const uint32_t *at,
                         const char *bytes, size_t count) {
  c->patch_at = at;
  c->patch_bytes = bytes;
  c->patch_count = count;
}

/* tree-sitter's reader of a patched text: the text from `byte` up to the
 * next patched byte, or that byte alone. Every piece ends before an ASCII
 * byte, so no UTF-8 character is split. */
static const char *read_patched(void *payload, uint32_t byte, TSPoint point,
                                uint32_t *bytes_read) {
  const tl_ts_chunker *c = payload;
  (void)point;
  if (byte >= c->text.len) {
    *bytes_read = 0;
    return "";
  }
  size_t lo = 0, hi = c->patch_count; /* the first patch at or after */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->patch_at[mid] < byte)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < c->patch_count && c->patch_at[lo] == byte) {
    *bytes_read = 1;
    return &c->patch_bytes[lo];
  }
  uint32_t end = lo < c->patch_count ? c->patch_at[lo] : (uint32_t)c->text.len;
  *bytes_read = end - byte;
  return c->text.ptr + byte;
}

/* The text parsed over the included ranges set, patched if asked. */
static TSTree *parse_text(tl_ts_chunker *c) {
  uint64_t begun = tl_ts_stats_parse_begin();
  TSTree *tree;
  if (!c->patch_count) {
    tree = ts_parser_parse_string(c->parser, NULL, c->text.ptr,
                                  (uint32_t)c->text.len);
  } else {
    TSInput input = {
        .payload = c, .read = read_patched, .encoding = TSInputEncodingUTF8};
    tree = ts_parser_parse(c->parser, NULL, input);
  }
  tl_ts_stats_parse_end(begun);
  return tree;
}

/* Parses the text over `ranges` (ascending) less the skipped bytes, unless
 * the chunker gave up; NULL when tree-sitter refused them. */
static TSTree *parse_ranges(tl_ts_chunker *c, const TSRange *ranges,
                            uint32_t count) {
  c->ranges.count = 0;
  for (uint32_t i = 0; i < count && !c->gave_up; i++) {
    TSRange r = ranges[i];
    for (size_t k = first_skip_after(c, r.start_byte);
         k < c->skips.count && c->skips.items[k].start_byte < r.end_byte; k++) {
      const TSRange *s = &c->skips.items[k];
      if (s->start_byte > r.start_byte)
        TL_VEC_PUSH(c->ranges, ((TSRange){r.start_point, s->start_point,
                                          r.start_byte, s->start_byte}));
      if (s->end_byte >= r.end_byte) {
        r.start_byte = r.end_byte;
        break;
      }
      r.start_byte = s->end_byte;
      r.start_point = s->end_point;
    }
    if (r.start_byte < r.end_byte)
      TL_VEC_PUSH(c->ranges, r);
  }
  /* A chunk of items all left out is parsed as an empty range at its
   * start: a tree with nothing in it. */
  if (!c->gave_up && c->skips.count && c->ranges.count == 0 && count)
    TL_VEC_PUSH(c->ranges,
                ((TSRange){ranges[0].start_point, ranges[0].start_point,
                           ranges[0].start_byte, ranges[0].start_byte}));
  bool skipped = c->ranges.count > 0;
  c->skipped_chunk = skipped;
  if (!ts_parser_set_included_ranges(
          c->parser, skipped ? c->ranges.items : ranges,
          skipped ? (uint32_t)c->ranges.count : count))
    return NULL;
  return parse_text(c);
}

/* The whole text (or range), as tl_ts_parse. */
static TSTree *parse_whole(tl_ts_chunker *c) {
  c->done = true;
  bool ranged = c->region.start_byte > 0 || c->region.end_byte < c->text.len;
  if (c->skips.count && !c->gave_up) {
    TSTree *tree = parse_ranges(c, &c->region, 1);
    /* A strict chunker's caller reads a tree with an error only as the
     * text with every byte gives it (recovery may go otherwise without the
     * bytes left out): such a text is parsed again without the skips. */
    if (!c->strict || !tree || !ts_node_has_error(ts_tree_root_node(tree)))
      return tree;
    ts_tree_delete(tree);
    c->gave_up = true;
  }
  c->skipped_chunk = false;
  if (!ts_parser_set_included_ranges(c->parser, &c->region, ranged))
    return NULL;
  return parse_text(c);
}

static bool is_error(TSNode n) {
  return ts_node_is_missing(n) || strcmp(ts_node_type(n), "ERROR") == 0;
}

/* Does a direct child of `n` stand for an error? */
static bool has_error_child(TSNode n) {
  uint32_t count = ts_node_child_count(n);
  for (uint32_t i = 0; i < count; i++)
    if (is_error(ts_node_child(n, i)))
      return true;
  return false;
}

/* Did the chunk fail to parse as a run of top-level items? Its root, or one
 * of its items, is an ERROR (or MISSING) node. An error inside an item
 * (AOT wrappers call macros such as CONVERT_EXCEPTION_TO_ERROR_CODE({...})
 * with no `;`) is recovered within that item's brackets and does not count. */
static bool top_level_error(TSNode root) {
  if (!ts_node_has_error(root))
    return false;
  return is_error(root) || has_error_child(root);
}

void tl_ts_chunker_strict(tl_ts_chunker *c) { c->strict = true; }

void tl_ts_chunker_go_into_bodies(tl_ts_chunker *c, tl_ts_body_fn body_of) {
  c->body_of = body_of;
}

/* The `{` token at byte `open` under `node`, or a null node when that byte
 * is no token of its own there (a body's `{` whose parent is the body). */
static TSNode open_brace_at(TSNode node, uint32_t open) {
  TSNode brace = ts_node_descendant_for_byte_range(node, open, open + 1);
  return !ts_node_is_null(brace) && ts_node_start_byte(brace) == open
             ? brace
             : (TSNode){0};
}

/* Did a chunk inside bodies fail to parse as a run of the innermost body's
 * members? Some node from that body's `{` up to the root, or one of the
 * body's children, is an ERROR or MISSING node; or, for a `{...}` body,
 * the body's last child is not the tail's `}`: tree-sitter closed the body
 * inside the chunk (a `}` in a member's garbage, which a whole parse would
 * also take as the function's end) or left it open past the tail. */
static bool nested_error(const tl_ts_chunker *c, TSNode root) {
  if (!ts_node_has_error(root))
    return false;
  const tl_ts_body *b = &c->nests[c->depth - 1].body;
  TSNode brace = open_brace_at(root, b->open);
  if (ts_node_is_null(brace))
    return true;
  for (TSNode n = brace; !ts_node_is_null(n); n = ts_node_parent(n))
    if (is_error(n))
      return true;
  TSNode body = ts_node_parent(brace);
  if (has_error_child(body))
    return true;
  if (c->text.ptr[b->open] != '{')
    return false;
  uint32_t count = ts_node_child_count(body);
  TSNode last = ts_node_child(body, count - 1);
  return ts_node_is_missing(last) || ts_node_start_byte(last) != b->close;
}

/* The index of the first cut after byte `at`. */
static size_t first_cut_after(const tl_ts_cuts *cuts, uint32_t at) {
  size_t lo = 0, hi = cuts->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cuts->items[mid] <= at)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Did tree-sitter keep each error among the children of `container` (the
 * root, or a body's `{...}` node) inside one member, the members beginning
 * at `cuts`? A child with an error must not span a cut; when it has a body
 * (tl_ts_cpp_body), the same holds for its members, `levels` bodies deep.
 * Recursion is bounded by TL_TS_MAX_NEST, not by the text. */
static bool errors_within_members(const tl_ts_chunker *c, TSNode container,
                                  const tl_ts_cuts *cuts, uint32_t levels) {
  uint32_t count = ts_node_child_count(container);
  for (uint32_t i = 0; i < count; i++) {
    TSNode child = ts_node_child(container, i);
    if (!ts_node_has_error(child))
      continue;
    uint32_t start = ts_node_start_byte(child), end = ts_node_end_byte(child);
    size_t k = first_cut_after(cuts, start);
    if (k < cuts->count && cuts->items[k] < end)
      return false;
    if (!c->body_of || levels == 0)
      continue;
    tl_ts_body body;
    tl_ts_cuts inner = {0};
    bool within = true;
    if (c->body_of(c->text, start, end, &body, &inner)) {
      TSNode brace = open_brace_at(child, body.open);
      within =
          !ts_node_is_null(brace) &&
          errors_within_members(c, ts_node_parent(brace), &inner, levels - 1);
    }
    TL_VEC_FREE(inner);
    if (!within)
      return false;
  }
  return true;
}

/* Goes into the body of the item that starts the next chunk, if it is
 * larger than the limit (or `force`) and has one; returns true when it
 * did. */
static bool go_into_item(tl_ts_chunker *c, uint32_t item_end, bool force) {
  if (!c->body_of || c->depth == TL_TS_MAX_NEST ||
      (!force && item_end - c->start <= c->limit))
    return false;
  tl_ts_nest *nest = &c->nests[c->depth];
  if (!c->body_of(c->text, c->start, item_end, &nest->body, &nest->cuts) ||
      is_skipped(c, nest->body.open + 1, nest->body.close))
    return false;
  const tl_ts_body *b = &nest->body;
  TSPoint head = advance_point(c->point, c->text, c->start, b->head);
  TSPoint open_end = advance_point(head, c->text, b->head, b->open + 1);
  TSPoint close = advance_point(open_end, c->text, b->open + 1, b->close);
  nest->first_head = (TSRange){c->point, open_end, c->start, b->open + 1};
  nest->head = (TSRange){head, open_end, b->head, b->open + 1};
  nest->head_used = false;
  /* The closing `}`, or for a Python body the item's last `\n`. */
  nest->tail =
      (TSRange){close, advance_point(close, c->text, b->close, b->close + 1),
                b->close, b->close + 1};
  nest->next_cut = 0;
  nest->singles_until = 0;
  c->depth++;
  c->start = b->open + 1;
  c->point = open_end;
  return true;
}

/* Where the top-level chunks end: the region's end, or before the nested
 * subgraph classes of an FX graph, which have chunks of their own. */
static uint32_t body_end(const tl_ts_chunker *c) {
  return c->body_end ? c->body_end : c->region.end_byte;
}

/* The end of the next chunk in the current body (or the text): the first
 * cut always (progress), then every cut within the limit; goes into the
 * bodies of large items first. Leaves bodies that are done. Returns false
 * when the text is done. */
static bool next_chunk_end(tl_ts_chunker *c, uint32_t *end) {
  for (;;) {
    tl_ts_nest *nest = c->depth ? &c->nests[c->depth - 1] : NULL;
    uint32_t region_end = nest ? nest->body.close : body_end(c);
    uint32_t blank = c->start; /* a rest of only blanks makes no chunk */
    while (blank < region_end && strchr(" \t\r\n", c->text.ptr[blank]))
      blank++;
    if (blank == region_end && blank > c->start) {
      c->point = advance_point(c->point, c->text, c->start, blank);
      c->start = blank;
    }
    if (c->start >= region_end) {
      if (!nest)
        return false;
      c->start = nest->body.close + 1; /* its `}` was every chunk's tail */
      c->point = nest->tail.end_point;
      c->depth--;
      continue;
    }
    tl_ts_cuts *cuts = nest ? &nest->cuts : &c->cuts;
    size_t *k = nest ? &nest->next_cut : &c->next_cut;
    while (*k < cuts->count && cuts->items[*k] <= c->start)
      (*k)++;
    uint32_t first = *k < cuts->count ? cuts->items[*k] : region_end;
    if (go_into_item(c, first, false))
      continue;
    *end = region_end;
    uint32_t singles = nest ? nest->singles_until : c->singles_until;
    if (*k < cuts->count && c->start < singles) {
      *end = cuts->items[(*k)++]; /* one member: see isolate() */
    } else if (*k < cuts->count && region_end - c->start > c->limit) {
      *end = cuts->items[(*k)++];
      while (*k < cuts->count && cuts->items[*k] - c->start <= c->limit)
        *end = cuts->items[(*k)++];
    }
    return true;
  }
}

/* The members of the chunk [start, end) at the current depth had an error
 * that tree-sitter let run across a member's end (see ts_chunk.h): sets the
 * chunker to parse them again one at a time, or, for a single member, to go
 * into its body and parse that body's members one at a time. `from` and
 * `head_used` are the chunker's state before the chunk. False when neither
 * can be done: the tree is then kept as it is. */
static bool isolate(tl_ts_chunker *c, uint32_t start, TSPoint from,
                    const bool *head_used) {
  tl_ts_nest *nest = c->depth ? &c->nests[c->depth - 1] : NULL;
  tl_ts_cuts *cuts = nest ? &nest->cuts : &c->cuts;
  size_t *k = nest ? &nest->next_cut : &c->next_cut;
  size_t first = first_cut_after(cuts, start);
  uint32_t end = c->start; /* the chunk's end, where the chunker stands */
  bool several = first < cuts->count && cuts->items[first] < end;
  TSPoint end_point = c->point;
  c->start = start;
  c->point = from;
  for (uint32_t i = 0; i < c->depth; i++)
    c->nests[i].head_used = head_used[i];
  if (several) {
    *k = first;
    if (nest)
      nest->singles_until = end;
    else
      c->singles_until = end;
  } else if (go_into_item(c, end, true)) {
    c->nests[c->depth - 1].singles_until = c->nests[c->depth - 1].body.close;
  } else {
    c->start = end;
    c->point = end_point;
    for (uint32_t i = 0; i < c->depth; i++)
      c->nests[i].head_used = true;
    return false;
  }
  c->done = false;
  c->isolated++;
  return true;
}

/* The whole text's tree had an error that ran across items: sets the
 * chunker to parse the items one at a time. False when the tree stands:
 * no error, an error between items (the text is no run of items), the
 * scanner unsure, or errors kept inside items. */
static bool isolate_whole(tl_ts_chunker *c, TSTree *tree) {
  TSNode root = ts_tree_root_node(tree);
  if (c->strict || c->gave_up || !ts_node_has_error(root) ||
      top_level_error(root))
    return false;
  scan_cuts(c);
  if (c->cuts.count == 0 ||
      errors_within_members(c, root, &c->cuts, TL_TS_MAX_NEST))
    return false;
  c->whole = c->done = false;
  c->start = c->region.start_byte;
  c->point = c->region.start_point;
  c->next_cut = 0;
  c->singles_until = c->region.end_byte;
  c->isolated++;
  return true;
}

/* Did the chunk's tree keep its errors inside members (see
 * errors_within_members)? */
static bool chunk_errors_within_members(const tl_ts_chunker *c, TSNode root) {
  if (!ts_node_has_error(root))
    return true;
  if (c->depth == 0)
    return errors_within_members(c, root, &c->cuts, TL_TS_MAX_NEST);
  /* nested_error has found the brace: the chunk did not fail. */
  const tl_ts_nest *nest = &c->nests[c->depth - 1];
  TSNode brace = open_brace_at(root, nest->body.open);
  return errors_within_members(c, ts_node_parent(brace), &nest->cuts,
                               TL_TS_MAX_NEST - c->depth);
}

/* What the chunks' parses free stays resident in glibc's heap, most of it
 * never reused (48 of the 52 MB a 21.5 MB FX graph's chunks left, 34 of
 * the 54 MB of a 35 MB output code's): every TRIM_EVERY bytes parsed,
 * malloc_trim gives it back. */
enum { TRIM_EVERY = 4 << 20 };
static void trim_now_and_then(tl_ts_chunker *c, size_t bytes) {
  c->since_trim += bytes;
  if (c->since_trim < TRIM_EVERY)
    return;
  c->since_trim = 0;
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

/* The next subgraph classes of an FX graph (see begin_nested), as many as
 * fit in a chunk, at least one; NULL when none is left; sets *failed when
 * they do not parse cleanly. */
static TSTree *next_class_chunk(tl_ts_chunker *c, bool *failed) {
  *failed = false;
  if (c->next_class >= c->classes.count)
    return NULL;
  if (c->next_class == 0) /* after the body's chunks: c->point is theirs */
    c->class_point =
        advance_point(c->point, c->text, c->start, c->classes.items[0]);
  /* One class, then the next ones while they fit in the limit. */
  size_t n = c->classes.count;
  uint32_t start = c->classes.items[c->next_class++];
  uint32_t end =
      c->next_class < n ? c->classes.items[c->next_class] : c->region.end_byte;
  while (c->next_class < n) {
    uint32_t with_next = c->next_class + 1 < n
                             ? c->classes.items[c->next_class + 1]
                             : c->region.end_byte;
    if (with_next - start > c->limit)
      break;
    c->next_class++;
    end = with_next;
  }
  TSPoint from = c->class_point;
  tl_text_passed(c->text.ptr + start);
  trim_now_and_then(c, end - start);
  c->class_point = advance_point(from, c->text, start, end);
  TSRange ranges[4] = {c->head[0],
                       c->head[1],
                       c->class_filler,
                       {from, c->class_point, start, end}};
  return parse_clean(c, ranges, 4, failed);
}

/* The next tree, parsed on the calling thread. */
static TSTree *next_here(tl_ts_chunker *c, bool *restart) {
  *restart = false;
  c->params_chunk = c->class_chunk = false;
  while (!c->done && !c->whole) {
    bool failed;
    TSTree *slice = next_param_slice(c, &failed);
    if (slice) {
      c->params_chunk = true;
      c->chunks++;
      return slice;
    }
    if (!failed)
      break;
    c->whole = c->gave_up = true; /* as a chunk that fails: all at once */
    *restart = c->chunks > 0;
  }
  while (!c->done) {
    if (c->whole) {
      TSTree *tree = parse_whole(c);
      if (tree && isolate_whole(c, tree)) {
        ts_tree_delete(tree);
        continue;
      }
      if (tree)
        c->chunks++;
      return tree;
    }
    uint32_t end;
    if (!next_chunk_end(c, &end)) { /* then the subgraph classes, if any */
      bool failed;
      TSTree *tree = next_class_chunk(c, &failed);
      if (tree) {
        c->class_chunk = true;
        c->chunks++;
        return tree;
      }
      c->done = !failed;
      c->whole = c->gave_up = failed; /* as a chunk that fails: all at once */
      *restart = failed && c->chunks > 0;
      continue;
    }
    uint32_t start = c->start;
    tl_text_passed(c->text.ptr + start); /* a mapped text's pages before */
    trim_now_and_then(c, end - start);
    TSPoint from = c->point, to = advance_point(c->point, c->text, start, end);
    TSRange ranges[2 * TL_TS_MAX_NEST + 3];
    bool head_used[TL_TS_MAX_NEST];
    uint32_t count = start > 0 ? c->head_count : 0;
    for (uint32_t i = 0; i < count; i++)
      ranges[i] = c->head[i];
    for (uint32_t i = 0; i < c->depth; i++) {
      tl_ts_nest *nest = &c->nests[i];
      head_used[i] = nest->head_used;
      ranges[count++] = nest->head_used ? nest->head : nest->first_head;
      nest->head_used = true;
    }
    ranges[count++] = (TSRange){from, to, start, end};
    for (uint32_t i = c->depth; i-- > 0;)
      ranges[count++] = c->nests[i].tail;
    TSTree *tree = parse_ranges(c, ranges, count);
    c->start = end;
    c->point = to;
    c->done = c->depth == 0 && end >= c->region.end_byte;
    TSNode root = tree ? ts_tree_root_node(tree) : (TSNode){0};
    bool failed = !tree || (c->strict  ? ts_node_has_error(root)
                            : c->depth ? nested_error(c, root)
                                       : top_level_error(root));
    if (!failed) {
      if (!c->strict && !chunk_errors_within_members(c, root) &&
          isolate(c, start, from, head_used)) {
        ts_tree_delete(tree);
        continue;
      }
      c->chunks++;
      return tree;
    }
    if (tree)
      ts_tree_delete(tree);
    c->whole = c->gave_up = true;
    c->done = false;
    *restart = c->chunks > 0;
  }
  return NULL;
}

/* Parsing ahead (tl_ts_ahead_from). The helper thread owns a copy of the
 * chunker, `inner`, and calls next_here on it, handing each tree with the
 * flags the caller reads through a queue of AHEAD_DEPTH; the caller takes
 * them in turn. When the helper has handed the last one (NULL), or the
 * caller ends early, the thread is joined and `inner` becomes the caller's
 * chunker again, so what the caller reads after the loop (chunks,
 * gave_up) is what the chunker alone would say. At most AHEAD_DEPTH + 2
 * trees are alive: the queue's, the caller's and the one being parsed. */
enum { AHEAD_DEPTH = 2 };

typedef struct ahead_item {
  TSTree *tree; /* NULL: the last */
  bool restart, params_chunk, class_chunk, skipped_chunk;
} ahead_item;

typedef struct tl_ts_ahead {
  tl_ts_chunker inner;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t changed; /* an item queued or taken, or stop set */
  ahead_item items[AHEAD_DEPTH];
  size_t first, count;
  bool stop; /* the caller ends before the last tree */
} tl_ts_ahead;

static void *parse_ahead(void *arg) {
  tl_ts_ahead *a = arg;
  tl_cores_busy_begin();
  for (bool last = false; !last;) {
    pthread_mutex_lock(&a->lock);
    while (a->count == AHEAD_DEPTH && !a->stop)
      pthread_cond_wait(&a->changed, &a->lock);
    bool stop = a->stop;
    pthread_mutex_unlock(&a->lock);
    if (stop)
      break;
    ahead_item item;
    item.tree = next_here(&a->inner, &item.restart);
    item.params_chunk = a->inner.params_chunk;
    item.class_chunk = a->inner.class_chunk;
    item.skipped_chunk = a->inner.skipped_chunk;
    last = !item.tree;
    pthread_mutex_lock(&a->lock);
    a->items[(a->first + a->count++) % AHEAD_DEPTH] = item;
    pthread_cond_broadcast(&a->changed);
    pthread_mutex_unlock(&a->lock);
  }
  tl_cores_busy_end();
  return NULL;
}

/* Is a core left for a helper? A view analyzes its code and its FX graphs
 * on two threads already, and on two cores that keeps both busy: parsing
 * ahead there gains no wall time and costs CPU, since the trees are walked
 * on another core than the one that built them (docs/performance.md, "The
 * floors"). The load average, which this read before, is no guide: other
 * processes' load says nothing of whether this run's threads fill the
 * cores it gets. */
enum { VIEW_THREADS = 2 };
static bool core_left(void) { return tl_cores_usable() > VIEW_THREADS; }

/* At the first tree: a chunked region of tl_ts_ahead_from bytes or more is
 * parsed ahead, when a core is left for it (always when tl_ts_ahead_from is
 * 0, for the tests) and a thread can be had. */
static void maybe_parse_ahead(tl_ts_chunker *c) {
  c->ahead_decided = true;
  if (c->done || c->whole ||
      c->region.end_byte - c->region.start_byte < tl_ts_ahead_from ||
      (tl_ts_ahead_from > 0 && !core_left()))
    return;
  tl_ts_ahead *a = calloc(1, sizeof *a);
  if (!a)
    return;
  a->inner = *c;
  pthread_mutex_init(&a->lock, NULL);
  pthread_cond_init(&a->changed, NULL);
  if (pthread_create(&a->thread, NULL, parse_ahead, a) != 0) {
    pthread_cond_destroy(&a->changed);
    pthread_mutex_destroy(&a->lock);
    free(a);
    return;
  }
  c->ahead = a;
}

/* Joins the helper (stopping it first when `stop`), deletes the trees the
 * caller will not take, and makes the helper's chunker the caller's. */
static void finish_ahead(tl_ts_chunker *c, bool stop) {
  tl_ts_ahead *a = c->ahead;
  pthread_mutex_lock(&a->lock);
  a->stop = a->stop || stop;
  pthread_cond_broadcast(&a->changed);
  pthread_mutex_unlock(&a->lock);
  pthread_join(a->thread, NULL);
  for (size_t i = 0; i < a->count; i++) {
    TSTree *tree = a->items[(a->first + i) % AHEAD_DEPTH].tree;
    if (tree)
      ts_tree_delete(tree);
  }
  *c = a->inner;
  c->ahead = NULL;
  pthread_cond_destroy(&a->changed);
  pthread_mutex_destroy(&a->lock);
  free(a);
}

TSTree *tl_ts_chunker_next(tl_ts_chunker *c, bool *restart) {
  if (!c->ahead_decided)
    maybe_parse_ahead(c);
  if (!c->ahead)
    return next_here(c, restart);
  tl_ts_ahead *a = c->ahead;
  pthread_mutex_lock(&a->lock);
  while (a->count == 0)
    pthread_cond_wait(&a->changed, &a->lock);
  ahead_item item = a->items[a->first];
  a->first = (a->first + 1) % AHEAD_DEPTH;
  a->count--;
  pthread_cond_broadcast(&a->changed);
  pthread_mutex_unlock(&a->lock);
  *restart = item.restart;
  if (!item.tree)
    finish_ahead(c, false); /* the helper has stopped: joined at once */
  c->params_chunk = item.params_chunk;
  c->class_chunk = item.class_chunk;
  c->skipped_chunk = item.skipped_chunk;
  return item.tree;
}

void tl_ts_chunker_end(tl_ts_chunker *c) {
  if (c->ahead)
    finish_ahead(c, true);
  if (c->parser)
    ts_parser_delete(c->parser);
  TL_VEC_FREE(c->cuts);
  TL_VEC_FREE(c->skips);
  TL_VEC_FREE(c->ranges);
  TL_VEC_FREE(c->param_slices);
  TL_VEC_FREE(c->classes);
  for (uint32_t i = 0; i < TL_TS_MAX_NEST; i++)
    TL_VEC_FREE(c->nests[i].cuts);
  memset(c, 0, sizeof *c);
}
