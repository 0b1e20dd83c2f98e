#!/usr/bin/env bash
# Builds the `fuzz` preset and runs libFuzzer targets (docs/fuzzing.md).
#   scripts/run-fuzz.sh TARGET|all [SECONDS]   (default 60 seconds per target)
#   scripts/run-fuzz.sh SECONDS [TARGET]       (the older order; default target gguf)
# TARGET is one of the names in TARGETS below (the executable is build-fuzz/bin/fuzz_TARGET); `all`
# runs each in turn, one at a time (one process each). `scripts/run-fuzz.sh list` prints the
# targets. An unknown target exits 2.
# Seeds: tests/fuzz/seeds/TARGET/ (the GGUF target also takes the committed corrupt corpus
# tests/data/gguf-corrupt and tests/fuzz/seeds/*.gguf), plus, for gguf, tdx_quote and jinja, copies of the
# shared test data made at run time into a scratch directory (never into the repository). New inputs
# found while fuzzing go to that scratch directory too; tests/fuzz/TARGET.dict is the dictionary when
# it exists. Exits non-zero on any crash, sanitizer report, leak or timeout; the reproducer is written
# to build-fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGETS="gguf tdx_quote canonical_json sse config tdx_collateral attestation_response sev_snp openai_request tokenizer jinja grammar json_schema"

if [ "${1:-}" = list ]; then
  echo "$TARGETS"; exit 0
fi
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then
  SECONDS_TO_RUN="$1"
  TARGET="${2:-gguf}"
else
  TARGET="${1:-gguf}"
  SECONDS_TO_RUN="${2:-60}"
fi
if ! [[ "$SECONDS_TO_RUN" =~ ^[0-9]+$ ]]; then
  echo "run-fuzz: SECONDS must be a whole number" >&2; exit 2
fi
if [ "$TARGET" = all ]; then
  SELECTED="$TARGETS"
elif [[ " $TARGETS " == *" $TARGET "* ]]; then
  SELECTED="$TARGET"
else
  echo "run-fuzz: unknown target '$TARGET' (all, ${TARGETS// /, })" >&2; exit 2
fi
JOBS="${JOBS:-2}"
TESTDATA="${A3S_TESTDATA:-../shared/testdata}"

cmake --preset fuzz >/dev/null
build_targets=()
for t in $SELECTED; do build_targets+=("fuzz_$t"); done
cmake --build --preset fuzz --target "${build_targets[@]}" -j"${JOBS}"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/a3s-fuzz.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p build-fuzz/artifacts

# Runs one target for SECONDS_TO_RUN seconds on a fresh scratch copy of its seeds.
run_one() {
  local target="$1" corpus="$WORK/$1" max_len=4096
  mkdir -p "$corpus"
  if [ -d "tests/fuzz/seeds/$target" ]; then cp "tests/fuzz/seeds/$target"/* "$corpus/"; fi
  case "$target" in
    gguf)
      cp tests/data/gguf-corrupt/*.gguf tests/fuzz/seeds/*.gguf "$corpus/"
      for f in "$TESTDATA/models/stories260K.gguf" "$TESTDATA/models/tiny-llama-Q4_K_M.gguf" \
               "$TESTDATA/tokenizer/ggml-vocab-llama-spm.gguf"; do
        # Inputs longer than -max_len are cut by libFuzzer: the seeds contribute their metadata.
        if [ -f "$f" ]; then cp "$f" "$corpus/real-$(basename "$f")"; fi
      done
      max_len=65536
      ;;
    tdx_quote)
      for f in "$TESTDATA"/attestation/tdx/*.dat; do
        if [ -f "$f" ]; then cp "$f" "$corpus/real-$(basename "$f")"; fi
      done
      max_len=8192
      ;;
    sev_snp) max_len=8192 ;;  # a 1184-byte report and a certificate table
    jinja)
      for f in "$TESTDATA"/chat-templates/*.jinja; do
        if [ -f "$f" ]; then cp "$f" "$corpus/real-$(basename "$f")"; fi
      done
      max_len=16384  # the real templates are up to a few KB
      ;;
    tokenizer) export A3S_FUZZ_VOCAB_DIR="$TESTDATA/tokenizer" ;;
  esac
  local dict=()
  if [ -f "tests/fuzz/$target.dict" ]; then dict=(-dict="tests/fuzz/$target.dict"); fi
  echo "== fuzz_$target for ${SECONDS_TO_RUN} s"
  local rc=0
  build-fuzz/bin/"fuzz_${target}" "$corpus" "${dict[@]}" \
    -max_total_time="${SECONDS_TO_RUN}" -max_len="${max_len}" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/${target}-" || rc=$?
  # The corpus the campaign ended with (for docs/fuzzing.md's table).
  echo "fuzz_$target: corpus $(find "$corpus" -type f | wc -l) files, $(cat "$corpus"/* | wc -c) bytes"
  return "$rc"
}

status=0
for t in $SELECTED; do
  if ! run_one "$t"; then
    echo "run-fuzz: fuzz_$t found a failure (reproducer in build-fuzz/artifacts/)" >&2
    status=1
  fi
done
exit "$status"
