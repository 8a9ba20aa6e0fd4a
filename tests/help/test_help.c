/* test_help.c: the report's help, rendered from the embedded Markdown with
 * libcmark. Expected HTML was written by reading docs/help/compile-ids.md;
 * when that file changes, this test changes with it.
 */
#include "check.h"
#include "emit/help.h"

static const char COMPILE_IDS_HTML[] =
    "<section class=\"tl-help\" id=\"compile-ids\">\n"
    "<h2>Compile ids</h2>\n"
    "<p>Every entry of a trace belongs to one compilation, named by a "
    "<em>compile id</em>\n"
    "such as <code>[0/1_1]</code>:</p>\n"
    "<ul>\n"
    "<li>the first number is the <strong>frame</strong>: the Python function "
    "Dynamo compiled\n"
    "(<code>0</code> is the first one; a graph break starts a new "
    "frame);</li>\n"
    "<li>the number after <code>/</code> counts <strong>recompiles</strong> of "
    "that frame: <code>[0/1]</code> is the\n"
    "second compile of frame 0, made because a guard of <code>[0/0]</code> "
    "failed;</li>\n"
    "<li>a suffix <code>_1</code> is the <strong>attempt</strong>: Dynamo "
    "restarted its analysis once (the\n"
    "suffix is left out when it is 0);</li>\n"
    "<li>a leading <code>!0/</code> marks a graph of <strong>compiled "
    "autograd</strong>.</li>\n"
    "</ul>\n"
    "<p>Entries logged outside any compilation context (AOTInductor and\n"
    "<code>torch.export</code>) have no compile id and are grouped under "
    "<code>[-/-]</code>.</p>\n"
    "<p>Each compile id is also a folder of <code>tl_out/</code>: "
    "<code>[0/1_1]</code> is <code>-_0_1_1/</code> and\n"
    "<code>[-/-]</code> is <code>-_-_-_-/</code>. Files are numbered by one "
    "counter that runs over the\n"
    "whole trace, so <code>after_post_grad_graph_6.txt</code> is the seventh "
    "file written.</p>\n"
    "</section>\n";

static size_t count(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

TEST(help_section_compile_ids_renders_exact_html) {
  tl_buf out;
  tl_buf_init(&out);
  tl_help_render_section(&out, "compile-ids");
  CHECK_STR_EQ(out.data, COMPILE_IDS_HTML);
  tl_buf_free(&out);
}

TEST(help_markdown_escapes_code_and_drops_raw_html) {
  tl_buf out;
  tl_buf_init(&out);
  tl_help_render_markdown(
      &out, TL_STR_LIT("Graph `class <lambda>` & <script>x</script> *ok*\n"));
  CHECK_STR_EQ(out.data, "<p>Graph <code>class &lt;lambda&gt;</code> &amp; "
                         "<!-- raw HTML omitted -->x<!-- raw HTML omitted --> "
                         "<em>ok</em></p>\n");
  tl_buf_free(&out);
}

TEST(help_unknown_or_null_section_appends_nothing) {
  tl_buf out;
  tl_buf_init(&out);
  tl_buf_puts(&out, "keep");
  tl_help_render_section(&out, "no-such-section");
  tl_help_render_section(&out, NULL);
  tl_help_render_markdown(&out, (tl_str){NULL, 0});
  CHECK_STR_EQ(out.data, "keep");
  tl_buf_free(&out);
}

TEST(help_page_has_one_anchor_and_one_nav_link_per_section) {
  tl_buf out;
  tl_buf_init(&out);
  tl_help_render_page(&out);
  CHECK(strncmp(out.data, "<!DOCTYPE html>\n", 16) == 0);
  const char *ids[] = {"compile-ids", "artifacts", "highlighter", "recompiles",
                       "diagnostics"};
  for (int i = 0; i < 5; i++) {
    char anchor[64], link[64];
    snprintf(anchor, sizeof anchor, " id=\"%s\"", ids[i]);
    snprintf(link, sizeof link, "href=\"#%s\"", ids[i]);
    CHECK_INT_EQ(count(out.data, anchor), 1);
    CHECK_INT_EQ(count(out.data, link), 1);
    CHECK_STR_EQ(tl_help_section_ids[i], ids[i]);
  }
  CHECK(tl_help_section_ids[5] == NULL);
  CHECK_INT_EQ(count(out.data, "<section "), 5);
  CHECK_INT_EQ(count(out.data, "</section>"), 5);
  /* sections appear in page order */
  CHECK(strstr(out.data, "id=\"compile-ids\"") <
        strstr(out.data, "id=\"artifacts\""));
  CHECK(strstr(out.data, "id=\"highlighter\"") <
        strstr(out.data, "id=\"recompiles\""));
  CHECK(strstr(out.data, "id=\"recompiles\"") <
        strstr(out.data, "id=\"diagnostics\""));
  CHECK(strstr(out.data, "</html>\n") != NULL);
  tl_buf_free(&out);
}

TEST(help_page_embeds_compile_ids_section_verbatim) {
  tl_buf page, section;
  tl_buf_init(&page);
  tl_buf_init(&section);
  tl_help_render_page(&page);
  tl_help_render_section(&section, "compile-ids");
  CHECK(strstr(page.data, section.data) != NULL);
  tl_buf_free(&page);
  tl_buf_free(&section);
}

TEST(help_diagnostics_section_lists_every_category) {
  tl_buf out;
  tl_buf_init(&out);
  tl_help_render_section(&out, "diagnostics");
  /* the names of tl_diag_kind_name, as the report prints them */
  const char *kinds[] = {"glog",
                         "json",
                         "envelope",
                         "md5",
                         "truncated",
                         "payload",
                         "other_rank",
                         "no_compile_id",
                         "output",
                         "provenance",
                         "profile",
                         "profile_mismatch",
                         "profile_unusable"};
  for (int i = 0; i < 13; i++) {
    char item[64];
    snprintf(item, sizeof item, "<li><code>%s</code>: ", kinds[i]);
    CHECK(strstr(out.data, item) != NULL);
  }
  CHECK_INT_EQ(count(out.data, "<li>"), 13);
  tl_buf_free(&out);
}

int main(void) {
  RUN(help_section_compile_ids_renders_exact_html);
  RUN(help_markdown_escapes_code_and_drops_raw_html);
  RUN(help_unknown_or_null_section_appends_nothing);
  RUN(help_page_has_one_anchor_and_one_nav_link_per_section);
  RUN(help_page_embeds_compile_ids_section_verbatim);
  RUN(help_diagnostics_section_lists_every_category);
  return check_summary();
}
