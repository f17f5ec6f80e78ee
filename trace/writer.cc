#include "trace/writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "jdwp/packet.h"
#include "trace/wire.h"

namespace jdwpx::trace {
namespace {

using namespace std::chrono_literals;

// How long the writer sleeps when the queue is quiet; a push that fills half
// the queue wakes it at once.
constexpr auto kIdleWait = 10ms;
// Pending output is written at this size even in the middle of a burst.
constexpr size_t kWriteChunk = 64 * 1024;

std::string SegmentPath(const std::string& path, int index) {
  return index == 0 ? path : path + "." + std::to_string(index);
}

uint64_t WallNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

bool IsComposite(std::span<const uint8_t> packet) {
  return packet.size() > jdwp::kHeaderSize && !(packet[8] & jdwp::kReplyFlag) &&
         packet[9] == static_cast<uint8_t>(jdwp::CommandSet::kEvent) && packet[10] == 100;
}

}  // namespace

std::string ExpandPath(std::string_view path, uint32_t pid) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '%' && i + 1 < path.size() && path[i + 1] == 'p') {
      out += std::to_string(pid);
      ++i;
    } else if (path[i] == '%' && i + 1 < path.size() && path[i + 1] == '%') {
      out += '%';
      ++i;
    } else {
      out += path[i];
    }
  }
  return out;
}

uint64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

Writer::Writer(WriterConfig config) : config_(std::move(config)), maker_(config_.bodies) {
  size_t capacity = 2;
  while (capacity < config_.queue_capacity) capacity <<= 1;
  cells_ = std::make_unique<Cell[]>(capacity);
  for (size_t i = 0; i < capacity; ++i) cells_[i].sequence.store(i, std::memory_order_relaxed);
  mask_ = capacity - 1;
}

tl::expected<std::unique_ptr<Writer>, std::string> Writer::Open(WriterConfig config) {
  for (std::string* text : {&config.header.jdwpx_version, &config.header.vm_name, &config.header.vm_version,
                            &config.header.options})
    *text = ValidUtf8(*text);
  config.header.magic = std::string(kMagic);
  config.header.format_version = kFormatVersion;
  config.header.bodies = config.bodies;
  config.header.start_mono_ns = MonotonicNs();
  config.header.start_wall_ns = WallNs();
  std::unique_ptr<Writer> writer(new Writer(std::move(config)));
  if (writer->config_.max_bytes > 0) {
    // Older segments of an earlier run would pass for this one's.
    for (int i = 1; i < kRingFiles; ++i) ::unlink(SegmentPath(writer->config_.path, i).c_str());
  }
  if (!writer->OpenSegment()) {
    return tl::unexpected("cannot write the trace to " + writer->config_.path + ": " + std::strerror(errno));
  }
  // A failure here is the caller's to report (once), not on_error's.
  auto on_error = std::move(writer->config_.on_error);
  writer->config_.on_error = [&](const std::string&) {};
  writer->WriteOut();
  if (writer->failed_) return tl::unexpected("cannot write the trace to " + writer->config_.path + ": " + writer->stop_reason_);
  writer->config_.on_error = std::move(on_error);
  writer->thread_ = std::thread([w = writer.get()] { w->Run(); });
  return writer;
}

Writer::~Writer() { Close(); }

bool Writer::Push(Observation&& seen) noexcept {
  if (closed_.load(std::memory_order_relaxed)) return false;
  size_t pos = enqueue_pos_.load(std::memory_order_relaxed);
  Cell* cell;
  while (true) {
    cell = &cells_[pos & mask_];
    size_t seq = cell->sequence.load(std::memory_order_acquire);
    auto diff = static_cast<intptr_t>(seq) - static_cast<intptr_t>(pos);
    if (diff == 0) {
      if (enqueue_pos_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) break;
    } else if (diff < 0) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      wake_.notify_one();
      return false;
    } else {
      pos = enqueue_pos_.load(std::memory_order_relaxed);
    }
  }
  cell->value = std::move(seen);
  cell->sequence.store(pos + 1, std::memory_order_release);
  pushed_.fetch_add(1, std::memory_order_relaxed);
  // Half full: wake the writer now rather than at its next tick (no lock taken).
  if (((pos - dequeue_hint_.load(std::memory_order_relaxed)) & mask_) == mask_ / 2) wake_.notify_one();
  return true;
}

bool Writer::Pop(Observation& seen) {
  Cell& cell = cells_[dequeue_pos_ & mask_];
  size_t seq = cell.sequence.load(std::memory_order_acquire);
  if (static_cast<intptr_t>(seq) - static_cast<intptr_t>(dequeue_pos_ + 1) < 0) return false;
  seen = std::move(cell.value);
  cell.value = Observation{};
  cell.sequence.store(dequeue_pos_ + mask_ + 1, std::memory_order_release);
  ++dequeue_pos_;
  dequeue_hint_.store(dequeue_pos_, std::memory_order_relaxed);
  return true;
}

namespace {
// ThreadReference (11) and StackFrame (16) commands name their thread first
// (HotSpot's IDs are 8 bytes: the agent's IDSizes).
uint64_t ThreadNamedFirst(Observation::Kind kind, std::span<const uint8_t> packet) {
  if (kind != Observation::Kind::kPacketIn || packet.size() < jdwp::kHeaderSize + 8) return 0;
  if ((packet[8] & jdwp::kReplyFlag) || (packet[9] != 11 && packet[9] != 16)) return 0;
  uint64_t id = 0;
  for (size_t i = 0; i < 8; ++i) id = id << 8 | packet[jdwp::kHeaderSize + i];
  return id;
}
}  // namespace

