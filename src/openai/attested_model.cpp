#include "openai/attested_model.h"

namespace a3s::power::openai {

tee::AttestedModel attested_model(const runtime::ModelDescription& model) {
  tee::AttestedModel m;
  m.name = model.name;
  m.sha256 = model.sha256;
  m.encrypted_sha256 = model.encrypted_sha256;
  m.signature_verified = model.signature == "verified";
  return m;
}

}  // namespace a3s::power::openai
