/* recompile_reasons.h: the `recompile_reasons` artifact read into what each
 * line says, and said again in words.
 *
 * Dynamo logs it (torch/_dynamo/guards.py, get_guard_fail_reason) when a
 * frame compiles again: one line per earlier compile of the frame whose
 * guards failed, `<compile id>: <reason>`, several reasons of one compile
 * joined by "; " (with recompiles_verbose), a "User stack trace:" block
 * after a line when torch had one. A reason is the text of the first guard
 * that failed, or for a tensor the check's own message:
 *   0/0: tensor 'x' size mismatch at index 0. expected 4, actual 6
 *   0/1: L['self'].training == True
 *   0/2: ___check_obj_id(G['cfg'], 140197249297648)
 * A guard's code may end with its comment (`G['SCALE'] == 2.0   # y *
 * SCALE  # m.py:5 in f`), kept apart as `where`. The payload is plain text
 * (logged with "encoding": "json" though it is no JSON), or, when several
 * earlier compiles failed, a JSON array of such lines.
 */
#ifndef TL_RECOMPILE_REASONS_H
#define TL_RECOMPILE_REASONS_H

#include "util/buf.h"

typedef enum tl_reason_kind {
  TL_REASON_TENSOR,     /* a tensor check: `what` of `subject` */
  TL_REASON_OBJECT_ID,  /* ___check_obj_id(subject, id): another object */
  TL_REASON_TYPE_ID,    /* ___check_type_id(subject, id): another type */
  TL_REASON_EQUALS,     /* `subject == value`: the value changed */
  TL_REASON_SIZE_RANGE, /* a comparison of sizes (dynamic shapes' range) */
  TL_REASON_BACKEND,    /* BACKEND_MATCH failure */
  TL_REASON_OTHER       /* any other guard's code, said as it is */
} tl_reason_kind;

typedef struct tl_recompile_reason {
  tl_str earlier; /* the compile id whose guards failed ("0/0") */
  tl_str text;    /* the reason as logged (without the id) */
  tl_reason_kind kind;
  tl_str subject;  /* the tensor, object or expression, as logged */
  tl_str what;     /* TL_REASON_TENSOR: "size", "stride", "dtype", ... */
  tl_str index;    /* TL_REASON_TENSOR: the dimension, when the check says */
  tl_str expected; /* TL_REASON_TENSOR, TL_REASON_EQUALS: what it was */
  tl_str actual;   /* TL_REASON_TENSOR: what it is now */
  tl_str where;    /* the guard's comment (the user line), when logged */
} tl_recompile_reason;

typedef TL_VEC(tl_recompile_reason) tl_recompile_reasons;

/* Reads `text`; every slice points into it. Lines that are no
 * `<id>: reason` (the user stack trace) are left out. */
void tl_recompile_reasons_read(tl_str text, tl_recompile_reasons *out);

/* Appends the reason in words (plain text, not escaped), naming the earlier
 * compile as `[0/0]`. */
void tl_recompile_reason_words(tl_buf *out, const tl_recompile_reason *r);

/* The same for a reason logged in session `session` (from 1; see
 * recompiles.h), whose earlier compile is of that session too: named as
 * the pages label it, `[0/0] #2` in a later session. */
void tl_recompile_reason_words_in(tl_buf *out, const tl_recompile_reason *r,
                                  size_t session);

/* The JSON name of a kind: "tensor", "object_id", ... */
const char *tl_reason_kind_name(tl_reason_kind kind);

#endif
