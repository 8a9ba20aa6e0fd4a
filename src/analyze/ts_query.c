/* ts_query.c: compile embedded queries, evaluate their text predicates, and
 * iterate matches by capture name; parse long code texts in chunks of whole
 * definitions found by small per-language scanners (see ts_query.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, CLOCK_THREAD_CPUTIME_ID */
#include "analyze/ts_query.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Compiled queries, kept for the whole run: compiling the C++ wrapper query
 * alone takes tens of milliseconds, and every view runs the same few
 * queries. A TSQuery is only read while matching, so threads share it. Each
 * query is compiled outside the lock, so two threads compile two different
 * queries at once; a thread that needs one being compiled waits for it. */
enum { QUERY_CACHE_SIZE = 32 };
static struct {
  const char *source;
  const TSLanguage *lang;
  TSQuery *query; /* NULL while another thread compiles it */
} query_cache[QUERY_CACHE_SIZE];
static size_t query_cache_count;
static pthread_mutex_t query_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t query_compiled = PTHREAD_COND_INITIALIZER;

static TSQuery *compile_query(const TSLanguage *lang, tl_str source,
                              const char *name);

/* The cache slot of a query, or -1; called with the lock held. */
static long find_cached(const TSLanguage *lang, const char *source) {
  for (size_t i = 0; i < query_cache_count; i++)
    if (query_cache[i].source == source && query_cache[i].lang == lang)
      return (long)i;
  return -1;
}

void tl_ts_query_init(tl_ts_query *q, const TSLanguage *lang, tl_str source,
                      const char *name) {
  q->name = name;
  pthread_mutex_lock(&query_cache_lock);
  long slot = find_cached(lang, source.ptr);
  if (slot >= 0) {
    while (!query_cache[slot].query)
      pthread_cond_wait(&query_compiled, &query_cache_lock);
    q->query = query_cache[slot].query;
    pthread_mutex_unlock(&query_cache_lock);
    return;
  }
  if (query_cache_count == QUERY_CACHE_SIZE) {
    fprintf(stderr, "tlparse: query cache is full: raise QUERY_CACHE_SIZE\n");
    abort();
  }
  slot = (long)query_cache_count++;
  query_cache[slot].source = source.ptr;
  query_cache[slot].lang = lang;
  query_cache[slot].query = NULL;
  pthread_mutex_unlock(&query_cache_lock);
  q->query = compile_query(lang, source, name);
  pthread_mutex_lock(&query_cache_lock);
  query_cache[slot].query = q->query;
  pthread_cond_broadcast(&query_compiled);
  pthread_mutex_unlock(&query_cache_lock);
}

static atomic_ullong parsed_bytes;
static atomic_ullong parse_ns, parse_count;
static atomic_int stats_on = -1; /* -1: TLPARSE_STATS not read yet */

static bool stats_enabled(void) {
  int on = atomic_load_explicit(&stats_on, memory_order_relaxed);
  if (on < 0) {
    const char *stats = getenv("TLPARSE_STATS");
    on = stats && strcmp(stats, "1") == 0;
    atomic_store_explicit(&stats_on, on, memory_order_relaxed);
  }
  return on;
}

uint64_t tl_ts_stats_parse_begin(void) {
  if (!stats_enabled())
    return 0;
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec + 1;
}

void tl_ts_stats_parse_end(uint64_t begun) {
  if (!begun)
    return;
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  uint64_t now = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec + 1;
  atomic_fetch_add_explicit(&parse_ns, now - begun, memory_order_relaxed);
  atomic_fetch_add_explicit(&parse_count, 1, memory_order_relaxed);
}

size_t tl_ts_stats_parse_count(void) {
  return (size_t)atomic_load(&parse_count);
}

uint64_t tl_ts_stats_parse_ns(void) { return atomic_load(&parse_ns); }

void tl_ts_stats_print(void) {
  if (stats_enabled())
    fprintf(stderr,
            "tlparse: stats: %llu bytes parsed by tree-sitter in %.6f s of "
            "CPU (%llu parses)\n",
            atomic_load(&parsed_bytes), (double)atomic_load(&parse_ns) / 1e9,
            atomic_load(&parse_count));
}

void tl_ts_stats_parsed(size_t bytes) {
  atomic_fetch_add_explicit(&parsed_bytes, bytes, memory_order_relaxed);
}

size_t tl_ts_stats_parsed_total(void) {
  return (size_t)atomic_load(&parsed_bytes);
}

void tl_ts_query_cache_free(void) {
  tl_ts_stats_print();
  pthread_mutex_lock(&query_cache_lock);
  for (size_t i = 0; i < query_cache_count; i++)
    ts_query_delete(query_cache[i].query);
  query_cache_count = 0;
  pthread_mutex_unlock(&query_cache_lock);
}

