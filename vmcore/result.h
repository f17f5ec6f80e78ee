// vmcore's result type: a JVMTI error plus the name of the function that failed.
#pragma once

#include <jvmti.h>

#include <tl/expected.hpp>

namespace jdwpx::vmcore {

struct VmError {
  jvmtiError code = JVMTI_ERROR_INTERNAL;
  const char* function = "";
};

template <class T>
using Result = tl::expected<T, VmError>;

inline tl::unexpected<VmError> VmFail(jvmtiError code, const char* function) {
  return tl::unexpected<VmError>(VmError{code, function});
}

}  // namespace jdwpx::vmcore
