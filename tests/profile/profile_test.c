/* Unit tests of the profile reader's number parsing (the rest is tested end
 * to end by profile_e2e.py on real and generated traces). */
#include "check.h"
#include "profile_reader.h"

#include <string.h>

static bool ns(const char *s, int64_t *v) {
  return tl_profile_parse_ns(s, strlen(s), v);
}

TEST(profile_numbers_are_read_as_integer_nanoseconds) {
  int64_t v = 0;
  CHECK(ns("4631820176890.869", &v) && v == 4631820176890869LL);
  CHECK(ns("32.319", &v) && v == 32319);
  CHECK(ns("7", &v) && v == 7000);
  CHECK(ns("0.5", &v) && v == 500);
  CHECK(ns("1.0005", &v) && v == 1001);
  CHECK(ns("-3.25", &v) && v == -3250);
  CHECK(ns("1e3", &v) && v == 1000000);
  CHECK(!ns("1e300", &v));
  CHECK(!ns("99999999999999999999999", &v));
  CHECK(!ns("", &v));
  CHECK(!ns("abc", &v));
}

int main(void) {
  RUN(profile_numbers_are_read_as_integer_nanoseconds);
  return check_summary();
}