static TSQuery *compile_query(const TSLanguage *lang, tl_str source,
                              const char *name) {
  uint32_t offset = 0;
  TSQueryError error = TSQueryErrorNone;
  tl_ts_query query = {NULL, name};
  tl_ts_query *q = &query;
  q->query =
      ts_query_new(lang, source.ptr, (uint32_t)source.len, &offset, &error);
  if (!q->query) {
    fprintf(stderr, "tlparse: query %s does not compile: error %d at byte %u\n",
            name, (int)error, offset);
    abort();
  }
  /* Check every predicate name now, so a typo fails at once. */
  uint32_t patterns = ts_query_pattern_count(q->query);
  for (uint32_t p = 0; p < patterns; p++) {
    uint32_t n = 0;
    const TSQueryPredicateStep *steps =
        ts_query_predicates_for_pattern(q->query, p, &n);
    bool at_start = true;
    for (uint32_t i = 0; i < n; i++) {
      if (at_start) {
        uint32_t len = 0;
        const char *op =
            ts_query_string_value_for_id(q->query, steps[i].value_id, &len);
        static const char *const known[] = {"eq?",     "not-eq?",
                                            "any-of?", "not-any-of?",
                                            "prefix?", "not-prefix?"};
        bool ok = false;
        for (size_t k = 0; k < sizeof known / sizeof *known; k++)
          ok |= strcmp(op, known[k]) == 0;
        if (!ok) {
          fprintf(stderr, "tlparse: query %s: unknown predicate #%s\n", name,
                  op);
          abort();
        }
      }
      at_start = steps[i].type == TSQueryPredicateStepTypeDone;
    }
  }
  return q->query;
}

void tl_ts_query_free(tl_ts_query *q) {
  q->query = NULL; /* the compiled query stays in the cache */
}

uint32_t tl_ts_query_capture(const tl_ts_query *q, const char *name) {
  uint32_t count = ts_query_capture_count(q->query);
  for (uint32_t i = 0; i < count; i++) {
    uint32_t len = 0;
    const char *s = ts_query_capture_name_for_id(q->query, i, &len);
    if (strlen(name) == len && memcmp(s, name, len) == 0)
      return i;
  }
  return UINT32_MAX;
}

tl_str tl_ts_text(TSNode node, tl_str text) {
  if (ts_node_is_null(node))
    return (tl_str){text.ptr, 0};
  uint32_t a = ts_node_start_byte(node), b = ts_node_end_byte(node);
  if (a > b || b > text.len)
    return (tl_str){text.ptr, 0};
  return (tl_str){text.ptr + a, b - a};
}

int tl_ts_first_line(TSNode node) {
  return (int)ts_node_start_point(node).row + 1;
}

int tl_ts_last_line(TSNode node) {
  TSPoint s = ts_node_start_point(node), e = ts_node_end_point(node);
  if (e.column == 0 && e.row > s.row)
    return (int)e.row; /* ends with its newline: the line before */
  return (int)e.row + 1;
}

TSSymbol tl_ts_symbol(const TSLanguage *lang, const char *name) {
  return ts_language_symbol_for_name(lang, name, (uint32_t)strlen(name), true);
}

TSFieldId tl_ts_field(const TSLanguage *lang, const char *name) {
  return ts_language_field_id_for_name(lang, name, (uint32_t)strlen(name));
}

void tl_ts_children_begin(tl_ts_children *ch, TSNode node, TSFieldId field) {
  ch->cursor = ts_tree_cursor_new(node);
  ch->field = field;
  ch->more = ts_tree_cursor_goto_first_child(&ch->cursor);
}

bool tl_ts_children_next(tl_ts_children *ch, TSSymbol type, TSNode *out) {
  while (ch->more) {
    TSNode n = ts_tree_cursor_current_node(&ch->cursor);
    bool hit = ts_node_is_named(n) && (!type || ts_node_symbol(n) == type) &&
               (!ch->field ||
                ts_tree_cursor_current_field_id(&ch->cursor) == ch->field);
    ch->more = ts_tree_cursor_goto_next_sibling(&ch->cursor);
    if (hit) {
      *out = n;
      return true;
    }
  }
  return false;
}

void tl_ts_children_end(tl_ts_children *ch) {
  ts_tree_cursor_delete(&ch->cursor);
}

void tl_ts_walk(TSNode root, bool (*visit)(TSNode node, void *ctx), void *ctx) {
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  for (bool more = true; more;) {
    if (visit(ts_tree_cursor_current_node(&cursor), ctx) &&
        ts_tree_cursor_goto_first_child(&cursor))
      continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor))
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        more = false;
        break;
      }
  }
  ts_tree_cursor_delete(&cursor);
}

