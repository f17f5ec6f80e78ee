# Fails unless expr/ (the library, not its tests) includes only expr/ of ours
# and nothing of the JVM's: Scope and Heap are its only way to the program.
file(GLOB expr_sources ${ROOT}/expr/*.h ${ROOT}/expr/*.cc)
foreach(source IN LISTS expr_sources)
  file(STRINGS ${source} includes REGEX "^#include ")
  foreach(line IN LISTS includes)
    if(line MATCHES "^#include \"" AND NOT line MATCHES "^#include \"expr/")
      message(FATAL_ERROR "${source}: ${line} (expr/ depends on nothing of ours)")
    endif()
    if(line MATCHES "jni|jvmti")
      message(FATAL_ERROR "${source}: ${line} (expr/ knows no JNI or JVMTI)")
    endif()
  endforeach()
endforeach()
