#include "backend/values/string_value.h"

#include <new>
#include <utility>

#include "jdwp/byte_order.h"
#include "jdwp/packet.h"
#include "vmcore/refs.h"

namespace jdwpx::backend {
namespace {

using jdwp::ErrorCode;

// The reply's int: the string's byte count (it fits: Open checked kMaxReplyBody).
void PutLength(uint8_t* out, size_t size) { jdwp::PutBigEndian(out, static_cast<uint32_t>(size)); }

// The body of a StringReference.Value reply made in parts: the length, then
// as many bytes as fit.
// It holds the string by a global reference of its own: a parked reply
// outlives the command's local frame (streamed_reply.h).
class StringValueSource final : public ReplySource {
 public:
  StringValueSource(std::unique_ptr<StringBytes> bytes, vmcore::GlobalRef string)
      : bytes_(std::move(bytes)), string_(std::move(string)) {}
  size_t size() const override { return StringValueReader::kHeadSize + bytes_->size(); }
  bool Next(size_t room, std::vector<uint8_t>& out) override {
    if (!head_done_) {
      if (room < StringValueReader::kHeadSize) return true;
      const size_t at = out.size();
      out.resize(at + StringValueReader::kHeadSize);
      PutLength(out.data() + at, bytes_->size());
      head_done_ = true;
      room -= StringValueReader::kHeadSize;
    }
    return bytes_->Next(room, out);
  }

 private:
  std::unique_ptr<StringBytes> bytes_;  // reads string_
  vmcore::GlobalRef string_;
  bool head_done_ = false;
};

}  // namespace

jdwp::Result<StringValueReader> StringValueReader::Open(JNIEnv* jni, jstring s, bool modified_utf8) {
  // GetStringRegion copies (and for a Latin-1 string inflates) only the slice
  // asked for; GetStringCritical would copy a Latin-1 string whole.
  // Read through `target`: ReadInParts points it at a global reference.
  auto target = std::make_shared<jstring>(s);
  auto read = [jni, target](size_t from, size_t n, uint16_t* out) {
    jni->GetStringRegion(*target, static_cast<jsize>(from), static_cast<jsize>(n), reinterpret_cast<jchar*>(out));
    if (!jni->ExceptionCheck()) return true;
    jni->ExceptionClear();
    return false;
  };
  const auto length = static_cast<size_t>(jni->GetStringLength(s));
  auto bytes = std::make_unique<StringBytes>(std::move(read), length, modified_utf8);
  if (!bytes->Measure()) return jdwp::Fail(ErrorCode::kInternal, "exception while reading the string");
  if (kHeadSize + bytes->size() > kMaxReplyBody) {
    return jdwp::Fail(ErrorCode::kOutOfMemory, "string larger than a packet can hold");
  }
  return StringValueReader(std::move(bytes), jni, std::move(target));
}

jdwp::Result<jdwp::WireString> StringValueReader::ReadWhole() && {
  // Room for the reply's packet header, then the value: the reply is the
  // string alone, and its packet is made in this buffer.
  jdwp::WireString out;
  out.wire_offset = jdwp::kHeaderSize;
  try {
    out.wire.resize(jdwp::kHeaderSize + wire_size());
  } catch (const std::bad_alloc&) {
    return jdwp::Fail(ErrorCode::kOutOfMemory, "string too large");
  }
  uint8_t* head = out.wire.data() + jdwp::kHeaderSize;
  PutLength(head, bytes_->size());
  if (!bytes_->EncodeAll(head + kHeadSize)) {
    return jdwp::Fail(ErrorCode::kInternal, "exception while reading the string");
  }
  return out;
}

std::unique_ptr<ReplySource> StringValueReader::ReadInParts() && {
  vmcore::GlobalRef string(jni_, *target_);
  *target_ = static_cast<jstring>(string.get());
  return std::make_unique<StringValueSource>(std::move(bytes_), std::move(string));
}

}  // namespace jdwpx::backend
