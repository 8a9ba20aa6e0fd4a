/* queries_cpp.h: the tree-sitter queries of the AOTInductor C++ analysis
 * (src/cppcode.c), embedded at build time from grammars/queries/cpp*.scm by
 * tl_embed in src/engine_cpp.cmake. Read them with TL_RES(name) and compile
 * with tl_ts_query_init.
 */
#ifndef TL_QUERIES_CPP_H
#define TL_QUERIES_CPP_H

#include "resources.h"

TL_RES_DECLARE(query_cpp_wrapper); /* the wrapper (cpp grammar) */
TL_RES_DECLARE(query_cpp_triton);  /* launcher comments (python grammar) */

#endif
