// Diagnostics from the layers below the server (crypto, weights, engine), which do not link a
// logging library. The server routes them into its logger with set_log_sink(); without a sink,
// messages at or above the level named by A3S_POWER_LOG_LEVEL (default "warn") go to stderr.
// Messages must never contain secrets, prompts or model bytes.
#pragma once

#include <string_view>

namespace a3s::power {

enum class LogLevel { Trace = 0, Debug = 1, Info = 2, Warn = 3, Error = 4, Off = 5 };

using LogSink = void (*)(LogLevel level, std::string_view message);

// Replaces the process-wide sink (nullptr: back to the stderr default). Thread-safe.
void set_log_sink(LogSink sink);

void log_message(LogLevel level, std::string_view message);
inline void log_debug(std::string_view message) {
  log_message(LogLevel::Debug, message);
}
inline void log_warn(std::string_view message) {
  log_message(LogLevel::Warn, message);
}

}  // namespace a3s::power
