/* work_dir.h: the private folder a fuzz harness writes its inputs and
 * reports in (tests/fuzz/work_dir.c, linked into every harness).
 *
 *   work_dir = fuzz_work_dir("trace");          once, in LLVMFuzzerInitialize
 *   trace_path = fuzz_work_path("trace.log");
 *   ...
 *   fuzz_work_remove_at_exit();                 in LLVMFuzzerTestOneInput
 */
#ifndef TL_FUZZ_WORK_DIR_H
#define TL_FUZZ_WORK_DIR_H

/* Makes $TMPDIR/tl-fuzz-<target>-XXXXXX (mkdtemp, /tmp without TMPDIR) on
 * the first call and returns it; later calls return the same folder. */
const char *fuzz_work_dir(const char *target);
/* The folder's path joined with `name`, malloc'd. */
char *fuzz_work_path(const char *name);
/* Has the folder removed, with all in it, when the process exits; calls
 * after the first do nothing. */
void fuzz_work_remove_at_exit(void);

#endif
