/* pycode.c: JIT Python output code -> kernel definitions, call sites, debug
 * handles and embedded kernel sources (analyze stage).
 *
 *     triton_poi_fused_mul_1 = async_compile.triton('triton_poi_fused_mul_1',
 * '''
 *     ...''', device_str='cuda')
 *     def call(args):
 *             # [Provenance debug handles] triton_poi_fused_mul_1:2
 *             stream0 = get_raw_stream(0)
 *             triton_poi_fused_mul_1.run(primals_4, buf2, 200, stream=stream0)
 * Extraction is by a walk of the tree (visit_code_node); the Triton source
 * is re-parsed as Python over included ranges (pycode_triton.scm tells combo
 * kernels), cpp_pybinding sources with the cpp grammar. The code of
 * cpp_wrapper=True is a module whose C++ wrapper is one string, compiled by
 * load_pybinding:
 *     cpp_wrapper_src = (
 *     r"""
 *     ...
 *     """
 *     )
 *     inductor_entry = CppWrapperCodeCache.load_pybinding(
 *         argtypes=["std::vector<AtenTensorHandle>"],
 * main_code=cpp_wrapper_src, and that string's bytes are analyzed as the AOT
 * wrapper is (cppcode.c, tl_cppwrapper_analyze, when built: HAVE_CPPCODE). The
 * text is parsed a chunk of whole top-level statements at a time
 * (tl_ts_chunker, ts_chunk.h); what the chunks collect is resolved once
 * at the end (pycode_resolve.c, pycode_internal.h). Results point into the
 * text or the arena.
 */
#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/pycode_internal.h"
#include "analyze/queries.h"
#include "analyze/ts_chunk.h"
#include "analyze/ts_query.h"

#define HANDLE_PREFIX "# [Provenance debug handles] "

/* The kernel name of a key: the text before its last ':' when what follows
 * is a non-empty run of digits (the debug handle), else the whole key. */
static tl_str key_name(tl_str key) {
  size_t i = key.len;
  while (i > 0 && key.ptr[i - 1] >= '0' && key.ptr[i - 1] <= '9')
    i--;
  if (i == key.len || i == 0 || key.ptr[i - 1] != ':')
    return key;
  return (tl_str){key.ptr, i - 1};
}

/* Kind of an async_compile method; TL_KERNEL_TRITON is refined later. */
static tl_kernel_kind method_kind(tl_str method, const char **language) {
  *language = NULL;
  if (tl_str_eq_cstr(method, "triton")) {
    *language = "python";
    return TL_KERNEL_TRITON;
  }
  if (tl_str_eq_cstr(method, "cpp_pybinding") ||
      tl_str_eq_cstr(method, "cpp")) {
    *language = "cpp";
    return TL_KERNEL_CPP;
  }
  if (tl_str_eq_cstr(method, "cuda") || tl_str_eq_cstr(method, "rocm")) {
    *language = "cpp";
    return TL_KERNEL_TEMPLATE;
  }
  if (tl_str_eq_cstr(method, "halide"))
    *language = "python";
  return TL_KERNEL_UNKNOWN;
}

static bool string_body(TSNode string, TSRange *out);

/* Whether text[r.start_byte, r.end_byte) is one of the string bodies the
 * parse left out (c->left_out). */
static bool left_out(const collected *c, TSRange r) {
  size_t lo = 0, hi = c->left_out_count / 2;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->left_out[2 * mid] < r.start_byte)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < c->left_out_count / 2 && c->left_out[2 * lo] == r.start_byte &&
         c->left_out[2 * lo + 1] == r.end_byte;
}

/* The multi-line string argument holding the kernel source, as the range of
 * its string_content; false when the call has none. A body the parse left
 * out has no string_content node: its range is the same bytes, between the
 * quotes (tl_ts_python_long_strings). */
