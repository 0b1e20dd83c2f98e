// The REPORT_DATA / REPORTDATA field of raw evidence, read from the bytes themselves (not from what
// the response says about them): SEV-SNP ATTESTATION_REPORT offset 0x50 (AMD 56860), TDX quote TD
// report body offset 520 (Intel TDX DCAP Quoting Library API).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace a3s::power::verify::attestation {

// std::nullopt, with `error` one line, when the bytes are neither a parseable SEV-SNP report nor a
// parseable TDX quote.
std::optional<std::array<uint8_t, 64>> evidence_report_data(std::span<const uint8_t> evidence,
                                                            std::string& error);

}  // namespace a3s::power::verify::attestation
