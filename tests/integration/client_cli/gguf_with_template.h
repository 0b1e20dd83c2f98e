// Test models with a chat template: a copy of a GGUF file with `tokenizer.chat_template` added.
//
// The key/value is inserted as the first metadata entry (GGUF spec: header = magic, version u32,
// tensor_count u64, metadata_kv_count u64, then the entries). Its encoded size is padded to a
// multiple of the file's alignment with a Jinja comment at the end of the template, so the tensor
// data section keeps its alignment and its offsets without re-encoding the rest of the file.
#pragma once

#include <string>

namespace a3s::power::client_cli {

// Writes `dst`: `src` (a GGUF file without a chat template, default alignment 32) plus
// tokenizer.chat_template = `jinja` (+ padding comment). Throws std::runtime_error on I/O errors.
void write_gguf_with_template(const std::string& src, const std::string& dst, const std::string& jinja);

}  // namespace a3s::power::client_cli
