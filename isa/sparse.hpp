// LoadDataWithSparse and MmadWithSparse (spec 7; the LoadDataWithSparse and asc_mmad_sparse pages):
// the 2:4 pipeline of a2.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "isa/dtype.hpp"
#include "isa/load2d.hpp"
#include "isa/profile.hpp"
#include "isa/violation.hpp"

namespace cubecheck::isa {

inline constexpr std::uint64_t kIndexFractalBytes = 128;  ///< 2-bit indices of one dense fractal

/// Whether the profile has the 2:4 instructions: a2 only (the 3510 removed 4:2 sparsity; the
/// legacy parts never had it).
constexpr bool hasSparse(ProfileId p) {
  return p == ProfileId::A2;
}

/// LoadDataWithSparse: B1 -> B2, one 512-byte dense fractal and its 128-byte index fractal per
/// repeat (spec 7.3). Only start_index and repeat_times are used (OPEN-5: src_stride, dst_gap,
/// sid and addr_mode are ignored); if_transpose is illegal (the LoadDataWithSparse page: no
/// transpose).
struct LoadSparse {
  static constexpr std::string_view kOpcode = "load_sparse";
  DType dtype = DType::S8;    ///< int8 only
  std::uint64_t srcAddr = 0;  ///< dense fractals in L1 (B1), 32-byte aligned
  std::uint64_t idxAddr = 0;  ///< index fractals in L1 (B1), 32-byte aligned
  std::uint64_t dstAddr =
      0;  ///< L0B (B2), 512-byte aligned; indices go to the index buffer at dst/4 (OPEN-4)
  LoadData2DParams params;

  friend bool operator==(const LoadSparse&, const LoadSparse&) = default;
};

/// MmadWithSparse / asc_mmad_sparse: C (L0C, Nz s32) = init + A (L0A, Zz s8, M x K) * B' where B'
/// comes from the dense B in L0B (Zn, K/2 x N) and the index buffer (spec 7.4).
struct MmadSparse {
  static constexpr std::string_view kOpcode = "mmad_sparse";
  DType dtype = DType::S8;     ///< the operand type; C is s32
  std::uint64_t cAddr = 0;     ///< L0C, 1024-byte aligned
  std::uint64_t aAddr = 0;     ///< L0A, 512-byte aligned
  std::uint64_t bAddr = 0;     ///< L0B, 512-byte aligned
  std::uint16_t m = 0;         ///< 0..4095; 1 (GEMV) is not supported; 0 is a no-op
  std::uint16_t k = 0;         ///< the full, uncompressed K, 0..4095
  std::uint16_t n = 0;         ///< 0..4095
  std::uint8_t unitFlag = 0;   ///< 0, 2 or 3: synchronisation only, never values
  bool cmatrixSource = false;  ///< init from the bias table (true) or L0C (false)
  bool cmatrixInitVal = true;  ///< init with zero, overriding cmatrixSource

  friend bool operator==(const MmadSparse&, const MmadSparse&) = default;
};

std::optional<Violation> validate(const Profile& profile, const LoadSparse& load);
std::optional<Violation> validate(const Profile& profile, const MmadSparse& mmad);

std::string describe(const LoadSparse& load);
std::string describe(const MmadSparse& mmad);

}  // namespace cubecheck::isa
