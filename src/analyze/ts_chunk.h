/* ts_chunk.h: chunked parsing for the analyzers (fx_graph.c, pycode.c,
 * cppcode.c). A long code text is parsed one chunk at a time, so that only
 * one chunk's syntax tree is alive: memory follows the largest top-level
 * definition, not the whole text (a 57 MB AOT wrapper's tree alone was
 * 740 MB). Sits between tree-sitter and the analyzers' queries (ts_query.h);
 * the chunker owns its parser and cuts, the caller each tree it returns.
 */
#ifndef TL_TS_CHUNK_H
#define TL_TS_CHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#include "util/buf.h"

/* A scanner per language lists the offsets where a top-level definition or
 * statement begins; the chunker groups whole definitions into chunks of about
 * tl_ts_chunk_limit bytes and parses each over an included range, so node
 * positions (bytes, rows, columns) stay those of the whole text.
 *
 *   tl_ts_chunker ch;
 *   bool restart;
 *   tl_ts_chunker_begin(&ch, tree_sitter_cpp(), text, tl_ts_cpp_cuts);
 *   for (TSTree *t; (t = tl_ts_chunker_next(&ch, &restart));) {
 *     if (restart) ...forget what earlier chunks gave...
 *     ...run the queries on t, keep bytes and lines, never TSNodes...
 *     ts_tree_delete(t);
 *   }
 *   tl_ts_chunker_end(&ch);
 */
typedef TL_VEC(uint32_t) tl_ts_cuts;

/* Scanners: fill `cuts` with the offsets (ascending, each in (0, len)) where
 * a top-level item of the text begins (C++: after the `;` or `}` that ends
 * the one before; Python: at the start of its line), and return true. They
 * understand only what can hide an item's end: comments, string and character
 * literals, brackets (and for C++ raw strings, preprocessor lines and #if
 * nesting; for Python triple-quoted strings, line continuations and clauses
 * such as `else:` and decorators that continue a statement). When unsure
 * (unbalanced brackets, an unterminated comment or literal, a NUL byte) they
 * return false with no cuts: the caller then parses the text whole, as before.
 * Total: any bytes in, linear time. */
bool tl_ts_cpp_cuts(tl_str text, tl_ts_cuts *cuts);

/* A C++ item whose body the chunker may split: text[start, open] is the
 * item up to its `{` (`namespace torch::aot_inductor {`, `void
 * AOTInductorModel::run_impl(...) {`), with the comments before it;
 * text[head, open] is the same without them; text[close] is the `}`. */
typedef struct tl_ts_body {
  uint32_t start, head, open, close;
} tl_ts_body;
/* For the item text[start, end) (a top-level item, or one inside a body):
 * when it is a namespace, an `extern "C" {}` block or a function
 * definition ending in its body's `}`, fills `body` and sets `cuts` to the
 * places in the body where one member (namespace, block) or statement
 * (function) ends and the next begins, and returns true. False, with no
 * cuts, for any other item, a body with nothing to cut, or when unsure. */
bool tl_ts_cpp_body(tl_str text, uint32_t start, uint32_t end, tl_ts_body *body,
                    tl_ts_cuts *cuts);
/* What tl_ts_cpp_body reads, for any body: when the item text[start, end)
 * ends with the `}` that closes its first `{` outside parentheses, fills
 * `body` and `cuts` (perhaps none: a body of one member or statement) and
 * returns 'f' when the head ends like a function's (`)`, or const,
 * noexcept, override, final: `class S final {` too) or 'n' for a namespace
 * or an `extern "C"` block; 0, with no cuts, for anything else or when
 * unsure. */
char tl_ts_cpp_item_body(tl_str text, uint32_t start, uint32_t end,
                         tl_ts_body *body, tl_ts_cuts *cuts);
bool tl_ts_python_cuts(tl_str text, tl_ts_cuts *cuts);
/* Python: the bodies of the triple-quoted string literals that are neither
 * formatted nor templates (no f or t in their prefix) and hold at least
 * `min` bytes, as pairs [start, end) in `bodies` (after the opening quotes,
 * at the closing ones), ascending: a parse may leave them out
 * (tl_ts_chunker_skip), since tree-sitter makes of such a body one
 * string_content node whatever it holds (the Triton source of a kernel
 * definition). Comments and the other literals are passed over as Python
 * reads them. None at all when a literal is unterminated or the text holds
 * a NUL byte. Linear time. */
