; pycode.scm: JIT Python output code (the `inductor_output_code` payload).
; Used by src/pycode.c, which dispatches on the pattern index.

; 0: a kernel definition, e.g.
;    triton_poi_fused_mul_1 = async_compile.triton('triton_poi_fused_mul_1', '''
;    cpp_fused_gelu_1 = async_compile.cpp_pybinding(['float*'], '''
(expression_statement
  (assignment
    left: (identifier) @kernel.name
    right: (call
      function: (attribute
        object: (identifier) @_ac (#eq? @_ac "async_compile")
        attribute: (identifier) @kernel.method)
      arguments: (argument_list) @kernel.args))) @kernel.def

; 1: the entry function `def call(args):` at module level.
(module
  (function_definition
    name: (identifier) @_call (#eq? @_call "call")) @entry)

; 2: newer wrappers: `class Runner:` ... `def call(self, args):`.
(module
  (class_definition
    name: (identifier) @_runner (#eq? @_runner "Runner")
    body: (block
      (function_definition
        name: (identifier) @_call (#eq? @_call "call")) @entry)))

; 3: every call by its callee, which src/pycode.c sorts into
;   `k.run(...)`: a Triton launch (k must be a known kernel name),
;   `k(...)`: a C++ kernel call (k must be a known kernel name),
;   `extern_kernels.mm(...)`,
;   `torch.ops.aten.view.default(...)`, `torch.ops.higher_order.x(...)`
;   (the callee is one attribute chain rooted at `torch.ops`).
; One flat pattern, not one per shape: tree-sitter analyzes every `call`
; and `attribute` step at compile time (about 10 M instructions each), so
; four patterns cost 59 M and this one 8 M.
(call
  function: (_) @call.callee) @call

; 4: `# [Provenance debug handles] triton_poi_fused_mul_1:2`
((comment) @handle (#prefix? @handle "# [Provenance debug handles] "))

; 5: every function, so that a handle comment binds only to a call in the
; same function.
(function_definition) @function

; 6: a module-level string assignment, the candidates for the C++ source of
; a cpp_wrapper=True module:
;    cpp_wrapper_src = (
;    r"""
;    #include <torch/csrc/inductor/cpp_wrapper/cpu.h>
;    ...
;    """
;    )
(module
  (expression_statement
    (assignment
      left: (identifier) @source.name
      right: [
        (string) @source.string
        (parenthesized_expression (string) @source.string)
      ])))

; 7: the string that CppWrapperCodeCache.load_pybinding compiles as the
; wrapper: `main_code=cpp_wrapper_src` (a name of pattern 6) or the literal.
(call
  function: (attribute
    attribute: (identifier) @_load (#eq? @_load "load_pybinding"))
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @_main (#eq? @_main "main_code")
      value: [
        (identifier) @source.ref
        (string) @source.string
      ]))) @source.load
