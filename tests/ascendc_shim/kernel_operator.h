// The CPU shim's kernel_operator.h: the Ascend C names the exported board kernel uses, with the
// types, fields and call shapes of the API pages, executed on cubecheck's reference model.
// A TEST FIXTURE, not a DUT: see cubecheck_shim_core.h for what it is and is not.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cubecheck_shim_core.h"

// Qualifiers and kernel markers of the device compiler: nothing on the host.
#define __global__
#define __aicore__
#define __gm__
#define __cc__
#define __cbuf__
#define KERNEL_TASK_TYPE_DEFAULT(type) ((void)(type))
using GM_ADDR = std::uint8_t*;

// Element types the host compiler lacks: bit patterns the reference model interprets.
struct half {
  std::uint16_t bits;
};
struct bfloat16_t {
  std::uint16_t bits;
};
struct fp8_e5m2_t {
  std::uint8_t bits;
};
struct fp8_e4m3fn_t {
  std::uint8_t bits;
};
struct hifloat8_t {
  std::uint8_t bits;
};
struct fp4x2_e2m1_t {
  std::uint8_t bits;
};
struct fp4x2_e1m2_t {
  std::uint8_t bits;
};

enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL };
enum class QuantMode_t { NoQuant, F322F16, F322BF16, DEQF16, VDEQF16, QF322B8_PRE, VQF322B8_PRE };
enum KernelMetaType { KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY };

namespace AscendC {

namespace shim = cubecheck_shim;
namespace isa = cubecheck::isa;

struct int4b_t {
  std::uint8_t bits;
};

enum class TPosition : std::uint8_t {
  GM,
  VECIN,
  VECOUT,
  VECCALC,
  A1,
  A2,
  B1,
  B2,
  C1,
  C2,
  CO1,
  CO2
};

namespace detail {

template <typename T>
constexpr isa::DType dtypeOf() {
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    return isa::DType::U8;
  } else if constexpr (std::is_same_v<T, std::int8_t>) {
    return isa::DType::S8;
  } else if constexpr (std::is_same_v<T, std::uint16_t>) {
    return isa::DType::U16;
  } else if constexpr (std::is_same_v<T, std::int16_t>) {
    return isa::DType::S16;
  } else if constexpr (std::is_same_v<T, half>) {
    return isa::DType::F16;
  } else if constexpr (std::is_same_v<T, bfloat16_t>) {
    return isa::DType::BF16;
  } else if constexpr (std::is_same_v<T, std::uint32_t>) {
    return isa::DType::U32;
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return isa::DType::S32;
  } else if constexpr (std::is_same_v<T, float>) {
    return isa::DType::F32;
  } else if constexpr (std::is_same_v<T, int4b_t>) {
    return isa::DType::S4;
  } else if constexpr (std::is_same_v<T, fp8_e5m2_t>) {
    return isa::DType::Fp8E5M2;
  } else if constexpr (std::is_same_v<T, fp8_e4m3fn_t>) {
    return isa::DType::Fp8E4M3FN;
  } else if constexpr (std::is_same_v<T, hifloat8_t>) {
    return isa::DType::HiF8;
  } else if constexpr (std::is_same_v<T, fp4x2_e2m1_t>) {
    return isa::DType::Fp4E2M1;
  } else {
    static_assert(std::is_same_v<T, fp4x2_e1m2_t>, "not an Ascend C element type");
    return isa::DType::Fp4E1M2;
  }
}

/// An element's bit pattern, as instructions carry pad values.
template <typename T>
std::uint32_t bitsOf(const T& v) {
  std::uint32_t u = 0;
  std::memcpy(&u, &v, sizeof(T) < 4 ? sizeof(T) : 4);
  return u;
}

constexpr isa::Memory memoryOf(TPosition p) {
  switch (p) {
    case TPosition::A2:
      return isa::Memory::L0A;
    case TPosition::B2:
      return isa::Memory::L0B;
    case TPosition::CO1:
      return isa::Memory::L0C;
    case TPosition::C2:
      return isa::Memory::BiasTable;
    default:
      return isa::Memory::L1;
  }
}

}  // namespace detail

