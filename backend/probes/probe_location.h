// Where a probe goes, as a user writes it, and the places in the VM that it
// names: "pkg.Class:line" (nested classes with '$'), "File.java:line" (every
// class of that source file, those loaded later too) and "pkg.Class.method"
// (each overload's entry).
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "vmcore/jvmti.h"

namespace jdwpx::backend::probes {

struct LocationSpec {
  enum class Form { kClassLine, kFileLine, kMethodEntry };
  Form form = Form::kClassLine;
  std::string class_name;  // Java name: kClassLine, kMethodEntry
  std::string file;        // kFileLine: "Orders.java"
  std::string method;      // kMethodEntry
  int32_t line = 0;        // kClassLine, kFileLine
  std::string text;        // as written
};

// The spec, or what is wrong with the text.
tl::expected<LocationSpec, std::string> ParseLocation(std::string_view text);

// One place a probe is set at: a method and the first instruction of the
// line (or of the method) in it.
struct Place {
  jmethodID method = nullptr;
  jlocation location = 0;
  int32_t line = -1;
};

// Whether `klass` is a class the spec names (by its Java name or, for a file,
// by its source file).
bool Names(const LocationSpec& spec, const vmcore::Jvmti& jvmti, jclass klass, std::string_view java_name);

// The spec's places in `klass` (a class it Names). A class the spec names by
// its name but without code at the line, or without the method, is a problem
// that says which lines or methods it has; a class of the right source file
// without the line is no place and no problem (the line is in another class
// of that file).
tl::expected<std::vector<Place>, std::string> PlacesIn(const LocationSpec& spec, const vmcore::Jvmti& jvmti,
                                                       jclass klass);

}  // namespace jdwpx::backend::probes
