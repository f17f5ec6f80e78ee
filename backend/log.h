// The backend's logger ("jdwpx.backend"); Configure sets up every folder's logger.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <string>

namespace jdwpx::backend {

spdlog::logger& Log();
// The packet logger ("jdwpx.packets") when it logs at trace level (loglevel=trace),
// else null: one load per packet instead of a registry lookup.
spdlog::logger* PacketTraceLog();
// Creates the named loggers of all folders writing to stderr or `logfile`, at `level`.
void ConfigureLogging(const std::string& level, const std::string& logfile);
// Whether the loggers write to stderr (no logfile=, or it could not be opened).
bool LogGoesToStderr();

}  // namespace jdwpx::backend
