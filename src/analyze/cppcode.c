/* cppcode.c: the analyze stage for AOTInductor C++ (see analysis.h). Parses
 * the wrapper (`inductor_aot_wrapper_code`) with the cpp grammar and finds,
 * by the queries in grammars/queries/cpp*.scm: the `run_impl` body (entry),
 * kernel call sites, `// [Provenance debug handles]` comments bound to their
 * calls, launcher definitions with the Triton source in their comments, and
 * `extern "C"` CPU declarations; tl_cppkernels_analyze adds the `cpp_fused_*`
 * bodies of `inductor_aot_kernel_code`, parsed heads only (tl_ts_cpp_heads:
 * a body's name and lines, never its inside). A sample of what run_impl holds:
 *
 *     // [Provenance debug handles] triton_poi_fused_mul_1:2
 *     int64_t triton_poi_fused_mul_1_xnumel = 200L*s0;
 *     call_triton_poi_fused_mul_1(arg3_1, buf2, 200L, stream, kernels, ...);
 *
 * Both texts are parsed a chunk of whole top-level definitions at a time
 * (tl_ts_chunker, ts_query.h): matches keep bytes and lines, never nodes.
 * The wrapper's function bodies that can hold nothing read here are left
 * out of its parse (cppcode_skips.c); its handle comments are bound to
 * their calls by cppcode_handles.c, the Triton source of its launcher
 * comments is read by cppcode_launchers.c, the kernel code's bodies by
 * cppcode_kernels.c. This file is the wrapper's walk: what it collects and
 * how its calls are classified.
 * Results are allocated in the caller's arena and point into the text.
 */
#include "analyze/analysis.h"
#include "analyze/cppcode_internal.h"
#include "analyze/queries_cpp.h"
#include "analyze/ts_chunk.h"
#include "analyze/ts_query.h"
#include "util/mapped_text.h"

#include <stdlib.h>
#include <string.h>

/* Kernel kinds by name prefix; the first row that matches wins. Combo
 * kernels are also recognised by their Triton source (see cpp_triton.scm). */
static const struct {
  const char *prefix;
  tl_kernel_kind kind;
} name_kinds[] = {
    {"aoti_torch_", TL_KERNEL_SHIM},     {"cpp_", TL_KERNEL_CPP},
    {"triton_tem_", TL_KERNEL_TEMPLATE}, {"triton_for_", TL_KERNEL_COMBO},
    {"triton_", TL_KERNEL_TRITON},
};

tl_kernel_kind tl_cpp_kind_of_name(tl_str name) {
  for (size_t i = 0; i + 1 < name.len; i++)
    if (name.ptr[i] == ':' && name.ptr[i + 1] == ':')
      return TL_KERNEL_EXTERN; /* at::_ops::mm::call and the like */
  for (size_t i = 0; i < sizeof name_kinds / sizeof *name_kinds; i++)
    if (tl_str_starts_with(name, name_kinds[i].prefix) &&
        name.len > strlen(name_kinds[i].prefix))
      return name_kinds[i].kind;
  return TL_KERNEL_UNKNOWN;
}

static void state_free(state *s) {
  TL_VEC_FREE(s->raws);
  TL_VEC_FREE(s->handles);
  TL_VEC_FREE(s->entries);
  TL_VEC_FREE(s->sites);
  TL_VEC_FREE(s->defs);
  TL_VEC_FREE(s->embedded);
  TL_VEC_FREE(s->decls);
  TL_VEC_FREE(s->marks);
}

/* Forgets what earlier chunks gave (see tl_ts_chunker_next). */
static void state_clear(state *s) {
  s->raws.count = s->handles.count = s->entries.count = 0;
  s->sites.count = s->defs.count = s->embedded.count = s->decls.count = 0;
  s->marks.count = 0;
}

static bool is_decl(const state *s, tl_str name) {
  for (size_t i = 0; i < s->decls.count; i++)
    if (tl_str_eq(s->decls.items[i], name))
      return true;
  return false;
}

static bool in_entry(const state *s, uint32_t byte) {
  for (size_t i = 0; i < s->entries.count; i++)
    if (byte >= s->entries.items[i].start && byte < s->entries.items[i].end)
      return true;
  return false;
}

/* ---- collecting --------------------------------------------------------- */

