#include "store/model_name.h"

#include <cstdint>

#include "a3s/power/error.h"
#include "base/utf8.h"
#include "store/sha256_hasher.h"

namespace a3s::power::store {
namespace {

constexpr size_t kMaxPlainStemBytes = 200;

bool plain_byte(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_';
}

// Length of the UTF-8 sequence starting at s[i], or 0 when it is not a valid, shortest-form
// encoding of a scalar value.
size_t utf8_sequence_length(std::string_view s, size_t i) {
  const Utf8Char c = decode_utf8(s, i);
  return c.status == Utf8Status::kOk ? c.length : 0;
}

}  // namespace

std::string model_name_problem(std::string_view name) {
  if (name.empty()) return "model name is empty";
  if (name.size() > kMaxModelNameBytes) return "model name is longer than 256 bytes";
  for (size_t i = 0; i < name.size();) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7F) return "model name contains a control character";
    const size_t n = utf8_sequence_length(name, i);
    if (n == 0) return "model name is not valid UTF-8";
    i += n;
  }
  return {};
}

void validate_model_name(std::string_view name) {
  auto problem = model_name_problem(name);
  if (!problem.empty()) throw Error(codes::kInvalidArgument, problem);
}

std::string manifest_file_stem(std::string_view name) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(name.size() * 3);
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (plain_byte(c)) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0x0F]);
    }
  }
  if (out.size() <= kMaxPlainStemBytes) return out;
  return "%%sha256-" + sha256_hex(name);
}

}  // namespace a3s::power::store
