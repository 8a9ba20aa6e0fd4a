/* run_command.c: `tlparse run [options] -- CMD [ARGS...]` (run_command.h):
 * the trace folder, the child with TORCH_TRACE, the signals sent on to it,
 * then the report of what it logged.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "command/run_command.h"
#include "multirank/multi_rank.h"
#include "run/outdir.h"
#include "util/buf.h"
#include "util/fsutil.h"

/* Finds CMD as execvp would: a name with a '/' as given, else the first
 * executable file of that name on PATH. 0, or ENOENT (nowhere) or EACCES
 * (found, but not an executable file). */
static int find_command(const char *name) {
  if (!*name)
    return ENOENT;
  if (strchr(name, '/')) {
    struct stat st;
    if (stat(name, &st) != 0)
      return ENOENT;
    return S_ISREG(st.st_mode) && access(name, X_OK) == 0 ? 0 : EACCES;
  }
  const char *path = getenv("PATH");
  if (!path)
    path = "/usr/local/bin:/usr/bin:/bin";
  int found = ENOENT;
  for (const char *p = path;; p++) {
    const char *end = strchr(p, ':');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    tl_buf file;
    tl_buf_init(&file);
    if (len)
      tl_buf_printf(&file, "%.*s/%s", (int)len, p, name);
    else
      tl_buf_puts(&file, name); /* an empty entry is the current folder */
    struct stat st;
    if (stat(file.data, &st) == 0 && S_ISREG(st.st_mode))
      found = access(file.data, X_OK) == 0 ? 0 : EACCES;
    tl_buf_free(&file);
    if (found == 0 || !end)
      return found;
    p = end;
  }
}

/* Whether folder `path` has no entries. */
static bool folder_is_empty(const char *path) {
  DIR *d = opendir(path);
  if (!d)
    return false;
  struct dirent *e;
  bool empty = true;
  while (empty && (e = readdir(d)))
    empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
  closedir(d);
  return empty;
}

/* Makes the trace folder: --trace-dir (new, or an empty folder; with the
 * folders above it that are missing), else a new temporary one. Returns its
 * absolute path (malloc'd; the child may change folder), or NULL after a
 * message; *made records the folders this run made, for the caller to
 * remove when the run goes no further. */
static char *make_trace_dir(const char *wanted, tl_fs_made *made) {
  char error[512];
  made->count = 0;
  if (wanted) {
    struct stat st;
    if (lstat(wanted, &st) == 0) {
      if (!S_ISDIR(st.st_mode) || !folder_is_empty(wanted)) {
        fprintf(stderr,
                "tlparse: run: --trace-dir %s is not an empty folder; give "
                "a new or empty one, so the report reads this run's logs "
                "only\n",
                wanted);
        return NULL;
      }
    } else if (!tl_fs_mkdirs_made(wanted, made, error, sizeof error)) {
      fprintf(stderr, "tlparse: run: --trace-dir %s: %s\n", wanted, error);
      return NULL;
    }
    char *abs = realpath(wanted, NULL);
    if (!abs)
      fprintf(stderr, "tlparse: run: --trace-dir %s: %s\n", wanted,
              strerror(errno));
    return abs;
  }
  const char *tmp = getenv("TMPDIR");
  tl_buf name;
  tl_buf_init(&name);
  tl_buf_printf(&name, "%s/tlparse-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(name.data)) {
    fprintf(stderr, "tlparse: run: cannot make a trace folder %s: %s\n",
            name.data, strerror(errno));
    tl_buf_free(&name);
    return NULL;
  }
  tl_fs_made_note(made, name.data);
  char *abs = realpath(name.data, NULL);
  if (!abs)
    fprintf(stderr, "tlparse: run: %s: %s\n", name.data, strerror(errno));
  tl_buf_free(&name);
  return abs;
}

/* In the child: the terminal (when tlparse had it) goes to the child's
 * group, so that Ctrl-C at the terminal reaches the child's group and the
 * child may read the terminal; then CMD replaces the process. An exec
 * failure's errno goes back through `report_fd`. */
