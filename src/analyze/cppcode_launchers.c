/* cppcode_launchers.c: the Triton source in an AOT launcher's comment. A
 * launcher's block comment holds the Python that defined its kernel,
 * `async_compile.triton('k', '''...''')`: re-parsed as Python, its source is
 * an embedded range of the wrapper, and a source that dispatches
 * sub-kernels makes the kernel a combo one.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cppcode_internal.h"
#include "analyze/queries_cpp.h"
#include "util/cores.h"

/* True when the range of the text holds a combo kernel's Triton source. */
static bool triton_is_combo(const tl_ts_query *q, tl_str text, TSRange range) {
  if (!tl_triton_may_be_combo(text, range.start_byte, range.end_byte))
    return false;
  TSTree *tree = tl_ts_parse(tree_sitter_python(), text, &range, 1);
  if (!tree)
    return false;
  bool combo = false;
  tl_ts_iter it;
  tl_ts_iter_begin(&it, q, ts_tree_root_node(tree), text);
  while (!combo && tl_ts_iter_next(&it))
    combo = tl_ts_iter_pattern(&it) > 0;
  tl_ts_iter_end(&it);
  ts_tree_delete(tree);
  return combo;
}

/* Is the text between the start of `byte`'s line and `byte` blank? */
static bool blank_before(tl_str text, uint32_t byte) {
  while (byte > 0 && text.ptr[byte - 1] != '\n') {
    if (text.ptr[byte - 1] != ' ' && text.ptr[byte - 1] != '\t')
      return false;
    byte--;
  }
  return true;
}

/* What the scan of one launcher comment finds, per kernel source in it:
 * its lines as embedded Python (when it has any), its kernel's name, and
 * whether the source is a combo kernel's. A function of the text alone, so
 * a worker thread can find it while the wrapper is still being read;
 * applied to the analysis in text order (apply_finds). */
typedef struct launcher_find {
  bool has_embedded;
  embedded e;
  tl_str name;
  bool combo;
} launcher_find;
typedef TL_VEC(launcher_find) launcher_finds;

/* Re-parses the interior of a launcher's block comment as Python and finds
 * the '''...''' source of `async_compile.triton('k', '''...''')`: an
 * embedded range (its lines without the quote lines), and whether the
 * source dispatches sub-kernels. */
static void scan_comment(tl_str text, const tl_ts_query *q, TSRange comment,
                         launcher_finds *out) {
  if (comment.start_byte > comment.end_byte || comment.end_byte > text.len)
    return;
  tl_str c = {text.ptr + comment.start_byte,
              comment.end_byte - comment.start_byte};
  if (c.len < 4 || memcmp(c.ptr, "/*", 2) != 0 ||
      memcmp(c.ptr + c.len - 2, "*/", 2) != 0)
    return;
  TSPoint from = comment.start_point, to = comment.end_point;
  if (to.column < 2)
    return;
  TSRange inner = {{from.row, from.column + 2},
                   {to.row, to.column - 2},
                   comment.start_byte + 2,
                   comment.end_byte - 2};
  TSTree *tree = tl_ts_parse(tree_sitter_python(), text, &inner, 1);
  if (!tree)
    return;
  uint32_t name_id = tl_ts_query_capture(q, "triton.name");
  uint32_t source_id = tl_ts_query_capture(q, "triton.source");
  tl_ts_iter it;
  tl_ts_iter_begin(&it, q, ts_tree_root_node(tree), text);
  while (tl_ts_iter_next(&it)) {
    TSNode name, source;
    if (tl_ts_iter_pattern(&it) != 0 || !tl_ts_iter_get(&it, name_id, &name) ||
        !tl_ts_iter_get(&it, source_id, &source))
      continue;
    uint32_t count = ts_node_child_count(source);
    TSNode open = ts_node_child(source, 0);
    TSNode close = ts_node_child(source, count ? count - 1 : 0);
    if (count < 2 || !node_is(open, "string_start") ||
        !node_is(close, "string_end"))
      continue;
    TSPoint a = ts_node_end_point(open), b = ts_node_start_point(close);
    uint32_t a_byte = ts_node_end_byte(open),
             b_byte = ts_node_start_byte(close);
    /* Lines of the source itself: skip the rest of the opening line when it
     * is empty, and the closing line when only indentation precedes '''. */
    int first = (int)a.row + 1 + (text.ptr[a_byte] == '\n' ? 1 : 0);
    int last = (int)b.row + (blank_before(text, b_byte) ? 0 : 1);
    TSRange body = {a, b, a_byte, b_byte};
    launcher_find f = {first <= last,
                       {{TL_CODE_MAIN, first, last, "python"}, a_byte},
                       tl_ts_text(name, text),
                       triton_is_combo(q, text, body)};
    TL_VEC_PUSH(*out, f);
  }
  tl_ts_iter_end(&it);
  ts_tree_delete(tree);
}

