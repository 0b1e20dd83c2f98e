// Lowercase hex encoding of evidence fields, for reports and messages.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace a3s::power::verify {

// Two lowercase hex digits per byte, in the given byte order.
std::string to_hex(std::span<const uint8_t> bytes);

}  // namespace a3s::power::verify
