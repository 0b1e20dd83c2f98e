#include "tokenizer/byte_encoding.h"

#include <array>
#include <vector>

#include "tokenizer/utf8.h"

namespace a3s::power::tok {
namespace {

bool maps_to_itself(int b) {
  return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

struct Tables {
  std::array<uint32_t, 256> cp{};
  std::array<std::string, 256> utf8;
  std::array<int16_t, 0x144> inverse{};  // every mapped code point is below U+0144

  Tables() {
    inverse.fill(-1);
    uint32_t next = 0x100;
    for (int b = 0; b < 256; ++b) cp[b] = maps_to_itself(b) ? uint32_t(b) : next++;
    for (int b = 0; b < 256; ++b) {
      append_utf8(utf8[b], cp[b]);
      inverse[cp[b]] = static_cast<int16_t>(b);
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

uint32_t byte_to_codepoint(uint8_t b) { return tables().cp[b]; }

const std::string& byte_to_utf8(uint8_t b) { return tables().utf8[b]; }

std::optional<uint8_t> codepoint_to_byte(uint32_t cp) {
  const auto& inv = tables().inverse;
  if (cp >= inv.size() || inv[cp] < 0) return std::nullopt;
  return static_cast<uint8_t>(inv[cp]);
}

std::string byte_encode(std::string_view raw) {
  std::string out;
  out.reserve(raw.size() * 2);
  for (char c : raw) out += byte_to_utf8(static_cast<uint8_t>(c));
  return out;
}

std::string byte_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (uint32_t cp : decode_utf8_lenient(text)) {
    if (auto b = codepoint_to_byte(cp)) {
      out.push_back(static_cast<char>(*b));
    } else {
      append_utf8(out, cp);
    }
  }
  return out;
}

}  // namespace a3s::power::tok
