#!/usr/bin/env bash
# The checked-in golden vectors are exactly what this version regenerates, and the reference
# model passes them all. Usage: vectors_golden.sh CUBECHECK SOURCE_DIR
set -euo pipefail
cubecheck=$1
src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$cubecheck" vectors regen --out "$out" > /dev/null
if ! diff -r "$out" "$src/vectors/golden" > "$out.diff" 2>&1; then
  echo "vectors/golden differs from 'cubecheck vectors regen' (regenerate and commit):"
  head -20 "$out.diff"
  rm -f "$out.diff"
  exit 1
fi
rm -f "$out.diff"
"$cubecheck" vectors check --dut reference --dir "$src/vectors/golden" --report-dir ''