template <typename T>
class LocalTensor {
 public:
  LocalTensor() = default;
  LocalTensor(TPosition pos, std::uint32_t addr, std::uint32_t tileSize)
      : pos_(pos), addr_(addr), size_(tileSize) {}
  /// Where the tensor's bytes are in the shim's memory of its position.
  T* GetPhyAddr() const {
    return reinterpret_cast<T*>(shim::core().bytes(detail::memoryOf(pos_)).data() + addr_);
  }
  TPosition GetPosition() const { return pos_; }
  std::uint32_t ShimAddress() const { return addr_; }

 private:
  TPosition pos_ = TPosition::A1;
  std::uint32_t addr_ = 0;
  std::uint32_t size_ = 0;
};

template <typename T>
class GlobalTensor {
 public:
  void SetGlobalBuffer(T* buffer) { buffer_ = buffer; }
  T* GetPhyAddr() const { return buffer_; }
  T GetValue(std::uint64_t i) const { return buffer_[i]; }
  void SetValue(std::uint64_t i, T v) { buffer_[i] = v; }

 private:
  T* buffer_ = nullptr;
};

// ---- Parameter structs, with the fields of the API pages -------------------------------------

struct LoadData2DParams {
  std::uint16_t startIndex = 0;
  std::uint8_t repeatTimes = 0;
  std::uint16_t srcStride = 0;
  std::uint8_t sid = 0;
  std::uint16_t dstGap = 0;
  bool ifTranspose = false;
  std::uint8_t addrMode = 0;
};
using LoadData2dParams = LoadData2DParams;

struct LoadData2DParamsV2 {
  std::uint32_t mStartPosition = 0;
  std::uint32_t kStartPosition = 0;
  std::uint16_t mStep = 0;
  std::uint16_t kStep = 0;
  std::int32_t srcStride = 0;
  std::uint16_t dstStride = 0;
  bool ifTranspose = false;
  std::uint8_t sid = 0;
};

struct Load2DBitModeParam {
  std::uint64_t config0 = 0;
  std::uint64_t config1 = 0;
  bool ifTranspose = false;
};

struct IsResetLoad3dConfig {
  bool isSetFMatrix = true;
  bool isSetPadding = true;
};
inline constexpr IsResetLoad3dConfig IS_RESER_LOAD3D_DEFAULT_CONFIG = {true, true};

template <typename T>
struct LoadData3DParamsV2 {
  std::uint8_t padList[4] = {0, 0, 0, 0};
  std::uint16_t l1H = 0;
  std::uint16_t l1W = 0;
  std::uint16_t channelSize = 0;
  std::uint16_t kExtension = 0;
  std::uint16_t mExtension = 0;
  std::uint16_t kStartPt = 0;
  std::uint16_t mStartPt = 0;
  std::uint8_t strideW = 1;
  std::uint8_t strideH = 1;
  std::uint8_t filterW = 1;
  std::uint8_t filterH = 1;
  std::uint8_t dilationFilterW = 1;
  std::uint8_t dilationFilterH = 1;
  bool enTranspose = false;
  bool enSmallK = false;
  T padValue{};
  bool filterSizeW = false;
  bool filterSizeH = false;
  bool fMatrixCtrl = false;
};

struct LoadData3DParamsV2Pro {
  std::uint16_t channelSize = 0;
  bool enTranspose = false;
  bool enSmallK = false;
  bool filterSizeW = false;
  bool filterSizeH = false;
  bool fMatrixCtrl = false;
  std::uint64_t extConfig = 0;
  std::uint64_t filterConfig = 0x10101010101ull;
};

enum class FmatrixMode : std::uint8_t { FMATRIX_LEFT = 0, FMATRIX_RIGHT = 1 };

struct LoadDataRepeatParam {
  std::uint16_t repeatStride = 0;
  std::uint8_t repeatTime = 1;
  std::uint8_t repeatMode = 0;
  std::uint16_t dstStride = 0;
};

struct MmadParams {
  std::uint16_t m = 0;
  std::uint16_t n = 0;
  std::uint16_t k = 0;
  bool cmatrixInitVal = true;
  bool cmatrixSource = false;
  bool isBias = false;
  bool disableGemv = false;
  std::uint8_t unitFlag = 0;
  bool kDirectionAlign = false;
};

