/* outdir.c: staging, publishing and replacing the output folder, and the
 * signal handlers that clean up after an interrupted run (outdir.h). */
#define _GNU_SOURCE
#include "run/outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/fsutil.h"

/* What a tlparse report holds at its top level (this tool's, the Rust
 * tool's, their export and multi-rank reports): fnmatch patterns. */
static const char *const REPORT_FILES[] = {
    "index.html",
    "raw.log",
    "raw.jsonl",
    "compile_directory.json",
    "chromium_events.json",
    "failures_and_restarts.html",
    "help.html",
    "provenance_tracking_*.html",
    "provenance_tracking_*.json",
    "runtime_estimations.json",
    "chromium_trace_with_runtime.json",
    "collective_schedules.json",
    "collectives_parity.json",
    "recompile_*.html",
    "recompile_*.json",
    "diff.json",           /* tlparse diff */
    "compile_*_vs_*.html", /* tlparse diff */
    "compile_*_vs_*.json",
};
static const char
    *const REPORT_FOLDERS[] = {"static",
                               "payloads",
                               "dump_file",
                               "rank_[0-9]*",
                               "unknown_[0-9]*",
                               "a",
                               "b" /* tlparse diff: the two runs' reports */};

static bool matches_any(const char *name, const char *const *patterns,
                        size_t count) {
  for (size_t i = 0; i < count; i++)
    if (fnmatch(patterns[i], name, FNM_PERIOD) == 0)
      return true;
  return false;
}

/* A compile folder's name: four parts of [-!0-9] joined by '_' (-_0_0_0,
 * 1_2_0_1, !0_-_-_-). */
static bool is_compile_folder(const char *name) {
  int parts = 1;
  for (const char *p = name; *p; p++) {
    if (*p == '_')
      parts++;
    else if (!strchr("-!0123456789", *p))
      return false;
  }
  return parts == 4;
}

bool tl_outdir_looks_like_report(const char *path, char *foreign,
                                 size_t foreign_size) {
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0)
      close(fd);
    snprintf(foreign, foreign_size, "%s", path);
    return false;
  }
  bool ok = true, has_index = false, empty = true;
  struct dirent *e;
  while (ok && (e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    empty = false;
    struct stat st;
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      ok = false;
    } else if (S_ISREG(st.st_mode)) {
      ok = matches_any(e->d_name, REPORT_FILES,
                       sizeof REPORT_FILES / sizeof *REPORT_FILES);
      has_index |= strcmp(e->d_name, "index.html") == 0;
    } else if (S_ISDIR(st.st_mode)) {
      ok = matches_any(e->d_name, REPORT_FOLDERS,
                       sizeof REPORT_FOLDERS / sizeof *REPORT_FOLDERS) ||
           is_compile_folder(e->d_name);
    } else {
      ok = false; /* a link, a device, a socket: never ours */
    }
    if (!ok)
      snprintf(foreign, foreign_size, "%s", e->d_name);
  }
  closedir(d);
  if (ok && !empty && !has_index) {
    snprintf(foreign, foreign_size, "(no index.html)");
    ok = false;
  }
  return ok;
}

/* Whether `inner` is `outer` or lies inside it (both resolved). */
static bool path_within(const char *inner, const char *outer) {
  size_t n = strlen(outer);
  if (strncmp(inner, outer, n) != 0)
    return false;
  return inner[n] == '\0' || inner[n] == '/' || strcmp(outer, "/") == 0;
}

/* --overwrite must never delete the folder the run stands in or reads from
 * (`-o .`, `-o ..`, `-o /`, or a folder holding the input). */
static bool holds_cwd_or_input(const char *out_dir, const char *input) {
  char *out = realpath(out_dir, NULL);
  if (!out)
    return false;
  char *cwd = realpath(".", NULL);
  char *in = input ? realpath(input, NULL) : NULL;
  bool holds = (cwd && path_within(cwd, out)) || (in && path_within(in, out));
  free(cwd);
  free(in);
  free(out);
  return holds;
}

