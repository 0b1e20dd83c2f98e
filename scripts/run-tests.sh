#!/usr/bin/env bash
# Runs every test (what `make test` and CI run), in three stages:
#   1. the Release build in build/: every unit, integration, end-to-end and load test, and the
#      official OpenAI Node client against the real server (CTest);
#   2. the libraries below the server (engine, kernels, GGUF, tokenizer, chat templates, model files,
#      crypto, TEE, verification) rebuilt with ASan + UBSan (build-asan/) and their unit tests; the
#      executables and the integration / end-to-end tests that drive them run in stage 1 only (skip
#      the stage with A3S_SKIP_ASAN=1);
#   3. every libFuzzer target (scripts/run-fuzz.sh list) for A3S_FUZZ_SECONDS each (default 8, about
#      a minute and a half for the eleven; skip with A3S_SKIP_FUZZ=1).
# Ends with a line "FAILED <where>: <test>" per failure, then "N passed, N failed" over all stages.
set -uo pipefail
cd "$(dirname "$0")/.."
JOBS="${JOBS:-$(nproc)}"
passed=0
failed=0
failures=()  # one line per failed test or stage, repeated at the very end

# Runs ctest on a build dir and adds its counts to the totals.
run_ctest() {
  local dir="$1"; shift
  local log; log="$(mktemp)"
  ctest --test-dir "$dir" --output-on-failure -j "$JOBS" --timeout 900 "$@" 2>&1 | tee "$log"
  local line total nfail
  line="$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1)"
  local name
  while IFS= read -r name; do
    failures+=("$dir: $name")
  done < <(sed -n '/^The following tests FAILED:/,$p' "$log" | grep -E '^[[:space:]]+[0-9]+ - ' |
           sed -E 's/^[[:space:]]+//')
  rm -f "$log"
  if [ -z "$line" ]; then
    echo "run-tests: no CTest summary from $dir" >&2
    failures+=("$dir: no CTest summary")
    failed=$((failed + 1))
    return
  fi
  total="$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")"
  nfail="$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<<"$line")"
  passed=$((passed + total - nfail))
  failed=$((failed + nfail))
}

echo "== stage 1: Release build, all tests (unit, integration, end to end, load, OpenAI Node client)"
run_ctest build

if [ "${A3S_SKIP_ASAN:-0}" != "1" ]; then
  echo "== stage 2: the libraries and their unit tests under ASan + UBSan"
  # Warnings are enforced by stage 1; sanitizer instrumentation only changes GCC's diagnostics.
  if cmake --preset debug-asan -DA3S_BUILD_SERVER=OFF -DA3S_BUILD_CLIS=OFF -DA3S_WERROR=OFF >/dev/null &&
     cmake --build build-asan -j "$JOBS"; then
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      run_ctest build-asan
  else
    echo "run-tests: ASan build failed" >&2
    failures+=("build-asan: the build failed")
    failed=$((failed + 1))
  fi
fi

if [ "${A3S_SKIP_FUZZ:-0}" != "1" ]; then
  echo "== stage 3: every parser of untrusted bytes under libFuzzer"
  for target in $(bash scripts/run-fuzz.sh list); do
    if bash scripts/run-fuzz.sh "$target" "${A3S_FUZZ_SECONDS:-8}"; then
      passed=$((passed + 1))
    else
      echo "run-tests: fuzzing $target found a failure" >&2
      failures+=("fuzz: $target")
      failed=$((failed + 1))
    fi
  done
fi

for f in "${failures[@]}"; do
  echo "FAILED $f"
done
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
