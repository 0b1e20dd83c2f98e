#include "crypto/aes_gcm.h"

#include <openssl/evp.h>

#include <climits>

#include "a3s/power/error.h"

namespace a3s::power::crypto {
namespace {

[[noreturn]] void fail(const char* what) {
  throw Error(codes::kInternal, std::string("AES-256-GCM: ") + what);
}

int checked_len(size_t n) {
  if (n > static_cast<size_t>(INT_MAX)) fail("input too large for one call");
  return static_cast<int>(n);
}

// One message through `ctx` up to (not including) the tag: the nonce, the AAD and the text. `enc` is 1
// to encrypt and 0 to decrypt; `what` names the failure of the text step.
void cipher_text(EVP_CIPHER_CTX* ctx, int enc, const GcmNonce& nonce, std::span<const uint8_t> aad,
                 std::span<const uint8_t> in, std::span<uint8_t> out, const char* what) {
  if (out.size() != in.size()) fail("output size differs from input size");
  int len = 0;
  if (EVP_CipherInit_ex(ctx, nullptr, nullptr, nullptr, nonce.data(), enc) != 1) fail("nonce setup failed");
  if (!aad.empty() && EVP_CipherUpdate(ctx, nullptr, &len, aad.data(), checked_len(aad.size())) != 1)
    fail("AAD failed");
  if (!in.empty()) {
    if (EVP_CipherUpdate(ctx, out.data(), &len, in.data(), checked_len(in.size())) != 1 ||
        static_cast<size_t>(len) != in.size())
      fail(what);
  }
}

}  // namespace

AesGcm::AesGcm(const ModelKey& key, Direction dir) : ctx_(EVP_CIPHER_CTX_new()), dir_(dir) {
  if (ctx_ == nullptr) fail("cannot allocate a cipher context");
  const int enc = dir == Direction::Seal ? 1 : 0;
  if (EVP_CipherInit_ex(ctx_, EVP_aes_256_gcm(), nullptr, nullptr, nullptr, enc) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(kGcmNonceBytes), nullptr) != 1 ||
      EVP_CipherInit_ex(ctx_, nullptr, nullptr, key.bytes().data(), nullptr, enc) != 1) {
    EVP_CIPHER_CTX_free(ctx_);
    ctx_ = nullptr;
    fail("key setup failed");
  }
}

AesGcm::~AesGcm() {
  EVP_CIPHER_CTX_free(ctx_);
}  // frees and cleanses the key schedule

AesGcm::AesGcm(AesGcm&& o) noexcept : ctx_(o.ctx_), dir_(o.dir_) {
  o.ctx_ = nullptr;
}

AesGcm AesGcm::clone() const {
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  if (c == nullptr || EVP_CIPHER_CTX_copy(c, ctx_) != 1) {
    EVP_CIPHER_CTX_free(c);
    fail("cannot copy the cipher context");
  }
  return AesGcm(c, dir_);
}

GcmTag AesGcm::seal(const GcmNonce& nonce, std::span<const uint8_t> aad, std::span<const uint8_t> in,
                    std::span<uint8_t> out) {
  if (dir_ != Direction::Seal) fail("seal on an open context");
  cipher_text(ctx_, 1, nonce, aad, in, out, "encryption failed");
  int len = 0;
  if (EVP_CipherFinal_ex(ctx_, out.data() + in.size(), &len) != 1 || len != 0) fail("finalisation failed");
  GcmTag tag{};
  if (EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_GCM_GET_TAG, static_cast<int>(tag.size()), tag.data()) != 1)
    fail("cannot read the tag");
  return tag;
}

bool AesGcm::open(const GcmNonce& nonce, std::span<const uint8_t> aad, std::span<const uint8_t> in,
                  std::span<uint8_t> out, const GcmTag& tag) {
  if (dir_ != Direction::Open) fail("open on a seal context");
  cipher_text(ctx_, 0, nonce, aad, in, out, "decryption failed");
  GcmTag expected = tag;  // the ctrl takes a non-const pointer
  if (EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_GCM_SET_TAG, static_cast<int>(expected.size()), expected.data()) !=
      1)
    fail("cannot set the tag");
  // The tag comparison inside EVP_CipherFinal_ex is constant-time.
  int len = 0;
  return EVP_CipherFinal_ex(ctx_, out.data() + in.size(), &len) == 1;
}

}  // namespace a3s::power::crypto
