// Helpers every generator shares: value distributions that favour edges, and memory segments
// filled from a seed.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "generators/fill.hpp"
#include "isa/program.hpp"
#include "oracle/tile.hpp"

namespace cubecheck::gen {

/// Inclusive range; a single value when lo == hi (rc::gen::inRange needs lo < hi).
inline rc::Gen<std::uint64_t> upTo(std::uint64_t lo, std::uint64_t hi) {
  if (lo >= hi) return rc::gen::just(lo);
  return rc::gen::inRange<std::uint64_t>(lo, hi + 1);
}

/// The values worth most in [lo, hi]: its ends, the first few above lo, and anything between.
inline rc::Gen<std::uint64_t> edgy(std::uint64_t lo, std::uint64_t hi) {
  return rc::gen::weightedOneOf<std::uint64_t>({{3, rc::gen::just(lo)},
                                                {1, rc::gen::just(hi)},
                                                {4, upTo(lo, std::min(hi, lo + 8))},
                                                {2, upTo(lo, hi)}});
}

/// Where a GM footprint may start so that it ends by `end` (GM's capacity, 2^48) when it spans
/// `bytes`.
inline std::uint64_t gmTop(std::uint64_t end, std::uint64_t bytes) {
  return bytes >= end ? 0 : end - bytes;
}

/// A GM address in [0, top], `top` the largest that leaves room for the footprint. Low ones (0,
/// a few bytes in, just past 4 GiB), and as often ones that set the high bits a real GM pointer
/// has: around 2^44, any bit 33..47 as the highest set, and `top` itself (the footprint ends at
/// the top of the 48-bit address space), so a DUT that drops address bits reads other bytes.
inline rc::Gen<std::uint64_t> gmAddress(std::uint64_t top) {
  auto clip = [top](std::uint64_t a) { return std::min(a, top); };
  return rc::gen::weightedOneOf<std::uint64_t>(
      {{2, rc::gen::just<std::uint64_t>(0)},
       {3, upTo(std::min<std::uint64_t>(1, top), std::min<std::uint64_t>(4095, top))},
       {1, rc::gen::map(upTo(0, 4095), [clip](std::uint64_t a) { return clip(1ull << 32 | a); })},
       {1, rc::gen::map(upTo(0, 1u << 20),
                        [clip](std::uint64_t a) { return clip((1ull << 44) + a); })},
       {2, rc::gen::exec([clip] {
          const int bit = *rc::gen::resize(100, rc::gen::inRange(33, 48));  // every bit, any size
          return clip(1ull << bit | *upTo(0, (1ull << bit) - 1));
        })},
       {1,
        rc::gen::map(upTo(0, 4095), [top](std::uint64_t a) { return top - std::min(a, top); })}});
}

/// How draws spread over sizes (`--sizes`): Small keeps every size in its small classes, Mixed
/// draws the large classes as a minority (they cost up to cubically more), Large draws them as
/// often as the small ones.
enum class Sizes : std::uint8_t { Small, Mixed, Large };

inline std::string_view nameOf(Sizes s) {
  return s == Sizes::Small ? "small" : s == Sizes::Mixed ? "mixed" : "large";
}

inline std::optional<Sizes> parseSizes(std::string_view s) {
  for (Sizes v : {Sizes::Small, Sizes::Mixed, Sizes::Large}) {
    if (nameOf(v) == s) return v;
  }
  return std::nullopt;
}

/// The size class of v in [1, max]: [2^e, 2^(e+1)) clipped to max, as "lo-hi" (or "lo" when
/// the class holds one value).
inline std::string sizeClassOf(std::uint64_t v, std::uint64_t max) {
  std::uint64_t lo = 1;
  while (lo * 2 <= v) lo *= 2;
  const std::uint64_t hi = std::min(max, 2 * lo - 1);
  return hi <= lo ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
}

/// The coverage bin of value v of a size field: "field:class".
inline std::string sizeBin(std::string_view field, std::uint64_t v, std::uint64_t max) {
  return std::string(field) + ":" + sizeClassOf(v, max);
}

/// Every size bin of [1, max], smallest first.
inline std::vector<std::string> sizeBins(std::string_view field, std::uint64_t max) {
  std::vector<std::string> bins;
  for (std::uint64_t lo = 1; lo <= max; lo *= 2) bins.push_back(sizeBin(field, lo, max));
  return bins;
}

/// A size in [1, max] drawn class by class: one of the classes at or below smallMax, or (under
/// Mixed, 1 in 6; under Large, 1 in 2) one of the classes above it. Within a class its ends are
/// favoured, so the largest legal value is drawn as often as any other class.
inline rc::Gen<std::uint64_t> sized(std::uint64_t max, std::uint64_t smallMax, Sizes s) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> small, large;
  for (std::uint64_t lo = 1; lo <= max; lo *= 2) {
    (lo <= smallMax ? small : large).emplace_back(lo, std::min(max, 2 * lo - 1));
  }
  auto within = [](std::pair<std::uint64_t, std::uint64_t> c) {
    return rc::gen::weightedOneOf<std::uint64_t>(
        {{1, rc::gen::just(c.first)}, {1, rc::gen::just(c.second)}, {3, upTo(c.first, c.second)}});
  };
  auto classes = [within](const std::vector<std::pair<std::uint64_t, std::uint64_t>>& cs) {
    std::vector<rc::Gen<std::uint64_t>> gens;
    for (const auto& c : cs) gens.push_back(within(c));
    return rc::gen::join(rc::gen::elementOf(gens));
  };
  if (s == Sizes::Small || large.empty()) return classes(small);
  return rc::gen::weightedOneOf<std::uint64_t>(
      {{s == Sizes::Mixed ? 5u : 1u, classes(small)}, {1, classes(large)}});
}

