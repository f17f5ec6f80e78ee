# The shipped agent, build/backend/libjdwpx.so, loads into JDK images as old as Debian 11:
# it is compiled and linked against a Debian 11 (bullseye) sysroot with glibc 2.31
# (scripts/make-sysroot.sh, run by `scripts/setup.sh test`), so that inline code and symbol
# versions bind to glibc <= 2.31, with the host's g++ 12 and its static libstdc++.
# backend.glibc_floor checks the result.
#
# Only the agent needs this, while the tests and tools link the same static libraries
# into host executables (whose libstdc++.so and gtest need the host glibc). So the
# libraries the agent links are built twice: as <name>_floor against the sysroot for
# the agent, and as themselves for everything else. Libraries only the agent uses
# (backend) are then built only as _floor.
#
#   -DJDWPX_SYSROOT=auto     (default) /opt/jdwpx-sysroot/bullseye when it exists
#   -DJDWPX_SYSROOT=<dir>    that sysroot
#   -DJDWPX_SYSROOT=none     link against the host's glibc (backend.glibc_floor fails)

set(JDWPX_SYSROOT "auto" CACHE STRING "glibc 2.31 sysroot for the agent: auto, none or a directory")

function(jdwpx_glibc_floor)
  set(sysroot "${JDWPX_SYSROOT}")
  if(sysroot STREQUAL "auto")
    set(sysroot "/opt/jdwpx-sysroot/bullseye")
    if(NOT EXISTS "${sysroot}/.jdwpx-sysroot")
      message(WARNING "No glibc 2.31 sysroot at ${sysroot} (scripts/setup.sh test makes it): "
        "the agent is linked against this machine's glibc and loads only where it is as new")
      return()
    endif()
  elseif(sysroot STREQUAL "none" OR sysroot STREQUAL "")
    return()
  endif()
  if(NOT EXISTS "${sysroot}/usr/include/features.h")
    message(FATAL_ERROR "JDWPX_SYSROOT=${sysroot} is not a sysroot (scripts/make-sysroot.sh makes one)")
  endif()
  message(STATUS "Agent: built against the glibc sysroot ${sysroot}")

  # The sysroot hides the host's /usr/include; the header-only libraries the agent (and
  # jdwpx-bridge: CLI11) use come back through this directory of links (never /usr/include itself: it would bring
  # the host's glibc headers back, e.g. <sys/single_threaded.h>).
  set(floor_include "${CMAKE_BINARY_DIR}/floor-include")
  file(MAKE_DIRECTORY "${floor_include}")
  foreach(header asio asio.hpp spdlog fmt tl CLI)
    if(EXISTS "/usr/include/${header}" AND NOT EXISTS "${floor_include}/${header}")
      file(CREATE_LINK "/usr/include/${header}" "${floor_include}/${header}" SYMBOLIC)
    endif()
  endforeach()

  # -pthread: Threads::Threads was found against the host's glibc (2.34+), where threads
  # are in libc and it adds nothing; with 2.31 they are in libpthread.
  set(floor_compile --sysroot=${sysroot} -isystem ${floor_include} -pthread)
  # gcc's own library directories (/usr/lib/gcc/...) come first and are not under the
  # sysroot; name the sysroot's first so that crt files, libc, libpthread and libgcc_s
  # are bullseye's. libgcc is linked shared: the static one's unwinder needs
  # _dl_find_object (glibc 2.35).
  set(floor_link --sysroot=${sysroot} -B${sysroot}/usr/lib/x86_64-linux-gnu
    -L${sysroot}/usr/lib/x86_64-linux-gnu -L${sysroot}/lib/x86_64-linux-gnu
    -Wl,-rpath-link,${sysroot}/lib/x86_64-linux-gnu -pthread)

  # Our static libraries the agent links, transitively.
  set(floor_libs "")
  function(jdwpx_collect_floor_libs target)
    get_target_property(deps ${target} LINK_LIBRARIES)
    foreach(dep IN LISTS deps)
      if(TARGET ${dep} AND NOT dep IN_LIST floor_libs)
        get_target_property(type ${dep} TYPE)
        get_target_property(imported ${dep} IMPORTED)
        if(type STREQUAL "STATIC_LIBRARY" AND NOT imported)
          list(APPEND floor_libs ${dep})
          set(floor_libs "${floor_libs}" PARENT_SCOPE)
          jdwpx_collect_floor_libs(${dep})
        endif()
      endif()
    endforeach()
    set(floor_libs "${floor_libs}" PARENT_SCOPE)
  endfunction()
  jdwpx_collect_floor_libs(jdwpx)

  # A link list with each of those libraries replaced by its _floor twin.
  function(jdwpx_floor_map out)
    set(mapped "")
    foreach(item IN LISTS ARGN)
      foreach(lib IN LISTS floor_libs)
        if(item STREQUAL lib)
          set(item ${lib}_floor)
        elseif(item STREQUAL "$<LINK_ONLY:${lib}>")
          set(item "$<LINK_ONLY:${lib}_floor>")
        endif()
      endforeach()
      list(APPEND mapped "${item}")
    endforeach()
    set(${out} "${mapped}" PARENT_SCOPE)
  endfunction()

  foreach(lib IN LISTS floor_libs)
    get_target_property(dir ${lib} SOURCE_DIR)
    get_target_property(sources ${lib} SOURCES)
    set(abs_sources "")
    foreach(src IN LISTS sources)
      cmake_path(ABSOLUTE_PATH src BASE_DIRECTORY "${dir}" OUTPUT_VARIABLE abs)
      list(APPEND abs_sources "${abs}")
      # Source properties are per directory (backend's agent.cc and session.cc get JDWPX_VERSION).
      foreach(prop COMPILE_DEFINITIONS COMPILE_OPTIONS INCLUDE_DIRECTORIES)
        get_source_file_property(value "${abs}" DIRECTORY "${dir}" ${prop})
        if(value)
          set_source_files_properties("${abs}" PROPERTIES ${prop} "${value}")
        endif()
      endforeach()
    endforeach()
    add_library(${lib}_floor STATIC ${abs_sources})
    foreach(prop INCLUDE_DIRECTORIES COMPILE_DEFINITIONS COMPILE_OPTIONS COMPILE_FEATURES
                 INTERFACE_INCLUDE_DIRECTORIES INTERFACE_COMPILE_DEFINITIONS INTERFACE_COMPILE_OPTIONS)
      get_target_property(value ${lib} ${prop})
      if(value)
        set_property(TARGET ${lib}_floor PROPERTY ${prop} "${value}")
      endif()
    endforeach()
    foreach(prop LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(value ${lib} ${prop})
      if(value)
        jdwpx_floor_map(value ${value})
        set_property(TARGET ${lib}_floor PROPERTY ${prop} "${value}")
      endif()
    endforeach()
    target_compile_options(${lib}_floor PRIVATE ${floor_compile})
    # backend is linked by the agent alone: build only its twin.
    if(lib STREQUAL "backend")
      set_target_properties(${lib} PROPERTIES EXCLUDE_FROM_ALL ON)
    endif()
  endforeach()

  get_target_property(agent_libs jdwpx LINK_LIBRARIES)
  jdwpx_floor_map(agent_libs ${agent_libs})
  set_property(TARGET jdwpx PROPERTY LINK_LIBRARIES "${agent_libs}")
  target_sources(jdwpx PRIVATE "${PROJECT_SOURCE_DIR}/backend/floor/glibc_compat.cc")
  target_compile_options(jdwpx PRIVATE ${floor_compile})
  target_link_options(jdwpx PRIVATE ${floor_link})

  # jdwpx-bridge is copied into pods and hosts as well: the same floor (its libraries
  # are among the agent's: transport and jdwp). The event path's in-JVM test agent
  # (backend/tests) links the agent's backend: its floor twin, so that backend is not
  # compiled a second time for the host.
  foreach(target jdwpx-bridge backend_event_path_agent)
    if(NOT TARGET ${target})
      continue()
    endif()
    get_target_property(target_libs ${target} LINK_LIBRARIES)
    jdwpx_floor_map(target_libs ${target_libs})
    set_property(TARGET ${target} PROPERTY LINK_LIBRARIES "${target_libs}")
    target_sources(${target} PRIVATE "${PROJECT_SOURCE_DIR}/backend/floor/glibc_compat.cc")
    target_compile_options(${target} PRIVATE ${floor_compile})
    target_link_options(${target} PRIVATE ${floor_link})
  endforeach()
endfunction()
jdwpx_glibc_floor()
