// Locked-memory plaintext image ("memory" decrypt mode); see plaintext_image.h.
#include "crypto/secure_memory.h"
#include "model/sources/plaintext_image.h"

namespace a3s::power::weights {
namespace {

class LockedImage final : public PlaintextImage {
 public:
  explicit LockedImage(crypto::LockedBuffer buf) : buf_(std::move(buf)) {}
  std::span<const uint8_t> bytes() const override { return buf_.span(); }
  bool locked() const override { return buf_.locked(); }

 private:
  crypto::LockedBuffer buf_;  // wiped on destruction
};

}  // namespace

std::shared_ptr<PlaintextImage> make_locked_image(size_t size, const ImageFill& fill) {
  crypto::LockedBuffer buf(size, "decrypted model");
  fill(buf.span());  // on a throw, ~LockedBuffer wipes what was written
  buf.protect_read_only();
  return std::make_shared<LockedImage>(std::move(buf));
}

}  // namespace a3s::power::weights
