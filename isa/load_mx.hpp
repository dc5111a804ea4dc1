// The MX scale loads of 950 (asc_copy_l12l0a_mx and asc_copy_l12l0b_mx): E8M0 scales from L1 into
// L0A_MX / L0B_MX, where MmadMx reads them (spec 8.1.4). docs/spec.md, "MX scale loads".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "isa/memory.hpp"
#include "isa/profile.hpp"
#include "isa/violation.hpp"

namespace cubecheck::isa {

inline constexpr std::uint64_t kMxScaleFractalBytes = 32;  ///< 16 rows of 2 E8M0 scales

/// LoadMxScale: for x < x_step and y < y_step, the 32-byte unit at L1 byte
/// src + ((x_start + x) * src_stride + y_start + y) * 32 is copied to the MX buffer byte
/// dst + (x * dst_stride + y) * 32; x runs along M (N for L0B_MX) in 16-row scale fractals, y along
/// K in 32-byte units (pairs of 32-element scale blocks). A step of 0 copies nothing. `dst` is the
/// MX buffer's byte address: the API takes the associated L0A/L0B address / 16.
struct LoadMxScale {
  static constexpr std::string_view kOpcode = "load_mx_scale";
  bool toL0B = false;           ///< asc_copy_l12l0b_mx (L0B_MX) instead of asc_copy_l12l0a_mx
  std::uint64_t srcAddr = 0;    ///< L1, 32-byte aligned
  std::uint64_t dstAddr = 0;    ///< L0A_MX / L0B_MX byte address, 32-byte aligned
  std::uint16_t xStart = 0;     ///< source start along M/N, in scale fractals
  std::uint16_t yStart = 0;     ///< source start along K, in 32-byte units
  std::uint8_t xStep = 0;       ///< scale fractals copied along M/N
  std::uint8_t yStep = 0;       ///< 32-byte units copied along K
  std::uint16_t srcStride = 0;  ///< source start-to-start distance of X fractals, 32-byte units
  std::uint16_t dstStride = 0;  ///< destination start-to-start distance of X fractals, 32 bytes

  friend bool operator==(const LoadMxScale&, const LoadMxScale&) = default;
};

/// The scale buffer the load writes.
constexpr Memory mxBufferOf(const LoadMxScale& l) {
  return l.toL0B ? Memory::L0BMx : Memory::L0AMx;
}

std::optional<Violation> validate(const Profile& profile, const LoadMxScale& l);
std::string describe(const LoadMxScale& l);

}  // namespace cubecheck::isa
