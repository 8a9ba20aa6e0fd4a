/* json_serde.c: JSON re-written as serde_json writes a Value (json_serde.h).
 * yajl's callbacks build a flat tree of nodes (children linked by index);
 * the writer walks it with an explicit stack, sorting each object's keys. */
#include "json/json_serde.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "util/utf8.h"
#include "json/json_number.h"

/* No node: the end of a list, or no parent. */
static const size_t NO_NODE = SIZE_MAX;

typedef enum node_type {
  NODE_NULL,
  NODE_TRUE,
  NODE_FALSE,
  NODE_NUMBER, /* text: the literal */
  NODE_STRING, /* text: the decoded bytes */
  NODE_ARRAY,
  NODE_OBJECT,
  NODE_RAW /* an extra member's value, written as it is */
} node_type;

typedef struct node {
  node_type type;
  size_t text, text_len; /* where: at() */
  size_t key, key_len;   /* object members only */
  size_t first, last, next, count;
} node;

typedef struct tree {
  TL_VEC(node) nodes;
  tl_buf bytes;
  /* The text parsed (valid UTF-8): a string without escapes, a key or a
   * number that yajl hands over from within it is used where it is, not
   * copied into `bytes` (FROM_INPUT marks such an offset). */
  uintptr_t input_begin, input_end;
  TL_VEC(size_t) open; /* containers not yet ended */
  bool have_key;
  size_t key, key_len;
  size_t root;
  bool too_deep;   /* nesting past SERDE_MAX_DEPTH: refused as serde refuses */
  size_t repaired; /* decoded strings' invalid sequences made U+FFFD */
  /* The bytes the pretty layout adds to the compact form (newlines,
   * indents, the space after each ':'), counted as nodes are added, at
   * most (a repeated key's member is counted, then dropped); its indent
   * starts at base_depth. */
  size_t layout;
  int base_depth;
} tree;

/* serde_json's recursion limit: it refuses the 128th nested array or object
 * (checked with tlparse 0.4.3, whose JSON artifact is then written as it
 * was). It also bounds the pretty form, whose indent grows with depth. */
enum { SERDE_MAX_DEPTH = 127 };

enum { FROM_INPUT_BIT = sizeof(size_t) * 8 - 1 };
#define FROM_INPUT ((size_t)1 << FROM_INPUT_BIT)

static bool in_input(const tree *t, const void *data, size_t len) {
  uintptr_t p = (uintptr_t)data;
  return t->input_begin && p >= t->input_begin && p <= t->input_end &&
         len <= t->input_end - p;
}

/* The bytes at a node's text or key offset. */
static const char *text_at(const tree *t, size_t offset) {
  return offset & FROM_INPUT
             ? (const char *)(t->input_begin + (offset & ~FROM_INPUT))
             : t->bytes.data + offset;
}

static size_t keep_bytes(tree *t, const void *data, size_t len) {
  if (in_input(t, data, len))
    return FROM_INPUT | (size_t)((uintptr_t)data - t->input_begin);
  size_t at = t->bytes.len;
  tl_buf_append(&t->bytes, data, len);
  return at;
}

/* A decoded string or key, kept valid UTF-8 whatever the decoder made of
 * an escape (lone surrogates are rewritten before parsing:
 * replace_lone_surrogates); an invalid sequence becomes U+FFFD, counted.
 * *len becomes the length kept. */
static size_t keep_text(tree *t, const unsigned char *data, size_t *len) {
  /* A run of the valid text between two quotes is valid itself. */
  if (in_input(t, data, *len))
    return keep_bytes(t, data, *len);
  tl_str text = {(const char *)data, *len};
  if (tl_utf8_valid_prefix(text) == text.len)
    return keep_bytes(t, data, *len);
  size_t at = t->bytes.len;
  t->repaired += tl_utf8_repair(&t->bytes, text);
  *len = t->bytes.len - at;
  return at;
}

