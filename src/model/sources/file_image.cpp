// A plaintext model file read into a locked-memory image while it is hashed; see plaintext_image.h.
#include <algorithm>

#include "a3s/power/error.h"
#include "base/printable.h"
#include "crypto/sha256.h"
#include "model/sources/byte_reader.h"
#include "model/sources/plaintext_image.h"

namespace a3s::power::weights {

std::shared_ptr<PlaintextImage> read_file_image(const std::string& path, std::array<uint8_t, 32>& sha256_out) {
  FileByteReader reader(path);
  if (reader.size() == 0) throw Error(codes::kInvalidModel, "model file '" + printable_name(path) + "' is empty");
  if (reader.size() > SIZE_MAX) throw Error(codes::kInvalidModel, "model file is too large for this machine");
  const auto size = static_cast<size_t>(reader.size());
  constexpr size_t kChunk = size_t{8} << 20;
  crypto::Sha256 hasher;
  auto fill = [&](std::span<uint8_t> dst) {
    for (size_t off = 0; off < dst.size(); off += kChunk) {
      const std::span<uint8_t> part = dst.subspan(off, std::min(kChunk, dst.size() - off));
      reader.read(off, part);
      hasher.update(part);  // the image's bytes, not a transient buffer
    }
  };
  std::shared_ptr<PlaintextImage> image = make_locked_image(size, fill);
  sha256_out = hasher.finish();
  return image;
}

}  // namespace a3s::power::weights
