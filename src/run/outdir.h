/* outdir.h: the output folder, from the command line's checks to the
 * finished report in place. A run writes into a staging folder made by
 * mkdtemp beside the output folder (`<out>.tlparse-XXXXXX`: unpredictable,
 * created atomically, so no planted link can redirect the report) and
 * publishes it with one rename that never replaces anything it was not
 * allowed to: without --overwrite a folder that appeared during the run is
 * kept and the run fails; with --overwrite only a folder that looks like a
 * tlparse report is replaced, and it is checked again after it was moved
 * aside. SIGINT, SIGTERM and SIGHUP remove the staging folder and exit with
 * 128+N (while `tlparse run`'s child runs, they are forwarded to it). Every
 * function returns false with a one-line message in `error`.
 */
#ifndef TL_OUTDIR_H
#define TL_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/fsutil.h"

typedef struct tl_outdir {
  char *out;     /* the output folder as given, without trailing '/' */
  char *staging; /* the folder the run writes into, or NULL */
  bool overwrite;
  /* The parent folders of `out` this run created (malloc'd; NULL when it
   * made none): removed again, each if still empty, when the run is
   * abandoned. */
  tl_fs_made *made_parents;
} tl_outdir;

/* Checks the output folder before anything is read: `out` is a non-empty
 * name; if something exists there, --overwrite was given and it is a real
 * folder (not a link) that looks like a report and holds neither the
 * current folder nor `input`. Fills `dir` (free with tl_outdir_free). */
bool tl_outdir_check(tl_outdir *dir, const char *out, bool overwrite,
                     const char *input, char *error, size_t error_size);

/* Makes the staging folder (and the output folder's parents) and installs
 * the signal handlers that remove it. */
bool tl_outdir_stage(tl_outdir *dir, char *error, size_t error_size);

/* Renames the staging folder into place (see the header comment). When the
 * output folder appeared during the run, the new report is left in the
 * staging folder, whose name `error` gives. */
bool tl_outdir_publish(tl_outdir *dir, char *error, size_t error_size);

/* Removes the staging folder, if any, and the signal handlers. */
void tl_outdir_abandon(tl_outdir *dir);

void tl_outdir_free(tl_outdir *dir);

/* Child processes that write into the staging folder (the multi-rank mode's
 * ranks): on a signal the handler kills and reaps them before it removes
 * the folder, so that none recreates part of it afterwards. Call
 * tl_outdir_fork instead of fork (signals are held across it, so a child is
 * always known before a handler can run), and tl_outdir_child_ended once the
 * child is reaped. In the child, the handlers are the defaults again. */
pid_t tl_outdir_fork(void);
void tl_outdir_child_ended(pid_t pid);

/* The command `tlparse run` starts (command/run_command.c): forked with
 * the signals held, in a process group of its own (its pid). Until
 * tl_outdir_group_ended, SIGINT, SIGTERM and SIGHUP sent to tlparse are not
 * fatal to it but sent on to that group, so the child decides how it ends
 * and the report of what it logged is still written. In the child the
 * handlers are the defaults. */
pid_t tl_outdir_fork_group(void);
void tl_outdir_group_ended(void);

/* A file-size limit (RLIMIT_FSIZE) kills a process that writes past it
 * with SIGXFSZ, which would leave the staging folder behind and say
 * nothing. tl_outdir_ignore_file_size_limit_signal (first thing in main)
 * ignores the signal, so such a write fails with EFBIG and is reported like
 * any failed write, naming the file; tl_outdir_restore_file_size_limit_signal
 * (in a child, before it runs another program: `tlparse run`'s command,
 * xdg-open) gives back the disposition tlparse was started with, since an
 * ignored signal stays ignored across exec. */
void tl_outdir_ignore_file_size_limit_signal(void);
void tl_outdir_restore_file_size_limit_signal(void);

/* Exposed for tests: whether every entry of folder `path` is one a tlparse
 * report holds (an empty folder is one too); otherwise `foreign` names the
 * first other entry. */
bool tl_outdir_looks_like_report(const char *path, char *foreign,
                                 size_t foreign_size);

#endif