static void exec_child(const tl_run_request *r, const char *trace_dir,
                       int tty_fd, int report_fd) {
  if (tty_fd >= 0) {
    signal(SIGTTOU, SIG_IGN);
    tcsetpgrp(tty_fd, getpid());
    signal(SIGTTOU, SIG_DFL);
  }
  if (setenv("TORCH_TRACE", trace_dir, 1) != 0 ||
      (r->report.provenance && setenv("INDUCTOR_PROVENANCE", "1", 1) != 0)) {
    int err = errno;
    (void)!write(report_fd, &err, sizeof err);
    _exit(127);
  }
  tl_outdir_restore_file_size_limit_signal();
  execvp(r->argv[0], r->argv);
  int err = errno;
  (void)!write(report_fd, &err, sizeof err);
  _exit(err == ENOENT ? 127 : 126);
}

/* Makes `group` the terminal's foreground group. SIGTTOU is blocked for the
 * call: tlparse may be in the background by then (the child takes the
 * terminal too, and may be first), where the call would stop tlparse. */
static void set_terminal_group(int tty_fd, pid_t group) {
  sigset_t ttou, saved;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  sigprocmask(SIG_BLOCK, &ttou, &saved);
  tcsetpgrp(tty_fd, group);
  sigprocmask(SIG_SETMASK, &saved, NULL);
}

/* Gives the terminal back to tlparse's own group. */
static void take_terminal_back(int tty_fd) {
  if (tty_fd >= 0)
    set_terminal_group(tty_fd, getpgrp());
}

/* Gives the terminal to the child's group when tlparse's group holds it
 * (it is in the foreground). */
static void give_terminal(int tty_fd, pid_t group) {
  if (tty_fd >= 0 && tcgetpgrp(tty_fd) == getpgrp())
    set_terminal_group(tty_fd, group);
}

/* Waits for the child to end; returns its wait status. With the terminal,
 * tlparse and CMD are one job to the user's shell: when CMD's group is
 * stopped (Ctrl-Z, or a read of the terminal from the background),
 * tlparse takes the terminal back and stops itself, so the shell gets its
 * prompt and lists the job as stopped. When the shell continues tlparse
 * (`fg` gives tlparse the terminal first; `bg` does not), the terminal goes
 * to CMD's group if tlparse has it, and CMD's group is continued. In an
 * orphaned process group the kernel discards the stop, and CMD is
 * continued at once, as a stop from the terminal would be discarded. */
static int wait_child(pid_t pid, int tty_fd) {
  int status = 0;
  for (;;) {
    if (waitpid(pid, &status, tty_fd >= 0 ? WUNTRACED : 0) < 0) {
      if (errno == EINTR)
        continue;
      return status;
    }
    if (!WIFSTOPPED(status))
      return status;
    take_terminal_back(tty_fd);
    raise(SIGTSTP);
    give_terminal(tty_fd, pid);
    kill(-pid, SIGCONT);
  }
}

/* Runs CMD and waits for it. Returns its wait status, or -1 when it could
 * not be started (*exec_errno says why). */
static int run_child(const tl_run_request *r, const char *trace_dir,
                     int *exec_errno) {
  int tty_fd = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp()
                   ? STDIN_FILENO
                   : -1;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    *exec_errno = errno;
    return -1;
  }
  fflush(NULL);
  pid_t pid = tl_outdir_fork_group();
  if (pid < 0) {
    *exec_errno = errno;
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    exec_child(r, trace_dir, tty_fd, fds[1]);
  }
  close(fds[1]);
  if (tty_fd >= 0)
    set_terminal_group(tty_fd, pid);
  int err = 0;
  ssize_t got;
  while ((got = read(fds[0], &err, sizeof err)) < 0 && errno == EINTR)
    ;
  close(fds[0]);
  int status = wait_child(pid, tty_fd);
  take_terminal_back(tty_fd);
  tl_outdir_group_ended();
  if (got == (ssize_t)sizeof err) {
    *exec_errno = err;
    return -1;
  }
  return status;
}

/* The child's exit code when it failed (128+N for signal N), else 0; says
 * how it ended on stderr. */
