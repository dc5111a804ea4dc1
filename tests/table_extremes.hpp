// Whether a boundary table holds each checked field of its instructions at the extremes a legal
// instruction can take, found through isa::validate rather than pasted numbers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "conformance/reach.hpp"
#include "isa/fields.hpp"
#include "isa/program.hpp"

namespace cubecheck::testing {

/// The largest (or smallest) value of `f` that keeps `ins` legal, looking from the field's legal
/// extreme back to the value `ins` holds (an address: on the grid of its memory's alignment).
/// Narrow fields are tried one by one (a transposed step may need to be even); wide ones are
/// halved, as their rules (a start, stride or gap that must keep a footprint inside its buffer)
/// leave an interval of legal values around a legal one.
inline std::int64_t extremeLegal(const isa::Profile& prof, const isa::Instruction& ins,
                                 const isa::FieldDesc& f, bool largest) {
  auto legalAt = [&](std::int64_t v) {
    isa::Instruction x = ins;
    f.set(x, v);
    return !isa::validate(prof, x).has_value();
  };
  const std::int64_t held = f.get(ins);
  if (f.unit == "bytes") {
    // An address legal only on its memory's alignment: search the multiples of the finest
    // power of two one step from the held address keeps legal (none: it is already at the end).
    const std::int64_t dir = largest ? 1 : -1;
    std::int64_t step = 0;
    for (std::int64_t s = 1; s <= 4096 && step == 0; s *= 2) {
      const std::int64_t v = held + dir * s;
      if (v >= f.legalMin && v <= f.legalMax && legalAt(v)) step = s;
    }
    if (step == 0) return held;
    std::int64_t lo = 0;  // legal, in steps from held
    std::int64_t hi = (largest ? f.legalMax - held : held - f.legalMin) / step;
    auto at = [&](std::int64_t n) { return held + dir * n * step; };
    if (legalAt(at(hi))) return at(hi);
    while (hi - lo > 1) {  // lo legal, hi not
      const std::int64_t mid = lo + (hi - lo) / 2;
      (legalAt(at(mid)) ? lo : hi) = mid;
    }
    return at(lo);
  }
  std::int64_t lo = largest ? held : f.legalMin;  // legal when largest
  std::int64_t hi = largest ? f.legalMax : held;  // legal when smallest
  if (hi - lo <= 256) {
    if (largest) {
      for (std::int64_t v = hi; v > lo; --v) {
        if (legalAt(v)) return v;
      }
      return lo;
    }
    for (std::int64_t v = lo; v < hi; ++v) {
      if (legalAt(v)) return v;
    }
    return hi;
  }
  if (largest) {
    if (legalAt(hi)) return hi;
    while (hi - lo > 1) {  // lo legal, hi not
      const std::int64_t mid = lo + (hi - lo) / 2;
      (legalAt(mid) ? lo : hi) = mid;
    }
    return lo;
  }
  if (legalAt(lo)) return lo;
  while (hi - lo > 1) {  // hi legal, lo not
    const std::int64_t mid = lo + (hi - lo) / 2;
    (legalAt(mid) ? hi : lo) = mid;
  }
  return hi;
}

/// For each checked field of the table's instructions, the table's smallest and largest value
/// against what its own cases could hold and stay legal: over every case, and the largest over the
/// cases `moves` says do something and the field takes effect in (a no-op may hold any start or
/// stride; a case that moves data must show the buffer-bounded maximum too). One line per miss;
/// empty when none.
inline std::vector<std::string> missedExtremes(
    isa::ProfileId profile, const std::vector<isa::Instruction>& table,
    const std::function<bool(const isa::Instruction&)>& moves) {
  const isa::Profile& prof = isa::profile(profile);
  std::vector<std::string> missed;
  if (table.empty()) return {"an empty table"};
  const isa::InstructionDesc& desc = isa::descOf(table.front());
  for (const isa::FieldDesc& f : desc.fields) {
    if (!conf::isChecked(profile, desc, f)) continue;
    for (const bool movingOnly : {false, true}) {
      std::optional<std::int64_t> heldMin, heldMax, canMin, canMax;
      for (const isa::Instruction& ins : table) {
        // Moving cases count only where the field changes something (isa::takesEffect): a
        // dst_gap on a one-fractal load could hold 65535, and shows nothing.
        if (isa::validate(prof, ins) ||
            (movingOnly && (!moves(ins) || !isa::takesEffect(desc, f, ins)))) {
          continue;
        }
        const std::int64_t v = f.get(ins);
        heldMin = std::min(heldMin.value_or(v), v);
        heldMax = std::max(heldMax.value_or(v), v);
        const std::int64_t up = extremeLegal(prof, ins, f, true);
        canMax = std::max(canMax.value_or(up), up);
        if (!movingOnly) {
          const std::int64_t down = extremeLegal(prof, ins, f, false);
          canMin = std::min(canMin.value_or(down), down);
        }
      }
      const std::string where = std::string(desc.opcode) + "." + std::string(f.name) + " on " +
                                std::string(prof.name) +
                                (movingOnly ? " (cases that move data)" : "");
      if (heldMax != canMax) {
        missed.push_back(where + ": largest held " + std::to_string(heldMax.value_or(-1)) +
                         ", a case could hold " + std::to_string(canMax.value_or(-1)));
      }
      if (heldMin != canMin && !movingOnly) {
        missed.push_back(where + ": smallest held " + std::to_string(heldMin.value_or(-1)) +
                         ", a case could hold " + std::to_string(canMin.value_or(-1)));
      }
    }
  }
  return missed;
}

}  // namespace cubecheck::testing
