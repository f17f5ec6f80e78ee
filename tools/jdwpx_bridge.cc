// jdwpx-bridge: a JDWP connection through any stdio channel (kubectl exec,
// ssh, podman exec), so that a debugger reaches a JVM with no port opened.
//   jdwpx-bridge connect unix:/tmp/jdwp.sock | host:port
//   jdwpx-bridge listen 127.0.0.1:5005 [--answer-timeout=<ms>] -- <command...>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "transport/bridge.h"

namespace {

constexpr const char* kUsage =
    "usage: jdwpx-bridge connect unix:<path> | <host>:<port>\n"
    "           relay standard input/output to that JDWP endpoint\n"
    "       jdwpx-bridge listen <host>:<port> [--answer-timeout=<ms>] -- <command> [args...]\n"
    "           listen there (port 0: any free one, printed); for each connection run <command>\n"
    "           with the connection as its stdin/stdout, e.g.\n"
    "           jdwpx-bridge listen 127.0.0.1:5005 -- kubectl exec -i pod -- jdwpx-bridge connect unix:/tmp/jdwp.sock\n"
    "           --answer-timeout: how long the command may take to answer the JDWP handshake (10000)\n";

int Usage(const char* problem) {
  if (problem) std::fprintf(stderr, "jdwpx-bridge: %s\n", problem);
  std::fputs(kUsage, stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.empty()) return Usage(nullptr);
  if (args[0] == "-h" || args[0] == "--help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (args[0] == "connect") {
    if (args.size() != 2) return Usage("connect takes one endpoint");
    signal(SIGPIPE, SIG_IGN);
    return jdwpx::transport::BridgeConnect(std::string(args[1]));
  }
  if (args[0] == "listen") {
    jdwpx::transport::BridgeListenOptions options;
    size_t i = 1;
    for (; i < args.size() && args[i] != "--"; ++i) {
      if (args[i].starts_with("--answer-timeout=")) {
        char* end = nullptr;
        std::string value(args[i].substr(17));
        long long ms = std::strtoll(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0' || ms <= 0) return Usage("--answer-timeout needs a positive number of ms");
        options.answer_timeout_ms = ms;
      } else if (options.endpoint.empty()) {
        options.endpoint = std::string(args[i]);
      } else {
        return Usage("listen takes one endpoint, then -- and the command");
      }
    }
    if (options.endpoint.empty()) return Usage("listen needs <host>:<port>");
    if (i + 1 >= args.size()) return Usage("listen needs -- and a command");
    for (++i; i < args.size(); ++i) options.command.emplace_back(args[i]);
    return jdwpx::transport::BridgeListen(options);
  }
  return Usage(("unknown command '" + std::string(args[0]) + "'").c_str());
}
