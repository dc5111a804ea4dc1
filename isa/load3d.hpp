// LoadData 3D, img2col (spec 6; the LoadData page): V2 and V2Pro on a2 and 950, V1 on legacy, and
// the FMATRIX / FMATRIX_B / PADDING registers they read.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "isa/dtype.hpp"
#include "isa/load2d.hpp"
#include "isa/profile.hpp"
#include "isa/violation.hpp"

namespace cubecheck::isa {

/// Pad list in the documented order [left, right, top, bottom] (spec 6.1).
using PadList = std::array<std::uint8_t, 4>;
enum PadSide : std::size_t { kPadLeft = 0, kPadRight = 1, kPadTop = 2, kPadBottom = 3 };

/// The feature-map geometry an FMATRIX register holds (spec 6.2).
struct FMatrix {
  std::uint16_t l1H = 0;
  std::uint16_t l1W = 0;
  PadList pad{};

  /// The register word: [15:0] l1_w, [31:16] l1_h, [39:32] left, [47:40] right, [55:48] top,
  /// [63:56] bottom.
  std::uint64_t word() const;
  static FMatrix fromWord(std::uint64_t w);
  friend bool operator==(const FMatrix&, const FMatrix&) = default;
};

/// LoadData3DParamsV2, in the order of its constructor (the LoadData page).
struct LoadData3DParamsV2 {
  PadList padList{};
  std::uint16_t l1H = 0;          ///< 0..32767; 0 is a no-op
  std::uint16_t l1W = 0;          ///< 0..32767; 0 is a no-op
  std::uint16_t channelSize = 0;  ///< C; certified only as a multiple of C0 (OPEN-11)
  std::uint16_t kExtension = 0;   ///< columns of X selected; 0 is a no-op
  std::uint16_t mExtension = 0;   ///< rows of X selected; 0 is a no-op
  std::uint16_t kStartPt = 0;     ///< first column of X, a multiple of C0
  std::uint16_t mStartPt = 0;     ///< first row of X
  std::uint8_t strideW = 1;       ///< 1..63
  std::uint8_t strideH = 1;       ///< 1..63
  std::uint8_t filterW = 1;       ///< 0 (no-op unless filter_size_w) .. 255
  std::uint8_t filterH = 1;
  std::uint8_t dilationFilterW = 1;  ///< 1..255
  std::uint8_t dilationFilterH = 1;
  bool enTranspose = false;    ///< L0A only (b16/b32); ignored for L0B, which always transposes
  std::uint32_t padValue = 0;  ///< bit pattern of one element of the dtype
  bool filterSizeW = false;    ///< adds 256 to filter_w
  bool filterSizeH = false;
  bool fMatrixCtrl = false;  ///< read FMATRIX_B instead of FMATRIX

  friend bool operator==(const LoadData3DParamsV2&, const LoadData3DParamsV2&) = default;
};

/// IsResetLoad3dConfig: whether a V2 call first writes its own l1/pads into FMATRIX (always the
/// left register) and its pad value into PADDING (spec 6.2). Default both true.
struct IsResetLoad3dConfig {
  bool isSetFMatrix = true;
  bool isSetPadding = true;
  friend bool operator==(const IsResetLoad3dConfig&, const IsResetLoad3dConfig&) = default;
};

/// LoadData3DParamsV2Pro: the geometry packed into two words, l1/pads/pad value from the
/// registers (spec 6.3).
struct LoadData3DParamsV2Pro {
  std::uint16_t channelSize = 0;
  bool enTranspose = false;
  bool enSmallK = false;  ///< no longer supported: rejected
  bool filterSizeW = false;
  bool filterSizeH = false;
  bool fMatrixCtrl = false;
  std::uint64_t extConfig = 0;  ///< m_start<<48 | k_start<<32 | m_extension<<16 | k_extension
  /// dil_h<<40 | dil_w<<32 | filter_h<<24 | filter_w<<16 | stride_h<<8 | stride_w; bits 63:48
  /// unused (must be 0)
  std::uint64_t filterConfig = 0x10101010101ull;

  friend bool operator==(const LoadData3DParamsV2Pro&, const LoadData3DParamsV2Pro&) = default;
};

/// The V2Pro words of a V2 struct (its l1, pads and pad value have no place in them).
LoadData3DParamsV2Pro packV2Pro(const LoadData3DParamsV2& v2);
/// The V2 fields the V2Pro words stand for; l1, pads and pad value are left 0.
LoadData3DParamsV2 unpackV2Pro(const LoadData3DParamsV2Pro& pro);

/// LoadData3DParamsV1 (legacy; spec 6.4, provisional).
struct LoadData3DParamsV1 {
  PadList padList{};
  std::uint16_t l1H = 1;  ///< 1..32767
  std::uint16_t l1W = 1;
  std::uint16_t c1Index = 0;      ///< 0..4095
  std::uint8_t fetchFilterW = 0;  ///< kernel tap, 0..254, below filter_w
  std::uint8_t fetchFilterH = 0;
  std::int16_t leftTopW = 0;  ///< -255..32767; a left pad of a is -a
  std::int16_t leftTopH = 0;
  std::uint8_t strideW = 1;  ///< 1..63
  std::uint8_t strideH = 1;
  std::uint8_t filterW = 1;  ///< 1..255
  std::uint8_t filterH = 1;
  std::uint8_t dilationFilterW = 1;  ///< 1..255
  std::uint8_t dilationFilterH = 1;
  std::uint8_t jumpStride = 1;  ///< 1..127: destination fractals between repeats (mode 1)
  std::uint8_t repeatMode = 0;  ///< 0: repeats walk the kernel taps; 1: 16 output pixels each
  std::uint8_t repeatTime = 1;  ///< 1..255
  std::uint8_t cSize = 0;       ///< 0/1; 1 is not certified (OPEN-11)
  std::uint32_t padValue = 0;

