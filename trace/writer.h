// The trace writer: the agent hands it what it sees; a thread of its own (a
// plain native thread, not a JVM thread) turns that into records and writes
// them to the file.
//
// Never blocking the agent: Packet()/Session.../Error() only push onto a
// bounded lock-free queue (a fixed ring of cells, Vyukov's bounded MPMC
// algorithm used by many producers and one consumer). When it is full the
// observation is dropped and counted; the writer records the count (Dropped)
// as soon as it sees it grow. The writer wakes every few milliseconds, or
// sooner when the queue fills up, drains it and writes with write(2).
//
// Files: `path` alone, or with a size bound a ring of kRingFiles files
// (path, path.1, ... path.3, the higher the older): when the current file would
// pass bound/kRingFiles it is rotated out and the oldest deleted, so the newest
// records within the bound are kept. Every file starts with its own Header,
// then the names of the threads named so far (the newest first, within a
// quarter of its bound): the file that named a thread may be deleted since. A
// failed write (disk full) stops the trace: logged once through on_error,
// never retried, the agent runs on.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <tl/expected.hpp>

#include "trace/record_maker.h"
#include "trace/records.h"

namespace jdwpx::trace {

inline constexpr int kRingFiles = 4;

// `path` with every "%p" replaced by `pid` (and "%%" by "%").
std::string ExpandPath(std::string_view path, uint32_t pid);

// CLOCK_MONOTONIC in nanoseconds, the time of every record.
uint64_t MonotonicNs();

struct WriterConfig {
  std::string path;           // already expanded
  bool bodies = false;        // tracebytes=y
  uint64_t max_bytes = 0;     // tracesize=<MB> in bytes; 0 = one file without bound
  size_t queue_capacity = 1 << 15;  // observations; a power of two
  Header header;              // magic, version, segment and times are filled in
  // Called once, on the writer thread, when writing fails.
  std::function<void(const std::string&)> on_error;
};

class Writer {
 public:
  // Creates (truncates) the first file and writes its header; the error is one
  // line ("cannot write the trace to PATH: reason").
  static tl::expected<std::unique_ptr<Writer>, std::string> Open(WriterConfig config);
  ~Writer();

  // From any thread; never blocks. A whole packet, header included, and the
  // transport's number for the connection it came in on or went out on
  // (Session::connection). 0 for a packet out: the connection is not known, and
  // the record maker gives a reply its command's connection, and anything else
  // the one debugger's when only one is attached.
  void PacketIn(uint64_t connection, std::span<const uint8_t> packet) noexcept {
    Packet(Observation::Kind::kPacketIn, connection, packet, packet.size());
  }
  void PacketOut(uint64_t connection, std::span<const uint8_t> packet) noexcept {
    Packet(Observation::Kind::kPacketOut, connection, packet, packet.size());
  }
  // A packet of `length` bytes of which `bytes` are at hand: for one sent in
  // parts, its header only (its parts are gone once written), so tracebytes=y
  // keeps only its header.
  void PacketOut(uint64_t connection, std::span<const uint8_t> bytes, size_t length) noexcept {
    Packet(Observation::Kind::kPacketOut, connection, bytes, length);
  }
  void SessionAttached(uint64_t connection, std::string_view peer, uint64_t handshake_ns) noexcept {
    Text(Observation::Kind::kAttached, peer, handshake_ns, 0, connection);
  }
  void SessionRefused(std::string_view reason) noexcept { Text(Observation::Kind::kRefused, reason); }
  void SessionEnded(uint64_t connection, std::string_view reason) noexcept {
    Text(Observation::Kind::kDetached, reason, 0, 0, connection);
  }
  void Error(std::string_view message) noexcept { Text(Observation::Kind::kError, message); }
  // A thread ID given out for the first time, and the thread's name (UTF-8).
  void ThreadNamed(uint64_t thread, std::string_view name) noexcept {
    Text(Observation::Kind::kThreadName, name, 0, thread);
  }

  // Waits (at most `timeout`) until everything pushed before is written.
  bool Flush(std::chrono::milliseconds timeout);
  // Flushes (bounded) and ends the writer thread; later pushes are ignored. Idempotent.
  void Close();

  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  explicit Writer(WriterConfig config);
  struct Cell {
    std::atomic<size_t> sequence;
    Observation value;
  };
  void Packet(Observation::Kind kind, uint64_t connection, std::span<const uint8_t> packet, size_t length) noexcept;
  void Text(Observation::Kind kind, std::string_view text, uint64_t handshake_ns = 0, uint64_t thread = 0,
            uint64_t connection = 0) noexcept;
  bool Push(Observation&& seen) noexcept;
  bool Pop(Observation& seen);
  void Run();
  // Encodes `record` into the pending output, rotating first when the ring needs it.
  void Put(const Record& record);
  void WriteOut();
  bool OpenSegment();
  uint64_t SegmentLimit() const;
  void Stop(const std::string& why);

  WriterConfig config_;
  RecordMaker maker_;
  std::unique_ptr<Cell[]> cells_;
  size_t mask_;
  alignas(64) std::atomic<size_t> enqueue_pos_{0};
  alignas(64) size_t dequeue_pos_ = 0;
  std::atomic<size_t> dequeue_hint_{0};  // dequeue_pos_ as producers may read it
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> pushed_{0};
  std::atomic<bool> closed_{false};

  // Writer thread state.
  int fd_ = -1;
  uint32_t segment_ = 0;
  uint64_t file_bytes_ = 0;
  uint64_t dropped_written_ = 0;
  std::string out_;
  bool failed_ = false;
  std::string stop_reason_;
  std::map<uint64_t, std::string> thread_names_;  // every ThreadName written, for the ring's next files

  std::mutex mu_;  // only for the condition variables (writer <-> Flush/Close), never taken by a push
  std::condition_variable wake_;
  std::condition_variable done_;
  uint64_t written_ = 0;  // observations handled (guarded by mu_)
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace jdwpx::trace
