#include "weights/integrity.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "a3s/power/error.h"
#include "core/printable.h"
#include "crypto/model_signature.h"

namespace a3s::power::weights {
namespace {

// The .sig file's text, at most kMaxSignatureFileBytes (+1 to notice a longer file).
std::string read_signature_file(const std::string& sig_path, const std::string& subject) {
  const std::string shown = printable_name(sig_path);
  const int fd = ::open(sig_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT)
      throw Error(codes::kIntegrity, subject + ": signature file '" + shown + "' is missing (model_signing_key is set)");
    throw Error(codes::kIntegrity, subject + ": cannot read signature file '" + shown + "': " + std::strerror(err));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw Error(codes::kIntegrity, subject + ": signature file '" + shown + "' is not a regular file");
  std::string text(crypto::kMaxSignatureFileBytes + 1, '\0');
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      throw Error(codes::kIntegrity, subject + ": cannot read signature file '" + shown + "': " + std::strerror(err));
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  text.resize(done);
  return text;
}

}  // namespace

std::string integrity_subject(const std::string& path, const IntegrityOptions& opts) {
  if (!opts.model_name.empty()) return "model '" + printable_name(opts.model_name) + "'";
  return "model file '" + printable_name(path) + "'";
}

IntegrityResult check_integrity(const std::string& path, const crypto::Sha256Digest& plaintext_sha256,
                                const IntegrityOptions& opts) {
  IntegrityResult r;
  r.sha256 = crypto::to_hex(plaintext_sha256);
  const std::string subject = integrity_subject(path, opts);
  if (opts.pin && *opts.pin != plaintext_sha256) {
    throw Error(codes::kIntegrity, subject + ": SHA-256 " + r.sha256 + " does not match its pin sha256:" +
                                       crypto::to_hex(*opts.pin));
  }
  if (opts.signing_key) {
    const std::string sig_path = crypto::signature_path_for(path);
    const std::string text = read_signature_file(sig_path, subject);
    const std::optional<crypto::Ed25519Signature> sig = crypto::parse_signature_file_text(text);
    if (!sig) {
      throw Error(codes::kIntegrity, subject + ": signature file '" + printable_name(sig_path) +
                                         "' is malformed (expected 128 hex digits)");
    }
    if (!crypto::verify_model_digest(*opts.signing_key, plaintext_sha256, *sig)) {
      throw Error(codes::kIntegrity, subject + ": the signature in '" + printable_name(sig_path) +
                                         "' does not verify with model_signing_key (SHA-256 " + r.sha256 + ")");
    }
    r.signature_verified = true;
  }
  return r;
}

}  // namespace a3s::power::weights
