; fx_graph.scm: FX graph text as printed by GraphModule.print_readable.
; Used by src/fx_graph.c; the C code keeps only captures whose @param.list /
; @node.block is the chosen `forward`'s (pattern 0, else pattern 1), so nested
; subgraph classes and their `forward`s never contribute nodes. Parents are
; captured, not looked up: ts_node_parent is linear in the sibling count.

; 0: `def forward(...)` directly inside a top-level class.
(module
  (class_definition
    body: (block
      (function_definition
        name: (identifier) @_fwd (#eq? @_fwd "forward")
        parameters: (parameters) @forward.params
        body: (block) @forward.body) @forward.def)))

; 1: a top-level `def forward(...)` (graph printed without its class).
(module
  (function_definition
    name: (identifier) @_fwd (#eq? @_fwd "forward")
    parameters: (parameters) @forward.params
    body: (block) @forward.body) @forward.def)

; 2: placeholders in the signature (`self` is dropped by the C code).
(parameters
  [(identifier) @param.name
   (typed_parameter . (identifier) @param.name)
   (default_parameter name: (identifier) @param.name)
   (typed_default_parameter name: (identifier) @param.name)]) @param.list

; 3: `name: "f32[..]" = rhs` and `name = rhs` (@node.name); also the export
; placeholder line `arg2_1: "f32[..]"; arg3_1: "f32[..]"; ` (annotation, no
; value); and `a, b = rhs` (@node.targets: multi-target node lines, the export
; flatten line). One pattern, not two: tree-sitter analyzes each pattern's
; `block` and `expression_statement` steps at compile time (about 29 M
; instructions for this one), so the alternation halves the query's cost.
(block
  (expression_statement
    (assignment
      left: [(identifier) @node.name
             (pattern_list) @node.targets
             (tuple_pattern) @node.targets]) @node.assign) @node.stmt) @node.block
