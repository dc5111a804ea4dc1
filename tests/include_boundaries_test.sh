#!/usr/bin/env bash
# The include check can fail: on a throw-away tree that breaks each rule of
# docs/architecture.md#layering once, scripts/check_includes.py must exit 1 and name every
# offending file and line, and nothing else; on the same tree mended, it must exit 0.
# Usage: include_boundaries_test.sh CHECKER [PYTHON]
set -u
checker=$1
python=${2:-python3}
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
fail=0

put() {  # put FILE LINE...: writes the lines to FILE under the tree
  local f=$tree/$1
  shift
  mkdir -p "$(dirname "$f")"
  printf '%s\n' "$@" > "$f"
}

put isa/a.hpp '#pragma once' '#include <cstdint>' '#include "oracle/b.hpp"'
put isa/c.cpp '#include "isa/a.hpp"' '#include <Eigen/Core>'
put oracle/b.hpp '#pragma once' '#include <Eigen/Core>' '#include "dut_adapters/dut.hpp"'
put oracle/ok.cpp '#include "oracle/b.hpp"' '#include "isa/a.hpp"'
put dut_adapters/dut.hpp '#pragma once' '#include "isa/a.hpp"' '#include "dut_adapters/wire.hpp"'
put dut_adapters/wire.hpp '#pragma once' '#include <vector>'
put dut_adapters/reference/r.cpp '#include "dut_adapters/dut.hpp"' '#include "oracle/b.hpp"' \
  '#include "generators/g.hpp"'
put dut_adapters/reference/ok.hpp '#pragma once' '#include "isa/a.hpp"' '#include <Eigen/Core>'
put generators/g.hpp '#pragma once' '#include <rapidcheck.h>' '#include "oracle/b.hpp"'
put generators/g.cpp '#include "generators/g.hpp"' '#include "dut_adapters/dut.hpp"' \
  '#include "conformance/p.hpp"' '#include <nlohmann/json.hpp>'
put conformance/p.hpp '#pragma once' '#include "generators/g.hpp"' '#include "vectors/v.hpp"'
put vectors/v.hpp '#pragma once' '#include "conformance/p.hpp"' '#include "cli/m.hpp"'
put cli/m.hpp '#pragma once' '#include "vectors/v.hpp"' '#include <CLI/CLI.hpp>'

# Each line the checker must name, FILE:LINE: a bad include there, or (r.cpp:1) an allowed one
# that brings in what the file may not use. Headers that break their own rule are named once,
# where they break it, not again in every file that includes them.
expected="isa/a.hpp:3
isa/c.cpp:2
oracle/b.hpp:3
dut_adapters/reference/r.cpp:1
dut_adapters/reference/r.cpp:2
dut_adapters/reference/r.cpp:3
generators/g.cpp:2
generators/g.cpp:3
generators/g.cpp:4
conformance/p.hpp:3
vectors/v.hpp:3"

out=$("$python" "$checker" "$tree")
status=$?
if [ "$status" -ne 1 ]; then
  echo "FAIL: the checker exited $status on a tree with bad includes, not 1"
  fail=1
fi
got=$(printf '%s\n' "$out" | grep -oE '^[a-z_/]+\.(hpp|cpp):[0-9]+' | sort -u)
if [ "$got" != "$(printf '%s\n' "$expected" | sort -u)" ]; then
  echo "FAIL: the checker named"
  printf '%s\n' "$got"
  echo "instead of"
  printf '%s\n' "$expected" | sort -u
  fail=1
fi
# The reference may include dut_adapters/dut.hpp, but not what dut.hpp brings from outside its
# rule: the message names the chain.
if ! printf '%s\n' "$out" | grep -q 'dut_adapters/reference/r.cpp:1: .*brings in "dut_adapters/wire.hpp" (dut_adapters/dut.hpp:3)'; then
  echo "FAIL: the leak through dut_adapters/dut.hpp is not named with its chain"
  fail=1
fi
if ! printf '%s\n' "$out" | grep -q '^isa/a.hpp:3: #include "oracle/b.hpp": isa/ may include only isa/, the standard library'; then
  echo "FAIL: the message for isa/a.hpp:3 does not say what isa/ may include"
  fail=1
fi

# Mended, the same tree passes.
put isa/a.hpp '#pragma once' '#include <cstdint>'
put isa/c.cpp '#include "isa/a.hpp"'
put oracle/b.hpp '#pragma once' '#include <Eigen/Core>' '#include "isa/a.hpp"'
put dut_adapters/dut.hpp '#pragma once' '#include "isa/a.hpp"'
put dut_adapters/reference/r.cpp '#include "dut_adapters/dut.hpp"' '#include "isa/a.hpp"'
put generators/g.cpp '#include "generators/g.hpp"' '#include "oracle/b.hpp"'
put conformance/p.hpp '#pragma once' '#include "generators/g.hpp"' '#include "dut_adapters/dut.hpp"' \
  '#include <nlohmann/json.hpp>'
put vectors/v.hpp '#pragma once' '#include "conformance/p.hpp"'
if ! clean=$("$python" "$checker" "$tree"); then
  echo "FAIL: the mended tree is still rejected:"
  printf '%s\n' "$clean"
  fail=1
fi

[ "$fail" -eq 0 ] && echo "include check: fails on each broken boundary, passes when mended"
exit "$fail"
