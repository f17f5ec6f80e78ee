# Fails unless hotspot/ includes nothing of ours: it reads the JVM's own
# structures for whoever asks and knows nothing of JDWP or of probes.
file(GLOB sources ${ROOT}/hotspot/*.h ${ROOT}/hotspot/*.cc)
foreach(source IN LISTS sources)
  file(STRINGS ${source} includes REGEX "^#include \"")
  foreach(line IN LISTS includes)
    if(NOT line MATCHES "^#include \"hotspot/")
      message(FATAL_ERROR "${source}: ${line} (hotspot/ depends on nothing of ours)")
    endif()
  endforeach()
endforeach()
message(STATUS "hotspot/ layering holds")
