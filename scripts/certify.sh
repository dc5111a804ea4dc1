#!/usr/bin/env bash
# The main job: install what is missing, build the release configuration, certify the built-in
# reference model and print the report. Extra arguments go to 'cubecheck certify'
# (for example: --profile 950 --level smoke --seed 7).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target cubecheck
exec ./build/release/cubecheck certify --dut reference "$@"