/* Is function definition `fn` declared `static`? */
static bool is_static(TSNode fn, tl_str text) {
  for (uint32_t i = 0; i < ts_node_child_count(fn); i++) {
    TSNode c = ts_node_child(fn, i);
    if (node_is(c, "storage_class_specifier") &&
        tl_str_eq_cstr(tl_ts_text(c, text), "static"))
      return true;
  }
  return false;
}

/* The entry function of an AOT wrapper, or of the C++ in a cpp_wrapper JIT
 * module (_const_run_impl counts only for where shim calls may be). */
static bool is_entry_name(tl_str name) {
  return tl_str_eq_cstr(name, "run_impl") ||
         tl_str_eq_cstr(name, "inductor_entry_impl");
}

cpp_syms tl_cpp_syms_get(void) {
  const TSLanguage *cpp = tree_sitter_cpp();
  return (cpp_syms){tl_ts_symbol(cpp, "identifier"),
                    tl_ts_symbol(cpp, "qualified_identifier"),
                    tl_ts_symbol(cpp, "function_declarator"),
                    tl_ts_symbol(cpp, "compound_statement"),
                    tl_ts_symbol(cpp, "declaration"),
                    tl_ts_symbol(cpp, "comment"),
                    tl_ts_symbol(cpp, "call_expression"),
                    tl_ts_symbol(cpp, "field_expression"),
                    tl_ts_symbol(cpp, "field_identifier"),
                    tl_ts_symbol(cpp, "function_definition"),
                    tl_ts_symbol(cpp, "linkage_specification"),
                    tl_ts_symbol(cpp, "argument_list"),
                    tl_ts_field(cpp, "declarator"),
                    tl_ts_field(cpp, "body"),
                    tl_ts_field(cpp, "name"),
                    tl_ts_field(cpp, "function"),
                    tl_ts_field(cpp, "argument"),
                    tl_ts_field(cpp, "field"),
                    tl_ts_field(cpp, "arguments")};
}

static void push_raw(state *s, TSNode callee, TSNode expr,
                     enum call_form form) {
  raw_call r = {tl_ts_text(callee, s->text), ts_node_start_byte(expr),
                tl_ts_first_line(expr), form};
  TL_VEC_PUSH(s->raws, r);
}

/* An entry function's body (`name` is its name). */
static void add_entry(state *s, TSNode name, TSNode body,
                      tl_code_analysis *out) {
  if (out->entry_first == 0 && is_entry_name(tl_ts_text(name, s->text))) {
    out->entry_first = tl_ts_first_line(body);
    out->entry_last = tl_ts_last_line(body);
  }
  byte_range r = {ts_node_start_byte(body), ts_node_end_byte(body)};
  /* Every chunk of a body split into chunks has the same entry. */
  bool seen = s->entries.count &&
              s->entries.items[s->entries.count - 1].start == r.start;
  if (!seen)
    TL_VEC_PUSH(s->entries, r);
}

/* The entries among `fn`'s bodies (compound statements). */
static void add_entries(state *s, const cpp_syms *y, TSNode fn, TSNode name,
                        tl_code_analysis *out) {
  tl_ts_children b;
  tl_ts_children_begin(&b, fn, y->body);
  for (TSNode body; tl_ts_children_next(&b, y->compound_statement, &body);)
    add_entry(s, name, body, out);
  tl_ts_children_end(&b);
}

/* A launcher `call_<name>` defined by `fn`. */
static void add_launcher(state *s, TSNode launcher, TSNode fn) {
  tl_str name = tl_ts_text(launcher, s->text);
  name.ptr += 5, name.len -= 5; /* after `call_` */
  tl_kernel_kind kind = tl_cpp_kind_of_name(name);
  if (name.len == 0 || find_def(s, name) ||
      !(is_triton_family(kind) || is_static(fn, s->text)))
    return;
  TSNode outer = ts_node_parent(fn);
  if (!node_is(outer, "template_declaration"))
    outer = fn;
  def d = {{name, is_triton_family(kind) ? kind : TL_KERNEL_TRITON,
            TL_CODE_MAIN, tl_ts_first_line(outer), tl_ts_last_line(fn)},
           ts_node_start_byte(outer)};
  TL_VEC_PUSH(s->defs, d);
}

