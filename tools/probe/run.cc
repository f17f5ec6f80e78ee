#include "tools/probe/run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <thread>

#include "jdwp/commands/virtual_machine.h"
#include "tools/probe/client.h"

namespace jdwpx::tools::probe {
namespace {

using Clock = std::chrono::steady_clock;
namespace Probe = jdwp::Probe;

// SIGINT/SIGTERM into the poll loop: the handler only writes a byte.
int signal_pipe_write = -1;
void OnSignal(int) {
  const int saved = errno;
  const char byte = 1;
  [[maybe_unused]] ssize_t n = write(signal_pipe_write, &byte, 1);
  errno = saved;
}

class SignalPipe {
 public:
  SignalPipe() {
    if (pipe2(fds_, O_CLOEXEC | O_NONBLOCK) != 0) fds_[0] = fds_[1] = -1;
    signal_pipe_write = fds_[1];
    struct sigaction action {};
    action.sa_handler = OnSignal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
    // A closed stdout (`| head`) is a write error we handle: the run ends and clears.
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, &old_pipe_);
  }
  ~SignalPipe() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    sigaction(SIGPIPE, &old_pipe_, nullptr);
    signal_pipe_write = -1;
    if (fds_[0] >= 0) close(fds_[0]);
    if (fds_[1] >= 0) close(fds_[1]);
  }
  int fd() const { return fds_[0]; }
  // How many signals came since the last call.
  int Drain() {
    char bytes[64];
    int count = 0;
    for (ssize_t n; (n = read(fds_[0], bytes, sizeof bytes)) > 0;) count += static_cast<int>(n);
    return count;
  }

 private:
  int fds_[2];
  struct sigaction old_int_ {}, old_term_ {}, old_pipe_ {};
};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

enum class Phase {
  kHandshake,  // ours sent, waiting for the target's
  kIdentifying,  // VirtualMachine.Version sent: is it jdwpx?
  kSetting,    // Probe.Set sent
  kRunning,    // the probe is set: its lines come
  kEnding,     // List, Clear and Dispose sent
  kClosed,
};

struct Target {
  const TargetSpec* spec = nullptr;
  Connection connection;
  std::optional<Client> client;
  Phase phase = Phase::kClosed;
  bool failed = false;
  int32_t probe_id = 0;
  int64_t lines = 0;
  std::optional<Summary> summary;
  std::optional<uint32_t> version_id, set_id, list_id, clear_id, dispose_id;
  bool cleared = false;
  Clock::time_point deadline = Clock::time_point::max();
};

class Runner {
 public:
  explicit Runner(const RunOptions& options) : options_(options), targets_(options.targets.size()) {}

