# What `cmake --install build --prefix P` puts where (and so what the package holds):
#
#   P/lib/jdwpx/libjdwpx.so                 the agent, stripped (backend/CMakeLists.txt)
#   P/bin/jdwpx-trace, P/bin/jdwpx-bridge, P/bin/jdwpx-probe   the tools, stripped (tools/CMakeLists.txt)
#   P/bin/jdwpx-install-into-jdk            scripts/install-into-jdk.sh
#   P/share/man/man1/<each of the four>.1.gz
#   P/share/doc/jdwpx/{copyright,changelog.gz}   (cmake/package.cmake)
#
# Nothing else: no static library, header or test binary has an install rule.
# The built agent carries ~120 MB of debug info; a plain `cmake --install` strips the
# installed copy (as Debian's dh_strip would), so no `--strip` is needed.

# Strips <path> (relative to the install prefix) once it is installed, with <strip options>.
function(jdwpx_install_strip path)
  if(NOT CMAKE_STRIP)
    message(WARNING "no strip program found: ${path} is installed with its debug info")
    return()
  endif()
  install(CODE "execute_process(COMMAND \"${CMAKE_STRIP}\" ${ARGN} \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${path}\"
    COMMAND_ERROR_IS_FATAL ANY)")
endfunction()

# dh_strip's options: a shared library keeps only its dynamic symbols, executables lose
# their symbol tables; both lose the .comment and .note sections.
set(JDWPX_STRIP_LIBRARY --strip-unneeded --remove-section=.comment --remove-section=.note)
set(JDWPX_STRIP_PROGRAM --strip-all --remove-section=.comment --remove-section=.note)

# Installs executable <target> into bin/, stripped.
function(jdwpx_install_program target)
  install(TARGETS ${target} RUNTIME DESTINATION bin)
  jdwpx_install_strip("bin/$<TARGET_FILE_NAME:${target}>" ${JDWPX_STRIP_PROGRAM})
endfunction()

# Installs the man page docs/man/<name>.1 as share/man/man1/<name>.1.gz (gzip -9n, as
# Debian wants). Compressed at configure time, so installing needs no build step.
function(jdwpx_install_man name)
  set(source "${PROJECT_SOURCE_DIR}/docs/man/${name}.1")
  set(compressed "${PROJECT_BINARY_DIR}/man/${name}.1.gz")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${source}")
  file(MAKE_DIRECTORY "${PROJECT_BINARY_DIR}/man")
  execute_process(COMMAND gzip -9 -n -c "${source}" OUTPUT_FILE "${compressed}" COMMAND_ERROR_IS_FATAL ANY)
  install(FILES "${compressed}" DESTINATION share/man/man1)
endfunction()
