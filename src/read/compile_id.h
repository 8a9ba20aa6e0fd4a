/* compile_id.h: compile ids of trace entries and their two spellings.
 *
 * An envelope carries up to four ids (compiled_autograd_id, frame_id,
 * frame_compile_id, attempt); each may be absent. The folder name spells
 * absent ids as '-' (`-_0_0_0`, `-_-_-_-`); the display form is `[0/0]`,
 * `[0/1_1]`, `[!0/-/-]`. Same rules as the Rust tlparse (formats doc 1.6).
 */
#ifndef TL_COMPILE_ID_H
#define TL_COMPILE_ID_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct tl_compile_id {
  bool has_autograd, has_frame, has_frame_compile, has_attempt;
  int64_t autograd, frame, frame_compile, attempt;
} tl_compile_id;

/* Reads the ids from an envelope. Returns false when an id field is present
 * and neither null nor an integer from 0 to 2^32-1: the entry's compile id is
 * then unknown (its files go to `unknown_<line>/`, as in the Rust tool). */
bool tl_compile_id_from_envelope(const cJSON *envelope, tl_compile_id *out);
bool tl_compile_id_is_empty(const tl_compile_id *id);
bool tl_compile_id_eq(const tl_compile_id *a, const tl_compile_id *b);
/* Writes the folder name (`-_0_0_0`) into out (at least 96 bytes). */
void tl_compile_id_dir_name(const tl_compile_id *id, char *out, size_t size);
/* Writes the display form (`[0/0]`) into out (at least 96 bytes). */
void tl_compile_id_display(const tl_compile_id *id, char *out, size_t size);

#endif
