/* json_number.c: serde_json's number output (ryu's shortest round-trip
 * digits, laid out by ryu's rules) for numbers read from a trace. */
#define _POSIX_C_SOURCE 200809L
#include "json/json_number.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
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

/* `value` (normal, > 0) rounded to `length` significant digits, as
 * "d.ddde±x" in `text`, from its 17 digits `d17` (its nearest, exponent
 * `exponent10`): the 17 digits rounded again give the same digits as
 * rounding the value itself unless the digits dropped are exactly half a
 * unit of the last digit kept ("5", "50"), where the value may lie on
 * either side of that half; only then is it printed again. */
static void rounded_text(double value, const char d17[17], int exponent10,
                         int length, char *text, size_t size) {
  bool half = d17[length] == '5';
  for (int i = length + 1; i < 17 && half; i++)
    half = d17[i] == '0';
  if (half) {
    snprintf(text, size, "%.*e", length - 1, value);
    return;
  }
  char kept[17];
  memcpy(kept, d17, (size_t)length);
  if (d17[length] >= '5') { /* more than half: carry */
    int i = length - 1;
    while (i >= 0 && kept[i] == '9')
      kept[i--] = '0';
    if (i >= 0) {
      kept[i]++;
    } else { /* 99..9 became 100..0 */
      kept[0] = '1';
      exponent10++;
    }
  }
  snprintf(text, size, "%c.%.*se%d", kept[0], length - 1, kept + 1, exponent10);
}

/* The shortest decimal digits that read back as `value` (> 0, finite), and
 * the exponent p with value = 0.DIGITS x 10^p. */