/* One function definition, read by field as the query patterns this
 * code replaced matched it:
 *   declarator: (function_declarator declarator: X) and body: (compound_
 *   statement), where X is `Scope::run_impl` / `Scope::_const_run_impl`
 *   (qualified_identifier name: (identifier)) or `inductor_entry_impl`: an
 *   entry; X is an identifier `call_*`: a launcher, and the comments
 *   directly in its bodies are kept for later, when every launcher
 *   definition is known. */
static void collect_function(state *s, const cpp_syms *y, TSNode fn,
                             range_vec *comments, tl_code_analysis *out) {
  tl_ts_children d;
  tl_ts_children_begin(&d, fn, y->declarator);
  for (TSNode decl; tl_ts_children_next(&d, y->function_declarator, &decl);) {
    tl_ts_children q;
    tl_ts_children_begin(&q, decl, y->declarator);
    for (TSNode qn; tl_ts_children_next(&q, y->qualified_identifier, &qn);) {
      tl_ts_children n;
      tl_ts_children_begin(&n, qn, y->name);
      for (TSNode name; tl_ts_children_next(&n, y->identifier, &name);) {
        tl_str t = tl_ts_text(name, s->text);
        if (tl_str_eq_cstr(t, "run_impl") ||
            tl_str_eq_cstr(t, "_const_run_impl"))
          add_entries(s, y, fn, name, out);
      }
      tl_ts_children_end(&n);
    }
    tl_ts_children_end(&q);
    tl_ts_children_begin(&q, decl, y->declarator);
    for (TSNode name; tl_ts_children_next(&q, y->identifier, &name);) {
      tl_str t = tl_ts_text(name, s->text);
      if (tl_str_eq_cstr(t, "inductor_entry_impl"))
        add_entries(s, y, fn, name, out);
      if (!tl_str_starts_with(t, "call_"))
        continue;
      add_launcher(s, name, fn);
      tl_ts_children b;
      tl_ts_children_begin(&b, fn, y->body);
      for (TSNode body;
           tl_ts_children_next(&b, y->compound_statement, &body);) {
        tl_ts_children c;
        tl_ts_children_begin(&c, body, 0);
        for (TSNode com; tl_ts_children_next(&c, y->comment, &com);) {
          TSRange r = {ts_node_start_point(com), ts_node_end_point(com),
                       ts_node_start_byte(com), ts_node_end_byte(com)};
          TL_VEC_PUSH(*comments, r);
        }
        tl_ts_children_end(&c);
      }
      tl_ts_children_end(&b);
    }
    tl_ts_children_end(&q);
  }
  tl_ts_children_end(&d);
}

/* One `extern "C"` block (linkage_specification): the functions it
 * declares, body: (declaration declarator: (function_declarator
 * declarator: (identifier))), are the CPU kernels declared for the
 * linker. */
static void collect_linkage(state *s, const cpp_syms *y, TSNode link) {
  tl_ts_children b;
  tl_ts_children_begin(&b, link, y->body);
  for (TSNode decl; tl_ts_children_next(&b, y->declaration, &decl);) {
    tl_ts_children f;
    tl_ts_children_begin(&f, decl, y->declarator);
    for (TSNode fd; tl_ts_children_next(&f, y->function_declarator, &fd);) {
      tl_ts_children n;
      tl_ts_children_begin(&n, fd, y->declarator);
      for (TSNode a; tl_ts_children_next(&n, y->identifier, &a);) {
        tl_str name = tl_ts_text(a, s->text);
        TL_VEC_PUSH(s->decls, name);
        if (tl_cpp_kind_of_name(name) == TL_KERNEL_CPP && !find_def(s, name)) {
          def d = {{name, TL_KERNEL_CPP, TL_CODE_MAIN, tl_ts_first_line(link),
                    tl_ts_last_line(link)},
                   ts_node_start_byte(link)};
          TL_VEC_PUSH(s->defs, d);
        }
      }
      tl_ts_children_end(&n);
    }
    tl_ts_children_end(&f);
  }
  tl_ts_children_end(&b);
}

#define SUBGRAPH_PREFIX "// subgraph: "

