# Fails unless LIB needs no shared library but libc and the dynamic loader: the
# agent is loaded into someone else's process, and a libstdc++ or libprotobuf of
# ours could clash with the application's (the trace encodes protobuf by hand,
# see trace/CMakeLists.txt).
execute_process(COMMAND readelf -d ${LIB} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf failed on ${LIB}")
endif()
string(REGEX MATCHALL "Shared library: \\[[^]]+\\]" needed "${out}")
list(TRANSFORM needed REPLACE "Shared library: \\[([^]]+)\\]" "\\1")
list(SORT needed)
set(expected ld-linux-x86-64.so.2 libc.so.6)
if(NOT needed STREQUAL expected)
  message(FATAL_ERROR "needed libraries: '${needed}', expected '${expected}'")
endif()
message(STATUS "needed: ${needed}")
