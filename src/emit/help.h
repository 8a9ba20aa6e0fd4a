/* help.h: the report's inline help, written in Markdown under docs/help/,
 * embedded into the binary at build time and rendered with libcmark.
 * Emit uses it for tl_out/help.html and for the help sections of
 * index.html; nothing is read from the source tree at run time.
 * Output goes into the caller's tl_buf; each section is rendered once per
 * process and kept (a few kilobytes).
 */
#ifndef TL_HELP_H
#define TL_HELP_H

#include "util/buf.h"

/* Section ids, in page order: "compile-ids", "artifacts", "highlighter",
 * "diagnostics". NULL-terminated. */
extern const char *const tl_help_section_ids[];

/* Appends the whole help.html page: one <section id="ID"> per section, so
 * that pages can link to help.html#compile-ids and so on. */
void tl_help_render_page(tl_buf *out);

/* Appends one section, `<section class="tl-help" id="ID">` + its HTML +
 * `</section>\n`, for embedding into index.html. Appends nothing for an
 * unknown id. */
void tl_help_render_section(tl_buf *out, const char *section_id);

/* Renders every section now (thread-safe, once): a process about to fork
 * workers calls it so that they inherit the sections rendered. */
void tl_help_prepare(void);

/* Appends the HTML of any Markdown text (CommonMark, raw HTML not passed
 * through). */
void tl_help_render_markdown(tl_buf *out, tl_str markdown);

#endif
