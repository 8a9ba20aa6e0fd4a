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

#include <math.h>
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

/* cJSON's print of a string (print_string_ptr): between quotes, '"' and
 * '\\' escaped, the control characters as \b \f \n \r \t or \u00xx,
 * every other byte as it is; NULL as "". */
static void put_string(tl_buf *out, const char *s) {
  tl_buf_putc(out, '"');
  const unsigned char *c = (const unsigned char *)(s ? s : ""), *run = c;
  for (; *c; c++) {
    if (*c > 31 && *c != '"' && *c != '\\')
      continue;
    tl_buf_append(out, (const char *)run, (size_t)(c - run));
    run = c + 1;
    switch (*c) {
    case '"':
      tl_buf_puts(out, "\\\"");
      break;
    case '\\':
      tl_buf_puts(out, "\\\\");
      break;
    case '\b':
      tl_buf_puts(out, "\\b");
      break;
    case '\f':
      tl_buf_puts(out, "\\f");
      break;
    case '\n':
      tl_buf_puts(out, "\\n");
      break;
    case '\r':
      tl_buf_puts(out, "\\r");
      break;
    case '\t':
      tl_buf_puts(out, "\\t");
      break;
    default:
      tl_buf_printf(out, "\\u%04x", *c);
    }
  }
  tl_buf_append(out, (const char *)run, (size_t)(c - run));
  tl_buf_putc(out, '"');
}

/* cJSON's print of a number: "%1.15g" when that reads back as the same
 * double, else "%1.17g"; for a whole number of fewer than 16 digits that
 * is its digits, written here at once (cJSON 1.7.15 formats and reads back
 * every number), and every other number is cJSON's own print. */
static void put_number(tl_buf *out, const cJSON *item) {
  double d = item->valuedouble;
  if (d > -1e15 && d < 1e15 && d == (double)(long long)d &&
      !(d == 0 && signbit(d))) {
    tl_buf_printf(out, "%lld", (long long)d);
    return;
  }
  char *text = printed(cJSON_PrintUnformatted(item));
  tl_buf_puts(out, text);
  free(text);
}

/* Does `value` hold a raw item (text cJSON prints as it is, whose line
 * breaks print_at must indent)? */
static bool holds_raw(const cJSON *value) {
  if (cJSON_IsRaw(value))
    return true;
  const cJSON *child;
  cJSON_ArrayForEach(child, value) if (holds_raw(child)) return true;
  return false;
}

/* cJSON_Print's text of `item` (print_value), entered at cJSON's output
 * depth `depth`: an object's members are indented depth + 1 tabs and its
 * closing brace depth tabs; an array's elements are entered at depth + 1.
 * False for an item cJSON cannot print (an invalid type, a raw item). */
static bool put_value(tl_buf *out, const cJSON *item, int depth) {
  switch (item->type & 0xFF) {
  case cJSON_NULL:
    tl_buf_puts(out, "null");
    return true;
  case cJSON_False:
    tl_buf_puts(out, "false");
    return true;
  case cJSON_True:
    tl_buf_puts(out, "true");
    return true;
  case cJSON_Number:
    put_number(out, item);
    return true;
  case cJSON_String:
    put_string(out, item->valuestring);
    return true;
  case cJSON_Array: {
    tl_buf_putc(out, '[');
    for (const cJSON *e = item->child; e; e = e->next) {
      if (!put_value(out, e, depth + 1))
        return false;
      if (e->next)
        tl_buf_puts(out, ", ");
    }
    tl_buf_putc(out, ']');
    return true;
  }
  case cJSON_Object: {
    tl_buf_puts(out, "{\n");
    for (const cJSON *m = item->child; m; m = m->next) {
      put_tabs(out, depth + 1);
      put_string(out, m->string);
      tl_buf_puts(out, ":\t");
      if (!put_value(out, m, depth + 1))
        return false;
      tl_buf_puts(out, m->next ? ",\n" : "\n");
    }
    put_tabs(out, depth);
    tl_buf_putc(out, '}');
    return true;
  }
  default:
    return false;
  }
}

/* Appends cJSON_Print's text of `value`, each line it breaks starting with
 * `depth` more tabs: printed here (put_value), but a tree with a raw item
 * by cJSON_Print. An item cJSON cannot print ends the run, as there. */
static void print_at(tl_buf *out, const cJSON *value, int depth) {
  if (!holds_raw(value)) {
    if (!put_value(out, value, depth))
      printed(NULL);
    return;
  }
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
