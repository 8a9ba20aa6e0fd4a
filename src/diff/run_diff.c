/* run_diff.c: a run's store copied with its frames and graph breaks; two
 * runs' frames matched; graph breaks and kernels compared (run_diff.h). */
#include "diff/run_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fsutil.h"

/* ---- a run ------------------------------------------------------------- */

static tl_compile_dir *copy_dir(tl_arena *arena, const char *folder,
                                const tl_compile_dir *d) {
  tl_compile_dir *c = tl_arena_alloc(arena, sizeof *c);
  memcpy(c->dir_name, d->dir_name, sizeof c->dir_name);
  memcpy(c->display, d->display, sizeof c->display);
  c->unknown_id = d->unknown_id;
  size_t m = d->metrics_by_line.count;
  c->metrics_by_line.items =
      tl_arena_alloc(arena, (m ? m : 1) * sizeof(tl_metric_numbers));
  c->metrics_by_line.count = c->metrics_by_line.cap = m;
  for (size_t i = 0; i < m; i++) {
    c->metrics_by_line.items[i].line = d->metrics_by_line.items[i].line;
    c->metrics_by_line.items[i].numbers =
        cJSON_Duplicate(d->metrics_by_line.items[i].numbers, true);
  }
  size_t ns = d->starts.count;
  c->starts.items = tl_arena_alloc(arena, (ns ? ns : 1) * sizeof(tl_dir_start));
  c->starts.count = c->starts.cap = ns;
  if (ns)
    memcpy(c->starts.items, d->starts.items, ns * sizeof(tl_dir_start));
  /* Each stack's last frame only: the compiled function. */
  size_t nstack = d->stacks.count;
  c->stacks.items =
      tl_arena_alloc(arena, (nstack ? nstack : 1) * sizeof(tl_stack));
  c->stacks.count = c->stacks.cap = nstack;
  for (size_t i = 0; i < nstack; i++) {
    const tl_stack *s = &d->stacks.items[i];
    tl_stack *t = &c->stacks.items[i];
    t->count = s->count ? 1 : 0;
    t->frames = tl_arena_alloc(arena, sizeof(tl_frame));
    memset(t->frames, 0, sizeof(tl_frame));
    if (s->count) {
      const tl_frame *top = &s->frames[s->count - 1];
      t->frames->file = top->file ? tl_arena_strdup(arena, top->file) : NULL;
      t->frames->name = top->name ? tl_arena_strdup(arena, top->name) : NULL;
      t->frames->line = top->line;
    }
  }
  size_t n = d->artifacts.count;
  c->artifacts.items = tl_arena_alloc(arena, (n ? n : 1) * sizeof(tl_artifact));
  c->artifacts.count = c->artifacts.cap = n;
  for (size_t i = 0; i < n; i++) {
    const tl_artifact *a = &d->artifacts.items[i];
    tl_artifact *b = &c->artifacts.items[i];
    b->name = tl_arena_strdup(arena, a->name);
    b->path = tl_arena_printf(arena, "%s/%s", folder, a->path);
    if (a->text_path)
      b->text_path = tl_arena_printf(arena, "%s/%s", folder, a->text_path);
    b->number = a->number;
    b->listed_number = a->listed_number;
    b->role = a->role;
    b->line = a->line;
    memcpy(b->md5, a->md5, sizeof b->md5);
  }
  return c;
}

/* The (autograd, frame, compile) of a folder name "-_0_1_0"; false for a
 * folder without them. `autograd` is the text before the first '_'. */
static bool dir_frame(const char *name, tl_str *autograd, long long *frame,
                      long long *compile) {
  const char *us = strchr(name, '_');
  if (!us)
    return false;
  char *end;
  *frame = strtoll(us + 1, &end, 10);
  if (end == us + 1 || *end != '_')
    return false;
  const char *c = end + 1;
  *compile = strtoll(c, &end, 10);
  if (end == c || *end != '_')
    return false;
  *autograd = (tl_str){name, (size_t)(us - name)};
  return true;
}

typedef struct frame_key {
  size_t session;
  tl_str autograd;
  long long frame;
  size_t index; /* into the folders, or the frames */
} frame_key;

