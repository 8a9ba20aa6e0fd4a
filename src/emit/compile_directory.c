/* compile_directory.c: compile_directory.json (compile_directory.h). */
#include "emit/compile_directory.h"

#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"
#include "json/json_serde.h"

const char *tl_cache_suffix(const tl_artifact *a) {
  if (!a->path)
    return "";
  if (strstr(a->path, "cache_miss"))
    return "\xe2\x9d\x8c"; /* ❌ */
  if (strstr(a->path, "cache_hit"))
    return "\xe2\x9c\x85"; /* ✅ */
  if (strstr(a->path, "cache_bypass"))
    return "\xe2\x9d\x93"; /* ❓ */
  return "";
}

typedef struct listed {
  const char *key;
  const tl_artifact *artifact; /* NULL: the key alone */
  size_t order;
} listed;

static int by_key_then_order(const void *a, const void *b) {
  const listed *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  if (c)
    return c;
  return x->order < y->order ? -1 : x->order > y->order;
}

static void artifact_json(tl_buf *out, const tl_artifact *a) {
  tl_buf_puts(out, "{\"name\":");
  tl_json_serde_string(out, tl_str_from(a->name));
  tl_buf_printf(out, ",\"number\":%d,\"readable_url\":", a->listed_number);
  if (a->readable_path)
    tl_json_serde_string(out, tl_str_from(a->readable_path));
  else
    tl_buf_puts(out, "null");
  tl_buf_puts(out, ",\"suffix\":");
  tl_json_serde_string(out, tl_str_from(tl_cache_suffix(a)));
  tl_buf_puts(out, ",\"url\":");
  const char *url = a->url ? a->url : a->path;
  tl_json_serde_string(out, tl_str_from(url ? url : ""));
  tl_buf_putc(out, '}');
}

static bool valid(const char *s) {
  tl_str t = tl_str_from(s ? s : "");
  return tl_utf8_valid_prefix(t) == t.len;
}

static const char *url_of(const tl_artifact *a) {
  const char *url = a->url ? a->url : a->path;
  return url ? url : "";
}

/* The file as serde_json writes it pretty, written directly: the keys come
 * sorted (by_key_then_order), and so do each artifact's members. False,
 * with `out` part-written, when a string is not valid UTF-8: serde's parse
 * would make its bytes U+FFFD, which write_through_serde leaves to it. */
static bool write_pretty(tl_buf *out, const listed *items, size_t count) {
  if (!count) {
    tl_buf_puts(out, "{}");
    return true;
  }
  tl_buf_puts(out, "{");
  for (size_t i = 0; i < count;) {
    const char *key = items[i].key;
    if (!valid(key))
      return false;
    tl_buf_puts(out, i ? ",\n  " : "\n  ");
    tl_json_serde_string(out, tl_str_from(key));
    tl_buf_puts(out, ": {\n    \"artifacts\": [");
    bool first = true;
    for (; i < count && strcmp(items[i].key, key) == 0; i++) {
      const tl_artifact *a = items[i].artifact;
      if (!a)
        continue;
      if (!valid(a->name) || !valid(a->readable_path) || !valid(url_of(a)))
        return false;
      tl_buf_puts(out, first ? "\n      {\n        \"name\": "
                             : ",\n      {\n        \"name\": ");
      first = false;
      tl_json_serde_string(out, tl_str_from(a->name));
      tl_buf_printf(out,
                    ",\n        \"number\": %d,\n        "
                    "\"readable_url\": ",
                    a->listed_number);
      if (a->readable_path)
        tl_json_serde_string(out, tl_str_from(a->readable_path));
      else
        tl_buf_puts(out, "null");
      tl_buf_puts(out, ",\n        \"suffix\": ");
      tl_json_serde_string(out, tl_str_from(tl_cache_suffix(a)));
      tl_buf_puts(out, ",\n        \"url\": ");
      tl_json_serde_string(out, tl_str_from(url_of(a)));
      tl_buf_puts(out, "\n      }");
    }
    tl_buf_puts(out, first ? "]\n  }" : "\n    ]\n  }");
  }
  tl_buf_puts(out, "\n}");
  return true;
}

/* The same file made compact, then re-written by serde (which repairs any
 * invalid UTF-8 as the Rust tool's strings are). */
static void write_through_serde(tl_buf *pretty, const listed *items,
                                size_t count) {
  tl_buf compact;
  tl_buf_init(&compact);
  tl_buf_putc(&compact, '{');
  for (size_t i = 0; i < count;) {
    const char *key = items[i].key;
    if (i)
      tl_buf_putc(&compact, ',');
    tl_json_serde_string(&compact, tl_str_from(key));
    tl_buf_puts(&compact, ":{\"artifacts\":[");
    bool first = true;
    for (; i < count && strcmp(items[i].key, key) == 0; i++) {
      if (!items[i].artifact)
        continue;
      if (!first)
        tl_buf_putc(&compact, ',');
      first = false;
      artifact_json(&compact, items[i].artifact);
    }
    tl_buf_puts(&compact, "]}");
  }
  tl_buf_putc(&compact, '}');
  tl_json_serde_options o = {true, 0, NULL, 0, 0};
  tl_json_serde(pretty, tl_buf_str(&compact), &o, NULL, NULL, 0);
  tl_buf_free(&compact);
}

void tl_compile_directory_write(tl_store *store) {
  /* Every folder's key, and each artifact under it, sorted by key and then
   * by output order (the running number, files before their pages). */
  TL_VEC(listed) all = {0};
  for (size_t i = 0; i < store->dirs.count; i++) {
    const tl_compile_dir *dir = store->dirs.items[i];
    listed key = {dir->display, NULL, 0};
    TL_VEC_PUSH(all, key);
    for (size_t k = 0; k < dir->artifacts.count; k++) {
      const tl_artifact *a = &dir->artifacts.items[k];
      listed item = {dir->display, a, (size_t)a->listed_number + 1};
      TL_VEC_PUSH(all, item);
    }
  }
  if (all.count)
    qsort(all.items, all.count, sizeof *all.items, by_key_then_order);
  tl_buf pretty;
  tl_buf_init(&pretty);
  if (!write_pretty(&pretty, all.items, all.count)) {
    tl_buf_clear(&pretty);
    write_through_serde(&pretty, all.items, all.count);
  }
  tl_store_write(store, "compile_directory.json", pretty.data, pretty.len);
  tl_buf_free(&pretty);
  TL_VEC_FREE(all);
}
