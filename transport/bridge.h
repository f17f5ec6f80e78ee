// jdwpx-bridge's two jobs (tools/jdwpx_bridge.cc is its main): relaying
// standard input/output to a JDWP endpoint, and listening on a local TCP port
// to relay each connection to a new command's stdio. Bytes pass unchanged; only
// the first 14 coming back are checked to be JDWP's handshake, so that a
// command printing something else gets a clear message instead of a debugger's
// "handshake failed".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace jdwpx::transport {

// `endpoint`: "unix:<path>" or "host:port". Relays until the endpoint closes;
// the status is 0 then, 1 when it could not connect or closed before the
// handshake (a message on stderr says why).
int BridgeConnect(const std::string& endpoint);

struct BridgeListenOptions {
  std::string endpoint;               // "host:port", port 0 = any free one
  std::vector<std::string> command;   // run per connection, its stdin/stdout the connection
  int64_t answer_timeout_ms = 10000;  // the command must answer the handshake within this
};

// Prints "jdwpx-bridge: listening on <host>:<port>" on stdout, then serves
// until SIGINT/SIGTERM, which ends every command it started. 1 when it
// cannot listen.
int BridgeListen(const BridgeListenOptions& options);

}  // namespace jdwpx::transport
