; pycode_triton.scm: the Triton source inside async_compile.triton('k', '''...''')
; re-parsed as Python. Used by src/pycode.c to tell combo kernels apart.
;
; Combo rule: a Triton kernel is a combo kernel when its source dispatches
; sub-kernels on the program id (`if pid < num_xblocks_0:` ... `elif ...`,
; or round-robin `if pid % 2 == 0:` ... `elif ...`), or when its
; inductor_meta carries 'combo_grid_meta'.

; 0: if/elif chain whose condition starts with `pid`.
(if_statement
  condition: (comparison_operator
    . [(identifier) @_pid
       (binary_operator left: (identifier) @_pid)] (#eq? @_pid "pid"))
  alternative: (elif_clause)) @combo.dispatch

; 1: 'combo_grid_meta': {...} in inductor_meta.
(pair
  key: (string (string_content) @_key (#eq? @_key "combo_grid_meta"))) @combo.meta