  int Run() {
    SignalPipe signals;
    const auto answer_time = std::chrono::milliseconds(options_.answer_timeout_ms);
    // Connected all at once: a TCP connect may wait for an answer (target.h).
    std::vector<std::optional<tl::expected<Connection, std::string>>> opened(targets_.size());
    {
      std::vector<std::thread> openers;
      for (size_t i = 0; i < targets_.size(); ++i) {
        targets_[i].spec = &options_.targets[i];
        openers.emplace_back([&, i] { opened[i] = Connection::Open(options_.targets[i]); });
      }
      for (std::thread& opener : openers) opener.join();
    }
    for (size_t i = 0; i < targets_.size(); ++i) {
      Target& target = targets_[i];
      auto& connection = *opened[i];
      if (!connection) {
        Fail(target, connection.error());
        continue;
      }
      target.connection = std::move(*connection);
      target.client.emplace(target.connection.fd());
      if (!target.client->SendHandshake()) {
        Fail(target, "the connection closed before the handshake");
        continue;
      }
      target.phase = Phase::kHandshake;
      target.deadline = Clock::now() + answer_time;
    }
    if (options_.for_seconds > 0) {
      run_deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.for_seconds));
    }

    std::vector<pollfd> fds;
    std::vector<Target*> polled;
    while (true) {
      fds.clear();
      polled.clear();
      fds.push_back({signals.fd(), POLLIN, 0});
      Clock::time_point wake = run_ended_ ? Clock::time_point::max() : run_deadline_;
      for (Target& target : targets_) {
        if (target.phase == Phase::kClosed) continue;
        fds.push_back({target.connection.fd(), POLLIN, 0});
        polled.push_back(&target);
        wake = std::min(wake, target.deadline);
      }
      if (polled.empty()) break;
      int timeout_ms = -1;
      if (wake != Clock::time_point::max()) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(wake - Clock::now()).count();
        timeout_ms = static_cast<int>(std::clamp<int64_t>(left, 0, 24 * 3600 * 1000));
      }
      const int ready = poll(fds.data(), fds.size(), timeout_ms);
      if (ready < 0 && errno != EINTR) {
        for (Target* target : polled) Fail(*target, std::string("poll: ") + std::strerror(errno));
        break;
      }
      if (ready > 0 && (fds[0].revents & POLLIN) != 0) OnSignals(signals.Drain());
      for (size_t i = 0; i < polled.size(); ++i) {
        if (ready > 0 && fds[i + 1].revents != 0 && polled[i]->phase != Phase::kClosed) OnReadable(*polled[i]);
      }
      const auto now = Clock::now();
      if (!run_ended_ && now >= run_deadline_) EndAll();
      for (Target& target : targets_) {
        if (target.phase != Phase::kClosed && now >= target.deadline) OnTimeout(target);
      }
    }

    if (!refused_) {
      for (const Target& target : targets_) {
        if (target.summary) Write(SummaryLine(options_.format, target.spec->name, *target.summary, NowNs()));
      }
    }
    const int64_t reap_deadline = std::chrono::duration_cast<std::chrono::milliseconds>(
        (Clock::now() + std::chrono::seconds(3)).time_since_epoch()).count();
    for (Target& target : targets_) target.connection.Reap(reap_deadline);
    const bool any_failed = std::any_of(targets_.begin(), targets_.end(), [](const Target& t) { return t.failed; });
    return any_failed || refused_ ? kExitFailed : kExitOk;
  }

 private:
  void Say(const Target& target, const std::string& message) {
    std::fprintf(options_.err, "jdwpx-probe: %s: %s\n", target.spec->name.c_str(), message.c_str());
    std::fflush(options_.err);
  }

  void Close(Target& target) {
    target.connection.Close();
    target.phase = Phase::kClosed;
    target.deadline = Clock::time_point::max();
  }

  void Fail(Target& target, const std::string& message) {
    Say(target, message);
    target.failed = true;
    Close(target);
  }

  void Write(const std::string& lines) {
    if (output_broken_) return;
    if (std::fwrite(lines.data(), 1, lines.size(), options_.out) != lines.size() || std::fflush(options_.out) != 0) {
      // Nobody reads any more (`| head`): end as an interrupt would, clearing every probe.
      output_broken_ = true;
      EndAll();
    }
  }

  void OnSignals(int count) {
    if (count <= 0) return;
    if (!run_ended_ && count == 1) {
      EndAll();
      return;
    }
    // A second one: stop waiting. The agent clears a connection's probes when it closes.
    for (Target& target : targets_) {
      if (target.phase != Phase::kClosed) Fail(target, "interrupted again: closed without waiting for its answers");
    }
  }

  void EndAll() {
    run_ended_ = true;
    for (Target& target : targets_) BeginEnd(target);
  }

  // List (for the summary), Clear(0), Dispose: sent at once, answered in order.
  void BeginEnd(Target& target) {
    if (target.phase == Phase::kHandshake) return Close(target);  // nothing set yet
    if (target.phase == Phase::kIdentifying) return Leave(target);
    if (target.phase != Phase::kSetting && target.phase != Phase::kRunning) return;
    target.list_id = target.client->Send<Probe::List>({});
    target.clear_id = target.client->Send<Probe::Clear>({.probe_id = 0});
    target.dispose_id = target.client->Send<jdwp::VirtualMachine::Dispose>({});
    if (!target.list_id || !target.clear_id || !target.dispose_id) {
      Fail(target, "the connection closed before its probes were cleared");
      return;
    }
    target.phase = Phase::kEnding;
    target.deadline = Clock::now() + std::chrono::milliseconds(options_.answer_timeout_ms);
  }

  // A target we will not use (refused, not jdwpx): Dispose, and no waiting for its answer.
  void Leave(Target& target) {
    (void)target.client->Send<jdwp::VirtualMachine::Dispose>({});
    Close(target);
  }

  void OnTimeout(Target& target) {
    const std::string seconds = std::to_string(options_.answer_timeout_ms / 1000) + " s";
    switch (target.phase) {
      case Phase::kHandshake: Fail(target, "no JDWP handshake within " + seconds); break;
      case Phase::kIdentifying: Fail(target, "no answer to VirtualMachine.Version within " + seconds); break;
      case Phase::kSetting: Fail(target, "no answer to Probe.Set within " + seconds); break;
      case Phase::kEnding:
        Fail(target, "no answer to Probe.Clear within " + seconds + " (the agent clears the probes of a closed connection)");
        break;
      default: target.deadline = Clock::time_point::max(); break;
    }
  }

  void OnReadable(Target& target) {
    const Client::ReadStatus status = target.client->ReadAvailable();
    std::string problem;
    if (target.phase == Phase::kHandshake) {
      if (!target.client->HandshakeDone(problem)) {
        if (!problem.empty()) return Fail(target, problem);
      } else if (run_ended_) {
        return Close(target);
      } else {
        target.version_id = target.client->Send<jdwp::VirtualMachine::Version>({});
        if (!target.version_id) return Fail(target, "the connection closed after the handshake");
        target.phase = Phase::kIdentifying;
      }
    }
    if (target.phase != Phase::kHandshake) {
      while (target.phase != Phase::kClosed) {
        auto received = target.client->NextPacket(problem);
        if (!problem.empty()) return Fail(target, "sent " + problem);
        if (!received) break;
        if (received->packet.is_reply()) OnReply(target, *received);
        else OnCommand(target, *received);
      }
    }
    if (target.phase == Phase::kClosed || status == Client::ReadStatus::kMore) return;
    const std::string why = target.client->read_error().empty() ? "" : " (" + target.client->read_error() + ")";
    switch (target.phase) {
      case Phase::kHandshake: Fail(target, "the connection closed before the handshake" + why); break;
      case Phase::kEnding:
        if (target.cleared) Close(target);
        else Fail(target, "the connection closed before its probes were cleared" + why);
        break;
      default: Fail(target, "the connection closed" + why); break;
    }
  }

  void OnReply(Target& target, const ReceivedPacket& received) {
    const jdwp::Packet& packet = received.packet;
    const jdwp::ErrorCode error = packet.error;
    const std::string error_name(jdwp::ErrorName(error));
    if (packet.id == target.version_id) {
      if (error != jdwp::ErrorCode::kNone) return Fail(target, "VirtualMachine.Version failed: " + error_name);
      auto reply = jdwp::DecodeBody<jdwp::VirtualMachine::Version::Reply>(packet.data);
      if (!reply) return Fail(target, "VirtualMachine.Version's reply: " + reply.error().detail);
      if (!NamesJdwpx(reply->description)) {
        // Never a Probe command to it: the JDK's agent would abort the JVM.
        Say(target, "not a jdwpx agent (the JDK's own agent has no probes)");
        target.failed = true;
        return Leave(target);
      }
      target.set_id = target.client->Send<Probe::Set>(options_.probe);
      if (!target.set_id) return Fail(target, "the connection closed before Probe.Set");
      target.phase = Phase::kSetting;
      return;
    }
    if (packet.id == target.set_id) {
      if (error == jdwp::ErrorCode::kNotImplemented) {
        Say(target, "not a jdwpx agent (the JDK's own agent has no probes)");
        target.failed = true;
        return Leave(target);
      }
      if (error != jdwp::ErrorCode::kNone) {
        Say(target, "Probe.Set failed: " + error_name);
        target.failed = true;
        return Leave(target);
      }
      auto reply = jdwp::DecodeBody<Probe::Set::Reply>(packet.data);
      if (!reply) return Fail(target, "Probe.Set's reply: " + reply.error().detail);
      if (reply->probe_id == 0) {
        // A bad location or expression is bad everywhere: nothing stays set anywhere.
        Say(target, "probe refused: " + reply->problem);
        target.failed = true;
        refused_ = true;
        Leave(target);
        EndAll();
        return;
      }
      target.probe_id = reply->probe_id;
      if (target.phase == Phase::kSetting) {
        target.phase = Phase::kRunning;
        target.deadline = Clock::time_point::max();
        if (reply->places == 0) Say(target, "probe " + std::to_string(reply->probe_id) + " deferred: its class is not loaded yet");
      }
      return;
    }
    if (packet.id == target.list_id) {
      if (error != jdwp::ErrorCode::kNone) return Say(target, "Probe.List failed: " + error_name);
      auto reply = jdwp::DecodeBody<Probe::List::Reply>(packet.data);
      if (!reply) return Say(target, "Probe.List's reply: " + reply.error().detail);
      Summary summary{.probe = target.probe_id};
      for (const auto& probe : reply->probes) {
        if (target.probe_id != 0 && probe.probe_id != target.probe_id) continue;
        summary.hits += probe.hits;
        summary.matched += probe.matched;
        summary.suppressed += probe.suppressed;
      }
      target.summary = summary;
      return;
    }
    if (packet.id == target.clear_id) {
      if (error != jdwp::ErrorCode::kNone) return Fail(target, "Probe.Clear failed: " + error_name);
      target.cleared = true;
      return;
    }
    if (packet.id == target.dispose_id) Close(target);
  }

  void OnCommand(Target& target, const ReceivedPacket& received) {
    const jdwp::Packet& packet = received.packet;
    if (packet.command_set != static_cast<uint8_t>(jdwp::CommandSet::kProbe)) return;  // events of no interest
    const bool full = options_.max_lines > 0 && target.lines >= options_.max_lines;
    if (packet.command == Probe::Log::kId.command || packet.command == Probe::Snapshot::kId.command) {
      if (full) return;  // sent before our end reached the agent
      std::string lines;
      if (packet.command == Probe::Log::kId.command) {
        auto log = jdwp::DecodeBody<Probe::Log::Request>(packet.data);
        if (!log) return Say(target, "a malformed Probe.Log: " + log.error().detail);
        lines = LogLine(options_.format, target.spec->name, *log);
      } else {
        auto snapshot = jdwp::DecodeBody<Probe::Snapshot::Request>(packet.data);
        if (!snapshot) return Say(target, "a malformed Probe.Snapshot: " + snapshot.error().detail);
        lines = SnapshotLines(options_.format, target.spec->name, *snapshot);
      }
      Write(lines);
      ++target.lines;
      if (options_.max_lines > 0 && target.lines >= options_.max_lines) BeginEnd(target);
      return;
    }
    if (packet.command == Probe::Notice::kId.command) {
      auto notice = jdwp::DecodeBody<Probe::Notice::Request>(packet.data);
      if (!notice) return Say(target, "a malformed Probe.Notice: " + notice.error().detail);
      Write(NoticeLine(options_.format, target.spec->name, *notice, NowNs()));
      // Its max hits reached in the agent (lines dropped by the rate count there, not
      // here), or its CPU budget spent: the probe is out of the VM and nothing more comes
      // from this target. A pause is the budget doing its job, not a failed target.
      if (notice->kind == Probe::NoticeKind::kDone || notice->kind == Probe::NoticeKind::kPaused) BeginEnd(target);
    }
  }

  const RunOptions& options_;
  std::vector<Target> targets_;
  Clock::time_point run_deadline_ = Clock::time_point::max();
  bool run_ended_ = false;
  bool refused_ = false;
  bool output_broken_ = false;
};

}  // namespace

int Run(const RunOptions& options) { return Runner(options).Run(); }

}  // namespace jdwpx::tools::probe
