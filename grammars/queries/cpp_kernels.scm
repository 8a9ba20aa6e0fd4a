; cpp_kernels.scm: the `cpp_fused_*` definitions of the AOTInductor
; kernel-code artifact (`inductor_aot_kernel_code`, src/cppcode.c):
;   extern "C"  void cpp_fused_gelu_1(float* in_out_ptr0)
;   { ... }
; cppcode.c keeps those whose declarator is `name(...)` (function_name): a
; pattern without children compiles at no cost, where the nested
; `declarator: (function_declarator declarator: (identifier))` took 58 M
; instructions.
(function_definition) @kernel.def
