// Reading the files named on the command line (evidence, certificates, roots).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace a3s::power::verify::cli {

inline constexpr size_t kMaxInputFileSize = 16u << 20;  // bytes; evidence and certificates are far smaller

// The whole file. Throws a3s::power::Error "io_error" naming `flag` and the path when it cannot be
// opened or read, or is larger than kMaxInputFileSize.
std::vector<uint8_t> read_file_bytes(const std::string& path, const std::string& flag);
std::string read_file_text(const std::string& path, const std::string& flag);

}  // namespace a3s::power::verify::cli
