// What the attestation claims say about a served model (tee::AttestedModel), from its runtime
// description: the name it is served as and the digests measured when it was loaded. The server's
// GET /v1/attestation and RA-TLS certificates, and the embedded runtime's attestation, attest a
// model through it.
#pragma once

#include "runtime/model_runtime.h"
#include "tee/attestor.h"

namespace a3s::power::openai {

tee::AttestedModel attested_model(const runtime::ModelDescription& model);

}  // namespace a3s::power::openai
