#include "server/ratls_identity.h"

#include <openssl/ssl.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "a3s/power/error.h"
#include "base/hex.h"
#include "tee/ratls_certificate.h"
#include "a3s/power/error.h"

namespace a3s::power::server {

RatlsIdentity::RatlsIdentity(std::shared_ptr<Attestor> attestor,
                             std::shared_ptr<runtime::ModelRegistry> registry, std::chrono::seconds lifetime)
    : attestor_(std::move(attestor)), registry_(std::move(registry)), lifetime_(lifetime) {}

std::shared_ptr<TlsIdentity> RatlsIdentity::issue() {
  const auto models = registry_->list();
  if (models.empty()) throw Error(codes::kAttestationFailed, "RA-TLS needs a served model to attest");
  auto runtime = registry_->acquire(models.front().name);
  const auto evidence = [&](const crypto::Sha256Digest& spki) {
    return attestor_->attest(spki, runtime->description(), spki).dump();
  };
  tee::RatlsCertificate cert = tee::issue_ratls_certificate(lifetime_, evidence);

  auto id = std::make_shared<TlsIdentity>();
  SSL_CTX* ctx = id->context.native_handle();
  const bool ok = SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) == 1 &&
                  SSL_CTX_use_certificate(ctx, cert.certificate.get()) == 1 &&
                  SSL_CTX_use_PrivateKey(ctx, cert.key.get()) == 1 && SSL_CTX_check_private_key(ctx) == 1 &&
                  SSL_CTX_set_num_tickets(ctx, 0) == 1;
  if (!ok) throw Error(codes::kInternal, "RA-TLS: the TLS context refused the certificate");
  SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  id->spki_sha256 = cert.spki_sha256;

  const auto margin = std::min<std::chrono::system_clock::duration>(
      std::chrono::duration_cast<std::chrono::milliseconds>(lifetime_) / 10, std::chrono::hours(1));
  renew_at_ = cert.not_after - margin;
  not_after_ = cert.not_after;
  spdlog::info("ratls: new certificate for SPKI SHA-256 {} (valid {} s)", to_hex(cert.spki_sha256),
               lifetime_.count());
  return id;  // `cert` (its key among it) is freed here; the context holds its own references
}

std::shared_ptr<TlsIdentity> RatlsIdentity::current() {
  std::lock_guard lk(mu_);
  const auto now = std::chrono::system_clock::now();
  if (!current_ || now >= renew_at_) {
    try {
      current_ = issue();
    } catch (const std::exception& e) {
      if (!current_ || now >= not_after_) {
        current_.reset();
        throw;
      }
      spdlog::warn("ratls: renewing the certificate failed ({}); the current one is kept until it expires",
                   e.what());
    }
  }
  return current_;
}

}  // namespace a3s::power::server
