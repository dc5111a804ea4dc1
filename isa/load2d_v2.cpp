#include "isa/load2d_v2.hpp"

#include <cstdlib>
#include <sstream>

namespace cubecheck::isa {

namespace {
constexpr std::uint64_t field(std::uint64_t word, int lo, int bits, std::uint64_t v) {
  const std::uint64_t mask = ((std::uint64_t{1} << bits) - 1) << lo;
  return (word & ~mask) | ((v << lo) & mask);
}
}  // namespace

Load2DBitModeParam::Load2DBitModeParam(const LoadData2DParamsV2& v) {
  setMStartPosition(v.mStartPosition);
  setKStartPosition(v.kStartPosition);
  setMStep(v.mStep);
  setKStep(v.kStep);
  setSrcStride(v.srcStride);
  setDstStride(v.dstStride);
  ifTranspose_ = v.ifTranspose;
}

void Load2DBitModeParam::setMStartPosition(std::uint32_t v) {
  config0_ = field(config0_, 0, 16, v);
}
void Load2DBitModeParam::setKStartPosition(std::uint32_t v) {
  config0_ = field(config0_, 16, 16, v);
}
void Load2DBitModeParam::setMStep(std::uint16_t v) {
  config0_ = field(config0_, 32, 8, v);
}
void Load2DBitModeParam::setKStep(std::uint16_t v) {
  config0_ = field(config0_, 40, 8, v);
}
void Load2DBitModeParam::setSrcStride(std::int32_t v) {
  config1_ = field(config1_, 0, 16, static_cast<std::uint32_t>(v));
}
void Load2DBitModeParam::setDstStride(std::uint16_t v) {
  config1_ = field(config1_, 16, 16, v);
}

LoadData2DParamsV2 Load2DBitModeParam::toV2() const {
  LoadData2DParamsV2 v;
  v.mStartPosition = mStartPosition();
  v.kStartPosition = kStartPosition();
  v.mStep = mStep();
  v.kStep = kStep();
  v.srcStride = srcStride();
  v.dstStride = dstStride();
  v.ifTranspose = ifTranspose_;
  return v;
}

bool v2HasDType(DType t) {
  switch (t) {
    case DType::S8:
    case DType::U8:
    case DType::Fp4E2M1:
    case DType::Fp4E1M2:
    case DType::HiF8:
    case DType::Fp8E5M2:
    case DType::Fp8E4M3FN:
    case DType::F16:
    case DType::BF16:
    case DType::S32:
    case DType::U32:
    case DType::F32:
      return true;
    default:
      return false;
  }
}

bool v2HasPath(Load2DPath p) {
  return p == Load2DPath::A1toA2 || p == Load2DPath::B1toB2 || p == Load2DPath::GMtoA1 ||
         p == Load2DPath::GMtoB1;
}

V2Shape v2Shape(DType t, const LoadData2DParamsV2& p) {
  if (!p.ifTranspose) return {p.mStep, p.kStep};
  const std::uint64_t c0 = static_cast<std::uint64_t>(c0Of(t));
  return {c0 * p.kStep / 16, 16 * std::uint64_t{p.mStep} / c0};
}

namespace {

std::optional<Violation> validateV2(const Profile& prof, Load2DPath path, DType dtype,
                                    std::uint64_t src, std::uint64_t dst,
                                    const LoadData2DParamsV2& p, const char* what) {
  using V = ViolationCode;
  if (prof.id != ProfileId::Ascend950 || !v2HasPath(path)) {
    return Violation{V::PathUnsupported, std::string(what) + " on " + std::string(nameOf(path)) +
                                             " does not exist on profile " +
                                             std::string(prof.name)};
  }
  if (!v2HasDType(dtype)) {
    return Violation{V::DTypeUnsupported, std::string(what) + " does not move " +
                                              std::string(nameOf(dtype)) +
                                              " (the Load2DBitModeParam page's list)"};
  }
  // The hardware fields: 16-bit positions and strides, 8-bit steps (spec 5).
  if (p.mStartPosition > 0xFFFF || p.kStartPosition > 0xFFFF || p.mStep > 0xFF || p.kStep > 0xFF ||
      std::abs(static_cast<long long>(p.srcStride)) > 0xFFFF) {
    return Violation{V::Range,
                     "a field exceeds its hardware width (positions and src_stride 16 bits, steps "
                     "8 bits)"};
  }
  if (p.ifTranspose && (path == Load2DPath::GMtoA1 || path == Load2DPath::GMtoB1)) {
    return Violation{V::TransposePath, "the V2 load transposes only L1->L0A and L1->L0B"};
  }
  if (p.ifTranspose) {
    // The square-block rule needs 16*m_step % C0 == 0 and C0*k_step % 16 == 0 (spec 5): b4
    // m_step % 4, b8 m_step % 2, b32 k_step % 2.
    const int c0 = c0Of(dtype);
    if ((16 * p.mStep) % c0 != 0 || (c0 * p.kStep) % 16 != 0) {
      return Violation{V::Range,
                       "transposed " + std::string(nameOf(dtype)) + " needs " +
                           (bitsOf(dtype) == 32 ? std::string("k_step % 2 == 0")
                                                : "m_step % " + std::to_string(c0 / 16) + " == 0") +
                           " (m_step " + std::to_string(p.mStep) + ", k_step " +
                           std::to_string(p.kStep) + ")"};
    }
  }
  const Memory srcMem = memoryOf(srcOf(path));
  const Memory dstMem = memoryOf(dstOf(path));
  if (src % prof.alignmentOf(srcMem) != 0 || dst % prof.alignmentOf(dstMem) != 0) {
    std::ostringstream os;
    os << "src 0x" << std::hex << src << " or dst 0x" << dst << " misaligned for " << nameOf(srcMem)
       << " (" << std::dec << prof.alignmentOf(srcMem) << ") / " << nameOf(dstMem) << " ("
       << prof.alignmentOf(dstMem) << ")";
    return Violation{V::Alignment, os.str()};
  }
  if (p.mStep == 0 || p.kStep == 0) return std::nullopt;  // a no-op touches nothing
  const std::uint64_t stride =
      static_cast<std::uint64_t>(std::abs(static_cast<long long>(p.srcStride)));
  const std::uint64_t srcTop =
      (std::uint64_t{p.kStartPosition} + p.kStep - 1) * stride + p.mStartPosition + p.mStep - 1;
  if (src + (srcTop + 1) * kFractalBytes > prof.capacityOf(srcMem)) {
    return Violation{V::Capacity, "source fractal " + std::to_string(srcTop) + " ends past " +
                                      std::string(nameOf(srcMem))};
  }
  const V2Shape s = v2Shape(dtype, p);
  const std::uint64_t dstTop = (s.columns - 1) * p.dstStride + s.rows - 1;
  if (dst + (dstTop + 1) * kFractalBytes > prof.capacityOf(dstMem)) {
    return Violation{V::Capacity, "destination fractal " + std::to_string(dstTop) + " ends past " +
                                      std::string(nameOf(dstMem))};
  }
  return std::nullopt;
}

std::string fields(const LoadData2DParamsV2& p) {
  std::ostringstream os;
  os << "m_start=" << p.mStartPosition << " k_start=" << p.kStartPosition << " m_step=" << p.mStep
     << " k_step=" << p.kStep << " src_stride=" << p.srcStride << " dst_stride=" << p.dstStride
     << " if_transpose=" << int{p.ifTranspose};
  return os.str();
}

}  // namespace

std::optional<Violation> validate(const Profile& prof, const LoadV2& l) {
  return validateV2(prof, l.path, l.dtype, l.srcAddr, l.dstAddr, l.params, "LoadData2DParamsV2");
}

std::optional<Violation> validate(const Profile& prof, const LoadBitMode& l) {
  if (l.path == Load2DPath::GMtoA1 || l.path == Load2DPath::GMtoB1) {
    return Violation{
        ViolationCode::PathUnsupported,
        "Load2DBitModeParam exists only for L1->L0A and L1->L0B (the Load2DBitModeParam page)"};
  }
  if ((l.params.config0() >> 48) != 0 || (l.params.config1() >> 32) != 0) {
    return Violation{ViolationCode::Range, "unused bits of config0 (63:48) or config1 (63:32) set"};
  }
  return validateV2(prof, l.path, l.dtype, l.srcAddr, l.dstAddr, l.params.toV2(),
                    "Load2DBitModeParam");
}

std::string describe(const LoadV2& l) {
  std::ostringstream os;
  os << "LoadData2DV2 " << nameOf(l.path) << ' ' << nameOf(l.dtype) << " src=0x" << std::hex
     << l.srcAddr << " dst=0x" << l.dstAddr << std::dec << ' ' << fields(l.params);
  return os.str();
}

std::string describe(const LoadBitMode& l) {
  std::ostringstream os;
  os << "LoadData2DBitMode " << nameOf(l.path) << ' ' << nameOf(l.dtype) << " src=0x" << std::hex
     << l.srcAddr << " dst=0x" << l.dstAddr << " config0=0x" << l.params.config0() << " config1=0x"
     << l.params.config1() << std::dec << " if_transpose=" << int{l.params.ifTranspose()} << " ("
     << fields(l.params.toV2()) << ")";
  return os.str();
}

}  // namespace cubecheck::isa
