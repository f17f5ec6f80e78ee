// The one mapping from JVMTI errors (vmcore) to JDWP errors (wire).
#pragma once

#include "jdwp/error.h"
#include "vmcore/result.h"

namespace jdwpx::backend {

jdwp::ErrorCode MapJvmtiError(jvmtiError error);
jdwp::Error FromVm(const vmcore::VmError& error);

// Converts a vmcore::Result into a jdwp::Result, mapping the error.
template <class T>
jdwp::Result<T> Wire(vmcore::Result<T>&& r) {
  if (r) {
    if constexpr (std::is_void_v<T>) return {};
    else return std::move(*r);
  }
  return tl::unexpected(FromVm(r.error()));
}

}  // namespace jdwpx::backend

// ASSIGN_OR_RETURN for vmcore results inside handlers returning jdwp::Result.
#define VM_ASSIGN_OR_RETURN(lhs, expr) ASSIGN_OR_RETURN(lhs, ::jdwpx::backend::Wire(expr))
#define VM_RETURN_IF_ERROR(expr) RETURN_IF_ERROR(::jdwpx::backend::Wire(expr))