static int add_node(tree *t, node_type type, const void *text, size_t len) {
  if ((type == NODE_ARRAY || type == NODE_OBJECT) &&
      t->open.count >= SERDE_MAX_DEPTH) {
    t->too_deep = true;
    return 0; /* cancels the parse */
  }
  node n = {type, 0, len, 0, 0, NO_NODE, NO_NODE, NO_NODE, 0};
  if (text)
    n.text = keep_bytes(t, text, len);
  if (t->open.count) /* its line: a newline and the indent, ": " */
    t->layout += 1 + 2 * ((size_t)t->base_depth + t->open.count) + t->have_key;
  if (t->have_key) {
    n.key = t->key;
    n.key_len = t->key_len;
    t->have_key = false;
  }
  size_t index = t->nodes.count;
  TL_VEC_PUSH(t->nodes, n);
  if (t->open.count) {
    node *parent = &t->nodes.items[t->open.items[t->open.count - 1]];
    if (parent->last == NO_NODE)
      parent->first = index;
    else
      t->nodes.items[parent->last].next = index;
    parent->last = index;
    parent->count++;
  } else {
    t->root = index;
  }
  if (type == NODE_ARRAY || type == NODE_OBJECT)
    TL_VEC_PUSH(t->open, index);
  return 1;
}

static int on_null(void *ctx) { return add_node(ctx, NODE_NULL, NULL, 0); }

static int on_boolean(void *ctx, int value) {
  return add_node(ctx, value ? NODE_TRUE : NODE_FALSE, NULL, 0);
}

static int on_number(void *ctx, const char *text, size_t len) {
  return add_node(ctx, NODE_NUMBER, text, len);
}

static int on_string(void *ctx, const unsigned char *text, size_t len) {
  tree *t = ctx;
  size_t at = keep_text(t, text, &len);
  if (!add_node(t, NODE_STRING, NULL, 0))
    return 0;
  node *n = &t->nodes.items[t->nodes.count - 1];
  n->text = at;
  n->text_len = len;
  return 1;
}

static int on_start_map(void *ctx) {
  return add_node(ctx, NODE_OBJECT, NULL, 0);
}

static int on_key(void *ctx, const unsigned char *text, size_t len) {
  tree *t = ctx;
  t->key = keep_text(t, text, &len);
  t->key_len = len;
  t->have_key = true;
  return 1;
}

static int on_end(void *ctx) {
  tree *t = ctx;
  t->open.count--;
  if (t->nodes.items[t->open.items[t->open.count]].count) /* its own line */
    t->layout += 1 + 2 * ((size_t)t->base_depth + t->open.count);
  return 1;
}

static int on_start_array(void *ctx) {
  return add_node(ctx, NODE_ARRAY, NULL, 0);
}

static const yajl_callbacks CALLBACKS = {
    on_null,      on_boolean, NULL,   NULL,           on_number, on_string,
    on_start_map, on_key,     on_end, on_start_array, on_end};

/* Whether any of the 8 bytes at `p` is below 0x20, '"' or '\\' (the
 * bit tricks of "Bit Twiddling Hacks": a byte's high bit is set in
 * has_zero(x) when that byte of x is 0, in below(x, n) when it is below n;
 * bytes of 0x80 and up never count). */
static bool needs_escape_in_word(const char *p) {
  uint64_t w;
  memcpy(&w, p, sizeof w);
  const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  uint64_t quote = w ^ (ones * '"'), backslash = w ^ (ones * '\\');
  uint64_t below_space = (w - ones * 0x20) & ~w;
  uint64_t zero_quote = (quote - ones) & ~quote;
  uint64_t zero_backslash = (backslash - ones) & ~backslash;
  return ((below_space | zero_quote | zero_backslash) & highs) != 0;
}

void tl_json_serde_string(tl_buf *out, tl_str s) {
  static const char hex[] = "0123456789abcdef";
  /* Room for the usual case (nothing escaped) at once, not as it grows. */
  tl_buf_reserve(out, s.len + 2);
  tl_buf_putc(out, '"');
  size_t run = 0; /* bytes copied as they are, pending */
  for (size_t i = 0; i < s.len; i++) {
    /* Eight bytes at a time while none needs escaping (no byte below
     * 0x20, no '"', no '\\'): the usual case of long strings. */
    while (i + 8 <= s.len && !needs_escape_in_word(s.ptr + i)) {
      i += 8;
      run += 8;
    }
    if (i >= s.len)
      break;
    unsigned char c = (unsigned char)s.ptr[i];
    if (c >= 0x20 && c != '"' && c != '\\') {
      run++;
      continue;
    }
    tl_buf_append(out, s.ptr + i - run, run);
    run = 0;
    char escape[6] = {'\\', 0};
    size_t escape_len = 2;
    switch (c) {
    case '"':
    case '\\':
      escape[1] = (char)c;
      break;
    case '\b':
      escape[1] = 'b';
      break;
    case '\f':
      escape[1] = 'f';
      break;
    case '\n':
      escape[1] = 'n';
      break;
    case '\r':
      escape[1] = 'r';
      break;
    case '\t':
      escape[1] = 't';
      break;
    default:
      memcpy(escape + 1, "u00", 3);
      escape[4] = hex[c >> 4];
      escape[5] = hex[c & 15];
      escape_len = 6;
    }
    tl_buf_append(out, escape, escape_len);
  }
  tl_buf_append(out, s.ptr + s.len - run, run);
  tl_buf_putc(out, '"');
}

