#!/usr/bin/env bash
# Runs every test (what `make test` and CI run), in four stages:
#   1. the Release build in build/: every unit, integration, end-to-end and load test, and the
#      official OpenAI Node client against the real server (CTest; skip with A3S_SKIP_RELEASE=1);
#   2. the libraries below the server (engine, kernels, GGUF, tokenizer, chat templates, model files,
#      crypto, TEE, verification) rebuilt with ASan + UBSan (build-asan/) and their unit tests; the
#      executables and the integration / end-to-end tests that drive them run in stage 1 only (skip
#      the stage with A3S_SKIP_ASAN=1);
#   3. every libFuzzer target (scripts/run-fuzz.sh list) for A3S_FUZZ_SECONDS each (default 8, about
#      a minute and a half for the eleven; skip with A3S_SKIP_FUZZ=1);
#   4. the other build profiles (README "Build profiles"): embedded, tee-minimal and verifier, each
#      configured from its preset and built for its shipped binaries and the profile test only (ccache
#      reuses stage 1's objects), the profile test of each, the supply-chain report of all four with its
#      hardening and contract checks (scripts/supply-chain.py --check, written to a scratch directory),
#      and the reproducible verifier (scripts/check-reproducible.sh); skip with A3S_SKIP_PROFILES=1.
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

if [ "${A3S_SKIP_RELEASE:-0}" != "1" ]; then
  echo "== stage 1: Release build, all tests (unit, integration, end to end, load, OpenAI Node client)"
  run_ctest build
fi

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

# Runs one step of stage 4 and counts it as one test.
run_step() {
  local name="$1"; shift
  if "$@"; then
    passed=$((passed + 1))
  else
    echo "run-tests: $name failed" >&2
    failures+=("profiles: $name")
    failed=$((failed + 1))
  fi
}

if [ "${A3S_SKIP_PROFILES:-0}" != "1" ]; then
  echo "== stage 4: the build profiles, their supply-chain report and the reproducible verifier"
  stage_start=$SECONDS
  declare -A profile_targets=(
    [embedded]="a3s-power embedded_chat profile_test"
    [tee-minimal]="a3s-power profile_test"
    [verifier]="a3s-power-verify profile_test"
  )
  for profile in embedded tee-minimal verifier; do
    dir="build-$profile"
    # shellcheck disable=SC2086  # the target list is words
    if cmake --preset "$profile" >/dev/null && cmake --build "$dir" -j "$JOBS" --target ${profile_targets[$profile]}; then
      run_ctest "$dir" -R '^Profile\.'
    else
      echo "run-tests: the $profile build failed" >&2
      failures+=("$dir: the build failed")
      failed=$((failed + 1))
    fi
  done
  scratch="$(mktemp -d)"
  run_step "supply-chain report" python3 scripts/supply-chain.py --check --out "$scratch/supply-chain.md" \
    --sbom-dir "$scratch/sbom"
  rm -rf "$scratch"
  run_step "reproducible verifier" bash scripts/check-reproducible.sh
  echo "run-tests: stage 4 took $(((SECONDS - stage_start) / 60)) min $(((SECONDS - stage_start) % 60)) s"
fi

for f in "${failures[@]}"; do
  echo "FAILED $f"
done
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
