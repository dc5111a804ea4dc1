#!/usr/bin/env bash
# The Ascend C export, without the vendor toolchain or a board (docs/hardware.md, "What the CPU
# shim proves"): export the golden vectors, compile the project's kernel and host program with
# this machine's compiler against tests/ascendc_shim (which runs each Ascend C call on the
# reference model), run it, and feed the results to `vectors verify`. Against the reference the
# verdict must be conformant (exit 0); against each mutant (a wrong LoadData, a wrong Mmad) it must
# not (exit 1).
#
# Usage: ascendc_export_test.sh CUBECHECK CXX SOURCE_DIR WORK_DIR INCLUDE_DIRS LIBRARIES [FLAGS]
#   INCLUDE_DIRS, LIBRARIES and FLAGS are ':'-separated lists: the reference model's include
#   directories and static libraries, and compiler flags the libraries need (sanitizers).
set -euo pipefail

cubecheck=$1
cxx=$2
src=$3
work=$4
IFS=':' read -r -a includes <<<"$5"
IFS=':' read -r -a libraries <<<"$6"
IFS=':' read -r -a flags <<<"${7:-}"

rm -rf "$work"
mkdir -p "$work"
project=$work/project

"$cubecheck" vectors export-ascendc --out "$project" --dir "$src/vectors/golden" \
  --profile a2 --profile 950 >"$work/export.txt"
grep -q '^| all |' "$work/export.txt"

include_flags=()
for dir in "${includes[@]}"; do
  [[ -n $dir ]] && include_flags+=(-isystem "$dir")
done

# profile, NPU architecture, mutants the golden cases of that profile must kill (comma-separated):
# on a2 one breaks where LoadDataWithSparse writes the index buffer, which the board reads back
# through MmadWithSparse; on 950 one breaks an Mmad that accumulates and one the low-precision
# decode, families whose initial L0C image the board writes by f32 Mmad before the case runs, and
# one the MX scale load that stages MmadMx's scales.
for target in "a2 2201 load2d-dst-gap-ignored,mmad-init-ignored,sparse-load-start-ignored" \
  "950 3510 load3d-v2pro-ext-swapped,mmad-init-ignored,lowprec-hif8-as-e4m3,mx-scale-load-other-buffer"; do
  read -r profile arch mutants <<<"$target"
  board=$work/board-$profile
  "$cxx" -std=c++20 -O1 -Wall -Wextra -Werror "${flags[@]}" -DCUBECHECK_CPU_SHIM -DCCK_NPU_ARCH="$arch" \
    -I "$src/tests/ascendc_shim" -I "$project" -I "$src" "${include_flags[@]}" \
    -x c++ "$project/cubecheck_kernel.asc" -x none "$project/main.cpp" \
    "${libraries[@]}" -ldl -o "$board"
  files=("$project"/vectors/"$profile"/*.csv)

  (cd "$project" && "$board" --out "$work/out-reference") >"$work/run-$profile.txt"
  if ! "$cubecheck" vectors verify --results "$work/out-reference/results-$profile.csv" \
    "${files[@]}" --report-dir '' >"$work/verify-$profile.txt"; then
    echo "FAIL: the exported $profile project on the reference model is not conformant"
    tail -40 "$work/verify-$profile.txt"
    exit 1
  fi
  echo "$profile: $(cat "$work/run-$profile.txt")"

  IFS=',' read -r -a list <<<"$mutants"
  for mutant in "${list[@]}"; do
    out=$work/out-$profile-$mutant
    (cd "$project" && CUBECHECK_SHIM_DUT="mutant:$mutant" "$board" --out "$out") \
      >"$work/run-$profile-$mutant.txt" 2>&1
    rc=0
    "$cubecheck" vectors verify --results "$out/results-$profile.csv" "${files[@]}" \
      --report-dir '' >"$work/verify-$profile-$mutant.txt" || rc=$?
    if [[ $rc -ne 1 ]]; then
      echo "FAIL: the exported $profile project on mutant:$mutant verified with exit $rc, not 1"
      tail -40 "$work/verify-$profile-$mutant.txt"
      exit 1
    fi
    echo "$profile: mutant:$mutant caught ($(grep -c '^FAILED' \
      "$work/verify-$profile-$mutant.txt") failing cases)"
  done
done