typedef struct member_order {
  tl_str key;
  size_t node;
} member_order;

static int compare_members(const void *a, const void *b) {
  const member_order *x = a, *y = b;
  size_t n = x->key.len < y->key.len ? x->key.len : y->key.len;
  int c = memcmp(x->key.ptr, y->key.ptr, n);
  if (c)
    return c;
  if (x->key.len != y->key.len)
    return x->key.len < y->key.len ? -1 : 1;
  return x->node < y->node ? -1 : x->node > y->node;
}

static tl_str node_key(const tree *t, const node *n) {
  return (tl_str){text_at(t, n->key), n->key_len};
}

/* Children of a container of at most this many are ordered in the frame's
 * own array and sorted in place: no allocation for the usual small object
 * (an event, an envelope). */
enum { SMALL_CONTAINER = 16 };

/* The children of a container in the order they are written: an object's
 * sorted by key, a repeated key keeping only its last member. `small` holds
 * SMALL_CONTAINER entries; the order is there when it fits, else in a new
 * array (the caller frees the result when it is not `small`). */
static size_t *child_order(const tree *t, const node *n, size_t *count,
                           size_t *small) {
  size_t *order = n->count <= SMALL_CONTAINER
                      ? small
                      : tl_xmalloc(n->count * sizeof *order);
  if (n->type == NODE_ARRAY) {
    size_t k = 0;
    for (size_t c = n->first; c != NO_NODE; c = t->nodes.items[c].next)
      order[k++] = c;
    *count = k;
    return order;
  }
  member_order few[SMALL_CONTAINER];
  member_order *members = n->count <= SMALL_CONTAINER
                              ? few
                              : tl_xmalloc(n->count * sizeof *members);
  size_t k = 0;
  for (size_t c = n->first; c != NO_NODE; c = t->nodes.items[c].next)
    members[k++] = (member_order){node_key(t, &t->nodes.items[c]), c};
  if (k <= SMALL_CONTAINER) { /* insertion sort: the same total order */
    for (size_t i = 1; i < k; i++) {
      member_order m = members[i];
      size_t j = i;
      for (; j && compare_members(&members[j - 1], &m) > 0; j--)
        members[j] = members[j - 1];
      members[j] = m;
    }
  } else {
    qsort(members, k, sizeof *members, compare_members);
  }
  size_t kept = 0;
  for (size_t i = 0; i < k; i++) {
    bool repeated = i + 1 < k && members[i].key.len == members[i + 1].key.len &&
                    memcmp(members[i].key.ptr, members[i + 1].key.ptr,
                           members[i].key.len) == 0;
    if (!repeated)
      order[kept++] = members[i].node;
  }
  if (members != few)
    free(members);
  *count = kept;
  return order;
}

typedef struct frame {
  size_t node;
  size_t *order; /* an array of its own, or NULL: in `small` */
  size_t count, pos;
  size_t small[SMALL_CONTAINER];
} frame;

/* A string or key of the tree, quoted: one the parser handed over from
 * within the text needs no escaping (it held no escape, and yajl refuses a
 * raw control character inside a string), so it is copied as it is. */
static void put_text_string(tl_buf *out, const tree *t, size_t offset,
                            size_t len) {
  if (!(offset & FROM_INPUT)) {
    tl_json_serde_string(out, (tl_str){text_at(t, offset), len});
    return;
  }
  tl_buf_reserve(out, len + 2);
  tl_buf_putc(out, '"');
  tl_buf_append(out, text_at(t, offset), len);
  tl_buf_putc(out, '"');
}