/* Records what the scan found: each source as embedded Python, and its
 * kernel combo when the wrapper defines it as a Triton one. */
static void apply_finds(state *s, const launcher_find *f, size_t count) {
  for (size_t i = 0; i < count; i++) {
    if (f[i].has_embedded)
      TL_VEC_PUSH(s->embedded, f[i].e);
    def *d = find_def(s, f[i].name);
    if (d && is_triton_family(d->def.kind) && f[i].combo)
      d->def.kind = TL_KERNEL_COMBO;
  }
}

void tl_cpp_scan_launcher_comment(state *s, const tl_ts_query *q,
                                  TSRange comment) {
  launcher_finds finds = {0};
  scan_comment(s->text, q, comment, &finds);
  apply_finds(s, finds.items, finds.count);
  TL_VEC_FREE(finds);
}

/* The launcher comments scanned on a second thread (tl_cpp_launchers_new):
 * the comments offered, in order, each with its finds once scanned. */
typedef struct scanned {
  TSRange comment;
  size_t first, count; /* in finds */
} scanned;

struct tl_cpp_launchers {
  tl_str text;
  pthread_mutex_t lock;
  pthread_cond_t offered; /* a comment offered, or closing set */
  TL_VEC(scanned) comments;
  launcher_finds finds;
  size_t next; /* the first comment not yet taken */
  bool closing, started;
  atomic_bool give_up; /* set with closing: the thread stops waiting */
  pthread_t thread;
};

/* Scans the offered comments in turn until none is left (and, unless
 * `until_closed`, returns then; else waits for more until closing). */
static void scan_offered(tl_cpp_launchers *p, bool until_closed) {
  tl_ts_query q;
  tl_ts_query_init(&q, tree_sitter_python(), TL_RES(query_cpp_triton),
                   "cpp_triton.scm");
  launcher_finds mine = {0};
  pthread_mutex_lock(&p->lock);
  for (;;) {
    if (p->next < p->comments.count) {
      size_t i = p->next++;
      TSRange comment = p->comments.items[i].comment;
      pthread_mutex_unlock(&p->lock);
      mine.count = 0;
      scan_comment(p->text, &q, comment, &mine);
      pthread_mutex_lock(&p->lock);
      p->comments.items[i].first = p->finds.count;
      p->comments.items[i].count = mine.count;
      for (size_t k = 0; k < mine.count; k++)
        TL_VEC_PUSH(p->finds, mine.items[k]);
    } else if (until_closed && !p->closing) {
      pthread_cond_wait(&p->offered, &p->lock);
    } else {
      break;
    }
  }
  pthread_mutex_unlock(&p->lock);
  TL_VEC_FREE(mine);
  tl_ts_query_free(&q);
}

/* Waits for an idle core first: while the view's FX graphs are analyzed on
 * the other core, scanning here would slow the wrapper's own parse, the
 * view's longest stretch, by a third. Given up (the wrapper read first),
 * the view's thread scans what is left. */