void Writer::Packet(Observation::Kind kind, uint64_t connection, std::span<const uint8_t> packet,
                    size_t length) noexcept {
  if (packet.size() < jdwp::kHeaderSize || closed_.load(std::memory_order_relaxed)) return;
  try {
    Observation seen;
    seen.kind = kind;
    seen.time_ns = MonotonicNs();
    seen.length = static_cast<uint32_t>(length);
    seen.connection = connection;
    std::memcpy(seen.header, packet.data(), jdwp::kHeaderSize);
    seen.thread = ThreadNamedFirst(kind, packet);
    // Composites are decoded into Event records by the writer; bodies only when asked for.
    if (config_.bodies || (kind == Observation::Kind::kPacketOut && IsComposite(packet)))
      seen.bytes.assign(packet.begin(), packet.end());
    Push(std::move(seen));
  } catch (...) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
  }
}

void Writer::Text(Observation::Kind kind, std::string_view text, uint64_t handshake_ns, uint64_t thread,
                  uint64_t connection) noexcept {
  if (closed_.load(std::memory_order_relaxed)) return;
  try {
    Observation seen;
    seen.kind = kind;
    seen.time_ns = MonotonicNs();
    seen.text = std::string(text);
    seen.handshake_ns = handshake_ns;
    seen.thread = thread;
    seen.connection = connection;
    Push(std::move(seen));
  } catch (...) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
  }
}

bool Writer::OpenSegment() {
  fd_ = ::open(config_.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return false;
  file_bytes_ = 0;
  Record r;
  r.time_ns = MonotonicNs();
  r.header = config_.header;
  r.header->segment = segment_;
  AppendDelimited(out_, r);
  uint64_t names = 0;
  for (auto it = thread_names_.rbegin(); it != thread_names_.rend(); ++it) {  // IDs grow: newest first
    Record named;
    named.time_ns = r.time_ns;
    named.thread_name = ThreadName{it->first, it->second};
    std::string bytes;
    AppendDelimited(bytes, named);
    names += bytes.size();
    if (names > SegmentLimit() / 4) break;
    out_ += bytes;
  }
  return true;
}

uint64_t Writer::SegmentLimit() const { return std::max<uint64_t>(config_.max_bytes / kRingFiles, 4096); }

void Writer::Stop(const std::string& why) {
  if (failed_) return;
  failed_ = true;
  stop_reason_ = why;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  out_.clear();
  if (config_.on_error) config_.on_error("trace to " + config_.path + " stopped: " + why);
}

void Writer::WriteOut() {
  size_t done = 0;
  while (!failed_ && done < out_.size()) {
    ssize_t n = ::write(fd_, out_.data() + done, out_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Stop(std::string("write failed: ") + std::strerror(n < 0 ? errno : ENOSPC));
      return;
    }
    done += static_cast<size_t>(n);
  }
  file_bytes_ += done;
  out_.clear();
}

void Writer::Put(const Record& record) {
  if (failed_) return;
  std::string bytes;
  AppendDelimited(bytes, record);
  if (config_.max_bytes > 0) {
    const uint64_t limit = SegmentLimit();
    if (bytes.size() > limit / 2 && record.packet && !record.packet->bytes.empty()) {
      // A body this large would not fit the bound: the packet is kept, its bytes are not.
      Record lean = record;
      lean.packet->bytes.clear();
      bytes.clear();
      AppendDelimited(bytes, lean);
    }
    if (file_bytes_ + out_.size() + bytes.size() > limit) {
      WriteOut();
      if (failed_) return;
      ::close(fd_);
      fd_ = -1;
      for (int i = kRingFiles - 1; i >= 1; --i)
        ::rename(SegmentPath(config_.path, i - 1).c_str(), SegmentPath(config_.path, i).c_str());
      ++segment_;
      if (!OpenSegment()) {
        Stop(std::string("cannot open a new file: ") + std::strerror(errno));
        return;
      }
    }
  }
  out_ += bytes;
  if (record.thread_name && config_.max_bytes > 0) thread_names_[record.thread_name->thread] = record.thread_name->name;
  if (out_.size() >= kWriteChunk) WriteOut();
}

void Writer::Run() {
  std::vector<Record> records;
  Observation seen;
  while (true) {
    uint64_t handled = 0;
    while (Pop(seen)) {
      ++handled;
      records.clear();
      maker_.Make(seen, records);
      for (const Record& r : records) Put(r);
      if (handled % 1024 == 0) {
        std::lock_guard lock(mu_);
        written_ += 1024;
        handled -= 1024;
      }
    }
    uint64_t dropped = dropped_.load(std::memory_order_relaxed);
    if (dropped != dropped_written_) {
      dropped_written_ = dropped;
      Record r;
      r.time_ns = MonotonicNs();
      r.dropped = Dropped{dropped};
      Put(r);
    }
    if (!out_.empty()) WriteOut();
    std::unique_lock lock(mu_);
    written_ += handled;
    done_.notify_all();
    if (stop_ && dequeue_pos_ == enqueue_pos_.load(std::memory_order_acquire)) break;
    if (!stop_) wake_.wait_for(lock, kIdleWait);
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool Writer::Flush(std::chrono::milliseconds timeout) {
  const uint64_t target = pushed_.load(std::memory_order_relaxed);
  std::unique_lock lock(mu_);
  wake_.notify_one();
  return done_.wait_for(lock, timeout, [&] { return written_ >= target; });
}

void Writer::Close() {
  if (closed_.exchange(true)) return;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

}  // namespace jdwpx::trace