void tl_ts_python_long_strings(tl_str text, size_t min, tl_ts_cuts *bodies);
/* Python: the runs of lines that hold only a comment and sit between two
 * logical lines of the same indentation, every comment of the run (and of
 * the gap) at that indentation too, outside brackets, strings and
 * continuations, as pairs [start, end) in `runs` from a run's first `#` to
 * the end of its last line (before the line break), ascending, each at
 * least `min` bytes: a parse may leave them out, since tree-sitter reads no
 * indentation from them there and a comment between two statements bounds
 * no node. A comment line that starts with `keep` (not NULL) is never in a
 * run. None at all when unsure (tl_ts_python_cuts). Linear time. */
void tl_ts_python_comment_runs(tl_str text, size_t min, const char *keep,
                               tl_ts_cuts *runs);
/* The `min` the output code's analysis (pycode.c) passes to both:
 * TL_TS_LONG_STRING_DEFAULT, 256 bytes. Tests set it to 1 to leave every
 * such body and run out, or SIZE_MAX to leave none out. */
extern size_t tl_ts_long_string;
#define TL_TS_LONG_STRING_DEFAULT ((size_t)256)
/* The Python counterpart of tl_ts_cpp_body, for the chunker to go into a
 * large `def`, `class` or `with` statement (the `def call` of output code,
 * and the `with torch.cuda._DeviceGuard(0):` in it), which take no clause
 * after their body: text[start, end) must be whole lines, the last ending in
 * `\n`. body->head is the statement's first line, body->open the `\n`
 * before the body's first statement (so each chunk of the body is parsed
 * after text[head, open + 1), the `def ...:` line), body->close the item's
 * last `\n` (each chunk ends with it), and `cuts` the starts of the body's
 * other statements (not `else:`-like clauses, not a decorated `def`). False
 * for any other item, a tab, form feed or lone \r in the indentation, a
 * dedent, or when unsure. Only for a strict chunker (tl_ts_chunker_strict):
 * the error checks of a non-strict one look for a body's `{`. */
bool tl_ts_python_body(tl_str text, uint32_t start, uint32_t end,
                       tl_ts_body *body, tl_ts_cuts *cuts);
/* An FX graph as print_readable writes it, and only that shape: one
 * top-level `class ...:` whose body is one `def forward(...):`, whose body
 * statements sit at indentation 8 (deeper lines are theirs), then maybe
 * the subgraph classes nested in it, each from a `class ` line at
 * indentation 4. Fills `fwd` (the first body statement's line, the bytes
 * between the parentheses of `forward(...)`, the first nested class's line)
 * and sets `cuts` to the starts of the other statements' lines and of the
 * nested classes' lines. False, with no cuts, for any other shape or when
 * unsure. */
typedef struct tl_ts_forward {
  uint32_t body;                     /* line start of the first statement */
  uint32_t params_start, params_end; /* after `(`, at the matching `)` */
  uint32_t classes; /* line start of the first nested class; 0: none */
} tl_ts_forward;
bool tl_ts_python_forward_cuts(tl_str text, tl_ts_cuts *cuts,
                               tl_ts_forward *fwd);

/* The size a chunk grows to, in bytes: TL_TS_CHUNK_LIMIT_DEFAULT, 32 KiB
 * (tree-sitter needed 20 to 29 MB to parse one 1 MiB chunk, see
 * docs/performance.md). One item larger than this is one chunk. Read when a
 * chunker begins; tests set it small to cut at every item, or SIZE_MAX to
 * parse whole. */
extern size_t tl_ts_chunk_limit;
#define TL_TS_CHUNK_LIMIT_DEFAULT ((size_t)32 << 10)

/* How deep the chunker goes into bodies (a namespace, then a function). */
enum { TL_TS_MAX_NEST = 4 };

/* A body the chunker is inside: every chunk of it is parsed after its head
 * and those of the bodies around it, and before their closing braces. */
typedef struct tl_ts_nest {
  tl_ts_body body;
  /* text[start, open + 1) for the body's first chunk, then text[head,
   * open + 1), so the comments before the item are parsed once; and the
   * closing text[close, close + 1). */
  TSRange first_head, head, tail;
  bool head_used;
  tl_ts_cuts cuts;
  size_t next_cut;
  uint32_t singles_until; /* before this byte, one member per chunk */
} tl_ts_nest;

typedef bool (*tl_ts_body_fn)(tl_str text, uint32_t start, uint32_t end,
                              tl_ts_body *body, tl_ts_cuts *cuts);