static bool source_range(const collected *col, TSNode args, TSRange *out) {
  uint32_t n = ts_node_named_child_count(args);
  for (uint32_t i = 0; i < n; i++) {
    TSNode arg = ts_node_named_child(args, i);
    if (strcmp(ts_node_type(arg), "string") != 0)
      continue;
    uint32_t m = ts_node_named_child_count(arg);
    bool content = false;
    for (uint32_t k = 0; k < m; k++) {
      TSNode c = ts_node_named_child(arg, k);
      if (strcmp(ts_node_type(c), "string_content") != 0)
        continue;
      content = true;
      TSPoint s = ts_node_start_point(c), e = ts_node_end_point(c);
      if (e.row == s.row)
        break; /* a one-line string: the kernel's name */
      *out = (TSRange){s, e, ts_node_start_byte(c), ts_node_end_byte(c)};
      return true;
    }
    TSRange body;
    if (!content && col->left_out_count && string_body(arg, &body) &&
        left_out(col, body) && body.end_point.row != body.start_point.row) {
      *out = body;
      return true;
    }
  }
  return false;
}

/* 1-based first and last line of an embedded source: the lines holding at
 * least one byte of it other than the newline after the opening `'''`; false
 * when it has none. */
static bool embedded_lines(tl_str text, TSRange r, const char *language,
                           tl_embedded *out) {
  *out = (tl_embedded){TL_CODE_MAIN, (int)r.start_point.row + 1,
                       (int)r.end_point.row + 1, language};
  if (r.start_byte < text.len && text.ptr[r.start_byte] == '\n')
    out->first += 1;
  if (r.end_point.column == 0)
    out->last -= 1;
  return out->last >= out->first;
}

/* True when the Triton source in `range` dispatches on the program id. */
static bool is_combo(tl_str text, TSRange range) {
  if (!tl_triton_may_be_combo(text, range.start_byte, range.end_byte))
    return false;
  TSTree *tree = tl_ts_parse(tree_sitter_python(), text, &range, 1);
  if (!tree)
    return false;
  tl_ts_query q;
  tl_ts_query_init(&q, tree_sitter_python(), TL_RES(query_pycode_triton),
                   "pycode_triton.scm");
  tl_ts_iter it;
  tl_ts_iter_begin(&it, &q, ts_tree_root_node(tree), text);
  bool combo = tl_ts_iter_next(&it);
  tl_ts_iter_end(&it);
  tl_ts_query_free(&q);
  ts_tree_delete(tree);
  return combo;
}

/* Kind of a kernel known only by its name (from a handle comment). */
tl_kernel_kind tl_pycode_kind_from_name(tl_str name) {
  if (tl_str_starts_with(name, "triton_tem_"))
    return TL_KERNEL_TEMPLATE;
  if (tl_str_starts_with(name, "triton_"))
    return TL_KERNEL_TRITON;
  if (tl_str_starts_with(name, "cpp_"))
    return TL_KERNEL_CPP;
  return TL_KERNEL_UNKNOWN;
}

/* Forgets what earlier chunks gave (see tl_ts_chunker_next). */
static void collected_clear(collected *c) {
  c->defs.count = c->calls.count = c->handles.count = 0;
  c->functions.count = c->embedded.count = c->strings.count = 0;
  c->have_entry = false;
}

static void add_definition(collected *c, tl_str text, TSNode name, TSNode def,
                           tl_str method, TSNode args) {
  const char *language = NULL;
  tl_kernel_def d = {tl_ts_text(name, text), method_kind(method, &language),
                     TL_CODE_MAIN, tl_ts_first_line(def), tl_ts_last_line(def)};
  TSRange range;
  if (language && source_range(c, args, &range)) {
    tl_embedded e;
    if (embedded_lines(text, range, language, &e))
      TL_VEC_PUSH(c->embedded, e);
    if (d.kind == TL_KERNEL_TRITON && is_combo(text, range))
      d.kind = TL_KERNEL_COMBO;
  }
  if (d.kind == TL_KERNEL_TRITON && tl_str_starts_with(d.name, "triton_tem_"))
    d.kind = TL_KERNEL_TEMPLATE;
  TL_VEC_PUSH(c->defs, d);
}

/* The bytes between the quotes of a string node; false when it has no
 * opening and closing quote of its own. */
static bool string_body(TSNode string, TSRange *out) {
  uint32_t n = ts_node_child_count(string);
  if (n < 2)
    return false;
  TSNode open = ts_node_child(string, 0), close = ts_node_child(string, n - 1);
  if (strcmp(ts_node_type(open), "string_start") != 0 ||
      strcmp(ts_node_type(close), "string_end") != 0)
    return false;
  *out = (TSRange){ts_node_end_point(open), ts_node_start_point(close),
                   ts_node_end_byte(open), ts_node_start_byte(close)};
  return out->start_byte < out->end_byte;
}

