#!/usr/bin/env bash
# Builds the `fuzz` preset and runs one libFuzzer target.
#   scripts/run-fuzz.sh [SECONDS] [TARGET]   (default 60 seconds, target gguf)
# TARGET: gguf (the GGUF reader) or canonical_json (RFC 8785 canonical JSON, seeds in
# tests/fuzz/seeds/canonical_json/).
# GGUF seeds: the committed corrupt corpus (tests/data/gguf-corrupt), the small valid seeds
# (tests/fuzz/seeds) and, when present, copies of the shared test models and vocabularies made at
# run time into a scratch directory (never into the repository). New inputs found while fuzzing go
# to that scratch directory too. Exits non-zero on any crash, sanitizer report, leak or timeout;
# the reproducer is written to build-fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-60}"
TARGET="${2:-gguf}"
case "$TARGET" in
  gguf | canonical_json) ;;
  *) echo "run-fuzz: unknown target '$TARGET' (gguf, canonical_json)" >&2; exit 2 ;;
esac
JOBS="${JOBS:-2}"

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target "fuzz_${TARGET}" -j"${JOBS}"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/a3s-fuzz-${TARGET}.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/corpus" build-fuzz/artifacts
case "$TARGET" in
  gguf)
    cp tests/data/gguf-corrupt/*.gguf tests/fuzz/seeds/*.gguf "$WORK/corpus/"
    TESTDATA="${A3S_TESTDATA:-../shared/testdata}"
    for f in "$TESTDATA/models/stories260K.gguf" "$TESTDATA/models/tiny-llama-Q4_K_M.gguf" \
             "$TESTDATA/tokenizer/ggml-vocab-llama-spm.gguf"; do
      # Inputs longer than -max_len are cut by libFuzzer: the seeds contribute their metadata.
      if [ -f "$f" ]; then cp "$f" "$WORK/corpus/real-$(basename "$f")"; fi
    done
    MAX_LEN=65536
    ;;
  canonical_json)
    cp tests/fuzz/seeds/canonical_json/* "$WORK/corpus/"
    MAX_LEN=4096
    ;;
esac

# Not exec: the trap removes the scratch corpus when the fuzzer ends.
build-fuzz/bin/"fuzz_${TARGET}" "$WORK/corpus" \
  -max_total_time="${SECONDS_TO_RUN}" -max_len="${MAX_LEN}" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/
