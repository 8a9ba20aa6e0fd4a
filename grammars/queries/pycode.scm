; pycode.scm: JIT Python output code (the `inductor_output_code` payload).
; Used by src/pycode.c, which dispatches on the pattern index.
;
; The patterns are childless and pycode.c reads their parts by field
; (tl_ts_children, ts_query.h): tree-sitter analyzes every step with
; children against the Python parse table when the query compiles, 10 to
; 36 M instructions for each nested pattern this query had (170 M in all),
; and a childless pattern costs nothing. The comments say what each one
; stands for.

; 0: every expression statement; pycode.c keeps a kernel definition,
;    (expression_statement (assignment left: (identifier) right: (call
;    function: (attribute object: (identifier) = "async_compile"
;    attribute: (identifier)) arguments: (argument_list)))), e.g.
;    triton_poi_fused_mul_1 = async_compile.triton('triton_poi_fused_mul_1', '''
;    cpp_fused_gelu_1 = async_compile.cpp_pybinding(['float*'], '''
(expression_statement) @statement

; 1: the module; pycode.c reads its direct children:
;    - the entry function `def call(args):` at module level, or in newer
;      wrappers `class Runner:` ... `def call(self, args):`;
;    - a module-level string assignment, the candidates for the C++ source
;      of a cpp_wrapper=True module, (expression_statement (assignment
;      left: (identifier) right: [(string) (parenthesized_expression
;      (string))])):
;        cpp_wrapper_src = (
;        r"""
;        #include <torch/csrc/inductor/cpp_wrapper/cpu.h>
;        ...
;        """
;        )
(module) @module

; 2: every call; pycode.c sorts them by their callee (`function:`):
;   `k.run(...)`: a Triton launch (k must be a known kernel name),
;   `k(...)`: a C++ kernel call (k must be a known kernel name),
;   `extern_kernels.mm(...)`,
;   `torch.ops.aten.view.default(...)`, `torch.ops.higher_order.x(...)`
;   (the callee is one attribute chain rooted at `torch.ops`);
; and keeps the string that CppWrapperCodeCache.load_pybinding compiles as
; the wrapper: `x.load_pybinding(..., main_code=cpp_wrapper_src)` (a name
; of pattern 1) or the literal.
(call) @call

; 3: `# [Provenance debug handles] triton_poi_fused_mul_1:2`
((comment) @handle (#prefix? @handle "# [Provenance debug handles] "))

; 4: every function, so that a handle comment binds only to a call in the
; same function.
(function_definition) @function