/* The Python grammar's ids that the reads by field compare with. */
typedef struct py_syms {
  TSSymbol identifier, attribute, call, assignment, argument_list,
      function_definition, class_definition, block, expression_statement,
      string, parenthesized_expression, keyword_argument, module, comment;
  TSFieldId object, attribute_field, left, right, function, arguments, name,
      body, value;
} py_syms;

static py_syms py_syms_get(void) {
  const TSLanguage *py = tree_sitter_python();
  return (py_syms){tl_ts_symbol(py, "identifier"),
                   tl_ts_symbol(py, "attribute"),
                   tl_ts_symbol(py, "call"),
                   tl_ts_symbol(py, "assignment"),
                   tl_ts_symbol(py, "argument_list"),
                   tl_ts_symbol(py, "function_definition"),
                   tl_ts_symbol(py, "class_definition"),
                   tl_ts_symbol(py, "block"),
                   tl_ts_symbol(py, "expression_statement"),
                   tl_ts_symbol(py, "string"),
                   tl_ts_symbol(py, "parenthesized_expression"),
                   tl_ts_symbol(py, "keyword_argument"),
                   tl_ts_symbol(py, "module"),
                   tl_ts_symbol(py, "comment"),
                   tl_ts_field(py, "object"),
                   tl_ts_field(py, "attribute"),
                   tl_ts_field(py, "left"),
                   tl_ts_field(py, "right"),
                   tl_ts_field(py, "function"),
                   tl_ts_field(py, "arguments"),
                   tl_ts_field(py, "name"),
                   tl_ts_field(py, "body"),
                   tl_ts_field(py, "value")};
}

/* Whether `node` has a child `field: (identifier)` whose text is `want`. */
static bool has_name(TSNode node, TSFieldId field, const char *want,
                     tl_str text, const py_syms *y) {
  bool found = false;
  tl_ts_children ch;
  tl_ts_children_begin(&ch, node, field);
  for (TSNode n; !found && tl_ts_children_next(&ch, y->identifier, &n);)
    found = tl_str_eq_cstr(tl_ts_text(n, text), want);
  tl_ts_children_end(&ch);
  return found;
}

/* Pattern 0: the kernel definition(s) statement `stmt` makes,
 * `k = async_compile.method(args)`. */
static void collect_statement(collected *c, tl_str text, TSNode stmt,
                              const py_syms *y) {
  /* The name `async_compile` is in the statement's text, or no definition
   * is: most statements (the buffers' allocations, the kernels' launches)
   * are passed over without going through their children. */
  static const char object_name[] = "async_compile";
  tl_str t = tl_ts_text(stmt, text);
  if (!t.len || !memmem(t.ptr, t.len, object_name, sizeof object_name - 1))
    return;
  tl_ts_children as;
  tl_ts_children_begin(&as, stmt, 0);
  for (TSNode assign; tl_ts_children_next(&as, y->assignment, &assign);) {
    tl_ts_children ls;
    tl_ts_children_begin(&ls, assign, y->left);
    for (TSNode name; tl_ts_children_next(&ls, y->identifier, &name);) {
      tl_ts_children rs;
      tl_ts_children_begin(&rs, assign, y->right);
      for (TSNode call; tl_ts_children_next(&rs, y->call, &call);) {
        tl_ts_children fs;
        tl_ts_children_begin(&fs, call, y->function);
        for (TSNode fn; tl_ts_children_next(&fs, y->attribute, &fn);) {
          if (!has_name(fn, y->object, object_name, text, y))
            continue;
          tl_ts_children ms;
          tl_ts_children_begin(&ms, fn, y->attribute_field);
          for (TSNode method;
               tl_ts_children_next(&ms, y->identifier, &method);) {
            tl_ts_children gs;
            tl_ts_children_begin(&gs, call, y->arguments);
            for (TSNode args;
                 tl_ts_children_next(&gs, y->argument_list, &args);)
              add_definition(c, text, name, stmt, tl_ts_text(method, text),
                             args);
            tl_ts_children_end(&gs);
          }
          tl_ts_children_end(&ms);
        }
        tl_ts_children_end(&fs);
      }
      tl_ts_children_end(&rs);
    }
    tl_ts_children_end(&ls);
  }
  tl_ts_children_end(&as);
}

