// `a3s-power sign --key K --model F [--out SIG]`: sign a plaintext GGUF model
// (docs/model-integrity.md).
//
// K is a signing key file written by `keygen --type ed25519` (64 hex digits: the private seed). The
// signature covers "A3S-POWER-MODEL-SIG-V1\0" || SHA-256(F) and is written as 128 hex digits and a
// newline to SIG (default `F.sig`; replaced atomically, mode 0644); the SIG path is printed. An
// encrypted F is refused: sign the plaintext before encrypting it and write the signature next to
// the encrypted file (`--out x.enc.sig`). Key material is never printed. Errors exit 2.
#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include "a3s/power/error.h"
#include "a3s-power/command.h"
#include "a3s-power/output_file.h"
#include "base/printable.h"
#include "model/encrypted/key_provider.h"
#include "model/integrity/model_signature.h"
#include "model/sources/byte_reader.h"
#include "model/integrity/file_digest.h"
#include "model/model_file.h"

namespace a3s::power::cli {
namespace {

struct SignOptions {
  std::string key_file, model, out;
};

void require_gguf(const std::string& path) {
  weights::FileByteReader reader(path);
  std::array<uint8_t, 4> magic{};
  if (reader.size() < magic.size()) throw Error(codes::kInvalidArgument, "'" + printable_name(path) + "' is not a GGUF file");
  reader.read(0, magic);
  if (magic != std::array<uint8_t, 4>{'G', 'G', 'U', 'F'})
    throw Error(codes::kInvalidArgument, "'" + printable_name(path) + "' is not a GGUF file");
}

void run_sign(const SignOptions& o) {
  const std::string shown = printable_name(o.model);
  if (weights::is_encrypted_model_file(o.model)) {
    throw Error(codes::kInvalidArgument,
                "'" + shown + "' is an encrypted model: sign the plaintext GGUF before encrypting it, e.g. "
                "sign --model plain.gguf --out " + shown + ".sig");
  }
  require_gguf(o.model);
  const crypto::Sha256Digest digest = weights::file_sha256(o.model);
  crypto::Ed25519Signature sig{};
  {
    // A signing key file has the text form of a model key file (64 hex digits); the seed stays in
    // locked memory and is wiped when `seed` goes out of scope.
    const crypto::ModelKey seed = crypto::file_key_provider(o.key_file)->fetch();
    sig = crypto::sign_model_digest(seed.bytes(), digest);
  }
  const std::string out = o.out.empty() ? crypto::signature_path_for(o.model) : o.out;
  const std::string text = crypto::signature_file_text(sig);
  OutputFile file(out);
  file.write(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  file.commit(0644);
  std::printf("%s\n", printable_name(out).c_str());
}

}  // namespace

void add_sign_command(CLI::App& root) {
  auto opts = std::make_shared<SignOptions>();
  CLI::App* sub = root.add_subcommand("sign", "Sign a plaintext GGUF model (Ed25519; writes MODEL.sig)");
  sub->add_option("--key,-k", opts->key_file, "Signing key file (from keygen --type ed25519)")->required();
  sub->add_option("--model,-m", opts->model, "Plaintext GGUF model file")->required();
  sub->add_option("--out,-o", opts->out, "Signature file to write (default: MODEL.sig)");
  sub->callback([opts] { run_sign(*opts); });
}

}  // namespace a3s::power::cli
