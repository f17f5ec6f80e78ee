#include "trace/reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <utility>

#include <google/protobuf/io/coded_stream.h>

#include "trace/trace.pb.h"

namespace jdwpx::trace {
namespace {

Header FromProto(const proto::Header& h) {
  return Header{h.magic(),      h.format_version(), h.jdwpx_version(), h.vm_name(),
                h.vm_version(), h.pid(),            h.options(),       h.start_wall_ns(),
                h.start_mono_ns(), h.segment(),     h.bodies()};
}

Record FromProto(const proto::Record& p) {
  Record r;
  r.time_ns = p.time_ns();
  switch (p.kind_case()) {
    case proto::Record::kHeader:
      r.header = FromProto(p.header());
      break;
    case proto::Record::kSession: {
      const auto& s = p.session();
      r.session = Session{static_cast<Session::Kind>(s.kind()), s.peer(), s.reason(), s.number(), s.handshake_ns(),
                          s.connection()};
      break;
    }
    case proto::Record::kPacket: {
      const auto& k = p.packet();
      r.packet = Packet{static_cast<Packet::Direction>(k.direction()),
                        k.id(),
                        k.reply(),
                        k.command_set(),
                        k.command(),
                        k.error_code(),
                        k.length(),
                        k.latency_ns(),
                        std::vector<uint8_t>(k.bytes().begin(), k.bytes().end()),
                        k.thread(),
                        k.connection()};
      break;
    }
    case proto::Record::kEvent: {
      const auto& e = p.event();
      r.event = Event{e.kind(), e.request_id(), e.thread(), e.suspend_policy(), e.composite_size(), e.packet_id()};
      break;
    }
    case proto::Record::kSuspension: {
      const auto& s = p.suspension();
      r.suspension = Suspension{s.suspended(), static_cast<Suspension::By>(s.by()), s.packet_id()};
      break;
    }
    case proto::Record::kAgentError:
      r.agent_error = AgentError{p.agent_error().message()};
      break;
    case proto::Record::kDropped:
      r.dropped = Dropped{p.dropped().count()};
      break;
    case proto::Record::kThreadName:
      r.thread_name = ThreadName{p.thread_name().thread(), p.thread_name().name()};
      break;
    case proto::Record::KIND_NOT_SET:
      break;  // a kind added after this reader
  }
  return r;
}

// A record longer than this is taken for corruption (a packet body is at most
// 64 MB on the wire; its record adds a few bytes).
constexpr uint64_t kMaxRecord = 80ull << 20;

// How every trace starts: a Record whose header (field 2) begins with its magic
// (field 1 of Header): 0x0a, length 11, "jdwpx-trace". Found within the first
// bytes of a trace whatever the record's time and length take.
constexpr std::string_view kMagicField = "\x0a\x0bjdwpx-trace";
constexpr size_t kMagicWindow = 40;

}  // namespace

tl::expected<Record, std::string> ParseRecord(std::span<const uint8_t> bytes) {
  proto::Record parsed;
  if (bytes.size() > static_cast<size_t>(INT32_MAX) || !parsed.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return tl::unexpected(std::string("protobuf cannot parse it"));
  return FromProto(parsed);
}

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
    // The length prefix: a varint of at most 10 bytes.
    const auto* begin = reinterpret_cast<const uint8_t*>(buffer_.data()) + pos_;
    google::protobuf::io::CodedInputStream prefix(begin, static_cast<int>(std::min<size_t>(available, 10)));
    uint64_t length = 0;
    if (!prefix.ReadVarint64(&length)) {
      if (available < 10) return Status::kIncomplete;
      return Fail("corrupt record at byte " + std::to_string(offset()) + ": its length is no varint");
    }
    if (length > kMaxRecord)
      return Fail("corrupt record at byte " + std::to_string(offset()) + ": claims " + std::to_string(length) + " bytes");
    const auto prefix_size = static_cast<size_t>(prefix.CurrentPosition());
    if (available - prefix_size < length) return Status::kIncomplete;
    auto record = ParseRecord({begin + prefix_size, static_cast<size_t>(length)});
    if (!record) return Fail("corrupt record at byte " + std::to_string(offset()) + ": " + record.error());
    if (records_ == 0) {
      if (!record->header || record->header->magic != kMagic)
        return Fail("not a jdwpx trace (its first record is no jdwpx-trace header)");
      header_ = *record->header;
    }
    pos_ += prefix_size + static_cast<size_t>(length);
    ++records_;
    const Record& r = *record;
    if (!r.header && !r.session && !r.packet && !r.event && !r.suspension && !r.agent_error && !r.dropped &&
        !r.thread_name)
      continue;  // a kind added after this reader: skipped
    out = std::move(*record);
    return Status::kRecord;
  }
}

}  // namespace jdwpx::trace