/* The `// subgraph: NAME` comments among a block's statements. */
static void collect_block(state *s, const cpp_syms *y, TSNode block) {
  size_t skip = strlen(SUBGRAPH_PREFIX);
  tl_ts_children cs;
  tl_ts_children_begin(&cs, block, 0);
  for (TSNode comment; tl_ts_children_next(&cs, y->comment, &comment);) {
    tl_str c = tl_ts_text(comment, s->text);
    if (!tl_str_starts_with(c, SUBGRAPH_PREFIX))
      continue;
    tl_str name = {c.ptr + skip, c.len - skip};
    while (name.len &&
           (name.ptr[name.len - 1] == '\r' || name.ptr[name.len - 1] == ' ' ||
            name.ptr[name.len - 1] == '\t'))
      name.len--;
    if (!name.len)
      continue;
    subgraph_mark m = {ts_node_start_byte(block), ts_node_end_byte(block),
                       ts_node_start_byte(comment), name};
    TL_VEC_PUSH(s->marks, m);
  }
  tl_ts_children_end(&cs);
}

/* A call by name, `f(...)` or `a::b(...)`: a call_expression whose
 * function is an identifier or a qualified_identifier. */
static void collect_call(state *s, const cpp_syms *y, TSNode call) {
  tl_ts_children fs;
  tl_ts_children_begin(&fs, call, y->function);
  for (TSNode fn; tl_ts_children_next(&fs, 0, &fn);)
    if (ts_node_symbol(fn) == y->identifier ||
        ts_node_symbol(fn) == y->qualified_identifier)
      push_raw(s, fn, call, FORM_PLAIN);
  tl_ts_children_end(&fs);
}

/* Whether `node` has a child `field: (type)` whose text is `want`, or any
 * such child when `want` is NULL; the last one found goes to `out`. */
static bool child_is(const state *s, TSNode node, TSFieldId field,
                     TSSymbol type, const char *want, TSNode *out) {
  bool found = false;
  tl_ts_children ch;
  tl_ts_children_begin(&ch, node, field);
  for (TSNode n; tl_ts_children_next(&ch, type, &n);) {
    if (want && !tl_str_eq_cstr(tl_ts_text(n, s->text), want))
      continue;
    *out = n;
    found = true;
  }
  tl_ts_children_end(&ch);
  return found;
}

/* A call by name with its first argument (the first named child of its
 * arguments: a comment there is the first argument, and no match):
 *   - a C-shim call checked for its error code,
 *     `AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_x(...))`, the callee
 *     starting `aoti_torch_`;
 *   - the pre-launcher CUDA shape, `launchKernel(kernels.k, ...)`. */
static void collect_first_arg(state *s, const cpp_syms *y, TSNode fn,
                              TSNode arg, TSNode call) {
  tl_str macro = tl_ts_text(fn, s->text);
  TSSymbol sym = ts_node_symbol(arg);
  if (tl_str_eq_cstr(macro, "AOTI_TORCH_ERROR_CODE_CHECK") &&
      sym == y->call_expression) {
    tl_ts_children fs;
    tl_ts_children_begin(&fs, arg, y->function);
    for (TSNode callee; tl_ts_children_next(&fs, y->identifier, &callee);)
      if (tl_str_starts_with(tl_ts_text(callee, s->text), "aoti_torch_"))
        push_raw(s, callee, arg, FORM_SHIM);
    tl_ts_children_end(&fs);
  } else if (tl_str_eq_cstr(macro, "launchKernel") &&
             sym == y->field_expression) {
    TSNode object;
    if (!child_is(s, arg, y->argument, y->identifier, "kernels", &object))
      return;
    tl_ts_children ks;
    tl_ts_children_begin(&ks, arg, y->field);
    for (TSNode kernel; tl_ts_children_next(&ks, y->field_identifier, &kernel);)
      push_raw(s, kernel, call, FORM_LAUNCH);
    tl_ts_children_end(&ks);
  }
}

/* What the wrapper analysis reads from each node of a chunk's tree (the
 * query cpp_wrapper.scm did this before; compiling it cost 12 to 20 ms).
 * Per node type:
 *   - function_definition: entry functions `AOTInductorModel::run_impl`,
 *     `_const_run_impl` and `inductor_entry_impl` (the C++ of a
 *     cpp_wrapper=True JIT module, src/analyze/pycode.c), and Triton launchers
 *     `call_k` with the comments in their bodies (collect_function);
 *   - linkage_specification: the CPU kernels an `extern "C"` block
 *     declares (collect_linkage);
 *   - call_expression: every call by name (collect_call), and for one
 *     whose function is an identifier, its first argument
 *     (collect_first_arg);
 *   - compound_statement: the subgraph comments among its statements
 *     (collect_block);
 *   - comment: `// [Provenance debug handles] <key>`. */
