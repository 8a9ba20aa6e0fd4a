/* cppcode_kernels.c: the AOT kernel code's `cpp_*` bodies (and those of
 * names the wrapper declares `extern "C"`), parsed heads only
 * (tl_ts_cpp_heads: a body's name and lines, never its inside), each
 * replacing the wrapper's declaration of its name. Results in the caller's
 * arena, pointing into the text.
 */
#include "analyze/cppcode_internal.h"
#include "analyze/ts_heads.h"

typedef TL_VEC(tl_kernel_def) kernel_def_vec;

/* One kernel definition `fn` named `name`: kept when the name is a `cpp_*`
 * one or a declared CPU kernel's. */
static void add_kernel_body(TSNode name, TSNode fn, tl_str text,
                            tl_code_file file, const tl_code_analysis *inout,
                            kernel_def_vec *found) {
  tl_str n = tl_ts_text(name, text);
  bool declared = false;
  for (size_t i = 0; i < inout->def_count; i++)
    declared |= inout->defs[i].kind == TL_KERNEL_CPP &&
                tl_str_eq(inout->defs[i].name, n);
  if (tl_cpp_kind_of_name(n) != TL_KERNEL_CPP && !declared)
    return;
  TSNode outer = ts_node_parent(fn);
  if (!node_is(outer, "linkage_specification") &&
      !node_is(outer, "template_declaration"))
    outer = fn;
  tl_kernel_def d = {n, TL_KERNEL_CPP, file, tl_ts_first_line(outer),
                     tl_ts_last_line(fn)};
  TL_VEC_PUSH(*found, d);
}

/* The `cpp_*` bodies (and those of declared names) in one chunk's tree:
 * the function definitions whose declarator is
 * (function_declarator declarator: (identifier)), found by a walk of the
 * tree (no query to compile, see tl_ts_walk). */
typedef struct kernel_walk {
  cpp_syms y;
  tl_str text;
  tl_code_file file;
  const tl_code_analysis *inout;
  kernel_def_vec *found;
} kernel_walk;

static bool visit_kernel_node(TSNode fn, void *ctx) {
  kernel_walk *w = ctx;
  if (ts_node_symbol(fn) != w->y.function_definition)
    return true;
  tl_ts_children d;
  tl_ts_children_begin(&d, fn, w->y.declarator);
  for (TSNode fd; tl_ts_children_next(&d, w->y.function_declarator, &fd);) {
    tl_ts_children f;
    tl_ts_children_begin(&f, fd, w->y.declarator);
    for (TSNode name; tl_ts_children_next(&f, w->y.identifier, &name);)
      add_kernel_body(name, fn, w->text, w->file, w->inout, w->found);
    tl_ts_children_end(&f);
  }
  tl_ts_children_end(&d);
  return true;
}

static void walk_kernels(TSTree *tree, void *walk) {
  tl_ts_walk(ts_tree_root_node(tree), visit_kernel_node, walk);
}

/* The kernel bodies in bytes [start, end) of `text`, as definitions in
 * `file`: each replaces the declaration of its name in the main code. */
void tl_cpp_kernel_bodies(tl_arena *arena, tl_str text, uint32_t start,
                          uint32_t end, tl_code_file file,
                          tl_code_analysis *inout) {
  if (!text.ptr || text.len >= UINT32_MAX)
    return;
  kernel_def_vec found = {0};
  kernel_walk walk = {tl_cpp_syms_get(), text, file, inout, &found};
  /* A definition's name and lines are all that is read: the bodies are
   * left out unless their heads do not parse (then the text is parsed
   * whole, in chunks, as the wrapper is). */
  bool parsed = tl_ts_cpp_heads(text, start, end, walk_kernels, &walk);
  if (!parsed) {
    found.count = 0;
    tl_ts_stats_parsed(
        start < text.len ? (end < text.len ? end : text.len) - start : 0);
    tl_ts_chunker ch;
    tl_ts_chunker_begin_range(&ch, tree_sitter_cpp(), text, start, end,
                              tl_ts_cpp_cuts);
    bool restart;
    for (TSTree *tree; (tree = tl_ts_chunker_next(&ch, &restart));) {
      if (restart)
        found.count = 0;
      walk_kernels(tree, &walk);
      ts_tree_delete(tree);
    }
    parsed = ch.chunks > 0;
    tl_ts_chunker_end(&ch);
  }
  if (!parsed) {
    TL_VEC_FREE(found);
    return;
  }

  /* A body replaces the wrapper's `extern "C"` declaration of its name. */
  tl_kernel_def *defs = tl_arena_alloc(
      arena, sizeof(tl_kernel_def) * (inout->def_count + found.count + 1));
  size_t count = inout->def_count;
  if (count)
    memcpy(defs, inout->defs, sizeof(tl_kernel_def) * count);
  for (size_t i = 0; i < found.count; i++) {
    size_t j = 0;
    while (j < count &&
           !(defs[j].file == TL_CODE_MAIN && defs[j].kind == TL_KERNEL_CPP &&
             tl_str_eq(defs[j].name, found.items[i].name)))
      j++;
    defs[j == count ? count++ : j] = found.items[i];
  }
  inout->defs = defs;
  inout->def_count = count;
  TL_VEC_FREE(found);
}

void tl_cppkernels_analyze(tl_arena *arena, tl_str text,
                           tl_code_analysis *inout) {
  tl_cpp_kernel_bodies(arena, text, 0, UINT32_MAX, TL_CODE_KERNELS, inout);
}