static int by_frame_key(const void *x, const void *y) {
  const frame_key *a = x, *b = y;
  if (a->session != b->session)
    return a->session < b->session ? -1 : 1;
  int c = tl_str_cmp(a->autograd, b->autograd);
  if (c)
    return c;
  if (a->frame != b->frame)
    return a->frame < b->frame ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* The frame of `keys` (sorted, one per frame) with the folder's key, or
 * SIZE_MAX. */
static size_t find_frame(const frame_key *keys, size_t n, size_t session,
                         tl_str autograd, long long frame) {
  size_t lo = 0, hi = n;
  frame_key probe = {session, autograd, frame, 0};
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = keys[mid].session < session   ? -1
            : keys[mid].session > session ? 1
                                          : 0;
    if (!c)
      c = tl_str_cmp(keys[mid].autograd, probe.autograd);
    if (!c)
      c = keys[mid].frame < frame ? -1 : keys[mid].frame > frame;
    if (c < 0)
      lo = mid + 1;
    else if (c > 0)
      hi = mid;
    else
      return keys[mid].index;
  }
  return SIZE_MAX;
}

static bool starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* "Graph break in user code at /x/m.py:20\nGraph Break Reason: ..." ->
 * reason and place (torch's get_graph_break_reason text); another text:
 * its first line, no place. */
static void read_break(tl_arena *arena, tl_str text, tl_run_break *out) {
  out->reason = tl_arena_strdup(arena, "");
  out->where = tl_arena_strdup(arena, "");
  const char *p = text.ptr, *end = text.ptr + text.len;
  bool any = false;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    tl_str line = tl_str_trim((tl_str){p, (size_t)(le - p)});
    static const char at[] = "Graph break in user code at ";
    static const char why[] = "Graph Break Reason: ";
    if (line.len > sizeof at - 1 && memcmp(line.ptr, at, sizeof at - 1) == 0) {
      const char *place = line.ptr + sizeof at - 1;
      const char *stop = line.ptr + line.len, *base = place;
      for (const char *q = place; q < stop; q++)
        if (*q == '/')
          base = q + 1;
      out->where = tl_arena_strndup(arena, base, (size_t)(stop - base));
    } else if (line.len > sizeof why - 1 &&
               memcmp(line.ptr, why, sizeof why - 1) == 0) {
      out->reason = tl_arena_strndup(arena, line.ptr + sizeof why - 1,
                                     line.len - (sizeof why - 1));
      any = true;
    } else if (!any && line.len && !out->reason[0]) {
      out->reason = tl_arena_strndup(arena, line.ptr, line.len);
    }
    if (any || !nl)
      break;
    p = nl + 1;
  }
}

typedef struct break_at {
  size_t frame, order;
  tl_run_break b;
} break_at;

static int by_frame_then_order(const void *x, const void *y) {
  const break_at *a = x, *b = y;
  if (a->frame != b->frame)
    return a->frame < b->frame ? -1 : 1;
  int c = strcmp(a->b.reason, b->b.reason);
  if (!c)
    c = strcmp(a->b.where, b->b.where);
  if (c)
    return c;
  return a->order < b->order ? -1 : a->order > b->order;
}

static bool is_break_reason(const tl_artifact *a) {
  static const char stem[] = "dynamo_graph_break_reason_";
  return a->text_path && starts_with(a->name, stem) &&
         a->name[sizeof stem - 1] >= '0' && a->name[sizeof stem - 1] <= '9';
}

/* Each frame's function from the first stack of its compiles, and its
 * graph breaks (each reason and place once per frame: a recompile or a
 * restart logs the same break again). A frame is one of a session (see
 * recompiles.h): after torch._dynamo.reset() frame 0 is another frame. */
