/* test_man.c: the man page tlparse.1 that tl_mkman generates at build time
 * from docs/cli.md: a .TH header, the usual sections, and every flag of the
 * command line (cmark's man renderer writes `-` as `\-`).
 */
#include "check.h"

#ifndef TL_MAN_PAGE
#define TL_MAN_PAGE "tlparse.1"
#endif

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, len = 0;
  char *data = malloc(cap);
  size_t n;
  while (data && (n = fread(data + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (cap - len < 2)
      data = realloc(data, cap *= 2);
  }
  fclose(f);
  if (data)
    data[len] = '\0';
  return data;
}

static char *page;

TEST(man_page_starts_with_th_header) {
  CHECK(strncmp(page, ".TH \"TLPARSE\" \"1\" \"\" \"tlparse ", 30) == 0);
}

TEST(man_page_has_the_usual_sections) {
  /* cmark writes a level-1 heading as .SH on its own line, then the title */
  const char *sections[] = {".SH\nNAME\n",        ".SH\nSYNOPSIS\n",
                            ".SH\nDESCRIPTION\n", ".SH\nOPTIONS\n",
                            ".SH\nEXIT STATUS\n", ".SH\nENVIRONMENT\n",
                            ".SH\nEXAMPLES\n"};
  for (int i = 0; i < 7; i++)
    CHECK(strstr(page, sections[i]) != NULL);
}

TEST(man_page_documents_every_flag) {
  const char *flags[] = {"\\f[C]\\-o DIR\\f[]",
                         "\\f[C]\\-\\-out DIR\\f[]",
                         "\\f[C]\\-\\-latest\\f[]",
                         "\\f[C]\\-\\-overwrite\\f[]",
                         "\\f[C]\\-\\-no\\-browser\\f[]",
                         "\\f[C]\\-i\\f[]",
                         "\\f[C]\\-\\-inductor\\-provenance\\f[]",
                         "\\f[C]\\-\\-strict\\f[]",
                         "\\f[C]\\-\\-strict\\-compile\\-id\\f[]",
                         "\\f[C]\\-p\\f[]",
                         "\\f[C]\\-\\-plain\\-text\\f[]",
                         "\\f[C]\\-v\\f[]",
                         "\\f[C]\\-\\-verbose\\f[]",
                         "\\f[C]\\-\\-custom\\-header\\-html HTML\\f[]",
                         "\\f[C]\\-\\-version\\f[]",
                         "\\f[C]\\-h\\f[]",
                         "\\f[C]\\-\\-help\\f[]"};
  for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) {
    if (!strstr(page, flags[i])) {
      printf("  missing flag %s\n", flags[i]);
      CHECK(0);
    }
  }
}

TEST(man_page_documents_environment_and_exit_codes) {
  const char *words[] = {
      "\\f[C]CI\\f[]", "\\f[C]DISPLAY\\f[]", "\\f[C]WAYLAND_DISPLAY\\f[]",
      "\\f[C]0\\f[]",  "\\f[C]1\\f[]",       "xdg\\-open"};
  for (int i = 0; i < 6; i++)
    CHECK(strstr(page, words[i]) != NULL);
}

int main(void) {
  page = read_all(TL_MAN_PAGE);
  if (!page) {
    printf("skipped: %s not built (target tl_man)\n", TL_MAN_PAGE);
    return 77;
  }
  RUN(man_page_starts_with_th_header);
  RUN(man_page_has_the_usual_sections);
  RUN(man_page_documents_every_flag);
  RUN(man_page_documents_environment_and_exit_codes);
  free(page);
  return check_summary();
}
