/* profile_view.c: a view's phase and FX graph cache key for the profile
 * join (see profile_view.h). */
#include "profile/profile_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/fsutil.h"

enum {
  GRAPH_HEAD = 1 << 20, /* bytes of a post-grad graph read for its forward */
  CACHE_MAX = 64 << 20  /* larger cache artifacts are not read */
};

/* Does the parameter list [s, end) name a parameter `prefix<digits>`? */
static bool has_param(const char *s, const char *end, const char *prefix) {
  size_t n = strlen(prefix);
  for (const char *p = s; p + n < end; p++) {
    if (memcmp(p, prefix, n) != 0)
      continue;
    bool word = p == s || p[-1] == ' ' || p[-1] == ',' || p[-1] == '(';
    if (word && p[n] >= '0' && p[n] <= '9')
      return true;
  }
  return false;
}

int tl_profile_phase_of_graph(const char *text, size_t len) {
  static const char def[] = "def forward(";
  const char *end = text + len;
  for (const char *p = text; p && p + sizeof def - 1 <= end;) {
    p = memchr(p, 'd', (size_t)(end - p));
    if (!p || p + sizeof def - 1 > end)
      break;
    if (memcmp(p, def, sizeof def - 1) != 0) {
      p++;
      continue;
    }
    const char *line_end = memchr(p, '\n', (size_t)(end - p));
    if (!line_end)
      line_end = end;
    if (has_param(p, line_end, "tangents_"))
      return TL_PROF_BACKWARD;
    if (has_param(p, line_end, "primals_"))
      return TL_PROF_FORWARD;
    return TL_PROF_INFERENCE;
  }
  return -1;
}

static bool is_cache_artifact(const tl_artifact *a) {
  return a->name && (strncmp(a->name, "fx_graph_cache_miss", 19) == 0 ||
                     strncmp(a->name, "fx_graph_cache_hit", 18) == 0 ||
                     strncmp(a->name, "fx_graph_cache_bypass", 21) == 0);
}

/* The "key" of the cache artifact at `a`, into facts->key; false when it
 * has none. */
static bool read_key(const char *out_dir, const tl_artifact *a,
                     tl_profile_view_facts *facts) {
  const char *rel = a->text_path ? a->text_path : a->path;
  if (!rel)
    return false;
  tl_buf path, text;
  tl_buf_init(&path);
  tl_buf_init(&text);
  tl_buf_printf(&path, "%s/%s", out_dir, rel);
  char error[256];
  bool ok = false;
  if (tl_fs_read_file(path.data, &text, error, sizeof error) &&
      text.len < CACHE_MAX) {
    cJSON *json = cJSON_ParseWithLength(text.data, text.len);
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(json, "key");
    if (cJSON_IsString(key) && key->valuestring[0] &&
        strlen(key->valuestring) < sizeof facts->key) {
      snprintf(facts->key, sizeof facts->key, "%s", key->valuestring);
      ok = true;
    }
    cJSON_Delete(json);
  }
  tl_buf_free(&path);
  tl_buf_free(&text);
  return ok;
}

/* "        # File: /m/model.py:34 in forward, code: h = relu(x)" ->
 * key "/m/model.py:34", code "h = relu(x)". False for any other line. */
static bool file_comment(const char *s, size_t n, tl_buf *key, tl_buf *code) {
  static const char tag[] = "# File: ";
  size_t i = 0;
  while (i < n && s[i] == ' ')
    i++;
  if (n - i < sizeof tag - 1 || memcmp(s + i, tag, sizeof tag - 1) != 0)
    return false;
  const char *from = s + i + sizeof tag - 1, *end = s + n;
  /* the last ":<digits> in " before ", code: " (a path may hold ':') */
  const char *at = NULL;
  for (const char *p = from; p < end; p++) {
    if (*p != ':' || p + 1 >= end || p[1] < '0' || p[1] > '9')
      continue;
    const char *d = p + 1;
    while (d < end && *d >= '0' && *d <= '9')
      d++;
    if (end - d >= 4 && memcmp(d, " in ", 4) == 0)
      at = d;
  }
  if (!at)
    return false;
  tl_buf_clear(key);
  tl_buf_append(key, from, (size_t)(at - from));
  tl_buf_clear(code);
  static const char code_tag[] = ", code: ";
  for (const char *p = at; p + sizeof code_tag - 1 <= end; p++) {
    if (memcmp(p, code_tag, sizeof code_tag - 1) == 0) {
      p += sizeof code_tag - 1;
      tl_buf_append(code, p, (size_t)(end - p));
      break;
    }
  }
  return true;
}

