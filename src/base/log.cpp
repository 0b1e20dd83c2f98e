#include "base/log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace a3s::power {
namespace {

std::atomic<LogSink> g_sink{nullptr};

LogLevel stderr_threshold() {
  static const LogLevel level = [] {
    const char* v = std::getenv("A3S_POWER_LOG_LEVEL");
    const std::string s = v ? v : "";
    if (s == "trace") return LogLevel::Trace;
    if (s == "debug") return LogLevel::Debug;
    if (s == "info") return LogLevel::Info;
    if (s == "error") return LogLevel::Error;
    if (s == "off") return LogLevel::Off;
    return LogLevel::Warn;
  }();
  return level;
}

const char* level_name(LogLevel l) {
  switch (l) {
    case LogLevel::Trace:
      return "trace";
    case LogLevel::Debug:
      return "debug";
    case LogLevel::Info:
      return "info";
    case LogLevel::Warn:
      return "warning";
    case LogLevel::Error:
      return "error";
    case LogLevel::Off:
      break;
  }
  return "off";
}

}  // namespace

void set_log_sink(LogSink sink) {
  g_sink.store(sink, std::memory_order_release);
}

void log_message(LogLevel level, std::string_view message) {
  if (level == LogLevel::Off) return;
  if (LogSink sink = g_sink.load(std::memory_order_acquire)) {
    sink(level, message);
    return;
  }
  if (level < stderr_threshold()) return;
  std::fprintf(stderr, "%s: %.*s\n", level_name(level), static_cast<int>(message.size()), message.data());
}

}  // namespace a3s::power
