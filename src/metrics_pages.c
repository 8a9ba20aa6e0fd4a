/* metrics_pages.c: being written in this change. */
#include "metrics_pages.h"

void tl_metrics_pages_placeholder(void) {}