static void newline_indent(tl_buf *out, int level) {
  static const char spaces[] = "                                ";
  tl_buf_putc(out, '\n');
  for (size_t width = 2 * (size_t)level; width;) {
    size_t piece = width < sizeof spaces - 1 ? width : sizeof spaces - 1;
    tl_buf_append(out, spaces, piece);
    width -= piece;
  }
}

static void write_tree(tl_buf *out, const tree *t,
                       const tl_json_serde_options *o) {
  TL_VEC(frame) stack = {0};
  size_t next = t->root;
  for (;;) {
    if (next != NO_NODE) {
      const node *n = &t->nodes.items[next];
      tl_str text = {text_at(t, n->text), n->text_len};
      switch (n->type) {
      case NODE_NULL:
        tl_buf_puts(out, "null");
        break;
      case NODE_TRUE:
        tl_buf_puts(out, "true");
        break;
      case NODE_FALSE:
        tl_buf_puts(out, "false");
        break;
      case NODE_NUMBER:
        tl_json_number(out, text);
        break;
      case NODE_STRING:
        put_text_string(out, t, n->text, n->text_len);
        break;
      case NODE_RAW:
        tl_buf_append_str(out, text);
        break;
      case NODE_ARRAY:
      case NODE_OBJECT: {
        TL_VEC_PUSH(stack, ((frame){next, NULL, 0, 0, {0}}));
        frame *f = &stack.items[stack.count - 1];
        f->order = child_order(t, n, &f->count, f->small);
        if (f->order == f->small) /* the stack may move: kept by place */
          f->order = NULL;
        tl_buf_putc(out, n->type == NODE_ARRAY ? '[' : '{');
        break;
      }
      }
      next = NO_NODE;
    }
    if (!stack.count)
      break;
    frame *f = &stack.items[stack.count - 1];
    const node *container = &t->nodes.items[f->node];
    int level = o->depth + (int)stack.count;
    if (f->pos < f->count) {
      size_t child = (f->order ? f->order : f->small)[f->pos];
      if (f->pos)
        tl_buf_putc(out, ',');
      if (o->pretty)
        newline_indent(out, level);
      if (container->type == NODE_OBJECT) {
        const node *member = &t->nodes.items[child];
        put_text_string(out, t, member->key, member->key_len);
        tl_buf_puts(out, o->pretty ? ": " : ":");
      }
      f->pos++;
      next = child;
      continue;
    }
    if (o->pretty && f->count)
      newline_indent(out, level - 1);
    tl_buf_putc(out, container->type == NODE_ARRAY ? ']' : '}');
    free(f->order);
    stack.count--;
  }
  TL_VEC_FREE(stack);
}

static void tree_free(tree *t) {
  TL_VEC_FREE(t->nodes);
  TL_VEC_FREE(t->open);
  tl_buf_free(&t->bytes);
}

/* Per thread: the buffers of its last tree, when they took at most
 * SPARE_BYTES together, for its next tree. A run re-writes an envelope, an
 * event or an artifact per record, and each tree's buffers are about the
 * size of its text: allocated and freed every time, they went through the
 * arena's bins, its lock (the sink's thread and the reading thread both
 * write JSON) and its trims, a fifth of the wall time of a log of small
 * records. The bound keeps a run's spares small on a machine with a
 * worker per core (32 MiB on 128 cores). Freed when the thread ends. */
enum { SPARE_BYTES = 256 << 10 };
static _Thread_local tree *spare;
static pthread_key_t spare_key; /* only for its destructor, free_spare */
static pthread_once_t spare_once = PTHREAD_ONCE_INIT;
static int spare_key_made = -1; /* pthread_key_create's result */

static size_t tree_bytes(const tree *t) {
  return t->bytes.cap + t->nodes.cap * sizeof *t->nodes.items +
         t->open.cap * sizeof *t->open.items;
}

static void free_spare(void *arg) {
  tree_free(arg);
  free(arg);
  spare = NULL;
}

static void make_spare_key(void) {
  spare_key_made = pthread_key_create(&spare_key, free_spare);
}