struct DataCopyParams {
  std::uint16_t blockCount = 1;
  std::uint16_t blockLen = 0;
  std::uint16_t srcStride = 0;
  std::uint16_t dstStride = 0;
};

enum class CO2Layout : std::uint8_t { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };
struct FixpipeConfig {
  CO2Layout format;
  bool isToUB = false;
};
inline constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ, false};
inline constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR, false};

struct FixpipeParamsV220 {
  std::uint16_t nSize = 0;
  std::uint16_t mSize = 0;
  std::uint16_t srcStride = 0;
  std::uint32_t dstStride = 0;  ///< NZ out: 32-byte blocks between Z columns
  QuantMode_t quantPre = QuantMode_t::NoQuant;
  std::uint64_t deqScalar = 0;
  bool reluEn = false;
  std::uint8_t unitFlag = 0;
};

template <CO2Layout kFormat>
struct FixpipeParamsArch3510 {
  std::uint16_t nSize = 0;
  std::uint16_t mSize = 0;
  std::uint16_t srcStride = 0;
  std::uint32_t dstStride = 0;  ///< NZ out: elements between Z columns
  QuantMode_t quantPre = QuantMode_t::NoQuant;
  std::uint64_t deqScalar = 0;
  bool reluEn = false;
  std::uint8_t unitFlag = 0;
};

enum class CacheLine { SINGLE_CACHE_LINE, ENTIRE_DATA_CACHE };
enum class DcciDst { CACHELINE_ALL, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };

// ---- Control: synchronisation and mode registers ---------------------------------------------

template <pipe_t kPipe>
inline void PipeBarrier() {}  // the shim runs every call to completion in order

template <typename T, CacheLine kLine, DcciDst kDst>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {}

inline void InitSocState() {}

struct AscendCUtils {
  static void SetOverflow(std::uint64_t saturate) {
    // Spec 8 reads Mmad in saturation mode, which is what the reference model does.
    if (saturate != 0) shim::fail("SetOverflow(1): the reference model holds saturation mode");
  }
};

inline void SetHF32Mode(bool enable) {
  shim::core().hf32.enable = enable;
}

inline void SetHF32TransMode(bool mode) {
  shim::core().hf32.transMode = mode ? 1 : 0;
}

template <int kLow, int kHigh>
inline void SetCtrlSpr(std::int64_t value) {
  static_assert(kLow == 45 && kHigh == 45, "the shim knows CTRL[45] (HiF8 mode) only");
  shim::core().hif8 = value != 0;
}

inline void SetLoadDataRepeat(const LoadDataRepeatParam& p) {
  if (p.repeatTime != 1 || p.repeatStride != 0 || p.repeatMode != 0) {
    shim::fail("SetLoadDataRepeat with repeats: the reference model holds one iteration");
  }
  shim::core().repeatDstStride = p.dstStride;
}

inline void SetFmatrix(std::uint16_t l1H, std::uint16_t l1W, const std::uint8_t padList[4],
                       const FmatrixMode& mode) {
  isa::FMatrix f;
  f.l1H = l1H;
  f.l1W = l1W;
  for (int i = 0; i < 4; ++i) f.pad[static_cast<std::size_t>(i)] = padList[i];
  const isa::SetFmatrix set{mode == FmatrixMode::FMATRIX_RIGHT, f};
  if (auto v = isa::validate(isa::profile(shim::kProfile), set)) {
    return shim::fail("SetFmatrix: " + v->message);
  }
  shim::core().fmatrix[set.right ? 1 : 0] = f;
}

template <typename T>
inline void SetLoadDataPaddingValue(const T padValue) {
  const isa::SetPadding set{detail::dtypeOf<T>(), detail::bitsOf(padValue)};
  if (auto v = isa::validate(isa::profile(shim::kProfile), set)) {
    return shim::fail("SetLoadDataPaddingValue: " + v->message);
  }
  shim::core().padding = set;
}

// ---- Loads -----------------------------------------------------------------------------------