static void read_frames(tl_run *run, const char *diff_dir) {
  const tl_recompiles *r = &run->found;
  frame_key *keys = tl_xcalloc(r->compiles.count + 1, sizeof *keys);
  size_t nk = 0;
  for (size_t i = 0; i < r->compiles.count;) {
    const tl_compile_files *c = &r->compiles.items[i];
    size_t j = i + 1;
    while (j < r->compiles.count &&
           r->compiles.items[j].session == c->session &&
           r->compiles.items[j].frame == c->frame &&
           strcmp(r->compiles.items[j].autograd, c->autograd) == 0)
      j++;
    tl_run_frame f = {0};
    f.autograd = c->autograd;
    f.frame = c->frame;
    f.session = c->session;
    f.file = f.base = f.function = "";
    f.first = i;
    f.count = j - i;
    for (size_t k = i; k < j && !f.function[0]; k++) {
      const tl_stack *s = r->compiles.items[k].stack;
      if (!s || !s->count)
        continue;
      const tl_frame *top = &s->frames[s->count - 1];
      f.file = top->file ? top->file : "";
      f.function = top->name ? top->name : "";
      f.line = top->line;
      const char *slash = strrchr(f.file, '/');
      f.base = slash ? slash + 1 : f.file;
    }
    keys[nk] = (frame_key){c->session, tl_str_from(c->autograd), c->frame, nk};
    nk++;
    TL_VEC_PUSH(run->frames, f);
    i = j;
  }
  tl_sort(keys, nk, sizeof *keys, by_frame_key);
  TL_VEC(break_at) found = {0};
  for (size_t d = 0; d < run->view.dirs.count; d++) {
    const tl_compile_dir *copy = run->view.dirs.items[d];
    tl_str autograd;
    long long frame, compile;
    if (copy->unknown_id ||
        !dir_frame(copy->dir_name, &autograd, &frame, &compile))
      continue;
    for (size_t k = 0; k < copy->artifacts.count; k++) {
      const tl_artifact *a = &copy->artifacts.items[k];
      if (!is_break_reason(a))
        continue;
      size_t fi = find_frame(keys, nk,
                             tl_recompiles_session(r, frame, compile, a->line),
                             autograd, frame);
      if (fi == SIZE_MAX)
        continue;
      tl_buf path, text;
      tl_buf_init(&path);
      tl_buf_init(&text);
      tl_buf_printf(&path, "%s/%s", diff_dir, a->text_path);
      char error[256];
      if (tl_fs_read_file(path.data, &text, error, sizeof error)) {
        break_at b = {fi, found.count, {0}};
        read_break(&run->arena, tl_buf_str(&text), &b.b);
        b.b.file = a->text_path;
        TL_VEC_PUSH(found, b);
      }
      tl_buf_free(&path);
      tl_buf_free(&text);
    }
  }
  tl_sort(found.items, found.count, sizeof *found.items, by_frame_then_order);
  for (size_t i = 0; i < found.count; i++) {
    const break_at *b = &found.items[i];
    tl_run_frame *f = &run->frames.items[b->frame];
    if (i && b[-1].frame == b->frame &&
        strcmp(b[-1].b.reason, b->b.reason) == 0 &&
        strcmp(b[-1].b.where, b->b.where) == 0)
      continue; /* logged again by a recompile or a restart */
    if (!f->break_count)
      f->break_first = run->breaks.count;
    f->break_count++;
    TL_VEC_PUSH(run->breaks, b->b);
  }
  TL_VEC_FREE(found);
  free(keys);
  /* A frame id without a dynamo_start nor any file compared is no compile
   * (torch 2.15's export logs its input tensors' descriptions so). */
  size_t kept = 0;
  for (size_t i = 0; i < run->frames.count; i++) {
    tl_run_frame *f = &run->frames.items[i];
    bool any = f->function[0] || f->break_count;
    for (size_t k = 0; !any && k < f->count; k++) {
      const tl_compile_files *c = &r->compiles.items[f->first + k];
      any = c->guards || c->dynamo_graph || c->pre_grad || c->post_grad ||
            c->code || c->mappings;
    }
    if (any)
      run->frames.items[kept++] = *f;
  }
  run->frames.count = kept;
}

void tl_run_take(tl_run *run, const char *folder, const tl_store *store,
                 const char *diff_dir) {
  memset(run, 0, sizeof *run);
  tl_arena_init(&run->arena);
  run->folder = tl_arena_strdup(&run->arena, folder);
  for (size_t i = 0; i < store->dirs.count; i++) {
    tl_compile_dir *c = copy_dir(&run->arena, folder, store->dirs.items[i]);
    TL_VEC_PUSH(run->view.dirs, c);
  }
  tl_recompiles_find(&run->view, &run->found);
  run->view_pages =
      tl_xcalloc(run->found.compiles.count + 1, sizeof *run->view_pages);
  run->bw_view_pages =
      tl_xcalloc(run->found.compiles.count + 1, sizeof *run->bw_view_pages);
  read_frames(run, diff_dir);
}