/* The entry function `def call` (`fn`), the first one wins. A `def call`
 * parsed in chunks appears in each chunk's tree with the statements of that
 * chunk: the same function (same first byte), its last line the largest. */
static void set_entry(collected *c, TSNode fn) {
  if (c->have_entry && ts_node_start_byte(fn) != c->entry_start)
    return;
  int last = tl_ts_last_line(fn);
  if (!c->have_entry || last > c->entry_last)
    c->entry_last = last;
  c->have_entry = true;
  c->entry_start = ts_node_start_byte(fn);
  c->entry_first = tl_ts_first_line(fn);
}

/* A module-level `name = "..."` or `name = ("...")`: a candidate for the
 * C++ source. */
static void add_module_string(collected *c, tl_str text, TSNode name,
                              TSNode string) {
  cpp_string cs = {.load = false};
  if (!string_body(string, &cs.body))
    return;
  cs.at = ts_node_start_byte(name);
  cs.name = tl_ts_text(name, text);
  TL_VEC_PUSH(c->strings, cs);
}

/* The module-level strings statement `stmt` assigns. */
static void module_strings(collected *c, tl_str text, TSNode stmt,
                           const py_syms *y) {
  tl_ts_children as;
  tl_ts_children_begin(&as, stmt, 0);
  for (TSNode assign; tl_ts_children_next(&as, y->assignment, &assign);) {
    tl_ts_children ls;
    tl_ts_children_begin(&ls, assign, y->left);
    for (TSNode name; tl_ts_children_next(&ls, y->identifier, &name);) {
      tl_ts_children rs;
      tl_ts_children_begin(&rs, assign, y->right);
      for (TSNode right; tl_ts_children_next(&rs, 0, &right);) {
        if (ts_node_symbol(right) == y->string) {
          add_module_string(c, text, name, right);
        } else if (ts_node_symbol(right) == y->parenthesized_expression) {
          tl_ts_children ss;
          tl_ts_children_begin(&ss, right, 0);
          for (TSNode string; tl_ts_children_next(&ss, y->string, &string);)
            add_module_string(c, text, name, string);
          tl_ts_children_end(&ss);
        }
      }
      tl_ts_children_end(&rs);
    }
    tl_ts_children_end(&ls);
  }
  tl_ts_children_end(&as);
}

/* Pattern 1: the module's direct children, in text order: the entry
 * (`def call` at module level or in `class Runner`) and the module-level
 * string assignments. */
static void collect_module(collected *c, tl_str text, TSNode module,
                           const py_syms *y) {
  tl_ts_children ch;
  tl_ts_children_begin(&ch, module, 0);
  for (TSNode n; tl_ts_children_next(&ch, 0, &n);) {
    TSSymbol sym = ts_node_symbol(n);
    if (sym == y->function_definition) {
      if (has_name(n, y->name, "call", text, y))
        set_entry(c, n);
    } else if (sym == y->class_definition) {
      if (!has_name(n, y->name, "Runner", text, y))
        continue;
      tl_ts_children bs;
      tl_ts_children_begin(&bs, n, y->body);
      for (TSNode body; tl_ts_children_next(&bs, y->block, &body);) {
        tl_ts_children fs;
        tl_ts_children_begin(&fs, body, 0);
        for (TSNode fn; tl_ts_children_next(&fs, y->function_definition, &fn);)
          if (has_name(fn, y->name, "call", text, y))
            set_entry(c, fn);
        tl_ts_children_end(&fs);
      }
      tl_ts_children_end(&bs);
    } else if (sym == y->expression_statement) {
      module_strings(c, text, n, y);
    }
  }
  tl_ts_children_end(&ch);
}

/* What `x.load_pybinding(..., main_code=V)` names as the C++ source: a
 * string literal V, or the name V of a module-level string. */