static void *launcher_thread(void *arg) {
  tl_cpp_launchers *p = arg;
  if (!tl_cores_claim_idle(&p->give_up))
    return NULL;
  scan_offered(p, true);
  tl_cores_busy_end();
  return NULL;
}

/* Sets closing and wakes the thread wherever it waits (p->lock held). */
static void close_locked(tl_cpp_launchers *p) {
  p->closing = true;
  atomic_store(&p->give_up, true);
  pthread_cond_broadcast(&p->offered);
}

tl_cpp_launchers *tl_cpp_launchers_new(tl_str text) {
  if (tl_cores_usable() < 2)
    return NULL;
  tl_cpp_launchers *p = tl_xcalloc(1, sizeof *p);
  p->text = text;
  atomic_init(&p->give_up, false);
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->offered, NULL);
  return p;
}

void tl_cpp_launchers_offer(tl_cpp_launchers *p, const TSRange *comments,
                            size_t count) {
  if (!p || !count)
    return;
  pthread_mutex_lock(&p->lock);
  for (size_t i = 0; i < count; i++)
    TL_VEC_PUSH(p->comments, ((scanned){comments[i], 0, SIZE_MAX}));
  pthread_cond_broadcast(&p->offered);
  pthread_mutex_unlock(&p->lock);
  if (!p->started)
    p->started = pthread_create(&p->thread, NULL, launcher_thread, p) == 0;
}

/* By start, then end: the offered comments, for bsearch. */
static int cmp_scanned(const void *pa, const void *pb) {
  const TSRange *a = &((const scanned *)pa)->comment;
  const TSRange *b = &((const scanned *)pb)->comment;
  if (a->start_byte != b->start_byte)
    return a->start_byte < b->start_byte ? -1 : 1;
  return a->end_byte < b->end_byte ? -1 : a->end_byte > b->end_byte;
}

void tl_cpp_launchers_finish(tl_cpp_launchers *p) {
  if (!p)
    return;
  pthread_mutex_lock(&p->lock);
  close_locked(p);
  pthread_mutex_unlock(&p->lock);
  tl_cores_wake();
  scan_offered(p, false); /* this thread takes its share of what is left */
  if (p->started)
    pthread_join(p->thread, NULL);
  p->started = false;
  tl_sort(p->comments.items, p->comments.count, sizeof *p->comments.items,
          cmp_scanned);
}

void tl_cpp_launchers_scan(tl_cpp_launchers *p, state *s, const tl_ts_query *q,
                           TSRange comment) {
  scanned key = {comment, 0, 0};
  const scanned *hit = p && p->comments.count
                           ? bsearch(&key, p->comments.items, p->comments.count,
                                     sizeof *p->comments.items, cmp_scanned)
                           : NULL;
  if (hit && hit->count != SIZE_MAX &&
      memcmp(&hit->comment, &comment, sizeof comment) == 0) {
    if (hit->count) /* none found: finds may be empty (no pointer) */
      apply_finds(s, p->finds.items + hit->first, hit->count);
  } else {
    tl_cpp_scan_launcher_comment(s, q, comment);
  }
}

void tl_cpp_launchers_free(tl_cpp_launchers *p) {
  if (!p)
    return;
  /* Not finished (the pass is dropped): what the thread has not taken is
   * not scanned at all. */
  if (p->started) {
    pthread_mutex_lock(&p->lock);
    close_locked(p);
    p->next = p->comments.count;
    pthread_mutex_unlock(&p->lock);
    tl_cores_wake();
    pthread_join(p->thread, NULL);
  }
  pthread_cond_destroy(&p->offered);
  pthread_mutex_destroy(&p->lock);
  TL_VEC_FREE(p->comments);
  TL_VEC_FREE(p->finds);
  free(p);
}