void tl_run_free(tl_run *run) {
  for (size_t i = 0; i < run->view.dirs.count; i++) {
    const tl_compile_dir *d = run->view.dirs.items[i];
    for (size_t k = 0; k < d->metrics_by_line.count; k++)
      cJSON_Delete(d->metrics_by_line.items[k].numbers);
  }
  tl_recompiles_free(&run->found);
  TL_VEC_FREE(run->view.dirs);
  TL_VEC_FREE(run->frames);
  TL_VEC_FREE(run->breaks);
  free(run->view_pages);
  free(run->bw_view_pages);
  tl_arena_free(&run->arena);
}

/* ---- frames matched ---------------------------------------------------- */

static int cmp_group(const tl_run_frame *a, const tl_run_frame *b) {
  if (a->session != b->session)
    return a->session < b->session ? -1 : 1;
  int c = strcmp(a->autograd, b->autograd);
  if (!c)
    c = strcmp(a->base, b->base);
  if (!c)
    c = strcmp(a->function, b->function);
  return c;
}

static int by_group_then_place(const void *x, const void *y) {
  const tl_run_frame *a = *(const tl_run_frame *const *)x;
  const tl_run_frame *b = *(const tl_run_frame *const *)y;
  int c = cmp_group(a, b);
  if (!c)
    c = strcmp(a->file, b->file);
  if (c)
    return c;
  if (a->line != b->line)
    return a->line < b->line ? -1 : 1;
  return a->frame < b->frame ? -1 : a->frame > b->frame;
}

static const tl_run_frame **sorted_frames(const tl_run *r) {
  const tl_run_frame **s =
      tl_xcalloc(r->frames.count + 1, sizeof(tl_run_frame *));
  for (size_t i = 0; i < r->frames.count; i++)
    s[i] = &r->frames.items[i];
  tl_sort(s, r->frames.count, sizeof *s, by_group_then_place);
  return s;
}

static int by_a_frame(const void *x, const void *y) {
  const tl_run_frame_pair *p = x, *q = y;
  return p->a < q->a ? -1 : p->a > q->a;
}

void tl_run_match_frames(const tl_run *a, const tl_run *b, tl_run_match *out) {
  memset(out, 0, sizeof *out);
  const tl_run_frame **sa = sorted_frames(a), **sb = sorted_frames(b);
  size_t na = a->frames.count, nb = b->frames.count, i = 0, j = 0;
  bool *used_a = tl_xcalloc(na + 1, 1), *used_b = tl_xcalloc(nb + 1, 1);
  while (i < na && j < nb) {
    int c = cmp_group(sa[i], sb[j]);
    if (c < 0) {
      i++;
    } else if (c > 0) {
      j++;
    } else { /* the same group: its frames paired in order */
      size_t ie = i, je = j;
      while (ie < na && !cmp_group(sa[ie], sa[i]))
        ie++;
      while (je < nb && !cmp_group(sb[je], sb[j]))
        je++;
      for (; i < ie && j < je; i++, j++) {
        tl_run_frame_pair p = {sa[i], sb[j]};
        used_a[sa[i] - a->frames.items] = true;
        used_b[sb[j] - b->frames.items] = true;
        TL_VEC_PUSH(out->frames, p);
      }
      i = ie;
      j = je;
    }
  }
  tl_sort(out->frames.items, out->frames.count, sizeof *out->frames.items,
          by_a_frame);
  for (size_t k = 0; k < na; k++)
    if (!used_a[k]) {
      tl_run_frame_pair p = {&a->frames.items[k], NULL};
      TL_VEC_PUSH(out->frames, p);
    }
  for (size_t k = 0; k < nb; k++)
    if (!used_b[k]) {
      tl_run_frame_pair p = {NULL, &b->frames.items[k]};
      TL_VEC_PUSH(out->frames, p);
    }
  free(used_a);
  free(used_b);
  free(sa);
  free(sb);
}

void tl_run_match_free(tl_run_match *m) { TL_VEC_FREE(m->frames); }

void tl_run_frame_label(tl_buf *out, const tl_run_frame *f) {
  char session[32] = "";
  if (f->session > 1)
    snprintf(session, sizeof session, " #%zu", f->session);
  if (!f->function[0]) {
    tl_buf_printf(out, "frame %lld (no stack logged)%s", f->frame, session);
    return;
  }
  if (!f->base[0]) {
    tl_buf_printf(out, "%s%s", f->function, session);
    return;
  }
  tl_buf_printf(out, "%s (%s:%lld)", f->function, f->base, f->line);
  if (strcmp(f->autograd, "-") != 0)
    tl_buf_printf(out, " [compiled autograd %s]", f->autograd);
  tl_buf_puts(out, session);
}