static void shortest_digits(double value, char digits[20], int *point) {
  char text[40];
  if (value < DBL_MIN) {
    /* Subnormals have fewer significant bits: every precision from 1 is
     * tried for them. */
    for (int precision = 1; precision <= 17; precision++) {
      snprintf(text, sizeof text, "%.*e", precision - 1, value);
      if (strtod(text, NULL) == value)
        break;
    }
  } else {
    /* The shortest round-tripping digits of a normal double have at most
     * 15 digits exactly when its 15-digit rounding round-trips, and then
     * they are that rounding without its trailing zeros (a double is within
     * 1.2e-16 of a decimal of at most 15 digits that reads back as it, so
     * the nearest 15-digit decimal is that one); else 16 or 17 digits, and
     * 17 always read back. The 17 digits are printed once and the 15 and
     * 16 taken from them (rounded_text). */
    char d17[17];
    snprintf(text, sizeof text, "%.16e", value); /* "d.dddddddddddddddde±x" */
    d17[0] = text[0];
    memcpy(d17 + 1, text + 2, 16);
    int exponent10 = atoi(text + 19);
    char shorter[40];
    for (int length = 15; length <= 16; length++) {
      rounded_text(value, d17, exponent10, length, shorter, sizeof shorter);
      if (strtod(shorter, NULL) == value) {
        memcpy(text, shorter, sizeof text);
        break;
      }
    }
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

/* Doubles below 2^53 are one apart or closer, so every integer below it
 * is one. */
static const double TWO_TO_53 = 9007199254740992.0;

/* An integral double below 2^53 (`value`), as ryu writes it: its shortest
 * round-trip digits are the integer's own without their trailing zeros
 * (a decimal with fewer digits lies at least 1 away, past the half unit
 * that reads back as it), and with at most 16 digits before the point
 * ryu's layout writes them in full, zeros and ".0" after. So the integer
 * printed and ".0": the chromium events' whole-microsecond timestamps
 * ("1753139505671293.0") are of this kind, and skip shortest_digits's
 * snprintf and strtod. */
static void write_integral(tl_buf *out, uint64_t value) {
  char text[24];
  size_t at = sizeof text;
  text[--at] = '0';
  text[--at] = '.';
  do {
    text[--at] = (char)('0' + value % 10);
    value /= 10;
  } while (value);
  tl_buf_append(out, text + at, sizeof text - at);
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
  if (value < TWO_TO_53 && value == (double)(uint64_t)value) {
    write_integral(out, (uint64_t)value);
    return;
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

/* serde_json's reading of a number as a double, without its
 * float_roundtrip feature (as the Rust tool is built): the digits are
 * gathered into a u64 (digits past its range are dropped, integer ones
 * raising the exponent), and the u64, made a double, is multiplied or
 * divided once by a power of ten. So 1715885247.9018195 reads as
 * 1715885247.9018197, and we write what the Rust tool writes. False when
 * serde_json refuses the number (out of a double's range). */
static const double POW10[309] = {
    1e0,   1e1,   1e2,   1e3,   1e4,   1e5,   1e6,   1e7,   1e8,   1e9,   1e10,
    1e11,  1e12,  1e13,  1e14,  1e15,  1e16,  1e17,  1e18,  1e19,  1e20,  1e21,
    1e22,  1e23,  1e24,  1e25,  1e26,  1e27,  1e28,  1e29,  1e30,  1e31,  1e32,
    1e33,  1e34,  1e35,  1e36,  1e37,  1e38,  1e39,  1e40,  1e41,  1e42,  1e43,
    1e44,  1e45,  1e46,  1e47,  1e48,  1e49,  1e50,  1e51,  1e52,  1e53,  1e54,
    1e55,  1e56,  1e57,  1e58,  1e59,  1e60,  1e61,  1e62,  1e63,  1e64,  1e65,
    1e66,  1e67,  1e68,  1e69,  1e70,  1e71,  1e72,  1e73,  1e74,  1e75,  1e76,
    1e77,  1e78,  1e79,  1e80,  1e81,  1e82,  1e83,  1e84,  1e85,  1e86,  1e87,
    1e88,  1e89,  1e90,  1e91,  1e92,  1e93,  1e94,  1e95,  1e96,  1e97,  1e98,
    1e99,  1e100, 1e101, 1e102, 1e103, 1e104, 1e105, 1e106, 1e107, 1e108, 1e109,
    1e110, 1e111, 1e112, 1e113, 1e114, 1e115, 1e116, 1e117, 1e118, 1e119, 1e120,
    1e121, 1e122, 1e123, 1e124, 1e125, 1e126, 1e127, 1e128, 1e129, 1e130, 1e131,
    1e132, 1e133, 1e134, 1e135, 1e136, 1e137, 1e138, 1e139, 1e140, 1e141, 1e142,
    1e143, 1e144, 1e145, 1e146, 1e147, 1e148, 1e149, 1e150, 1e151, 1e152, 1e153,
    1e154, 1e155, 1e156, 1e157, 1e158, 1e159, 1e160, 1e161, 1e162, 1e163, 1e164,
    1e165, 1e166, 1e167, 1e168, 1e169, 1e170, 1e171, 1e172, 1e173, 1e174, 1e175,
    1e176, 1e177, 1e178, 1e179, 1e180, 1e181, 1e182, 1e183, 1e184, 1e185, 1e186,
    1e187, 1e188, 1e189, 1e190, 1e191, 1e192, 1e193, 1e194, 1e195, 1e196, 1e197,
    1e198, 1e199, 1e200, 1e201, 1e202, 1e203, 1e204, 1e205, 1e206, 1e207, 1e208,
    1e209, 1e210, 1e211, 1e212, 1e213, 1e214, 1e215, 1e216, 1e217, 1e218, 1e219,
    1e220, 1e221, 1e222, 1e223, 1e224, 1e225, 1e226, 1e227, 1e228, 1e229, 1e230,
    1e231, 1e232, 1e233, 1e234, 1e235, 1e236, 1e237, 1e238, 1e239, 1e240, 1e241,
    1e242, 1e243, 1e244, 1e245, 1e246, 1e247, 1e248, 1e249, 1e250, 1e251, 1e252,
    1e253, 1e254, 1e255, 1e256, 1e257, 1e258, 1e259, 1e260, 1e261, 1e262, 1e263,
    1e264, 1e265, 1e266, 1e267, 1e268, 1e269, 1e270, 1e271, 1e272, 1e273, 1e274,
    1e275, 1e276, 1e277, 1e278, 1e279, 1e280, 1e281, 1e282, 1e283, 1e284, 1e285,
    1e286, 1e287, 1e288, 1e289, 1e290, 1e291, 1e292, 1e293, 1e294, 1e295, 1e296,
    1e297, 1e298, 1e299, 1e300, 1e301, 1e302, 1e303, 1e304, 1e305, 1e306, 1e307,
    1e308,
};

/* overflow!(a * 10 + b, max) of serde_json */
static bool u64_overflows(uint64_t a, unsigned b) {
  return a >= UINT64_MAX / 10 && (a > UINT64_MAX / 10 || b > UINT64_MAX % 10);
}

static bool double_from_parts(bool positive, uint64_t significand,
                              int64_t exponent, double *out) {
  double f = (double)significand;
  for (;;) {
    int64_t magnitude = exponent < 0 ? -exponent : exponent;
    if (magnitude <= 308) {
      if (exponent >= 0) {
        f *= POW10[magnitude];
        if (isinf(f))
          return false;
      } else {
        f /= POW10[magnitude];
      }
      break;
    }
    if (f == 0)
      break;
    if (exponent >= 0)
      return false;
    f /= 1e308;
    exponent += 308;
  }
  *out = positive ? f : -f;
  return true;
}

static bool serde_double(tl_str text, double *out) {
  const char *s = text.ptr, *end = text.ptr + text.len;
  bool positive = true;
  if (s < end && *s == '-') {
    positive = false;
    s++;
  }
  uint64_t significand = 0;
  int64_t exponent = 0;
  if (s < end && *s == '0') {
    s++;
  } else {
    for (; s < end && is_digit(*s); s++) {
      unsigned digit = (unsigned)(*s - '0');
      if (u64_overflows(significand, digit)) {
        for (; s < end && is_digit(*s); s++)
          exponent++;
        break;
      }
      significand = significand * 10 + digit;
    }
  }
  if (s < end && *s == '.') {
    for (s++; s < end && is_digit(*s); s++) {
      unsigned digit = (unsigned)(*s - '0');
      if (u64_overflows(significand, digit))
        continue;
      significand = significand * 10 + digit;
      exponent--;
    }
  }
  if (s < end && (*s == 'e' || *s == 'E')) {
    s++;
    bool positive_exp = true;
    if (s < end && (*s == '+' || *s == '-'))
      positive_exp = *s++ == '+';
    int64_t exp = 0;
    for (; s < end && is_digit(*s); s++) {
      int digit = *s - '0';
      if (exp >= INT32_MAX / 10 &&
          (exp > INT32_MAX / 10 || digit > INT32_MAX % 10)) {
        if (significand != 0 && positive_exp)
          return false;
        *out = positive ? 0.0 : -0.0;
        return true;
      }
      exp = exp * 10 + digit;
    }
    exponent = positive_exp ? exponent + exp : exponent - exp;
    if (exponent > INT32_MAX)
      exponent = INT32_MAX;
    if (exponent < INT32_MIN)
      exponent = INT32_MIN;
  }
  return double_from_parts(positive, significand, exponent, out);
}

/* Whether a JSON number's text is already what tl_json_double writes for
 * it: a plain decimal "I.F" (a sign allowed, no exponent) of at most 15
 * digits, whose fraction is "0" or ends in a nonzero digit, and which, when
 * I is 0, has at most 4 zeros after the point before its first other
 * digit. Such a decimal reads back from the double nearest it (any decimal
 * of at most DBL_DIG = 15 digits does), so those digits without trailing
 * zeros are the shortest that do, and they lie where ryu's layout writes
 * them in full: the point after at most 15 digits, or at most 4 zeros
 * after "0.". serde_json reads it exactly too (its digits fit in a u64
 * below 2^53, divided by a power of ten of at most 10^15). The timestamps
 * and durations of chromium events are of this kind; copying them saves
 * tl_json_double's snprintf and strtod. */
static bool written_as_read(tl_str text) {
  const char *s = text.ptr, *end = text.ptr + text.len;
  if (s < end && *s == '-')
    s++;
  const char *whole = s;
  while (s < end && is_digit(*s))
    s++;
  size_t whole_len = (size_t)(s - whole);
  if (whole_len == 0 || s == end || *s != '.')
    return false;
  const char *fraction = ++s;
  while (s < end && is_digit(*s))
    s++;
  size_t fraction_len = (size_t)(s - fraction);
  if (s != end || fraction_len == 0)
    return false;
  bool zero_whole = whole_len == 1 && whole[0] == '0';
  if (zero_whole) {
    size_t zeros = 0;
    while (zeros < fraction_len && fraction[zeros] == '0')
      zeros++;
    if (zeros == fraction_len)
      return fraction_len == 1; /* "0.0" */
    if (zeros > 4 || fraction_len - zeros > 15)
      return false;
  } else if (whole[0] == '0' || whole_len + fraction_len > 15) {
    return false;
  }
  return (fraction_len == 1 && fraction[0] == '0') ||
         fraction[fraction_len - 1] != '0';
}

void tl_json_number(tl_buf *out, tl_str text) {
  if (!tl_json_is_number(text)) {
    tl_buf_append_str(out, text);
    return;
  }
  if (integer_fits(text) || written_as_read(text)) {
    tl_buf_append_str(out, text);
    return;
  }
  double value;
  if (serde_double(text, &value))
    tl_json_double(out, value);
  else
    tl_buf_append_str(out, text); /* serde_json refuses it: keep the text */
}