namespace detail {

inline std::optional<isa::Load2DPath> pathOf(TPosition src, TPosition dst) {
  using P = isa::Load2DPath;
  if (src == TPosition::GM) {
    if (dst == TPosition::A1) return P::GMtoA1;
    if (dst == TPosition::B1) return P::GMtoB1;
    if (dst == TPosition::A2) return P::GMtoA2;
    if (dst == TPosition::B2) return P::GMtoB2;
  }
  if (src == TPosition::A1 && dst == TPosition::A2) return P::A1toA2;
  if (src == TPosition::B1 && dst == TPosition::B2) return P::B1toB2;
  shim::fail("no LoadData path between these positions");
  return std::nullopt;
}

inline isa::LoadData2DParams params2D(const LoadData2DParams& p) {
  return {p.startIndex, p.repeatTimes, p.srcStride, p.sid, p.dstGap, p.ifTranspose, p.addrMode};
}

inline isa::LoadData2DParamsV2 paramsV2(const LoadData2DParamsV2& p) {
  return {p.mStartPosition, p.kStartPosition, p.mStep,       p.kStep,
          p.srcStride,      p.dstStride,      p.ifTranspose, p.sid};
}

/// dav-3510 takes a Load3D destination's stride from SetLoadDataRepeat; the reference model
/// holds the samples' value (spec 6.1), so the kernel must have set exactly that.
inline void checkRepeat(isa::Load2DPath path, std::uint64_t mExtension, std::uint64_t kExtension) {
  if (shim::kProfile != isa::ProfileId::Ascend950) return;
  const std::uint64_t extent = path == isa::Load2DPath::B1toB2 ? kExtension : mExtension;
  if (shim::core().repeatDstStride != (extent + 15) / 16) {
    shim::fail("SetLoadDataRepeat dstStride " + std::to_string(shim::core().repeatDstStride) +
               " before a Load3D whose selection needs " + std::to_string((extent + 15) / 16));
  }
}

}  // namespace detail

namespace detail {

/// A 2D load (LoadData2DParams or V2) from L1 (`l1Src`) or from GM (`gmSrc`, when srcPos is GM).
template <typename Ins, typename T, typename Params>
void load2d(const LocalTensor<T>& dst, TPosition srcPos, std::uint32_t l1Src, const void* gmSrc,
            const Params& params) {
  const auto path = pathOf(srcPos, dst.GetPosition());
  std::optional<shim::GmOperand> gm;
  if (srcPos == TPosition::GM) gm = shim::gmOperand(gmSrc);
  if (!path || (srcPos == TPosition::GM && !gm)) return;
  std::vector<isa::Memory> memories{memoryOf(dst.GetPosition())};
  if (!gm) memories.push_back(isa::Memory::L1);
  shim::execute(Ins{*path, dtypeOf<T>(), gm ? gm->offset : l1Src, dst.ShimAddress(), params},
                memories, gm);
}

}  // namespace detail

namespace detail {

/// The ISA instruction and parameters of a 2D load's parameter struct; none for other structs.
template <typename P>
struct Load2DKind {};
template <>
struct Load2DKind<LoadData2DParams> {
  using Ins = isa::Load2D;
  static isa::LoadData2DParams convert(const LoadData2DParams& p) { return params2D(p); }
};
template <>
struct Load2DKind<LoadData2DParamsV2> {
  using Ins = isa::LoadV2;
  static isa::LoadData2DParamsV2 convert(const LoadData2DParamsV2& p) { return paramsV2(p); }
};

}  // namespace detail

/// LoadData with LoadData2DParams or LoadData2DParamsV2, from L1.
template <typename T, typename P, typename Ins = typename detail::Load2DKind<P>::Ins>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const P& p) {
  detail::load2d<Ins>(dst, src.GetPosition(), src.ShimAddress(), nullptr,
                      detail::Load2DKind<P>::convert(p));
}

/// LoadData with LoadData2DParams or LoadData2DParamsV2, from GM.
template <typename T, typename P, typename Ins = typename detail::Load2DKind<P>::Ins>
inline void LoadData(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const P& p) {
  detail::load2d<Ins>(dst, TPosition::GM, 0, src.GetPhyAddr(), detail::Load2DKind<P>::convert(p));
}

