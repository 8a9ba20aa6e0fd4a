/* check.h: the tiny unit-test harness every test binary uses.
 *
 *   TEST(name) { CHECK(expr); CHECK_INT_EQ(a, b); CHECK_STR_EQ(a, b); }
 *   int main(void) { RUN(name); ...; return check_summary(); }
 *
 * Tests are named as sentences (reader_keeps_payload_when_md5_mismatches).
 * A failed check prints file:line and the values, and the test goes on.
 * check_summary prints "N passed, N failed" and returns the exit code.
 * check_random gives the same numbers in every run, so a failure repeats.
 */
#ifndef TL_CHECK_H
#define TL_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The next number of a deterministic generator (xorshift64) seeded with
 * *state, which must not be 0. */
static inline uint64_t check_random(uint64_t *state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

static int check_failures_in_test;
static int check_passed_tests, check_failed_tests;

#define TEST(name) static void name(void)
#define RUN(name)                                                              \
  do {                                                                         \
    check_failures_in_test = 0;                                                \
    name();                                                                    \
    if (check_failures_in_test) {                                              \
      check_failed_tests++;                                                    \
      printf("FAIL %s\n", #name);                                              \
    } else {                                                                   \
      check_passed_tests++;                                                    \
      printf("ok   %s\n", #name);                                              \
    }                                                                          \
  } while (0)

#define CHECK(expr)                                                            \
  do {                                                                         \
    if (!(expr)) {                                                             \
      printf("  %s:%d: CHECK(%s)\n", __FILE__, __LINE__, #expr);               \
      check_failures_in_test++;                                                \
    }                                                                          \
  } while (0)

#define CHECK_INT_EQ(actual, expected)                                         \
  do {                                                                         \
    long long check_a = (long long)(actual), check_e = (long long)(expected);  \
    if (check_a != check_e) {                                                  \
      printf("  %s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__,       \
             #actual, check_a, check_e);                                       \
      check_failures_in_test++;                                                \
    }                                                                          \
  } while (0)

#define CHECK_STR_EQ(actual, expected)                                         \
  do {                                                                         \
    const char *check_a = (actual), *check_e = (expected);                     \
    if (!check_a || !check_e || strcmp(check_a, check_e) != 0) {               \
      printf("  %s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__,   \
             #actual, check_a ? check_a : "(null)",                            \
             check_e ? check_e : "(null)");                                    \
      check_failures_in_test++;                                                \
    }                                                                          \
  } while (0)

static inline int check_summary(void) {
  printf("%d passed, %d failed\n", check_passed_tests, check_failed_tests);
  return check_failed_tests ? 1 : 0;
}

/* The shared fixtures folder (../shared/fixtures/tlparse-inputs beside the
 * checkout), passed by CMake as TL_FIXTURES_DIR; NULL when absent. */
static inline const char *check_fixtures_dir(void) {
#ifdef TL_FIXTURES_DIR
  static char path[4096];
  snprintf(path, sizeof path, "%s", TL_FIXTURES_DIR);
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  fclose(f);
  return path;
#else
  return NULL;
#endif
}

#endif
