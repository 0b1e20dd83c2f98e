// Memory figures of the running process, from Linux /proc/self/status.
#pragma once

#include <cstdint>

namespace a3s::power {

// Peak resident set size (VmHWM) in bytes; falls back to getrusage's ru_maxrss when /proc is not
// mounted. 0 when neither is available.
uint64_t peak_rss_bytes();
// Current resident set size (VmRSS) in bytes; 0 when unavailable.
uint64_t current_rss_bytes();
// This machine's physical memory in bytes (sysconf); 0 when unknown.
uint64_t physical_memory_bytes();
// Resets the peak (VmHWM) to the current resident set size (Linux ≥ 4.0: "5" written to
// /proc/self/clear_refs); false when that is not possible. A caller that resets keeps the maximum of
// the peaks it read before.
bool reset_peak_rss();

}  // namespace a3s::power
