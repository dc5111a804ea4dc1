#!/usr/bin/env bash
# The test run (what CI runs): install what is missing, check the style, then build and test the
# development configuration (labels smoke and full), the ASan+UBSan one (label smoke), and fuzz
# the vector-file reader briefly with libFuzzer (clang).
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

echo "== libFuzzer: vector-file reader, ${CUBECHECK_FUZZ_SECONDS:-20} s"
cmake -S . -B build/fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUBECHECK_FUZZ=ON -DCUBECHECK_BENCHMARKS=OFF >/dev/null
cmake --build build/fuzz --target fuzz_vector_reader -j "$jobs"
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
cp vectors/golden/load_sparse.a2.csv vectors/golden/mmad_sparse.a2.csv "$corpus"/
./build/fuzz/fuzz_vector_reader -max_total_time="${CUBECHECK_FUZZ_SECONDS:-20}" -seed=1 \
  -max_len=65536 -rss_limit_mb=4096 -print_final_stats=1 "$corpus" 2>&1 | tail -n 3