void tl_run_pair_stem(const tl_compile_files *a, const tl_compile_files *b,
                      char *out, size_t size) {
  char fa[24] = "-", fb[24] = "-"; /* no frame id: "-" */
  if (a->frame >= 0)
    snprintf(fa, sizeof fa, "%lld", a->frame);
  if (b->frame >= 0)
    snprintf(fb, sizeof fb, "%lld", b->frame);
  /* A later session: "_session_2" (frames pair only within one session,
   * so `a`'s is `b`'s). */
  char session[32] = "";
  if (b->session > 1)
    snprintf(session, sizeof session, "_session_%zu", b->session);
  snprintf(out, size, "compile_%s_%s_%lld_vs_%s_%s_%lld%s", a->autograd, fa,
           a->compile, b->autograd, fb, b->compile, session);
}

/* ---- graph breaks ------------------------------------------------------ */

typedef struct break_ref {
  const tl_run_break *b;
  bool used;
} break_ref;

static int by_reason_where(const void *x, const void *y) {
  const break_ref *a = x, *b = y;
  int c = strcmp(a->b->reason, b->b->reason);
  return c ? c : strcmp(a->b->where, b->b->where);
}

static break_ref *break_refs(const tl_run *r, const tl_run_frame *f,
                             size_t *n) {
  *n = f ? f->break_count : 0;
  break_ref *refs = tl_xcalloc(*n + 1, sizeof *refs);
  for (size_t i = 0; i < *n; i++)
    refs[i].b = &r->breaks.items[f->break_first + i];
  tl_sort(refs, *n, sizeof *refs, by_reason_where);
  return refs;
}

static cJSON *break_side(const tl_run_break *b) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "where", b->where);
  cJSON_AddStringToObject(o, "file", b->file);
  return o;
}

static void add_break(cJSON *list, const char *change, const tl_run_break *a,
                      const tl_run_break *b) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "change", change);
  cJSON_AddStringToObject(o, "reason", (a ? a : b)->reason);
  cJSON_AddItemToObject(o, "before", a ? break_side(a) : cJSON_CreateNull());
  cJSON_AddItemToObject(o, "after", b ? break_side(b) : cJSON_CreateNull());
  cJSON_AddItemToArray(list, o);
}

cJSON *tl_run_breaks_diff(const tl_run *ra, const tl_run_frame *a,
                          const tl_run *rb, const tl_run_frame *b,
                          size_t *same) {
  size_t na, nb;
  break_ref *xa = break_refs(ra, a, &na), *xb = break_refs(rb, b, &nb);
  cJSON *list = cJSON_CreateArray();
  *same = 0;
  /* The same reason at the same place; then the same reason elsewhere. */
  for (int pass = 0; pass < 2; pass++) {
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
      if (xa[i].used) {
        i++;
        continue;
      }
      if (xb[j].used) {
        j++;
        continue;
      }
      int c = strcmp(xa[i].b->reason, xb[j].b->reason);
      if (!c && pass == 0)
        c = strcmp(xa[i].b->where, xb[j].b->where);
      if (c < 0) {
        i++;
      } else if (c > 0) {
        j++;
      } else {
        xa[i].used = xb[j].used = true;
        if (pass == 0)
          (*same)++;
        else
          add_break(list, "moved", xa[i].b, xb[j].b);
        i++;
        j++;
      }
    }
  }
  for (size_t i = 0; i < na; i++)
    if (!xa[i].used)
      add_break(list, "gone", xa[i].b, NULL);
  for (size_t j = 0; j < nb; j++)
    if (!xb[j].used)
      add_break(list, "appeared", NULL, xb[j].b);
  free(xa);
  free(xb);
  return list;
}

/* ---- guards ------------------------------------------------------------ */

static const char *jstr_guard(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : "";
}

/* `code` with the id argument of each ___check_obj_id(...) and
 * ___check_type_id(...) call (a number right before its ')') read as "#". */
