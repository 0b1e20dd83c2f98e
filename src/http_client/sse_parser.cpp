#include "http_client/sse_parser.h"

#include <algorithm>

#include "a3s/power/error.h"

namespace a3s::power::client {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

void SseParser::feed(std::string_view chunk, const Handler& on_event) {
  if (at_stream_start_) {
    // Hold back up to three leading bytes until we know whether they are a byte order mark.
    while (!chunk.empty() && bom_prefix_.size() < kBom.size()) {
      bom_prefix_ += chunk.front();
      chunk.remove_prefix(1);
      if (kBom.substr(0, bom_prefix_.size()) != bom_prefix_) break;
    }
    if (bom_prefix_ == kBom) {
      at_stream_start_ = false;
      bom_prefix_.clear();
    } else if (kBom.substr(0, bom_prefix_.size()) != bom_prefix_) {
      at_stream_start_ = false;
      std::string held = std::move(bom_prefix_);
      bom_prefix_.clear();
      feed(held, on_event);
    } else {
      return;  // still a possible BOM prefix and the chunk is used up
    }
  }

  while (!chunk.empty()) {
    if (after_cr_) {
      after_cr_ = false;
      if (chunk.front() == '\n') {
        chunk.remove_prefix(1);
        continue;
      }
    }
    const std::size_t end = chunk.find_first_of("\r\n");
    if (end == std::string_view::npos) {
      if (line_.size() + chunk.size() > max_bytes_) {
        throw Error(codes::kServerError, "invalid event stream from the server: line too long");
      }
      line_.append(chunk);
      return;
    }
    if (line_.size() + end > max_bytes_) {
      throw Error(codes::kServerError, "invalid event stream from the server: line too long");
    }
    after_cr_ = chunk[end] == '\r';
    if (line_.empty()) {
      process_line(chunk.substr(0, end), on_event);
    } else {
      line_.append(chunk.substr(0, end));
      std::string line = std::move(line_);
      line_.clear();
      process_line(line, on_event);
    }
    chunk.remove_prefix(end + 1);
  }
}

std::vector<SseEvent> SseParser::feed(std::string_view chunk) {
  std::vector<SseEvent> events;
  feed(chunk, [&events](SseEvent&& e) { events.push_back(std::move(e)); });
  return events;
}

bool SseParser::has_partial_event() const {
  return !line_.empty() || !data_.empty() || has_fields_ || (at_stream_start_ && !bom_prefix_.empty());
}

void SseParser::process_line(std::string_view line, const Handler& on_event) {
  if (line.empty()) {
    dispatch(on_event);
    return;
  }
  if (line.front() == ':') return;  // comment (e.g. a keep-alive)
  std::string_view field = line, value;
  if (const std::size_t colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  has_fields_ = true;
  if (field == "data") {
    if (data_.size() + value.size() + 1 > max_bytes_) {
      throw Error(codes::kServerError, "invalid event stream from the server: event too large");
    }
    data_.append(value);
    data_ += '\n';
  } else if (field == "event") {
    type_.assign(value);
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) last_id_.assign(value);
  } else if (field == "retry") {
    if (all_digits(value) && value.size() <= 18) retry_ms_ = std::stoull(std::string(value));
  }
  // Any other field is ignored.
}

void SseParser::dispatch(const Handler& on_event) {
  has_fields_ = false;
  if (data_.empty()) {
    type_.clear();
    return;
  }
  SseEvent e;
  data_.pop_back();  // the newline appended after the last data line
  e.data = std::move(data_);
  e.type = type_.empty() ? std::string("message") : std::move(type_);
  e.last_event_id = last_id_;
  e.retry_ms = retry_ms_;
  data_.clear();
  type_.clear();
  on_event(std::move(e));
}

}  // namespace a3s::power::client
