#!/usr/bin/env bash
# Installs every system dependency of A3S Power from Debian 12 packages.
# Idempotent and non-interactive; safe to run repeatedly.
set -euo pipefail

PKGS=(
  build-essential cmake ninja-build pkg-config git
  ccache                              # the build profiles share the objects they compile alike
  clang libclang-rt-14-dev            # libFuzzer + sanitizers
  libssl-dev                          # OpenSSL 3: crypto, TLS, X.509
  libboost-dev                        # Boost.Asio / Boost.Beast (header-only)
  nlohmann-json3-dev libspdlog-dev libfmt-dev libcli11-dev
  libpcre2-dev libcurl4-openssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libseccomp-dev                      # the embedded runtime's tests: a seccomp filter that refuses socket()
  curl ca-certificates python3
  openssl                             # the CLI: a TLS origin (s_server) and test CA in end-to-end tests
  dpkg-dev systemd                    # the Debian packages: dpkg-shlibdeps, and systemd-analyze verify of the unit
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js (>= 20) + npm run the end-to-end tests with the official OpenAI client.
if ! command -v node >/dev/null 2>&1; then missing+=(nodejs); fi
if ! command -v npm >/dev/null 2>&1; then missing+=(npm); fi

if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present"
fi
