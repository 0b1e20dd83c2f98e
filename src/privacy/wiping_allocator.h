// An allocator that wipes memory before it is released (crypto::wipe, i.e. OPENSSL_cleanse: the zeroing
// is not elided by the compiler). Containers that use it leave no copy of their contents in freed heap
// memory when they grow (reallocation) or are destroyed. It does not wipe memory a container keeps
// inline (std::string's small-string buffer): wipe it with wipe_string (wipe_text.h).
#pragma once

#include <cstddef>
#include <new>

#include "crypto/secure_memory.h"

namespace a3s::power::privacy {

template <typename T>
struct WipingAllocator {
  using value_type = T;

  WipingAllocator() noexcept = default;
  template <typename U>
  WipingAllocator(const WipingAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept {
    crypto::wipe(p, n * sizeof(T));
    ::operator delete(p);
  }

  template <typename U>
  bool operator==(const WipingAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace a3s::power::privacy
