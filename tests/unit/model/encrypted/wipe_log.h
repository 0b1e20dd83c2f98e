// Observes crypto::wipe through set_wipe_observer_for_testing: the last and the largest region
// wiped, and whether every wiped byte was zero afterwards.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace a3s::power::crypto::test {

struct WipeLog {
  static inline const void* last = nullptr;
  static inline size_t last_n = 0;
  static inline size_t largest = 0;
  static inline bool all_zero = true;
  static void observe(const void* p, size_t n) {
    last = p;
    last_n = n;
    largest = std::max(largest, n);
    const auto* b = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; ++i) all_zero = all_zero && b[i] == 0;
  }
  static void reset() {
    last = nullptr;
    last_n = 0;
    largest = 0;
    all_zero = true;
  }
};

}  // namespace a3s::power::crypto::test
