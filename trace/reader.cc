#include "trace/reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "trace/wire.h"

namespace jdwpx::trace {
namespace {

// A record longer than this is taken for corruption (a packet body is at most
// 64 MB on the wire; its record adds a few bytes).
constexpr uint64_t kMaxRecord = 80ull << 20;

// How every trace starts: a Record whose header (field 2) begins with its magic
// (field 1 of Header): 0x0a, length 11, "jdwpx-trace". Found within the first
// bytes of a trace whatever the record's time and length take.
constexpr std::string_view kMagicField = "\x0a\x0bjdwpx-trace";
constexpr size_t kMagicWindow = 40;

}  // namespace

tl::expected<Reader, std::string> Reader::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return tl::unexpected("cannot open " + path + ": " + std::strerror(errno));
  Reader reader(path, fd);
  reader.Refill();
  if (!reader.error_.empty()) return tl::unexpected(reader.error_);
  return reader;
}

Reader::Reader(Reader&& other) noexcept { *this = std::move(other); }

Reader& Reader::operator=(Reader&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    buffer_ = std::move(other.buffer_);
    pos_ = other.pos_;
    consumed_ = other.consumed_;
    records_ = other.records_;
    header_ = std::move(other.header_);
    error_ = std::move(other.error_);
  }
  return *this;
}

Reader::~Reader() {
  if (fd_ >= 0) ::close(fd_);
}

void Reader::Refill() {
  if (fd_ < 0) return;
  if (pos_ > 0) {
    buffer_.erase(0, pos_);
    consumed_ += pos_;
    pos_ = 0;
  }
  char chunk[1 << 16];
  while (true) {
    ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error_ = path_ + ": read failed: " + std::strerror(errno);
      return;
    }
    if (n == 0) return;
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

Reader::Status Reader::Fail(std::string what) {
  error_ = path_ + ": " + std::move(what);
  return Status::kError;
}

Reader::Status Reader::Next(Record& out) {
  if (!error_.empty()) return Status::kError;
  while (true) {
    const size_t available = buffer_.size() - pos_;
    if (records_ == 0) {
      if (available == 0) return Status::kEnd;  // empty: the caller says so, or waits (--follow)
      std::string_view head(buffer_.data(), std::min(buffer_.size(), kMagicWindow));
      if (head.find(kMagicField) == std::string_view::npos) {
        if (buffer_.size() < kMagicWindow)
          return Fail("not a jdwpx trace (" + std::to_string(buffer_.size()) + " bytes, too short for its header)");
        return Fail("not a jdwpx trace (it does not start with a jdwpx-trace header)");
      }
    }
    if (available == 0) return Status::kEnd;
    wire::Cursor cursor{reinterpret_cast<const uint8_t*>(buffer_.data()) + pos_,
                        reinterpret_cast<const uint8_t*>(buffer_.data()) + buffer_.size(),
                        {}};
    auto length = cursor.Varint();
    if (!length) {
      if (available < 10) return Status::kIncomplete;
      return Fail("corrupt record at byte " + std::to_string(offset()) + ": " + cursor.error);
    }
    if (*length > kMaxRecord)
      return Fail("corrupt record at byte " + std::to_string(offset()) + ": claims " + std::to_string(*length) + " bytes");
    const size_t prefix = static_cast<size_t>(cursor.p - reinterpret_cast<const uint8_t*>(buffer_.data()) - pos_);
    if (available - prefix < *length) return Status::kIncomplete;
    auto record = Decode({cursor.p, static_cast<size_t>(*length)});
    if (!record) return Fail("corrupt record at byte " + std::to_string(offset()) + ": " + record.error());
    if (records_ == 0) {
      if (!record->header || record->header->magic != kMagic)
        return Fail("not a jdwpx trace (its first record is no jdwpx-trace header)");
      header_ = *record->header;
    }
    pos_ += prefix + static_cast<size_t>(*length);
    ++records_;
    const Record& r = *record;
    if (!r.header && !r.session && !r.packet && !r.event && !r.suspension && !r.agent_error && !r.dropped)
      continue;  // a kind added after this reader: skipped
    out = std::move(*record);
    return Status::kRecord;
  }
}

}  // namespace jdwpx::trace
