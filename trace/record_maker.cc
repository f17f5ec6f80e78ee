#include "trace/record_maker.h"

#include "jdwp/commands/all.h"
#include "jdwp/codec.h"
#include "jdwp/packet.h"

namespace jdwpx::trace {
namespace {

uint32_t Be32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | uint32_t{p[3]};
}

constexpr uint8_t kVirtualMachine = static_cast<uint8_t>(jdwp::CommandSet::kVirtualMachine);
constexpr uint8_t kEventSet = static_cast<uint8_t>(jdwp::CommandSet::kEvent);
constexpr uint8_t kVmSuspend = 8;
constexpr uint8_t kVmResume = 9;
constexpr uint8_t kComposite = 100;

template <class T>
concept HasThread = requires(const T& t) { t.thread.value; };

}  // namespace

std::string ValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const uint8_t b = p[i];
    if (b < 0x80) {
      out += static_cast<char>(b);
      ++i;
      continue;
    }
    // The length a lead byte announces, and the smallest code point of that length.
    size_t len = 0;
    uint32_t cp = 0, min = 0;
    if ((b & 0xe0) == 0xc0) {
      len = 2, cp = b & 0x1fu, min = 0x80;
    } else if ((b & 0xf0) == 0xe0) {
      len = 3, cp = b & 0x0fu, min = 0x800;
    } else if ((b & 0xf8) == 0xf0) {
      len = 4, cp = b & 0x07u, min = 0x10000;
    }
    size_t k = 1;
    while (len && k < len && i + k < n && (p[i + k] & 0xc0) == 0x80) cp = cp << 6 | (p[i + k++] & 0x3fu);
    if (len && k == len && cp >= min && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff)) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      out += "\xef\xbf\xbd";  // U+FFFD for the lead byte and the continuation bytes read with it
      i += len ? k : 1;
    }
  }
  return out;
}

uint64_t RecordMaker::Resolve(uint64_t connection) const {
  if (connection == 0 && attached_.size() == 1) return attached_.begin()->first;
  return connection;
}

uint32_t RecordMaker::SuspendsInForce() const {
  uint32_t total = 0;
  for (const auto& [connection, count] : vm_suspends_) total += count;
  return total;
}

void RecordMaker::Suspend(uint64_t time_ns, Suspension::By by, uint64_t connection, uint32_t packet_id,
                          std::vector<Record>& out) {
  const bool was_running = SuspendsInForce() == 0;
  ++vm_suspends_[connection];
  if (was_running) {
    Record r;
    r.time_ns = time_ns;
    r.suspension = Suspension{true, by, packet_id};
    out.push_back(std::move(r));
  }
}

void RecordMaker::Resume(uint64_t time_ns, Suspension::By by, uint64_t connection, uint32_t packet_id, bool all,
                         std::vector<Record>& out) {
  auto it = vm_suspends_.find(connection);
  // A debugger's VirtualMachine.Resume, holding nothing itself: it releases an
  // event's suspension recorded without its connection (not known to the agent
  // while several debuggers are attached), most likely its own.
  if (it == vm_suspends_.end() && by == Suspension::By::kDebugger) it = vm_suspends_.find(0);
  if (it == vm_suspends_.end() || it->second == 0) return;
  it->second = all ? 0 : it->second - 1;
  if (it->second == 0) vm_suspends_.erase(it);
  if (SuspendsInForce() == 0) {
    Record r;
    r.time_ns = time_ns;
    r.suspension = Suspension{false, by, packet_id};
    out.push_back(std::move(r));
  }
}

