#include "tools/probe/target.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

extern char** environ;

namespace jdwpx::tools::probe {
namespace {

constexpr std::string_view kUnixPrefix = "unix:";

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

int64_t NowMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1000000;
}

std::string Trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const size_t last = text.find_last_not_of(" \t\r");
  return std::string(text.substr(first, last - first + 1));
}

// A host that drops our SYNs would hold a blocking connect for minutes.
constexpr int kConnectTimeoutMs = 10000;

bool ConnectWithin(int fd, const sockaddr* address, socklen_t size, std::string& problem) {
  const int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int error = 0;
  if (connect(fd, address, size) != 0) {
    error = errno;
    if (error == EINPROGRESS) {
      pollfd polled{fd, POLLOUT, 0};
      int ready;
      do ready = poll(&polled, 1, kConnectTimeoutMs);
      while (ready < 0 && errno == EINTR);
      if (ready == 0) {
        problem = "cannot connect: no answer within " + std::to_string(kConnectTimeoutMs / 1000) + " s";
        return false;
      }
      socklen_t length = sizeof error;
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
    }
  }
  fcntl(fd, F_SETFL, flags);
  if (error != 0) {
    problem = std::string("cannot connect: ") + std::strerror(error);
    return false;
  }
  return true;
}

tl::expected<int, std::string> ConnectTcp(const TargetSpec& target) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(target.where.c_str(), target.port.c_str(), &hints, &found); rc != 0) {
    return tl::unexpected("cannot resolve '" + target.where + "': " + gai_strerror(rc));
  }
  std::string problem = "no address";
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      problem = Errno("socket");
      continue;
    }
    if (!ConnectWithin(fd, a->ai_addr, a->ai_addrlen, problem)) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) return tl::unexpected(problem);
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

tl::expected<int, std::string> ConnectUnix(const TargetSpec& target) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (target.where.empty() || target.where.size() >= sizeof address.sun_path) {
    return tl::unexpected(std::string("not a usable socket path"));
  }
  std::memcpy(address.sun_path, target.where.data(), target.where.size());
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return tl::unexpected(Errno("socket"));
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    std::string problem = Errno("cannot connect");
    close(fd);
    return tl::unexpected(problem);
  }
  return fd;
}

// argv run without a shell, its stdout into `out_fd` (or a socket for both stdin and stdout).
tl::expected<pid_t, std::string> Spawn(const std::vector<std::string>& argv, int stdin_fd, int stdout_fd, bool own_group) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (stdin_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0);
  posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Default signal handling in the child, whatever we ignore (SIGPIPE).
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  short flags = POSIX_SPAWN_SETSIGDEF;
  if (own_group) flags |= POSIX_SPAWN_SETPGROUP;
  posix_spawnattr_setflags(&attributes, flags);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) return tl::unexpected("cannot run " + argv[0] + ": " + std::strerror(rc));
  return pid;
}

}  // namespace

tl::expected<TargetSpec, std::string> ConnectTarget(const std::string& text) {
  TargetSpec target;
  target.name = text;
  if (text.starts_with(kUnixPrefix)) {
    target.kind = TargetSpec::Kind::kUnix;
    target.where = text.substr(kUnixPrefix.size());
    if (target.where.empty()) return tl::unexpected("'" + text + "': unix: needs a path");
    return target;
  }
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return tl::unexpected("'" + text + "' is not HOST:PORT nor unix:PATH");
  const std::string port = text.substr(colon + 1);
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
    return tl::unexpected("'" + text + "': invalid port");
  }
  target.kind = TargetSpec::Kind::kTcp;
  target.where = text.substr(0, colon);
  if (target.where.size() > 2 && target.where.front() == '[' && target.where.back() == ']') {
    target.where = target.where.substr(1, target.where.size() - 2);
  }
  target.port = port;
  return target;
}

TargetSpec ExecTarget(const std::string& command, const std::string& name) {
  TargetSpec target;
  target.kind = TargetSpec::Kind::kExec;
  target.name = name.empty() ? command : name;
  target.where = command;
  return target;
}

