// Text and token buffers for request data (prompts, responses, token ids) that are zeroed when they are
// released: on destruction, on wipe(), and when they grow (the old allocation is wiped before it is
// freed, wiping_allocator.h). Zeroing uses crypto::wipe (OPENSSL_cleanse; not elided) over the whole
// capacity, including std::string's inline small-string buffer.
//
// Moving a SecureString moves the bytes; the moved-from object's buffer is still wiped when it is
// destroyed. Copies are explicit (copy()) so that request text is not duplicated by accident.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "crypto/secure_memory.h"
#include "tee/wiping_allocator.h"

namespace a3s::power::tee {

using WipingString = std::basic_string<char, std::char_traits<char>, WipingAllocator<char>>;

class SecureString {
 public:
  SecureString() = default;
  explicit SecureString(std::string_view text) : s_(text.data(), text.size()) {}
  ~SecureString() { wipe(); }
  SecureString(SecureString&& o) noexcept : s_(std::move(o.s_)) { o.wipe(); }
  SecureString& operator=(SecureString&& o) noexcept {
    if (this != &o) {
      wipe();
      s_ = std::move(o.s_);
      o.wipe();
    }
    return *this;
  }
  SecureString(const SecureString&) = delete;
  SecureString& operator=(const SecureString&) = delete;

  SecureString copy() const { return SecureString(view()); }
  void append(std::string_view text) { s_.append(text.data(), text.size()); }
  std::string_view view() const { return {s_.data(), s_.size()}; }
  const char* data() const { return s_.data(); }
  size_t size() const { return s_.size(); }
  size_t capacity() const { return s_.capacity(); }
  bool empty() const { return s_.empty(); }

  // Zeroes the whole buffer (capacity, including the terminator) and empties the string.
  void wipe() noexcept {
    crypto::wipe(s_.data(), s_.capacity() + 1);
    s_.clear();
  }

 private:
  WipingString s_;
};

// Token ids of a request; freed (and reallocated) memory is wiped by the allocator.
class SecureTokens {
 public:
  SecureTokens() = default;
  ~SecureTokens() { wipe(); }
  SecureTokens(SecureTokens&&) noexcept = default;
  SecureTokens& operator=(SecureTokens&& o) noexcept {
    if (this != &o) {
      wipe();
      v_ = std::move(o.v_);
    }
    return *this;
  }
  SecureTokens(const SecureTokens&) = delete;
  SecureTokens& operator=(const SecureTokens&) = delete;

  void push_back(int32_t token) { v_.push_back(token); }
  const int32_t* data() const { return v_.data(); }
  size_t size() const { return v_.size(); }
  int32_t operator[](size_t i) const { return v_[i]; }

  // Zeroes the used and spare capacity and empties the array.
  void wipe() noexcept {
    if (v_.capacity() != 0) crypto::wipe(v_.data(), v_.capacity() * sizeof(int32_t));
    v_.clear();
  }

 private:
  std::vector<int32_t, WipingAllocator<int32_t>> v_;
};

}  // namespace a3s::power::tee
