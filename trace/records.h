// The trace's records as C++ structs: one struct per message of trace.proto,
// with the same field numbers, listed once per struct (TraceFields below).
// trace/wire.h encodes and decodes them generically in protobuf's wire format;
// trace/tests/schema_test.cc holds every number to the generated classes'
// k...FieldNumber constants and the bytes to theirs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace jdwpx::trace {

inline constexpr std::string_view kMagic = "jdwpx-trace";
inline constexpr uint32_t kFormatVersion = 1;

// One field: its protobuf number and the member that holds it.
template <uint32_t N, auto Member>
struct Field {
  static constexpr uint32_t kNumber = N;
  static constexpr auto kMember = Member;
};

struct Header {
  std::string magic;
  uint32_t format_version = 0;
  std::string jdwpx_version;
  std::string vm_name;
  std::string vm_version;
  uint32_t pid = 0;
  std::string options;
  uint64_t start_wall_ns = 0;
  uint64_t start_mono_ns = 0;
  uint32_t segment = 0;
  bool bodies = false;
  bool operator==(const Header&) const = default;
};
constexpr auto TraceFields(const Header*) {
  return std::tuple<Field<1, &Header::magic>, Field<2, &Header::format_version>, Field<3, &Header::jdwpx_version>,
                    Field<4, &Header::vm_name>, Field<5, &Header::vm_version>, Field<6, &Header::pid>,
                    Field<7, &Header::options>, Field<8, &Header::start_wall_ns>, Field<9, &Header::start_mono_ns>,
                    Field<10, &Header::segment>, Field<11, &Header::bodies>>{};
}

struct Session {
  enum class Kind : uint32_t { kUnspecified = 0, kAttached = 1, kRefused = 2, kEnded = 3 };
  Kind kind = Kind::kUnspecified;
  std::string peer;
  std::string reason;
  uint32_t number = 0;
  uint64_t handshake_ns = 0;
  uint64_t connection = 0;  // the transport's; 0 in traces before sessions=N
  bool operator==(const Session&) const = default;
};
constexpr auto TraceFields(const Session*) {
  return std::tuple<Field<1, &Session::kind>, Field<2, &Session::peer>, Field<3, &Session::reason>,
                    Field<4, &Session::number>, Field<5, &Session::handshake_ns>, Field<6, &Session::connection>>{};
}

struct Packet {
  enum class Direction : uint32_t { kUnspecified = 0, kIn = 1, kOut = 2 };
  Direction direction = Direction::kUnspecified;
  uint32_t id = 0;
  bool reply = false;
  uint32_t command_set = 0;
  uint32_t command = 0;
  uint32_t error_code = 0;
  uint32_t length = 0;
  uint64_t latency_ns = 0;
  std::vector<uint8_t> bytes;
  uint64_t thread = 0;
  uint64_t connection = 0;  // Session::connection; 0 in traces before sessions=N
  bool operator==(const Packet&) const = default;
};
constexpr auto TraceFields(const Packet*) {
  return std::tuple<Field<1, &Packet::direction>, Field<2, &Packet::id>, Field<3, &Packet::reply>,
                    Field<4, &Packet::command_set>, Field<5, &Packet::command>, Field<6, &Packet::error_code>,
                    Field<7, &Packet::length>, Field<8, &Packet::latency_ns>, Field<9, &Packet::bytes>,
                    Field<10, &Packet::thread>, Field<11, &Packet::connection>>{};
}

struct Event {
  uint32_t kind = 0;
  int32_t request_id = 0;
  uint64_t thread = 0;
  uint32_t suspend_policy = 0;
  uint32_t composite_size = 0;
  uint32_t packet_id = 0;
  bool operator==(const Event&) const = default;
};
constexpr auto TraceFields(const Event*) {
  return std::tuple<Field<1, &Event::kind>, Field<2, &Event::request_id>, Field<3, &Event::thread>,
                    Field<4, &Event::suspend_policy>, Field<5, &Event::composite_size>,
                    Field<6, &Event::packet_id>>{};
}

struct Suspension {
  enum class By : uint32_t { kUnspecified = 0, kDebugger = 1, kEvent = 2, kSessionEnd = 3 };
  bool suspended = false;
  By by = By::kUnspecified;
  uint32_t packet_id = 0;
  bool operator==(const Suspension&) const = default;
};
constexpr auto TraceFields(const Suspension*) {
  return std::tuple<Field<1, &Suspension::suspended>, Field<2, &Suspension::by>, Field<3, &Suspension::packet_id>>{};
}

struct AgentError {
  std::string message;
  bool operator==(const AgentError&) const = default;
};
constexpr auto TraceFields(const AgentError*) { return std::tuple<Field<1, &AgentError::message>>{}; }

struct Dropped {
  uint64_t count = 0;
  bool operator==(const Dropped&) const = default;
};
constexpr auto TraceFields(const Dropped*) { return std::tuple<Field<1, &Dropped::count>>{}; }

struct ThreadName {
  uint64_t thread = 0;
  std::string name;
  bool operator==(const ThreadName&) const = default;
};
constexpr auto TraceFields(const ThreadName*) {
  return std::tuple<Field<1, &ThreadName::thread>, Field<2, &ThreadName::name>>{};
}

// The envelope: a time and exactly one kind (a oneof in trace.proto). A record
// of a kind this reader does not know decodes with none set.
struct Record {
  uint64_t time_ns = 0;
  std::optional<Header> header;
  std::optional<Session> session;
  std::optional<Packet> packet;
  std::optional<Event> event;
  std::optional<Suspension> suspension;
  std::optional<AgentError> agent_error;
  std::optional<Dropped> dropped;
  std::optional<ThreadName> thread_name;
  bool operator==(const Record&) const = default;
};
constexpr auto TraceFields(const Record*) {
  return std::tuple<Field<1, &Record::time_ns>, Field<2, &Record::header>, Field<3, &Record::session>,
                    Field<4, &Record::packet>, Field<5, &Record::event>, Field<6, &Record::suspension>,
                    Field<7, &Record::agent_error>, Field<8, &Record::dropped>,
                    Field<9, &Record::thread_name>>{};
}

}  // namespace jdwpx::trace
