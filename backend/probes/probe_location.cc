#include "backend/probes/probe_location.h"

#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>

namespace jdwpx::backend::probes {
namespace {

bool IsJavaNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}

// "pkg.Outer$Inner": dot-separated identifiers.
bool IsQualifiedName(std::string_view name) {
  if (name.empty() || name.front() == '.' || name.back() == '.') return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '.') {
      if (name[i + 1] == '.') return false;
    } else if (!IsJavaNameChar(name[i])) {
      return false;
    }
  }
  return true;
}

}  // namespace

tl::expected<LocationSpec, std::string> ParseLocation(std::string_view text) {
  LocationSpec spec;
  spec.text = std::string(text);
  const size_t colon = text.rfind(':');
  if (colon != std::string_view::npos) {
    std::string_view where = text.substr(0, colon), line = text.substr(colon + 1);
    int32_t n = 0;
    auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), n);
    if (line.empty() || ec != std::errc() || end != line.data() + line.size() || n <= 0)
      return tl::unexpected(fmt::format("`{}`: the line after ':' must be a positive number", text));
    spec.line = n;
    if (where.size() > 5 && where.ends_with(".java")) {
      spec.form = LocationSpec::Form::kFileLine;
      spec.file = std::string(where.substr(where.find_last_of('/') == std::string_view::npos
                                               ? 0
                                               : where.find_last_of('/') + 1));
      return spec;
    }
    if (!IsQualifiedName(where))
      return tl::unexpected(fmt::format("`{}`: expected Class:line, File.java:line or Class.method", text));
    spec.form = LocationSpec::Form::kClassLine;
    spec.class_name = std::string(where);
    return spec;
  }
  const size_t dot = text.rfind('.');
  if (dot == std::string_view::npos || !IsQualifiedName(text))
    return tl::unexpected(fmt::format("`{}`: expected Class:line, File.java:line or Class.method", text));
  spec.form = LocationSpec::Form::kMethodEntry;
  spec.class_name = std::string(text.substr(0, dot));
  spec.method = std::string(text.substr(dot + 1));
  return spec;
}

bool Names(const LocationSpec& spec, const vmcore::Jvmti& jvmti, jclass klass, std::string_view java_name) {
  if (spec.form != LocationSpec::Form::kFileLine) return java_name == spec.class_name;
  auto file = jvmti.GetSourceFileName(klass);
  return file && *file == spec.file;
}

tl::expected<std::vector<Place>, std::string> PlacesIn(const LocationSpec& spec, const vmcore::Jvmti& jvmti,
                                                       jclass klass) {
  auto methods = jvmti.GetClassMethods(klass);
  if (!methods) return tl::unexpected(fmt::format("`{}`: the class's methods cannot be read", spec.text));
  std::vector<Place> places;
  if (spec.form == LocationSpec::Form::kMethodEntry) {
    for (jmethodID m : *methods) {
      auto name = jvmti.GetMethodName(m);
      if (!name || name->name != spec.method) continue;
      auto range = jvmti.GetMethodLocation(m);
      if (!range || range->first < 0) continue;  // native or abstract: no code to stop in
      int32_t line = -1;
      if (auto lines = jvmti.GetLineNumberTable(m)) {
        for (const auto& e : *lines)
          if (e.start == range->first) line = e.line;
      }
      places.push_back(Place{m, range->first, line});
    }
    if (places.empty())
      return tl::unexpected(fmt::format("`{}`: {} has no method {} with code", spec.text, spec.class_name,
                                        spec.method));
    return places;
  }
  int32_t lowest = 0, highest = 0;
  for (jmethodID m : *methods) {
    auto lines = jvmti.GetLineNumberTable(m);
    if (!lines) continue;
    // The line's first instruction in this method, as a debugger's breakpoint
    // on that line is set.
    std::optional<jlocation> first;
    for (const auto& e : *lines) {
      if (lowest == 0 || e.line < lowest) lowest = e.line;
      highest = std::max(highest, e.line);
      if (e.line == spec.line && (!first || e.start < *first)) first = e.start;
    }
    if (first) places.push_back(Place{m, *first, spec.line});
  }
  if (places.empty() && spec.form == LocationSpec::Form::kClassLine) {
    if (highest == 0)
      return tl::unexpected(fmt::format("`{}`: {} has no line numbers (compiled without -g?)", spec.text,
                                        spec.class_name));
    return tl::unexpected(fmt::format("`{}`: no code at line {} of {} (its code is on lines {} to {})", spec.text,
                                      spec.line, spec.class_name, lowest, highest));
  }
  return places;
}

}  // namespace jdwpx::backend::probes