typedef struct wrapper_walk {
  state *s;
  const cpp_syms *y;
  range_vec *comments;
  tl_code_analysis *out;
} wrapper_walk;

static bool visit_wrapper_node(TSNode n, void *ctx) {
  wrapper_walk *w = ctx;
  const cpp_syms *y = w->y;
  TSSymbol sym = ts_node_symbol(n);
  if (sym == y->function_definition) {
    collect_function(w->s, y, n, w->comments, w->out);
  } else if (sym == y->linkage_specification) {
    collect_linkage(w->s, y, n);
  } else if (sym == y->compound_statement) {
    collect_block(w->s, y, n);
  } else if (sym == y->call_expression) {
    tl_ts_children fs;
    tl_ts_children_begin(&fs, n, y->function);
    for (TSNode fn; tl_ts_children_next(&fs, y->identifier, &fn);) {
      tl_ts_children as;
      tl_ts_children_begin(&as, n, y->arguments);
      for (TSNode args; tl_ts_children_next(&as, y->argument_list, &args);)
        if (ts_node_named_child_count(args) > 0)
          collect_first_arg(w->s, y, fn, ts_node_named_child(args, 0), n);
      tl_ts_children_end(&as);
    }
    tl_ts_children_end(&fs);
    collect_call(w->s, y, n);
  } else if (sym == y->comment) {
    handle_comment h;
    if (tl_cpp_parse_handle_comment(tl_ts_text(n, w->s->text), &h.key,
                                    &h.pure)) {
      h.end = ts_node_end_byte(n);
      h.limit = tl_cpp_enclosing_function_end(n, (uint32_t)w->s->text.len);
      TL_VEC_PUSH(w->s->handles, h);
    }
  }
  return true;
}

static int cmp_raw(const void *pa, const void *pb) {
  const raw_call *a = pa, *b = pb;
  if (a->byte != b->byte)
    return a->byte < b->byte ? -1 : 1;
  return (int)b->form - (int)a->form; /* the most specific form first */
}

int tl_cpp_cmp_site(const void *pa, const void *pb) {
  const site *a = pa, *b = pb;
  return a->byte < b->byte ? -1 : a->byte > b->byte;
}

static int cmp_def(const void *pa, const void *pb) {
  const def *a = pa, *b = pb;
  return a->byte < b->byte ? -1 : a->byte > b->byte;
}

static int cmp_embedded(const void *pa, const void *pb) {
  const embedded *a = pa, *b = pb;
  return a->byte < b->byte ? -1 : a->byte > b->byte;
}

static int cmp_handle(const void *pa, const void *pb) {
  const handle_comment *a = pa, *b = pb;
  return a->end < b->end ? -1 : a->end > b->end;
}

static int cmp_range(const void *pa, const void *pb) {
  const TSRange *a = pa, *b = pb;
  return a->start_byte < b->start_byte ? -1 : a->start_byte > b->start_byte;
}

/* A comment in the head of a body the chunker went into is parsed again
 * with each chunk of that body (a handle comment among a mangled
 * function's parameters, found by fuzzing): each comment is kept once, in
 * text order, as a whole parse gives them. */
static void comments_once(state *s, range_vec *launchers) {
  tl_sort(s->handles.items, s->handles.count, sizeof(handle_comment),
          cmp_handle);
  size_t kept = 0;
  for (size_t i = 0; i < s->handles.count; i++)
    if (kept == 0 || s->handles.items[kept - 1].end != s->handles.items[i].end)
      s->handles.items[kept++] = s->handles.items[i];
  s->handles.count = kept;
  tl_sort(launchers->items, launchers->count, sizeof(TSRange), cmp_range);
  kept = 0;
  for (size_t i = 0; i < launchers->count; i++)
    if (kept == 0 ||
        launchers->items[kept - 1].start_byte != launchers->items[i].start_byte)
      launchers->items[kept++] = launchers->items[i];
  launchers->count = kept;
}

/* Is `call_<name>` the launcher of a Triton kernel `name`? True when the
 * wrapper defines that launcher or the name is a Triton one; sets its kind. */
