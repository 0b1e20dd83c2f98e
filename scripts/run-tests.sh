#!/usr/bin/env bash
# Runs every test against the Release build in build/ (CTest), then prints CTest's summary.
set -euo pipefail
cd "$(dirname "$0")/.."
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 600
