#include "gguf_with_template.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

namespace a3s::power::client_cli {
namespace {

constexpr std::size_t kAlignment = 32;  // GGUF default (general.alignment absent)
constexpr uint32_t kTypeString = 8;     // GGUF metadata value type STRING

void put_u32(std::vector<uint8_t>& b, uint32_t v) {
  uint8_t raw[4];
  std::memcpy(raw, &v, 4);
  b.insert(b.end(), raw, raw + 4);
}
void put_u64(std::vector<uint8_t>& b, uint64_t v) {
  uint8_t raw[8];
  std::memcpy(raw, &v, 8);
  b.insert(b.end(), raw, raw + 8);
}
void put_string(std::vector<uint8_t>& b, const std::string& s) {
  put_u64(b, s.size());
  b.insert(b.end(), s.begin(), s.end());
}

}  // namespace

void write_gguf_with_template(const std::string& src, const std::string& dst, const std::string& jinja) {
  std::ifstream in(src, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + src);
  std::vector<uint8_t> file{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (file.size() < 24 || std::memcmp(file.data(), "GGUF", 4) != 0)
    throw std::runtime_error("not a GGUF file");

  const std::string key = "tokenizer.chat_template";
  const std::size_t fixed = 8 + key.size() + 4 + 8 + jinja.size();
  // "{#" + spaces + "#}": at least 4 bytes, rounding the entry up to the alignment.
  std::size_t pad = (kAlignment - (fixed + 4) % kAlignment) % kAlignment + 4;
  std::string value = jinja + "{#" + std::string(pad - 4, ' ') + "#}";

  std::vector<uint8_t> kv;
  put_string(kv, key);
  put_u32(kv, kTypeString);
  put_string(kv, value);
  if (kv.size() % kAlignment != 0) throw std::runtime_error("padding arithmetic");

  uint64_t n_kv = 0;
  std::memcpy(&n_kv, file.data() + 16, 8);
  ++n_kv;
  std::memcpy(file.data() + 16, &n_kv, 8);
  file.insert(file.begin() + 24, kv.begin(), kv.end());

  std::ofstream out(dst, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  if (!out) throw std::runtime_error("cannot write " + dst);
}

}  // namespace a3s::power::client_cli
