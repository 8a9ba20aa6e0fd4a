/* mkman.c: build-time tool that turns docs/cli.md into the man page
 * tlparse.1 with cmark's man renderer.
 *
 *   tl_mkman docs/cli.md tlparse.1 0.1.0
 *
 * The Markdown's level-1 headings (NAME, SYNOPSIS, ...) become .SH sections;
 * a .TH line with the version is put in front.
 */
#include <cmark.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 4) {
    fputs("usage: tl_mkman INPUT.md OUTPUT.1 VERSION\n", stderr);
    return 1;
  }
  FILE *in = fopen(argv[1], "rb");
  if (!in) {
    fprintf(stderr, "tl_mkman: cannot read %s\n", argv[1]);
    return 1;
  }
  cmark_node *doc = cmark_parse_file(in, CMARK_OPT_DEFAULT);
  fclose(in);
  if (!doc) {
    fprintf(stderr, "tl_mkman: cannot parse %s\n", argv[1]);
    return 1;
  }
  char *man = cmark_render_man(doc, CMARK_OPT_DEFAULT, 0);
  cmark_node_free(doc);
  FILE *out = fopen(argv[2], "wb");
  if (!out || !man) {
    fprintf(stderr, "tl_mkman: cannot write %s\n", argv[2]);
    free(man);
    if (out)
      fclose(out);
    return 1;
  }
  fprintf(out, ".TH \"TLPARSE\" \"1\" \"\" \"tlparse %s\" \"User Commands\"\n",
          argv[3]);
  fputs(man, out);
  free(man);
  if (fclose(out) != 0) {
    fprintf(stderr, "tl_mkman: cannot write %s\n", argv[2]);
    return 1;
  }
  return 0;
}
