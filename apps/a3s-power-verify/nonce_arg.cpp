#include "a3s-power-verify/nonce_arg.h"

#include <openssl/rand.h>

#include "a3s/power/error.h"
#include "a3s-power-verify/hex_arg.h"

namespace a3s::power::verify::cli {

Nonce nonce_from(const std::string& hex) {
  if (!hex.empty()) return parse_hex_array<32>(hex, "--nonce");
  Nonce nonce{};
  if (RAND_bytes(nonce.data(), static_cast<int>(nonce.size())) != 1)
    throw Error(codes::kInternal, "cannot generate a nonce: RAND_bytes failed");
  return nonce;
}

}  // namespace a3s::power::verify::cli
