// The enumerated settings shared by the configuration (HCL file, environment, CLI flags) and the
// layers that act on them. Each is parsed once, where it is read (src/config for the server, the
// command's flags for the CLI); an unknown spelling is an error there, never a silent default.
// Spellings are lowercase and exact ("Stream" is not "stream").
#pragma once

#include <optional>
#include <string_view>

namespace a3s::power {

// Where model weights live while the model is loaded (`weights`, --weights; docs/layer-streaming.md).
enum class WeightsMode {
  Resident,  // the GGUF file is memory-mapped
  Stream,    // block tensors are read from storage when used (two reusable buffers, prefetch)
  Auto,      // Stream when the model does not fit memory_budget, else Resident
};
// "resident", "stream", "auto".
const char* to_string(WeightsMode m);
std::optional<WeightsMode> parse_weights_mode(std::string_view s);

// How an encrypted model is decrypted (`model_decrypt`, --decrypt; docs/encrypted-weights.md):
//   File    into a sealed memfd
//   Memory  into locked RAM
//   Stream  tensor by tensor while layers stream (no whole plaintext image)
enum class DecryptMode { File, Memory, Stream };
// "file", "memory", "stream".
const char* to_string(DecryptMode m);
std::optional<DecryptMode> parse_decrypt_mode(std::string_view s);

// How the TEE layer treats a machine without attestation hardware (`tee_policy`; docs/tee.md):
//   kStrict       no evidence provider found → startup error; simulated evidence is never produced.
//   kDevelopment  no evidence provider found → the simulated provider (clearly labelled evidence).
enum class TeePolicy { kStrict, kDevelopment };
// "strict", "development".
const char* to_string(TeePolicy p);
std::optional<TeePolicy> parse_tee_policy(std::string_view s);

}  // namespace a3s::power
