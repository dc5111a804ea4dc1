#!/usr/bin/env bash
# Installs the Debian packages cubecheck needs to build and test, only those missing.
# Usage: bash scripts/deps.sh            (as root, or with sudo available)
set -euo pipefail

packages=(
  cmake ninja-build g++ clang-format   # toolchain and the style check
  clang libclang-rt-14-dev             # libFuzzer for the vector-reader fuzz run
  libeigen3-dev                        # oracle matrices
  librapidcheck-dev                    # property-based generators
  libgtest-dev                         # test runner
  libbenchmark-dev                     # benchmarks
  nlohmann-json3-dev                   # report.json
  libfccp-dev                          # fast-cpp-csv-parser: matrix and vector files
  python3                              # the Python example DUT, certified by the tests
  libcli11-dev                         # command line
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "cubecheck: installing missing Debian packages: ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "cubecheck: these packages are missing and this is not root and has no sudo:" >&2
  echo "  apt-get install ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
