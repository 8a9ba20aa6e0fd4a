# cmake/packaging.cmake: installing and packaging tlparse, included at the
# end of CMakeLists.txt (after the tlparse target and the man page exist).
#   wheel   under scikit-build-core (pyproject.toml, SKBUILD set): component
#           "wheel" only, the C binary into the wheel's scripts (the
#           environment's bin/), the man page and the shell completions into
#           its data (share/ under the environment's prefix)
#   install beside CMakeLists.txt's rules (bin/tlparse, share/man/man1): the
#           bash and zsh completions, the docs and the licence
#   .deb    CPack's DEB generator over those rules:
#             cmake -S . -B build/deb -DBUILD_TESTING=OFF -DCMAKE_INSTALL_PREFIX=/usr
#             cmake --build build/deb && (cd build/deb && cpack -G DEB)
#           The package depends on the Debian packages of the libraries the
#           binary was linked with, as dpkg-shlibdeps names them on the
#           machine that builds it: build it on the release it is for.

set(TL_COMPLETIONS_DIR "${CMAKE_SOURCE_DIR}/completions")

if(SKBUILD)
  # manylinux lets a wheel use the system's libz.so.1, so auditwheel repair
  # does not bundle it: the wheel links Debian's libz.a (position-independent)
  # instead, and needs nothing from the system but the C library.
  find_library(TL_ZLIB_STATIC NAMES libz.a)
  if(TL_ZLIB_STATIC)
    set_target_properties(PkgConfig::ZLIB PROPERTIES
      INTERFACE_LINK_LIBRARIES "${TL_ZLIB_STATIC}")
  endif()
  install(TARGETS tlparse RUNTIME DESTINATION "${SKBUILD_SCRIPTS_DIR}"
          COMPONENT wheel)
  if(TARGET tl_man)
    install(FILES "${TL_MAN_PAGE}"
            DESTINATION "${SKBUILD_DATA_DIR}/share/man/man1" COMPONENT wheel)
  endif()
  install(FILES "${TL_COMPLETIONS_DIR}/tlparse.bash"
          DESTINATION "${SKBUILD_DATA_DIR}/share/bash-completion/completions"
          RENAME tlparse COMPONENT wheel)
  install(FILES "${TL_COMPLETIONS_DIR}/_tlparse"
          DESTINATION "${SKBUILD_DATA_DIR}/share/zsh/site-functions"
          COMPONENT wheel)
  return()
endif()

# --- install rules ----------------------------------------------------------
install(FILES "${TL_COMPLETIONS_DIR}/tlparse.bash"
        DESTINATION share/bash-completion/completions RENAME tlparse)
# zsh: Debian's zsh reads packages' completions from
# /usr/share/zsh/vendor-completions and the local ones from
# /usr/local/share/zsh/site-functions; the folder is chosen when the install
# runs, as CPack installs with its own prefix (/usr).
install(CODE "
  if(\"\${CMAKE_INSTALL_PREFIX}\" STREQUAL \"/usr\")
    set(tl_zsh_dir \"\${CMAKE_INSTALL_PREFIX}/share/zsh/vendor-completions\")
  else()
    set(tl_zsh_dir \"\${CMAKE_INSTALL_PREFIX}/share/zsh/site-functions\")
  endif()
  file(INSTALL \"${TL_COMPLETIONS_DIR}/_tlparse\" DESTINATION \"\${tl_zsh_dir}\")
")
# The Markdown docs as they are in the sources (their links stay valid
# between README.md and docs/), with their screenshots; the licence as
# Debian's copyright file.
install(FILES README.md DESTINATION share/doc/tlparse)
install(FILES LICENSE DESTINATION share/doc/tlparse RENAME copyright)
install(DIRECTORY docs/ DESTINATION share/doc/tlparse/docs
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png")

# --- Debian package (cpack -G DEB) -----------------------------------------
set(TLPARSE_DEB_MAINTAINER "tlparse developers" CACHE STRING
  "Maintainer field of the Debian package (Name <address>)")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tlparse)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "${TLPARSE_DEB_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "turn a TORCH_TRACE structured log into a browsable report")
set(CPACK_PACKAGE_DESCRIPTION
  "tlparse reads the structured trace log that PyTorch writes when TORCH_TRACE
is set and writes a folder with index.html, one section per compilation and
every artifact of the trace. With -i it adds the provenance highlighter,
linking the pre-grad graph, the post-grad graph and the generated code line
by line. A drop-in replacement for the Rust tlparse, written in C11.")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES TRUE)

# Dependencies: dpkg-shlibdeps (dpkg-dev) reads the libraries the binary needs
# and names their packages with the versions it needs, e.g. on Debian 12
# libtree-sitter0, libcmark0.30.2, libcjson1, libmd0, libyajl2, zlib1g, libc6.
# The names follow the libraries' sonames, so they are those of the release
# that built the package (Debian 13 has other sonames for tree-sitter and
# cmark): a package built on one release does not run on the other.
# Without dpkg-shlibdeps, the packages are read off dpkg's database, without
# versions.
find_program(TL_DPKG_SHLIBDEPS dpkg-shlibdeps)
find_program(TL_DPKG_QUERY dpkg-query)
if(TL_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
elseif(TL_DPKG_QUERY)
  set(tl_deb_depends "")
  foreach(prefix TREE_SITTER CJSON CMARK LIBMD YAJL ZLIB)
    foreach(lib ${${prefix}_LINK_LIBRARIES})
      get_filename_component(lib_real "${lib}" REALPATH)
      execute_process(COMMAND "${TL_DPKG_QUERY}" -S "${lib_real}"
        OUTPUT_VARIABLE owner RESULT_VARIABLE owner_result ERROR_QUIET)
      if(owner_result EQUAL 0 AND owner MATCHES "^([^:,]+)")
        list(APPEND tl_deb_depends "${CMAKE_MATCH_1}")
      endif()
    endforeach()
  endforeach()
  list(APPEND tl_deb_depends libc6)
  list(REMOVE_DUPLICATES tl_deb_depends)
  string(REPLACE ";" ", " CPACK_DEBIAN_PACKAGE_DEPENDS "${tl_deb_depends}")
else()
  message(STATUS "dpkg-shlibdeps and dpkg-query not found: a Debian package "
                 "made here would declare no dependencies")
endif()
include(CPack)
