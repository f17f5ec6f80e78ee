// Probe command set (128, jdwpx's own): probes that the agent evaluates in the
// hitting thread, without stopping it. docs/probes.md describes the protocol
// for any client.
//
// A client must recognize jdwpx before it sends any command of this set: the
// JDK's own agent aborts the JVM on every command set from 128 to 255 (its
// dispatcher indexes its table of sets with a signed byte; seen on JDK 17 and
// 25). jdwpx's VirtualMachine.Version description ends with kVersionLine, on a
// line of its own.
//
// A debugger sends Set, Clear and List; the agent sends Log, Snapshot and Notice
// (commands from the VM, as Event.Composite is) to the connection that set the
// probe, and to no other. The client does not reply to them.
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::Probe {

inline constexpr std::string_view kVersionLine = "jdwpx: probes (command set 128)";

enum class Kind : uint8_t { kLog = 1, kSnapshot = 2 };

// Where a probe stands; List answers it.
enum class State : uint8_t {
  kArmed = 1,     // set in the VM at one or more places
  kDeferred = 2,  // its class is not loaded yet: armed when it is prepared
  kPaused = 3,    // over its CPU budget: taken out of the VM
  kDone = 4,      // its max hits reached: taken out of the VM
};

// What a Notice is about.
enum class NoticeKind : uint8_t {
  kEvaluationError = 1,  // a value failed at a hit (at most once a minute per probe)
  kPaused = 2,           // the CPU budget was exceeded: the probe is out of the VM
  kArmed = 3,            // a deferred probe's class was prepared (or redefined): set there
  kDone = 4,             // max hits reached: the probe is out of the VM
  kRateLimited = 5,      // output lines dropped by the rate limit (at most once a minute)
  kRefused = 6,          // a deferred probe does not fit the class that was prepared
};

// What a value node in a snapshot holds (Snapshot's Node::kind).
enum class NodeKind : uint8_t {
  kNull = 'N',
  kBoolean = 'Z',
  kNumber = 'I',     // any primitive number; `text` as Java prints it
  kCharacter = 'C',
  kString = 's',     // `text` cut to the snapshot's string limit; `length` the whole length
  kObject = 'L',     // its fields follow, one depth deeper
  kArray = '[',      // its first elements follow (named by index); `length` the whole length
  kCollection = 'c', // a JDK collection or map: its first elements; `length` its size
  kCycle = '@',      // an object already on the path from the root
  kDeeper = '.',     // an object below the depth limit
  kError = 'E',      // `text` says what could not be read
};

struct Set {
  static constexpr CommandId kId{CommandSet::kProbe, 1};
  static constexpr std::string_view kName = "Probe.Set";
  struct Request {
    Kind kind{};
    // "pkg.Class:line", "pkg.Outer$Inner:line", "File.java:line" or "pkg.Class.method".
    std::string location;
    // A log probe's message, with {expression} holes; empty for a snapshot.
    std::string message_template;
    // Empty: every hit matches.
    std::string condition;
    // Hits that match before the probe is done; 0: no limit (a snapshot's default is 1).
    int32_t max_hits{};
    // A snapshot's frames (0: 20) and object depth (0: 3).
    int32_t max_frames{};
    int32_t max_depth{};
    // Output lines a second (0: the default, 100) and the VM's CPU budget for all
    // probes, in millionths of one core (0: the default, 10000 = 1%; at most
    // 64 cores, 64,000,000).
    int32_t rate{};
    int32_t budget_ppm{};
    JDWP_FIELDS(kind, location, message_template, condition, max_hits, max_frames, max_depth, rate, budget_ppm)
  };
  // A refused probe: probe_id 0 and `problem` naming the part of the location
  // or expression at fault and why. Places: how many places it is set at now
  // (0: deferred until its class is prepared).
  struct Reply {
    int32_t probe_id{};
    std::string problem;
    int32_t places{};
    JDWP_FIELDS(probe_id, problem, places)
  };
};

struct Clear {
  static constexpr CommandId kId{CommandSet::kProbe, 2};
  static constexpr std::string_view kName = "Probe.Clear";
  // 0: every probe of this connection. An ID not of this connection: INVALID_INDEX.
  struct Request { int32_t probe_id{}; JDWP_FIELDS(probe_id) };
  struct Reply { int32_t cleared{}; JDWP_FIELDS(cleared) };
};

struct List {
  static constexpr CommandId kId{CommandSet::kProbe, 3};
  static constexpr std::string_view kName = "Probe.List";
  struct Info {
    int32_t probe_id{};
    Kind kind{};
    State state{};
    std::string location;
    std::string message_template;
    std::string condition;
    int32_t places{};
    int64_t hits{};        // hits evaluated
    int64_t matched{};     // hits whose condition held
    int64_t suppressed{};  // hits dropped: over the budget or the output rate
    JDWP_FIELDS(probe_id, kind, state, location, message_template, condition, places, hits, matched, suppressed)
  };
  struct Request { JDWP_FIELDS() };
  struct Reply { std::vector<Info> probes; JDWP_FIELDS(probes) };
};

// A log probe's hit. `location`: "pkg.Class.method:line"; `time_ns`: since
// the Unix epoch.
struct Log {
  static constexpr CommandId kId{CommandSet::kProbe, 100};
  static constexpr std::string_view kName = "Probe.Log";
  struct Request {
    int32_t probe_id{};
    int64_t time_ns{};
    std::string thread;
    std::string location;
    std::string message;
    JDWP_FIELDS(probe_id, time_ns, thread, location, message)
  };
  struct Reply { JDWP_FIELDS() };
};

// A snapshot's hit: the hitting thread's frames, innermost first. Each frame's
// values are a tree written depth first: nodes at depth 0 are the locals (and
// "this", named so), each followed by its children one depth deeper.
struct Snapshot {
  static constexpr CommandId kId{CommandSet::kProbe, 101};
  static constexpr std::string_view kName = "Probe.Snapshot";
  struct Node {
    uint8_t depth{};
    NodeKind kind{};
    std::string name;
    std::string type;  // Java's name: "java.lang.String", "int[]"
    std::string text;
    int32_t length{};
    JDWP_FIELDS(depth, kind, name, type, text, length)
  };
  struct Frame {
    std::string class_name;
    std::string method;
    int32_t line{};
    std::vector<Node> values;
    JDWP_FIELDS(class_name, method, line, values)
  };
  struct Request {
    int32_t probe_id{};
    int64_t time_ns{};
    std::string thread;
    std::string location;
    std::vector<Frame> frames;
    JDWP_FIELDS(probe_id, time_ns, thread, location, frames)
  };
  struct Reply { JDWP_FIELDS() };
};

struct Notice {
  static constexpr CommandId kId{CommandSet::kProbe, 102};
  static constexpr std::string_view kName = "Probe.Notice";
  struct Request {
    int32_t probe_id{};
    NoticeKind kind{};
    std::string message;
    JDWP_FIELDS(probe_id, kind, message)
  };
  struct Reply { JDWP_FIELDS() };
};

}  // namespace jdwpx::jdwp::Probe
