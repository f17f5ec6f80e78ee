// Turns what the agent saw (packets in and out, sessions, errors) into trace
// records, on the writer thread: naming replies after their commands, their
// latency, the events of each composite, and when the VM as a whole became
// suspended or running again. Pure: unit-tested on packets.
#pragma once

#include <cstdint>
#include <map>
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
  uint64_t connection = 0;     // packets, kAttached, kDetached: the transport's number (0: not known)
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
  // A command is known by its connection and id: several debuggers attached
  // at once each number their commands from 1.
  struct Key {
    uint64_t connection;
    uint32_t id;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const noexcept {
      return std::hash<uint64_t>{}(k.connection * 0x9e3779b97f4a7c15ull ^ k.id);
    }
  };
  struct Attached {
    uint32_t number = 0;
    std::string peer;
  };
  // `connection`, or when it is 0 (not known) that of the one debugger attached.
  uint64_t Resolve(uint64_t connection) const;
  void Suspend(uint64_t time_ns, Suspension::By by, uint64_t connection, uint32_t packet_id, std::vector<Record>& out);
  void Resume(uint64_t time_ns, Suspension::By by, uint64_t connection, uint32_t packet_id, bool all,
              std::vector<Record>& out);
  uint32_t SuspendsInForce() const;

  bool bodies_;
  std::unordered_map<Key, Pending, KeyHash> pending_;  // commands not yet answered
  // VM-wide suspensions in force, per debugger (JDWP counts them per debugger:
  // each one's VirtualMachine.Resume undoes its own); the VM is suspended
  // while any is.
  std::map<uint64_t, uint32_t> vm_suspends_;
  uint32_t sessions_ = 0;
  std::map<uint64_t, Attached> attached_;  // by connection
};

}  // namespace jdwpx::trace
