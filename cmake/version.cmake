# The version the agent and the tools name: the release (project VERSION) and the sources'
# commit (git describe), or -DJDWPX_VERSION= where the sources have no git history (the
# Dockerfile's build). JDWPX_GIT_VERSION is the commit for the directories below;
# jdwpx_version is a header, <jdwpx_version.h>, for any target that links it.
set(JDWPX_VERSION "" CACHE STRING "version the agent names (default: git describe of the sources)")
if(JDWPX_VERSION)
  set(JDWPX_GIT_VERSION "${JDWPX_VERSION}")
else()
  execute_process(COMMAND git describe --always --dirty WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    OUTPUT_VARIABLE JDWPX_GIT_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT JDWPX_GIT_VERSION)
  set(JDWPX_GIT_VERSION unknown)
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.h.in ${PROJECT_BINARY_DIR}/generated/jdwpx_version.h @ONLY)
add_library(jdwpx_version INTERFACE)
target_include_directories(jdwpx_version INTERFACE ${PROJECT_BINARY_DIR}/generated)