TSTree *tl_ts_parse(const TSLanguage *lang, tl_str text, const TSRange *ranges,
                    uint32_t count) {
  TSParser *parser = ts_parser_new();
  TSTree *tree = NULL;
  if (ts_parser_set_language(parser, lang) &&
      (count == 0 || ts_parser_set_included_ranges(parser, ranges, count))) {
    uint64_t begun = tl_ts_stats_parse_begin();
    tree = ts_parser_parse_string(parser, NULL, text.ptr ? text.ptr : "",
                                  (uint32_t)text.len);
    tl_ts_stats_parse_end(begun);
  }
  ts_parser_delete(parser);
  return tree;
}

void tl_ts_iter_begin(tl_ts_iter *it, const tl_ts_query *q, TSNode node,
                      tl_str text) {
  it->q = q;
  it->text = text;
  it->cursor = ts_query_cursor_new();
  memset(&it->match, 0, sizeof it->match);
  ts_query_cursor_exec(it->cursor, q->query, node);
}

void tl_ts_iter_end(tl_ts_iter *it) {
  if (it->cursor)
    ts_query_cursor_delete(it->cursor);
  it->cursor = NULL;
}

uint32_t tl_ts_iter_pattern(const tl_ts_iter *it) {
  return it->match.pattern_index;
}

bool tl_ts_iter_get(const tl_ts_iter *it, uint32_t capture, TSNode *out) {
  for (uint16_t i = 0; i < it->match.capture_count; i++) {
    if (it->match.captures[i].index == capture) {
      *out = it->match.captures[i].node;
      return true;
    }
  }
  return false;
}

/* The text of the first node captured as `capture`; false when absent. */
static bool capture_text(const tl_ts_iter *it, uint32_t capture, tl_str *out) {
  TSNode n;
  if (!tl_ts_iter_get(it, capture, &n))
    return false;
  *out = tl_ts_text(n, it->text);
  return true;
}

static tl_str step_string(const tl_ts_iter *it,
                          const TSQueryPredicateStep *step) {
  uint32_t len = 0;
  const char *s =
      ts_query_string_value_for_id(it->q->query, step->value_id, &len);
  return (tl_str){s, len};
}

/* Evaluates one predicate: steps[0] is the operator, then its arguments. */
static bool predicate_holds(const tl_ts_iter *it,
                            const TSQueryPredicateStep *steps, uint32_t n) {
  if (n < 2 || steps[1].type != TSQueryPredicateStepTypeCapture)
    return false;
  tl_str op = step_string(it, &steps[0]);
  tl_str subject;
  if (!capture_text(it, steps[1].value_id, &subject))
    return true; /* optional capture absent: nothing to test */
  bool negate = tl_str_starts_with(op, "not-");
  bool result = false;
  if (tl_str_eq_cstr(op, "eq?") || tl_str_eq_cstr(op, "not-eq?")) {
    tl_str other = {0};
    if (n >= 3 && steps[2].type == TSQueryPredicateStepTypeCapture)
      capture_text(it, steps[2].value_id, &other);
    else if (n >= 3)
      other = step_string(it, &steps[2]);
    result = tl_str_eq(subject, other);
  } else if (tl_str_eq_cstr(op, "any-of?") ||
             tl_str_eq_cstr(op, "not-any-of?")) {
    for (uint32_t i = 2; i < n && !result; i++)
      result = steps[i].type == TSQueryPredicateStepTypeString &&
               tl_str_eq(subject, step_string(it, &steps[i]));
  } else { /* prefix? / not-prefix? */
    tl_str prefix = n >= 3 ? step_string(it, &steps[2]) : (tl_str){"", 0};
    result = subject.len >= prefix.len &&
             memcmp(subject.ptr, prefix.ptr, prefix.len) == 0;
  }
  return negate ? !result : result;
}

static bool match_holds(const tl_ts_iter *it) {
  uint32_t n = 0;
  const TSQueryPredicateStep *steps = ts_query_predicates_for_pattern(
      it->q->query, it->match.pattern_index, &n);
  uint32_t start = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (steps[i].type == TSQueryPredicateStepTypeDone) {
      if (!predicate_holds(it, steps + start, i - start))
        return false;
      start = i + 1;
    }
  }
  return true;
}

bool tl_ts_iter_next(tl_ts_iter *it) {
  while (ts_query_cursor_next_match(it->cursor, &it->match)) {
    if (match_holds(it))
      return true;
  }
  return false;
}