static void add_loads(collected *c, tl_str text, TSNode call, TSNode callee,
                      const py_syms *y) {
  if (ts_node_symbol(callee) != y->attribute ||
      !has_name(callee, y->attribute_field, "load_pybinding", text, y))
    return;
  tl_ts_children gs;
  tl_ts_children_begin(&gs, call, y->arguments);
  for (TSNode args; tl_ts_children_next(&gs, y->argument_list, &args);) {
    tl_ts_children ks;
    tl_ts_children_begin(&ks, args, 0);
    for (TSNode kw; tl_ts_children_next(&ks, y->keyword_argument, &kw);) {
      if (!has_name(kw, y->name, "main_code", text, y))
        continue;
      tl_ts_children vs;
      tl_ts_children_begin(&vs, kw, y->value);
      for (TSNode v; tl_ts_children_next(&vs, 0, &v);) {
        cpp_string cs = {.load = true,
                         .at = ts_node_start_byte(call),
                         .value = ts_node_start_byte(v)};
        if (ts_node_symbol(v) == y->identifier)
          cs.name = tl_ts_text(v, text);
        else if (ts_node_symbol(v) != y->string || !string_body(v, &cs.body))
          continue;
        TL_VEC_PUSH(c->strings, cs);
      }
      tl_ts_children_end(&vs);
    }
    tl_ts_children_end(&ks);
  }
  tl_ts_children_end(&gs);
}

static bool is_identifier(TSNode n, const py_syms *y) {
  return !ts_node_is_null(n) && ts_node_symbol(n) == y->identifier;
}

/* The calls of one `call` node, as the four nested
 * patterns that a flat one replaced found them, in the order they finished
 * (a callee `extern_kernels.run` is both an extern call and a `k.run`
 * launch):
 *   `k(...)`               name k, looked up later
 *   `torch.ops.a.b(...)`   the callee, TL_KERNEL_FALLBACK
 *   `extern_kernels.x(...)` the callee, TL_KERNEL_EXTERN
 *   `k.run(...)`           name k, looked up later */
static void add_calls(collected *c, tl_str text, TSNode call, TSNode callee,
                      const py_syms *y) {
  raw_call r = {.start = ts_node_start_byte(call),
                .end = ts_node_end_byte(call),
                .line = tl_ts_first_line(call),
                .kind = TL_KERNEL_UNKNOWN};
  tl_str callee_text = tl_ts_text(callee, text);
  if (ts_node_symbol(callee) == y->identifier) {
    r.name = callee_text;
    TL_VEC_PUSH(c->calls, r);
    return;
  }
  if (ts_node_symbol(callee) != y->attribute)
    return;
  if (tl_str_starts_with(callee_text, "torch.ops.")) {
    r.name = callee_text;
    r.kind = TL_KERNEL_FALLBACK;
    TL_VEC_PUSH(c->calls, r);
  }
  TSNode object = ts_node_child_by_field_id(callee, y->object);
  if (!is_identifier(object, y))
    return;
  if (tl_str_eq_cstr(tl_ts_text(object, text), "extern_kernels")) {
    r.name = callee_text;
    r.kind = TL_KERNEL_EXTERN;
    TL_VEC_PUSH(c->calls, r);
  }
  TSNode method = ts_node_child_by_field_id(callee, y->attribute_field);
  if (is_identifier(method, y) &&
      tl_str_eq_cstr(tl_ts_text(method, text), "run")) {
    r.name = tl_ts_text(object, text);
    r.kind = TL_KERNEL_UNKNOWN;
    TL_VEC_PUSH(c->calls, r);
  }
}

/* What the analysis reads from each node of the code's tree, by type (the
 * query pycode.scm did this before; compiling it cost 1.6 ms a run):
 *   - expression_statement: a kernel definition, `k = async_compile.
 *     triton('k', \'\'\'...` or `k = async_compile.cpp_pybinding(...)`
 *     (collect_statement);
 *   - module: the entry function (`def call(args):` at module level, or
 *     `def call(self, args):` in `class Runner:`) and the module-level
 *     strings that may hold the C++ of a cpp_wrapper=True module
 *     (collect_module);
 *   - call: launches, kernel calls, `extern_kernels.x(...)`,
 *     `torch.ops...(...)` (add_calls), and the string that
 *     `load_pybinding(..., main_code=...)` compiles (add_loads);
 *   - comment: `# [Provenance debug handles] <key>`;
 *   - function_definition: its extent, so that a handle comment binds only
 *     to a call in the same function. */
typedef struct code_walk {
  collected *c;
  tl_str text;
  py_syms y;
} code_walk;

/* Whether the `(` at `open` may open the arguments of a call that
 * visit_code_node reads: the last byte before it in t[start, open) that is
 * not a space, a line break or a line continuation ends a name (a callee
 * that is a name or an attribute; visit_code_node reads no other call, and
 * a call inside another callee's brackets has a `(` of its own). A
 * tuple's or a parenthesized expression's `(` follows `(`, `,`, `=`, an
 * operator or nothing. */
