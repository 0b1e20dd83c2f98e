// Wiping request data held in standard containers (the HTTP body, parsed JSON, rendered prompts, token
// vectors).
// Every function zeroes the whole allocation with crypto::wipe (OPENSSL_cleanse: not elided) —
// std::string's capacity including its inline buffer, a vector's spare capacity — and then empties
// the container. Memory a container released earlier (when it grew) is not covered: a container that
// grows while it holds request data uses the wiping allocator (wiping_allocator.h).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "crypto/secure_memory.h"

namespace a3s::power::privacy {

inline void wipe_string(std::string& s) noexcept {
  crypto::wipe(s.data(), s.capacity());  // capacity() excludes the terminator, which is already 0
  s.clear();
}

template <typename T>
void wipe_vector(std::vector<T>& v) noexcept {
  crypto::wipe_allocation(v);
  v.clear();
}

// Wipes every string value in `j` (object keys are immutable in nlohmann::json and are not wiped),
// then sets j to null. Iterative: a deeply nested body cannot exhaust the stack. Json is
// nlohmann::json or nlohmann::ordered_json.
template <typename Json>
void wipe_json(Json& j) {
  std::vector<Json*> todo{&j};
  while (!todo.empty()) {
    Json* v = todo.back();
    todo.pop_back();
    if (v->is_string()) {
      wipe_string(v->template get_ref<std::string&>());
    } else if (v->is_array() || v->is_object()) {
      for (auto& child : *v) todo.push_back(&child);
    }
  }
  j = nullptr;
}

// Wipes a string when the scope ends (also on exceptions).
class WipeOnExit {
 public:
  explicit WipeOnExit(std::string& s) : s_(s) {}
  ~WipeOnExit() { wipe_string(s_); }
  WipeOnExit(const WipeOnExit&) = delete;
  WipeOnExit& operator=(const WipeOnExit&) = delete;

 private:
  std::string& s_;
};

}  // namespace a3s::power::privacy
