/* queries.h: the tree-sitter queries of the engine, embedded at build time
 * from the grammars/queries .scm files by tl_embed in cmake/engine.cmake (one
 * resource per file). Read them with TL_RES(name) and compile with
 * tl_ts_query_init. FX graphs (fx_graph.c) and the Python output code
 * (pycode.c) are read by tree walks.
 */
#ifndef TL_QUERIES_H
#define TL_QUERIES_H

#include "util/resources.h"

TL_RES_DECLARE(query_pycode_triton); /* Triton source inside '''...''' */

#endif
