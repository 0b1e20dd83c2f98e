// The root a response may bring for itself: the ARK of the server's simulated SEV-SNP hierarchy
// (src/tee simulated provider). Accepted as a trust anchor only with allow_simulated, and only when it
// is what it says it is: self-signed and labelled simulated. A response can never make a verifier
// trust any other root.
#pragma once

#include <string>

namespace a3s::power::verify::attestation {

// True when `der` is exactly one X.509 certificate whose subject equals its issuer, whose signature
// verifies under its own public key, and whose subject has exactly one Organization (O) equal to
// kSimulatedOrganization (a3s/power/verify_attestation.h). Otherwise false, with `why` one line.
bool is_simulated_root(const std::string& der, std::string& why);

}  // namespace a3s::power::verify::attestation
