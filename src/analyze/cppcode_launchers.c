/* cppcode_launchers.c: the Triton source in an AOT launcher's comment. A
 * launcher's block comment holds the Python that defined its kernel,
 * `async_compile.triton('k', '''...''')`: re-parsed as Python, its source is
 * an embedded range of the wrapper, and a source that dispatches
 * sub-kernels makes the kernel a combo one.
 */
#include "analyze/cppcode_internal.h"
#include "analyze/queries_cpp.h"

/* True when the range of the text holds a combo kernel's Triton source. */
static bool triton_is_combo(const tl_ts_query *q, tl_str text, TSRange range) {
  if (!tl_triton_may_be_combo(text, range.start_byte, range.end_byte))
    return false;
  TSTree *tree = tl_ts_parse(tree_sitter_python(), text, &range, 1);
  if (!tree)
    return false;
  bool combo = false;
  tl_ts_iter it;
  tl_ts_iter_begin(&it, q, ts_tree_root_node(tree), text);
  while (!combo && tl_ts_iter_next(&it))
    combo = tl_ts_iter_pattern(&it) > 0;
  tl_ts_iter_end(&it);
  ts_tree_delete(tree);
  return combo;
}

/* Is the text between the start of `byte`'s line and `byte` blank? */
static bool blank_before(tl_str text, uint32_t byte) {
  while (byte > 0 && text.ptr[byte - 1] != '\n') {
    if (text.ptr[byte - 1] != ' ' && text.ptr[byte - 1] != '\t')
      return false;
    byte--;
  }
  return true;
}

/* Re-parses the interior of a launcher's block comment as Python and
 * records the '''...''' source of `async_compile.triton('k', '''...''')` as
 * an embedded range (its lines without the quote lines); marks `k` combo
 * when the source dispatches sub-kernels. */
void tl_cpp_scan_launcher_comment(state *s, const tl_ts_query *q,
                                  TSRange comment) {
  if (comment.start_byte > comment.end_byte || comment.end_byte > s->text.len)
    return;
  tl_str c = {s->text.ptr + comment.start_byte,
              comment.end_byte - comment.start_byte};
  if (c.len < 4 || memcmp(c.ptr, "/*", 2) != 0 ||
      memcmp(c.ptr + c.len - 2, "*/", 2) != 0)
    return;
  TSPoint from = comment.start_point, to = comment.end_point;
  if (to.column < 2)
    return;
  TSRange inner = {{from.row, from.column + 2},
                   {to.row, to.column - 2},
                   comment.start_byte + 2,
                   comment.end_byte - 2};
  TSTree *tree = tl_ts_parse(tree_sitter_python(), s->text, &inner, 1);
  if (!tree)
    return;
  uint32_t name_id = tl_ts_query_capture(q, "triton.name");
  uint32_t source_id = tl_ts_query_capture(q, "triton.source");
  tl_ts_iter it;
  tl_ts_iter_begin(&it, q, ts_tree_root_node(tree), s->text);
  while (tl_ts_iter_next(&it)) {
    TSNode name, source;
    if (tl_ts_iter_pattern(&it) != 0 || !tl_ts_iter_get(&it, name_id, &name) ||
        !tl_ts_iter_get(&it, source_id, &source))
      continue;
    uint32_t count = ts_node_child_count(source);
    TSNode open = ts_node_child(source, 0);
    TSNode close = ts_node_child(source, count ? count - 1 : 0);
    if (count < 2 || !node_is(open, "string_start") ||
        !node_is(close, "string_end"))
      continue;
    TSPoint a = ts_node_end_point(open), b = ts_node_start_point(close);
    uint32_t a_byte = ts_node_end_byte(open),
             b_byte = ts_node_start_byte(close);
    /* Lines of the source itself: skip the rest of the opening line when it
     * is empty, and the closing line when only indentation precedes '''. */
    int first = (int)a.row + 1 + (s->text.ptr[a_byte] == '\n' ? 1 : 0);
    int last = (int)b.row + (blank_before(s->text, b_byte) ? 0 : 1);
    if (first <= last) {
      embedded e = {{TL_CODE_MAIN, first, last, "python"}, a_byte};
      TL_VEC_PUSH(s->embedded, e);
    }
    TSRange body = {a, b, a_byte, b_byte};
    def *d = find_def(s, tl_ts_text(name, s->text));
    if (d && is_triton_family(d->def.kind) && triton_is_combo(q, s->text, body))
      d->def.kind = TL_KERNEL_COMBO;
  }
  tl_ts_iter_end(&it);
  ts_tree_delete(tree);
}
