/* help.c: renders the embedded docs/help Markdown with libcmark (help.h).
 * cmark's default options are safe: raw HTML in the Markdown is replaced by
 * a comment, and text is escaped, so `<lambda>` in a code span stays text.
 */
#include "emit/help.h"

#include <cmark.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/resources.h"

TL_RES_DECLARE(help_compile_ids);
TL_RES_DECLARE(help_artifacts);
TL_RES_DECLARE(help_highlighter);
TL_RES_DECLARE(help_recompiles);
TL_RES_DECLARE(help_diagnostics);

const char *const tl_help_section_ids[] = {"compile-ids", "artifacts",
                                           "highlighter", "recompiles",
                                           "diagnostics", NULL};

/* Section id -> embedded Markdown, in tl_help_section_ids order. */
static tl_str section_markdown(const char *id) {
  if (!id)
    return (tl_str){NULL, 0};
  if (strcmp(id, "compile-ids") == 0)
    return TL_RES(help_compile_ids);
  if (strcmp(id, "artifacts") == 0)
    return TL_RES(help_artifacts);
  if (strcmp(id, "highlighter") == 0)
    return TL_RES(help_highlighter);
  if (strcmp(id, "recompiles") == 0)
    return TL_RES(help_recompiles);
  if (strcmp(id, "diagnostics") == 0)
    return TL_RES(help_diagnostics);
  return (tl_str){NULL, 0};
}

void tl_help_render_markdown(tl_buf *out, tl_str markdown) {
  if (!markdown.len)
    return;
  char *html =
      cmark_markdown_to_html(markdown.ptr, markdown.len, CMARK_OPT_DEFAULT);
  /* cmark aborts by itself when memory runs out; NULL never comes back. */
  if (html) {
    tl_buf_puts(out, html);
    free(html);
  }
}

/* Each section's HTML, rendered once per process (help.html and index.html
 * both embed sections, and the rank children of --all-ranks-html inherit
 * what their parent rendered before forking them). */
enum { SECTIONS = 5 };
static tl_buf rendered[SECTIONS];
static pthread_once_t rendered_once = PTHREAD_ONCE_INIT;

static void render_sections(void) {
  for (int i = 0; i < SECTIONS && tl_help_section_ids[i]; i++) {
    const char *id = tl_help_section_ids[i];
    tl_buf_init(&rendered[i]);
    /* Section ids are our own constants: no escaping needed. */
    tl_buf_printf(&rendered[i], "<section class=\"tl-help\" id=\"%s\">\n", id);
    tl_help_render_markdown(&rendered[i], section_markdown(id));
    tl_buf_puts(&rendered[i], "</section>\n");
  }
}

void tl_help_prepare(void) { pthread_once(&rendered_once, render_sections); }

void tl_help_render_section(tl_buf *out, const char *section_id) {
  if (!section_id || !section_markdown(section_id).ptr)
    return;
  tl_help_prepare();
  for (int i = 0; i < SECTIONS && tl_help_section_ids[i]; i++)
    if (strcmp(tl_help_section_ids[i], section_id) == 0)
      tl_buf_append(out, rendered[i].data, rendered[i].len);
}

static const char PAGE_HEAD[] =
    "<!DOCTYPE html>\n"
    "<html lang=\"en\">\n"
    "<head>\n"
    "<meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<title>tlparse help</title>\n"
    "<style>\n"
    ":root { color-scheme: light dark; }\n"
    "body { font-family: system-ui, sans-serif; max-width: 52em;\n"
    "  margin: 2em auto; padding: 0 1em; line-height: 1.5; }\n"
    "code { font-family: ui-monospace, monospace; font-size: 0.92em; }\n"
    "pre { padding: 0.6em; overflow-x: auto; border: 1px solid #8884; }\n"
    "nav a { margin-right: 1em; }\n"
    "section.tl-help { border-top: 1px solid #8884; margin-top: 2em; }\n"
    "</style>\n"
    "</head>\n"
    "<body>\n"
    "<h1>tlparse help</h1>\n"
    "<p><a href=\"index.html\">Back to the report</a></p>\n";

void tl_help_render_page(tl_buf *out) {
  tl_buf_puts(out, PAGE_HEAD);
  tl_buf_puts(out, "<nav>\n");
  static const char *const titles[] = {
      "Compile ids", "Artifacts", "Highlighter", "Recompiles", "Diagnostics"};
  for (int i = 0; tl_help_section_ids[i]; i++)
    tl_buf_printf(out, "<a href=\"#%s\">%s</a>\n", tl_help_section_ids[i],
                  titles[i]);
  tl_buf_puts(out, "</nav>\n");
  for (int i = 0; tl_help_section_ids[i]; i++)
    tl_help_render_section(out, tl_help_section_ids[i]);
  tl_buf_puts(out, "</body>\n</html>\n");
}