static void without_ids(tl_buf *out, const char *code) {
  static const char *const calls[] = {"___check_obj_id(", "___check_type_id("};
  tl_buf_clear(out);
  const char *p = code;
  while (*p) {
    const char *next = NULL;
    size_t len = 0;
    for (int i = 0; i < 2; i++) {
      const char *hit = strstr(p, calls[i]);
      if (hit && (!next || hit < next)) {
        next = hit;
        len = strlen(calls[i]);
      }
    }
    if (!next) {
      tl_buf_puts(out, p);
      break;
    }
    /* The call's own ')' (brackets and quotes of the source skipped). */
    const char *q = next + len;
    int depth = 1;
    char quote = 0;
    for (; *q && depth; q++) {
      if (quote) {
        if (*q == '\\' && q[1])
          q++;
        else if (*q == quote)
          quote = 0;
      } else if (*q == '\'' || *q == '"') {
        quote = *q;
      } else if (*q == '(' || *q == '[') {
        depth++;
      } else if (*q == ')' || *q == ']') {
        depth--;
      }
    }
    const char *close = depth ? NULL : q - 1; /* at the ')' */
    const char *digits = close;
    while (digits && digits > next && digits[-1] >= '0' && digits[-1] <= '9')
      digits--;
    if (!close || digits == close) { /* no id: as it is */
      tl_buf_append(out, p, (size_t)(next + len - p));
      p = next + len;
      continue;
    }
    tl_buf_append(out, p, (size_t)(digits - p));
    tl_buf_putc(out, '#');
    p = close;
  }
}

typedef struct guard_key {
  char *key; /* kind, source and code without ids */
  cJSON *item;
  bool used;
} guard_key;

static int by_guard_key(const void *x, const void *y) {
  return strcmp(((const guard_key *)x)->key, ((const guard_key *)y)->key);
}

static char *guard_key_of(tl_buf *scratch, const cJSON *c, const char *side) {
  without_ids(scratch, jstr_guard(c, side));
  tl_buf key;
  tl_buf_init(&key);
  tl_buf_printf(&key, "%s\n%s\n%s", jstr_guard(c, "kind"),
                jstr_guard(c, "source"), scratch->data ? scratch->data : "");
  return tl_buf_detach(&key);
}

void tl_run_guards_without_ids(cJSON *guards) {
  cJSON *changes = cJSON_GetObjectItemCaseSensitive(guards, "changes");
  tl_buf x, y;
  tl_buf_init(&x);
  tl_buf_init(&y);
  size_t dropped = 0;
  TL_VEC(guard_key) removed = {0};
  cJSON *c = changes ? changes->child : NULL;
  while (c) { /* a changed guard: its two codes */
    cJSON *next = c->next;
    const char *change = jstr_guard(c, "change");
    if (strcmp(change, "changed") == 0) {
      without_ids(&x, jstr_guard(c, "before"));
      without_ids(&y, jstr_guard(c, "after"));
      if (x.len == y.len &&
          memcmp(x.data ? x.data : "", y.data ? y.data : "", x.len) == 0) {
        cJSON_Delete(cJSON_DetachItemViaPointer(changes, c));
        dropped++;
      }
    } else if (strcmp(change, "removed") == 0) {
      guard_key k = {guard_key_of(&x, c, "before"), c, false};
      TL_VEC_PUSH(removed, k);
    }
    c = next;
  }
  /* A removed and an added guard of one kind and source, one code but for
   * the ids (several of a kind on a source do not pair as "changed"). */
  tl_sort(removed.items, removed.count, sizeof *removed.items, by_guard_key);
  c = changes ? changes->child : NULL;
  while (c) {
    cJSON *next = c->next;
    if (strcmp(jstr_guard(c, "change"), "added") == 0) {
      guard_key probe = {guard_key_of(&x, c, "after"), NULL, false};
      size_t lo = 0, hi = removed.count;
      while (lo < hi) { /* the first of the key */
        size_t mid = lo + (hi - lo) / 2;
        if (by_guard_key(&removed.items[mid], &probe) < 0)
          lo = mid + 1;
        else
          hi = mid;
      }
      for (; lo < removed.count && !by_guard_key(&removed.items[lo], &probe);
           lo++)
        if (!removed.items[lo].used) {
          removed.items[lo].used = true;
          cJSON_Delete(cJSON_DetachItemViaPointer(changes, c));
          dropped++;
          break;
        }
      free(probe.key);
    }
    c = next;
  }
  for (size_t i = 0; i < removed.count; i++) {
    if (removed.items[i].used)
      cJSON_Delete(cJSON_DetachItemViaPointer(changes, removed.items[i].item));
    free(removed.items[i].key);
  }
  TL_VEC_FREE(removed);
  cJSON_AddNumberToObject(guards, "ids_only", (double)dropped);
  tl_buf_free(&x);
  tl_buf_free(&y);
}
