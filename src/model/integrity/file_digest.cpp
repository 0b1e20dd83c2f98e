#include "model/integrity/file_digest.h"

#include <algorithm>
#include <vector>

#include "model/sources/byte_reader.h"

namespace a3s::power::weights {

crypto::Sha256Digest file_sha256(const std::string& path) {
  FileByteReader reader(path);
  crypto::Sha256 hasher;
  std::vector<uint8_t> buf(size_t{4} << 20);
  for (uint64_t off = 0; off < reader.size();) {
    const auto n = static_cast<size_t>(std::min<uint64_t>(buf.size(), reader.size() - off));
    reader.read(off, std::span(buf.data(), n));
    hasher.update(std::span<const uint8_t>(buf.data(), n));
    off += n;
  }
  return hasher.finish();
}

}  // namespace a3s::power::weights
