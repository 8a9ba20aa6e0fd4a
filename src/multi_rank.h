/* multi_rank.h: being written in this change; see its .c file. */
#ifndef TL_MULTI_RANK_H
#define TL_MULTI_RANK_H

/* Placeholder until the module lands: does nothing. */
void tl_multi_rank_placeholder(void);

#endif
