/* profile_view.c: a view's phase and FX graph cache key for the profile
 * join (see profile_view.h). */
#include "profile_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fsutil.h"

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

void tl_profile_view_facts_read(const char *out_dir, const tl_compile_dir *dir,
                                const tl_artifact *mappings,
                                const tl_artifact *post, bool aot,
                                tl_profile_view_facts *facts) {
  facts->phase = -1;
  facts->key[0] = '\0';
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