/* Whether what is at `out` may be replaced; says why not in `error`. */
static bool replaceable(const char *out, const char *input, char *error,
                        size_t error_size) {
  struct stat st;
  if (lstat(out, &st) != 0)
    return true;
  if (S_ISLNK(st.st_mode)) {
    snprintf(error, error_size,
             "refusing to replace %s: it is a symbolic link (nothing was "
             "deleted)",
             out);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(error, error_size,
             "refusing to replace %s: it is not a folder (nothing was "
             "deleted)",
             out);
    return false;
  }
  if (holds_cwd_or_input(out, input)) {
    snprintf(error, error_size,
             "refusing to replace %s: it holds the current folder or the "
             "input (nothing was deleted)",
             out);
    return false;
  }
  char foreign[256];
  if (!tl_outdir_looks_like_report(out, foreign, sizeof foreign)) {
    snprintf(error, error_size,
             "refusing to replace %s: it does not look like a tlparse report "
             "(it holds %s); nothing was deleted",
             out, foreign);
    return false;
  }
  return true;
}

bool tl_outdir_check(tl_outdir *dir, const char *out, bool overwrite,
                     const char *input, char *error, size_t error_size) {
  memset(dir, 0, sizeof *dir);
  if (!out || !*out) {
    snprintf(error, error_size, "-o needs a folder name");
    return false;
  }
  tl_buf name;
  tl_buf_init(&name);
  tl_buf_puts(&name, out);
  while (name.len > 1 && name.data[name.len - 1] == '/')
    name.data[--name.len] = '\0';
  dir->out = tl_buf_detach(&name);
  dir->overwrite = overwrite;
  /* `REPORT/.` or `REPORT/sub/..` names a folder through itself: its
   * staging folder (`<out>.tlparse-XXXXXX`, made beside the output) would
   * land inside the report it replaces. Refused before anything is read;
   * `.` and `..` alone are refused below as the current folder's. */
  const char *last = strrchr(dir->out, '/');
  if (last && (strcmp(last, "/.") == 0 || strcmp(last, "/..") == 0)) {
    snprintf(error, error_size,
             "refusing -o %s: it ends in '%s'; name the report's folder "
             "itself (nothing was read or deleted)",
             dir->out, last + 1);
    return false;
  }
  struct stat st;
  if (lstat(dir->out, &st) == 0 && !overwrite) {
    snprintf(error, error_size,
             "output folder %s already exists; pass --overwrite to replace "
             "it (nothing was deleted)",
             dir->out);
    return false;
  }
  return replaceable(dir->out, input, error, error_size);
}

/* The signal handlers' copy of the paths: fixed buffers, set before the
 * handlers are installed and cleared (under blocked signals) after. */
static char signal_staging[PATH_MAX];
static char signal_trash[PATH_MAX + 16];
static tl_fs_made signal_parents; /* tl_outdir's made_parents, or none */
static volatile sig_atomic_t signal_armed;
static const int CLEANUP_SIGNALS[] = {SIGINT, SIGTERM, SIGHUP};

/* Removes the folder `name` in `parent_fd` and everything under it without
 * following links, with async-signal-safe calls only (a signal handler uses
 * it). The recursion follows this tool's own staging folder, a few levels
 * deep, never the trace; `depth` caps it all the same. */
