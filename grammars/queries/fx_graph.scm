; fx_graph.scm: FX graph text as printed by GraphModule.print_readable.
; Used by src/fx_graph.c; the C code keeps only the nodes whose parameters /
; block are the chosen `forward`'s (one directly inside a top-level class,
; else a top-level one), so nested subgraph classes and their `forward`s
; never contribute nodes. Parents are captured, not looked up:
; ts_node_parent is linear in the sibling count.
;
; Patterns 0 and 2 are childless and fx_graph.c reads their parts by field
; (tl_ts_children, ts_query.h): tree-sitter analyzes every step with
; children against the Python parse table when the query compiles (the
; nested patterns they replace took 51 M instructions), a childless
; pattern costs nothing.

; 0: the module; fx_graph.c finds in its direct children
;    - `def forward(...)` directly inside a top-level class:
;      (class_definition body: (block (function_definition name: (identifier)
;      = "forward" parameters: (parameters) body: (block)))),
;    - a top-level `def forward(...)` (graph printed without its class).
(module) @module

; 1: placeholders in the signature (`self` is dropped by the C code).
(parameters
  [(identifier) @param.name
   (typed_parameter . (identifier) @param.name)
   (default_parameter name: (identifier) @param.name)
   (typed_default_parameter name: (identifier) @param.name)]) @param.list

; 2: every block; fx_graph.c reads its statements
;    (expression_statement (assignment left: ...)):
;    `name: "f32[..]" = rhs` and `name = rhs` (left: an identifier); also
;    the export placeholder line `arg2_1: "f32[..]"; arg3_1: "f32[..]"; `
;    (annotation, no value); and `a, b = rhs` (left: a pattern_list or
;    tuple_pattern: multi-target node lines, the export flatten line).
(block) @node.block
