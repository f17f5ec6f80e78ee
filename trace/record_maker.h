// Turns what the agent saw (packets in and out, sessions, errors) into trace
// records, on the writer thread: naming replies after their commands, their
// latency, the events of each composite, and when the VM as a whole became
// suspended or running again. Pure: unit-tested on packets.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/records.h"

namespace jdwpx::trace {

// One thing the agent saw, as cheap to make as possible (the agent's I/O
// thread makes them): a packet's header and length, and its bytes only when
// they are needed (tracebytes=y, or an Event.Composite).
struct Observation {
  enum class Kind : uint8_t { kNone, kPacketIn, kPacketOut, kAttached, kRefused, kDetached, kError, kThreadName };
  Kind kind = Kind::kNone;
  uint64_t time_ns = 0;
  uint32_t length = 0;
  uint8_t header[11] = {};
  std::vector<uint8_t> bytes;  // the whole packet, when kept
  std::string text;            // peer, reason, message or thread name
  uint64_t handshake_ns = 0;   // kAttached
  uint64_t thread = 0;         // kPacketIn of ThreadReference / StackFrame: the thread named first;
                               // kThreadName: the thread named
};

// `text` with every byte that is not part of well-formed UTF-8 (overlong
// forms, surrogates, C0 80 of modified UTF-8, stray bytes) replaced by U+FFFD:
// protobuf's parsers refuse a record whose string field is not UTF-8, so every
// string the agent records goes through this.
std::string ValidUtf8(std::string_view text);

class RecordMaker {
 public:
  explicit RecordMaker(bool bodies) : bodies_(bodies) {}
  // Appends the records `seen` makes to `out`.
  void Make(const Observation& seen, std::vector<Record>& out);

 private:
  struct Pending {
    uint64_t time_ns;
    uint8_t set;
    uint8_t command;
  };
  void Suspend(uint64_t time_ns, Suspension::By by, uint32_t packet_id, std::vector<Record>& out);
  void Resume(uint64_t time_ns, Suspension::By by, uint32_t packet_id, bool all, std::vector<Record>& out);

  bool bodies_;
  std::unordered_map<uint32_t, Pending> pending_;  // commands not yet answered, by id
  uint32_t vm_suspends_ = 0;                       // VM-wide suspensions in force
  uint32_t sessions_ = 0;
  std::string peer_;  // of the session attached last
};

}  // namespace jdwpx::trace
