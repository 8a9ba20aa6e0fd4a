/* profile_verdicts.h: the words of a profile join for a person (--profile):
 * one line per view the profile does not match, per matched view with
 * kernels no event gave time, and per profile file unread or unmatched
 * (what --strict fails on), and the index's "where the time goes" section.
 * All read the view JSONs' "profile" objects (profile_join.h) and append to
 * a caller's tl_buf; every text from a trace is escaped (util/html.h).
 */
#ifndef TL_PROFILE_VERDICTS_H
#define TL_PROFILE_VERDICTS_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "profile/profile_summary.h"
#include "util/buf.h"

/* One line for a view summary ({"compile_id", "view", "profile"}) that the
 * profile does not match: the view, the profile's files and the evidence.
 * Returns false (nothing appended) when it matched. */
bool tl_profile_view_verdict(const cJSON *summary, tl_buf *line);

/* One line for a matched view with kernels that no event gave time: which,
 * and how to record them (its "record_hint"). False when there are none. */
bool tl_profile_view_gaps(const cJSON *summary, tl_buf *line);

/* One line for file `f` of the profile when it is unreadable, truncated,
 * empty, or matches none of the given view summaries (what --strict fails
 * on); false for a file read and matched, or repeating an earlier one. */
bool tl_profile_file_verdict(const tl_profile *p, size_t f,
                             const cJSON *const *summaries, size_t count,
                             tl_buf *line);

/* "Where the time goes" for the index page: appends a section built from
 * the "profile" objects of the given view JSONs (views without one are
 * skipped; nothing is appended when none has one): a row per view with its
 * compile id, the profiled time split into Inductor, extern and other, and
 * its three hottest kernels, each linked to `hrefs[i]#kernel=<key>`
 * (`hrefs` or an entry may be NULL: no links); then the hottest user source
 * lines over all views, forward and backward apart. */
void tl_profile_where_time_goes(tl_buf *html, const cJSON *const *views,
                                const char *const *hrefs, size_t count);

#endif