/* Gives `t` this thread's spare buffers, emptied, or new ones. */
static void take_spare(tree *t) {
  if (spare && spare->bytes.data) {
    t->nodes = spare->nodes;
    t->open = spare->open;
    t->bytes = spare->bytes;
    t->nodes.count = t->open.count = 0;
    tl_buf_clear(&t->bytes);
    *spare = (tree){0};
    return;
  }
  tl_buf_init(&t->bytes);
}

/* Keeps `t`'s buffers as this thread's spare when they are small enough,
 * else frees them. */
static void keep_spare(tree *t) {
  bool small = tree_bytes(t) <= SPARE_BYTES;
  if (!spare && small) {
    (void)pthread_once(&spare_once, make_spare_key);
    tree *made = spare_key_made == 0 ? calloc(1, sizeof *made) : NULL;
    if (made && pthread_setspecific(spare_key, made) == 0)
      spare = made;
    else
      free(made);
  }
  if (spare && !spare->bytes.data && small) {
    spare->nodes = t->nodes;
    spare->open = t->open;
    spare->bytes = t->bytes;
    *t = (tree){0};
    return;
  }
  tree_free(t);
}

/* Adds the extra members to the root object; false (with the key in
 * `error`) when one is already there. */
static tl_json_serde_status add_extra(tree *t, const tl_json_serde_options *o,
                                      char *error, size_t error_size) {
  if (!o->extra_count)
    return TL_JSON_SERDE_OK;
  if (t->nodes.items[t->root].type != NODE_OBJECT)
    return TL_JSON_SERDE_NOT_OBJECT;
  for (size_t i = 0; i < o->extra_count; i++) {
    size_t key_len = strlen(o->extra[i].key);
    const node *root = &t->nodes.items[t->root];
    for (size_t c = root->first; c != NO_NODE; c = t->nodes.items[c].next) {
      tl_str key = node_key(t, &t->nodes.items[c]);
      if (key.len == key_len &&
          memcmp(key.ptr, o->extra[i].key, key_len) == 0) {
        if (error)
          snprintf(error, error_size, "%s", o->extra[i].key);
        return TL_JSON_SERDE_KEY_CONFLICT;
      }
    }
  }
  TL_VEC_PUSH(t->open, t->root);
  for (size_t i = 0; i < o->extra_count; i++) {
    on_key(t, (const unsigned char *)o->extra[i].key, strlen(o->extra[i].key));
    add_node(t, NODE_RAW, o->extra[i].value.ptr, o->extra[i].value.len);
  }
  t->open.count--;
  return TL_JSON_SERDE_OK;
}

size_t tl_json_layout_limit(size_t len) { return 12 * len + 4096; }

static int hex4(const char *p) {
  int v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0)
      return -1;
    v = v * 16 + d;
  }
  return v;
}

/* Whether a backslash followed by 'u' is anywhere in the text, inside a
 * string or not: where replace_lone_surrogates could rewrite anything. */
static bool has_backslash_u(tl_str text) {
  const char *p = text.ptr, *end = text.ptr + text.len;
  while (p < end && (p = memchr(p, '\\', (size_t)(end - p))) != NULL) {
    if (p + 1 < end && p[1] == 'u')
      return true;
    p++;
  }
  return false;
}

/* Rewrites each lone surrogate escape inside the strings of a JSON text
 * (a \uD800-\uDBFF not followed by a \uDC00-\uDFFF, or one of those
 * alone) as \uFFFD into `out`; returns how many, 0 leaving `out` unused.
 * yajl would decode a lone low surrogate to bytes that are not UTF-8 and a
 * lone high one to '?'. */
static size_t replace_lone_surrogates(tl_buf *out, tl_str text) {
  /* Every rewrite starts at a "\u": without one (most texts) there is
   * nothing to walk. */
  if (!has_backslash_u(text))
    return 0;
  size_t count = 0, from = 0;
  bool in_string = false;
  const char *p = text.ptr;
  for (size_t i = 0; i < text.len; i++) {
    if (!in_string) {
      in_string = p[i] == '"';
      continue;
    }
    if (p[i] == '"') {
      in_string = false;
      continue;
    }
    if (p[i] != '\\' || i + 1 >= text.len)
      continue;
    if (p[i + 1] != 'u' || i + 6 > text.len) {
      i++; /* a two-character escape */
      continue;
    }
    int code = hex4(p + i + 2);
    bool high = code >= 0xD800 && code <= 0xDBFF;
    bool low = code >= 0xDC00 && code <= 0xDFFF;
    if (high && i + 12 <= text.len && p[i + 6] == '\\' && p[i + 7] == 'u') {
      int next = hex4(p + i + 8);
      if (next >= 0xDC00 && next <= 0xDFFF) {
        i += 11; /* a pair */
        continue;
      }
    }
    if (high || low) {
      tl_buf_append(out, p + from, i - from);
      tl_buf_puts(out, "\\ufffd");
      count++;
      from = i + 6;
    }
    i += 5;
  }
  if (count)
    tl_buf_append(out, p + from, text.len - from);
  return count;
}