typedef struct tl_ts_chunker {
  TSParser *parser; /* owned; reused for every chunk */
  tl_str text;
  tl_ts_cuts cuts; /* none: parse the text whole */
  bool (*scan)(tl_str, tl_ts_cuts *);
  bool scanned; /* cuts hold the scanner's result */
  size_t limit, next_cut;
  uint32_t singles_until; /* top level: before this byte, one item a chunk */
  uint32_t start;         /* the next chunk's first byte and its point */
  TSPoint point;
  TSRange region;  /* the part of the text parsed (all of it by default) */
  TSRange head[2]; /* head every chunk after the first (count 0: none) */
  uint32_t head_count;
  tl_ts_body_fn body_of; /* NULL: never go into an item's body */
  tl_ts_nest nests[TL_TS_MAX_NEST];
  uint32_t depth; /* bodies the next chunk is inside */
  bool strict;    /* any syntax error, not only a top-level one, gives up */
  bool whole, done;
  bool gave_up;             /* a chunk failed: the whole text's tree is final */
  TL_VEC(TSRange) skips;    /* left out of every parse (tl_ts_chunker_skip) */
  const uint32_t *patch_at; /* read differently (tl_ts_chunker_patch) */
  const char *patch_bytes;
  size_t patch_count;
  TL_VEC(TSRange) ranges; /* a parse's included ranges, less the skips */
  size_t chunks;          /* trees returned so far (for tests) */
  size_t since_trim;      /* bytes parsed since the heap was last trimmed */
  /* A nested chunker's forward parameters larger than a chunk, parsed a
   * slice at a time before the body (tl_ts_chunker_begin_nested): the
   * slices' bounds, the next slice, the point of its start, and what every
   * slice is parsed before (the `):` and the body's first statement). */
  tl_ts_cuts param_slices;
  size_t next_slice;
  TSPoint slice_point;
  TSRange slice_tail;
  bool params_chunk; /* the tree returned last is of a parameter slice */
  /* A nested chunker's subgraph classes after the forward's body: their
   * starts, the next one, the point of its start, and the body statement
   * every class is parsed after (so that the forward has a body). */
  tl_ts_cuts classes;
  size_t next_class;
  TSPoint class_point;
  TSRange class_filler;
  uint32_t body_end;  /* where the forward's body chunks end: the first
                         class; 0: the region's end */
  bool class_chunk;   /* the tree returned last is of a subgraph class */
  bool skipped_chunk; /* the tree returned last was parsed less the skips */
  size_t isolated;    /* parses redone one member at a time (for tests) */
  /* Parsing ahead (tl_ts_ahead_from): decided at the first
   * tl_ts_chunker_next; while `ahead` is set, a helper thread owns a copy
   * of this chunker and every field above but the three flags of the tree
   * returned last is stale until the last tree (NULL) or
   * tl_ts_chunker_end. */
  bool ahead_decided;
  struct tl_ts_ahead *ahead;
} tl_ts_chunker;

/* From this many bytes of region on (TL_TS_AHEAD_FROM_DEFAULT, 1 MiB), a
 * chunked text is parsed ahead when the machine has more cores than a
 * view's two analysis threads (code, FX graphs): a helper thread runs the
 * chunker, a few trees ahead of the caller, while the caller reads the
 * trees it was given, so that a single large text's parse and its analysis
 * share the cores. The trees, their order and every flag are those the chunker
 * gives alone (the helper runs the same code); the caller sees no
 * difference but the time. Tests set it to 0 to parse every chunked text
 * ahead, or SIZE_MAX never to. */
extern size_t tl_ts_ahead_from;
#define TL_TS_AHEAD_FROM_DEFAULT ((size_t)1 << 20)

/* Scans `text` with `scan` (unless it fits in one chunk) and prepares the
 * first chunk. */
void tl_ts_chunker_begin(tl_ts_chunker *c, const TSLanguage *lang, tl_str text,
                         bool (*scan)(tl_str, tl_ts_cuts *));
/* As tl_ts_chunker_begin, for the bytes [start, end) of `text` only (a
 * language embedded in another, such as the C++ of a Python string): the
 * scanner sees just those bytes, every chunk and the whole-parse fallback
 * are parsed over included ranges inside them, and node positions stay
 * those of the whole text. `end` past the text is its end. */
void tl_ts_chunker_begin_range(tl_ts_chunker *c, const TSLanguage *lang,
                               tl_str text, uint32_t start, uint32_t end,
                               bool (*scan)(tl_str, tl_ts_cuts *));
/* Lets the chunker go into the body of an item larger than the limit (see
 * tl_ts_cpp_body and tl_ts_python_body), so that a namespace holding most
 * of the text, or one long function such as run_impl or `def call`, is
 * parsed a few statements at a time.
 * Call after tl_ts_chunker_begin. The chunks inside a body give up (parse
 * whole) when any statement or member of it is an ERROR or MISSING node. */
