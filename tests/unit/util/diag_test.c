/* diag_test.c: diagnostics name paths in the staging folder as under the
 * output folder the user named (util/diag.h, tl_diag_renamed), in the
 * messages tl_diag_add keeps and in any other text. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/diag.h"

TEST(paths_under_the_staging_folder_are_named_under_the_output) {
  tl_diag d;
  tl_diag_init(&d, "trace.log");
  d.staged = "out.tlparse-AbC123";
  d.shown = "out";
  char *s = tl_diag_renamed(&d, "cannot write out.tlparse-AbC123/a/b.html: "
                                "File too large (out.tlparse-AbC123/c)");
  CHECK_STR_EQ(s, "cannot write out/a/b.html: File too large (out/c)");
  free(s);
  /* The name not followed by '/' is the folder itself: left as it is. */
  s = tl_diag_renamed(&d, "the new report is in out.tlparse-AbC123");
  CHECK_STR_EQ(s, "the new report is in out.tlparse-AbC123");
  free(s);
  tl_diag_add(&d, TL_DIAG_OUTPUT, 0, "cannot write %s/raw.jsonl: %s",
              "out.tlparse-AbC123", "No space left on device");
  CHECK_STR_EQ(d.examples[TL_DIAG_OUTPUT][0].message,
               "cannot write out/raw.jsonl: No space left on device");
  tl_diag_free(&d);
}

TEST(without_a_staging_folder_text_is_kept) {
  tl_diag d;
  tl_diag_init(&d, "trace.log");
  char *s = tl_diag_renamed(&d, "cannot write x.tlparse-AbC123/y");
  CHECK_STR_EQ(s, "cannot write x.tlparse-AbC123/y");
  free(s);
  tl_diag_free(&d);
}

int main(void) {
  RUN(paths_under_the_staging_folder_are_named_under_the_output);
  RUN(without_a_staging_folder_text_is_kept);
  return check_summary();
}
