# Fails unless LIB needs no shared library but glibc's own (libc, libm, libdl,
# libpthread, the dynamic loader) and libgcc_s, all of which every glibc JDK image has:
# the agent is loaded into someone else's process, and a libstdc++ or libprotobuf of
# ours could clash with the application's (libstdc++ is linked statically; the trace
# encodes protobuf by hand, see trace/CMakeLists.txt).
execute_process(COMMAND readelf -d ${LIB} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf failed on ${LIB}")
endif()
string(REGEX MATCHALL "Shared library: \\[[^]]+\\]" needed "${out}")
list(TRANSFORM needed REPLACE "Shared library: \\[([^]]+)\\]" "\\1")
list(SORT needed)
set(allowed ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 libgcc_s.so.1)
set(extra ${needed})
list(REMOVE_ITEM extra ${allowed})
list(FIND needed libc.so.6 libc_index)
if(extra OR libc_index EQUAL -1)
  message(FATAL_ERROR "needed libraries: '${needed}'; allowed: '${allowed}' (libc.so.6 required)")
endif()
message(STATUS "needed: ${needed}")
