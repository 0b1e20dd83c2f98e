// Test helper: pulls REF into the store at HOME under NAME, so tests can race real processes.
// Usage: store_pull_helper HOME REF NAME. Exit 0 on success, 1 on failure (error code on stderr).
#include <cstdio>
#include <exception>

#include "a3s/power/error.h"
#include "store/store.h"

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  try {
    a3s::power::store::PullOptions o;
    o.name = argv[3];
    a3s::power::store::Store(argv[1]).pull(argv[2], o);
    return 0;
  } catch (const a3s::power::Error& e) {
    std::fprintf(stderr, "%s: %s\n", e.code().c_str(), e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exception: %s\n", e.what());
  }
  return 1;
}
