/* floor_clock.h: the two clocks the floor programs (fs_floor.c,
 * read_floor.c) time themselves with: wall seconds on the monotonic clock,
 * and the process's CPU seconds, user and system. Header-only, so that
 * each program stays one file for the system's cc. */
#ifndef FLOOR_CLOCK_H
#define FLOOR_CLOCK_H

#include <sys/resource.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_seconds(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6 +
         (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec / 1e6;
}

#endif
