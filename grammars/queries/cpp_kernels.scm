; cpp_kernels.scm: the `cpp_fused_*` definitions of the AOTInductor
; kernel-code artifact (`inductor_aot_kernel_code`, src/cppcode.c):
;   extern "C"  void cpp_fused_gelu_1(float* in_out_ptr0)
;   { ... }
(function_definition
  declarator: (function_declarator
    declarator: (identifier) @kernel.name)) @kernel.def
