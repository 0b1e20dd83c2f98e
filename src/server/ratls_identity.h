// The RA-TLS listener's identity (docs/ra-tls.md): a key and certificate made inside the TEE
// (tee/ratls_certificate.h) whose evidence is the GET /v1/attestation body for the served model whose
// name sorts first, with claims.nonce = claims.tls.spki_sha256 = SHA-256 of the certificate's
// SubjectPublicKeyInfo.
//
// Rotation: current() issues a new key, certificate and evidence once the current one is within
// min(lifetime / 10, 1 h) of its notAfter (checked lazily, as each connection is accepted); new
// connections get the new certificate, open ones keep theirs, and the old key is freed with the last
// connection that uses it. A renewal that fails keeps the old certificate until it expires, then
// current() throws (connections are refused: fail closed).
//
// TLS settings: TLS 1.3 only, no client certificates, no session tickets or session cache (every
// connection presents the certificate in a full handshake).
#pragma once

#include <chrono>
#include <memory>
#include <mutex>

#include "server/attestation.h"
#include "server/http_server.h"
#include "runtime/model_registry.h"

namespace a3s::power::server {

class RatlsIdentity final : public TlsIdentitySource {
 public:
  RatlsIdentity(std::shared_ptr<Attestor> attestor, std::shared_ptr<runtime::ModelRegistry> registry,
                std::chrono::seconds lifetime);

  // The identity for a connection accepted now, renewed first when due. Thread-safe. Throws
  // Error(codes::kAttestationFailed) / Error(codes::kInternal) when no valid identity can be made.
  std::shared_ptr<TlsIdentity> current() override;

 private:
  std::shared_ptr<TlsIdentity> issue();

  std::shared_ptr<Attestor> attestor_;
  std::shared_ptr<runtime::ModelRegistry> registry_;
  std::chrono::seconds lifetime_;
  std::mutex mu_;
  std::shared_ptr<TlsIdentity> current_;
  std::chrono::system_clock::time_point renew_at_{};
  std::chrono::system_clock::time_point not_after_{};
};

}  // namespace a3s::power::server
