// Rendering untrusted names (file paths, key sources) for one-line messages: control characters
// become '?' and the text is cut at `max_bytes`, so a name can neither break a log line nor flood it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace a3s::power {

std::string printable_name(std::string_view s, size_t max_bytes = 256);

}  // namespace a3s::power
