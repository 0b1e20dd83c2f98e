// Spellings of the enumerated settings (include/a3s/power/settings.h).
#include "a3s/power/settings.h"

namespace a3s::power {
namespace {

template <typename E, size_t N>
std::optional<E> parse_one_of(std::string_view s, const E (&all)[N]) {
  for (E e : all)
    if (s == to_string(e)) return e;
  return std::nullopt;
}

}  // namespace

const char* to_string(WeightsMode m) {
  switch (m) {
    case WeightsMode::Resident: return "resident";
    case WeightsMode::Stream: return "stream";
    case WeightsMode::Auto: return "auto";
  }
  return "auto";
}

std::optional<WeightsMode> parse_weights_mode(std::string_view s) {
  static constexpr WeightsMode kAll[] = {WeightsMode::Resident, WeightsMode::Stream, WeightsMode::Auto};
  return parse_one_of(s, kAll);
}

const char* to_string(DecryptMode m) {
  switch (m) {
    case DecryptMode::File: return "file";
    case DecryptMode::Memory: return "memory";
    case DecryptMode::Stream: return "stream";
  }
  return "memory";
}

std::optional<DecryptMode> parse_decrypt_mode(std::string_view s) {
  static constexpr DecryptMode kAll[] = {DecryptMode::File, DecryptMode::Memory, DecryptMode::Stream};
  return parse_one_of(s, kAll);
}

const char* to_string(TeePolicy p) { return p == TeePolicy::kStrict ? "strict" : "development"; }

std::optional<TeePolicy> parse_tee_policy(std::string_view s) {
  static constexpr TeePolicy kAll[] = {TeePolicy::kStrict, TeePolicy::kDevelopment};
  return parse_one_of(s, kAll);
}

}  // namespace a3s::power