template <TPosition kDst, TPosition kSrc, typename T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const Load2DBitModeParam& p) {
  if (dst.GetPosition() != kDst || src.GetPosition() != kSrc) {
    return shim::fail("Load2DBitModeParam: tensors at other positions than the template's");
  }
  const auto path = detail::pathOf(kSrc, kDst);
  if (!path) return;
  shim::execute(isa::LoadBitMode{*path, detail::dtypeOf<T>(), src.ShimAddress(), dst.ShimAddress(),
                                 isa::Load2DBitModeParam(p.config0, p.config1, p.ifTranspose)},
                {isa::Memory::L1, detail::memoryOf(kDst)});
}

template <typename T, const IsResetLoad3dConfig& kConfig = IS_RESER_LOAD3D_DEFAULT_CONFIG,
          typename U = T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const LoadData3DParamsV2<U>& p) {
  static_assert(std::is_same_v<T, U>, "padValue's type must be the tensors'");
  const auto path = detail::pathOf(src.GetPosition(), dst.GetPosition());
  if (!path) return;
  detail::checkRepeat(*path, p.mExtension, p.kExtension);
  isa::LoadData3DParamsV2 v;
  for (int i = 0; i < 4; ++i) v.padList[static_cast<std::size_t>(i)] = p.padList[i];
  v.l1H = p.l1H;
  v.l1W = p.l1W;
  v.channelSize = p.channelSize;
  v.kExtension = p.kExtension;
  v.mExtension = p.mExtension;
  v.kStartPt = p.kStartPt;
  v.mStartPt = p.mStartPt;
  v.strideW = p.strideW;
  v.strideH = p.strideH;
  v.filterW = p.filterW;
  v.filterH = p.filterH;
  v.dilationFilterW = p.dilationFilterW;
  v.dilationFilterH = p.dilationFilterH;
  v.enTranspose = p.enTranspose;
  v.padValue = detail::bitsOf(p.padValue);
  v.filterSizeW = p.filterSizeW;
  v.filterSizeH = p.filterSizeH;
  v.fMatrixCtrl = p.fMatrixCtrl;
  if (p.enSmallK) return shim::fail("enSmallK: no longer supported (spec 6.3)");
  const isa::IsResetLoad3dConfig reset{kConfig.isSetFMatrix, kConfig.isSetPadding};
  shim::execute(
      isa::Load3DV2{*path, detail::dtypeOf<T>(), src.ShimAddress(), dst.ShimAddress(), v, reset},
      {isa::Memory::L1, detail::memoryOf(dst.GetPosition())});
  // The registers a V2 call writes before it reads them (spec 6.2).
  if (reset.isSetFMatrix) shim::core().fmatrix[0] = isa::FMatrix{v.l1H, v.l1W, v.padList};
  if (reset.isSetPadding) shim::core().padding = isa::SetPadding{detail::dtypeOf<T>(), v.padValue};
}

template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const LoadData3DParamsV2Pro& p) {
  const auto path = detail::pathOf(src.GetPosition(), dst.GetPosition());
  if (!path) return;
  detail::checkRepeat(*path, p.extConfig >> 16 & 0xFFFF, p.extConfig & 0xFFFF);
  isa::LoadData3DParamsV2Pro v;
  v.channelSize = p.channelSize;
  v.enTranspose = p.enTranspose;
  v.enSmallK = p.enSmallK;
  v.filterSizeW = p.filterSizeW;
  v.filterSizeH = p.filterSizeH;
  v.fMatrixCtrl = p.fMatrixCtrl;
  v.extConfig = p.extConfig;
  v.filterConfig = p.filterConfig;
  shim::execute(
      isa::Load3DV2Pro{*path, detail::dtypeOf<T>(), src.ShimAddress(), dst.ShimAddress(), v},
      {isa::Memory::L1, detail::memoryOf(dst.GetPosition())});
}

