/* export_report.h: being written in this change; see its .c file. */
#ifndef TL_EXPORT_REPORT_H
#define TL_EXPORT_REPORT_H

/* Placeholder until the module lands: does nothing. */
void tl_export_report_placeholder(void);

#endif
