// Reading and writing kernel attribute files (configfs, sysfs): whole-buffer reads with a size cap,
// single-write updates, never creating files. Errors: Error(codes::kAttestationFailed) naming the file's
// last path component and errno text.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <vector>

namespace a3s::power::tee {

inline constexpr size_t kMaxAttributeSize = 1 << 20;  // bytes; larger reads fail

// The file's bytes. A missing file throws unless `optional` is true (then std::nullopt).
std::optional<std::vector<uint8_t>> read_attribute(const std::filesystem::path& file, bool optional = false);

// Writes `bytes` with one write(2) and checks close(2) (configfs commits binary attributes on close).
void write_attribute(const std::filesystem::path& file, std::span<const uint8_t> bytes);

}  // namespace a3s::power::tee
