/* compile_directory.h: compile_directory.json in the Rust tool's shape
 * (parity spec 4), and the cache marker both it and the index show.
 *
 *   {"[0/0]": {"artifacts": [{"name": "fx_graph_cache_miss_6.json",
 *     "number": 6, "readable_url": null, "suffix": "❌",
 *     "url": "-_0_0_0/fx_graph_cache_miss_6.json"}, ...]}, ...}
 *
 * Keys are the compile ids' display forms ("[-/-]" without ids, "unknown"
 * for ids that cannot be read), sorted; folders that share a key (`-_0_0_-`
 * and `-_0_0_0` are both "[0/0]") are listed together in output order.
 */
#ifndef TL_COMPILE_DIRECTORY_H
#define TL_COMPILE_DIRECTORY_H

#include "store/store.h"

/* "❌" for a path with cache_miss, "✅" cache_hit, "❓" cache_bypass, else
 * "" (links always ""). */
const char *tl_cache_suffix(const tl_artifact *a);

/* Writes compile_directory.json into the store's output folder. */
void tl_compile_directory_write(tl_store *store);

#endif