void tl_ts_chunker_go_into_bodies(tl_ts_chunker *c, tl_ts_body_fn body_of);
/* Leaves some function bodies, or whole items, out of every parse, so that
 * what the caller reads nothing from costs nothing to parse (as in
 * tl_ts_cpp_heads, each node keeps its place in the text and a
 * function_definition still spans its body). `skip` holds `pairs` byte
 * ranges [start, end), ascending and disjoint, each the inside of one
 * item's body between its braces, as tl_ts_cpp_item_body gives them
 * (open + 1, close), or whole items as the scanner cuts them; the chunker
 * copies them, drops any that is not so ordered or not in the region, and
 * never goes into a body it leaves out. A chunk of items all left out gives
 * a tree with nothing in it. A chunker that gives up (restart) parses the
 * whole text without them, as it would have had it none; so does a strict
 * chunker whose whole-text parse with them has an error. Also the bodies
 * of long Python string literals (tl_ts_python_long_strings): the string
 * node keeps its quotes, with no string_content between them. Call after
 * tl_ts_chunker_begin_range. */
void tl_ts_chunker_skip(tl_ts_chunker *c, const uint32_t *skip, size_t pairs);
/* Any syntax error in a chunk, not only one at its top level, gives up
 * chunking: the text is then parsed whole. For languages where an error
 * inside an item can make tree-sitter's recovery of the whole text differ
 * from the chunk's (Python: a string closed early leaves statements inside
 * a call's brackets). */
void tl_ts_chunker_strict(tl_ts_chunker *c);
/* Parses the next chunk and returns its tree (the caller deletes it), or
 * NULL when the text is done or tree-sitter refused the language or range.
 * A chunk that does not parse as a run of top-level items (its root or one
 * of its items is an ERROR or MISSING node) makes the chunker give up
 * splitting: it returns the tree of the whole text with *restart set, and
 * the caller forgets what earlier chunks gave.
 *
 * Errors recovered inside an item (AOT wrappers call macros such as
 * CONVERT_EXCEPTION_TO_ERROR_CODE({...}) with no `;`) are kept, but only
 * where tree-sitter kept them inside one item: when an item with an error
 * in a tree (whole text or chunk) spans a place where the scanner says
 * another item begins, recovery has run across items, and how far depends
 * on what follows, hence on where a chunk ends. The chunker then parses
 * those items again one at a time (and, when the straddling is inside a
 * body, that body's members one at a time), so the result is the same
 * whatever the chunk size: an item with an error is always read alone. */
TSTree *tl_ts_chunker_next(tl_ts_chunker *c, bool *restart);
/* Bytes tree-sitter reads differently from the text: the byte at offset
 * at[i] reads as bytes[i], for a text no grammar accepts as it is (an FX
 * graph's `class <lambda>`) without a copy of the text. Each bytes[i] must
 * be ASCII, and so must the byte it replaces; `at` ascending; both arrays
 * live until tl_ts_chunker_end. Call after tl_ts_chunker_begin*. */
void tl_ts_chunker_patch(tl_ts_chunker *c, const uint32_t *at,
                         const char *bytes, size_t count);
/* Python: the offsets in (start, end) where a parameter of the list
 * text[start, end) begins after a comma outside brackets and strings; false,
 * with no cuts, when unsure. */
bool tl_ts_python_param_cuts(tl_str text, uint32_t start, uint32_t end,
                             tl_ts_cuts *cuts);
/* As tl_ts_chunker_begin with the cuts of an FX graph's forward already
 * found (taken over: the chunker frees them): every chunk after the first
 * is parsed after the header lines (`class ...:` and `def forward(...):`
 * with the parameters left out, a signature can be megabytes), so that
 * its statements parse where they sit. Parameters that fill more than a
 * chunk (one per weight of a large model) come first, a slice at a time,
 * each slice between the header's `def forward(` and its `):` and the
 * body's first statement (params_chunk says so: that statement is not the
 * slice's to read); then the body in chunks; then each nested subgraph
 * class (fwd.classes: the cuts from there on) after the header and the
 * body's first statement (class_chunk says so, and that statement is not
 * the chunk's to read either). Such chunks give up on any syntax error. */
void tl_ts_chunker_begin_nested(tl_ts_chunker *c, const TSLanguage *lang,
                                tl_str text, tl_ts_cuts cuts,
                                tl_ts_forward fwd);
void tl_ts_chunker_end(tl_ts_chunker *c);

#endif
