// libFuzzer target for the SSE parser of the HTTP client (http_client/sse_parser.h): the first byte
// of the input picks up to 8 split points, the rest is the event stream. Feeding the stream whole and
// feeding it in the chunks the split points make must give the same events in the same order (a
// line, a CRLF pair or a BOM may be cut anywhere), and the same has_partial_event() at the end. The
// only exception allowed is Error (a line or event over the size limit, here 4 KiB), and then in both
// feeds. Seeds: tests/fuzz/seeds/sse/; dictionary: tests/fuzz/sse.dict.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "a3s/power/error.h"
#include "http_client/sse_parser.h"

namespace {

using a3s::power::client::SseEvent;
using a3s::power::client::SseParser;

constexpr std::size_t kMaxBytes = 4096;

struct Outcome {
  std::vector<SseEvent> events;
  bool refused = false;
  bool partial = false;
};

Outcome run(std::string_view stream, const std::vector<std::size_t>& cuts) {
  Outcome out;
  SseParser parser(kMaxBytes);
  const SseParser::Handler collect = [&](SseEvent&& e) { out.events.push_back(std::move(e)); };
  try {
    std::size_t at = 0;
    for (std::size_t cut : cuts) {
      parser.feed(stream.substr(at, cut - at), collect);
      at = cut;
    }
    parser.feed(stream.substr(at), collect);
    out.partial = parser.has_partial_event();
  } catch (const a3s::power::Error& e) {
    if (e.what()[0] == '\0') __builtin_trap();
    out.refused = true;
  }
  return out;
}

bool same(const SseEvent& a, const SseEvent& b) {
  return a.type == b.type && a.data == b.data && a.last_event_id == b.last_event_id && a.retry_ms == b.retry_ms;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
  // Split points derived from the first byte: a linear congruential walk, increasing offsets.
  std::vector<std::size_t> cuts;
  uint32_t state = data[0];
  std::size_t at = 0;
  for (int i = 0; i < 8 && at < stream.size(); ++i) {
    state = state * 1103515245u + 12345u;
    at += 1 + (state >> 16) % 17;
    if (at < stream.size()) cuts.push_back(at);
  }
  const Outcome whole = run(stream, {});
  const Outcome split = run(stream, cuts);
  if (whole.refused != split.refused) __builtin_trap();
  if (whole.refused) return 0;  // events before the refusal may differ with the chunking
  if (whole.partial != split.partial) __builtin_trap();
  if (whole.events.size() != split.events.size()) __builtin_trap();
  for (std::size_t i = 0; i < whole.events.size(); ++i)
    if (!same(whole.events[i], split.events[i])) __builtin_trap();
  return 0;
}