template <typename T, typename U>
inline void LoadDataWithSparse(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                               const LocalTensor<U>& idx, const LoadData2DParams& p) {
  static_assert(std::is_same_v<T, std::int8_t> && std::is_same_v<U, std::uint8_t>);
  shim::execute(isa::LoadSparse{isa::DType::S8, src.ShimAddress(), idx.ShimAddress(),
                                dst.ShimAddress(), detail::params2D(p)},
                {isa::Memory::L1, isa::Memory::L0B, isa::Memory::SparseIndex});
}

// ---- Mmad ------------------------------------------------------------------------------------

namespace detail {

template <typename T, typename U, typename S>
void mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
          std::optional<std::uint32_t> bias, const MmadParams& p) {
  isa::Mmad x;
  x.dtype = dtypeOf<U>();
  if (dtypeOf<S>() != x.dtype) x.bDtype = dtypeOf<S>();
  x.cAddr = dst.ShimAddress();
  x.aAddr = fm.ShimAddress();
  x.bAddr = filter.ShimAddress();
  x.m = p.m;
  x.k = p.k;
  x.n = p.n;
  x.unitFlag = p.unitFlag;
  x.kDirectionAlign = p.kDirectionAlign;
  x.cmatrixSource = p.cmatrixSource;
  x.cmatrixInitVal = p.cmatrixInitVal;
  x.isBias = bias.has_value();
  x.biasAddr = bias.value_or(0);
  x.disableGemv = p.disableGemv;
  if (isa::accumulatorOf(x.dtype) != dtypeOf<T>()) return shim::fail("Mmad: C of another type");
  shim::execute(x, {isa::Memory::L0A, isa::Memory::L0B, isa::Memory::L0C, isa::Memory::BiasTable});
}

}  // namespace detail

template <typename T, typename U, typename S>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                 const MmadParams& p) {
  detail::mmad(dst, fm, filter, std::nullopt, p);
}

template <typename T, typename U, typename S, typename V>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                 const LocalTensor<V>& bias, const MmadParams& p) {
  if (bias.GetPosition() != TPosition::C2) return shim::fail("Mmad: a bias tensor outside C2");
  detail::mmad(dst, fm, filter, bias.ShimAddress(), p);
}

template <typename T, typename U>
inline void MmadWithSparse(const LocalTensor<T>& dst, const LocalTensor<U>& fm,
                           const LocalTensor<U>& filter, const MmadParams& p) {
  static_assert(std::is_same_v<T, std::int32_t> && std::is_same_v<U, std::int8_t>);
  shim::execute(
      isa::MmadSparse{isa::DType::S8, dst.ShimAddress(), fm.ShimAddress(), filter.ShimAddress(),
                      p.m, p.k, p.n, p.unitFlag, p.cmatrixSource, p.cmatrixInitVal},
      {isa::Memory::L0A, isa::Memory::L0B, isa::Memory::L0C, isa::Memory::BiasTable,
       isa::Memory::SparseIndex});
}

// ---- Data movement: byte copies in the units of the API pages --------------------------------

namespace detail {

/// blockCount blocks of blockLen units, each side advancing by (blockLen + gap) units.
inline void blocks(std::uint8_t* dst, const std::uint8_t* src, const DataCopyParams& p,
                   std::uint64_t unit, std::uint64_t gapUnit) {
  for (std::uint64_t b = 0; b < p.blockCount; ++b) {
    std::memcpy(dst + b * (p.blockLen * unit + p.dstStride * gapUnit),
                src + b * (p.blockLen * unit + p.srcStride * gapUnit), p.blockLen * unit);
  }
}

inline std::uint64_t span(const DataCopyParams& p, std::uint64_t unit, std::uint64_t gap,
                          std::uint16_t gapUnits) {
  return p.blockCount == 0 ? 0
                           : p.blockCount * p.blockLen * unit + (p.blockCount - 1) * gapUnits * gap;
}

}  // namespace detail

/// GM -> L1.
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                     const DataCopyParams& p) {
  const std::uint64_t n = detail::span(p, 32, 32, p.srcStride);
  std::uint8_t* to = shim::local(detail::memoryOf(dst.GetPosition()), dst.ShimAddress(),
                                 detail::span(p, 32, 32, p.dstStride));
  if (to == nullptr || !shim::checkedGm(src.GetPhyAddr(), n)) return;
  detail::blocks(to, reinterpret_cast<const std::uint8_t*>(src.GetPhyAddr()), p, 32, 32);
}