static int child_code(const char *cmd, int status) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return 0;
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    fprintf(stderr, "tlparse: run: %s was ended by signal %d (%s)\n", cmd, sig,
            strsignal(sig));
    return 128 + sig;
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  fprintf(stderr, "tlparse: run: %s exited with status %d\n", cmd, code);
  return code;
}

/* The checks made before CMD runs, so that a long job never ends in an
 * error its command line already had: TORCH_TRACE unset, CMD found, the
 * output folder free. -1 to go on, else the exit code. */
static int check_before(const tl_run_request *r) {
  const char *own = getenv("TORCH_TRACE");
  if (own) {
    fprintf(stderr,
            "tlparse: run: TORCH_TRACE is already set (to '%s'); unset it, "
            "and give --trace-dir DIR to choose where the logs go\n",
            own);
    return 1;
  }
  int found = find_command(r->argv[0]);
  if (found == ENOENT) {
    fprintf(stderr,
            "tlparse: run: %s: command not found (nothing was run "
            "or written)\n",
            r->argv[0]);
    return 127;
  }
  if (found == EACCES) {
    fprintf(stderr,
            "tlparse: run: %s: not an executable file (nothing was "
            "run or written)\n",
            r->argv[0]);
    return 126;
  }
  tl_outdir out;
  char error[512] = "";
  bool free_out = tl_outdir_check(&out, r->report.out_dir, r->report.overwrite,
                                  r->trace_dir, error, sizeof error);
  tl_outdir_free(&out);
  if (!free_out) {
    fprintf(stderr, "tlparse: run: not started: %s\n", error);
    return 1;
  }
  return -1;
}

int tl_run_command(const tl_run_request *r) {
  int code = check_before(r);
  if (code >= 0)
    return code;
  tl_fs_made made;
  char *trace_dir = make_trace_dir(r->trace_dir, &made);
  if (!trace_dir) {
    tl_fs_remove_made(&made);
    return 1;
  }
  fprintf(stderr, "tlparse: run: TORCH_TRACE=%s %s\n", trace_dir, r->argv[0]);
  int exec_errno = 0;
  int status = run_child(r, trace_dir, &exec_errno);
  if (status < 0) {
    fprintf(stderr, "tlparse: run: cannot run %s: %s (nothing was written)\n",
            r->argv[0], strerror(exec_errno));
    tl_fs_remove_made(&made); /* each only if still empty */
    free(trace_dir);
    return exec_errno == ENOENT ? 127 : 126;
  }
  int failed = child_code(r->argv[0], status);
  size_t ranks = tl_multi_rank_count_logs(trace_dir);
  size_t files = tl_fs_count_files(trace_dir);
  if (files == 0) {
    /* The folders this run made, nothing written to them, go again, so
     * that failed runs leave no empty folders behind (rmdir: only if
     * empty). */
    bool removed = tl_fs_remove_made(&made);
    fprintf(stderr,
            "tlparse: run: %s wrote no trace log to %s (did it run "
            "torch.compile or torch.export?); no report written%s\n",
            r->argv[0], trace_dir, removed ? ", the empty folder removed" : "");
    free(trace_dir);
    return failed ? failed : 1;
  }
  tl_report_request report = r->report;
  report.path = trace_dir;
  report.all_ranks = ranks >= 2;
  report.latest = !report.all_ranks;
  if (report.all_ranks && report.profile_count) {
    /* The multi-rank mode joins no profile: the report is still written. */
    fprintf(stderr,
            "tlparse: run: --profile applies to one rank's log (tlparse "
            "LOG -i --profile TRACE); the multi-rank report is written "
            "without it\n");
    report.profile_count = 0;
  }
  if (!report.all_ranks && files > 1)
    fprintf(stderr,
            "tlparse: run: %s holds %zu logs; the report reads the latest "
            "(tlparse LOG for another)\n",
            trace_dir, files);
  code = tl_report_command(&report);
  printf("tlparse: trace logs in %s\n", trace_dir);
  free(trace_dir);
  return failed ? failed : code;
}
