/* metrics_pages.h: being written in this change; see its .c file. */
#ifndef TL_METRICS_PAGES_H
#define TL_METRICS_PAGES_H

/* Placeholder until the module lands: does nothing. */
void tl_metrics_pages_placeholder(void);

#endif
