#include "store/model_name.h"

#include <cstdint>

#include "a3s/power/error.h"
#include "base/percent_encode.h"
#include "base/utf8.h"
#include "store/sha256_hasher.h"

namespace a3s::power::store {
namespace {

constexpr size_t kMaxPlainStemBytes = 200;

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
  // Letters, digits, '.' and '_' as is; every other byte as %XX.
  std::string out = percent_encode(name, "._");
  if (out.size() <= kMaxPlainStemBytes) return out;
  return "%%sha256-" + sha256_hex(name);
}

}  // namespace a3s::power::store
