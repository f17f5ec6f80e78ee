// The fake agent (fake_agent.h) as a program: its stdin/stdout are the JDWP
// stream, as jdwpx-bridge's are, so that jdwpx-probe's --exec targets can be
// tested without a JVM.
//   probe_fake_agent [--logs N] [--stock] [--record FILE]
// --logs N: Probe.Log packets after the Set reply ("message 1" ...); --stock:
// answers the Probe set with NOT_IMPLEMENTED; --record: writes the commands it
// received there, one a line, when the session ends.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tools/tests/fake_agent.h"

int main(int argc, char** argv) {
  namespace testing = jdwpx::tools::probe::testing;
  namespace Probe = jdwpx::jdwp::Probe;
  testing::AgentScript script;
  std::string record_path;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--logs" && i + 1 < argc) {
      const int count = std::atoi(argv[++i]);
      for (int n = 1; n <= count; ++n) {
        script.after_set.push_back(testing::Packet<Probe::Log>(
            {.probe_id = script.probe_id, .time_ns = 1'700'000'000'000'000'000 + n * 1'000'000, .thread = "main",
             .location = "demo.Main.loop:12", .message = "message " + std::to_string(n)}));
      }
      script.hits = script.matched = count;
    } else if (arg == "--stock") {
      script.jdwpx = false;
    } else if (arg == "--record" && i + 1 < argc) {
      record_path = argv[++i];
    } else {
      std::fprintf(stderr, "probe_fake_agent: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  const testing::AgentRecord record = testing::ServeSession(0, 1, script);
  if (!record_path.empty()) {
    FILE* file = std::fopen(record_path.c_str(), "w");
    if (file == nullptr) return 1;
    for (const std::string& command : record.commands) std::fprintf(file, "%s\n", command.c_str());
    std::fclose(file);
  }
  return record.problem.empty() ? 0 : 1;
}
