#!/usr/bin/env bash
# A run through the inprocess: adapter (the library loaded into cubecheck itself): the C example
# library certifies, with the verdict and counts of the same library run through plugin: (a forked
# child); the hostile plugin, which claims an absurd response size every fifth program, is
# nonconformant through inprocess: as through plugin:, so a verdict here comes from the library.
# Usage: inprocess_certify.sh CUBECHECK EXAMPLE_PLUGIN.so HOSTILE_PLUGIN.so WORK_DIR PYTHON
set -u
cubecheck=$1 example=$2 hostile=$3 work=$4 python=$5
rm -rf "$work" && mkdir -p "$work"
run() {  # run NAME DUT: certify load2d at level smoke, exit status in $rc
  local name=$1 dut=$2
  "$cubecheck" certify --dut "$dut" --level smoke --seed 1 --quiet \
    --report-dir "$work/$name" > "$work/$name.txt" 2>&1
  rc=$?
}
fail() { echo "FAIL: $*"; cat "$work/$1.txt"; exit 1; }
field() {  # field NAME EXPR: a value of NAME's report.json, e.g. field inproc 'j["verdict"]'
  "$python" -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
    "$work/$1/report.json" "$2"
}
# The counts of every family, per outcome: what the runs must agree on.
counts='[(f["name"], f["verdict"], f["cases"], f["passed"], f["failed"], f["adapter_errors"], f["not_supported"]) for f in j["families"]]'

run inproc "inprocess:$example"
[ "$rc" -eq 0 ] || fail inproc "exit $rc, expected 0 (conformant)"
[ "$(field inproc 'j["verdict"]')" = conformant ] || fail inproc "report.json verdict is not conformant"
[ "$(field inproc 'j["report_kind"]')" = certificate ] || fail inproc "not a certificate"
[ "$(field inproc 'j["certified_families"]')" = "['load2d']" ] ||
  fail inproc "certified families: $(field inproc 'j["certified_families"]'), expected the library's one, load2d"
[ "$(field inproc 'j["dut_capabilities"]["name"]')" = example-c-load2d ] ||
  fail inproc "the DUT is not the library's handshake name"
[ "$(field inproc '[f["passed"] for f in j["families"] if f["name"] == "load2d"][0] > 0')" = True ] ||
  fail inproc "load2d passed no case"

run plugin "plugin:$example"
[ "$rc" -eq 0 ] || fail plugin "through plugin: exit $rc, expected 0"
[ "$(field inproc "$counts")" = "$(field plugin "$counts")" ] ||
  fail inproc "counts differ from plugin:'s: $(field inproc "$counts") vs $(field plugin "$counts")"

run hostile "inprocess:$hostile"
[ "$rc" -eq 1 ] || fail hostile "the hostile library: exit $rc, expected 1 (nonconformant)"
[ "$(field hostile 'j["verdict"]')" = nonconformant ] || fail hostile "verdict is not nonconformant"
grep -q 'reported a response of' "$work/hostile.txt" || fail hostile "the absurd size is not named"
echo "ok: inprocess: certifies the example library as plugin: does, and fails the hostile one"
