/* json_number_test.c: numbers as the Rust tlparse writes them (serde_json +
 * ryu). Every expected text here was printed by the Rust tool 0.4.3 or by
 * serde_json's documented rules (parity spec section 10). */
#include "check.h"
#include "json/json_number.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char text_buf[128];

static const char *number(const char *text) {
  tl_buf out;
  tl_buf_init(&out);
  tl_json_number(&out, tl_str_from(text));
  snprintf(text_buf, sizeof text_buf, "%s", out.data);
  tl_buf_free(&out);
  return text_buf;
}

static const char *dbl(double value) {
  tl_buf out;
  tl_buf_init(&out);
  tl_json_double(&out, value);
  snprintf(text_buf, sizeof text_buf, "%s", out.data);
  tl_buf_free(&out);
  return text_buf;
}

TEST(integer_literals_that_fit_are_copied) {
  CHECK_STR_EQ(number("0"), "0");
  CHECK_STR_EQ(number("139877824898048"), "139877824898048");
  CHECK_STR_EQ(number("18446744073709551615"), "18446744073709551615");
  CHECK_STR_EQ(number("-9223372036854775808"), "-9223372036854775808");
  CHECK_STR_EQ(number("-12"), "-12");
}

TEST(integers_past_u64_or_i64_become_floats) {
  CHECK_STR_EQ(number("18446744073709551616"), "1.8446744073709552e19");
  CHECK_STR_EQ(number("-9223372036854775809"), "-9.223372036854776e18");
  CHECK_STR_EQ(number("-0"), "-0.0");
}

TEST(floats_take_their_shortest_round_trip_digits) {
  CHECK_STR_EQ(number("1733527214084600.2"), "1733527214084600.2");
  CHECK_STR_EQ(number("1733527214084600.25"), "1733527214084600.2");
  CHECK_STR_EQ(number("100.0"), "100.0");
  CHECK_STR_EQ(number("1E5"), "100000.0");
  CHECK_STR_EQ(number("1.50"), "1.5");
  CHECK_STR_EQ(number("12345678.9"), "12345678.9");
  CHECK_STR_EQ(number("0.1"), "0.1");
  CHECK_STR_EQ(number("3.910064697265625e-05"), "0.00003910064697265625");
  CHECK_STR_EQ(number("0.0"), "0.0");
  CHECK_STR_EQ(number("-0.0"), "-0.0");
  CHECK_STR_EQ(number("2.0"), "2.0");
}

/* serde_json without float_roundtrip gathers the digits into a u64, which
 * rounds past 2^53 (links.log's start_time, as tlparse 0.4.3 writes it). */
TEST(floats_are_read_as_serde_json_reads_them) {
  CHECK_STR_EQ(number("1715885247.9018195"), "1715885247.9018197");
  CHECK_STR_EQ(number("123456789012345678901234567890"),
               "1.2345678901234568e29");
}

TEST(exponents_are_written_without_plus_or_padding) {
  CHECK_STR_EQ(number("1e16"), "1e16");
  CHECK_STR_EQ(number("1e15"), "1000000000000000.0");
  CHECK_STR_EQ(number("1e21"), "1e21");
  CHECK_STR_EQ(number("1.5e-7"), "1.5e-7");
  CHECK_STR_EQ(number("1e-7"), "1e-7");
  CHECK_STR_EQ(number("0.00001"), "0.00001");
  CHECK_STR_EQ(number("0.000001"), "1e-6");
  CHECK_STR_EQ(number("-2.5e+300"), "-2.5e300");
}

TEST(what_is_not_a_json_number_is_copied) {
  CHECK_STR_EQ(number("1e999"), "1e999");
  CHECK_STR_EQ(number("01"), "01");
  CHECK_STR_EQ(number("1."), "1.");
  CHECK_STR_EQ(number("NaN"), "NaN");
  CHECK(!tl_json_is_number(tl_str_from("")));
  CHECK(!tl_json_is_number(tl_str_from("-")));
  CHECK(tl_json_is_number(tl_str_from("-0.5E-3")));
}

TEST(doubles_are_always_floats) {
  CHECK_STR_EQ(dbl(0), "0.0");
  CHECK_STR_EQ(dbl(6885841.870239033), "6885841.870239033");
  CHECK_STR_EQ(dbl(2), "2.0");
  CHECK_STR_EQ(dbl(-2), "-2.0");
  CHECK_STR_EQ(dbl(1753139505671293.0), "1753139505671293.0");
  CHECK_STR_EQ(dbl(1e15), "1000000000000000.0");
  CHECK_STR_EQ(dbl(9007199254740991.0), "9007199254740991.0"); /* 2^53-1 */
  CHECK_STR_EQ(dbl(9007199254740992.0), "9007199254740992.0"); /* 2^53 */
  CHECK_STR_EQ(dbl(1e16), "1e16");
  CHECK_STR_EQ(dbl(1e-7), "1e-7");
  CHECK_STR_EQ(dbl(0.0 / 0.0), "null");
}

/* Plain decimals of up to 15 digits are copied as they are read when that
 * is what the double nearest them is written as; whichever way each goes,
 * its text equals tl_json_double's for that double (strtod reads these
 * exactly as serde_json does: the digits fit in a u64 below 2^53). The
 * texts: random digits, 1 to 17 of them, the point anywhere among them or
 * after up to 7 zeros behind "0.", trailing zeros or not, either sign. */