void RecordMaker::Make(const Observation& seen, std::vector<Record>& out) {
  Record r;
  r.time_ns = seen.time_ns;
  switch (seen.kind) {
    case Observation::Kind::kNone:
      return;
    case Observation::Kind::kAttached: {
      Attached& a = attached_[seen.connection];
      a = Attached{++sessions_, ValidUtf8(seen.text)};
      r.session = Session{Session::Kind::kAttached, a.peer, {}, a.number, seen.handshake_ns, seen.connection};
      out.push_back(std::move(r));
      return;
    }
    case Observation::Kind::kRefused:
      r.session = Session{Session::Kind::kRefused, {}, ValidUtf8(seen.text), 0};
      out.push_back(std::move(r));
      return;
    case Observation::Kind::kDetached: {
      const uint64_t connection = Resolve(seen.connection);
      Attached ended;
      if (auto it = attached_.find(connection); it != attached_.end()) {
        ended = std::move(it->second);
        attached_.erase(it);
      }
      r.session = Session{Session::Kind::kEnded, ended.peer, ValidUtf8(seen.text), ended.number, 0, connection};
      out.push_back(std::move(r));
      // The agent resumes everything the debugger suspended when it leaves.
      std::erase_if(pending_, [&](const auto& entry) { return entry.first.connection == connection; });
      if (attached_.empty()) {
        // The last one: nothing is held any more, whatever connection it was counted under.
        pending_.clear();
        if (SuspendsInForce() > 0) {
          vm_suspends_ = {{connection, 1}};
          Resume(seen.time_ns, Suspension::By::kSessionEnd, connection, 0, true, out);
        }
      } else {
        Resume(seen.time_ns, Suspension::By::kSessionEnd, connection, 0, true, out);
      }
      return;
    }
    case Observation::Kind::kError:
      r.agent_error = AgentError{ValidUtf8(seen.text)};
      out.push_back(std::move(r));
      return;
    case Observation::Kind::kThreadName:
      r.thread_name = ThreadName{seen.thread, ValidUtf8(seen.text)};
      out.push_back(std::move(r));
      return;
    case Observation::Kind::kPacketIn:
    case Observation::Kind::kPacketOut:
      break;
  }
  const uint8_t* h = seen.header;
  Packet p;
  p.direction = seen.kind == Observation::Kind::kPacketIn ? Packet::Direction::kIn : Packet::Direction::kOut;
  p.id = Be32(h + 4);
  p.reply = (h[8] & jdwp::kReplyFlag) != 0;
  p.length = seen.length;
  p.connection = Resolve(seen.connection);
  if (bodies_) p.bytes = seen.bytes;
  const uint32_t id = p.id;
  if (p.reply) {
    p.error_code = uint32_t{h[9]} << 8 | h[10];
    if (p.direction == Packet::Direction::kOut) {
      auto it = pending_.find(Key{p.connection, id});
      if (it == pending_.end() && p.connection == 0) {
        // Its connection not known, several debuggers attached: the command of
        // that id that came first, whoever sent it (replies mostly go out in order).
        for (auto c = pending_.begin(); c != pending_.end(); ++c) {
          if (c->first.id == id && (it == pending_.end() || c->second.time_ns < it->second.time_ns)) it = c;
        }
      }
      if (it != pending_.end()) {
        p.connection = it->first.connection;
        p.command_set = it->second.set;
        p.command = it->second.command;
        p.latency_ns = seen.time_ns >= it->second.time_ns ? seen.time_ns - it->second.time_ns : 0;
        pending_.erase(it);
      }
    }
  } else {
    p.command_set = h[9];
    p.command = h[10];
    p.thread = seen.thread;
    if (p.direction == Packet::Direction::kIn) pending_[Key{p.connection, id}] = Pending{seen.time_ns, h[9], h[10]};
  }
  const uint64_t connection = p.connection;
  const bool vm_command = p.reply && p.error_code == 0 && p.command_set == kVirtualMachine;
  const uint8_t set = static_cast<uint8_t>(p.command_set);
  const uint8_t command = static_cast<uint8_t>(p.command);
  const bool composite = !p.reply && p.direction == Packet::Direction::kOut && set == kEventSet && command == kComposite;
  r.packet = std::move(p);
  out.push_back(std::move(r));

  // The VM as a whole: suspended by VirtualMachine.Suspend and by events of
  // policy ALL, each undone by one VirtualMachine.Resume (as JDWP counts them).
  if (vm_command && command == kVmSuspend) Suspend(seen.time_ns, Suspension::By::kDebugger, connection, id, out);
  if (vm_command && command == kVmResume) Resume(seen.time_ns, Suspension::By::kDebugger, connection, id, false, out);
  if (composite && seen.bytes.size() > jdwp::kHeaderSize) {
    std::span<const uint8_t> data(seen.bytes.data() + jdwp::kHeaderSize, seen.bytes.size() - jdwp::kHeaderSize);
    auto decoded = jdwp::DecodeBody<jdwp::Event::Composite::Request>(data);
    if (!decoded) return;
    const auto policy = static_cast<uint32_t>(decoded->suspend_policy);
    const auto size = static_cast<uint32_t>(decoded->events.size());
    for (const auto& event : decoded->events) {
      Record e;
      e.time_ns = seen.time_ns;
      Event ev;
      std::visit(
          [&](const auto& alt) {
            using T = std::decay_t<decltype(alt)>;
            ev.kind = T::kSelect;
            ev.request_id = alt.request_id;
            if constexpr (HasThread<T>) ev.thread = alt.thread.value;
          },
          event);
      ev.suspend_policy = policy;
      ev.composite_size = size;
      ev.packet_id = id;
      e.event = ev;
      out.push_back(std::move(e));
    }
    if (decoded->suspend_policy == jdwp::SuspendPolicy::kAll)
      Suspend(seen.time_ns, Suspension::By::kEvent, connection, id, out);
  }
}

}  // namespace jdwpx::trace
