; cpp_wrapper.scm: what the AOTInductor C++ wrapper analysis (src/cppcode.c)
; extracts from `inductor_aot_wrapper_code`. Capture names are the contract
; with cppcode.c; names are compared whole (never as substrings) in C.

; The entry functions: `void AOTInductorModel::run_impl(...) {...}` and
; `void AOTInductorModel::_const_run_impl(...) {...}` (constant folding).
(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      name: (identifier) @entry.name))
  body: (compound_statement) @entry.body
  (#any-of? @entry.name "run_impl" "_const_run_impl"))

; The entry of the C++ inside a cpp_wrapper=True JIT module (a Python
; string, src/pycode.c): `void inductor_entry_impl(...) {...}`.
(function_definition
  declarator: (function_declarator
    declarator: (identifier) @entry.name)
  body: (compound_statement) @entry.body
  (#eq? @entry.name "inductor_entry_impl"))

; A Triton launcher: `static inline void call_triton_k(...) {...}`, maybe
; inside `template <...>`; the kernel name is the identifier after `call_`
; (cppcode.c keeps static ones and those of a Triton kernel name).
(function_definition
  declarator: (function_declarator
    declarator: (identifier) @launcher.name)
  (#prefix? @launcher.name "call_")) @launcher.def

; The comment inside a launcher body that holds its Triton source:
;   /*
;   async_compile.triton('k', '''
;   ...
;   ''', device_str='cuda')
;   */
(function_definition
  declarator: (function_declarator
    declarator: (identifier) @source.launcher)
  body: (compound_statement
    (comment) @source.comment)
  (#prefix? @source.launcher "call_"))

; A CPU kernel declared for the linker: `extern "C"  void cpp_fused_k(...);`
(linkage_specification
  body: (declaration
    declarator: (function_declarator
      declarator: (identifier) @decl.name))) @decl.def

; A call by name: `call_triton_k(...)`, `cpp_fused_k(...)`,
; `aoti_torch_cuda_mm_out(...)`, `at::_ops::mm::call(...)`; cppcode.c keeps
; the kernel ones and those a debug-handle comment names.
(call_expression
  function: [
    (identifier)
    (qualified_identifier)
  ] @call.callee) @call.expr

; A C-shim call checked for its error code:
;   AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_mm_out(buf0, ...));
(call_expression
  function: (identifier) @shim.macro
  arguments: (argument_list
    .
    (call_expression
      function: (identifier) @shim.callee) @shim.expr)
  (#eq? @shim.macro "AOTI_TORCH_ERROR_CODE_CHECK")
  (#prefix? @shim.callee "aoti_torch_"))

; The pre-launcher CUDA shape: `launchKernel(kernels.k, grid_0, ...)`.
(call_expression
  function: (identifier) @launch.fn
  arguments: (argument_list
    .
    (field_expression
      argument: (identifier) @launch.object
      field: (field_identifier) @launch.kernel))
  (#eq? @launch.fn "launchKernel")
  (#eq? @launch.object "kernels")) @launch.expr

; `// [Provenance debug handles] <key>` and every other comment.
(comment) @comment