bool tl_cpp_is_launched(state *s, tl_str name, tl_kernel_kind *kind) {
  def *d = find_def(s, name);
  if (d && d->def.file == TL_CODE_MAIN && is_triton_family(d->def.kind)) {
    *kind = d->def.kind;
    return true;
  }
  *kind = tl_cpp_kind_of_name(name);
  return is_triton_family(*kind);
}

/* The kernel a call reports, or false when it calls no kernel. Launchers
 * and `cpp_*` kernels count anywhere; shim calls and `launchKernel` only in
 * run_impl / _const_run_impl. */
static bool classify(state *s, const raw_call *r, tl_str *name,
                     tl_kernel_kind *kind) {
  *name = r->callee;
  switch (r->form) {
  case FORM_SHIM:
    *kind = TL_KERNEL_SHIM;
    return in_entry(s, r->byte);
  case FORM_LAUNCH: {
    def *d = find_def(s, r->callee);
    tl_kernel_kind k = tl_cpp_kind_of_name(r->callee);
    *kind = d ? d->def.kind : is_triton_family(k) ? k : TL_KERNEL_TRITON;
    return in_entry(s, r->byte);
  }
  case FORM_PLAIN:
    break;
  }
  if (tl_str_starts_with(r->callee, "call_") && r->callee.len > 5) {
    tl_str rest = {r->callee.ptr + 5, r->callee.len - 5};
    if (tl_cpp_is_launched(s, rest, kind)) {
      *name = rest;
      return true;
    }
  }
  *kind = TL_KERNEL_CPP;
  return tl_cpp_kind_of_name(r->callee) == TL_KERNEL_CPP ||
         is_decl(s, r->callee);
}

/* ---- results ------------------------------------------------------------ */

static int cmp_mark(const void *pa, const void *pb) {
  const subgraph_mark *a = pa, *b = pb;
  if (a->block != b->block)
    return a->block < b->block ? -1 : 1;
  return (a->at > b->at) - (a->at < b->at);
}

static int cmp_region(const void *pa, const void *pb) {
  const subgraph_region *a = pa, *b = pb;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return (a->end < b->end) - (a->end > b->end); /* the outer one first */
}

/* The subgraphs' regions, sorted by start: each mark's, to the next mark of
 * its block or to the block's end. A function body parsed in chunks is the
 * same block (the same first byte) in each, so its marks meet here. */
static subgraph_region *regions_of(state *s, size_t *count) {
  subgraph_mark *m = s->marks.items;
  /* one mark each: a comment may be seen by two chunks */
  size_t kept = tl_sort_unique(m, s->marks.count, sizeof *m, cmp_mark);
  subgraph_region *r = tl_xmalloc((kept + 1) * sizeof *r);
  for (size_t i = 0; i < kept; i++) {
    bool next = i + 1 < kept && m[i + 1].block == m[i].block;
    r[i] = (subgraph_region){m[i].at, next ? m[i + 1].at : m[i].block_end,
                             m[i].name};
  }
  tl_sort(r, kept, sizeof *r, cmp_region);
  *count = kept;
  return r;
}

/* Each site's scope (tl_call_site.scope): the names of the subgraph regions
 * around it joined outer to inner by `_`, as Inductor qualifies a nested
 * subgraph's name; and `out->scopes`, every region's. Regions nest (a
 * block's lie in it, one after another), so one sweep in text order over
 * the regions and the sites, with the regions open at each place on a
 * stack, finds both. */
static void scope_sites(state *s, tl_arena *arena, tl_code_analysis *out,
                        size_t budget) {
  size_t n;
  subgraph_region *b = regions_of(s, &n);
  out->scopes = tl_arena_alloc(arena, (n + 1) * sizeof *out->scopes);
  out->scope_count = 0;
  tl_sort(s->sites.items, s->sites.count, sizeof(site), tl_cpp_cmp_site);
  tl_str *scope = tl_xmalloc((n + 1) * sizeof *scope);
  size_t *open = tl_xmalloc((n + 1) * sizeof *open), depth = 0, next = 0;
  for (size_t i = 0; i <= s->sites.count && n; i++) {
    /* the regions that start before this site (all of them after the last) */
    uint32_t at = i < s->sites.count ? s->sites.items[i].byte : UINT32_MAX;
    for (; next < n && b[next].start <= at; next++) {
      while (depth && b[open[depth - 1]].end <= b[next].start)
        depth--;
      const tl_str *outer = depth ? &scope[open[depth - 1]] : NULL;
      scope[next] = tl_subgraph_name(arena, outer, b[next].name, &budget);
      if (scope[next].len)
        out->scopes[out->scope_count++] = scope[next];
      open[depth++] = next;
    }
    if (i == s->sites.count)
      break;
    while (depth && b[open[depth - 1]].end <= at)
      depth--;
    if (depth)
      s->sites.items[i].call.scope = scope[open[depth - 1]];
  }
  out->scope_count = tl_sort_unique(out->scopes, out->scope_count,
                                    sizeof *out->scopes, tl_str_cmp_p);
  free(b);
  free(scope);
  free(open);
}

