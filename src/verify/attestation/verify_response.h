// The checks of verify_attestation (a3s/power/verify_attestation.h) on one response body, shared by
// verify_attestation and verify_ratls_certificate.
#pragma once

#include <string_view>

#include "a3s/power/verify_attestation.h"

namespace a3s::power::verify::attestation {

// Runs checks 1–11 in order. With check_model false, checks 5 and 6 (model name and digest) only
// report the claimed model. `nonce` null (a saved response checked offline, e.g. for a receipt): check 3
// only requires claims.nonce to equal report_data[0..32], and AttestationResult::nonce is the claims'.
// Never throws for anything in the response.
AttestationResult verify_response(std::string_view response_json, const Nonce* nonce,
                                  const AttestationPolicy& policy, bool check_model);

}  // namespace a3s::power::verify::attestation