  friend bool operator==(const LoadData3DParamsV1&, const LoadData3DParamsV1&) = default;
};

struct Load3DV2 {
  static constexpr std::string_view kOpcode = "load3d_v2";
  Load2DPath path = Load2DPath::A1toA2;  ///< A1->A2 or B1->B2
  DType dtype = DType::F16;
  std::uint64_t srcAddr = 0;  ///< L1, the NC1HWC0 feature map
  std::uint64_t dstAddr = 0;  ///< L0A or L0B
  LoadData3DParamsV2 params;
  IsResetLoad3dConfig reset;
  friend bool operator==(const Load3DV2&, const Load3DV2&) = default;
};

struct Load3DV2Pro {
  static constexpr std::string_view kOpcode = "load3d_v2pro";
  Load2DPath path = Load2DPath::A1toA2;
  DType dtype = DType::F16;
  std::uint64_t srcAddr = 0;
  std::uint64_t dstAddr = 0;
  LoadData3DParamsV2Pro params;
  friend bool operator==(const Load3DV2Pro&, const Load3DV2Pro&) = default;
};

struct Load3DV1 {
  static constexpr std::string_view kOpcode = "load3d_v1";
  Load2DPath path = Load2DPath::A1toA2;  ///< the provisional model covers L1->L0A only
  DType dtype = DType::F16;
  std::uint64_t srcAddr = 0;
  std::uint64_t dstAddr = 0;
  LoadData3DParamsV1 params;
  friend bool operator==(const Load3DV1&, const Load3DV1&) = default;
};

/// SetFmatrix: writes FMATRIX (right = false) or FMATRIX_B (right = true).
struct SetFmatrix {
  static constexpr std::string_view kOpcode = "set_fmatrix";
  bool right = false;
  FMatrix value;
  friend bool operator==(const SetFmatrix&, const SetFmatrix&) = default;
};

/// SetLoadDataPaddingValue: writes PADDING with one element of `dtype`.
struct SetPadding {
  static constexpr std::string_view kOpcode = "set_padding";
  DType dtype = DType::F16;
  std::uint32_t value = 0;
  friend bool operator==(const SetPadding&, const SetPadding&) = default;
};

/// Element types of Load3D V2/V2Pro by destination (a2's list; used for 950 too, see
/// docs/decisions.md), and of V1 (legacy).
bool load3dHasDType(Load2DPath path, DType t);
bool load3dV1HasDType(DType t);

/// The geometry every img2col form shares, once its fields are unpacked.
struct Img2ColGeometry {
  std::uint64_t hk, wk;    ///< effective kernel (filter + 256 * filter_size)
  std::uint64_t khd, kwd;  ///< dilated extents
  std::int64_t ho, wo;     ///< output size; < 1 when the window does not fit
};
Img2ColGeometry img2colGeometry(const FMatrix& fm, std::uint64_t filterH, std::uint64_t filterW,
                                bool sizeH, bool sizeW, std::uint64_t dilH, std::uint64_t dilW,
                                std::uint64_t strideH, std::uint64_t strideW);

/// Destination fractals of a V2/V2Pro selection: (rows of fractals) x (columns of fractals) of
/// the destination layout. The reference sizes its writes with it; the oracle and the generators
/// state the same footprint on their own (oracle::img2colDestination;
/// docs/architecture.md#semantics-stated-twice).
std::uint64_t load3dDstFractals(Load2DPath path, DType t, bool transpose, std::uint64_t mExt,
                                std::uint64_t kExt);

/// Spec 6.1's rules on the feature map a V2 or V2Pro load reads, once the FMATRIX (or FMATRIX_B)
/// value it reads is known: `fm` stands for the register, so the l1/pads of `p` are not used, its
/// other fields are. The dilated kernel must fit the padded map, so that Ho and Wo are at least 1
/// (else Range), and the NC1HWC0 map, ceil(channel_size / C0) slices of l1_h * l1_w * 32 bytes
/// from `src`, must end inside L1 (else Capacity). A load that does nothing (spec 6.1) breaks
/// neither. `p` must already pass the rest of validate() (strides of at least 1).
///
/// validate() applies it where the instruction alone decides the register (a V2 load that
/// writes FMATRIX and reads it back); validateProgram() follows the registers through a program;
/// the reference calls it with the register it holds when the load runs.
std::optional<Violation> validateFeatureMap(const Profile& profile, const FMatrix& fm, DType t,
                                            std::uint64_t src, const LoadData3DParamsV2& p);

std::optional<Violation> validate(const Profile& profile, const Load3DV2& load);
std::optional<Violation> validate(const Profile& profile, const Load3DV2Pro& load);
std::optional<Violation> validate(const Profile& profile, const Load3DV1& load);
std::optional<Violation> validate(const Profile& profile, const SetFmatrix& set);
std::optional<Violation> validate(const Profile& profile, const SetPadding& set);

std::string describe(const Load3DV2& load);
std::string describe(const Load3DV2Pro& load);
std::string describe(const Load3DV1& load);
std::string describe(const SetFmatrix& set);
std::string describe(const SetPadding& set);

}  // namespace cubecheck::isa
