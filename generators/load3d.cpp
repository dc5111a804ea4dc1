#include "generators/load3d.hpp"

#include <algorithm>
#include <ostream>
#include <variant>

#include "generators/common.hpp"
#include "generators/fill.hpp"
#include "oracle/operands.hpp"

namespace cubecheck::gen {

using isa::DType;
using isa::Load2DPath;
using isa::Memory;
using isa::ProfileId;

namespace {

std::uint32_t elementMask(DType t) {
  return isa::bitsOf(t) == 32 ? 0xFFFFFFFFu : (1u << isa::bitsOf(t)) - 1;
}

isa::FMatrix fmatrixOf(const isa::LoadData3DParamsV2& p) {
  return {p.l1H, p.l1W, p.padList};
}

isa::Img2ColGeometry geometryOf(const isa::LoadData3DParamsV2& p) {
  return isa::img2colGeometry(fmatrixOf(p), p.filterH, p.filterW, p.filterSizeH, p.filterSizeW,
                              p.dilationFilterH, p.dilationFilterW, p.strideH, p.strideW);
}

bool isNoOp(const isa::LoadData3DParamsV2& p) {
  const isa::Img2ColGeometry g = geometryOf(p);
  return p.l1H == 0 || p.l1W == 0 || p.channelSize == 0 || p.kExtension == 0 || p.mExtension == 0 ||
         g.hk == 0 || g.wk == 0;
}

bool transposes(const isa::Load3DV2& l) {
  return l.params.enTranspose && l.path == Load2DPath::A1toA2;
}

/// The destination's footprint as the oracle lays it out (oracle/operands.hpp), not as isa's
/// count has it (docs/architecture.md#semantics-stated-twice).
std::uint64_t dstBytes(ProfileId id, const isa::Load3DV2& l) {
  return oracle::img2colDestination(id, l.path, l.dtype, transposes(l), l.params.mExtension,
                                    l.params.kExtension)
      .bytes(l.dtype);
}

std::uint64_t mapBytes(const isa::LoadData3DParamsV2& p, DType t) {
  const std::uint64_t c0 = static_cast<std::uint64_t>(isa::c0Of(t));
  return (p.channelSize + c0 - 1) / c0 * p.l1H * p.l1W * 32;
}

/// Other l1/pad/pad values, legal but wrong: what a call carries when the registers, not its
/// own fields, must be used.
isa::LoadData3DParamsV2 withDecoys(isa::LoadData3DParamsV2 p, DType t) {
  p.l1H = static_cast<std::uint16_t>(p.l1H < 32767 ? p.l1H + 1 : p.l1H - 1);
  p.l1W = static_cast<std::uint16_t>(p.l1W < 32767 ? p.l1W + 2 : p.l1W - 2);
  p.padList = {p.padList[3], p.padList[0], p.padList[1],
               static_cast<std::uint8_t>(p.padList[2] ^ 1)};
  p.padValue = (p.padValue ^ 0x5A5A5A5Au) & elementMask(t);
  return p;
}

/// Destination segment and the observed region: the footprint with a fractal either side.
void addDestination(isa::Program& prog, Memory dm, std::uint64_t dst, std::uint64_t bytes,
                    std::uint64_t seed) {
  const std::uint64_t cap = isa::profile(prog.profile).capacityOf(dm);
  const std::uint64_t lo = dst >= isa::kFractalBytes ? dst - isa::kFractalBytes : 0;
  const std::uint64_t hi =
      std::min(cap, dst + std::max(bytes, isa::kFractalBytes) + isa::kFractalBytes);
  prog.segments.push_back(filled(dm, lo, hi, subSeed(seed, 1u << 20)));
  prog.observe.push_back({dm, lo, hi - lo});
}

void addFeatureMap(isa::Program& prog, std::uint64_t src, std::uint64_t bytes, std::uint64_t seed) {
  const std::uint64_t cap = isa::profile(prog.profile).capacityOf(Memory::L1);
  const std::uint64_t lo = src >= 32 ? src - 32 : 0;
  const std::uint64_t hi = std::min(cap, src + std::max<std::uint64_t>(bytes, 32) + 32);
  prog.segments.push_back(filled(Memory::L1, lo, hi, seed));
}

std::vector<std::string> geometryTags(const isa::LoadData3DParamsV2& p) {
  std::vector<std::string> t;
  const isa::Img2ColGeometry g = geometryOf(p);
  if (g.hk == 1 && g.wk == 1) t.emplace_back("kernel:1x1");
  if (g.khd > p.l1H || g.kwd > p.l1W) t.emplace_back("kernel:larger_than_input");
  if (p.strideH > g.hk || p.strideW > g.wk) t.emplace_back("stride:greater_than_kernel");
  if (p.dilationFilterH > 1 || p.dilationFilterW > 1) t.emplace_back("dilation:>1");
  if (p.filterSizeH || p.filterSizeW) t.emplace_back("filter:256_extension");
  // The far ends of the legal ranges (spec 6.1), drawn one case in ten.
  if (std::max(p.filterH, p.filterW) >= 128) t.emplace_back("filter:128-255");
  if (std::max(p.dilationFilterH, p.dilationFilterW) >= 128) t.emplace_back("dilation:128-255");
  if (std::max(p.l1H, p.l1W) >= 4096) t.emplace_back("feature_map:4096+");
  const auto& pad = p.padList;
  if (pad[0] != pad[1] || pad[2] != pad[3] || pad[0] != pad[2]) t.emplace_back("pad:asymmetric");
  // A selected row whose whole window lies in the padding, on one side or the other.
  bool allPad = false;
  const std::uint64_t wo = static_cast<std::uint64_t>(g.wo);
  for (std::uint64_t m = p.mStartPt; m < std::uint64_t{p.mStartPt} + p.mExtension && !allPad; ++m) {
    const std::int64_t y = static_cast<std::int64_t>(m / wo) * p.strideH - pad[isa::kPadTop];
    const std::int64_t x = static_cast<std::int64_t>(m % wo) * p.strideW - pad[isa::kPadLeft];
    allPad = y + static_cast<std::int64_t>(g.khd) <= 0 || y >= p.l1H ||
             x + static_cast<std::int64_t>(g.kwd) <= 0 || x >= p.l1W;
  }
  if (allPad) t.emplace_back("window:all_padding");
  return t;
}

}  // namespace

std::string_view nameOf(RegisterSource r) {
  switch (r) {
    case RegisterSource::Params:
      return "params";
    case RegisterSource::Preset:
      return "preset";
    case RegisterSource::FmatrixB:
      return "fmatrix_b";
    case RegisterSource::EarlierLoad:
      return "earlier_load";
    case RegisterSource::PaddingOnly:
      return "padding_only";
    case RegisterSource::FmatrixOnly:
      return "fmatrix_only";
  }
  return "?";
}

std::vector<DType> load3dDTypes(Load2DPath path) {
  std::vector<DType> out;
  for (DType t : isa::kAllDTypes) {
    if (isa::load3dHasDType(path, t)) out.push_back(t);
  }
  return out;
}

std::ostream& operator<<(std::ostream& os, const Load3DCase& c) {
  return printCase(os, c.profile,
                   isa::describe(c.load) + " registers=" + std::string(nameOf(c.registers)),
                   c.contentSeed, c.why);
}

bool usesResetFlags(RegisterSource r) {
  return r == RegisterSource::Params || r == RegisterSource::PaddingOnly ||
         r == RegisterSource::FmatrixOnly;
}

RegisterSource registersOf(const Load3DCase& c, bool asV2Pro) {
  return asV2Pro && usesResetFlags(c.registers) ? RegisterSource::Preset : c.registers;
}

isa::Program buildProgram(const Load3DCase& c, bool asV2Pro) {
  const isa::Load3DV2& l = c.load;
  const isa::LoadData3DParamsV2& p = l.params;
  isa::Program prog;
  prog.profile = c.profile;
  addFeatureMap(prog, l.srcAddr, mapBytes(p, l.dtype), c.contentSeed);
  const Memory dm = l.path == Load2DPath::A1toA2 ? Memory::L0A : Memory::L0B;
  addDestination(prog, dm, l.dstAddr, dstBytes(c.profile, l), c.contentSeed);

  const isa::FMatrix real = fmatrixOf(p);
  const isa::LoadData3DParamsV2 decoy = withDecoys(p, l.dtype);
  isa::Load3DV2 load = l;  // the real fields, both flags set
  const RegisterSource regs = registersOf(c, asV2Pro);
  switch (regs) {
    case RegisterSource::Params:
      break;
    case RegisterSource::Preset:
      prog.instructions.emplace_back(isa::SetFmatrix{false, real});
      prog.instructions.emplace_back(isa::SetPadding{l.dtype, p.padValue});
      load.params = decoy;
      load.reset = {false, false};
      break;
    case RegisterSource::FmatrixB:
      prog.instructions.emplace_back(isa::SetFmatrix{true, real});
      prog.instructions.emplace_back(isa::SetPadding{l.dtype, p.padValue});
      prog.instructions.emplace_back(isa::SetFmatrix{false, fmatrixOf(decoy)});
      load.params = decoy;
      load.params.fMatrixCtrl = true;
      load.reset = {true, false};  // writes the decoys into FMATRIX, reads FMATRIX_B
      break;
    case RegisterSource::EarlierLoad:
      prog.instructions.emplace_back(l);
      load.params = decoy;
      load.reset = {false, false};
      break;
    case RegisterSource::PaddingOnly:
      prog.instructions.emplace_back(isa::SetFmatrix{false, real});
      prog.instructions.emplace_back(isa::SetPadding{l.dtype, decoy.padValue});
      load.params = decoy;
      load.params.padValue = p.padValue;
      load.reset = {false, true};
      break;
    case RegisterSource::FmatrixOnly:
      prog.instructions.emplace_back(isa::SetFmatrix{false, fmatrixOf(decoy)});
      prog.instructions.emplace_back(isa::SetPadding{l.dtype, p.padValue});
      load.params.padValue = decoy.padValue;
      load.reset = {true, false};
      break;
  }
  // withDecoys changes only l1, pads and the pad value: the geometry stays the real one.
  if (asV2Pro) {
    isa::LoadData3DParamsV2 fields = p;
    fields.fMatrixCtrl = regs == RegisterSource::FmatrixB;
    prog.instructions.emplace_back(
        isa::Load3DV2Pro{l.path, l.dtype, l.srcAddr, l.dstAddr, isa::packV2Pro(fields)});
  } else {
    prog.instructions.emplace_back(load);
  }
  return prog;
}

std::vector<std::string> tagsOf(const Load3DCase& c) {
  const isa::Load3DV2& l = c.load;
  const isa::LoadData3DParamsV2& p = l.params;
  std::vector<std::string> t{"path:" + std::string(isa::nameOf(l.path)),
                             "dtype:" + std::string(isa::nameOf(l.dtype)),
                             "registers:" + std::string(nameOf(c.registers))};
  if (transposes(l)) t.emplace_back("transpose");
  if (isNoOp(p)) {
    t.emplace_back("noop");
    return t;
  }
  for (std::string& g : geometryTags(p)) t.push_back(std::move(g));
  const std::uint64_t c0 = static_cast<std::uint64_t>(isa::c0Of(l.dtype));
  const bool mAlong16 = l.path == Load2DPath::A1toA2 && !transposes(l);
  if (p.mExtension % (mAlong16 ? 16 : c0) != 0) t.emplace_back("m:partial_fractal");
  if (!mAlong16 && p.kExtension % 16 != 0) t.emplace_back("k:padding_not_written");
  const isa::Img2ColGeometry g = geometryOf(p);
  if (std::uint64_t{p.mStartPt} + p.mExtension == static_cast<std::uint64_t>(g.ho * g.wo)) {
    t.emplace_back("m:ends_at_last_row");
  }
  const Memory dm = l.path == Load2DPath::A1toA2 ? Memory::L0A : Memory::L0B;
  if (l.dstAddr + dstBytes(c.profile, l) == isa::profile(c.profile).capacityOf(dm)) {
    t.emplace_back("dst:ends_at_capacity");
  }
  return t;
}

rc::Gen<Load3DCase> legalLoad3D(ProfileId id) {
  return rc::gen::exec([id] {
    const isa::Profile& prof = isa::profile(id);
    Load3DCase c;
    c.profile = id;
    isa::Load3DV2& l = c.load;
    isa::LoadData3DParamsV2& p = l.params;
    l.path =
        *rc::gen::weightedElement<Load2DPath>({{3, Load2DPath::A1toA2}, {2, Load2DPath::B1toB2}});
    l.dtype = *rc::gen::elementOf(load3dDTypes(l.path));
    const std::uint64_t c0 = static_cast<std::uint64_t>(isa::c0Of(l.dtype));
    p.enTranspose = *rc::gen::weightedElement<bool>({{2, false}, {1, true}}) &&
                    (l.path == Load2DPath::B1toB2 || isa::bitsOf(l.dtype) >= 16);
    const bool big = *rc::gen::weightedElement<bool>({{30, false}, {1, true}});
    const std::uint64_t c1 = big ? 1 : *upTo(1, 3);
    p.channelSize = static_cast<std::uint16_t>(c1 * c0);
    auto filter = [] {
      return static_cast<std::uint8_t>(*rc::gen::weightedOneOf<std::uint64_t>(
          {{3, rc::gen::just<std::uint64_t>(1)}, {6, upTo(2, 5)}}));
    };
    auto dilation = [] {
      return static_cast<std::uint8_t>(*rc::gen::weightedOneOf<std::uint64_t>(
          {{5, rc::gen::just<std::uint64_t>(1)}, {3, upTo(2, 3)}, {1, upTo(4, 8)}}));
    };
    auto stride = [] {
      return static_cast<std::uint8_t>(*rc::gen::weightedOneOf<std::uint64_t>(
          {{4, rc::gen::just<std::uint64_t>(1)}, {4, upTo(2, 4)}, {1, upTo(5, 63)}}));
    };
    auto pad = [] {
      return static_cast<std::uint8_t>(*rc::gen::weightedOneOf<std::uint64_t>(
          {{3, rc::gen::just<std::uint64_t>(0)}, {5, upTo(1, 3)}, {1, upTo(4, 255)}}));
    };
    p.filterH = filter();
    p.filterW = filter();
    p.dilationFilterH = dilation();
    p.dilationFilterW = dilation();
    if (big) {  // a kernel of 256 + filter taps on one axis, undilated
      if (*rc::gen::arbitrary<bool>()) {
        p.filterSizeH = true;
        p.filterH = static_cast<std::uint8_t>(*upTo(0, 3));
        p.dilationFilterH = 1;
      } else {
        p.filterSizeW = true;
        p.filterW = static_cast<std::uint8_t>(*upTo(0, 3));
        p.dilationFilterW = 1;
      }
    }
    // One case in ten takes one axis to its legal extreme: a filter of up to 255 taps, a
    // dilation of up to 255, or a feature map as tall (or wide) as L1 holds. The other axis and
    // the channels stay small, so the feature map fits L1.
    enum class Wide : std::uint8_t { None, Filter, Dilation, Map };
    const Wide wide =
        big ? Wide::None
            : *rc::gen::weightedElement<Wide>(
                  {{27, Wide::None}, {1, Wide::Filter}, {1, Wide::Dilation}, {1, Wide::Map}});
    const bool wideH = *rc::gen::arbitrary<bool>();
    if (wide != Wide::None) {
      p.channelSize = static_cast<std::uint16_t>(c0);
      std::uint8_t& f = wideH ? p.filterH : p.filterW;
      std::uint8_t& d = wideH ? p.dilationFilterH : p.dilationFilterW;
      std::uint8_t& otherF = wideH ? p.filterW : p.filterH;
      std::uint8_t& otherD = wideH ? p.dilationFilterW : p.dilationFilterH;
      otherF = static_cast<std::uint8_t>(wide == Wide::Map ? 1 : *upTo(1, 3));
      otherD = static_cast<std::uint8_t>(wide == Wide::Map ? 1 : *upTo(1, 2));
      if (wide == Wide::Filter) {
        f = static_cast<std::uint8_t>(*rc::gen::weightedOneOf<std::uint64_t>(
            {{1, rc::gen::just<std::uint64_t>(255)}, {3, upTo(6, 254)}}));
        d = static_cast<std::uint8_t>(*upTo(1, 2));
      } else if (wide == Wide::Dilation) {
        f = static_cast<std::uint8_t>(*upTo(2, 3));
        d = static_cast<std::uint8_t>(*rc::gen::weightedOneOf<std::uint64_t>(
            {{1, rc::gen::just<std::uint64_t>(255)}, {3, upTo(9, 254)}}));
      }
    }
    p.strideH = stride();
    p.strideW = stride();
    for (auto& v : p.padList) v = pad();
    const isa::Img2ColGeometry k0 = geometryOf(p);  // khd/kwd do not depend on l1
    auto side = [](std::uint64_t khd, std::uint64_t pads) {
      const std::uint64_t lo = khd > pads ? khd - pads : 1;
      return static_cast<std::uint16_t>(*upTo(lo, lo + 8));
    };
    p.l1H = side(k0.khd, std::uint64_t{p.padList[2]} + p.padList[3]);
    p.l1W = side(k0.kwd, std::uint64_t{p.padList[0]} + p.padList[1]);
    if (wide == Wide::Map) {
      // One channel fractal row of 32 bytes per pixel: L1 holds capacity / 32 pixels.
      std::uint16_t& side1 = wideH ? p.l1H : p.l1W;
      const std::uint16_t other = wideH ? p.l1W : p.l1H;
      const std::uint64_t room = std::min<std::uint64_t>(
          32767, prof.capacityOf(Memory::L1) / 32 / std::max<std::uint16_t>(other, 1));
      if (room > side1) {
        side1 = static_cast<std::uint16_t>(*rc::gen::weightedOneOf<std::uint64_t>(
            {{1, rc::gen::just(room)}, {3, upTo(side1, room)}}));
      }
    }
    const isa::Img2ColGeometry g = geometryOf(p);
    const std::uint64_t rowsM = static_cast<std::uint64_t>(g.ho * g.wo);
    const std::uint64_t colsK = p.channelSize * g.hk * g.wk;
    p.mStartPt = static_cast<std::uint16_t>(*edgy(0, std::min<std::uint64_t>(rowsM - 1, 65535)));
    const std::uint64_t maxM = std::min<std::uint64_t>(rowsM - p.mStartPt, 128);
    p.mExtension = static_cast<std::uint16_t>(*rc::gen::weightedOneOf<std::uint64_t>(
        {{4, maxM >= 16 ? rc::gen::map(upTo(1, maxM / 16), [](std::uint64_t v) { return 16 * v; })
                        : rc::gen::just(maxM)},
         {2, rc::gen::just(maxM)},
         {2, upTo(1, maxM)}}));
    const std::uint64_t kTiles = colsK / c0;
    p.kStartPt =
        static_cast<std::uint16_t>(c0 * *edgy(0, std::min<std::uint64_t>(kTiles - 1, 65535 / c0)));
    // At most 64 columns and 128 rows: 64 destination fractals, half of L0A/L0B.
    const std::uint64_t maxK =
        std::min<std::uint64_t>(kTiles - p.kStartPt / c0, std::max<std::uint64_t>(1, 64 / c0));
    p.kExtension = static_cast<std::uint16_t>(c0 * *upTo(1, std::max<std::uint64_t>(1, maxK)));
    p.padValue =
        std::max<std::uint32_t>(1, *rc::gen::arbitrary<std::uint32_t>() & elementMask(l.dtype));
    c.registers = *rc::gen::weightedElement<RegisterSource>({{4, RegisterSource::Params},
                                                             {2, RegisterSource::Preset},
                                                             {2, RegisterSource::FmatrixB},
                                                             {1, RegisterSource::EarlierLoad}});
    if (*rc::gen::weightedElement<bool>({{24, false}, {1, true}})) {  // a no-op
      switch (*rc::gen::inRange(0, 5)) {
        case 0:
          p.kExtension = 0;
          break;
        case 1:
          p.mExtension = 0;
          break;
        case 2:
          p.channelSize = 0;
          break;
        case 3:
          p.l1W = 0;
          break;
        default:
          p.filterH = 0;
          p.filterSizeH = false;
      }
    }
    const Memory dm = l.path == Load2DPath::A1toA2 ? Memory::L0A : Memory::L0B;
    const std::uint64_t need = std::max(dstBytes(id, l), isa::kFractalBytes);
    l.dstAddr = isa::kFractalBytes * *edgy(0, (prof.capacityOf(dm) - need) / isa::kFractalBytes);
    const std::uint64_t map = std::max<std::uint64_t>(mapBytes(p, l.dtype), 32);
    l.srcAddr = 32 * *edgy(0, (prof.capacityOf(Memory::L1) - map) / 32);
    c.contentSeed = *rc::gen::arbitrary<std::uint64_t>();
    // IsResetLoad3dConfig's flags one at a time: one Params case in three writes only one of
    // the two registers. Drawn last, so that every value drawn above stays what it was.
    if (c.registers == RegisterSource::Params) {
      c.registers = *rc::gen::weightedElement<RegisterSource>({{4, RegisterSource::Params},
                                                               {1, RegisterSource::PaddingOnly},
                                                               {1, RegisterSource::FmatrixOnly}});
    }
    return c;
  });
}

std::vector<Load3DCase> load3DBoundaries(ProfileId id) {
  std::vector<Load3DCase> t;
  std::uint64_t seed = 0x3D3;
  using P = isa::LoadData3DParamsV2;
  auto base = [](std::uint16_t h, std::uint16_t w, std::uint16_t c, std::uint8_t fh,
                 std::uint8_t fw) {
    P p;
    p.l1H = h;
    p.l1W = w;
    p.channelSize = c;
    p.filterH = fh;
    p.filterW = fw;
    p.padValue = 0x3C00;  // 1.0 in f16; reduced to the element width where narrower
    return p;
  };
  auto add = [&](Load2DPath path, DType d, P p, std::string why,
                 RegisterSource regs = RegisterSource::Params, std::uint64_t dst = 0,
                 std::uint64_t src = 64) {
    // 1.0 in f16 keeps no bit of a 4- or 8-bit element: such entries pad with 0x7F (or 0xF)
    // instead; an entry that asks for 0 keeps it.
    const std::uint32_t asked = p.padValue;
    p.padValue &= elementMask(d);
    if (p.padValue == 0 && asked != 0) p.padValue = 0x7F & elementMask(d);
    // Select all of X unless the entry chose a window.
    const isa::Img2ColGeometry g = geometryOf(p);
    if (p.mExtension == 0 && p.kExtension == 0 && !why.starts_with("no-op")) {
      p.mExtension = static_cast<std::uint16_t>(std::min<std::int64_t>(g.ho * g.wo, 64));
      p.kExtension = static_cast<std::uint16_t>(
          std::min<std::uint64_t>(p.channelSize * g.hk * g.wk, 4ull * isa::c0Of(d)));
    }
    t.push_back({id, isa::Load3DV2{path, d, src, dst, p, {}}, regs, seed++, std::move(why)});
  };
  const Load2DPath A = Load2DPath::A1toA2, B = Load2DPath::B1toB2;
  {
    P p = base(16, 16, 16, 3, 3);
    p.mExtension = 16;
    p.kExtension = 16;
    add(A, DType::F16, p, "the seed's example: 16 x 16 half map, 3 x 3 kernel, 16 x 16 block");
  }
  add(A, DType::F16, base(4, 5, 32, 1, 1), "1 x 1 kernel: X is the map's channels per pixel");
  {
    P p = base(3, 3, 16, 5, 5);
    p.padList = {2, 2, 2, 2};
    add(A, DType::F16, p, "5 x 5 kernel over a 3 x 3 map, padded by 2");
  }
  {
    P p = base(2, 2, 16, 1, 1);
    p.padList = {6, 1, 5, 0};
    add(A, DType::BF16, p, "windows entirely in the padding (left 6, top 5)");
  }
  {
    P p = base(9, 9, 16, 2, 2);
    p.strideH = 3;
    p.strideW = 4;
    add(A, DType::F16, p, "stride 3 x 4 larger than the 2 x 2 kernel");
  }
  {
    P p = base(9, 8, 32, 3, 3);
    p.dilationFilterH = 3;
    p.dilationFilterW = 2;
    p.padList = {1, 0, 2, 1};
    add(A, DType::S8, p, "dilation 3 x 2, asymmetric pads");
  }
  {
    P p = base(1, 3, 16, 1, 1);
    p.filterSizeH = true;  // Hk = 257
    p.padList = {0, 0, 128, 128};
    p.mExtension = 3;
    p.kStartPt = 16 * 250;
    p.kExtension = 16 * 7;
    add(A, DType::F16, p, "filter_h 1 + 256 (size bit): kernel rows 250..256 of 257");
  }
  {
    P p = base(2, 1, 8, 1, 2);
    p.filterSizeW = true;  // Wk = 258
    p.padList = {200, 57, 0, 0};
    p.mExtension = 2;
    p.kStartPt = 8 * 200;
    p.kExtension = 8 * 16;
    add(B, DType::F32, p, "filter_w 2 + 256 into L0B, b32");
  }
  {
    P p = base(1, 2, 16, 0, 1);
    p.filterSizeH = true;  // filter_h 0 with the size bit: Hk = 256
    p.padList = {0, 0, 255, 0};
    p.mExtension = 2;
    p.kStartPt = 16 * 254;
    p.kExtension = 16 * 2;
    add(A, DType::F16, p, "filter_h 0 with the size bit is 256, not a no-op");
  }
  {
    P p = base(6, 6, 16, 2, 2);
    p.mExtension = 20;
    p.padList = {0, 0, 0, 0};
    p.mStartPt = 5;  // Ho*Wo = 25: rows 5..24, the last fractal partial
    p.kExtension = 64;
    add(A, DType::F16, p, "m_extension 20 ending at the last row of X: a partial fractal");
  }
  {
    P p = base(5, 5, 16, 2, 2);
    p.mExtension = 16;
    p.kExtension = 64;
    const std::uint64_t cap = isa::profile(id).capacityOf(Memory::L0A);
    add(A, DType::F16, p, "destination ends at the last fractal of L0A", RegisterSource::Params,
        cap - 4 * isa::kFractalBytes);
  }
  for (DType d : load3dDTypes(A)) {
    P p = base(5, 4, static_cast<std::uint16_t>(2 * isa::c0Of(d)), 2, 2);
    p.padList = {1, 0, 0, 1};
    add(A, d, p, "plain " + std::string(isa::nameOf(d)) + " into L0A");
  }
  for (DType d : load3dDTypes(B)) {
    P p = base(5, 4, static_cast<std::uint16_t>(isa::c0Of(d)), 2, 2);
    p.padList = {0, 1, 1, 0};
    add(B, d, p, "plain " + std::string(isa::nameOf(d)) + " into L0B (always transposed)");
  }
  for (DType d : {DType::F16, DType::F32}) {
    P p = base(4, 4, static_cast<std::uint16_t>(isa::c0Of(d)), 3, 3);
    p.padList = {1, 1, 1, 1};
    p.enTranspose = true;
    add(A, d, p, "en_transpose " + std::string(isa::nameOf(d)) + " into L0A");
  }
  {
    P p = base(4, 4, 8, 1, 1);
    p.mExtension = 16;
    p.kExtension = 8;
    add(B, DType::F32, p, "b32 into L0B with k_extension 8: n' 8..15 not written");
  }
  // The register-source cases: a padded 4 x 4 map, so that PADDING and FMATRIX both show.
  const P registers = [&] {
    P p = base(4, 4, 16, 3, 3);
    p.padList = {1, 1, 1, 1};
    p.mExtension = 16;
    p.kExtension = 32;
    return p;
  }();
  {
    const P& p = registers;
    add(A, DType::F16, p, "registers from SetFmatrix/SetLoadDataPaddingValue; call fields decoys",
        RegisterSource::Preset);
    add(A, DType::F16, p, "f_matrix_ctrl 1 reads FMATRIX_B; the call writes FMATRIX",
        RegisterSource::FmatrixB);
    add(B, DType::F16, p, "registers persist from an earlier load", RegisterSource::EarlierLoad);
  }
  {
    P p = base(5, 5, 16, 2, 2);
    p.mExtension = 16;
    p.kExtension = 0;
    add(A, DType::F16, p, "no-op: k_extension 0");
    p.kExtension = 16;
    p.mExtension = 0;
    add(A, DType::F16, p, "no-op: m_extension 0");
    p.mExtension = 16;
    p.l1H = 0;
    add(A, DType::F16, p, "no-op: l1_h 0");
    p.l1H = 4;
    p.channelSize = 0;
    add(A, DType::F16, p, "no-op: channel_size 0");
    p.channelSize = 16;
    p.filterW = 0;
    add(A, DType::F16, p, "no-op: filter_w 0 without the size bit");
  }
  // Each pad at its largest, 255, with the 64 rows of X taken where that pad lies (spec 6.1:
  // left and top pads are the first windows of a row and of the map, right and bottom the last):
  // random draws reach a pad of 255 too rarely for a DUT wrong only there to be found.
  const char* const kSides[] = {"left", "right", "top", "bottom"};
  for (std::size_t side = 0; side < 4; ++side) {
    P p = base(2, 2, 16, 1, 1);
    p.padList[side] = 255;
    const isa::Img2ColGeometry g = geometryOf(p);
    const std::uint64_t windows = g.ho * g.wo;
    p.mExtension = 64;
    p.kExtension = 16;
    p.mStartPt = static_cast<std::uint16_t>(side % 2 == 1 ? windows - 64 : 0);
    add(side < 2 ? A : B, DType::F16, p,
        std::string("pad ") + kSides[side] + " 255, its largest: rows of X in that padding");
  }
  {
    // Strides at their largest, 63: a 1 x 1 map padded by 63 right and below gives 2 x 2
    // windows, the map's one pixel and three of padding.
    P p = base(1, 1, 16, 1, 1);
    p.padList = {0, 63, 0, 63};
    p.strideH = 63;
    p.strideW = 63;
    add(A, DType::F16, p, "stride 63 x 63, the largest: one window per 63 pixels");
  }
  // The 16-bit fields at the largest value a load that does something can hold. k_start_pt and
  // channel_size are multiples of C0 (spec 6.1; other channel sizes are OPEN-11), so 65528, the
  // largest multiple of a b32 type's C0 = 8: 8191 C1 slices of one pixel, 256 KiB of L1. A
  // 2-row kernel makes K = 131056, so k_start_pt 65528 is kernel row 1 of slice 4095, the map
  // (the top pad puts the window on it), and the next 8 columns are row 0 of slice 4096, padding
  // holding the largest b32 pad value. A DUT keeping either field in 16 signed bits breaks here.
  {
    P p = base(1, 1, 65528, 2, 1);
    p.padList = {0, 0, 1, 0};
    p.kStartPt = 65528;
    p.kExtension = 16;
    p.mExtension = 1;
    p.padValue = 0xFFFFFFFF;
    add(A, DType::U32, p,
        "channel_size and k_start_pt 65528, the largest multiples of C0 = 8; pad 0xFFFFFFFF");
  }
  {
    // k_extension bounded by L0A: 128 fractals of one 16-row block, 64 columns (C0 of s4) each,
    // the most a 64 KiB destination can take (spec 1); L0B and a transposed L0A take 16 columns
    // per fractal. 128 C1 slices of a one-pixel map, padded to 16 windows.
    P p = base(1, 1, 8192, 1, 1);
    p.padList = {0, 15, 0, 0};
    p.mExtension = 16;
    p.kExtension = 8192;
    add(A, DType::S4, p, "k_extension 8192, the largest: 128 fractals of s4 fill L0A");
  }
  {
    // m_extension bounded by L0A: 128 fractals of 16 rows and one C0 column block; a transposed
    // or L0B destination puts C0 <= 16 rows of X in a fractal. A 16 x 16 map padded to 32 x 64
    // windows gives exactly 2048 rows.
    P p = base(16, 16, 32, 1, 1);
    p.padList = {24, 24, 8, 8};
    p.mExtension = 2048;
    p.kExtension = 32;
    add(A, DType::S8, p, "m_extension 2048, the largest: 128 fractals of rows fill L0A");
  }
  {
    // A map as tall (then as wide) as L1 holds from address 0, one s8 C1 slice of one pixel
    // across: 255 kernel rows dilated by 64 span 16257 of its 16384 rows, so rows 64..127 of X
    // at kernel row 254 end on the map's last row. The other axis holds 2 taps 255 apart, the
    // first in the 255 pixels of padding, the second on the map.
    const auto side = static_cast<std::uint16_t>(
        std::min<std::uint64_t>(32767, isa::profile(id).capacityOf(Memory::L1) / 32));
    P p = base(side, 1, 32, 255, 2);
    p.dilationFilterH = 64;
    p.dilationFilterW = 255;
    p.padList = {255, 0, 0, 0};
    p.mStartPt = 64;
    p.mExtension = 64;
    p.kStartPt = 254 * 2 * 32;  // kernel row 254, both columns
    p.kExtension = 64;
    p.padValue = 0;
    add(A, DType::S8, p,
        "l1_h " + std::to_string(side) +
            ", the most L1 holds: kernel rows 255 dilated by 64, columns 255 apart; pad 0",
        RegisterSource::Params, 0, 0);
    p = base(1, side, 32, 2, 255);
    p.dilationFilterH = 255;
    p.dilationFilterW = 64;
    p.padList = {0, 0, 255, 0};
    p.mStartPt = 64;
    p.mExtension = 64;
    p.kStartPt = (255 + 253) * 32;  // kernel row 1, columns 253 and 254
    p.kExtension = 64;
    add(A, DType::S8, p,
        "l1_w " + std::to_string(side) +
            ", the most L1 holds: kernel columns 255 dilated by 64, rows 255 apart",
        RegisterSource::Params, 0, 0);
  }
  // V2Pro reads l1, pads and pad value from the registers, so the V2Pro form of the entries above
  // holds them only in SetFmatrix's word; from an earlier load they are a load's fields again.
  {
    // Windows 63 apart from -255: the 4 x 4 kernel's last tap of window (4, 4), X's row 40,
    // is the map's one pixel.
    P p = base(1, 1, 16, 4, 4);
    p.padList = {255, 255, 255, 255};
    p.strideH = 63;
    p.strideW = 63;
    p.mStartPt = 32;
    p.mExtension = 16;
    p.kStartPt = 192;
    p.kExtension = 64;
    add(A, DType::F16, p, "pads 255 and strides 63 from an earlier load: row 40 is the map",
        RegisterSource::EarlierLoad);
  }
  {
    // 256 x 257 windows: row 65535 = 255 * 257 is window (255, 0), the map's first pixel.
    P p = base(1, 2, 16, 1, 1);
    p.padList = {0, 255, 255, 0};
    p.mStartPt = 65535;
    p.mExtension = 16;
    p.kExtension = 16;
    add(A, DType::F16, p, "m_start_pt 65535, the largest: window (255, 0) of 256 x 257",
        RegisterSource::EarlierLoad);
  }
  {
    P p = base(0, 5, 16, 2, 2);
    p.mExtension = 16;
    p.kExtension = 16;
    add(A, DType::F16, p, "no-op: l1_h 0 in FMATRIX from an earlier load (decoy l1_h 1)",
        RegisterSource::EarlierLoad);
  }
  // A zero extent makes a load do nothing however large the others are (spec 6.1).
  {
    P p = base(5, 5, 16, 2, 2);
    p.kExtension = 65535;
    add(A, DType::F16, p, "no-op: m_extension 0, k_extension 65535");
    p.kExtension = 0;
    p.mExtension = 65535;
    add(A, DType::F16, p, "no-op: k_extension 0, m_extension 65535");
    p.l1W = 0;
    p.mExtension = 16;
    p.kExtension = 16;
    p.channelSize = 65535;
    add(A, DType::F16, p, "no-op: l1_w 0, channel_size 65535");
  }
  // The PADDING register at both ends of a b32 element, written by SetLoadDataPaddingValue.
  {
    P p = base(4, 4, 8, 3, 3);
    p.padList = {1, 1, 1, 1};
    p.padValue = 0;
    add(A, DType::S32, p, "SetLoadDataPaddingValue 0: padded cells hold 0", RegisterSource::Preset);
    p.padValue = 0xFFFFFFFF;
    add(B, DType::U32, p, "SetLoadDataPaddingValue 0xFFFFFFFF read with FMATRIX_B",
        RegisterSource::FmatrixB);
  }
  // IsResetLoad3dConfig's two flags each alone: the call writes the one register its flag names
  // and reads the other as an earlier instruction left it.
  {
    const P& p = registers;
    add(A, DType::F16, p, "is_set_padding alone: PADDING from the call, FMATRIX preset",
        RegisterSource::PaddingOnly);
    add(B, DType::F16, p, "is_set_fmatrix alone: FMATRIX from the call, PADDING preset",
        RegisterSource::FmatrixOnly);
  }
  return t;
}

std::ostream& operator<<(std::ostream& os, const IllegalLoad3DCase& c) {
  os << c.c;
  if (c.asV2Pro) {
    os << " as V2Pro ext_config=0x" << std::hex << c.pro.extConfig << " filter_config=0x"
       << c.pro.filterConfig << std::dec << " small_k=" << c.pro.enSmallK;
  }
  if (c.registerUnwritten) os << " registers_never_written";
  if (c.afterWriter) os << " after_a_program_that_wrote_them";
  return os << " expected_rejection=" << isa::nameOf(c.expected);
}

namespace {

/// A legal V2 load that writes `l`'s l1, pads and pad value into FMATRIX and PADDING: the earlier
/// load of an illegal case, which must not break the rule of the load under test a second time.
/// It reads one C0 column of one row of X with a 1 x 1 kernel and writes that one fractal at the
/// first aligned address of the program's destination segment `dst`, which runs before the load
/// under test when only the registers make that one illegal.
isa::Load3DV2 registerWriter(const isa::Load3DV2& l, const isa::Segment& dst) {
  isa::Load3DV2 w;
  w.path = dst.memory == Memory::L0A ? Load2DPath::A1toA2 : Load2DPath::B1toB2;
  w.dtype = isa::load3dHasDType(w.path, l.dtype) ? l.dtype : DType::F16;
  w.srcAddr = l.srcAddr;
  w.dstAddr = (dst.addr + isa::kFractalBytes - 1) / isa::kFractalBytes * isa::kFractalBytes;
  w.params.padList = l.params.padList;
  w.params.l1H = l.params.l1H;
  w.params.l1W = l.params.l1W;
  w.params.padValue = l.params.padValue;
  w.params.channelSize = static_cast<std::uint16_t>(isa::c0Of(w.dtype));
  w.params.kExtension = w.params.channelSize;
  w.params.mExtension = 1;
  return w;
}

}  // namespace

isa::Program buildProgram(const IllegalLoad3DCase& c) {
  isa::Program p = buildProgram(c.c, c.asV2Pro);
  if (c.c.registers == RegisterSource::EarlierLoad) {
    isa::Instruction& earlier = p.instructions.front();
    const isa::Segment& dst = p.segments.at(1);  // the feature map, then the destination
    earlier = registerWriter(std::get<isa::Load3DV2>(earlier), dst);
  }
  if (c.asV2Pro) {
    auto& last = std::get<isa::Load3DV2Pro>(p.instructions.back());
    const bool ctrl = last.params.fMatrixCtrl;
    last.params = c.pro;
    last.params.fMatrixCtrl = ctrl;
  }
  if (c.registerUnwritten) {
    std::erase_if(p.instructions, [](const isa::Instruction& i) {
      return std::holds_alternative<isa::SetFmatrix>(i) ||
             std::holds_alternative<isa::SetPadding>(i);
    });
  }
  return p;
}

std::vector<isa::Program> programsBefore(const IllegalLoad3DCase& c) {
  if (!c.afterWriter) return {};
  IllegalLoad3DCase writer = c;
  writer.registerUnwritten = false;
  return {buildProgram(writer)};
}

std::vector<std::string> tagsOf(const IllegalLoad3DCase& c) {
  std::vector<std::string> t{"illegal:" + std::string(isa::nameOf(c.expected))};
  if (c.registerUnwritten) t.emplace_back("registers:unwritten");
  if (c.afterWriter) t.emplace_back("registers:unwritten_after_writer");
  return t;
}

std::vector<IllegalLoad3DCase> unwrittenRegisterCases(ProfileId id, bool asV2Pro) {
  std::vector<IllegalLoad3DCase> t;
  const Load3DCase base = load3DBoundaries(id).front();
  // FMATRIX (and PADDING) read, and for V2 also FMATRIX_B, which V2Pro cannot select with
  // its own fields; each alone, then right after the same program with its writes.
  std::vector<RegisterSource> sources{RegisterSource::Preset};
  if (!asV2Pro) sources.push_back(RegisterSource::FmatrixB);
  for (bool afterWriter : {false, true}) {
    for (RegisterSource r : sources) {
      IllegalLoad3DCase ic;
      ic.asV2Pro = asV2Pro;
      ic.c = base;
      ic.c.registers = r;
      ic.c.why = std::string(r == RegisterSource::FmatrixB ? "FMATRIX_B" : "FMATRIX") +
                 " and PADDING read, the program writing neither" +
                 (afterWriter ? ", right after a program that wrote them" : "");
      if (asV2Pro) ic.pro = isa::packV2Pro(ic.c.load.params);
      ic.registerUnwritten = true;
      ic.afterWriter = afterWriter;
      ic.expected = isa::ViolationCode::UndefinedMemory;
      t.push_back(std::move(ic));
    }
  }
  return t;
}

rc::Gen<IllegalLoad3DCase> illegalLoad3D(ProfileId id, bool asV2Pro) {
  using V = isa::ViolationCode;
  return rc::gen::exec([id, asV2Pro] {
    const isa::Profile& prof = isa::profile(id);
    IllegalLoad3DCase ic;
    ic.asV2Pro = asV2Pro;
    ic.c = *legalLoad3D(id);
    isa::Load3DV2& l = ic.c.load;
    isa::LoadData3DParamsV2& p = l.params;
    // Undo a drawn no-op, so the one broken rule is what the DUT must see.
    if (p.mExtension == 0) p.mExtension = 1;
    if (p.kExtension == 0) p.kExtension = static_cast<std::uint16_t>(isa::c0Of(l.dtype));
    if (p.channelSize == 0) p.channelSize = static_cast<std::uint16_t>(isa::c0Of(l.dtype));
    if (p.l1W == 0) p.l1W = 1;
    if (p.filterH == 0 && !p.filterSizeH) p.filterH = 1;
    // A width restored to 1 must still hold the window, and channels restored to C0 must keep
    // the feature map inside L1 (spec 6.1), or the case breaks a second rule.
    const isa::Img2ColGeometry g = geometryOf(p);
    const std::uint64_t padsW = std::uint64_t{p.padList[isa::kPadLeft]} + p.padList[isa::kPadRight];
    if (g.wo < 1) p.l1W = static_cast<std::uint16_t>(g.kwd - padsW);
    const std::uint64_t l1 = prof.capacityOf(Memory::L1);
    // Keep the feature map inside L1, also after a kind below grew it (kind 7's taller map, a
    // wider type): no kind breaks the map's capacity on purpose.
    auto fitSource = [&] {
      if (l.srcAddr + mapBytes(p, l.dtype) > l1) {
        l.srcAddr = (l1 - mapBytes(p, l.dtype)) / 32 * 32;
      }
    };
    fitSource();
    // Keep the destination inside its buffer after a footprint grew (only kinds 5 and 6 break
    // alignment or capacity on purpose).
    auto fit = [&] {
      const Memory dm = l.path == Load2DPath::A1toA2 ? Memory::L0A : Memory::L0B;
      const std::uint64_t top = prof.capacityOf(dm) - dstBytes(id, l);
      if (l.dstAddr > top) l.dstAddr = top / isa::kFractalBytes * isa::kFractalBytes;
    };
    fit();
    ic.pro = isa::packV2Pro(p);
    // A load that reads FMATRIX (or, for V2, FMATRIX_B) and PADDING the program never wrote: the
    // registers are unset at `program` (dut-protocol.md), half the time right after a program
    // that wrote them.
    if (*rc::gen::weightedElement<int>({{9, 0}, {1, 1}}) == 1) {
      ic.c.registers = !asV2Pro && *rc::gen::arbitrary<bool>() ? RegisterSource::FmatrixB
                                                               : RegisterSource::Preset;
      ic.registerUnwritten = true;
      ic.afterWriter = *rc::gen::arbitrary<bool>();
      ic.expected = V::UndefinedMemory;
      return ic;
    }
    const int kind = *rc::gen::inRange(0, asV2Pro ? 10 : 8);
    switch (kind) {
      case 0:  // transposed 8- or 4-bit into L0A
        l.path = Load2DPath::A1toA2;
        l.dtype = *rc::gen::element(DType::S8, DType::U8, DType::S4);
        p.enTranspose = true;
        p.kStartPt = 0;
        p.kExtension = static_cast<std::uint16_t>(isa::c0Of(l.dtype));
        p.mExtension = 16;
        p.channelSize = static_cast<std::uint16_t>(isa::c0Of(l.dtype));
        p.padValue = std::max<std::uint32_t>(1, p.padValue & elementMask(l.dtype));
        fit();
        fitSource();
        ic.expected = V::TransposeType;
        break;
      case 1:  // 8- or 4-bit into L0B
        l.path = Load2DPath::B1toB2;
        l.dtype = *rc::gen::element(DType::S8, DType::U8, DType::S4);
        p.enTranspose = false;  // means nothing for L0B (spec 6.1): the type is what is wrong
        p.kStartPt = 0;
        p.kExtension = static_cast<std::uint16_t>(isa::c0Of(l.dtype));
        p.channelSize = static_cast<std::uint16_t>(isa::c0Of(l.dtype));
        p.padValue = std::max<std::uint32_t>(1, p.padValue & elementMask(l.dtype));
        fit();
        fitSource();
        ic.expected = V::DTypeUnsupported;
        break;
      case 2: {  // a stride outside 1..63
        const auto bad = static_cast<std::uint8_t>(*rc::gen::element<std::uint64_t>(0, 64, 255));
        (*rc::gen::arbitrary<bool>() ? p.strideH : p.strideW) = bad;
        ic.expected = V::Range;
        break;
      }
      case 3:
        (*rc::gen::arbitrary<bool>() ? p.dilationFilterH : p.dilationFilterW) = 0;
        ic.expected = V::Range;
        break;
      case 4:  // k_start_pt off the C0 grid
        p.kStartPt = static_cast<std::uint16_t>(
            p.kStartPt + *upTo(1, static_cast<std::uint64_t>(isa::c0Of(l.dtype)) - 1));
        ic.expected = V::Range;
        break;
      case 5: {
        const Memory dm = l.path == Load2DPath::A1toA2 ? Memory::L0A : Memory::L0B;
        l.dstAddr = (l.dstAddr >= isa::kFractalBytes ? l.dstAddr - isa::kFractalBytes : 0) +
                    *upTo(1, prof.alignmentOf(dm) - 1);
        ic.expected = V::Alignment;
        break;
      }
      case 6: {  // the destination ends one fractal past the buffer
        const Memory dm = l.path == Load2DPath::A1toA2 ? Memory::L0A : Memory::L0B;
        l.dstAddr = prof.capacityOf(dm) - dstBytes(id, l) + isa::kFractalBytes;
        ic.expected = V::Capacity;
        break;
      }
      case 7: {  // a kernel taller than the padded map: Ho would be 0
        p.filterSizeH = false;
        p.dilationFilterH = 1;
        p.l1H = 1;
        // As tall as asked, up to 4 rows, but no taller than L1 holds at this width.
        p.l1H = static_cast<std::uint16_t>(
            std::min<std::uint64_t>(*upTo(1, 4), l1 / mapBytes(p, l.dtype)));
        p.padList[2] = static_cast<std::uint8_t>(*upTo(0, 2));
        p.padList[3] = static_cast<std::uint8_t>(*upTo(0, 2));
        p.filterH = static_cast<std::uint8_t>(p.l1H + p.padList[2] + p.padList[3] + *upTo(1, 3));
        fitSource();
        ic.expected = V::Range;
        break;
      }
      case 8:
        ic.pro = isa::packV2Pro(p);
        ic.pro.enSmallK = true;
        ic.expected = V::Range;
        return ic;
      default:
        ic.pro = isa::packV2Pro(p);
        ic.pro.filterConfig |= std::uint64_t{1} << *upTo(48, 63);
        ic.expected = V::Range;
        return ic;
    }
    ic.pro = isa::packV2Pro(p);
    return ic;
  });
}

// ---- V1 ----

namespace {

isa::Img2ColGeometry geometryOf(const isa::LoadData3DParamsV1& p) {
  return isa::img2colGeometry(isa::FMatrix{p.l1H, p.l1W, p.padList}, p.filterH, p.filterW, false,
                              false, p.dilationFilterH, p.dilationFilterW, p.strideH, p.strideW);
}

std::uint64_t v1DstFractals(const isa::LoadData3DParamsV1& p) {
  if (p.repeatTime == 0) return 0;
  return p.repeatMode == 1 ? (p.repeatTime - 1ull) * p.jumpStride + 1 : p.repeatTime;
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Load3DV1Case& c) {
  return printCase(os, c.profile, isa::describe(c.load) + " c1=" + std::to_string(c.c1),
                   c.contentSeed, c.why);
}

isa::Program buildProgram(const Load3DV1Case& c) {
  isa::Program prog;
  prog.profile = c.profile;
  const isa::LoadData3DParamsV1& p = c.load.params;
  addFeatureMap(prog, c.load.srcAddr, std::uint64_t{c.c1} * p.l1H * p.l1W * 32, c.contentSeed);
  addDestination(prog, Memory::L0A, c.load.dstAddr, v1DstFractals(p) * isa::kFractalBytes,
                 c.contentSeed);
  prog.instructions.emplace_back(c.load);
  return prog;
}

std::vector<std::string> tagsOf(const Load3DV1Case& c) {
  const isa::LoadData3DParamsV1& p = c.load.params;
  std::vector<std::string> t{"dtype:" + std::string(isa::nameOf(c.load.dtype)),
                             "mode:" + std::to_string(p.repeatMode)};
  if (p.repeatMode == 1 && p.jumpStride > 1 && p.repeatTime > 1) t.emplace_back("jump:>1");
  if (p.repeatMode == 0 && p.fetchFilterW + p.repeatTime > p.filterW) t.emplace_back("tap:wraps");
  if (p.leftTopH < 0 || p.leftTopW < 0) t.emplace_back("padding");
  if (p.dilationFilterH > 1 || p.dilationFilterW > 1) t.emplace_back("dilation:>1");
  return t;
}

rc::Gen<Load3DV1Case> legalLoad3DV1() {
  return rc::gen::exec([] {
    const isa::Profile& prof = isa::profile(ProfileId::Legacy);
    Load3DV1Case c;
    isa::Load3DV1& l = c.load;
    isa::LoadData3DParamsV1& p = l.params;
    l.dtype = *rc::gen::element(DType::U8, DType::S8, DType::F16);
    p.filterH = static_cast<std::uint8_t>(*upTo(1, 4));
    p.filterW = static_cast<std::uint8_t>(*upTo(1, 4));
    p.dilationFilterH = static_cast<std::uint8_t>(*upTo(1, 2));
    p.dilationFilterW = static_cast<std::uint8_t>(*upTo(1, 2));
    p.strideH = static_cast<std::uint8_t>(*upTo(1, 3));
    p.strideW = static_cast<std::uint8_t>(*upTo(1, 3));
    for (auto& v : p.padList) v = static_cast<std::uint8_t>(*upTo(0, 2));
    const std::uint64_t khd = (p.filterH - 1ull) * p.dilationFilterH + 1;
    const std::uint64_t kwd = (p.filterW - 1ull) * p.dilationFilterW + 1;
    p.l1H = static_cast<std::uint16_t>(std::max<std::uint64_t>(1, khd) + *upTo(0, 6));
    p.l1W = static_cast<std::uint16_t>(std::max<std::uint64_t>(1, kwd) + *upTo(2, 10));
    while (geometryOf(p).ho * geometryOf(p).wo < 16) ++p.l1W;
    const std::uint64_t pixels = static_cast<std::uint64_t>(geometryOf(p).ho * geometryOf(p).wo);
    p.leftTopH = static_cast<std::int16_t>(-p.padList[2] + static_cast<int>(*upTo(0, 1)));
    p.leftTopW = static_cast<std::int16_t>(-p.padList[0] + static_cast<int>(*upTo(0, 1)));
    c.c1 = static_cast<std::uint16_t>(*upTo(1, 3));
    p.c1Index = static_cast<std::uint16_t>(*upTo(0, c.c1 - 1));
    p.fetchFilterH = static_cast<std::uint8_t>(*upTo(0, p.filterH - 1));
    p.fetchFilterW = static_cast<std::uint8_t>(*upTo(0, p.filterW - 1));
    p.repeatMode = static_cast<std::uint8_t>(*upTo(0, 1));
    if (p.repeatMode == 1) {
      p.jumpStride = static_cast<std::uint8_t>(*rc::gen::weightedOneOf<std::uint64_t>(
          {{3, rc::gen::just<std::uint64_t>(1)}, {3, upTo(2, 4)}, {1, upTo(5, 127)}}));
      const std::uint64_t fit = (127 / p.jumpStride) + 1;  // (r-1)*jump + 1 <= 128 fractals
      p.repeatTime =
          static_cast<std::uint8_t>(*upTo(1, std::min<std::uint64_t>({pixels / 16, fit, 255})));
    } else {
      const std::uint64_t tap =
          (std::uint64_t{p.c1Index} * p.filterH + p.fetchFilterH) * p.filterW + p.fetchFilterW;
      const std::uint64_t taps = std::uint64_t{c.c1} * p.filterH * p.filterW;
      p.repeatTime = static_cast<std::uint8_t>(*upTo(1, std::min<std::uint64_t>(taps - tap, 64)));
    }
    p.padValue = std::max<std::uint32_t>(
        1, *rc::gen::arbitrary<std::uint32_t>() & (isa::bitsOf(l.dtype) == 8 ? 0xFFu : 0xFFFFu));
    const std::uint64_t need = v1DstFractals(p) * isa::kFractalBytes;
    l.dstAddr =
        isa::kFractalBytes * *edgy(0, (prof.capacityOf(Memory::L0A) - need) / isa::kFractalBytes);
    const std::uint64_t map = std::uint64_t{c.c1} * p.l1H * p.l1W * 32;
    l.srcAddr = 32 * *edgy(0, (prof.capacityOf(Memory::L1) - map) / 32);
    c.contentSeed = *rc::gen::arbitrary<std::uint64_t>();
    return c;
  });
}

std::vector<Load3DV1Case> load3DV1Boundaries() {
  std::vector<Load3DV1Case> t;
  std::uint64_t seed = 0x3D1;
  auto add = [&](DType d, isa::LoadData3DParamsV1 p, std::uint16_t c1, std::string why) {
    t.push_back({ProfileId::Legacy, isa::Load3DV1{Load2DPath::A1toA2, d, 0, 0, p}, c1, seed++,
                 std::move(why)});
  };
  const isa::Profile& prof = isa::profile(ProfileId::Legacy);
  // A one-pixel-wide C1 slice takes 32 bytes a pixel: the longest side L1 holds.
  const std::uint64_t mapPixels = std::min<std::uint64_t>(32767, prof.capacityOf(Memory::L1) / 32);
  const std::uint64_t l0aFractals =
      std::min<std::uint64_t>(255, prof.capacityOf(Memory::L0A) / isa::kFractalBytes);
  isa::LoadData3DParamsV1 p;
  p.l1H = 16;
  p.l1W = 16;
  p.filterH = 3;
  p.filterW = 3;
  p.padValue = 0x3C00;
  add(DType::F16, p, 1, "the seed's example: 16 x 16 half map, 3 x 3 kernel, one repeat");
  p.repeatMode = 1;
  p.repeatTime = 4;
  p.jumpStride = 3;
  add(DType::F16, p, 1, "repeat_mode 1: 16 pixels per repeat, destination every 3 fractals");
  p.repeatMode = 0;
  p.repeatTime = 12;
  p.fetchFilterW = 2;
  p.fetchFilterH = 2;
  add(DType::F16, p, 3, "repeat_mode 0: taps wrap from (2, 2) into the next C1 slice");
  p = {};
  p.l1H = 5;
  p.l1W = 6;
  p.padList = {2, 1, 2, 1};
  p.leftTopH = -2;
  p.leftTopW = -2;
  p.filterH = 2;
  p.filterW = 2;
  p.dilationFilterH = 2;
  p.repeatMode = 1;
  p.repeatTime = 2;
  p.padValue = 0x81;
  add(DType::S8, p, 1, "padded window: left_top (-2, -2), dilation 2, pad value 0x81");
  // Each field at its legal extremes, the others chosen so the window fits the padded map, 16
  // output pixels per repeat exist (OPEN-11 leaves pixels past Ho * Wo open) and the case stays
  // small. c_size 1 is OPEN-11 and never drawn.
  p = {};
  p.padList = {255, 2, 255, 2};
  p.leftTopH = -255;
  p.leftTopW = -255;
  p.filterH = 255;
  p.filterW = 255;
  p.fetchFilterH = 254;
  p.fetchFilterW = 254;
  p.padValue = 0x3C00;
  add(DType::F16, p, 1,
      "255 x 255 kernel at its last tap (254, 254), left and top pads 255: window (1, 1) reads "
      "the one-pixel map");
  p = {};
  p.padList = {255, 255, 255, 255};
  p.leftTopH = -255;
  p.leftTopW = -255;
  p.filterH = 2;
  p.filterW = 2;
  p.fetchFilterH = 1;
  p.fetchFilterW = 1;
  p.dilationFilterH = 255;
  p.dilationFilterW = 255;
  p.strideH = 63;
  p.strideW = 63;
  p.padValue = 0;
  add(DType::F16, p, 1,
      "strides 63, dilations 255, every pad 255, pad value 0: only window (0, 0) meets the map");
  p = {};
  p.l1H = static_cast<std::uint16_t>(mapPixels);
  p.padList = {0, 15, 0, 0};
  p.leftTopH = static_cast<std::int16_t>(mapPixels - 1);
  p.padValue = 0x3C00;
  add(DType::F16, p, 1,
      "l1_h " + std::to_string(mapPixels) +
          ", a one-pixel-wide map filling L1; left_top_h on its last row");
  p = {};
  p.l1W = static_cast<std::uint16_t>(mapPixels);
  p.leftTopW = static_cast<std::int16_t>(mapPixels - 16);
  p.padValue = 0x3C00;
  add(DType::F16, p, 1,
      "l1_w " + std::to_string(mapPixels) +
          ", a one-pixel-tall map filling L1; left_top_w on its last 16 pixels");
  p = {};
  p.padList = {0, 15, 0, 0};
  p.leftTopH = 32767;
  p.leftTopW = 32767;
  p.padValue = 0xFFFF;
  add(DType::F16, p, 1, "left_top (32767, 32767): the window past the map, all pad 0xFFFF");
  p = {};
  p.padList = {0, 15, 0, 0};
  p.c1Index = 4095;
  p.padValue = 0x3C00;
  add(DType::F16, p, 4096, "c1_index 4095, the last of 4096 one-pixel C1 slices");
  p = {};
  p.l1H = 19;
  p.l1W = 11;
  p.filterH = 16;
  p.filterW = 8;
  p.repeatTime = static_cast<std::uint8_t>(l0aFractals);
  p.padValue = 0x3C00;
  add(DType::F16, p, 1,
      "repeat_time " + std::to_string(l0aFractals) +
          ", the most fractals L0A holds: the 128 taps of a 16 x 8 kernel");
  p = {};
  p.l1W = 32;
  p.repeatMode = 1;
  p.repeatTime = 2;
  p.jumpStride = 127;
  p.padValue = 0x3C00;
  add(DType::F16, p, 1, "jump_stride 127, the largest: the second repeat in L0A's last fractal");
  return t;
}

std::ostream& operator<<(std::ostream& os, const IllegalLoad3DV1Case& c) {
  return os << c.c << " expected_rejection=" << isa::nameOf(c.expected);
}

rc::Gen<IllegalLoad3DV1Case> illegalLoad3DV1() {
  using V = isa::ViolationCode;
  return rc::gen::exec([] {
    IllegalLoad3DV1Case ic;
    ic.c = *legalLoad3DV1();
    isa::Load3DV1& l = ic.c.load;
    isa::LoadData3DParamsV1& p = l.params;
    switch (*rc::gen::inRange(0, 7)) {
      case 0:
        p.fetchFilterW = p.filterW;
        ic.expected = V::Range;
        break;
      case 1:
        p.repeatMode = 1;
        p.repeatTime = 1;
        p.jumpStride = static_cast<std::uint8_t>(*rc::gen::element<std::uint64_t>(0, 128, 255));
        ic.expected = V::Range;
        break;
      case 2:
        p.repeatMode = static_cast<std::uint8_t>(*upTo(2, 255));
        ic.expected = V::Range;
        break;
      case 3:
        p.repeatTime = 0;
        ic.expected = V::Range;
        break;
      case 4:
        l.dtype = *rc::gen::element(DType::F32, DType::BF16, DType::S32);
        p.padValue = 0;
        ic.expected = V::DTypeUnsupported;
        break;
      case 5:
        l.path = Load2DPath::B1toB2;
        ic.expected = V::PathUnsupported;
        break;
      default:
        l.dstAddr = isa::profile(ProfileId::Legacy).capacityOf(Memory::L0A) -
                    isa::kFractalBytes * v1DstFractals(p) + isa::kFractalBytes;
        ic.expected = V::Capacity;
    }
    return ic;
  });
}

}  // namespace cubecheck::gen
