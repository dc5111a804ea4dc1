// LoadData with LoadData2DParams (spec 4; the vendor's LoadData page).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "isa/dtype.hpp"
#include "isa/memory.hpp"
#include "isa/profile.hpp"
#include "isa/violation.hpp"

namespace cubecheck::isa {

/// LoadData2DParams, fields in the order the constructor takes them (the C++ struct declares them
/// in another order; spec 4).
struct LoadData2DParams {
  std::uint16_t startIndex = 0;  ///< first source fractal, in 512-byte fractals
  std::uint8_t repeatTimes = 0;  ///< fractals moved, 0..255; 0 is a no-op
  std::uint16_t srcStride = 0;   ///< source fractals between repeats (start to start); 0 rereads
  std::uint8_t sid = 0;          ///< reserved; ignored
  std::uint16_t dstGap = 0;      ///< destination fractals between the end of one and the next
  bool ifTranspose = false;      ///< 16x16 transpose of each fractal; 16-bit types, A1->A2/B1->B2
  std::uint8_t addrMode = 0;     ///< 0 increment, 1 decrement (GM->A1/B1 only); others illegal

  friend bool operator==(const LoadData2DParams&, const LoadData2DParams&) = default;
};

/// The six data paths of LoadData2DParams (the LoadData page).
enum class Load2DPath : std::uint8_t { GMtoA1, GMtoB1, GMtoA2, GMtoB2, A1toA2, B1toB2 };

inline constexpr std::array kAllLoad2DPaths{Load2DPath::GMtoA1, Load2DPath::GMtoB1,
                                            Load2DPath::GMtoA2, Load2DPath::GMtoB2,
                                            Load2DPath::A1toA2, Load2DPath::B1toB2};

constexpr Position srcOf(Load2DPath p) {
  switch (p) {
    case Load2DPath::A1toA2:
      return Position::A1;
    case Load2DPath::B1toB2:
      return Position::B1;
    default:
      return Position::GM;
  }
}

constexpr Position dstOf(Load2DPath p) {
  switch (p) {
    case Load2DPath::GMtoA1:
      return Position::A1;
    case Load2DPath::GMtoB1:
      return Position::B1;
    case Load2DPath::GMtoA2:
    case Load2DPath::A1toA2:
      return Position::A2;
    case Load2DPath::GMtoB2:
    case Load2DPath::B1toB2:
      return Position::B2;
  }
  return Position::A2;
}

/// addr_mode is honoured only on GM->A1/B1 (spec 4).
constexpr bool honoursAddrMode(Load2DPath p) {
  return p == Load2DPath::GMtoA1 || p == Load2DPath::GMtoB1;
}

/// Transpose exists only on A1->A2 and B1->B2 (spec 4).
constexpr bool canTranspose(Load2DPath p) {
  return p == Load2DPath::A1toA2 || p == Load2DPath::B1toB2;
}

/// Whether the profile has the path: all six on a2 and legacy; on 950 only L1->L0A/L0B, and
/// those emulated through V2 (OPEN-9).
bool hasPath(ProfileId profile, Load2DPath p);

std::string_view nameOf(Load2DPath p);  ///< "GMtoA1", ...
std::optional<Load2DPath> parseLoad2DPath(std::string_view name);

/// One LoadData instruction with LoadData2DParams: addresses in bytes within the memories of the
/// path's positions.
struct Load2D {
  static constexpr std::string_view kOpcode = "load2d";
  Load2DPath path = Load2DPath::A1toA2;
  DType dtype = DType::F16;
  std::uint64_t srcAddr = 0;
  std::uint64_t dstAddr = 0;
  LoadData2DParams params;

  friend bool operator==(const Load2D&, const Load2D&) = default;
};

/// The documented legality rules of spec 1 and 4, in the order a reader would check them.
/// nullopt when the instruction is legal on the profile.
std::optional<Violation> validate(const Profile& profile, const Load2D& load);

std::string describe(const Load2D& load);  ///< one line, all fields, for reports

}  // namespace cubecheck::isa
