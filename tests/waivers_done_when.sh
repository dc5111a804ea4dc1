#!/usr/bin/env bash
# Issue 18's done-when: certify --dut mutant:load2d-dst-gap-ignored --waivers W, with a waiver for
# family load2d, exits 0 with verdict conformant_with_waivers; without --waivers it exits 1.
# Usage: waivers_done_when.sh CUBECHECK WAIVERS_JSON WORK_DIR
set -u
cubecheck=$1 waivers=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
run() {  # run NAME ARGS...: certify the mutant (a complete run at level smoke), exit status in $rc
  local name=$1; shift
  "$cubecheck" certify --dut mutant:load2d-dst-gap-ignored --level smoke --seed 1 --quiet \
    --report-dir "$work/$name" "$@" > "$work/$name.txt" 2>&1
  rc=$?
}
fail() { echo "FAIL: $*"; cat "$work/$1.txt"; exit 1; }

run waived --waivers "$waivers"
[ "$rc" -eq 0 ] || fail waived "with the waiver: exit $rc, expected 0"
grep -q '"verdict": "conformant_with_waivers"' "$work/waived/report.json" ||
  fail waived "report.json verdict is not conformant_with_waivers"
grep -q '^verdict: CONFORMANT WITH WAIVERS' "$work/waived.txt" ||
  fail waived "the terminal verdict is not CONFORMANT WITH WAIVERS"
grep -q 'dst_gap ignored: a known defect' "$work/waived/report.md" ||
  fail waived "report.md does not give the waiver's reason"

run plain
[ "$rc" -eq 1 ] || fail plain "without the waiver: exit $rc, expected 1"
grep -q '"verdict": "nonconformant"' "$work/plain/report.json" ||
  fail plain "report.json verdict is not nonconformant"
echo "ok: exit 0 conformant_with_waivers with the waiver, exit 1 nonconformant without"
