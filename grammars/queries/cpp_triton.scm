; cpp_triton.scm (Python grammar): the Triton source a launcher carries in
; its comment, parsed from the comment's interior (src/cppcode.c):
;   async_compile.triton('triton_poi_fused_mul_1', '''
;   ...
;   ''', device_str='cuda')
(call
  function: (attribute
    object: (identifier) @triton.object
    attribute: (identifier) @triton.method)
  arguments: (argument_list
    .
    (string
      (string_content) @triton.name)
    .
    (string) @triton.source)
  (#eq? @triton.object "async_compile")
  (#eq? @triton.method "triton"))

; Inside that source, re-parsed (the same rule as pycode_triton.scm): a
; combo kernel dispatches its sub-kernels on the program id,
; `if pid < num_xblocks_0:` ... `elif ...` (or round-robin `if pid % 2 == 0:`
; ... `elif ...`), or its inductor_meta carries 'combo_grid_meta'.
(if_statement
  condition: (comparison_operator
    .
    [(identifier) @combo.pid
     (binary_operator
       left: (identifier) @combo.pid)]
    (#eq? @combo.pid "pid"))
  alternative: (elif_clause)) @combo.dispatch

(pair
  key: (string
    (string_content) @combo.key
    (#eq? @combo.key "combo_grid_meta"))) @combo.meta