/// Shrinks three dimensions until `fits()`: the one drawn nearest its maximum (the lead) keeps
/// its value while the largest of the others above its floor halves; only when none can does the
/// lead halve. `settle()` runs after each halving (to keep k even, or a multiple of 4). So a
/// large draw stays large and the other dimensions make room for it.
template <class Fits, class Settle>
void fitAroundLead(const std::array<std::uint16_t*, 3>& dims,
                   const std::array<std::uint64_t, 3>& maxes,
                   const std::array<std::uint16_t, 3>& floors, Fits fits, Settle settle) {
  std::array<double, 3> share{};
  for (std::size_t i = 0; i < 3; ++i) share[i] = static_cast<double>(*dims[i]) / maxes[i];
  const auto lead =
      static_cast<std::size_t>(std::max_element(share.begin(), share.end()) - share.begin());
  while (!fits()) {
    std::size_t pick = 3;
    for (std::size_t i = 0; i < 3; ++i) {
      if (i == lead || *dims[i] <= floors[i]) continue;
      if (pick == 3 || *dims[i] > *dims[pick]) pick = i;
    }
    if (pick == 3) pick = lead;
    *dims[pick] =
        std::max<std::uint16_t>(floors[pick], static_cast<std::uint16_t>(*dims[pick] / 2));
    settle();
  }
}

/// The last v in [lo, hi] with legal(v), for a legality that holds up to some value and not
/// beyond (bytes grow with the dimension); lo itself must be legal.
template <class Legal>
std::uint16_t largestLegal(std::uint16_t lo, std::uint16_t hi, Legal legal) {
  if (legal(hi)) return hi;
  while (hi - lo > 1) {
    const auto mid = static_cast<std::uint16_t>((lo + hi) / 2);
    (legal(mid) ? lo : hi) = mid;
  }
  return lo;
}

/// [lo, hi) of memory m, filled from the seed.
inline isa::Segment filled(isa::Memory m, std::uint64_t lo, std::uint64_t hi, std::uint64_t seed) {
  isa::Segment s{m, lo, isa::Bytes(hi - lo)};
  fillBytes(s.bytes, seed);
  return s;
}

/// [lo - margin, hi + margin) clipped to [0, cap]: a footprint with its canary margin.
inline std::pair<std::uint64_t, std::uint64_t> withMargin(std::uint64_t lo, std::uint64_t hi,
                                                          std::uint64_t margin, std::uint64_t cap) {
  return {lo >= margin ? lo - margin : 0, std::min(cap, hi + margin)};
}

/// Segments holding the 512-byte fractals `fractals` (ascending) of base `base` in memory m,
/// each with one fractal of margin either side, so a DUT reading a neighbour gets wrong data
/// rather than an undefined-memory error; merged into runs, clipped to [0, capacity). A load
/// from GM that reads nothing (a no-op) still defines fractal 0 at its source address: the GM a
/// run addresses is where its segments lie (an exported run allocates that span), and it must
/// hold the address.
inline std::vector<isa::Segment> fractalSegments(isa::Memory m, std::uint64_t base,
                                                 const std::vector<std::uint64_t>& fractals,
                                                 std::uint64_t capacity, std::uint64_t seed) {
  static const std::vector<std::uint64_t> kFirst{0};
  const bool noOpFromGm = fractals.empty() && m == isa::Memory::GM;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;
  for (std::uint64_t f : noOpFromGm ? kFirst : fractals) {
    const std::uint64_t at = base + f * isa::kFractalBytes;
    const std::uint64_t lo = at >= isa::kFractalBytes ? at - isa::kFractalBytes : 0;
    const std::uint64_t hi = std::min(capacity, at + 2 * isa::kFractalBytes);
    if (lo >= hi) continue;  // wholly past capacity: an illegal case, nothing to define
    if (!runs.empty() && lo <= runs.back().second) {
      runs.back().second = std::max(runs.back().second, hi);
    } else {
      runs.emplace_back(lo, hi);
    }
  }
  std::vector<isa::Segment> out;
  std::uint64_t k = 0;
  for (auto [lo, hi] : runs) out.push_back(filled(m, lo, hi, subSeed(seed, k++)));
  return out;
}

/// A rows x cols matrix of element bit patterns of type t from the seed, column by column.
inline oracle::ElemMatrix randomElements(Eigen::Index rows, Eigen::Index cols, isa::DType t,
                                         std::uint64_t seed) {
  const int bits = isa::bitsOf(t);
  const std::uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
  SplitMix64 g(seed);
  oracle::ElemMatrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m(i) = static_cast<std::uint32_t>(g.next()) & mask;
  return m;
}

/// How every case prints: profile, the instruction, the content seed and, for a table entry, the
/// boundary it covers (which `vectors regen` copies into the why column).
inline std::ostream& printCase(std::ostream& os, isa::ProfileId profile, const std::string& what,
                               std::uint64_t contentSeed, const std::string& why) {
  os << "profile=" << isa::profile(profile).name << ' ' << what << " content_seed=" << contentSeed;
  if (!why.empty()) os << " why=\"" << why << '"';
  return os;
}

}  // namespace cubecheck::gen
