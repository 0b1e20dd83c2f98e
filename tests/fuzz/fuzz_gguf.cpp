// libFuzzer target for the GGUF reader: any byte string must either parse or be rejected with
// a3s::power::Error (one line). Crashes, sanitizer reports, leaks and any other exception are bugs.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "a3s/power/error.h"
#include "model/gguf/gguf_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace a3s::power;
  try {
    auto f = gguf::File::from_memory(std::span<const uint8_t>(data, size), "fuzz-input");
    // Touch what a loader would: every key through the typed getters, every tensor's bytes.
    for (const auto& key : f->keys()) {
      try {
        (void)f->get_string(key);
      } catch (const Error&) {
      }
      try {
        (void)f->get_f64(key);
      } catch (const Error&) {
      }
      try {
        (void)f->get_i64_array(key);
      } catch (const Error&) {
      }
      try {
        (void)f->get_string_array(key);
      } catch (const Error&) {
      }
    }
    volatile uint8_t sink = 0;
    for (const auto& t : f->tensors()) {
      if (t.size_bytes > 0) {
        const uint8_t* p = f->tensor_data(t);
        sink = sink ^ p[0] ^ p[t.size_bytes - 1];
      }
    }
    (void)sink;
  } catch (const Error& e) {
    const std::string msg = e.what();
    if (msg.find('\n') != std::string::npos) __builtin_trap();  // errors must be one line
  }
  return 0;
}
