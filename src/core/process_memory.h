// Memory figures of the running process, from Linux /proc/self/status.
#pragma once

#include <cstdint>

namespace a3s::power {

// Peak resident set size (VmHWM) in bytes; falls back to getrusage's ru_maxrss when /proc is not
// mounted. 0 when neither is available.
uint64_t peak_rss_bytes();
// Current resident set size (VmRSS) in bytes; 0 when unavailable.
uint64_t current_rss_bytes();

}  // namespace a3s::power
