/* queries_cpp.h: the tree-sitter query of the AOTInductor C++ analysis
 * (src/analyze/cppcode.c), embedded at build time from grammars/queries/
 * cpp_triton.scm by tl_embed in cmake/engine_cpp.cmake. Read it with
 * TL_RES(name) and compile with tl_ts_query_init. The C++ itself is read
 * by tree walks (tl_ts_walk): a query of the C++ grammar costs 4 to 8 ms to
 * compile however simple.
 */
#ifndef TL_QUERIES_CPP_H
#define TL_QUERIES_CPP_H

#include "util/resources.h"

TL_RES_DECLARE(query_cpp_triton); /* launcher comments (python grammar) */

#endif
