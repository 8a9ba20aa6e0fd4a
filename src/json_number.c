/* json_number.c: serde_json's number output (ryu's shortest round-trip
 * digits, laid out by ryu's rules) for numbers read from a trace. */
#define _POSIX_C_SOURCE 200809L
#include "json_number.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool tl_json_is_number(tl_str text) {
  const char *s = text.ptr, *end = text.ptr + text.len;
  if (s < end && *s == '-')
    s++;
  if (s == end || !is_digit(*s))
    return false;
  if (*s == '0')
    s++;
  else
    while (s < end && is_digit(*s))
      s++;
  if (s < end && *s == '.') {
    s++;
    if (s == end || !is_digit(*s))
      return false;
    while (s < end && is_digit(*s))
      s++;
  }
  if (s < end && (*s == 'e' || *s == 'E')) {
    s++;
    if (s < end && (*s == '+' || *s == '-'))
      s++;
    if (s == end || !is_digit(*s))
      return false;
    while (s < end && is_digit(*s))
      s++;
  }
  return s == end;
}

/* The shortest decimal digits that read back as `value` (> 0, finite), and
 * the exponent p with value = 0.DIGITS x 10^p. */
static void shortest_digits(double value, char digits[20], int *point) {
  char text[40];
  for (int precision = 1; precision <= 17; precision++) {
    snprintf(text, sizeof text, "%.*e", precision - 1, value);
    if (strtod(text, NULL) == value)
      break;
  }
  /* text is "d.ddde±xx" or "de±xx" */
  size_t n = 0;
  const char *p = text;
  for (; *p && *p != 'e'; p++)
    if (is_digit(*p))
      digits[n++] = *p;
  while (n > 1 && digits[n - 1] == '0')
    n--;
  digits[n] = '\0';
  *point = atoi(p + 1) + 1;
}

void tl_json_double(tl_buf *out, double value) {
  if (isnan(value) || isinf(value)) {
    tl_buf_puts(out, "null");
    return;
  }
  if (value == 0) {
    tl_buf_puts(out, signbit(value) ? "-0.0" : "0.0");
    return;
  }
  if (value < 0) {
    tl_buf_putc(out, '-');
    value = -value;
  }
  char digits[20];
  int point;
  shortest_digits(value, digits, &point);
  int length = (int)strlen(digits);
  if (length <= point && point <= 16) {
    /* integral: the digits, zeros up to the point, ".0" */
    tl_buf_puts(out, digits);
    for (int i = length; i < point; i++)
      tl_buf_putc(out, '0');
    tl_buf_puts(out, ".0");
  } else if (0 < point && point <= 16) {
    tl_buf_append(out, digits, (size_t)point);
    tl_buf_putc(out, '.');
    tl_buf_puts(out, digits + point);
  } else if (-5 < point && point <= 0) {
    tl_buf_puts(out, "0.");
    for (int i = point; i < 0; i++)
      tl_buf_putc(out, '0');
    tl_buf_puts(out, digits);
  } else {
    tl_buf_putc(out, digits[0]);
    if (length > 1) {
      tl_buf_putc(out, '.');
      tl_buf_puts(out, digits + 1);
    }
    tl_buf_printf(out, "e%d", point - 1);
  }
}

/* An integer literal that fits: u64 for a plain one, i64 for a negative
 * one. serde_json reads "-0" as the float -0.0, so it does not fit. */
static bool integer_fits(tl_str text) {
  char buf[32];
  if (text.len == 0 || text.len >= sizeof buf)
    return false;
  for (size_t i = 0; i < text.len; i++)
    if (!is_digit(text.ptr[i]) && !(i == 0 && text.ptr[i] == '-'))
      return false;
  memcpy(buf, text.ptr, text.len);
  buf[text.len] = '\0';
  errno = 0;
  if (buf[0] == '-') {
    long long v = strtoll(buf, NULL, 10);
    return errno == 0 && v != 0;
  }
  (void)strtoull(buf, NULL, 10);
  return errno == 0;
}

void tl_json_number(tl_buf *out, tl_str text) {
  if (!tl_json_is_number(text)) {
    tl_buf_append_str(out, text);
    return;
  }
  if (integer_fits(text)) {
    tl_buf_append_str(out, text);
    return;
  }
  tl_buf copy;
  tl_buf_init(&copy);
  tl_buf_append_str(&copy, text);
  errno = 0;
  double value = strtod(copy.data, NULL);
  if (errno == ERANGE && isinf(value))
    tl_buf_append_str(out, text); /* serde_json refuses it: keep the text */
  else
    tl_json_double(out, value);
  tl_buf_free(&copy);
}
