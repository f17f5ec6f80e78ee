// HotSpot's description of its own C++ structures: the tables that libjvm.so
// exports for the Serviceability Agent (gHotSpotVMStructs, gHotSpotVMTypes),
// which give field offsets and type sizes by name for the very build that runs.
// Read once, at setup; nothing here runs per event.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace jdwpx::hotspot {

class VmStructs {
 public:
  // The tables of the libjvm.so that holds `code_in_jvm` (any address in it:
  // a JNI function's), or none when that library exports no such tables (a VM
  // that is not HotSpot).
  static std::optional<VmStructs> Of(const void* code_in_jvm);

  // A non-static field's offset in its type.
  std::optional<size_t> FieldOffset(std::string_view type, std::string_view field) const;
  std::optional<size_t> TypeSize(std::string_view type) const;

 private:
  // The tables are arrays of entries whose layout the library also exports
  // (the offsets of each entry's members, and its stride).
  struct Table {
    const char* entries = nullptr;
    size_t stride = 0;
  };
  Table fields_;
  size_t field_type_name_ = 0;
  size_t field_name_ = 0;
  size_t field_is_static_ = 0;
  size_t field_offset_ = 0;
  Table types_;
  size_t type_name_ = 0;
  size_t type_size_ = 0;
};

}  // namespace jdwpx::hotspot