/// L1 -> GM (dav-2201; dav-3510 removed the path).
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                     const DataCopyParams& p) {
  if (shim::kProfile == isa::ProfileId::Ascend950) {
    return shim::fail("DataCopy L1 -> GM: no such path on dav-3510");
  }
  const std::uint8_t* from = shim::local(detail::memoryOf(src.GetPosition()), src.ShimAddress(),
                                         detail::span(p, 32, 32, p.srcStride));
  if (from == nullptr || !shim::checkedGm(dst.GetPhyAddr(), detail::span(p, 32, 32, p.dstStride))) {
    return;
  }
  detail::blocks(reinterpret_cast<std::uint8_t*>(dst.GetPhyAddr()), from, p, 32, 32);
}

/// L1 (C1) -> bias table (C2): blockLen in 64 bytes on dav-2201, 32 (and even) on dav-3510.
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const DataCopyParams& p) {
  if (dst.GetPosition() != TPosition::C2 || src.GetPosition() != TPosition::C1) {
    return shim::fail("DataCopy between local positions other than C1 -> C2");
  }
  const std::uint64_t unit = shim::kProfile == isa::ProfileId::A2 ? 64 : 32;
  if (unit == 32 && p.blockLen % 2 != 0) return shim::fail("DataCopy C1 -> C2: odd blockLen");
  std::uint8_t* to = shim::local(isa::Memory::BiasTable, dst.ShimAddress(),
                                 detail::span(p, unit, 32, p.dstStride));
  const std::uint8_t* from =
      shim::local(isa::Memory::L1, src.ShimAddress(), detail::span(p, unit, 32, p.srcStride));
  if (to == nullptr || from == nullptr) return;
  detail::blocks(to, from, p, unit, 32);
}

namespace detail {

/// Fixpipe L0C -> GM, NZ out, no quantisation: Z column j (16 columns of C) of mSize rows from
/// L0C at j * srcStride rows, to GM at j * dstStride (in `dstUnit` bytes).
template <typename T, typename U, typename P>
void fixpipeNz(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const P& p,
               std::uint64_t dstUnit) {
  static_assert(sizeof(T) == 4 && sizeof(U) == 4, "the shim copies 32-bit L0C out unchanged");
  if (p.quantPre != QuantMode_t::NoQuant || p.reluEn || p.nSize % 16 != 0) {
    return shim::fail("Fixpipe: the shim copies NZ without quantisation or ReLU only");
  }
  const std::uint64_t row = 16 * sizeof(U);
  for (std::uint64_t j = 0; j < p.nSize / 16u; ++j) {
    const std::uint8_t* from =
        shim::local(isa::Memory::L0C, src.ShimAddress() + j * p.srcStride * row, p.mSize * row);
    auto* to = reinterpret_cast<std::uint8_t*>(dst.GetPhyAddr()) + j * p.dstStride * dstUnit;
    if (from == nullptr || !shim::checkedGm(to, p.mSize * row)) return;
    std::memcpy(to, from, p.mSize * row);
  }
}

}  // namespace detail

template <typename T, typename U, const FixpipeConfig& kConfig = CFG_ROW_MAJOR>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src,
                    const FixpipeParamsV220& p) {
  static_assert(kConfig.format == CO2Layout::NZ, "the shim has the NZ2NZ readout only");
  detail::fixpipeNz(dst, src, p, 32);
}

template <typename T, typename U, const FixpipeConfig& kConfig = CFG_ROW_MAJOR,
          CO2Layout kFormat = CO2Layout::NZ>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src,
                    const FixpipeParamsArch3510<kFormat>& p) {
  static_assert(kConfig.format == CO2Layout::NZ && kFormat == CO2Layout::NZ,
                "the shim has the NZ2NZ readout only");
  if (shim::kProfile != isa::ProfileId::Ascend950) {
    return shim::fail("FixpipeParamsArch3510 on dav-2201");
  }
  detail::fixpipeNz(dst, src, p, sizeof(T));
}

}  // namespace AscendC
