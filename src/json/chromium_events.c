/* chromium_events.c: chromium events with their pid set to a rank
 * (chromium_events.h). */
#include "json/chromium_events.h"

#include <stdio.h>
#include <string.h>

#include "json/json_serde.h"

/* The end of the JSON value starting at text[i] (a scan, no recursion):
 * strings skipped whole, brackets counted, up to a ',' or a closing
 * bracket at the value's own level. */
size_t tl_chromium_value_end(const char *t, size_t i, size_t n) {
  size_t depth = 0;
  for (; i < n; i++) {
    char c = t[i];
    if (c == '"') {
      for (i++; i < n && t[i] != '"'; i++)
        if (t[i] == '\\')
          i++;
    } else if (c == '[' || c == '{') {
      depth++;
    } else if (c == ']' || c == '}') {
      if (!depth)
        return i;
      depth--;
    } else if (c == ',' && !depth) {
      return i;
    }
  }
  return n;
}

size_t tl_chromium_skip_ws(const char *t, size_t i, size_t n) {
  while (i < n && (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t'))
    i++;
  return i;
}

/* The object t[i..end) without its top-level "pid" members, into `out`. */
static void without_pid(tl_buf *out, const char *t, size_t i, size_t end) {
  bool first = true;
  tl_buf_putc(out, '{');
  for (i = tl_chromium_skip_ws(t, i + 1, end); i < end && t[i] == '"';) {
    size_t stop = tl_chromium_value_end(t, i, end);
    bool pid = stop - i > 5 && memcmp(t + i, "\"pid\"", 5) == 0 &&
               t[tl_chromium_skip_ws(t, i + 5, stop)] == ':';
    if (!pid) {
      if (!first)
        tl_buf_putc(out, ',');
      tl_buf_append(out, t + i, stop - i);
      first = false;
    }
    i = tl_chromium_skip_ws(t, stop < end && t[stop] == ',' ? stop + 1 : stop,
                            end);
  }
  tl_buf_putc(out, '}');
}

/* One event, t[i..end), with "pid" set to the rank, pretty at depth 1.
 * False when it is not JSON (left out). */
bool tl_chromium_event_with_pid(tl_buf *out, const char *t, size_t i,
                                size_t end, unsigned rank) {
  char pid[32];
  snprintf(pid, sizeof pid, "%u", rank);
  tl_json_member member = {"pid", tl_str_from(pid)};
  tl_json_serde_options opts = {true, 1, NULL, 0,
                                tl_json_layout_limit(end - i)};
  tl_buf obj;
  tl_buf_init(&obj);
  if (t[i] == '{') {
    without_pid(&obj, t, i, end);
    opts.extra = &member;
    opts.extra_count = 1;
  } else {
    tl_buf_append(&obj, t + i, end - i);
  }
  tl_json_serde_status st =
      tl_json_serde(out, tl_buf_str(&obj), &opts, NULL, NULL, 0);
  bool ok = st == TL_JSON_SERDE_OK || st == TL_JSON_SERDE_OK_COMPACT;
  tl_buf_free(&obj);
  return ok;
}

/* Finds the next top-level member of a depth-1 pretty object (a line of
 * exactly four spaces and '"'; nested lines are indented deeper, and a
 * string never holds a raw newline) at or after `from`: the offset of its
 * '"', or 0 when the object's closing "\n  }" comes first. */
static size_t next_member(const char *t, size_t from, size_t len) {
  for (size_t i = from; i + 6 <= len; i++) {
    const char *nl = memchr(t + i, '\n', len - i);
    if (!nl)
      return 0;
    i = (size_t)(nl - t);
    if (len - i >= 6 && memcmp(t + i, "\n    \"", 6) == 0)
      return i + 5;
    if (len - i >= 4 && memcmp(t + i, "\n  }", 4) == 0)
      return 0;
  }
  return 0;
}

bool tl_chromium_event_with_pid_pretty(tl_buf *out, const char *t, size_t len,
                                       unsigned rank) {
  if (len < 8 || memcmp(t, "{\n    \"", 7) != 0 ||
      memcmp(t + len - 4, "\n  }", 4) != 0)
    return false; /* not an object with members: the general way */
  char pid[32];
  int pid_len = snprintf(pid, sizeof pid, "\"pid\": %u", rank);
  /* The first member whose key sorts at or after "pid" (byte order of the
   * key text; a key with an escape in it goes the general way). */
  for (size_t at = 6; at; at = next_member(t, at, len)) {
    const char *key = t + at + 1;
    const char *close = memchr(key, '"', len - (size_t)(key - t));
    if (!close)
      return false;
    size_t key_len = (size_t)(close - key);
    if (memchr(key, '\\', key_len))
      return false;
    size_t common = key_len < 3 ? key_len : 3;
    int order = memcmp(key, "pid", common);
    if (order == 0)
      order = key_len < 3 ? -1 : key_len > 3;
    if (order < 0)
      continue;
    tl_buf_append(out, t, at);
    tl_buf_append(out, pid, (size_t)pid_len);
    if (order == 0) { /* "pid" itself: its value up to the next member */
      size_t next = next_member(t, at, len);
      if (next)
        tl_buf_append(out, t + next - 6, len - (next - 6));
      else
        tl_buf_append(out, t + len - 4, 4);
    } else {
      tl_buf_puts(out, ",\n    ");
      tl_buf_append(out, t + at, len - at);
    }
    return true;
  }
  /* Every key sorts before "pid": it goes last. */
  tl_buf_append(out, t, len - 4);
  tl_buf_puts(out, ",\n    ");
  tl_buf_append(out, pid, (size_t)pid_len);
  tl_buf_append(out, t + len - 4, 4);
  return true;
}

void tl_chromium_part_path(tl_buf *path, const char *out_dir,
                           const char *dir_name) {
  tl_buf_clear(path);
  tl_buf_printf(path, "%s/.%s.chromium_events.part", out_dir, dir_name);
}