TEST(plain_decimals_are_written_as_their_double_is) {
  uint64_t state = 0x2545F4914F6CDD1DULL;
  char text[64];
  int copied = 0;
  for (int i = 0; i < 300000; i++) {
    uint64_t r = check_random(&state);
    int digits = 1 + (int)(r % 17), n = 0;
    r /= 17;
    bool negative = r % 2;
    r /= 2;
    if (negative)
      text[n++] = '-';
    if (r % 3 == 0) { /* "0.000ddd" */
      r /= 3;
      text[n++] = '0';
      text[n++] = '.';
      for (int z = (int)(r % 8); z > 0; z--)
        text[n++] = '0';
      r /= 8;
      for (int d = 0; d < digits; d++)
        text[n++] = (char)('0' + (d == 0 ? 1 + check_random(&state) % 9
                                         : check_random(&state) % 10));
    } else { /* "ddd.ddd" with at least one digit either side */
      r /= 3;
      if (digits < 2)
        digits = 2;
      int point = 1 + (int)(r % (uint64_t)(digits - 1));
      for (int d = 0; d < digits; d++) {
        if (d == point)
          text[n++] = '.';
        text[n++] = (char)('0' + (d == 0 ? 1 + check_random(&state) % 9
                                         : check_random(&state) % 10));
      }
    }
    if (check_random(&state) % 4 == 0) /* trailing zeros */
      for (int z = 1 + (int)(check_random(&state) % 3); z > 0; z--)
        text[n++] = '0';
    if (check_random(&state) % 16 == 0) { /* "d.0", "0.0" */
      n = negative;
      text[n++] = (char)('0' + check_random(&state) % 10);
      text[n++] = '.';
      text[n++] = '0';
    }
    text[n] = '\0';
    int significant = 0;
    for (const char *p = text, *first = NULL; *p; p++) {
      if (*p >= '1' && *p <= '9' && !first)
        first = p;
      if (first && *p >= '0' && *p <= '9')
        significant++;
    }
    if (significant > 15)
      continue; /* past 2^53 serde_json's reading differs from strtod's */
    char expected[128];
    snprintf(expected, sizeof expected, "%s", dbl(strtod(text, NULL)));
    const char *got = number(text);
    if (strcmp(got, expected) != 0) {
      CHECK_STR_EQ(got, expected);
      printf("  for %s\n", text);
      return;
    }
    copied += strcmp(got, text) == 0;
  }
  CHECK(copied > 50000); /* the generator reaches the copy often */
}

/* The significant digits of a written number ("1.25e-7" -> "125"). */
static int significant_digits(const char *text, char *digits) {
  int n = 0;
  const char *p = text;
  for (; *p && *p != 'e'; p++)
    if (*p >= '0' && *p <= '9' && (n || *p != '0'))
      digits[n++] = *p;
  while (n > 1 && digits[n - 1] == '0')
    n--;
  digits[n] = '\0';
  return n;
}

/* For random doubles of every kind (any bits, subnormals, timestamps with
 * a fraction, short decimals, and the doubles nearest 17-digit decimals
 * ending in 5 or 50, where rounding the 17 digits again is a tie): the text
 * reads back as the same double, no decimal with one digit fewer does, and its
 * digits are the nearest decimal of that length, as ryu picks them. */
TEST(doubles_are_written_in_their_shortest_nearest_digits) {
  uint64_t state = 0x9E3779B97F4A7C15ULL;
  int checked = 0;
  for (int i = 0; i < 300000; i++) {
    double v;
    uint64_t bits = check_random(&state);
    char near_half[48];
    switch (i % 7) {
    case 6: /* integral, below 2^53 or just past it, with zeros or not */
      v = (double)(bits >> (bits % 4 == 0 ? 10 : 11 + bits % 40));
      if (bits % 3 == 0)
        v = (double)(uint64_t)(v / 1000) * 1000;
      break;
    case 0:
      memcpy(&v, &bits, sizeof v);
      break;
    case 4: /* a 17-digit decimal ending in 5: its 16-digit rounding a tie */
    case 5: /* ending in 50: its 15-digit rounding a tie */
      snprintf(near_half, sizeof near_half, "%" PRIu64 "%se%d",
               (uint64_t)(bits % 100000000000000ULL + 100000000000000ULL),
               i % 7 == 4 ? "15" : "50", (int)(bits >> 50) % 40 - 20);
      v = strtod(near_half, NULL);
      break;
    case 1:
      bits &= (1ULL << 52) - 1; /* a subnormal */
      memcpy(&v, &bits, sizeof v);
      break;
    case 2:
      v = (double)(bits % 10000000000000000ULL) / 10.0;
      break;
    default:
      v = (double)(bits % 1000000) / 1000.0;
      break;
    }
    if (!isfinite(v) || v <= 0)
      continue;
    const char *text = dbl(v);
    CHECK(strtod(text, NULL) == v);
    char digits[40], nearest[48], fewer[48];
    int k = significant_digits(text, digits);
    snprintf(nearest, sizeof nearest, "%.*e", k - 1, v);
    char want[40];
    significant_digits(nearest, want);
    CHECK_STR_EQ(digits, want);
    if (k > 1) {
      snprintf(fewer, sizeof fewer, "%.*e", k - 2, v);
      CHECK(strtod(fewer, NULL) != v);
    }
    checked++;
  }
  CHECK(checked > 190000);
}

int main(void) {
  RUN(integer_literals_that_fit_are_copied);
  RUN(integers_past_u64_or_i64_become_floats);
  RUN(floats_take_their_shortest_round_trip_digits);
  RUN(floats_are_read_as_serde_json_reads_them);
  RUN(exponents_are_written_without_plus_or_padding);
  RUN(what_is_not_a_json_number_is_copied);
  RUN(doubles_are_always_floats);
  RUN(doubles_are_written_in_their_shortest_nearest_digits);
  RUN(plain_decimals_are_written_as_their_double_is);
  return check_summary();
}
