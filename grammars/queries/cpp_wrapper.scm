; cpp_wrapper.scm: what the AOTInductor C++ wrapper analysis (src/cppcode.c)
; extracts from `inductor_aot_wrapper_code`. Capture names are the contract
; with cppcode.c; names are compared whole (never as substrings) in C.

; Every function definition and every `extern "C"` block. cppcode.c reads
; their parts by field (collect_function, collect_linkage), because nested
; patterns are costly to compile: tree-sitter analyzes each step that has
; children against the C++ parse table, 58 to 82 M instructions for each of
; the four function_definition patterns this one replaces, 62 M for the
; linkage one, against nothing for a pattern without children. What they
; matched, and cppcode.c finds:
;   - the entry functions `void AOTInductorModel::run_impl(...) {...}` and
;     `void AOTInductorModel::_const_run_impl(...) {...}` (constant
;     folding), and `void inductor_entry_impl(...) {...}`, the entry of the
;     C++ inside a cpp_wrapper=True JIT module (a Python string,
;     src/pycode.c);
;   - a Triton launcher: `static inline void call_triton_k(...) {...}`,
;     maybe inside `template <...>`; the kernel name is the identifier after
;     `call_` (cppcode.c keeps static ones and those of a Triton kernel
;     name);
;   - the comments directly in a launcher body, which hold its Triton
;     source:
;       /*
;       async_compile.triton('k', '''
;       ...
;       ''', device_str='cuda')
;       */
;   - a CPU kernel declared for the linker: `extern "C"  void cpp_fused_k(...);`
(function_definition) @function

(linkage_specification) @linkage

; Every call; cppcode.c keeps a call by name, (call_expression function:
; [(identifier) (qualified_identifier)]): `call_triton_k(...)`,
; `cpp_fused_k(...)`, `aoti_torch_cuda_mm_out(...)`,
; `at::_ops::mm::call(...)`, and of those the kernel ones and those a
; debug-handle comment names.
(call_expression) @call.expr

; A call by name with its first argument (the first named child: a comment
; there is the first argument, and no match): cppcode.c keeps
;   - a C-shim call checked for its error code,
;     AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_mm_out(buf0, ...)):
;     (call_expression function: (identifier) @callee) with @callee
;     starting `aoti_torch_`;
;   - the pre-launcher CUDA shape, `launchKernel(kernels.k, grid_0, ...)`:
;     (field_expression argument: (identifier) = "kernels" field:
;     (field_identifier) @kernel).
; One pattern for both, the argument read by field in C: 22 M instructions
; to compile, against 88 M for the two nested ones.
(call_expression
  function: (identifier) @first.fn
  arguments: (argument_list
    .
    (_) @first.arg)) @first.call

; `// [Provenance debug handles] <key>` and every other comment.
(comment) @comment
