#include "hotspot/vm_structs.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstring>

namespace jdwpx::hotspot {
namespace {

// A symbol of the library, through a handle that does not keep it loaded
// longer than the VM does (RTLD_NOLOAD: it is loaded already).
class Library {
 public:
  explicit Library(const char* path) : handle_(dlopen(path, RTLD_NOW | RTLD_NOLOAD)) {}
  ~Library() {
    if (handle_) dlclose(handle_);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  template <typename T>
  bool Read(const char* name, T& out) const {
    if (!handle_) return false;
    const void* symbol = dlsym(handle_, name);
    if (!symbol) return false;
    std::memcpy(&out, symbol, sizeof(T));
    return true;
  }

 private:
  void* handle_;
};

template <typename T>
T At(const char* entry, size_t offset) {
  T value;
  std::memcpy(&value, entry + offset, sizeof(T));
  return value;
}

}  // namespace

std::optional<VmStructs> VmStructs::Of(const void* code_in_jvm) {
  Dl_info info{};
  if (!dladdr(code_in_jvm, &info) || !info.dli_fname) return std::nullopt;
  Library jvm(info.dli_fname);
  VmStructs s;
  // The entries' members are exported as uint64_t offsets; the arrays as pointers.
  uint64_t type_name = 0, field_name = 0, is_static = 0, offset = 0, stride = 0;
  uint64_t t_name = 0, t_size = 0, t_stride = 0;
  if (!jvm.Read("gHotSpotVMStructs", s.fields_.entries) || !jvm.Read("gHotSpotVMStructEntryTypeNameOffset", type_name) ||
      !jvm.Read("gHotSpotVMStructEntryFieldNameOffset", field_name) ||
      !jvm.Read("gHotSpotVMStructEntryIsStaticOffset", is_static) ||
      !jvm.Read("gHotSpotVMStructEntryOffsetOffset", offset) || !jvm.Read("gHotSpotVMStructEntryArrayStride", stride) ||
      !jvm.Read("gHotSpotVMTypes", s.types_.entries) || !jvm.Read("gHotSpotVMTypeEntryTypeNameOffset", t_name) ||
      !jvm.Read("gHotSpotVMTypeEntrySizeOffset", t_size) || !jvm.Read("gHotSpotVMTypeEntryArrayStride", t_stride))
    return std::nullopt;
  if (!s.fields_.entries || !s.types_.entries || stride == 0 || t_stride == 0) return std::nullopt;
  s.fields_.stride = stride;
  s.field_type_name_ = type_name;
  s.field_name_ = field_name;
  s.field_is_static_ = is_static;
  s.field_offset_ = offset;
  s.types_.stride = t_stride;
  s.type_name_ = t_name;
  s.type_size_ = t_size;
  return s;
}

std::optional<size_t> VmStructs::FieldOffset(std::string_view type, std::string_view field) const {
  // The array ends with an entry whose type name is null.
  for (const char* e = fields_.entries;; e += fields_.stride) {
    const char* entry_type = At<const char*>(e, field_type_name_);
    if (!entry_type) return std::nullopt;
    const char* entry_field = At<const char*>(e, field_name_);
    if (type != entry_type || !entry_field || field != entry_field) continue;
    if (At<int32_t>(e, field_is_static_)) return std::nullopt;
    return static_cast<size_t>(At<uint64_t>(e, field_offset_));
  }
}

std::optional<size_t> VmStructs::TypeSize(std::string_view type) const {
  for (const char* e = types_.entries;; e += types_.stride) {
    const char* entry_type = At<const char*>(e, type_name_);
    if (!entry_type) return std::nullopt;
    if (type == entry_type) return static_cast<size_t>(At<uint64_t>(e, type_size_));
  }
}

}  // namespace jdwpx::hotspot
