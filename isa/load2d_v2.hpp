// LoadData with LoadData2DParamsV2 and with Load2DBitModeParam (spec 5; the LoadData and bit-mode
// pages): the 950's 2D load of a rectangle of fractals, optionally transposed as one block.
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

/// LoadData2DParamsV2 as the C++ struct holds it: wider than the hardware fields, which are
/// 16 bits for positions and strides and 8 bits for steps (spec 5).
struct LoadData2DParamsV2 {
  std::uint32_t mStartPosition = 0;  ///< in 16-row units
  std::uint32_t kStartPosition = 0;  ///< in 32-byte (C0-element) units
  std::uint16_t mStep = 0;           ///< 16-row units; hardware 0..255; 0 is a no-op
  std::uint16_t kStep = 0;           ///< 32-byte units; hardware 0..255; 0 is a no-op
  std::int32_t srcStride = 0;        ///< fractals between K-adjacent source fractals (OPEN-10: < 0)
  std::uint16_t dstStride = 0;       ///< fractals between column-adjacent destination fractals
  bool ifTranspose = false;
  std::uint8_t sid = 0;  ///< ignored

  friend bool operator==(const LoadData2DParamsV2&, const LoadData2DParamsV2&) = default;
};

/// Load2DBitModeParam: the V2 fields packed into two 64-bit words, first bit-field member in the
/// lowest bits (spec 5 table). if_transpose travels beside the words.
class Load2DBitModeParam {
 public:
  Load2DBitModeParam() = default;
  /// Truncates each field to its hardware width, as the vendor's constructor does.
  explicit Load2DBitModeParam(const LoadData2DParamsV2& v2);
  Load2DBitModeParam(std::uint64_t config0, std::uint64_t config1, bool transpose)
      : config0_(config0), config1_(config1), ifTranspose_(transpose) {}

  void setMStartPosition(std::uint32_t v);  ///< bits 15:0 of config0
  void setKStartPosition(std::uint32_t v);  ///< bits 31:16 of config0
  void setMStep(std::uint16_t v);           ///< bits 39:32 of config0
  void setKStep(std::uint16_t v);           ///< bits 47:40 of config0
  void setSrcStride(std::int32_t v);        ///< bits 15:0 of config1
  void setDstStride(std::uint16_t v);       ///< bits 31:16 of config1
  void setIfTranspose(bool v) { ifTranspose_ = v; }

  std::uint32_t mStartPosition() const { return static_cast<std::uint32_t>(config0_ & 0xFFFF); }
  std::uint32_t kStartPosition() const {
    return static_cast<std::uint32_t>(config0_ >> 16 & 0xFFFF);
  }
  std::uint16_t mStep() const { return static_cast<std::uint16_t>(config0_ >> 32 & 0xFF); }
  std::uint16_t kStep() const { return static_cast<std::uint16_t>(config0_ >> 40 & 0xFF); }
  std::int32_t srcStride() const { return static_cast<std::int32_t>(config1_ & 0xFFFF); }
  std::uint16_t dstStride() const { return static_cast<std::uint16_t>(config1_ >> 16 & 0xFFFF); }
  bool ifTranspose() const { return ifTranspose_; }
  std::uint64_t config0() const { return config0_; }
  std::uint64_t config1() const { return config1_; }

  /// The V2 struct these words stand for.
  LoadData2DParamsV2 toV2() const;

  friend bool operator==(const Load2DBitModeParam&, const Load2DBitModeParam&) = default;

 private:
  std::uint64_t config0_ = 0;
  std::uint64_t config1_ = 0;
  bool ifTranspose_ = false;
};

/// LoadData with LoadData2DParamsV2: L1->L0A, L1->L0B, GM->L1.
struct LoadV2 {
  static constexpr std::string_view kOpcode = "load2d_v2";
  Load2DPath path = Load2DPath::A1toA2;
  DType dtype = DType::F16;
  std::uint64_t srcAddr = 0;
  std::uint64_t dstAddr = 0;
  LoadData2DParamsV2 params;
  friend bool operator==(const LoadV2&, const LoadV2&) = default;
};

/// LoadData with Load2DBitModeParam: L1->L0A and L1->L0B only.
struct LoadBitMode {
  static constexpr std::string_view kOpcode = "load2d_bitmode";
  Load2DPath path = Load2DPath::A1toA2;
  DType dtype = DType::F16;
  std::uint64_t srcAddr = 0;
  std::uint64_t dstAddr = 0;
  Load2DBitModeParam params;
  friend bool operator==(const LoadBitMode&, const LoadBitMode&) = default;
};

/// The 12 types of the bit-mode page (Load2DBitModeParam), which the V2 load shares.
bool v2HasDType(DType t);
bool v2HasPath(Load2DPath p);  ///< A1->A2, B1->B2, GM->A1, GM->B1

/// Fractals of the destination rectangle, in the destination's column (C0) direction and along
/// it: non-transposed k_step x m_step; transposed (C0*k_step/16) rows x (16*m_step/C0) columns.
struct V2Shape {
  std::uint64_t rows;     ///< fractals per destination column
  std::uint64_t columns;  ///< destination columns, dst_stride apart
};
V2Shape v2Shape(DType t, const LoadData2DParamsV2& p);

std::optional<Violation> validate(const Profile& profile, const LoadV2& load);
std::optional<Violation> validate(const Profile& profile, const LoadBitMode& load);
std::string describe(const LoadV2& load);
std::string describe(const LoadBitMode& load);

}  // namespace cubecheck::isa