/* `analyzed`: the bytes of text the analysis read (the budget of the
 * scopes' names, tl_subgraph_budget). */
static void write_out(state *s, tl_arena *arena, tl_code_analysis *out,
                      size_t analyzed) {
  scope_sites(s, arena, out, tl_subgraph_budget(analyzed));
  tl_sort(s->defs.items, s->defs.count, sizeof(def), cmp_def);
  tl_sort(s->embedded.items, s->embedded.count, sizeof(embedded), cmp_embedded);
  out->def_count = s->defs.count;
  out->defs =
      tl_arena_alloc(arena, sizeof(tl_kernel_def) * (s->defs.count + 1));
  for (size_t i = 0; i < s->defs.count; i++)
    out->defs[i] = s->defs.items[i].def;
  out->call_count = s->sites.count;
  out->calls =
      tl_arena_alloc(arena, sizeof(tl_call_site) * (s->sites.count + 1));
  for (size_t i = 0; i < s->sites.count; i++)
    out->calls[i] = s->sites.items[i].call;
  out->embedded_count = s->embedded.count;
  out->embedded =
      tl_arena_alloc(arena, sizeof(tl_embedded) * (s->embedded.count + 1));
  for (size_t i = 0; i < s->embedded.count; i++)
    out->embedded[i] = s->embedded.items[i].emb;
}

/* Whether the wrapper analysis leaves out bodies it reads nothing from
 * (tests turn it off to compare). */
bool tl_cppcode_skip_bodies = true;

/* tl_cppcode_analyze over the bytes [start, end) of the text, leaving out
 * what find_skips gives when `skip`. False when a function left out turned
 * out to be needed: `out` is to be filled again, parsing every function. */
