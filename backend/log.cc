#include "backend/log.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

namespace jdwpx::backend {
namespace {
std::shared_ptr<spdlog::logger> g_backend;
std::shared_ptr<spdlog::logger> g_packets_trace;  // set at configuration, kept for the process's life
bool g_to_stderr = true;
}

spdlog::logger* PacketTraceLog() { return g_packets_trace.get(); }

bool LogGoesToStderr() { return g_to_stderr; }

spdlog::logger& Log() {
  if (!g_backend) {
    // Before configuration (or in unit tests): warnings to stderr.
    g_backend = std::make_shared<spdlog::logger>("jdwpx.backend", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    g_backend->set_level(spdlog::level::warn);
  }
  return *g_backend;
}

void ConfigureLogging(const std::string& level, const std::string& logfile) {
  spdlog::sink_ptr sink;
  try {
    if (!logfile.empty()) sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(logfile);
  } catch (...) {
    sink = nullptr;
  }
  g_to_stderr = !sink;
  if (!sink) sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  auto lvl = spdlog::level::from_str(level.empty() ? "warn" : level);
  for (const char* name : {"jdwpx.backend", "jdwpx.transport", "jdwpx.packets"}) {
    spdlog::drop(name);
    auto logger = std::make_shared<spdlog::logger>(name, sink);
    logger->set_level(lvl);
    logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%n] [%l] %v");
    // Every line that passes the level is written at once: the VM may end the
    // process without unloading us, and a log that loses its tail is no use.
    logger->flush_on(spdlog::level::trace);
    spdlog::register_logger(logger);
    if (std::string(name) == "jdwpx.backend") g_backend = logger;
    if (std::string(name) == "jdwpx.packets") g_packets_trace = lvl == spdlog::level::trace ? logger : nullptr;
  }
}

}  // namespace jdwpx::backend
