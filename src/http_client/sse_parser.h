// Server-Sent Events: an incremental parser for `text/event-stream` bodies.
//
// Spec: WHATWG HTML Living Standard, "Server-sent events" § "Parsing an event stream" and
// "Interpreting an event stream". Bytes arrive in arbitrary chunks (a line, a CRLF pair or a UTF-8
// sequence may be split between two chunks; one chunk may hold many events). Rules implemented:
//   - lines end with CRLF, LF or CR (a CR at the end of one chunk and an LF at the start of the
//     next are one line ending);
//   - a UTF-8 byte order mark at the very start of the stream is skipped;
//   - an empty line dispatches the pending event; a line starting with ':' is a comment;
//   - "field:value" (one leading space of the value removed) or "field" alone (empty value);
//     fields `data` (appended, joined with "\n"), `event`, `id` (ignored if it contains NUL) and
//     `retry` (ASCII digits only) are used, any other field is ignored;
//   - an event whose data buffer is empty is not dispatched (its type is reset);
//   - at the end of the stream an unterminated event is discarded (see has_partial_event()).
// Bytes are passed through unchanged (no UTF-8 validation): the payload is JSON that the caller
// parses anyway.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace a3s::power::client {

struct SseEvent {
  std::string type = "message";      // the `event` field, default "message"
  std::string data;                  // `data` lines joined with "\n" (no trailing newline)
  std::string last_event_id;         // the last `id` seen in the stream so far ("" if none)
  std::optional<uint64_t> retry_ms;  // the last valid `retry` seen in the stream, milliseconds
};

class SseParser {
 public:
  // Largest line and largest event (data bytes) accepted; beyond it feed() throws
  // Error(codes::kServerError) instead of growing without bound.
  static constexpr std::size_t kDefaultMaxBytes = 16u << 20;

  using Handler = std::function<void(SseEvent&& event)>;

  explicit SseParser(std::size_t max_bytes = kDefaultMaxBytes) : max_bytes_(max_bytes) {}

  // Consumes the next chunk of the body and calls `on_event` for every event it completes, in
  // order. An exception thrown by `on_event` propagates; the parser is then in an unspecified
  // (but valid) state.
  void feed(std::string_view chunk, const Handler& on_event);

  // Convenience: the events completed by `chunk`.
  std::vector<SseEvent> feed(std::string_view chunk);

  // True when bytes of an event that has not been terminated by an empty line are pending (a
  // stream ending now would lose them).
  bool has_partial_event() const;

 private:
  void process_line(std::string_view line, const Handler& on_event);
  void dispatch(const Handler& on_event);

  std::size_t max_bytes_;
  std::string line_;             // current unterminated line
  bool after_cr_ = false;        // the previous chunk ended with CR (skip one leading LF)
  bool at_stream_start_ = true;  // BOM check pending
  std::string bom_prefix_;       // leading bytes that may still turn out to be a BOM
  std::string data_;
  std::string type_;
  bool has_fields_ = false;  // any field line since the last dispatch
  std::string last_id_;
  std::optional<uint64_t> retry_ms_;
};

}  // namespace a3s::power::client