static bool analyze_pass(tl_arena *arena, tl_str text, uint32_t start,
                         uint32_t end, bool skip, tl_code_analysis *out) {
  memset(out, 0, sizeof *out);
  if (!text.ptr || text.len >= UINT32_MAX)
    text = (tl_str){"", 0};
  state s = {.text = text};
  cpp_syms y = tl_cpp_syms_get();
  /* One chunk of whole top-level definitions at a time; what follows runs
   * once over what all chunks gave. */
  range_vec comments = {0};
  wrapper_walk walk = {&s, &y, &comments, out};
  tl_ts_chunker ch;
  tl_ts_chunker_begin_range(&ch, tree_sitter_cpp(), text, start, end,
                            tl_ts_cpp_cuts);
  /* run_impl alone can be most of a wrapper: parse it a few statements at
   * a time (each chunk repeats its head and closing brace). */
  tl_ts_chunker_go_into_bodies(&ch, tl_ts_cpp_body);
  skip_plan skips = {{0}, {0}};
  if (skip)
    tl_cpp_skips_of(&ch, &skips);
  tl_ts_chunker_skip(&ch, skips.parse.items, skips.parse.count / 2);
  size_t ch_region_bytes = ch.region.end_byte - ch.region.start_byte;
  bool restart;
  /* The launcher comments each chunk's walk finds are scanned on a second
   * thread while the next chunks are parsed. */
  tl_cpp_launchers *launchers = tl_cpp_launchers_new(text);
  for (TSTree *tree; (tree = tl_ts_chunker_next(&ch, &restart));) {
    if (restart) {
      state_clear(&s);
      comments.count = 0;
      out->entry_first = out->entry_last = 0;
    }
    size_t before = comments.count;
    tl_ts_walk(ts_tree_root_node(tree), visit_wrapper_node, &walk);
    ts_tree_delete(tree);
    if (comments.count > before) /* no comments yet: no pointer */
      tl_cpp_launchers_offer(launchers, comments.items + before,
                             comments.count - before);
  }
  bool parsed = ch.chunks > 0, skipped = !ch.gave_up && skips.parse.count;
  tl_ts_chunker_end(&ch);
  size_t left_out = 0;
  for (size_t i = 0; skipped && i + 1 < skips.parse.count; i += 2)
    left_out += skips.parse.items[i + 1] - skips.parse.items[i];
  bool again =
      parsed && skipped && tl_cpp_skipped_names_needed(&s, &skips.calls);
  TL_VEC_FREE(skips.parse);
  TL_VEC_FREE(skips.calls);
  tl_ts_stats_parsed(ch_region_bytes - left_out);
  if (again || !parsed)
    tl_cpp_launchers_free(launchers);
  if (again) {
    TL_VEC_FREE(comments);
    state_free(&s);
    return false;
  }
  if (!parsed) {
    TL_VEC_FREE(comments);
    write_out(&s, arena, out, ch_region_bytes);
    return true;
  }
  tl_cpp_launchers_finish(launchers);
  comments_once(&s, &comments);
  if (comments.count) { /* the python query only where launchers are */
    tl_ts_query tq;
    tl_ts_query_init(&tq, tree_sitter_python(), TL_RES(query_cpp_triton),
                     "cpp_triton.scm");
    /* In text order (comments_once): a mapped wrapper's pages before go
     * back (these comments hold the kernels' Triton source, much of the
     * text), as in the two loops below. */
    size_t next_passed = 0;
    for (size_t i = 0; i < comments.count; i++) {
      tl_cpp_launchers_scan(launchers, &s, &tq, comments.items[i]);
      tl_text_passing(s.text.ptr, comments.items[i].end_byte, &next_passed);
    }
    tl_ts_query_free(&tq);
  }
  tl_cpp_launchers_free(launchers);
  TL_VEC_FREE(comments);

  /* One raw call per call expression, the most specific form kept. */
  tl_sort(s.raws.items, s.raws.count, sizeof(raw_call), cmp_raw);
  size_t kept = 0;
  for (size_t i = 0; i < s.raws.count; i++)
    if (kept == 0 || s.raws.items[kept - 1].byte != s.raws.items[i].byte)
      s.raws.items[kept++] = s.raws.items[i];
  s.raws.count = kept;
  size_t next_passed = 0;
  for (size_t i = 0; i < s.raws.count; i++) {
    tl_str name;
    tl_kernel_kind kind;
    tl_text_passing(s.text.ptr, s.raws.items[i].byte, &next_passed);
    if (classify(&s, &s.raws.items[i], &name, &kind)) {
      site add = {{name, kind, s.raws.items[i].line, {NULL, 0}, {NULL, 0}},
                  s.raws.items[i].byte};
      TL_VEC_PUSH(s.sites, add);
    }
  }
  next_passed = 0;
  for (size_t i = 0; i < s.handles.count; i++) {
    tl_cpp_bind_handle(&s, i);
    tl_text_passing(s.text.ptr, s.handles.items[i].end, &next_passed);
  }

  write_out(&s, arena, out, ch_region_bytes);
  state_free(&s);
  return true;
}

/* tl_cppcode_analyze over the bytes [start, end) of the text. */
static void analyze_range(tl_arena *arena, tl_str text, uint32_t start,
                          uint32_t end, tl_code_analysis *out) {
  if (!analyze_pass(arena, text, start, end, tl_cppcode_skip_bodies, out))
    analyze_pass(arena, text, start, end, false, out);
}

void tl_cppcode_analyze(tl_arena *arena, tl_str text, tl_code_analysis *out) {
  analyze_range(arena, text, 0, UINT32_MAX, out);
}

static int cmp_def_line(const void *pa, const void *pb) {
  const tl_kernel_def *a = pa, *b = pb;
  return a->first < b->first ? -1 : a->first > b->first;
}

void tl_cppwrapper_analyze(tl_arena *arena, tl_str text, uint32_t start,
                           uint32_t end, tl_code_analysis *out) {
  analyze_range(arena, text, start, end, out);
  tl_cpp_kernel_bodies(arena, text, start, end, TL_CODE_MAIN, out);
  tl_sort(out->defs, out->def_count, sizeof *out->defs, cmp_def_line);
}
