#include "isa/load3d.hpp"

#include <sstream>

namespace cubecheck::isa {
namespace {

Violation range(const std::string& what) {
  return {ViolationCode::Range, what};
}

/// What V2 and V2Pro share: profile, path, type, transpose, geometry fields, alignment and the
/// destination's capacity.
std::optional<Violation> validateCommon(const Profile& profile, const char* form, Load2DPath path,
                                        DType t, std::uint64_t src, std::uint64_t dst,
                                        const LoadData3DParamsV2& p) {
  if (profile.id == ProfileId::Legacy) {
    return Violation{
        ViolationCode::PathUnsupported,
        std::string(form) + ": the legacy profile models LoadData 3D V1 only (spec 1)"};
  }
  if (path != Load2DPath::A1toA2 && path != Load2DPath::B1toB2) {
    return Violation{ViolationCode::PathUnsupported, std::string(form) + " path " +
                                                         std::string(nameOf(path)) +
                                                         ": Load3D moves A1->A2 and B1->B2 only"};
  }
  if (!profile.hasDType(t) || !load3dHasDType(path, t)) {
    return Violation{ViolationCode::DTypeUnsupported,
                     std::string(form) + " of " + std::string(nameOf(t)) + " into " +
                         (path == Load2DPath::A1toA2 ? "L0A" : "L0B") + " is not supported"};
  }
  if (p.enTranspose && path == Load2DPath::A1toA2 && bitsOf(t) < 16) {
    return Violation{ViolationCode::TransposeType,
                     "en_transpose of " + std::string(nameOf(t)) +
                         " into L0A: only 16- and 32-bit types transpose (spec 6.1)"};
  }
  if (p.strideW < 1 || p.strideW > 63 || p.strideH < 1 || p.strideH > 63) {
    return range("stride_w " + std::to_string(p.strideW) + " / stride_h " +
                 std::to_string(p.strideH) + " outside 1..63");
  }
  if (p.dilationFilterW < 1 || p.dilationFilterH < 1) {
    return range("dilation 0: dilation_filter_w/h are 1..255");
  }
  if (p.l1H > 32767 || p.l1W > 32767) {
    return range("l1_h " + std::to_string(p.l1H) + " / l1_w " + std::to_string(p.l1W) +
                 " above 32767");
  }
  const std::uint64_t c0 = static_cast<std::uint64_t>(c0Of(t));
  if (p.kStartPt % c0 != 0) {
    return range("k_start_pt " + std::to_string(p.kStartPt) +
                 " is not a multiple of C0 = " + std::to_string(c0));
  }
  const Memory dm = memoryOf(dstOf(path));
  if (src % profile.alignmentOf(Memory::L1) != 0) {
    return Violation{ViolationCode::Alignment, "src " + std::to_string(src) + " not " +
                                                   std::to_string(profile.alignmentOf(Memory::L1)) +
                                                   "-B aligned"};
  }
  if (dst % profile.alignmentOf(dm) != 0) {
    return Violation{ViolationCode::Alignment, "dst " + std::to_string(dst) + " not " +
                                                   std::to_string(profile.alignmentOf(dm)) +
                                                   "-B aligned"};
  }
  const std::uint64_t bytes =
      load3dDstFractals(path, t, p.enTranspose, p.mExtension, p.kExtension) * kFractalBytes;
  if (dst > profile.capacityOf(dm) || bytes > profile.capacityOf(dm) - dst) {
    return Violation{ViolationCode::Capacity, "destination " + std::to_string(bytes) +
                                                  " bytes at " + std::to_string(dst) +
                                                  " end past " + std::string(nameOf(dm))};
  }
  return std::nullopt;
}

/// Ho and Wo at least 1 (spec 6.1): the dilated kernel fits the map with its pads.
std::optional<Violation> windowFits(const Img2ColGeometry& g, const FMatrix& fm) {
  if (g.ho >= 1 && g.wo >= 1) return std::nullopt;
  return range("the dilated " + std::to_string(g.khd) + " x " + std::to_string(g.kwd) +
               " kernel is larger than the padded " + std::to_string(fm.l1H) + " x " +
               std::to_string(fm.l1W) + " feature map: Ho or Wo would be 0 (spec 6.1)");
}

std::string pads(const PadList& p) {
  return std::to_string(p[0]) + "," + std::to_string(p[1]) + "," + std::to_string(p[2]) + "," +
         std::to_string(p[3]);
}

}  // namespace

std::uint64_t FMatrix::word() const {
  return std::uint64_t{l1W} | std::uint64_t{l1H} << 16 | std::uint64_t{pad[kPadLeft]} << 32 |
         std::uint64_t{pad[kPadRight]} << 40 | std::uint64_t{pad[kPadTop]} << 48 |
         std::uint64_t{pad[kPadBottom]} << 56;
}

FMatrix FMatrix::fromWord(std::uint64_t w) {
  FMatrix f;
  f.l1W = static_cast<std::uint16_t>(w & 0xFFFF);
  f.l1H = static_cast<std::uint16_t>(w >> 16 & 0xFFFF);
  for (std::size_t i = 0; i < 4; ++i) f.pad[i] = static_cast<std::uint8_t>(w >> (32 + 8 * i));
  return f;
}

LoadData3DParamsV2Pro packV2Pro(const LoadData3DParamsV2& v) {
  LoadData3DParamsV2Pro p;
  p.channelSize = v.channelSize;
  p.enTranspose = v.enTranspose;
  p.filterSizeW = v.filterSizeW;
  p.filterSizeH = v.filterSizeH;
  p.fMatrixCtrl = v.fMatrixCtrl;
  p.extConfig = std::uint64_t{v.mStartPt} << 48 | std::uint64_t{v.kStartPt} << 32 |
                std::uint64_t{v.mExtension} << 16 | std::uint64_t{v.kExtension};
  p.filterConfig = std::uint64_t{v.dilationFilterH} << 40 | std::uint64_t{v.dilationFilterW} << 32 |
                   std::uint64_t{v.filterH} << 24 | std::uint64_t{v.filterW} << 16 |
                   std::uint64_t{v.strideH} << 8 | std::uint64_t{v.strideW};
  return p;
}

LoadData3DParamsV2 unpackV2Pro(const LoadData3DParamsV2Pro& p) {
  LoadData3DParamsV2 v;
  v.channelSize = p.channelSize;
  v.enTranspose = p.enTranspose;
  v.filterSizeW = p.filterSizeW;
  v.filterSizeH = p.filterSizeH;
  v.fMatrixCtrl = p.fMatrixCtrl;
  auto f16 = [](std::uint64_t w, int at) { return static_cast<std::uint16_t>(w >> at & 0xFFFF); };
  auto f8 = [](std::uint64_t w, int at) { return static_cast<std::uint8_t>(w >> at & 0xFF); };
  v.mStartPt = f16(p.extConfig, 48);
  v.kStartPt = f16(p.extConfig, 32);
  v.mExtension = f16(p.extConfig, 16);
  v.kExtension = f16(p.extConfig, 0);
  v.dilationFilterH = f8(p.filterConfig, 40);
  v.dilationFilterW = f8(p.filterConfig, 32);
  v.filterH = f8(p.filterConfig, 24);
  v.filterW = f8(p.filterConfig, 16);
  v.strideH = f8(p.filterConfig, 8);
  v.strideW = f8(p.filterConfig, 0);
  return v;
}

bool load3dHasDType(Load2DPath path, DType t) {
  switch (t) {
    case DType::F16:
    case DType::BF16:
    case DType::U32:
    case DType::S32:
    case DType::F32:
      return true;
    case DType::U8:
    case DType::S8:
    case DType::S4:
      return path == Load2DPath::A1toA2;  // a2: no b4/b8 into L0B (spec 6.1)
    default:
      return false;
  }
}

bool load3dV1HasDType(DType t) {
  return t == DType::U8 || t == DType::S8 || t == DType::F16;
}

Img2ColGeometry img2colGeometry(const FMatrix& fm, std::uint64_t filterH, std::uint64_t filterW,
                                bool sizeH, bool sizeW, std::uint64_t dilH, std::uint64_t dilW,
                                std::uint64_t strideH, std::uint64_t strideW) {
  Img2ColGeometry g{};
  g.hk = filterH + (sizeH ? 256 : 0);
  g.wk = filterW + (sizeW ? 256 : 0);
  g.khd = g.hk == 0 ? 0 : (g.hk - 1) * dilH + 1;
  g.kwd = g.wk == 0 ? 0 : (g.wk - 1) * dilW + 1;
  const std::int64_t ph = std::int64_t{fm.l1H} + fm.pad[kPadTop] + fm.pad[kPadBottom];
  const std::int64_t pw = std::int64_t{fm.l1W} + fm.pad[kPadLeft] + fm.pad[kPadRight];
  const std::int64_t dh = ph - static_cast<std::int64_t>(g.khd);
  const std::int64_t dw = pw - static_cast<std::int64_t>(g.kwd);
  g.ho = dh < 0 ? 0 : dh / static_cast<std::int64_t>(strideH) + 1;
  g.wo = dw < 0 ? 0 : dw / static_cast<std::int64_t>(strideW) + 1;
  return g;
}

std::uint64_t load3dDstFractals(Load2DPath path, DType t, bool transpose, std::uint64_t mExt,
                                std::uint64_t kExt) {
  const std::uint64_t c0 = static_cast<std::uint64_t>(c0Of(t));
  if (path == Load2DPath::A1toA2 && !transpose) return ceilDiv(mExt, 16) * ceilDiv(kExt, c0);
  // X^T in 16 x C0 fractals (L0A transposed), or B = X as a Zn operand: the same count.
  return ceilDiv(kExt, 16) * ceilDiv(mExt, c0);
}

std::optional<Violation> validateFeatureMap(const Profile& profile, const FMatrix& fm, DType t,
                                            std::uint64_t src, const LoadData3DParamsV2& p) {
  const Img2ColGeometry g =
      img2colGeometry(fm, p.filterH, p.filterW, p.filterSizeH, p.filterSizeW, p.dilationFilterH,
                      p.dilationFilterW, p.strideH, p.strideW);
  if (fm.l1H == 0 || fm.l1W == 0 || p.channelSize == 0 || p.kExtension == 0 || p.mExtension == 0 ||
      g.hk == 0 || g.wk == 0) {
    return std::nullopt;  // a no-op reads nothing (spec 6.1)
  }
  if (auto v = windowFits(g, fm)) return v;
  const std::uint64_t c0 = static_cast<std::uint64_t>(c0Of(t));
  const std::uint64_t bytes = ceilDiv(p.channelSize, c0) * fm.l1H * fm.l1W * 32;
  const std::uint64_t cap = profile.capacityOf(Memory::L1);
  if (src > cap || bytes > cap - src) {
    return Violation{ViolationCode::Capacity, "the feature map (" + std::to_string(bytes) +
                                                  " bytes at " + std::to_string(src) +
                                                  ") ends past L1"};
  }
  return std::nullopt;
}

std::optional<Violation> validate(const Profile& profile, const Load3DV2& load) {
  if (bitsOf(load.dtype) < 32 && load.params.padValue >> bitsOf(load.dtype) != 0) {
    return range("pad_value " + std::to_string(load.params.padValue) + " wider than " +
                 std::string(nameOf(load.dtype)));
  }
  if (auto v = validateCommon(profile, "LoadData3DParamsV2", load.path, load.dtype, load.srcAddr,
                              load.dstAddr, load.params)) {
    return v;
  }
  // With is_set_fmatrix and f_matrix_ctrl 0 the load reads back the l1/pads it has just written
  // (spec 6.2), so the instruction alone decides its feature-map rules; otherwise they wait for
  // the program's registers (validateProgram, and the reference when the load runs).
  const LoadData3DParamsV2& p = load.params;
  if (load.reset.isSetFMatrix && !p.fMatrixCtrl) {
    return validateFeatureMap(profile, FMatrix{p.l1H, p.l1W, p.padList}, load.dtype, load.srcAddr,
                              p);
  }
  return std::nullopt;
}

std::optional<Violation> validate(const Profile& profile, const Load3DV2Pro& load) {
  if (load.params.enSmallK) return range("en_small_k is no longer supported (spec 6.3)");
  if (load.params.filterConfig >> 48 != 0) {
    return range("filter_config bits 63:48 are unused and must be 0");
  }
  return validateCommon(profile, "LoadData3DParamsV2Pro", load.path, load.dtype, load.srcAddr,
                        load.dstAddr, unpackV2Pro(load.params));
}

std::optional<Violation> validate(const Profile& profile, const Load3DV1& load) {
  const LoadData3DParamsV1& p = load.params;
  if (profile.id != ProfileId::Legacy) {
    return Violation{ViolationCode::PathUnsupported,
                     "LoadData3DParamsV1 exists only on the legacy profile (spec 1)"};
  }
  if (load.path != Load2DPath::A1toA2) {
    return Violation{ViolationCode::PathUnsupported,
                     "LoadData3DParamsV1 path " + std::string(nameOf(load.path)) +
                         ": the provisional V1 model covers A1->A2 only (spec 6.4)"};
  }
  if (!load3dV1HasDType(load.dtype)) {
    return Violation{
        ViolationCode::DTypeUnsupported,
        "LoadData3DParamsV1 of " + std::string(nameOf(load.dtype)) + ": only u8, s8 and f16"};
  }
  if (p.l1H < 1 || p.l1H > 32767 || p.l1W < 1 || p.l1W > 32767) {
    return range("l1_h / l1_w outside 1..32767");
  }
  if (p.c1Index > 4095) return range("c1_index " + std::to_string(p.c1Index) + " above 4095");
  if (p.filterW < 1 || p.filterH < 1) return range("filter_w / filter_h 0: they are 1..255");
  if (p.fetchFilterW >= p.filterW || p.fetchFilterH >= p.filterH) {
    return range("fetch_filter (" + std::to_string(p.fetchFilterH) + ", " +
                 std::to_string(p.fetchFilterW) + ") outside the " + std::to_string(p.filterH) +
                 " x " + std::to_string(p.filterW) + " kernel");
  }
  if (p.leftTopW < -255 || p.leftTopH < -255) return range("left_top_w/h below -255");
  if (p.strideW < 1 || p.strideW > 63 || p.strideH < 1 || p.strideH > 63) {
    return range("stride_w/h outside 1..63");
  }
  if (p.dilationFilterW < 1 || p.dilationFilterH < 1) return range("dilation 0: it is 1..255");
  if (p.jumpStride < 1 || p.jumpStride > 127) {
    return range("jump_stride " + std::to_string(p.jumpStride) + " outside 1..127");
  }
  if (p.repeatMode > 1) return range("repeat_mode " + std::to_string(p.repeatMode) + " not 0/1");
  if (p.repeatTime < 1) return range("repeat_time 0: it is 1..255");
  if (p.cSize > 1) return range("c_size " + std::to_string(p.cSize) + " not 0/1");
  if (bitsOf(load.dtype) < 32 && p.padValue >> bitsOf(load.dtype) != 0) {
    return range("pad_value wider than " + std::string(nameOf(load.dtype)));
  }
  if (load.srcAddr % profile.alignmentOf(Memory::L1) != 0) {
    return Violation{ViolationCode::Alignment,
                     "src " + std::to_string(load.srcAddr) + " not 32-B aligned"};
  }
  if (load.dstAddr % profile.alignmentOf(Memory::L0A) != 0) {
    return Violation{ViolationCode::Alignment,
                     "dst " + std::to_string(load.dstAddr) + " not 512-B aligned"};
  }
  const std::uint64_t fractals =
      p.repeatMode == 1 ? (p.repeatTime - 1ull) * p.jumpStride + 1 : p.repeatTime;
  if (load.dstAddr + fractals * kFractalBytes > profile.capacityOf(Memory::L0A)) {
    return Violation{ViolationCode::Capacity, "destination ends past L0A"};
  }
  // V1 carries its whole geometry (spec 6.4): the window rule of spec 6.1 is decided here.
  const FMatrix fm{p.l1H, p.l1W, p.padList};
  return windowFits(img2colGeometry(fm, p.filterH, p.filterW, false, false, p.dilationFilterH,
                                    p.dilationFilterW, p.strideH, p.strideW),
                    fm);
}

std::optional<Violation> validate(const Profile& profile, const SetFmatrix& set) {
  if (profile.id == ProfileId::Legacy) {
    return Violation{ViolationCode::PathUnsupported,
                     "SetFmatrix: the legacy profile models LoadData 3D V1 only"};
  }
  if (set.value.l1H > 32767 || set.value.l1W > 32767) return range("l1_h / l1_w above 32767");
  return std::nullopt;
}

std::optional<Violation> validate(const Profile& profile, const SetPadding& set) {
  if (profile.id == ProfileId::Legacy) {
    return Violation{ViolationCode::PathUnsupported,
                     "SetLoadDataPaddingValue: the legacy profile models LoadData 3D V1 only"};
  }
  if (!profile.hasDType(set.dtype)) {
    return Violation{ViolationCode::DTypeUnsupported,
                     "SetLoadDataPaddingValue of " + std::string(nameOf(set.dtype))};
  }
  if (bitsOf(set.dtype) < 32 && set.value >> bitsOf(set.dtype) != 0) {
    return range("pad value " + std::to_string(set.value) + " wider than " +
                 std::string(nameOf(set.dtype)));
  }
  return std::nullopt;
}

std::string describe(const Load3DV2& l) {
  const LoadData3DParamsV2& p = l.params;
  std::ostringstream os;
  os << "LoadData3DParamsV2 " << nameOf(l.path) << ' ' << nameOf(l.dtype) << " src=" << l.srcAddr
     << " dst=" << l.dstAddr << " pad=[" << pads(p.padList) << "] l1=" << p.l1H << 'x' << p.l1W
     << " C=" << p.channelSize << " m=" << p.mStartPt << '+' << p.mExtension << " k=" << p.kStartPt
     << '+' << p.kExtension << " filter=" << int{p.filterH} << 'x' << int{p.filterW}
     << (p.filterSizeH ? "+256h" : "") << (p.filterSizeW ? "+256w" : "")
     << " stride=" << int{p.strideH} << 'x' << int{p.strideW} << " dil=" << int{p.dilationFilterH}
     << 'x' << int{p.dilationFilterW} << " transpose=" << p.enTranspose << " pad_value=0x"
     << std::hex << p.padValue << std::dec << " fmatrix_ctrl=" << p.fMatrixCtrl
     << " set_fmatrix=" << l.reset.isSetFMatrix << " set_padding=" << l.reset.isSetPadding;
  return os.str();
}

std::string describe(const Load3DV2Pro& l) {
  const LoadData3DParamsV2Pro& p = l.params;
  std::ostringstream os;
  os << "LoadData3DParamsV2Pro " << nameOf(l.path) << ' ' << nameOf(l.dtype) << " src=" << l.srcAddr
     << " dst=" << l.dstAddr << " C=" << p.channelSize << " ext_config=0x" << std::hex
     << p.extConfig << " filter_config=0x" << p.filterConfig << std::dec
     << " transpose=" << p.enTranspose << " small_k=" << p.enSmallK << " size_w=" << p.filterSizeW
     << " size_h=" << p.filterSizeH << " fmatrix_ctrl=" << p.fMatrixCtrl;
  return os.str();
}

std::string describe(const Load3DV1& l) {
  const LoadData3DParamsV1& p = l.params;
  std::ostringstream os;
  os << "LoadData3DParamsV1 " << nameOf(l.path) << ' ' << nameOf(l.dtype) << " src=" << l.srcAddr
     << " dst=" << l.dstAddr << " pad=[" << pads(p.padList) << "] l1=" << p.l1H << 'x' << p.l1W
     << " c1_index=" << p.c1Index << " fetch=" << int{p.fetchFilterH} << ',' << int{p.fetchFilterW}
     << " left_top=" << p.leftTopH << ',' << p.leftTopW << " stride=" << int{p.strideH} << 'x'
     << int{p.strideW} << " filter=" << int{p.filterH} << 'x' << int{p.filterW}
     << " dil=" << int{p.dilationFilterH} << 'x' << int{p.dilationFilterW}
     << " jump=" << int{p.jumpStride} << " mode=" << int{p.repeatMode}
     << " repeat=" << int{p.repeatTime} << " c_size=" << int{p.cSize} << " pad_value=0x" << std::hex
     << p.padValue;
  return os.str();
}

std::string describe(const SetFmatrix& s) {
  return std::string(s.right ? "SetFmatrix FMATRIX_B" : "SetFmatrix FMATRIX") +
         " l1=" + std::to_string(s.value.l1H) + "x" + std::to_string(s.value.l1W) + " pad=[" +
         pads(s.value.pad) + "]";
}

std::string describe(const SetPadding& s) {
  std::ostringstream os;
  os << "SetLoadDataPaddingValue " << nameOf(s.dtype) << " 0x" << std::hex << s.value;
  return os.str();
}

}  // namespace cubecheck::isa
