// What the oracle says a program must leave behind, and how the suite compares it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "isa/dtype.hpp"
#include "isa/program.hpp"

namespace cubecheck::oracle {

/// How to name an element of an observed region in a report: the dtype, the fractal side and the
/// address fractal 0 starts at.
struct RegionFormat {
  isa::DType dtype = isa::DType::U8;
  bool bSide = false;
  std::uint64_t origin = 0;          ///< byte address of fractal 0 in the region's memory
  std::uint64_t fractalBytes = 512;  ///< 1024 for L0C (16 x 16 four-byte elements)
  /// Float Mmad's f32 results, compared numerically at zero (spec OPEN-15): an element expected
  /// +0 or -0 also matches the other zero. Every other bit pattern is compared exactly.
  bool signlessZero = false;
};

struct Expected {
  isa::Observed regions;              ///< one per Program::observe entry
  std::vector<isa::Bytes> written;    ///< per region: 1 where an instruction writes the byte
  std::vector<RegionFormat> formats;  ///< per region
  /// Per region, 1 where the spec leaves the result unspecified (e.g. C beyond m, n inside the
  /// last fractal, OPEN-8): not compared. Empty: every byte is compared.
  std::vector<isa::Bytes> dontCare;
  /// Set when the program's result depends on an open point the suite does not certify: the
  /// case is reported NotSupported with this reason, never compared.
  std::optional<std::string> uncertified;
};

/// Exact comparison (spec 9): every observed byte equals the expected one. Differences inside the
/// footprint are wrong values, outside it stray writes.
struct Comparison {
  bool equal = true;
  std::size_t wrongBytes = 0;  ///< differing bytes the instructions write
  std::size_t strayBytes = 0;  ///< differing bytes no instruction writes
  /// The footprint holds nothing the initial image did not already hold: such a comparison could
  /// pass without the DUT doing anything, so it proves nothing (architecture.md habit 9).
  bool vacuous = false;
  std::string report;  ///< first differences by fractal, row and column, capped
};

/// Compares observed regions with `expected`. With `strayOnly`, bytes inside the footprint are
/// not compared (the NoStrayWrites property).
Comparison compareExact(const isa::Program& program, const Expected& expected,
                        const isa::Observed& observed, bool strayOnly = false, int maxLines = 8);

/// "L0A+0x0240 fractal 1 row 2 col 0": an address in a region, named by the region's format.
std::string locate(const isa::Region& region, const RegionFormat& format, std::uint64_t offset);

}  // namespace cubecheck::oracle