tl_json_serde_status tl_json_serde(tl_buf *out, tl_str text,
                                   const tl_json_serde_options *options,
                                   size_t *repaired, char *error,
                                   size_t error_size) {
  static const tl_json_serde_options plain = {0};
  const tl_json_serde_options *o = options ? options : &plain;
  /* An empty payload may come as a null pointer: no arithmetic on it. */
  if (text.ptr == NULL)
    text = (tl_str){"", 0};
  tl_buf fixed;
  tl_buf_init(&fixed);
  size_t replaced = 0;
  if (tl_utf8_valid_prefix(text) != text.len) {
    replaced = tl_utf8_repair(&fixed, text);
    text = tl_buf_str(&fixed);
  }
  tl_buf unpaired;
  tl_buf_init(&unpaired);
  size_t lone = replace_lone_surrogates(&unpaired, text);
  if (lone) {
    replaced += lone;
    text = tl_buf_str(&unpaired);
  }
  if (repaired)
    *repaired = replaced;
  tree t = {0};
  take_spare(&t);
  /* Room at once: the decoded strings and numbers are at most the text,
   * and a node per 16 bytes of text (at most 4096) is about what an event
   * or an envelope makes; both grow past that as needed. */
  tl_buf_reserve_exact(&t.bytes, text.len + 1);
  size_t nodes = (text.len < 16 * 4096 ? text.len / 16 : 4096) + 8;
  if (t.nodes.cap < nodes) {
    free(t.nodes.items);
    t.nodes.cap = nodes;
    t.nodes.items = tl_xmalloc(t.nodes.cap * sizeof *t.nodes.items);
  }
  t.root = NO_NODE;
  t.base_depth = o->depth;
  t.input_begin = (uintptr_t)text.ptr;
  t.input_end = t.input_begin + text.len;
  yajl_handle parser = yajl_alloc(&CALLBACKS, NULL, &t);
  yajl_status st =
      yajl_parse(parser, (const unsigned char *)text.ptr, text.len);
  if (st == yajl_status_ok)
    st = yajl_complete_parse(parser);
  tl_json_serde_status result = TL_JSON_SERDE_OK;
  if (st != yajl_status_ok || t.root == NO_NODE) {
    if (error && t.too_deep) {
      snprintf(error, error_size, "recursion limit exceeded");
    } else if (error) {
      unsigned char *message =
          yajl_get_error(parser, 0, (const unsigned char *)text.ptr, text.len);
      snprintf(error, error_size, "%s",
               message ? (const char *)message : "not JSON");
      /* yajl's message ends in a newline; one line is wanted. */
      size_t n = strlen(error);
      while (n && (error[n - 1] == '\n' || error[n - 1] == ' '))
        error[--n] = '\0';
      yajl_free_error(parser, message);
    }
    result = TL_JSON_SERDE_NOT_JSON;
  }
  yajl_free(parser);
  if (result == TL_JSON_SERDE_OK)
    result = add_extra(&t, o, error, error_size);
  tl_json_serde_options compact = *o;
  if (result == TL_JSON_SERDE_OK && o->pretty && o->layout_limit &&
      t.layout > o->layout_limit) {
    compact.pretty = false; /* a deep text's indents would dwarf it */
    result = TL_JSON_SERDE_OK_COMPACT;
  }
  if (result == TL_JSON_SERDE_OK || result == TL_JSON_SERDE_OK_COMPACT)
    write_tree(out, &t, &compact); /* the caller indents the first line */
  if (repaired)
    *repaired += t.repaired;
  keep_spare(&t);
  tl_buf_free(&fixed);
  tl_buf_free(&unpaired);
  return result;
}