tl::expected<std::vector<TargetSpec>, std::string> ReadTargetsFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return tl::unexpected(Errno("cannot read " + path));
  std::vector<TargetSpec> targets;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string text = Trimmed(line);
    if (text.empty() || text.front() == '#') continue;
    const bool is_exec = text.starts_with("exec ") || text.starts_with("--exec ");
    if (is_exec) {
      targets.push_back(ExecTarget(Trimmed(text.substr(text.find(' ') + 1))));
      continue;
    }
    const std::string address = text.starts_with("--connect ") ? Trimmed(text.substr(10)) : text;
    auto target = ConnectTarget(address);
    if (!target) return tl::unexpected(path + ":" + std::to_string(number) + ": " + target.error());
    targets.push_back(std::move(*target));
  }
  return targets;
}

std::string ShellQuote(const std::string& text) {
  const bool plain = !text.empty() && text.find_first_not_of(
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=@%+,-") == std::string::npos;
  if (plain) return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

tl::expected<std::vector<TargetSpec>, std::string> KubeTargets(const KubeOptions& options) {
  std::vector<std::string> argv = {"kubectl", "get", "pods", "-l", options.selector, "-o", "name"};
  if (!options.namespace_name.empty()) argv.insert(argv.end(), {"-n", options.namespace_name});
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return tl::unexpected(Errno("pipe"));
  auto pid = Spawn(argv, -1, pipe_fds[1], false);
  close(pipe_fds[1]);
  if (!pid) {
    close(pipe_fds[0]);
    return tl::unexpected(pid.error());
  }
  std::string output;
  char buffer[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    output.append(buffer, static_cast<size_t>(n));
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(*pid, &status, 0) < 0 && errno == EINTR) {}
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return tl::unexpected("kubectl get pods -l " + options.selector + " failed (status " +
                          std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) + ")");
  }
  std::vector<TargetSpec> targets;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    std::string pod = Trimmed(std::string_view(output).substr(start, end - start));
    start = end + 1;
    if (pod.starts_with("pod/")) pod = pod.substr(4);
    if (pod.empty()) continue;
    std::string command = "kubectl exec -i";
    if (!options.namespace_name.empty()) command += " -n " + ShellQuote(options.namespace_name);
    if (!options.container.empty()) command += " -c " + ShellQuote(options.container);
    command += " " + ShellQuote(pod) + " -- " + ShellQuote(options.bridge) + " connect " + ShellQuote(options.socket);
    targets.push_back(ExecTarget(command, pod));
  }
  if (targets.empty()) return tl::unexpected("no pod matches -l " + options.selector);
  return targets;
}

tl::expected<Connection, std::string> Connection::Open(const TargetSpec& target) {
  Connection connection;
  switch (target.kind) {
    case TargetSpec::Kind::kTcp: {
      auto fd = ConnectTcp(target);
      if (!fd) return tl::unexpected(fd.error());
      connection.fd_ = *fd;
      break;
    }
    case TargetSpec::Kind::kUnix: {
      auto fd = ConnectUnix(target);
      if (!fd) return tl::unexpected(fd.error());
      connection.fd_ = *fd;
      break;
    }
    case TargetSpec::Kind::kExec: {
      int pair[2];
      if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return tl::unexpected(Errno("socketpair"));
      auto pid = Spawn({"/bin/sh", "-c", target.where}, pair[1], pair[1], true);
      close(pair[1]);
      if (!pid) {
        close(pair[0]);
        return tl::unexpected(pid.error());
      }
      connection.fd_ = pair[0];
      connection.child_ = *pid;
      break;
    }
  }
  return connection;
}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    Close();
    Reap(NowMs());
    fd_ = std::exchange(other.fd_, -1);
    child_ = std::exchange(other.child_, -1);
  }
  return *this;
}

Connection::~Connection() {
  Close();
  Reap(NowMs() + 3000);
}

void Connection::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

void Connection::Reap(int64_t deadline_ms) {
  if (child_ < 0) return;
  // Polled: a SIGCHLD handler would be one more thing shared by every target.
  const auto ended = [&] {
    int status = 0;
    const pid_t rc = waitpid(child_, &status, WNOHANG);
    return rc == child_ || (rc < 0 && errno != EINTR);
  };
  const timespec tick{0, 10 * 1000 * 1000};
  while (!ended()) {
    if (NowMs() >= deadline_ms) {
      kill(-child_, SIGTERM);
      for (int i = 0; i < 100 && !ended(); ++i) nanosleep(&tick, nullptr);
      kill(-child_, SIGKILL);
      while (waitpid(child_, nullptr, 0) < 0 && errno == EINTR) {}
      break;
    }
    nanosleep(&tick, nullptr);
  }
  child_ = -1;
}

}  // namespace jdwpx::tools::probe
