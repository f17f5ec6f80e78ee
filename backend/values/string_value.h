// StringReference.Value: a string's value in wire form (its 4-byte length and
// its bytes, standard or modified UTF-8 as mutf8= says), measured before a
// byte is sent, then made whole (small) or part by part while it is sent
// (huge: a 50 MB string is never held whole by the agent).
#pragma once

#include <jni.h>

#include <memory>

#include "backend/values/reply_source.h"
#include "backend/values/string_bytes.h"
#include "jdwp/error.h"
#include "jdwp/types.h"

namespace jdwpx::backend {

class StringValueReader {
 public:
  static constexpr size_t kHeadSize = 4;  // the string's length in bytes
  // Measures `s` (one pass over its characters, read in slices): OUT_OF_MEMORY
  // when it would not fit in a packet, INTERNAL when the VM fails. Holds `jni`
  // and `s` (a local reference) as given; a source from ReadInParts holds a
  // global reference of the string (it may outlive the local one).
  static jdwp::Result<StringValueReader> Open(JNIEnv* jni, jstring s, bool modified_utf8);

  // The value in wire form, in bytes.
  size_t wire_size() const { return kHeadSize + bytes_->size(); }

  // The whole value after room for a reply header (jdwp::WireString::wire).
  jdwp::Result<jdwp::WireString> ReadWhole() &&;
  // The value as a reply body made in parts while it is sent.
  std::unique_ptr<ReplySource> ReadInParts() &&;

 private:
  StringValueReader(std::unique_ptr<StringBytes> bytes, JNIEnv* jni, std::shared_ptr<jstring> target)
      : bytes_(std::move(bytes)), jni_(jni), target_(std::move(target)) {}
  std::unique_ptr<StringBytes> bytes_;
  JNIEnv* jni_;
  std::shared_ptr<jstring> target_;  // the string bytes_ reads
};

}  // namespace jdwpx::backend