static void remove_tree_at(int parent_fd, const char *name, int depth) {
  if (depth > 16)
    return;
  for (int attempt = 0; attempt < 3; attempt++) {
    int fd = openat(parent_fd, name,
                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      unlinkat(parent_fd, name, 0);
      return;
    }
    char entries[4096];
    long n;
    while ((n = syscall(SYS_getdents64, fd, entries, sizeof entries)) > 0) {
      for (long off = 0; off < n;) {
        struct dirent64 *e = (struct dirent64 *)(entries + off);
        off += e->d_reclen;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
          continue;
        if (e->d_type == DT_DIR)
          remove_tree_at(fd, e->d_name, depth + 1);
        else if (unlinkat(fd, e->d_name, 0) != 0 && errno == EISDIR)
          remove_tree_at(fd, e->d_name, depth + 1);
      }
    }
    close(fd);
    if (unlinkat(parent_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
      return;
  }
}

/* Moves the staging folder aside first, so that threads still writing by
 * path fail instead of filling it again, then removes it. */
static void remove_staging(const char *staging, const char *trash) {
  if (rename(staging, trash) == 0)
    remove_tree_at(AT_FDCWD, trash, 0);
  else
    remove_tree_at(AT_FDCWD, staging, 0);
}

/* The children writing into the staging folder (0: a free slot). */
enum { MAX_CHILDREN = 4096 };
static volatile pid_t signal_children[MAX_CHILDREN];

/* What a fatal signal or an allocation failure leaves: the children
 * killed, the staging folder and the parents this run made removed.
 * Async-signal-safe. */
static void clean_up_run(void) {
  for (size_t i = 0; i < MAX_CHILDREN; i++) {
    pid_t pid = signal_children[i];
    if (pid > 0) {
      kill(pid, SIGKILL);
      while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    }
  }
  if (signal_armed) {
    signal_armed = 0;
    remove_staging(signal_staging, signal_trash);
    tl_fs_remove_made(&signal_parents);
  }
}

/* SIGXFSZ's disposition when tlparse started, given back to programs it
 * runs. */
static struct sigaction file_size_signal_at_start;

void tl_outdir_ignore_file_size_limit_signal(void) {
  struct sigaction ignore;
  memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGXFSZ, &ignore, &file_size_signal_at_start);
}

void tl_outdir_restore_file_size_limit_signal(void) {
  sigaction(SIGXFSZ, &file_size_signal_at_start, NULL);
}

static void on_signal(int signo) {
  clean_up_run();
  _exit(128 + signo);
}

/* Installs `handler` for the three signals, each blocking all three while
 * it runs. */
static void install_handler(void (*handler)(int), int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof CLEANUP_SIGNALS / sizeof *CLEANUP_SIGNALS; i++)
    sigaddset(&sa.sa_mask, CLEANUP_SIGNALS[i]);
  for (size_t i = 0; i < sizeof CLEANUP_SIGNALS / sizeof *CLEANUP_SIGNALS; i++)
    sigaction(CLEANUP_SIGNALS[i], &sa, NULL);
}

static void set_handlers(bool on) {
  install_handler(on ? on_signal : SIG_DFL, 0);
}

static void block_signals(bool block, sigset_t *saved) {
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < sizeof CLEANUP_SIGNALS / sizeof *CLEANUP_SIGNALS; i++)
    sigaddset(&set, CLEANUP_SIGNALS[i]);
  if (block)
    pthread_sigmask(SIG_BLOCK, &set, saved);
  else
    pthread_sigmask(SIG_SETMASK, saved, NULL);
}

pid_t tl_outdir_fork(void) {
  sigset_t saved;
  block_signals(true, &saved);
  pid_t pid = fork();
  if (pid == 0) {
    set_handlers(false);
    for (size_t i = 0; i < MAX_CHILDREN; i++)
      signal_children[i] = 0;
    signal_armed = 0;
  } else if (pid > 0) {
    for (size_t i = 0; i < MAX_CHILDREN; i++)
      if (signal_children[i] == 0) {
        signal_children[i] = pid;
        break;
      }
  }
  block_signals(false, &saved);
  return pid;
}

void tl_outdir_child_ended(pid_t pid) {
  for (size_t i = 0; i < MAX_CHILDREN; i++)
    if (signal_children[i] == pid)
      signal_children[i] = 0;
}

/* The process group of `tlparse run`'s child, while it runs (0: none). */
static volatile sig_atomic_t forward_group;

