/* cores_test.c: a helper that waits for an idle core (util/cores.h) goes on
 * only when fewer threads are counted busy than the cores the process may
 * run on, claims that core so that no other waiter takes it too, and stops
 * waiting when told to give up. */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "check.h"
#include "util/cores.h"

typedef struct waiter {
  atomic_bool give_up;
  atomic_bool returned;
  bool idle;
  pthread_t thread;
} waiter;

static void *wait_for_idle(void *arg) {
  waiter *w = arg;
  w->idle = tl_cores_claim_idle(&w->give_up);
  atomic_store(&w->returned, true);
  return NULL;
}

static void start(waiter *w) {
  atomic_init(&w->give_up, false);
  atomic_init(&w->returned, false);
  pthread_create(&w->thread, NULL, wait_for_idle, w);
}

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static void busy_times(int n) {
  for (int i = 0; i < n; i++)
    tl_cores_busy_begin();
}

static void idle_times(int n) {
  for (int i = 0; i < n; i++)
    tl_cores_busy_end();
}

TEST(a_waiter_claims_the_core_a_busy_thread_leaves) {
  int cores = tl_cores_usable();
  busy_times(cores);
  waiter w;
  start(&w);
  sleep_ms(200);
  CHECK(!atomic_load(&w.returned)); /* every core busy: still waiting */
  tl_cores_busy_end();
  pthread_join(w.thread, NULL);
  CHECK(w.idle);
  CHECK_INT_EQ(tl_cores_busy(), cores); /* the waiter counts itself busy */
  idle_times(cores);
  CHECK_INT_EQ(tl_cores_busy(), 0);
}

TEST(two_waiters_never_take_one_idle_core) {
  int cores = tl_cores_usable();
  busy_times(cores);
  waiter a, b;
  start(&a);
  start(&b);
  sleep_ms(100);
  tl_cores_busy_end(); /* one core idle: one waiter takes it */
  sleep_ms(200);
  CHECK_INT_EQ(atomic_load(&a.returned) + atomic_load(&b.returned), 1);
  CHECK_INT_EQ(tl_cores_busy(), cores);
  tl_cores_busy_end(); /* another: the other waiter */
  pthread_join(a.thread, NULL);
  pthread_join(b.thread, NULL);
  CHECK(a.idle && b.idle);
  CHECK_INT_EQ(tl_cores_busy(), cores);
  idle_times(cores);
}

TEST(a_waiter_told_to_give_up_returns_with_no_core) {
  int cores = tl_cores_usable();
  busy_times(cores);
  waiter w;
  start(&w);
  sleep_ms(100);
  CHECK(!atomic_load(&w.returned));
  atomic_store(&w.give_up, true);
  tl_cores_wake();
  pthread_join(w.thread, NULL);
  CHECK(!w.idle);
  CHECK_INT_EQ(tl_cores_busy(), cores); /* nothing claimed */
  idle_times(cores);
}

TEST(with_a_core_idle_the_claim_returns_at_once) {
  int cores = tl_cores_usable();
  busy_times(cores - 1);
  atomic_bool never;
  atomic_init(&never, false);
  CHECK(tl_cores_claim_idle(&never));
  CHECK_INT_EQ(tl_cores_busy(), cores);
  idle_times(cores);
}

/* The cores counted are the ones the affinity mask allows, not the
 * machine's: a run pinned to one core has none to spare for a helper. */
TEST(the_cores_are_the_affinity_masks) {
  cpu_set_t all, one;
  CHECK(sched_getaffinity(0, sizeof all, &all) == 0);
  CHECK_INT_EQ(tl_cores_usable(), CPU_COUNT(&all));
  int first = 0;
  while (!CPU_ISSET(first, &all))
    first++;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
  CHECK_INT_EQ(tl_cores_usable(), 1);
  tl_cores_busy_begin();
  waiter w;
  start(&w);
  sleep_ms(100);
  CHECK(!atomic_load(&w.returned)); /* one busy thread fills the one core */
  tl_cores_busy_end();
  pthread_join(w.thread, NULL);
  CHECK(w.idle);
  CHECK_INT_EQ(tl_cores_busy(), 1);
  tl_cores_busy_end();
  CHECK(sched_setaffinity(0, sizeof all, &all) == 0);
}

int main(void) {
  RUN(a_waiter_claims_the_core_a_busy_thread_leaves);
  RUN(two_waiters_never_take_one_idle_core);
  RUN(a_waiter_told_to_give_up_returns_with_no_core);
  RUN(with_a_core_idle_the_claim_returns_at_once);
  RUN(the_cores_are_the_affinity_masks);
  return check_summary();
}
