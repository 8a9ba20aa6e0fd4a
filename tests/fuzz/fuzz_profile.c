/* fuzz_profile.c: the profile reader and its join (--profile) on any bytes.
 *
 * Input: `profile \x1e view`. The profile bytes are written as
 * `profile.json` (or `profile.json.gz` when they start with the gzip magic)
 * and read with tl_profile_read; the view, when it parses as JSON, is joined
 * with the summary by tl_profile_join (a small view of our own otherwise),
 * and the "where the time goes" section is built from the joined view.
 * Invariants: the summary's counts and names are consistent (every graph's
 * file index is in range, keys are non-NULL, every problem has a count); the
 * joined object is never NULL and prints as JSON that parses again; the
 * section passes page_check (trace text never becomes markup, no script).
 */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "page_check.h"
#include "profile/profile_join.h"
#include "profile/profile_reader.h"
#include "profile/profile_verdicts.h"
#include "profile/profile_view.h"
#include "util/fsutil.h"
#include "work_dir.h"

static const char *work_dir;
static char *plain_path, *gz_path;

/* A view like the provenance JSON of one JIT graph with one kernel. */
static const char DEFAULT_VIEW[] =
    "{\"schema\": 1, \"compile_dir\": \"-_0_0_0\", \"compile_id\": \"[0/0]\","
    " \"mode\": \"jit\", \"lines\": {\"postToPre\": {}},"
    " \"nodes\": {\"pre\": {}, \"post\": {}},"
    " \"kernels\": [{\"key\": \"cpp_fused_relu_0:1\", \"name\":"
    " \"cpp_fused_relu_0\", \"kind\": \"cpp\", \"calls\": [3],"
    " \"post_nodes\": [\"relu\"], \"definition\": {\"file\": \"code\","
    " \"first\": 1, \"last\": 2}}]}";

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  work_dir = fuzz_work_dir("profile");
  plain_path = fuzz_work_path("profile.json");
  gz_path = fuzz_work_path("profile.json.gz");
  return 0;
}

static void check_summary(const tl_profile *p) {
  FUZZ_CHECK(p->files.count == 1);
  for (size_t i = 0; i < p->graphs.count; i++) {
    const tl_prof_graph *g = p->graphs.items[i];
    FUZZ_CHECK(g && g->key && g->file < p->files.count);
    FUZZ_CHECK(g->phase == TL_PROF_INFERENCE || g->phase == TL_PROF_FORWARD ||
               g->phase == TL_PROF_BACKWARD);
    for (size_t k = 0; k < g->slots.count; k++)
      FUZZ_CHECK(g->slots.items[k].name);
  }
  for (size_t i = 0; i < p->problems.count; i++) {
    const tl_prof_problem *pr = &p->problems.items[i];
    FUZZ_CHECK(pr->what && pr->example && pr->count >= 1);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_work_remove_at_exit();
  tl_str profile, view_text;
  fuzz_split(data, size, &profile, &view_text);
  bool gz = profile.len >= 2 && (unsigned char)profile.ptr[0] == 0x1f &&
            (unsigned char)profile.ptr[1] == 0x8b;
  const char *path = gz ? gz_path : plain_path;
  char error[512];
  unlink(plain_path);
  unlink(gz_path);
  FUZZ_CHECK(
      tl_fs_write_file(path, profile.ptr, profile.len, error, sizeof error));

  tl_profile *p = tl_profile_read(&path, 1);
  FUZZ_CHECK(p);
  check_summary(p);

  cJSON *view = view_text.ptr
                    ? cJSON_ParseWithLength(view_text.ptr, view_text.len)
                    : NULL;
  if (!cJSON_IsObject(view)) {
    cJSON_Delete(view);
    view = cJSON_Parse(DEFAULT_VIEW);
  }
  FUZZ_CHECK(view);
  cJSON *joined = tl_profile_join(p, view, NULL);
  FUZZ_CHECK(cJSON_IsObject(joined));
  char *printed = cJSON_PrintUnformatted(joined);
  FUZZ_CHECK(printed);
  cJSON *again = cJSON_Parse(printed);
  FUZZ_CHECK(again);
  cJSON_Delete(again);
  free(printed);

  /* With facts too: a phase and a key chosen by the input, and the model
   * lines of the profile's bytes read as a pre-grad graph. */
  tl_profile_view_facts facts;
  memset(&facts, 0, sizeof facts);
  facts.phase = (int)(size % 4) - 1;
  if (p->graphs.count && size % 2)
    snprintf(facts.key, sizeof facts.key, "%s", p->graphs.items[0]->key);
  tl_profile_pre_sources(profile.ptr, profile.len, &facts);
  cJSON *with_facts = tl_profile_join(p, view, &facts);
  FUZZ_CHECK(cJSON_IsObject(with_facts));
  cJSON *summary = cJSON_CreateObject();
  cJSON_AddStringToObject(summary, "compile_id", "[0/0]");
  cJSON_AddStringToObject(summary, "view", "provenance_tracking_-_0_0_0");
  cJSON_AddItemToObject(summary, "profile", with_facts);
  tl_buf line;
  tl_buf_init(&line);
  tl_profile_view_verdict(summary, &line);
  tl_profile_view_gaps(summary, &line);
  const cJSON *summaries[1] = {summary};
  for (size_t f = 0; f < p->files.count; f++)
    tl_profile_file_verdict(p, f, summaries, 1, &line);
  FUZZ_CHECK(!line.len || strlen(line.data) == line.len);
  tl_buf_free(&line);
  cJSON_Delete(summary);
  tl_profile_view_facts_free(&facts);

  cJSON_AddItemToObject(view, "profile", joined);
  tl_buf html;
  tl_buf_init(&html);
  const cJSON *views[1] = {view};
  const char *hrefs[1] = {"provenance_tracking_-_0_0_0.html"};
  tl_profile_where_time_goes(&html, views, hrefs, 1);
  page_check(tl_buf_str(&html), 0, "where the time goes");
  tl_buf_free(&html);
  cJSON_Delete(view);
  tl_profile_free(p);
  return 0;
}