static void on_forward(int signo) {
  pid_t group = (pid_t)forward_group;
  if (group > 0)
    kill(-group, signo);
}

pid_t tl_outdir_fork_group(void) {
  sigset_t saved;
  block_signals(true, &saved);
  pid_t pid = fork();
  if (pid == 0) {
    set_handlers(false);
    setpgid(0, 0);
  } else if (pid > 0) {
    /* Set on both sides, so the group exists before either goes on. */
    setpgid(pid, pid);
    forward_group = pid;
    install_handler(on_forward, SA_RESTART);
  }
  block_signals(false, &saved);
  return pid;
}

void tl_outdir_group_ended(void) {
  sigset_t saved;
  block_signals(true, &saved);
  forward_group = 0;
  set_handlers(false);
  block_signals(false, &saved);
}

/* The marker a staging folder holds while its run lives: "pid N\nboot
 * ID\n" (the kernel's boot id), so that a later run can prove the run
 * that made it is gone. Removed before the folder is published. */
static const char STAGING_MARKER[] = ".tlparse-staging";

static void read_boot_id(char *id, size_t size) {
  id[0] = '\0';
  int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  ssize_t n = read(fd, id, size - 1);
  close(fd);
  id[n > 0 ? n : 0] = '\0';
  id[strcspn(id, "\n")] = '\0';
}

static void write_marker(const char *staging) {
  char boot[64];
  read_boot_id(boot, sizeof boot);
  char text[160];
  int len =
      snprintf(text, sizeof text, "pid %ld\nboot %s\n", (long)getpid(), boot);
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s", staging, STAGING_MARKER);
  int fd = open(path.data, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                0644);
  if (fd >= 0) {
    if (write(fd, text, (size_t)len) != len) {
      /* no marker: a later run leaves the folder alone */
    }
    close(fd);
  }
  tl_buf_free(&path);
}

/* Whether the staging folder `name` in `parent_fd` was left by a tlparse
 * run that has ended: its marker names a process of this boot that no
 * longer exists, or another boot. Anything else (no marker, a link, not
 * ours, a live process) is not proof, and the folder stays. */
