#!/usr/bin/env bash
# Installs a built tree into a temporary prefix, builds a plugin DUT against the installed CMake
# package as a plugin author would and certifies it with the installed command; with `deb`,
# checks instead that cpack makes a Debian package holding the same files.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR [deb]   (with deb: only the Debian package)
set -euo pipefail
build=$(realpath "$1")
source=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ "${3:-}" = deb ]; then
  (cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/deb" >/dev/null)
  deb=$(ls "$work"/deb/*.deb)
  dpkg-deb -c "$deb" >"$work/deb/contents"
  grep -q './usr/bin/cubecheck$' "$work/deb/contents"
  grep -q './usr/include/cubecheck/dut_plugin.h$' "$work/deb/contents"
  grep -q './usr/lib/cmake/cubecheck/cubecheckConfig.cmake$' "$work/deb/contents"
  echo "install_test: cpack made $(basename "$deb") with the installed tree"
  exit 0
fi

cmake --install "$build" --prefix "$work/prefix" >/dev/null
for f in bin/cubecheck include/cubecheck/dut_plugin.h include/cubecheck/dut_kit.hpp lib/cmake/cubecheck/cubecheckConfig.cmake \
  share/cubecheck/docs/dut-protocol.md share/cubecheck/examples/c_dut/load2d_dut.c; do
  [ -e "$work/prefix/$f" ] || { echo "install_test: $f was not installed" >&2; exit 1; }
done
ls "$work"/prefix/share/cubecheck/vectors/*.csv >/dev/null

cmake -S "$source/tests/install_consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
for plugin in consumer_dut consumer_kit_dut; do
  "$work/prefix/bin/cubecheck" certify --dut "plugin:$work/consumer/$plugin.so" \
    --family load2d --level smoke --seed 1 --report-dir "$work/report" --quiet >"$work/certify.log" ||
    { cat "$work/certify.log"; exit 1; }
  grep -q '"verdict": "conformant"' "$work/report/report.json"
done

echo "install_test: installed, built a plugin against the package, certified it"
