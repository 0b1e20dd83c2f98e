#!/usr/bin/env bash
# Checks that the verifier is reproducible (docs/supply-chain.md "Reproducible verifier"): two builds
# of the `verifier` preset from this checkout, in two build directories, give a3s-power-verify with the
# same SHA-256.
#   A  the preset's own directory (build-verifier/, or $A3S_REPRO_DIR_A), built as the preset builds it:
#      through ccache when it is installed (objects compiled in other build directories may be reused);
#   B  a fresh directory outside the source tree, at another depth, built with ccache disabled (the
#      compiler runs for every object).
# Equal hashes show both that the binary does not depend on the build directory or on ccache, and
# that compiling every object again gives the same bytes. --strict disables ccache for A too (two
# complete compiles; for a release check).
# SOURCE_DATE_EPOCH is set to the commit's time for any tool that reads one (nothing in the build
# needs the time: no __DATE__ / __TIME__, no timestamps in build_info).
# Prints the two hashes; exit 0 when equal, 1 when they differ or a build fails.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${JOBS:-$(nproc)}"
strict=0
if [ "${1:-}" = "--strict" ]; then strict=1; fi

dir_a="${A3S_REPRO_DIR_A:-build-verifier}"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/a3s-repro-XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
dir_b="$scratch/b/verifier"

if git rev-parse --git-dir >/dev/null 2>&1; then
  SOURCE_DATE_EPOCH="$(git log -1 --format=%ct)"
  export SOURCE_DATE_EPOCH
fi

build() {  # build DIR CCACHE(ON|OFF)
  local dir="$1" ccache="$2"
  cmake --preset verifier -B "$dir" -DA3S_CCACHE="$ccache" >"$scratch/configure.log" 2>&1 ||
    { cat "$scratch/configure.log" >&2; return 1; }
  if [ "$ccache" = "OFF" ]; then
    CCACHE_DISABLE=1 cmake --build "$dir" -j "$JOBS" --target a3s-power-verify
  else
    cmake --build "$dir" -j "$JOBS" --target a3s-power-verify
  fi
}

if [ "$strict" = 1 ]; then build "$dir_a" OFF; else build "$dir_a" ON; fi
build "$dir_b" OFF

hash_a="$(sha256sum "$dir_a/bin/a3s-power-verify" | cut -d' ' -f1)"
hash_b="$(sha256sum "$dir_b/bin/a3s-power-verify" | cut -d' ' -f1)"
echo "reproducible: $hash_a  $dir_a/bin/a3s-power-verify"
echo "reproducible: $hash_b  $dir_b/bin/a3s-power-verify"
if [ "$hash_a" != "$hash_b" ]; then
  echo "check-reproducible: the two builds differ; first differing bytes:" >&2
  cmp -l "$dir_a/bin/a3s-power-verify" "$dir_b/bin/a3s-power-verify" | head -n 5 >&2 || true
  exit 1
fi
echo "check-reproducible: a3s-power-verify is byte-identical in both builds"
