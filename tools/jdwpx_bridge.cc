// jdwpx-bridge: a JDWP connection through any stdio channel (kubectl exec,
// ssh, podman exec), so that a debugger reaches a JVM with no port opened.
//   jdwpx-bridge connect unix:/tmp/jdwp.sock | host:port
//   jdwpx-bridge listen 127.0.0.1:5005 [--answer-timeout=<ms>] -- <command...>
//   jdwpx-bridge --help | --version      on stdout, exit status 0
#include <signal.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "tools/cli.h"
#include "transport/bridge.h"

namespace {

constexpr const char* kUsage =
    "usage: jdwpx-bridge connect unix:<path> | <host>:<port>\n"
    "           relay standard input/output to that JDWP endpoint\n"
    "       jdwpx-bridge listen <host>:<port> [--answer-timeout=<ms>] -- <command> [args...]\n"
    "           listen there (port 0: any free one, printed); for each connection run <command>\n"
    "           with the connection as its stdin/stdout, e.g.\n"
    "           jdwpx-bridge listen 127.0.0.1:5005 -- kubectl exec -i pod -- jdwpx-bridge connect unix:/tmp/jdwp.sock\n"
    "           --answer-timeout: how long the command may take to answer the JDWP handshake (10000)\n"
    "       jdwpx-bridge --help | --version\n";

int Main(int argc, char** argv) {
  // No command at all: the usage alone (no complaint line).
  if (argc < 2) return jdwpx::tools::UsageError("jdwpx-bridge", "", kUsage);
  // listen's command, after the first "--", is the command's own: CLI11 never sees it.
  std::vector<const char*> ours(argv, argv + argc);
  std::vector<std::string> command;
  bool has_separator = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") {
      has_separator = true;
      ours.assign(argv, argv + i);
      command.assign(argv + i + 1, argv + argc);
      break;
    }
  }

  CLI::App app{"a JDWP connection through any stdio channel", "jdwpx-bridge"};
  jdwpx::tools::AddStandardFlags(app);
  app.require_subcommand(1);

  std::string connect_endpoint;
  CLI::App* connect = app.add_subcommand("connect", "relay standard input/output to a JDWP endpoint");
  connect->add_option("ENDPOINT", connect_endpoint, "unix:<path> or <host>:<port>")->required();

  jdwpx::transport::BridgeListenOptions options;
  CLI::App* listen = app.add_subcommand("listen", "run a command for each connection");
  listen->add_option("ENDPOINT", options.endpoint, "<host>:<port>")->required();
  listen->add_option("--answer-timeout", options.answer_timeout_ms, "ms the command may take to answer the handshake")
      ->check(CLI::PositiveNumber);

  if (auto status = jdwpx::tools::Parse(app, static_cast<int>(ours.size()), ours.data(), kUsage)) return *status;
  if (connect->parsed()) {
    if (has_separator) return jdwpx::tools::UsageError("jdwpx-bridge", "connect takes no command", kUsage);
    signal(SIGPIPE, SIG_IGN);
    return jdwpx::transport::BridgeConnect(connect_endpoint);
  }
  if (command.empty()) return jdwpx::tools::UsageError("jdwpx-bridge", "listen needs -- and a command", kUsage);
  options.command = std::move(command);
  return jdwpx::transport::BridgeListen(options);
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
