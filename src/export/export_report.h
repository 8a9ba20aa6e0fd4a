/* export_report.h: the export mode (-e): the Draft Export Report of a
 * torch.export trace, a room of its own beside the default report. It reads
 * the log with the streaming reader and, as each entry arrives, writes
 * <dir>/exported_program_N.txt (the payload as read), one
 * <dir>/symbolic_guard_information_N.html per evaluated guard or
 * data-dependent error, other payloads to payloads/<md5>.txt, and
 * index.html at the end. The run owns everything it keeps (the expressions
 * seen so far, the failure rows) and frees it before returning.
 */
#ifndef TL_EXPORT_REPORT_H
#define TL_EXPORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "read/reader.h"
#include "util/diag.h"

typedef struct tl_export_options {
  const char *input;              /* the trace log (a regular file) */
  const char *out_dir;            /* an existing, empty folder */
  const char *custom_header_html; /* the user's own HTML, or NULL */
  tl_progress_fn progress;        /* may be NULL */
  void *progress_ctx;
} tl_export_options;

/* Writes the export report of options->input into options->out_dir. Bad
 * input is counted in *diag and never stops the run; false only when the
 * input cannot be read or the output cannot be written, with one line in
 * `error`. */
bool tl_export_report_run(const tl_export_options *options, tl_diag *diag,
                          char *error, size_t error_size);

#endif