static bool left_by_a_dead_run(int parent_fd, const char *name) {
  struct stat st;
  if (fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
      !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
    return false;
  int dir =
      openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0)
    return false;
  int fd = openat(dir, STAGING_MARKER, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  close(dir);
  if (fd < 0)
    return false;
  char text[160];
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  text[n > 0 ? n : 0] = '\0';
  long pid = 0;
  char boot[64] = "", ours[64];
  if (sscanf(text, "pid %ld\nboot %63s", &pid, boot) != 2 || pid <= 0)
    return false;
  read_boot_id(ours, sizeof ours);
  if (!ours[0])
    return false;
  if (strcmp(boot, ours) != 0)
    return true; /* made before the machine restarted */
  return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Removes the staging folders of `out` (`<out>.tlparse-XXXXXX`, and their
 * `-removing` form) that runs which ended left behind (a SIGKILL, a power
 * cut), each named on stderr; never anything it cannot prove so. */
static void remove_stale_staging(const char *out) {
  tl_buf parent;
  tl_buf_init(&parent);
  const char *slash = strrchr(out, '/');
  const char *base = slash ? slash + 1 : out;
  if (slash)
    tl_buf_append(&parent, out, slash == out ? 1 : (size_t)(slash - out));
  else
    tl_buf_puts(&parent, ".");
  DIR *d = opendir(parent.data);
  if (d) {
    size_t base_len = strlen(base);
    struct dirent *e;
    while ((e = readdir(d))) {
      const char *n = e->d_name;
      if (strncmp(n, base, base_len) != 0 ||
          strncmp(n + base_len, ".tlparse-", 9) != 0)
        continue;
      /* mkdtemp's six letters and digits, then nothing or "-removing" */
      const char *tail = n + base_len + 9;
      if (strspn(tail, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                       "0123456789") != 6 ||
          (tail[6] && strcmp(tail + 6, "-removing") != 0))
        continue;
      if (!left_by_a_dead_run(dirfd(d), n))
        continue;
      remove_tree_at(dirfd(d), n, 0);
      fprintf(stderr,
              "tlparse: removed %s/%s, a staging folder left by a run that "
              "ended\n",
              parent.data, n);
    }
    closedir(d);
  }
  tl_buf_free(&parent);
}

bool tl_outdir_stage(tl_outdir *dir, char *error, size_t error_size) {
  /* The parents of the output folder, so that the staging folder lies
   * beside it, on the same file system (rename needs that). */
  tl_buf parent;
  tl_buf_init(&parent);
  tl_buf_puts(&parent, dir->out);
  char *slash = strrchr(parent.data, '/');
  bool ok = true;
  if (slash && slash != parent.data) {
    *slash = '\0';
    tl_fs_made *made = tl_xmalloc(sizeof *made);
    ok = tl_fs_mkdirs_made(parent.data, made, error, error_size);
    if (!ok)
      tl_fs_remove_made(made);
    if (made->count)
      dir->made_parents = made;
    else
      free(made);
  }
  tl_buf_free(&parent);
  if (!ok)
    return false;
  remove_stale_staging(dir->out);
  tl_buf name;
  tl_buf_init(&name);
  tl_buf_printf(&name, "%s.tlparse-XXXXXX", dir->out);
  if (name.len >= sizeof signal_staging) {
    snprintf(error, error_size, "output folder name too long: %s", dir->out);
    tl_buf_free(&name);
    return false;
  }
  if (!mkdtemp(name.data)) {
    snprintf(error, error_size, "cannot create folder %s: %s", name.data,
             strerror(errno));
    tl_buf_free(&name);
    if (dir->made_parents)
      tl_fs_remove_made(dir->made_parents);
    return false;
  }
  /* mkdtemp makes it private (0700); a report is as readable as any
   * folder the user makes. */
  mode_t mask = umask(0);
  umask(mask);
  chmod(name.data, 0777 & ~mask);
  write_marker(name.data);
  dir->staging = tl_buf_detach(&name);
  sigset_t saved;
  block_signals(true, &saved);
  snprintf(signal_staging, sizeof signal_staging, "%s", dir->staging);
  snprintf(signal_trash, sizeof signal_trash, "%s-removing", dir->staging);
  if (dir->made_parents)
    signal_parents = *dir->made_parents;
  else
    signal_parents.count = 0;
  signal_armed = 1;
  set_handlers(true);
  tl_out_of_memory_cleanup = clean_up_run;
  block_signals(false, &saved);
  return true;
}

static void disarm(void) {
  sigset_t saved;
  block_signals(true, &saved);
  signal_armed = 0;
  set_handlers(false);
  block_signals(false, &saved);
}

/* Renames `from` to `to` only if nothing is at `to`. Where the file system
 * cannot do that in one call, an empty folder made at `to` holds the place:
 * rename replaces only an empty folder, so anything put there meanwhile
 * makes it fail instead of being lost. */
static bool rename_no_replace(const char *from, const char *to) {
  if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
    return true;
  if (errno != EINVAL && errno != ENOSYS)
    return false;
  if (mkdir(to, 0700) != 0)
    return false;
  if (rename(from, to) == 0)
    return true;
  int saved = errno;
  rmdir(to); /* only if it is still the empty folder made above */
  errno = saved;
  return false;
}

/* --overwrite: moves the old report aside under an unpredictable name,
 * checks it again there (it may have changed during the run), puts the new
 * one in place, and only then removes the old one. */
static bool replace_report(tl_outdir *dir, bool *keep_staging, char *error,
                           size_t error_size) {
  if (!replaceable(dir->out, NULL, error, error_size)) {
    /* It changed during the run (it was checked at the start): the new
     * report stays where it is, for the user. */
    *keep_staging = true;
    size_t used = strlen(error);
    snprintf(error + used, error_size - used, "; the new report is in %s",
             dir->staging);
    return false;
  }
  tl_buf aside;
  tl_buf_init(&aside);
  tl_buf_printf(&aside, "%s.tlparse-old-XXXXXX", dir->out);
  bool ok = false;
  char foreign[256];
  if (!mkdtemp(aside.data)) {
    snprintf(error, error_size, "cannot create folder %s: %s", aside.data,
             strerror(errno));
  } else if (rename(dir->out, aside.data) != 0) {
    snprintf(error, error_size, "cannot move %s aside: %s", dir->out,
             strerror(errno));
    rmdir(aside.data);
  } else if (!tl_outdir_looks_like_report(aside.data, foreign,
                                          sizeof foreign)) {
    rename_no_replace(aside.data, dir->out);
    *keep_staging = true;
    snprintf(error, error_size,
             "refusing to replace %s: it changed during the run and now "
             "holds %s; nothing was deleted, the new report is in %s",
             dir->out, foreign, dir->staging);
  } else if (!rename_no_replace(dir->staging, dir->out)) {
    *keep_staging = true;
    snprintf(error, error_size,
             "%s appeared during the run: nothing was replaced; the old "
             "report is in %s, the new one in %s",
             dir->out, aside.data, dir->staging);
  } else {
    ok = tl_fs_remove_tree(aside.data, error, error_size);
  }
  tl_buf_free(&aside);
  return ok;
}

bool tl_outdir_publish(tl_outdir *dir, char *error, size_t error_size) {
  sigset_t saved;
  block_signals(true, &saved);
  /* The marker is the run's, not the report's. */
  tl_buf marker;
  tl_buf_init(&marker);
  tl_buf_printf(&marker, "%s/%s", dir->staging, STAGING_MARKER);
  unlink(marker.data);
  tl_buf_free(&marker);
  struct stat st;
  bool ok, keep_staging = false;
  if (dir->overwrite && lstat(dir->out, &st) == 0) {
    ok = replace_report(dir, &keep_staging, error, error_size);
  } else {
    ok = rename_no_replace(dir->staging, dir->out);
    keep_staging = !ok && (errno == EEXIST || errno == ENOTEMPTY);
    if (keep_staging)
      snprintf(error, error_size,
               "%s appeared during the run: nothing was replaced; the new "
               "report is in %s",
               dir->out, dir->staging);
    else if (!ok)
      snprintf(error, error_size, "cannot rename %s to %s: %s", dir->staging,
               dir->out, strerror(errno));
  }
  if (ok || keep_staging) {
    /* Published, or left for the user: no longer ours to remove. */
    signal_armed = 0;
    free(dir->staging);
    dir->staging = NULL;
  }
  block_signals(false, &saved);
  disarm();
  return ok;
}

/* Removes the staging folder with the cleanup signals blocked, so that a
 * signal during the removal cannot end the process half-way and leave
 * `<staging>-removing` behind: it is delivered once the folder is gone, to
 * the handler (nothing left to remove), which exits with 128+N. */
void tl_outdir_abandon(tl_outdir *dir) {
  if (dir->staging) {
    sigset_t saved;
    block_signals(true, &saved);
    tl_buf trash;
    tl_buf_init(&trash);
    tl_buf_printf(&trash, "%s-removing", dir->staging);
    remove_staging(dir->staging, trash.data);
    tl_buf_free(&trash);
    if (dir->made_parents)
      tl_fs_remove_made(dir->made_parents);
    free(dir->staging);
    dir->staging = NULL;
    signal_armed = 0;
    block_signals(false, &saved);
    disarm();
  }
}

void tl_outdir_free(tl_outdir *dir) {
  free(dir->out);
  free(dir->staging);
  free(dir->made_parents);
  memset(dir, 0, sizeof *dir);
}
