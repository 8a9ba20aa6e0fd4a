/* json_print.c: cJSON_Print's layout, one member at a time (json_print.h).
 *
 * cJSON_Print writes an object at depth d (d containers around its members)
 * as "{\n", each member as d tabs, the key, ":\t" and the value, members
 * separated by ",\n", then "\n" (when it has members), d - 1 tabs and "}";
 * an array as "[", its elements separated by ", ", and "]". A value printed
 * alone is laid out at depth 0; inside d containers every line it breaks
 * starts with d more tabs. Raw newlines and tabs occur only as layout:
 * cJSON escapes every control character inside a string. */
#include "json/json_print.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cJSON_Print gives NULL when memory runs out or the text would pass
 * INT_MAX bytes: each member is printed on its own (a view's largest, a
 * line map, is a few megabytes), so either is the end of the run. */
static char *printed(char *text) {
  if (!text) {
    fprintf(stderr, "tlparse: cannot print a JSON value: out of memory, or "
                    "larger than 2 GiB\n");
    abort();
  }
  return text;
}

static void put_tabs(tl_buf *out, int n) {
  for (int i = 0; i < n; i++)
    tl_buf_putc(out, '\t');
}

void tl_json_printer_init(tl_json_printer *p, tl_buf *out) {
  memset(p, 0, sizeof *p);
  p->out = out;
}

/* Does cJSON print `key` as it is, between quotes? It escapes only '"',
 * '\\' and the bytes below 32 (UTF-8 and DEL as they are). */
static bool prints_as_is(const char *key) {
  for (const unsigned char *c = (const unsigned char *)key; *c; c++)
    if (*c < 32 || *c == '"' || *c == '\\')
      return false;
  return true;
}

/* The separator, indent and key before a member of the container open. */
static void begin_member(tl_json_printer *p, const char *key) {
  if (p->depth == 0)
    return;
  tl_buf *out = p->out;
  if (p->open[p->depth - 1].array) {
    if (p->open[p->depth - 1].count)
      tl_buf_puts(out, ", ");
  } else {
    if (p->open[p->depth - 1].count)
      tl_buf_puts(out, ",\n");
    put_tabs(out, p->depth);
    if (!key || prints_as_is(key)) { /* most keys: names, line numbers */
      tl_buf_putc(out, '"');
      tl_buf_puts(out, key ? key : "");
      tl_buf_puts(out, "\":\t");
    } else {
      cJSON *name = cJSON_CreateStringReference(key);
      char *text = printed(cJSON_PrintUnformatted(name));
      tl_buf_puts(out, text);
      free(text);
      cJSON_Delete(name);
      tl_buf_puts(out, ":\t");
    }
  }
  p->open[p->depth - 1].count++;
}

void tl_json_print_open(tl_json_printer *p, const char *key, bool array) {
  if (p->depth == TL_JSON_PRINT_MAX_DEPTH) {
    fprintf(stderr, "tlparse: JSON printer nested more than %d deep\n",
            TL_JSON_PRINT_MAX_DEPTH);
    abort();
  }
  begin_member(p, key);
  tl_buf_puts(p->out, array ? "[" : "{\n");
  p->open[p->depth].array = array;
  p->open[p->depth].count = 0;
  p->depth++;
}

void tl_json_print_close(tl_json_printer *p) {
  if (p->depth == 0)
    return;
  p->depth--;
  if (p->open[p->depth].array) {
    tl_buf_putc(p->out, ']');
    return;
  }
  if (p->open[p->depth].count)
    tl_buf_putc(p->out, '\n');
  put_tabs(p->out, p->depth);
  tl_buf_putc(p->out, '}');
}

/* Appends cJSON_Print's text of `value`, each line it breaks starting with
 * `depth` more tabs. */
static void print_at(tl_buf *out, const cJSON *value, int depth) {
  char *text = printed(cJSON_Print(value));
  size_t start = 0, len = strlen(text);
  for (size_t i = 0; depth && i < len; i++) {
    if (text[i] != '\n')
      continue;
    tl_buf_append(out, text + start, i + 1 - start);
    put_tabs(out, depth);
    start = i + 1;
  }
  tl_buf_append(out, text + start, len - start);
  free(text);
}

void tl_json_print_item(tl_json_printer *p, const char *key, cJSON *value) {
  begin_member(p, key);
  print_at(p->out, value, p->depth);
  cJSON_Delete(value);
}

void tl_json_print_int(tl_json_printer *p, const char *key, int value) {
  begin_member(p, key);
  tl_buf_printf(p->out, "%d", value); /* cJSON's print of a whole number */
}

void tl_json_print_tree(tl_buf *out, const cJSON *value) {
  if (!cJSON_IsObject(value) && !cJSON_IsArray(value)) {
    print_at(out, value, 0);
    return;
  }
  /* Member by member: the whole is never one printed string. */
  tl_json_printer p;
  tl_json_printer_init(&p, out);
  tl_json_print_open(&p, NULL, cJSON_IsArray(value));
  const cJSON *member;
  cJSON_ArrayForEach(member, value) {
    begin_member(&p, cJSON_IsObject(value) ? member->string : NULL);
    print_at(out, member, p.depth);
  }
  tl_json_print_close(&p);
}

void tl_json_compact(tl_buf *out, tl_str formatted) {
  /* When `out` holds `formatted` itself, every byte is written at or before
   * the place it is read from. */
  bool in_place = out->data && formatted.ptr == out->data;
  if (!in_place)
    tl_buf_reserve(out, formatted.len); /* may drain: `w` is taken after */
  size_t w = in_place ? 0 : out->len;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < formatted.len; i++) {
    char c = formatted.ptr[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      continue;
    }
    out->data[w++] = c;
  }
  out->len = w;
  out->data[w] = '\0';
}

cJSON *tl_json_parse_printed(tl_str text) {
  cJSON *json = cJSON_ParseWithLength(text.ptr, text.len);
  if (!json) {
    fprintf(stderr, "tlparse: out of memory reading JSON of %zu bytes\n",
            text.len);
    abort();
  }
  return json;
}
