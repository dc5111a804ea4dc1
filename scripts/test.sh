#!/usr/bin/env bash
# The test run (what CI runs): install what is missing, check the style, then build and test the
# development configuration (labels smoke and full) and the ASan+UBSan one (label smoke).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)

echo "== clang-format check"
git ls-files '*.cpp' '*.hpp' '*.c' | xargs clang-format --dry-run --Werror

echo "== dev build"
cmake --preset dev >/dev/null
cmake --build --preset dev -j "$jobs"
ctest --preset dev -j "$jobs" --label-regex 'smoke|full'

echo "== asan+ubsan build"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ctest --preset asan -j "$jobs" --label-regex smoke
