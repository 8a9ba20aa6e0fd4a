/* cores.h: the run's working threads against the cores it has.
 *
 * A thread that analyzes views (a view worker, a view's second thread for
 * its FX graphs, a parse-ahead helper) counts itself busy while it works.
 * A helper that gains wall time only on an idle core (the AOT launcher
 * comments' scanner, a large view's page texts deflated ahead) waits until
 * fewer threads are busy than there are cores, instead of taking a share of
 * a core the view's longest thread needs: on two cores, a third runnable
 * thread slows the wrapper's parse by a third while it runs
 * (docs/performance.md, "The floors").
 */
#ifndef TL_CORES_H
#define TL_CORES_H

#include <stdatomic.h>
#include <stdbool.h>

/* A view whose code text has at least this many bytes is large enough for
 * a helper thread to pay (its FX graphs analyzed on a second thread, its
 * page's panels deflated ahead); below it, a thread costs more than it
 * saves. */
enum { TL_CORES_HELPER_CODE_MIN = 1 << 20 };

/* The cores this process may run on (its affinity mask; at least 1): what
 * the run's worker counts start from, so that a run pinned to fewer cores
 * (taskset, a cpuset) starts no more workers than it can run at once. */
int tl_cores_usable(void);

/* Counts the calling thread busy, then not. */
void tl_cores_busy_begin(void);
void tl_cores_busy_end(void);

/* Threads counted busy now. */
int tl_cores_busy(void);

/* Waits until fewer threads are busy than there are usable cores, then
 * counts the calling thread busy (as tl_cores_busy_begin, under the same
 * lock, so that two waiters never take one idle core) and returns true; or
 * returns false, counting nothing, once `*give_up` is set and tl_cores_wake
 * called. After true, the caller ends with tl_cores_busy_end. */
bool tl_cores_claim_idle(const atomic_bool *give_up);

/* Wakes every tl_cores_claim_idle so that each reads its give_up again. */
void tl_cores_wake(void);

#endif
