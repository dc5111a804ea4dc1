#include "generators/load2d_v2.hpp"

#include <algorithm>
#include <ostream>

#include "generators/common.hpp"
#include "generators/fill.hpp"
#include "oracle/layout.hpp"

namespace cubecheck::gen {

using isa::DType;
using isa::Load2DPath;
using isa::Memory;
using isa::ProfileId;

namespace {

std::uint64_t absStride(const isa::LoadData2DParamsV2& p) {
  return static_cast<std::uint64_t>(p.srcStride < 0 ? -std::int64_t{p.srcStride} : p.srcStride);
}

/// Highest destination fractal written, or nothing for a no-op.
std::optional<std::uint64_t> dstTop(const isa::LoadV2& l) {
  if (l.params.mStep == 0 || l.params.kStep == 0) return std::nullopt;
  const isa::V2Shape s = isa::v2Shape(l.dtype, l.params);
  return (s.columns - 1) * l.params.dstStride + s.rows - 1;
}

/// Step multiples the transposed square-block rule needs (spec 5).
std::uint64_t mStepUnit(DType t, bool transpose) {
  return transpose ? std::max(1, isa::c0Of(t) / 16) : 1;
}
std::uint64_t kStepUnit(DType t, bool transpose) {
  return transpose && isa::bitsOf(t) == 32 ? 2 : 1;
}

isa::Program programWith(const V2Case& c, isa::Instruction ins) {
  const isa::Profile& prof = isa::profile(c.profile);
  const isa::LoadV2& l = c.load;
  const isa::LoadData2DParamsV2& p = l.params;
  const Memory src = isa::memoryOf(isa::srcOf(l.path));
  const Memory dst = isa::memoryOf(isa::dstOf(l.path));
  isa::Program prog;
  prog.profile = c.profile;
  std::vector<std::uint64_t> fracs;
  if (p.mStep > 0 && p.kStep > 0) {
    for (std::uint64_t j = 0; j < p.kStep; ++j) {
      for (std::uint64_t i = 0; i < p.mStep; ++i) {
        fracs.push_back((p.kStartPosition + j) * absStride(p) + p.mStartPosition + i);
      }
    }
  }
  std::sort(fracs.begin(), fracs.end());
  for (isa::Segment& s :
       fractalSegments(src, l.srcAddr, fracs, prof.capacityOf(src), c.contentSeed)) {
    prog.segments.push_back(std::move(s));
  }
  const std::uint64_t cap = prof.capacityOf(dst);
  const std::uint64_t end = l.dstAddr + (dstTop(l) ? (*dstTop(l) + 1) * isa::kFractalBytes : 0);
  const std::uint64_t lo =
      std::min(l.dstAddr >= isa::kFractalBytes ? l.dstAddr - isa::kFractalBytes : 0, cap);
  const std::uint64_t hi = std::max(lo, std::min(cap, end + isa::kFractalBytes));
  prog.segments.push_back(filled(dst, lo, hi, subSeed(c.contentSeed, 1u << 20)));
  prog.instructions.push_back(std::move(ins));
  prog.observe.push_back({dst, lo, hi - lo});
  return prog;
}

}  // namespace

std::vector<DType> v2DTypes() {
  std::vector<DType> out;
  for (DType t : isa::kAllDTypes) {
    if (isa::v2HasDType(t)) out.push_back(t);
  }
  return out;
}

std::ostream& operator<<(std::ostream& os, const V2Case& c) {
  return printCase(os, c.profile, isa::describe(c.load), c.contentSeed, c.why);
}

isa::Program buildProgram(const V2Case& c) {
  return programWith(c, c.load);
}

isa::Program buildBitModeProgram(const V2Case& c) {
  return programWith(c, isa::LoadBitMode{c.load.path, c.load.dtype, c.load.srcAddr, c.load.dstAddr,
                                         isa::Load2DBitModeParam(c.load.params)});
}

std::vector<std::string> tagsOf(const V2Case& c) {
  const isa::LoadV2& l = c.load;
  const isa::LoadData2DParamsV2& p = l.params;
  std::vector<std::string> t{"path:" + std::string(isa::nameOf(l.path)),
                             "dtype:" + std::string(isa::nameOf(l.dtype))};
  if (p.ifTranspose) t.emplace_back("transpose");
  if (p.mStep == 0 || p.kStep == 0) {
    t.emplace_back("step:0");
    return t;
  }
  if (p.mStep == 255 || p.kStep == 255) t.emplace_back("step:255");
  const isa::V2Shape s = isa::v2Shape(l.dtype, p);
  if (s.columns > 1 && p.dstStride > s.rows) t.emplace_back("dst_stride:gap_between_columns");
  if (s.columns > 1 && p.dstStride < s.rows) t.emplace_back("dst_stride:columns_overlap");
  if (s.columns == 1 && p.dstStride > s.rows) t.emplace_back("dst_stride:unused_large");
  if (p.srcStride == 0) t.emplace_back("src_stride:0");
  const isa::Profile& prof = isa::profile(c.profile);
  const Memory src = isa::memoryOf(isa::srcOf(l.path));
  const std::uint64_t top =
      (p.kStartPosition + p.kStep - 1ull) * absStride(p) + p.mStartPosition + p.mStep - 1;
  if (src != Memory::GM && l.srcAddr + (top + 1) * isa::kFractalBytes == prof.capacityOf(src)) {
    t.emplace_back("src:last_fractal_of_L1");
  }
  if (src == Memory::GM && (l.srcAddr >> 33) != 0) t.emplace_back("src:GM_high_bits");
  if (src == Memory::GM && l.srcAddr + (top + 1) * isa::kFractalBytes == prof.capacityOf(src)) {
    t.emplace_back("src:GM_ends_at_top");
  }
  const Memory dst = isa::memoryOf(isa::dstOf(l.path));
  if (l.dstAddr + (*dstTop(l) + 1) * isa::kFractalBytes == prof.capacityOf(dst)) {
    t.emplace_back("dst:ends_at_capacity");
  }
  return t;
}

rc::Gen<V2Case> legalV2(ProfileId id, bool bitModePaths) {
  return rc::gen::exec([id, bitModePaths] {
    const isa::Profile& prof = isa::profile(id);
    V2Case c;
    c.profile = id;
    isa::LoadV2& l = c.load;
    isa::LoadData2DParamsV2& p = l.params;
    l.path = bitModePaths ? *rc::gen::element(Load2DPath::A1toA2, Load2DPath::B1toB2)
                          : *rc::gen::weightedElement<Load2DPath>({{4, Load2DPath::A1toA2},
                                                                   {4, Load2DPath::B1toB2},
                                                                   {1, Load2DPath::GMtoA1},
                                                                   {1, Load2DPath::GMtoB1}});
    l.dtype = *rc::gen::elementOf(v2DTypes());
    p.ifTranspose =
        isa::canTranspose(l.path) && *rc::gen::weightedElement<bool>({{2, false}, {1, true}});
    const Memory src = isa::memoryOf(isa::srcOf(l.path));
    const Memory dst = isa::memoryOf(isa::dstOf(l.path));
    const std::uint64_t dstCapFr = prof.capacityOf(dst) / isa::kFractalBytes;
    const std::uint64_t mu = mStepUnit(l.dtype, p.ifTranspose),
                        ku = kStepUnit(l.dtype, p.ifTranspose);
    // Steps: m_step * k_step fractals must fit the destination; 0 is a no-op.
    const bool noOp = *rc::gen::weightedElement<bool>({{15, false}, {1, true}});
    // Steps: mostly small, sometimes anything, sometimes the largest the unit allows (255).
    std::uint64_t mStep =
        mu * *rc::gen::weightedOneOf<std::uint64_t>({{6, upTo(1, 4)},
                                                     {2, upTo(1, 16)},
                                                     {1, upTo(1, 255 / mu)},
                                                     {1, rc::gen::just(255 / mu)}});
    std::uint64_t kStep = ku * *rc::gen::weightedOneOf<std::uint64_t>(
                                   {{6, upTo(1, 4)}, {2, upTo(1, 16)}, {1, upTo(1, 255 / ku)}});
    while (mStep * kStep > dstCapFr) {
      if (kStep > ku)
        kStep -= ku;
      else
        mStep -= mu;
    }
    p.mStep = static_cast<std::uint16_t>(noOp && *rc::gen::arbitrary<bool>() ? 0 : mStep);
    p.kStep = static_cast<std::uint16_t>(noOp && p.mStep != 0 ? 0 : kStep);
    const isa::V2Shape shape =
        isa::v2Shape(l.dtype, {0, 0, static_cast<std::uint16_t>(mStep),
                               static_cast<std::uint16_t>(kStep), 0, 0, p.ifTranspose, 0});
    // dst_stride: columns back to back, with gaps, overlapping (OPEN-10 order), or unused.
    const std::uint64_t maxStride =
        shape.columns > 1
            ? std::min<std::uint64_t>(65535, (dstCapFr - shape.rows) / (shape.columns - 1))
            : 65535;
    p.dstStride = static_cast<std::uint16_t>(*rc::gen::weightedOneOf<std::uint64_t>(
        {{6, rc::gen::just(std::min(shape.rows, maxStride))},
         {3, upTo(std::min(shape.rows, maxStride), maxStride)},
         {1, upTo(1, maxStride)}}));
    const std::uint64_t top = (shape.columns - 1) * p.dstStride + shape.rows - 1;
    l.dstAddr =
        prof.alignmentOf(dst) *
        *edgy(0, (prof.capacityOf(dst) - (top + 1) * isa::kFractalBytes) / prof.alignmentOf(dst));
    // Source: an Nz matrix whose M-fractal count is the stride; start positions inside it.
    const bool fromGM = src == Memory::GM;
    const std::uint64_t srcCapFr =
        fromGM ? (1ull << 40) : prof.capacityOf(src) / isa::kFractalBytes;
    p.mStartPosition = static_cast<std::uint32_t>(*edgy(0, fromGM ? 65535 : 16));
    const std::uint64_t tight = p.mStartPosition + mStep;
    const std::uint64_t maxSrcStride =
        std::min<std::uint64_t>(65535, kStep > 1 ? (srcCapFr - tight) / (kStep - 1) : 65535);
    p.srcStride = static_cast<std::int32_t>(*rc::gen::weightedOneOf<std::uint64_t>(
        {{6, rc::gen::just(std::min(tight, maxSrcStride))},
         {3, upTo(std::min(tight, maxSrcStride), std::min(tight + 8, maxSrcStride))},
         {1, upTo(0, maxSrcStride)}}));
    const std::uint64_t stride = static_cast<std::uint64_t>(p.srcStride);
    const std::uint64_t kMax =
        stride == 0 ? 65535
                    : std::min<std::uint64_t>(65535, (srcCapFr - tight) / stride - (kStep - 1));
    p.kStartPosition = static_cast<std::uint32_t>(*edgy(0, kMax));
    const std::uint64_t srcTop = (p.kStartPosition + kStep - 1) * stride + tight - 1;
    if (fromGM) {
      // Up to the last address whose footprint ends by 2^48 (a no-op reads nothing: any).
      const bool moves = p.mStep > 0 && p.kStep > 0;
      l.srcAddr =
          *gmAddress(gmTop(prof.capacityOf(src), moves ? (srcTop + 1) * isa::kFractalBytes : 1));
    } else {
      l.srcAddr = 32 * *edgy(0, (prof.capacityOf(src) - (srcTop + 1) * isa::kFractalBytes) / 32);
    }
    p.sid = static_cast<std::uint8_t>(*upTo(0, 3));
    c.contentSeed = *rc::gen::arbitrary<std::uint64_t>();
    return c;
  });
}

std::vector<V2Case> v2Boundaries(ProfileId id, bool bitModePaths) {
  std::vector<V2Case> t;
  std::uint64_t seed = 0x2D2;
  const std::uint64_t l1 = isa::profile(id).capacityOf(Memory::L1);
  const std::uint64_t gm = isa::profile(id).capacityOf(Memory::GM);
  auto add = [&](Load2DPath path, DType d, std::uint64_t src, std::uint64_t dst,
                 isa::LoadData2DParamsV2 p, std::string why) {
    if (bitModePaths && !isa::canTranspose(path)) return;
    t.push_back({id, isa::LoadV2{path, d, src, dst, p}, seed++, std::move(why)});
  };
  using P = isa::LoadData2DParamsV2;  // {m_start, k_start, m_step, k_step, src_stride, dst_stride,
                                      // transpose, sid}
  add(Load2DPath::A1toA2, DType::F16, 0, 0, P{0, 0, 2, 2, 2, 2, false, 0},
      "the vendor sample: 32 x 32 half, Nz to Nz");
  add(Load2DPath::A1toA2, DType::F16, 0, 0, P{0, 0, 0, 4, 2, 2, false, 0}, "m_step 0 is a no-op");
  add(Load2DPath::B1toB2, DType::S8, 0, 0, P{0, 0, 2, 0, 2, 2, true, 0}, "k_step 0 is a no-op");
  add(Load2DPath::GMtoA1, DType::U8, 0, 0, P{0, 0, 255, 1, 255, 255, false, 0},
      "m_step 255, its maximum, into L1");
  add(Load2DPath::GMtoB1, DType::F32, 7, 0, P{1, 0, 1, 255, 2, 1, false, 0},
      "k_step 255, its maximum, into L1");
  add(Load2DPath::GMtoA1, DType::S8, 0, 0, P{65535, 65534, 1, 1, 1, 1, false, 0},
      "start positions at the 16-bit edge, from GM");
  add(Load2DPath::A1toA2, DType::BF16, 0, 0,
      P{static_cast<std::uint32_t>(l1 / isa::kFractalBytes - 1), 0, 1, 1, 0, 1, false, 0},
      "m_start at the last fractal of L1");
  add(Load2DPath::A1toA2, DType::F16, 0, 0, P{0, 0, 2, 3, 2, 40, false, 0},
      "dst_stride 40, far larger than the 2 fractals of a column");
  add(Load2DPath::B1toB2, DType::F16, 0, 0, P{1, 1, 2, 2, 4, 9, false, 0},
      "a sub-block of a 4-fractal-high Nz source with dst gaps");
  add(Load2DPath::A1toA2, DType::Fp4E2M1, 0, 0, P{0, 0, 4, 1, 4, 4, true, 0},
      "transposed b4: m_step a multiple of 4");
  add(Load2DPath::B1toB2, DType::S8, 0, 0, P{0, 0, 2, 3, 2, 3, true, 0},
      "transposed b8: m_step a multiple of 2");
  add(Load2DPath::A1toA2, DType::BF16, 0, 0, P{1, 0, 3, 2, 4, 2, true, 0}, "transposed b16");
  add(Load2DPath::B1toB2, DType::F32, 0, 0, P{0, 1, 3, 4, 3, 2, true, 0},
      "transposed b32: k_step a multiple of 2");
  add(Load2DPath::A1toA2, DType::S8, 0, 0, P{0, 0, 4, 4, 4, 1, true, 0},
      "transposed b8 whose 8 block rows exceed dst_stride 1: the next column overwrites "
      "(OPEN-10, the vendor's b8 loop)");
  add(Load2DPath::A1toA2, DType::F16, 0, 0, P{0, 0, 3, 2, 3, 2, false, 0},
      "m_step 3 over dst_stride 2: columns overlap, the later wins (OPEN-10)");
  for (DType d : v2DTypes()) {
    add(Load2DPath::B1toB2, d, 32, 512, P{0, 1, 1, 2, 1, 1, false, 0},
        "plain copy of " + std::string(isa::nameOf(d)));
  }
  // Each field at its extreme on the L1 paths, which bit mode shares: L0A and L0B hold 128
  // fractals, so a step of 255 moves data only where dst_stride 0 stacks its columns.
  add(Load2DPath::A1toA2, DType::F16, 0, 0, P{0, 0, 3, 3, 3, 0, false, 0},
      "dst_stride 0: all three columns land on the first, the last wins (OPEN-10)");
  add(Load2DPath::B1toB2, DType::F16, 0, 0, P{0, 0, 255, 1, 65535, 0, true, 0},
      "transposed m_step 255 with k_step 1: 255 one-fractal columns stacked by dst_stride 0, "
      "the last wins (OPEN-10); src_stride 65535 never applies");
  add(Load2DPath::A1toA2, DType::S8, 0, 0, P{1, 0, 1, 255, 1, 0, false, 0},
      "k_step 255 with dst_stride 0: 255 consecutive source fractals onto one, the last wins "
      "(OPEN-10)");
  add(Load2DPath::B1toB2, DType::BF16, 0, 0, P{5, 65535, 2, 3, 0, 2, false, 0},
      "src_stride 0: k_start 65535 never applies, every column rereads the same fractals");
  add(Load2DPath::A1toA2, DType::U8, 0, 0, P{0, 0, 4, 1, 4, 65535, false, 255},
      "dst_stride 65535 with a single column never applies; sid 255 is ignored");
  add(Load2DPath::B1toB2, DType::F16, 0, 0, P{65535, 65535, 255, 0, 65535, 65535, true, 255},
      "k_step 0 with every other field at its maximum (positions far past L1): still a no-op");
  // Source addresses at their largest: one fractal from the end of L1, and a no-op's at the last
  // 32-byte address below 2^48 (nothing is read, so nothing bounds it but its field).
  add(Load2DPath::A1toA2, DType::S8, l1 - isa::kFractalBytes, 0, P{0, 0, 1, 1, 1, 1, false, 0},
      "one fractal from the last 512 bytes of L1: the largest L1 source address that moves data");
  add(Load2DPath::B1toB2, DType::F16, gm - 32, 0, P{0, 0, 2, 0, 2, 2, true, 0},
      "k_step 0 with the source address at 2^48 - 32, far past L1: still a no-op");
  // GM addresses with their high bits set, as a real GM pointer has them (about 2^44): GM is a
  // 48-bit address space (spec 1), so a DUT that keeps fewer bits reads other bytes here. Both
  // GM paths, up to the last address whose footprint ends at 2^48.
  const std::uint64_t near44 = (std::uint64_t{1} << 44) + 0x3A5C0;
  add(Load2DPath::GMtoA1, DType::S8, gm - isa::kFractalBytes, 0, P{0, 0, 1, 1, 1, 1, false, 0},
      "GM source at 2^48 - 512: one fractal ending at the top of the 48-bit address space");
  add(Load2DPath::GMtoB1, DType::BF16, near44, 0, P{1, 2, 3, 2, 4, 3, false, 0},
      "a sub-block of an Nz source in GM just above 2^44, where a real GM pointer lies");
  add(Load2DPath::GMtoA1, DType::Fp8E4M3FN, (std::uint64_t{1} << 47) + 5, 0,
      P{0, 1, 2, 2, 2, 2, false, 0},
      "GM source at 2^47 + 5: only bit 47 above the low bits, lost to a DUT that keeps 47");
  add(Load2DPath::GMtoB1, DType::F32, (std::uint64_t{1} << 33) - isa::kFractalBytes, 0,
      P{0, 0, 2, 2, 2, 2, false, 0}, "GM fractals crossing 2^33: the address carries into bit 33");
  {
    // The widest walk from GM: positions and src_stride at 65535, the last fractal at 2^48.
    const std::uint64_t top = 65535ull * 65535ull + 65535ull;
    add(Load2DPath::GMtoB1, DType::U8, gm - (top + 1) * isa::kFractalBytes, 0,
        P{65535, 65535, 1, 1, 65535, 1, false, 0},
        "m_start, k_start and src_stride at 65535 from GM, the one fractal ending at 2^48: 2 TiB "
        "into the high address bits");
  }
  add(Load2DPath::GMtoA1, DType::F16, gm - 1, 0, P{0, 0, 0, 3, 1, 1, false, 0},
      "m_step 0 from the last byte of GM's 48-bit address space: nothing read, nothing written");
  // The strides at the largest a load that uses them can hold: two K fractals (src_stride), two
  // destination columns (dst_stride), the second column the last fractal of its buffer. A DUT
  // that keeps 9 bits of a stride goes wrong only past 511.
  const auto lastFractal = [&](Memory m) {
    return static_cast<std::uint16_t>(isa::profile(id).capacityOf(m) / isa::kFractalBytes - 1);
  };
  add(Load2DPath::GMtoA1, DType::S8, 0, 0, P{0, 0, 1, 2, 65535, lastFractal(Memory::L1), false, 0},
      "k_step 2 from GM with src_stride 65535, the second column at the last fractal of L1");
  add(Load2DPath::A1toA2, DType::F16, 0, 0,
      P{0, 0, 1, 2, lastFractal(Memory::L1), lastFractal(Memory::L0A), false, 0},
      "k_step 2 from L1's first fractal to its last, the second column at the last of L0A");
  add(Load2DPath::B1toB2, DType::F16, 0, 0, P{0, 0, 2, 1, 1, lastFractal(Memory::L0B), true, 0},
      "transposed: m_step 2 makes two columns, the second at the last fractal of L0B");
  return t;
}

std::ostream& operator<<(std::ostream& os, const IllegalV2Case& c) {
  os << c.c;
  if (c.bitMode)
    os << " as bit mode config0=0x" << std::hex << c.words.config0() << " config1=0x"
       << c.words.config1() << std::dec;
  return os << " expected_rejection=" << isa::nameOf(c.expected);
}

isa::Program buildProgram(const IllegalV2Case& c) {
  if (!c.bitMode) return buildProgram(c.c);
  isa::Program p = buildBitModeProgram(c.c);
  p.instructions = {
      isa::LoadBitMode{c.c.load.path, c.c.load.dtype, c.c.load.srcAddr, c.c.load.dstAddr, c.words}};
  return p;
}

rc::Gen<IllegalV2Case> illegalV2(ProfileId id, bool bitMode) {
  using V = isa::ViolationCode;
  return rc::gen::exec([id, bitMode] {
    const isa::Profile& prof = isa::profile(id);
    IllegalV2Case ic;
    ic.bitMode = bitMode;
    ic.c = *legalV2(id, bitMode);
    isa::LoadV2& l = ic.c.load;
    isa::LoadData2DParamsV2& p = l.params;
    if (p.mStep == 0) p.mStep = static_cast<std::uint16_t>(mStepUnit(l.dtype, p.ifTranspose));
    if (p.kStep == 0) p.kStep = static_cast<std::uint16_t>(kStepUnit(l.dtype, p.ifTranspose));
    int kind = *rc::gen::inRange(0, bitMode ? 6 : 5);
    if (kind == 0) {  // a transposed step that breaks the square-block rule
      std::vector<DType> odd;
      for (DType d : v2DTypes()) {
        if (isa::bitsOf(d) != 16) odd.push_back(d);
      }
      l.path = *rc::gen::element(Load2DPath::A1toA2, Load2DPath::B1toB2);
      l.dtype = *rc::gen::elementOf(odd);
      p.ifTranspose = true;
      p.mStep = 1;
      p.kStep = 1;  // b4 and b8 need m_step % 4 or 2, b32 k_step % 2
      p.dstStride = 16;
      l.dstAddr = 0;
      // The legal draw's source may have been in GM (where any byte is aligned) or far along a
      // long L1 walk: where a 16-bit type (which any step suits) would not be legal there, read
      // from the start of L1 instead, so that the step is the only rule broken.
      isa::LoadV2 asF16 = l;
      asF16.dtype = DType::F16;
      if (isa::validate(prof, asF16)) {
        l.srcAddr = 0;
        p.mStartPosition = 0;
        p.kStartPosition = 0;
        p.srcStride = 1;
      }
      ic.expected = V::Range;
    } else if (kind == 1) {  // a destination past L0A/L0B/L1
      const Memory dst = isa::memoryOf(isa::dstOf(l.path));
      const isa::V2Shape s = isa::v2Shape(l.dtype, p);
      l.dstAddr =
          prof.capacityOf(dst) - ((s.columns - 1) * p.dstStride + s.rows - 1) * isa::kFractalBytes;
      ic.expected = V::Capacity;
    } else if (kind == 2) {
      const Memory dst = isa::memoryOf(isa::dstOf(l.path));
      const std::uint64_t align = prof.alignmentOf(dst);
      l.dstAddr = (l.dstAddr >= align ? l.dstAddr - align : l.dstAddr) + *upTo(1, align - 1);
      ic.expected = V::Alignment;
    } else if (kind == 3) {
      l.dtype = *rc::gen::element(DType::U16, DType::S16, DType::S4);
      p.ifTranspose = false;
      // Untransposed, a block can need more room than it had transposed (spec 5); then one
      // fractal, which fits where the block began, so that the type is the only rule broken.
      isa::LoadV2 asF16 = l;
      asF16.dtype = DType::F16;
      if (isa::validate(prof, asF16)) p.mStep = p.kStep = 1;
      ic.expected = V::DTypeUnsupported;
    } else if (kind == 4) {
      if (bitMode) {  // bit mode has no GM path at all
        const Load2DPath was = l.path;
        l.path = *rc::gen::element(Load2DPath::GMtoA1, Load2DPath::GMtoB1);
        p.ifTranspose = false;
        // As for the type above: untransposed, one fractal if the block no longer fits where
        // it was, so that the path is the only rule broken.
        isa::LoadV2 back = l;
        back.path = was;
        if (isa::validate(prof, back)) p.mStep = p.kStep = 1;
        ic.expected = V::PathUnsupported;
      } else {  // a step past its 8-bit hardware field
        p.mStep = static_cast<std::uint16_t>(*upTo(256, 65535));
        ic.expected = V::Range;
      }
    } else {  // bit mode: the unused high bits of a word set
      ic.words = isa::Load2DBitModeParam(p);
      const bool first = *rc::gen::arbitrary<bool>();
      ic.words = isa::Load2DBitModeParam(
          ic.words.config0() | (first ? std::uint64_t{1} << *upTo(48, 63) : 0),
          ic.words.config1() | (first ? 0 : std::uint64_t{1} << *upTo(32, 63)), p.ifTranspose);
      ic.expected = V::Range;
      return ic;
    }
    ic.words = isa::Load2DBitModeParam(p);
    return ic;
  });
}

std::ostream& operator<<(std::ostream& os, const WideV2Case& c) {
  return os << c.legal << " built from m_start=" << c.wide.mStartPosition
            << " k_start=" << c.wide.kStartPosition << " m_step=" << c.wide.mStep
            << " k_step=" << c.wide.kStep << " src_stride=" << c.wide.srcStride
            << " dst_stride=" << c.wide.dstStride;
}

rc::Gen<WideV2Case> wideV2(ProfileId id) {
  return rc::gen::exec([id] {
    WideV2Case w;
    w.legal = *legalV2(id, true);
    w.wide = w.legal.load.params;
    // Bits above each field's width: the constructor must drop them.
    w.wide.mStartPosition += static_cast<std::uint32_t>(*upTo(0, 3) << 16);
    w.wide.kStartPosition += static_cast<std::uint32_t>(*upTo(0, 3) << 16);
    w.wide.mStep = static_cast<std::uint16_t>(w.wide.mStep + (*upTo(0, 255) << 8));
    w.wide.kStep = static_cast<std::uint16_t>(w.wide.kStep + (*upTo(0, 255) << 8));
    w.wide.srcStride += static_cast<std::int32_t>(*upTo(0, 3) << 16);
    return w;
  });
}

std::ostream& operator<<(std::ostream& os, const V2LayoutCase& c) {
  return os << "profile=" << isa::profile(c.profile).name << " dtype=" << isa::nameOf(c.dtype)
            << " transpose=" << c.transpose << " to=" << (c.toL0B ? "L0B" : "L0A")
            << " m_blocks=" << c.mBlocks << " k_blocks=" << c.kBlocks
            << " content_seed=" << c.contentSeed;
}

rc::Gen<V2LayoutCase> v2Layout(ProfileId id) {
  return rc::gen::exec([id] {
    V2LayoutCase c;
    c.profile = id;
    c.dtype = *rc::gen::elementOf(v2DTypes());
    c.transpose = *rc::gen::arbitrary<bool>();
    c.toL0B = *rc::gen::arbitrary<bool>();
    const int mu = static_cast<int>(mStepUnit(c.dtype, c.transpose));
    const int ku = static_cast<int>(kStepUnit(c.dtype, c.transpose));
    c.mBlocks = mu * *rc::gen::inRange(1, 4);
    c.kBlocks = ku * *rc::gen::inRange(1, 4);
    c.contentSeed = *rc::gen::arbitrary<std::uint64_t>();
    return c;
  });
}

oracle::ElemMatrix v2LayoutOperand(const V2LayoutCase& c) {
  return randomElements(16 * c.mBlocks, isa::c0Of(c.dtype) * c.kBlocks, c.dtype, c.contentSeed);
}

isa::Program buildProgram(const V2LayoutCase& c) {
  const oracle::ElemMatrix a = v2LayoutOperand(c);
  const Memory dst = c.toL0B ? Memory::L0B : Memory::L0A;
  const std::uint64_t fracs = std::uint64_t(c.mBlocks) * c.kBlocks;
  isa::Program p;
  p.profile = c.profile;
  p.segments.push_back({Memory::L1, 0, oracle::encode(a, oracle::Layout::Nz, c.dtype)});
  p.segments.push_back(filled(dst, 0, (fracs + 1) * isa::kFractalBytes, subSeed(c.contentSeed, 5)));
  isa::LoadData2DParamsV2 v{0,
                            0,
                            static_cast<std::uint16_t>(c.mBlocks),
                            static_cast<std::uint16_t>(c.kBlocks),
                            c.mBlocks,
                            0,
                            c.transpose,
                            0};
  // Nz of A keeps M1 as the column stride; Nz of A^T (K x M) has K/16 fractal rows.
  v.dstStride =
      static_cast<std::uint16_t>(c.transpose ? isa::c0Of(c.dtype) * c.kBlocks / 16 : c.mBlocks);
  p.instructions.emplace_back(
      isa::LoadV2{c.toL0B ? Load2DPath::B1toB2 : Load2DPath::A1toA2, c.dtype, 0, 0, v});
  p.observe.push_back({dst, 0, (fracs + 1) * isa::kFractalBytes});
  return p;
}

}  // namespace cubecheck::gen
