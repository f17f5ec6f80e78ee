# Fails unless trace/ includes only jdwp/ and itself, and protobuf is included
# nowhere but the reader's side of trace/ (reader.cc) and trace/'s tests: the
# agent must not depend on it (see trace/CMakeLists.txt and trace/wire.h), nor
# link the reader's library.
file(GLOB trace_sources ${ROOT}/trace/*.h ${ROOT}/trace/*.cc)
foreach(source IN LISTS trace_sources)
  file(STRINGS ${source} includes REGEX "^#include \"")
  foreach(line IN LISTS includes)
    if(NOT line MATCHES "^#include \"(jdwp|trace)/")
      message(FATAL_ERROR "${source}: ${line} (trace/ depends on jdwp/ only)")
    endif()
  endforeach()
endforeach()
file(GLOB_RECURSE all_sources ${ROOT}/backend/*.h ${ROOT}/backend/*.cc ${ROOT}/jdwp/*.h ${ROOT}/jdwp/*.cc
  ${ROOT}/transport/*.h ${ROOT}/transport/*.cc ${ROOT}/vmcore/*.h ${ROOT}/vmcore/*.cc ${ROOT}/tools/*.cc
  ${ROOT}/trace/*.h ${ROOT}/trace/*.cc)
foreach(source IN LISTS all_sources)
  file(STRINGS ${source} includes REGEX "^#include .*(google/protobuf|\\.pb\\.h)")
  if(includes AND NOT source MATCHES "/trace/tests/" AND NOT source MATCHES "/trace/reader\\.cc$")
    message(FATAL_ERROR "${source}: ${includes} (protobuf only in trace/reader.cc and trace/tests)")
  endif()
endforeach()
foreach(dir backend transport vmcore jdwp)
  file(GLOB_RECURSE lists ${ROOT}/${dir}/CMakeLists.txt)
  foreach(list IN LISTS lists)
    file(STRINGS ${list} uses REGEX "trace_read|protobuf")
    if(uses)
      message(FATAL_ERROR "${list}: ${uses} (the agent links trace, never trace_read nor protobuf)")
    endif()
  endforeach()
endforeach()
message(STATUS "trace/ layering holds")