static bool may_open_arguments(const char *t, size_t start, size_t open) {
  while (open > start) {
    unsigned char b = (unsigned char)t[--open];
    if (b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' ||
        b == '\\')
      continue;
    return b >= 0x80 || b == '_' || (b >= '0' && b <= '9') ||
           (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z');
  }
  return false;
}

/* Whether the walk must go into `n`'s children: only when one of them may be
 * a node visit_code_node acts on. Each of those is or holds a call whose
 * callee is a name, or is a comment: the call's arguments open with a `(`
 * after that name, which may_open_arguments tells from the `(` of a tuple
 * (a function definition's parameters follow its name too), and a comment
 * starts with `#`. So a node whose text has no `#`
 * and no such `(` (an argument list of names, numbers and tuples, a
 * keyword argument, a dotted name) is not gone into: most of a JIT output
 * code's nodes are beneath such nodes. Leaves have no children; a subtree
 * with an error or a missing token is always gone into (a missing `(` is
 * not in the text). */
static bool may_hold_visited(TSNode n, tl_str text) {
  if (ts_node_child_count(n) == 0)
    return false;
  if (ts_node_has_error(n))
    return true;
  tl_str t = tl_ts_text(n, text);
  if (t.len < 2)
    return t.len == 1 && t.ptr[0] == '#';
  size_t start = (size_t)(t.ptr - text.ptr);
  for (const char *open = memchr(t.ptr + 1, '(', t.len - 1); open;
       open = memchr(open + 1, '(', (size_t)(t.ptr + t.len - open - 1)))
    if (may_open_arguments(text.ptr, start, (size_t)(open - text.ptr)))
      return true;
  return memchr(t.ptr, '#', t.len) != NULL;
}

static bool visit_code_node(TSNode n, void *ctx) {
  code_walk *w = ctx;
  collected *c = w->c;
  const py_syms *y = &w->y;
  TSSymbol sym = ts_node_symbol(n);
  if (sym == y->expression_statement) {
    collect_statement(c, w->text, n, y);
  } else if (sym == y->module) {
    collect_module(c, w->text, n, y);
  } else if (sym == y->call) {
    tl_ts_children fs;
    tl_ts_children_begin(&fs, n, y->function);
    for (TSNode callee; tl_ts_children_next(&fs, 0, &callee);) {
      add_calls(c, w->text, n, callee, y);
      add_loads(c, w->text, n, callee, y);
    }
    tl_ts_children_end(&fs);
  } else if (sym == y->comment) {
    tl_str t = tl_ts_text(n, w->text);
    if (!tl_str_starts_with(t, HANDLE_PREFIX))
      return true;
    size_t skip = strlen(HANDLE_PREFIX);
    handle h = {tl_str_trim((tl_str){t.ptr + skip, t.len - skip}),
                {0},
                ts_node_start_byte(n),
                ts_node_end_byte(n)};
    h.name = key_name(h.key);
    if (h.key.len)
      TL_VEC_PUSH(c->handles, h);
  } else if (sym == y->function_definition) {
    span s = {ts_node_start_byte(n), ts_node_end_byte(n), {NULL, 0}, SIZE_MAX};
    TSNode name = ts_node_child_by_field_name(n, "name", 4);
    if (!ts_node_is_null(name))
      s.name = tl_ts_text(name, w->text);
    TL_VEC_PUSH(c->functions, s);
  }
  return may_hold_visited(n, w->text);
}

static void collect(collected *c, TSNode root, tl_str text) {
  code_walk w = {c, text, py_syms_get()};
  tl_ts_walk(root, visit_code_node, &w);
}

/* The C++ wrapper source of a cpp_wrapper=True module: the string that the
 * first `load_pybinding(main_code=...)` gives (a literal, or the last
 * module-level assignment of its name before the call), else the string
 * assigned to `cpp_wrapper_src`. False when there is none. */
static bool cpp_wrapper_source(const collected *c, TSRange *out) {
  const cpp_string *v = c->strings.items, *best = NULL;
  size_t n = c->strings.count, load = n;
  for (size_t i = 0; i < n; i++)
    if (v[i].load && (load == n || v[i].value < v[load].value))
      load = i;
  if (load < n && v[load].name.len == 0) {
    *out = v[load].body;
    return true;
  }
  for (size_t i = 0; i < n; i++) {
    bool named =
        load < n ? tl_str_eq(v[i].name, v[load].name) && v[i].at < v[load].at
                 : tl_str_eq_cstr(v[i].name, "cpp_wrapper_src");
    if (!v[i].load && named && (!best || v[i].at > best->at))
      best = &v[i];
  }
  if (best)
    *out = best->body;
  return best != NULL;
}

/* Inserts `e` into the embedded ranges, kept in line order. */
static void add_embedded(tl_arena *arena, tl_code_analysis *out,
                         tl_embedded e) {
  size_t n = out->embedded_count, at = 0;
  tl_embedded *all = tl_arena_alloc(arena, (n + 2) * sizeof *all);
  while (at < n && out->embedded[at].first <= e.first)
    at++;
  if (at)
    memcpy(all, out->embedded, at * sizeof *all);
  all[at] = e;
  if (n > at)
    memcpy(all + at + 1, out->embedded + at, (n - at) * sizeof *all);
  out->embedded = all;
  out->embedded_count = n + 1;
}

#ifdef HAVE_CPPCODE
static int def_line_cmp_p(const void *a, const void *b) {
  const tl_kernel_def *x = a, *y = b;
  return x->first < y->first ? -1 : x->first > y->first;
}

/* Adds the C++ wrapper's analysis to the Python one: definitions in line
 * order, calls merged in line order, its entry function. The Triton
 * sources of AOT launcher comments (never in JIT code) are not kept: they
 * would lie inside the C++ range. */
static void merge_cpp(tl_arena *arena, tl_code_analysis *out,
                      const tl_code_analysis *cpp) {
  size_t nd = out->def_count + cpp->def_count;
  tl_kernel_def *defs = tl_arena_alloc(arena, (nd + 1) * sizeof *defs);
  if (out->def_count)
    memcpy(defs, out->defs, out->def_count * sizeof *defs);
  if (cpp->def_count)
    memcpy(defs + out->def_count, cpp->defs, cpp->def_count * sizeof *defs);
  tl_sort(defs, nd, sizeof *defs, def_line_cmp_p);
  out->defs = defs;
  out->def_count = nd;
  size_t nc = out->call_count + cpp->call_count, i = 0, j = 0;
  tl_call_site *calls = tl_arena_alloc(arena, (nc + 1) * sizeof *calls);
  for (size_t k = 0; k < nc; k++)
    calls[k] =
        j == cpp->call_count || (i < out->call_count &&
                                 out->calls[i].line <= cpp->calls[j].line)
            ? out->calls[i++]
            : cpp->calls[j++];
  out->calls = calls;
  out->call_count = nc;
  size_t ns = out->scope_count + cpp->scope_count;
  tl_str *scopes = tl_arena_alloc(arena, (ns + 1) * sizeof *scopes);
  if (out->scope_count)
    memcpy(scopes, out->scopes, out->scope_count * sizeof *scopes);
  if (cpp->scope_count)
    memcpy(scopes + out->scope_count, cpp->scopes,
           cpp->scope_count * sizeof *scopes);
  out->scopes = scopes;
  out->scope_count = tl_sort_unique(scopes, ns, sizeof *scopes, tl_str_cmp_p);
  if (cpp->entry_first) {
    out->entry_first = cpp->entry_first;
    out->entry_last = cpp->entry_last;
  }
}
#endif

/* A cpp_wrapper=True module: marks the C++ source embedded and, when the
 * C++ analyzer is built, analyzes it on its range of the text. */
static void add_cpp_wrapper(tl_arena *arena, tl_str text, TSRange src,
                            tl_code_analysis *out) {
  out->cpp_wrapper = true;
  tl_embedded e;
  if (embedded_lines(text, src, "cpp", &e))
    add_embedded(arena, out, e);
#ifdef HAVE_CPPCODE
  tl_code_analysis cpp;
  tl_cppwrapper_analyze(arena, text, src.start_byte, src.end_byte, &cpp);
  merge_cpp(arena, out, &cpp);
#endif
}

/* The pairs [start, end) of `a` and of `b` (each ascending, the two
 * disjoint) in one ascending list. */
static void merge_ranges(const tl_ts_cuts *a, const tl_ts_cuts *b,
                         tl_ts_cuts *out) {
  size_t i = 0, j = 0;
  while (i < a->count || j < b->count) {
    const tl_ts_cuts *from =
        j == b->count || (i < a->count && a->items[i] < b->items[j]) ? a : b;
    size_t *k = from == a ? &i : &j;
    TL_VEC_PUSH(*out, from->items[*k]);
    TL_VEC_PUSH(*out, from->items[*k + 1]);
    *k += 2;
  }
}

void tl_pycode_analyze(tl_arena *arena, tl_str text, tl_code_analysis *out) {
  memset(out, 0, sizeof *out);
  if (!text.ptr || text.len == 0 || text.len > UINT32_MAX)
    return;
  tl_ts_stats_parsed(text.len);
  collected c;
  memset(&c, 0, sizeof c);
  /* One chunk of whole top-level statements at a time; what follows runs
   * once over what all chunks gave. */
  tl_ts_chunker ch;
  tl_ts_chunker_begin(&ch, tree_sitter_python(), text, tl_ts_python_cuts);
  tl_ts_chunker_strict(&ch);
  /* The kernels' sources in their '''...''' strings are about half the
   * bytes of JIT output code, and the walk reads none of them: the parse
   * leaves them out (their ranges come from the quotes, source_range). */
  tl_ts_cuts long_strings = {0}, comments = {0}, skips = {0};
  tl_ts_python_long_strings(text, tl_ts_long_string, &long_strings);
  /* So are the blocks of comments before each kernel (its source nodes,
   * the graph fragment), but for the handle comments the walk reads. */
  tl_ts_python_comment_runs(text, tl_ts_long_string, HANDLE_PREFIX, &comments);
  merge_ranges(&long_strings, &comments, &skips);
  tl_ts_chunker_skip(&ch, skips.items, skips.count / 2);
  TL_VEC_FREE(comments);
  TL_VEC_FREE(skips);
  c.left_out = long_strings.items;
  /* `def call` alone can be most of the code: parse it (and the `with`
   * block in it) a few statements at a time, under its `def` line. */
  tl_ts_chunker_go_into_bodies(&ch, tl_ts_python_body);
  bool restart;
  for (TSTree *tree; (tree = tl_ts_chunker_next(&ch, &restart));) {
    if (restart)
      collected_clear(&c);
    /* A tree parsed with every string whole has no body left out. */
    c.left_out_count = ch.skipped_chunk ? long_strings.count : 0;
    collect(&c, ts_tree_root_node(tree), text);
    ts_tree_delete(tree);
  }
  bool parsed = ch.chunks > 0;
  tl_ts_chunker_end(&ch);
  TL_VEC_FREE(long_strings);
  if (!parsed)
    return;
  tl_pycode_resolve(&c, arena, text, out);

  out->defs = tl_arena_alloc(arena, (c.defs.count + 1) * sizeof *out->defs);
  if (c.defs.count)
    memcpy(out->defs, c.defs.items, c.defs.count * sizeof *out->defs);
  out->def_count = c.defs.count;
  out->calls = tl_arena_alloc(arena, (c.calls.count + 1) * sizeof *out->calls);
  for (size_t i = 0; i < c.calls.count; i++) {
    const span *fn = tl_pycode_function_of(c.functions.items, c.functions.count,
                                           c.calls.items[i].start);
    out->calls[i] = (tl_call_site){c.calls.items[i].name,
                                   c.calls.items[i].kind,
                                   c.calls.items[i].line,
                                   {NULL, 0},
                                   fn ? fn->name : (tl_str){NULL, 0}};
  }
  out->call_count = c.calls.count;
  tl_pycode_bind_handles(&c, out->calls);
  out->embedded =
      tl_arena_alloc(arena, (c.embedded.count + 1) * sizeof *out->embedded);
  if (c.embedded.count)
    memcpy(out->embedded, c.embedded.items,
           c.embedded.count * sizeof *out->embedded);
  out->embedded_count = c.embedded.count;
  if (c.have_entry) {
    out->entry_first = c.entry_first;
    out->entry_last = c.entry_last;
  }
  TSRange src;
  if (cpp_wrapper_source(&c, &src))
    add_cpp_wrapper(arena, text, src, out);
  TL_VEC_FREE(c.strings);
  TL_VEC_FREE(c.defs);
  TL_VEC_FREE(c.calls);
  TL_VEC_FREE(c.handles);
  TL_VEC_FREE(c.functions);
  TL_VEC_FREE(c.embedded);
}
