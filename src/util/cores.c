/* cores.c: the run's busy threads, counted under one lock; a waiter for an
 * idle core sleeps on one condition that every change broadcasts. */
#define _GNU_SOURCE
#include "util/cores.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int busy;

int tl_cores_usable(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? (int)online : 1;
}

void tl_cores_busy_begin(void) {
  pthread_mutex_lock(&lock);
  busy++;
  pthread_mutex_unlock(&lock);
}

void tl_cores_busy_end(void) {
  pthread_mutex_lock(&lock);
  busy--;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
}

int tl_cores_busy(void) {
  pthread_mutex_lock(&lock);
  int n = busy;
  pthread_mutex_unlock(&lock);
  return n;
}

bool tl_cores_claim_idle(const atomic_bool *give_up) {
  int cores = tl_cores_usable();
  pthread_mutex_lock(&lock);
  while (busy >= cores && !atomic_load(give_up))
    pthread_cond_wait(&changed, &lock);
  bool idle = busy < cores && !atomic_load(give_up);
  busy += idle;
  pthread_mutex_unlock(&lock);
  return idle;
}

void tl_cores_wake(void) {
  pthread_mutex_lock(&lock);
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
}
