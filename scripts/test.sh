#!/usr/bin/env bash
# The test run (what CI runs): install what is missing, check the style, then build and test the
# development configuration (labels smoke and full), the ASan+UBSan one (label smoke), and fuzz
# the vector-file reader and the DUT protocol parsers briefly with libFuzzer (clang).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)

echo "== clang-format check"
git ls-files '*.cpp' '*.hpp' '*.c' | xargs clang-format --dry-run --Werror

# Line tables only (-g1): sanitizer and crash traces keep file and line, and the three builds
# below take about a quarter less time than with full debug info. A developer who wants full
# debug info configures the presets without these overrides.
optimised_g1=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG")

echo "== dev build (${SECONDS} s so far)"
cmake --preset dev "${optimised_g1[@]}" >/dev/null
cmake --build --preset dev -j "$jobs"
ctest --preset dev -j "$jobs" --label-regex 'smoke|full'

echo "== asan+ubsan build (${SECONDS} s so far)"
cmake --preset asan -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_FLAGS_DEBUG=-g1 >/dev/null
cmake --build --preset asan -j "$jobs"
# Some smoke tests are left to the dev run above: they spend most of their time in code every
# other test already runs under the sanitizers. The exported board project on the shim, a Python
# DUT process, every property against a do-nothing DUT and the 950 board rehearsal of the Mmad
# families cost about 150 s of the ASan stage; the mutant zoo (each mutant certified at smoke
# level) about 140 s. Under the sanitizers the mutants' fault branches then run only through
# the Mutants, MutantSet and Localise tests, and the zoo's verdicts through the dev run.
ctest --preset asan -j "$jobs" --label-regex smoke \
  --exclude-regex '^(ascendc_export|PythonKit\..*|NoVacuousPass\..*|Zoo/.*|Indirect\.Dav3510RehearsalCertifiesTheMmadFamilies)$'

# Random cases of every family on every profile under the sanitizers, large sizes included: the
# smoke label alone never draws them. A new seed each run (printed, so a finding reproduces).
fuzz_seconds=${CUBECHECK_ASAN_FUZZ_SECONDS:-60}
fuzz_seed=${CUBECHECK_ASAN_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "== asan+ubsan fuzz: every family, every profile, ${fuzz_seconds} s in all, seed ${fuzz_seed} (${SECONDS} s so far)"
fuzz_reports=$(mktemp -d)
for profile in a2 950 legacy; do
  ./build/asan/cubecheck fuzz --dut reference --profile "$profile" --seed "$fuzz_seed" \
    --time $((fuzz_seconds / 3)) --report-dir "$fuzz_reports/$profile" --quiet | tail -n 1
done
rm -rf "$fuzz_reports"

echo "== libFuzzer: vector-file reader, ${CUBECHECK_FUZZ_SECONDS:-20} s (${SECONDS} s so far)"
cmake -S . -B build/fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUBECHECK_FUZZ=ON -DCUBECHECK_BENCHMARKS=OFF \
  "${optimised_g1[@]}" >/dev/null
cmake --build build/fuzz --target fuzz_vector_reader fuzz_dut_response fuzz_dut_handshake -j "$jobs"
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
cp vectors/golden/load_sparse.a2.csv vectors/golden/mmad_sparse.a2.csv "$corpus"/
./build/fuzz/fuzz_vector_reader -max_total_time="${CUBECHECK_FUZZ_SECONDS:-20}" -seed=1 \
  -max_len=65536 -rss_limit_mb=4096 -print_final_stats=1 "$corpus" 2>&1 | tail -n 3

# The DUT protocol parsers, ${CUBECHECK_PROTOCOL_FUZZ_SECONDS:-10} s each, from one well-formed
# answer each (ctest -L nightly in the fuzz build runs them for longer).
mkdir -p "$corpus/response" "$corpus/handshake"
printf 'ok 1\nregion 4\nabcd\nregion 0\n\nregion 17\n0123456789abcdefg\nend\n' > "$corpus/response/ok"
printf 'rejected 1 Alignment dst not aligned\n' > "$corpus/response/rejected"
printf 'dut 1\nname x\nversion 1\nprofiles a2\ninstructions load2d\ndtypes f16\nobservable L1\nrejects_illegal 1\nend\n' \
  > "$corpus/handshake/hello"
for harness in response handshake; do
  echo "== libFuzzer: DUT $harness parser"
  ./build/fuzz/fuzz_dut_$harness -max_total_time="${CUBECHECK_PROTOCOL_FUZZ_SECONDS:-10}" -seed=1 \
    -max_len=65536 -rss_limit_mb=4096 -print_final_stats=1 "$corpus/$harness" 2>&1 | tail -n 3
done
echo "== all passed in ${SECONDS} s"