void tl_profile_pre_sources(const char *text, size_t len,
                            tl_profile_view_facts *facts) {
  tl_buf key, code;
  tl_buf_init(&key);
  tl_buf_init(&code);
  int current = 0; /* source index + 1 of the lines below a comment */
  TL_VEC_PUSH(facts->pre_source, 0); /* line 0 */
  int line = 1;
  for (size_t at = 0; at < len; line++) {
    const char *s = text + at;
    const char *nl = memchr(s, '\n', len - at);
    size_t n = nl ? (size_t)(nl - s) : len - at;
    at += n + (nl ? 1 : 0);
    size_t blank = 0;
    while (blank < n && (s[blank] == ' ' || s[blank] == '\r'))
      blank++;
    if (blank == n) {
      current = 0; /* a blank line ends a comment's group */
    } else if (file_comment(s, n, &key, &code)) {
      /* the same model line as the previous comment: the same source */
      if (!(current &&
            strcmp(facts->sources.items[current - 1].key, key.data) == 0)) {
        tl_prof_source src = {tl_xstrdup(key.data), tl_xstrdup(code.data)};
        TL_VEC_PUSH(facts->sources, src);
        current = (int)facts->sources.count;
      }
    }
    TL_VEC_PUSH(facts->pre_source, current);
  }
  tl_buf_free(&key);
  tl_buf_free(&code);
}

void tl_profile_view_facts_free(tl_profile_view_facts *facts) {
  for (size_t i = 0; i < facts->sources.count; i++) {
    free(facts->sources.items[i].key);
    free(facts->sources.items[i].code);
  }
  TL_VEC_FREE(facts->sources);
  TL_VEC_FREE(facts->pre_source);
}

void tl_profile_view_facts_read(const char *out_dir, const tl_compile_dir *dir,
                                const tl_artifact *mappings,
                                const tl_artifact *pre, const tl_artifact *post,
                                bool aot, tl_profile_view_facts *facts) {
  memset(facts, 0, sizeof *facts);
  facts->phase = -1;
  facts->key[0] = '\0';
  if (pre && pre->text_path) {
    tl_buf path, text;
    tl_buf_init(&path);
    tl_buf_init(&text);
    tl_buf_printf(&path, "%s/%s", out_dir, pre->text_path);
    char error[256];
    if (tl_fs_read_file(path.data, &text, error, sizeof error))
      tl_profile_pre_sources(text.data, text.len, facts);
    tl_buf_free(&path);
    tl_buf_free(&text);
  }
  if (aot) {
    facts->phase = TL_PROF_INFERENCE; /* AOTInductor compiles for inference */
  } else if (post && post->text_path) {
    tl_buf path;
    tl_buf_init(&path);
    tl_buf_printf(&path, "%s/%s", out_dir, post->text_path);
    FILE *f = fopen(path.data, "rb");
    if (f) {
      char *head = tl_xmalloc(GRAPH_HEAD);
      size_t n = fread(head, 1, GRAPH_HEAD, f);
      facts->phase = tl_profile_phase_of_graph(head, n);
      free(head);
      fclose(f);
    }
    tl_buf_free(&path);
  }
  if (!mappings || !dir->artifacts.count)
    return;
  size_t at = (size_t)(mappings - dir->artifacts.items),
         n = dir->artifacts.count;
  if (at >= n)
    return;
  /* Logged when the compilation ends (torch 2.13): after the view's
   * mapping, before the next view's. A key logged before the mapping could
   * be the previous compilation's, so it is not taken. */
  for (size_t i = at + 1; i < n; i++) {
    const tl_artifact *a = &dir->artifacts.items[i];
    if (a->role == TL_ROLE_NODE_MAPPINGS)
      break;
    if (is_cache_artifact(a)) {
      read_key(out_dir, a, facts);
      return;
    }
  }
}
