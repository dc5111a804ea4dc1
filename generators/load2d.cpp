#include "generators/load2d.hpp"

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

constexpr std::uint64_t kU16Max = 65535;

rc::Gen<std::uint64_t> justU(std::uint64_t v) {
  return rc::gen::just(v);
}

std::vector<DType> sixteenBit() {
  return {DType::U16, DType::S16, DType::F16, DType::BF16};
}

std::uint64_t dstFootprint(const isa::LoadData2DParams& p) {
  if (p.repeatTimes == 0) return 0;
  return ((p.repeatTimes - 1ull) * (p.dstGap + 1ull) + 1) * isa::kFractalBytes;
}

bool decrements(const isa::Load2D& l) {
  return l.params.addrMode == 1 && isa::honoursAddrMode(l.path);
}

/// Source fractal numbers the instruction reads, lowest first; negative ones (an illegal
/// decrement) are left out.
std::vector<std::int64_t> sourceFractals(const isa::Load2D& l) {
  std::vector<std::int64_t> f;
  for (unsigned i = 0; i < l.params.repeatTimes; ++i) {
    const std::int64_t step = std::int64_t{i} * l.params.srcStride;
    const std::int64_t k = decrements(l) ? l.params.startIndex - step : l.params.startIndex + step;
    if (k >= 0) f.push_back(k);
  }
  std::sort(f.begin(), f.end());
  f.erase(std::unique(f.begin(), f.end()), f.end());
  return f;
}

std::uint64_t topSourceFractal(const isa::Load2D& l) {
  if (l.params.repeatTimes == 0) return l.params.startIndex;
  return decrements(l) ? l.params.startIndex
                       : l.params.startIndex + (l.params.repeatTimes - 1ull) * l.params.srcStride;
}

}  // namespace

std::vector<DType> dtypesOf(ProfileId id) {
  std::vector<DType> out;
  for (DType t : isa::kAllDTypes) {
    if (isa::profile(id).hasDType(t)) out.push_back(t);
  }
  return out;
}

std::vector<Load2DPath> load2DPathsOf(ProfileId id) {
  std::vector<Load2DPath> out;
  for (Load2DPath p : isa::kAllLoad2DPaths) {
    if (isa::hasPath(id, p)) out.push_back(p);
  }
  return out;
}

std::ostream& operator<<(std::ostream& os, const Load2DCase& c) {
  return printCase(os, c.profile, isa::describe(c.load), c.contentSeed, c.why);
}

isa::Program buildProgram(const Load2DCase& c) {
  const isa::Profile& prof = isa::profile(c.profile);
  const isa::Load2D& l = c.load;
  const Memory src = isa::memoryOf(isa::srcOf(l.path));
  const Memory dst = isa::memoryOf(isa::dstOf(l.path));
  isa::Program p;
  p.profile = c.profile;

  // Source: each fractal read, with margins (fractalSegments).
  std::vector<std::uint64_t> fracs;
  for (std::int64_t f : sourceFractals(l)) fracs.push_back(static_cast<std::uint64_t>(f));
  for (isa::Segment& s :
       fractalSegments(src, l.srcAddr, fracs, prof.capacityOf(src), c.contentSeed)) {
    p.segments.push_back(std::move(s));
  }

  // Destination: footprint plus one fractal of canary either side, clipped to the memory.
  const std::uint64_t dstCap = prof.capacityOf(dst);
  const std::uint64_t lo =
      std::min(l.dstAddr >= isa::kFractalBytes ? l.dstAddr - isa::kFractalBytes : 0, dstCap);
  const std::uint64_t hi =
      std::min(dstCap, l.dstAddr + dstFootprint(l.params) + isa::kFractalBytes);
  p.segments.push_back(filled(dst, lo, std::max(lo, hi), subSeed(c.contentSeed, 1u << 20)));
  p.instructions.emplace_back(l);
  p.observe.push_back({dst, lo, std::max(lo, hi) - lo});
  return p;
}

std::vector<std::string> tagsOf(const Load2DCase& c) {
  const isa::Load2D& l = c.load;
  const isa::LoadData2DParams& p = l.params;
  const isa::Profile& prof = isa::profile(c.profile);
  std::vector<std::string> t{"path:" + std::string(isa::nameOf(l.path)),
                             "dtype:" + std::string(isa::nameOf(l.dtype))};
  if (p.ifTranspose) t.emplace_back("transpose");
  if (p.repeatTimes == 0) t.emplace_back("repeat:0");
  if (p.repeatTimes == 1) t.emplace_back("repeat:1");
  if (p.repeatTimes == 255) t.emplace_back("repeat:255");
  if (p.repeatTimes >= 2) {
    if (p.srcStride == 0) t.emplace_back("src_stride:0");
    if (p.srcStride >= 256) t.emplace_back("src_stride:large");
    if (p.dstGap > 0) t.emplace_back("dst_gap:>0");
  }
  if (decrements(l) && p.repeatTimes >= 2 && p.srcStride > 0) t.emplace_back("addr_mode:decrement");
  if (p.addrMode == 1 && !isa::honoursAddrMode(l.path)) t.emplace_back("addr_mode:ignored");
  const Memory dst = isa::memoryOf(isa::dstOf(l.path));
  if (p.repeatTimes > 0 && l.dstAddr + dstFootprint(p) == prof.capacityOf(dst)) {
    t.emplace_back("dst:ends_at_capacity");
  }
  const Memory src = isa::memoryOf(isa::srcOf(l.path));
  if (src != Memory::GM && p.repeatTimes > 0 &&
      l.srcAddr + (topSourceFractal(l) + 1) * isa::kFractalBytes == prof.capacityOf(src)) {
    t.emplace_back("src:last_fractal_of_L1");
  }
  if (src == Memory::GM && l.srcAddr % 32 != 0) t.emplace_back("src:GM_unaligned");
  if (src == Memory::GM && (l.srcAddr >> 33) != 0) t.emplace_back("src:GM_high_bits");
  if (src == Memory::GM && p.repeatTimes > 0 &&
      l.srcAddr + (topSourceFractal(l) + 1) * isa::kFractalBytes == prof.capacityOf(src)) {
    t.emplace_back("src:GM_ends_at_top");
  }
  if (p.sid != 0) t.emplace_back("sid:nonzero");
  return t;
}

rc::Gen<Load2DCase> legalLoad2D(ProfileId id, Load2DShape shape) {
  return rc::gen::exec([id, shape] {
    const isa::Profile& prof = isa::profile(id);
    Load2DCase c;
    c.profile = id;
    isa::Load2D& l = c.load;
    isa::LoadData2DParams& p = l.params;
    const std::vector<Load2DPath> paths = shape.paths.empty() ? load2DPathsOf(id) : shape.paths;
    l.path = *rc::gen::elementOf(paths);
    p.ifTranspose =
        isa::canTranspose(l.path) &&
        shape.transpose.value_or(*rc::gen::weightedElement<bool>({{3, false}, {1, true}}));
    l.dtype = *rc::gen::elementOf(p.ifTranspose ? sixteenBit() : dtypesOf(id));

    const Memory dst = isa::memoryOf(isa::dstOf(l.path));
    const std::uint64_t dstCapFr = prof.capacityOf(dst) / isa::kFractalBytes;
    const std::uint64_t maxRepeat = std::min<std::uint64_t>({shape.maxRepeat, 255, dstCapFr});
    std::uint64_t r = *rc::gen::weightedOneOf<std::uint64_t>(
        {{1, justU(0)}, {2, justU(1)}, {1, justU(255)}, {12, upTo(2, 16)}, {2, upTo(1, 255)}});
    r = std::clamp<std::uint64_t>(r, shape.minRepeat, maxRepeat);
    p.repeatTimes = static_cast<std::uint8_t>(r);

    // Gap: any value when it cannot matter (r <= 1); else as large as the memory allows.
    const std::uint64_t maxGap = r <= 1 ? kU16Max : std::min(kU16Max, (dstCapFr - 1) / (r - 1) - 1);
    p.dstGap = static_cast<std::uint16_t>(*rc::gen::weightedOneOf<std::uint64_t>(
        {{6, justU(0)},
         {3, upTo(std::min<std::uint64_t>(1, maxGap), std::min<std::uint64_t>(4, maxGap))},
         {1, upTo(0, maxGap)}}));
    const std::uint64_t dstAlign = prof.alignmentOf(dst);
    const std::uint64_t dstSlots = (prof.capacityOf(dst) - dstFootprint(p)) / dstAlign;
    l.dstAddr = dstAlign * *edgy(0, dstSlots);

    p.addrMode = *rc::gen::weightedElement<std::uint8_t>({{4, 0}, {1, 1}});
    const bool decrement = decrements(l);
    const Memory src = isa::memoryOf(isa::srcOf(l.path));
    const bool fromGM = src == Memory::GM;
    const std::uint64_t srcCapFr = fromGM ? 0 : prof.capacityOf(src) / isa::kFractalBytes;

    // Stride: a decrement must stay within start_index (u16); an L1 source within L1.
    std::uint64_t maxStride = kU16Max;
    if (r >= 2 && decrement) maxStride = kU16Max / (r - 1);
    if (r >= 2 && !fromGM) maxStride = std::min(maxStride, (srcCapFr - 1) / (r - 1));
    p.srcStride = static_cast<std::uint16_t>(*rc::gen::weightedOneOf<std::uint64_t>(
        {{2, justU(0)},
         {4, justU(std::min<std::uint64_t>(1, maxStride))},
         {3, upTo(std::min<std::uint64_t>(2, maxStride), std::min<std::uint64_t>(8, maxStride))},
         {1, upTo(0, maxStride)}}));
    const std::uint64_t walk = r >= 1 ? (r - 1) * p.srcStride : 0;
    std::uint64_t startLo = 0;
    std::uint64_t startHi = kU16Max;
    if (decrement) startLo = walk;
    if (!fromGM && !decrement) startHi = std::min(kU16Max, srcCapFr - 1 - walk);
    p.startIndex = static_cast<std::uint16_t>(*edgy(startLo, startHi));

    if (fromGM) {
      // Up to the last address whose footprint ends by 2^48 (a no-op reads nothing: any).
      const std::uint64_t bytes = r == 0 ? 1 : (topSourceFractal(l) + 1) * isa::kFractalBytes;
      l.srcAddr = *gmAddress(gmTop(prof.capacityOf(src), bytes));
    } else {
      const std::uint64_t top = r == 0 ? p.startIndex : topSourceFractal(l);
      const std::uint64_t srcAlign = prof.alignmentOf(src);
      l.srcAddr =
          srcAlign * *edgy(0, (prof.capacityOf(src) - (top + 1) * isa::kFractalBytes) / srcAlign);
    }
    p.sid = static_cast<std::uint8_t>(*rc::gen::weightedOneOf<std::uint64_t>(
        {{8, justU(0)}, {1, upTo(1, 255)}, {1, justU(255)}}));
    c.contentSeed = *rc::gen::arbitrary<std::uint64_t>();
    return c;
  });
}

std::vector<Load2DCase> load2DBoundaries(ProfileId id) {
  const isa::Profile& prof = isa::profile(id);
  const std::uint64_t l1 = prof.capacityOf(Memory::L1);
  const std::uint64_t l0a = prof.capacityOf(Memory::L0A);
  const std::uint64_t l0b = prof.capacityOf(Memory::L0B);
  std::vector<Load2DCase> t;
  std::uint64_t seed = 0xB0D1;
  auto add = [&](Load2DPath path, DType dtype, std::uint64_t src, std::uint64_t dst,
                 isa::LoadData2DParams p, std::string why) {
    if (!isa::hasPath(id, path)) return;
    t.push_back(Load2DCase{id, isa::Load2D{path, dtype, src, dst, p}, seed++, std::move(why)});
  };
  using P = isa::LoadData2DParams;
  // {start, repeat, src_stride, sid, dst_gap, transpose, addr_mode}
  add(Load2DPath::A1toA2, DType::F16, 0, 0, P{0, 0, 1, 0, 0, false, 0},
      "repeat 0 is a no-op: the destination keeps its canary");
  add(Load2DPath::GMtoA2, DType::S8, 0, 0, P{0, 0, 1, 0, 0, false, 0},
      "repeat 0 from GM: nothing read, nothing written");
  add(Load2DPath::A1toA2, DType::F16, 0, 0, P{3, 1, 0, 0, 0, false, 0},
      "repeat 1: exactly one fractal");
  add(Load2DPath::GMtoA1, DType::U8, 0, 0, P{0, 255, 1, 0, 0, false, 0},
      "repeat 255, the maximum, into L1");
  add(Load2DPath::GMtoB1, DType::S32, 7,
      (l1 / isa::kFractalBytes - 1 - 254 * 4) * isa::kFractalBytes, P{0, 255, 1, 0, 3, false, 0},
      "repeat 255 with dst_gap 3 ending exactly at the end of L1");
  add(Load2DPath::A1toA2, DType::F32, 0, 0,
      P{static_cast<std::uint16_t>(l1 / isa::kFractalBytes - 1), 1, 1, 0, 0, false, 0},
      "start_index at the last fractal of L1");
  add(Load2DPath::B1toB2, DType::BF16, l1 - 4 * isa::kFractalBytes, 0, P{3, 1, 0, 0, 0, true, 0},
      "source address plus start_index reaching the last fractal of L1, transposed");
  add(Load2DPath::GMtoA2, DType::S16, 5, 0, P{65535, 2, 1, 0, 0, false, 0},
      "start_index 65535, its maximum, from GM");
  add(Load2DPath::A1toA2, DType::U16, 0, 0, P{2, 8, 0, 0, 0, false, 0},
      "src_stride 0: the same fractal eight times");
  add(Load2DPath::GMtoA1, DType::S8, 0, 0, P{1, 3, 65535, 0, 0, false, 0},
      "src_stride 65535, its maximum, from GM");
  add(Load2DPath::GMtoB2, DType::F16, 0, isa::kFractalBytes, P{0, 4, 2, 0, 3, false, 0},
      "dst_gap 3: three untouched fractals between destinations");
  add(Load2DPath::GMtoA2, DType::U32, 0, 0, P{0, 1, 1, 0, 65535, false, 0},
      "dst_gap 65535 with repeat 1: the gap never applies, so it is legal");
  add(Load2DPath::A1toA2, DType::S8, 0, 0,
      P{0, static_cast<std::uint8_t>(std::min<std::uint64_t>(255, l0a / isa::kFractalBytes)), 1, 0,
        0, false, 0},
      "a destination that exactly fills L0A");
  add(Load2DPath::B1toB2, DType::S4, 0, 0,
      P{0, static_cast<std::uint8_t>(std::min<std::uint64_t>(255, l0b / isa::kFractalBytes)), 1, 0,
        0, false, 0},
      "a destination that exactly fills L0B, int4");
  add(Load2DPath::B1toB2, DType::F16, 0, l0b - 2 * isa::kFractalBytes, P{0, 2, 1, 0, 0, true, 0},
      "a transposed destination ending at the last fractal of L0B");
  add(Load2DPath::GMtoA1, DType::F16, 3, 0, P{12, 5, 3, 0, 0, false, 1},
      "addr_mode 1: decrement down to exactly fractal 0");
  add(Load2DPath::GMtoB1, DType::S8, 0, 0, P{100, 4, 7, 0, 1, false, 1},
      "addr_mode 1 with dst_gap: decrement into L1 with gaps");
  add(Load2DPath::A1toA2, DType::F16, 0, 0, P{0, 4, 2, 0, 0, false, 1},
      "addr_mode 1 on A1->A2 is ignored: still increments");
  add(Load2DPath::GMtoA2, DType::S8, 0, 0, P{0, 3, 1, 0, 0, false, 1},
      "addr_mode 1 on GM->A2 is ignored: still increments");
  for (DType d : sixteenBit()) {
    add(Load2DPath::A1toA2, d, 0, 0, P{1, 4, 2, 0, 1, true, 0},
        "transpose of " + std::string(isa::nameOf(d)) + " on A1->A2");
    add(Load2DPath::B1toB2, d, 0, 0, P{0, 3, 1, 0, 0, true, 0},
        "transpose of " + std::string(isa::nameOf(d)) + " on B1->B2");
  }
  add(Load2DPath::GMtoA2, DType::S8, 1, 0, P{0, 2, 1, 0, 0, false, 0},
      "GM source at an odd byte address (GM needs no alignment)");
  add(Load2DPath::GMtoA1, DType::U8, 3, 32, P{0, 2, 1, 0, 0, false, 0},
      "L1 destination 32-byte aligned but not fractal aligned");
  add(Load2DPath::A1toA2, DType::S8, 32, 0, P{0, 2, 1, 0, 0, false, 0},
      "L1 source 32-byte aligned but not fractal aligned");
  add(Load2DPath::A1toA2, DType::F16, 0, 0, P{0, 2, 1, 9, 0, false, 0},
      "sid 9: reserved, must be ignored");
  for (DType d : dtypesOf(id)) {
    add(Load2DPath::B1toB2, d, 0, 0, P{1, 2, 1, 0, 0, false, 0},
        "plain copy of " + std::string(isa::nameOf(d)));
  }
  // The 16-bit fields at 65535 on the L1 paths, the only ones 950 has (start_index 0 or
  // src_stride 1 keeps both inside what OPEN-9 certifies there).
  add(Load2DPath::A1toA2, DType::S8, 0, 0, P{0, 1, 65535, 255, 65535, false, 0},
      "repeat 1 from L1: src_stride 65535 and dst_gap 65535, their maxima, never apply; sid 255 "
      "is ignored");
  add(Load2DPath::B1toB2, DType::F16, 0, 0, P{65535, 0, 1, 255, 65535, true, 1},
      "repeat 0 with start_index 65535 (far past L1), dst_gap 65535 and sid 255, transposed, "
      "addr_mode 1: still a no-op");
  // GM addresses with their high bits set, as a real GM pointer has them (about 2^44): GM is a
  // 48-bit address space (spec 1), so a DUT that keeps fewer bits reads other bytes here. Every
  // GM path, up to the last address whose footprint ends at 2^48.
  const std::uint64_t gm = prof.capacityOf(Memory::GM);
  const std::uint64_t near44 = (std::uint64_t{1} << 44) + 0x3A5C0;
  add(Load2DPath::GMtoA2, DType::S8, gm - isa::kFractalBytes, 0, P{0, 1, 1, 0, 0, false, 0},
      "GM source at 2^48 - 512: one fractal ending at the top of the 48-bit address space");
  add(Load2DPath::GMtoB1, DType::F16, gm - 3 * isa::kFractalBytes - 1, 0,
      P{0, 3, 1, 0, 0, false, 0},
      "three GM fractals ending one byte below 2^48, unaligned: address bits 0..47 all in use");
  add(Load2DPath::GMtoA1, DType::U8, near44, 0, P{2, 4, 3, 0, 1, false, 0},
      "GM source just above 2^44, where a real GM pointer lies");
  add(Load2DPath::GMtoB2, DType::S16, (std::uint64_t{1} << 47) + 3, 0, P{5, 2, 1, 0, 0, false, 0},
      "GM source at 2^47 + 3: only bit 47 above the low bits, lost to a DUT that keeps 47");
  add(Load2DPath::GMtoA2, DType::F32, (std::uint64_t{1} << 33) - isa::kFractalBytes, 0,
      P{0, 3, 1, 0, 0, false, 0},
      "GM fractals crossing 2^33: the address carries into bit 33 mid-load");
  add(Load2DPath::GMtoB1, DType::S8, near44 + 0x1000, 0, P{12, 5, 3, 0, 0, false, 1},
      "addr_mode 1 from a GM source above 2^44: decrement down to fractal 0");
  {
    // The widest walk from GM: start_index and src_stride at 65535, 255 repeats, the last
    // fractal ending at 2^48.
    const std::uint64_t top = 65535ull + 254ull * 65535ull;
    add(Load2DPath::GMtoA1, DType::S8, gm - (top + 1) * isa::kFractalBytes, 0,
        P{65535, 255, 65535, 0, 0, false, 0},
        "start_index, src_stride and repeat at their maxima from GM, the last fractal ending at "
        "2^48: 8 GiB walked across the high address bits");
  }
  add(Load2DPath::GMtoB2, DType::U16, gm - 1, 0, P{0, 0, 1, 0, 0, false, 0},
      "repeat 0 from the last byte of GM's 48-bit address space: nothing read, nothing written");
  // The largest gap and stride a moving load can use: two repeats, the second fractal the last
  // of the buffer. A DUT that keeps 8 or 9 bits of dst_gap goes wrong only past 255 or 511.
  auto lastOf = [](std::uint64_t bytes) {
    return static_cast<std::uint16_t>(
        std::min<std::uint64_t>(65535, bytes / isa::kFractalBytes - 2));
  };
  add(Load2DPath::GMtoA1, DType::S8, 0, 0, P{0, 2, 1, 0, lastOf(l1), false, 0},
      "dst_gap at the largest two repeats can use into L1: the second fractal the last of L1");
  add(Load2DPath::GMtoB1, DType::F16, 0, 0, P{0, 2, 1, 0, 300, false, 0},
      "dst_gap 300 into L1: past 8 bits (256 to 511 keep a ninth)");
  add(Load2DPath::A1toA2, DType::F16, 0, 0, P{0, 2, 1, 0, lastOf(l0a), false, 0},
      "dst_gap at the largest two repeats can use into L0A");
  add(Load2DPath::B1toB2, DType::S8, 0, 0, P{0, 2, 1, 0, lastOf(l0b), false, 0},
      "dst_gap at the largest two repeats can use into L0B");
  add(Load2DPath::A1toA2, DType::S8, 0, 0,
      P{0, 2,
        static_cast<std::uint16_t>(std::min<std::uint64_t>(65535, l1 / isa::kFractalBytes - 1)), 0,
        0, false, 0},
      "src_stride at the largest two repeats can use from L1: fractal 0, then the last of L1");
  return t;
}

std::ostream& operator<<(std::ostream& os, const IllegalLoad2DCase& c) {
  return os << c.c << " expected_rejection=" << isa::nameOf(c.expected);
}

rc::Gen<IllegalLoad2DCase> illegalLoad2D(ProfileId id) {
  using V = isa::ViolationCode;
  std::vector<V> kinds{V::TransposeType, V::Capacity, V::Alignment, V::Range};
  const bool hasGM = isa::hasPath(id, Load2DPath::GMtoA1);
  if (hasGM) {
    kinds.insert(kinds.end(), {V::TransposePath, V::DecrementUnderflow, V::DTypeUnsupported});
  } else {
    kinds.push_back(V::PathUnsupported);
  }
  return rc::gen::exec([id, kinds] {
    const isa::Profile& prof = isa::profile(id);
    IllegalLoad2DCase ic;
    ic.expected = *rc::gen::elementOf(kinds);
    const std::vector<Load2DPath> l1Paths{Load2DPath::A1toA2, Load2DPath::B1toB2};
    const std::vector<Load2DPath> gmToL1{Load2DPath::GMtoA1, Load2DPath::GMtoB1};
    const std::vector<Load2DPath> gmPaths{Load2DPath::GMtoA1, Load2DPath::GMtoB1,
                                          Load2DPath::GMtoA2, Load2DPath::GMtoB2};
    Load2DShape small{{}, 1, 16, false};
    Load2DCase& c = ic.c;
    isa::Load2D& l = c.load;
    switch (ic.expected) {
      case V::TransposeType: {
        c = *legalLoad2D(id, {l1Paths, 0, 16, false});
        std::vector<DType> others;
        for (DType d : dtypesOf(id)) {
          if (isa::bitsOf(d) != 16) others.push_back(d);
        }
        l.dtype = *rc::gen::elementOf(others);
        l.params.ifTranspose = true;
        break;
      }
      case V::TransposePath:
        c = *legalLoad2D(id, {gmPaths, 0, 16, false});
        l.dtype = *rc::gen::elementOf(sixteenBit());
        l.params.ifTranspose = true;
        break;
      case V::Capacity: {
        c = *legalLoad2D(id, small);
        const Memory dst = isa::memoryOf(isa::dstOf(l.path));
        const std::uint64_t cap = prof.capacityOf(dst);
        const int how = *rc::gen::inRange(0, 3);
        // More repeats must not also walk a decrement below fractal 0 or a source past L1: read
        // one fractal repeatedly so the destination is the only rule broken.
        if (how != 0) l.params.srcStride = 0;
        if (how == 0) {  // a destination that starts too late
          l.dstAddr = cap - dstFootprint(l.params) + prof.alignmentOf(dst);
        } else if (how == 1) {  // more repeats than the destination holds
          l.dstAddr = 0;
          l.params.dstGap = 0;
          l.params.repeatTimes =
              static_cast<std::uint8_t>(*upTo(std::min<std::uint64_t>(255, cap / 512 + 1), 255));
          if (l.params.repeatTimes <= cap / 512) {  // L1 holds 255: overflow by the gap
            l.params.dstGap = static_cast<std::uint16_t>(cap / 512 / (l.params.repeatTimes - 1));
          }
        } else {  // a gap that walks past the end
          l.dstAddr = 0;
          l.params.repeatTimes = static_cast<std::uint8_t>(*upTo(2, 16));
          l.params.dstGap = static_cast<std::uint16_t>(
              std::min<std::uint64_t>(kU16Max, cap / 512 / (l.params.repeatTimes - 1u)));
        }
        break;
      }
      case V::Alignment: {
        c = *legalLoad2D(id, small);
        const Memory dst = isa::memoryOf(isa::dstOf(l.path));
        const Memory src = isa::memoryOf(isa::srcOf(l.path));
        const bool onSrc = src != Memory::GM && *rc::gen::arbitrary<bool>();
        const Memory m = onSrc ? src : dst;
        const std::uint64_t align = prof.alignmentOf(m);
        const std::uint64_t off = *upTo(1, align - 1);
        l.params.dstGap = std::min<std::uint16_t>(l.params.dstGap, 4);
        if (onSrc) {
          const std::uint64_t fp = (topSourceFractal(l) + 1) * isa::kFractalBytes;
          l.srcAddr = std::min(l.srcAddr, prof.capacityOf(m) - fp - align) + off;
        } else {
          l.dstAddr =
              std::min(l.dstAddr, prof.capacityOf(m) - dstFootprint(l.params) - align) + off;
        }
        break;
      }
      case V::Range:
        c = *legalLoad2D(id);
        l.params.addrMode = static_cast<std::uint8_t>(*upTo(2, 255));
        break;
      case V::DecrementUnderflow: {
        c = *legalLoad2D(id, {gmToL1, 2, 16, false});
        l.params.addrMode = 1;
        l.params.srcStride = static_cast<std::uint16_t>(*upTo(1, 64));
        const std::uint64_t walk = (l.params.repeatTimes - 1u) * std::uint64_t{l.params.srcStride};
        l.params.startIndex = static_cast<std::uint16_t>(*upTo(0, walk - 1));
        // Room below 2^48 for the walk a start_index that mends the case reads (the legal draw
        // may have ended its shorter footprint at the top of GM).
        l.srcAddr = std::min(l.srcAddr,
                             gmTop(prof.capacityOf(Memory::GM), (walk + 1) * isa::kFractalBytes));
        break;
      }
      case V::DTypeUnsupported:
        c = *legalLoad2D(id, {{}, 0, 16, false});
        l.dtype = *rc::gen::element(DType::Fp8E5M2, DType::Fp8E4M3FN, DType::HiF8, DType::Fp4E2M1,
                                    DType::Fp4E1M2);
        break;
      case V::PathUnsupported:
        // The same instruction is legal on a2; 950 has no GM paths for LoadData2DParams.
        c = *legalLoad2D(ProfileId::A2, {gmPaths, 0, 16, false});
        c.profile = id;
        break;
      default:
        break;
    }
    return ic;
  });
}

std::ostream& operator<<(std::ostream& os, const SplitLoad2DCase& c) {
  return os << c.whole << " split_after=" << c.first;
}

rc::Gen<SplitLoad2DCase> splitLoad2D(ProfileId id) {
  return rc::gen::exec([id] {
    SplitLoad2DCase s;
    s.whole = *legalLoad2D(id, {{}, 1, 255, std::nullopt});
    s.first = static_cast<unsigned>(*edgy(0, s.whole.load.params.repeatTimes));
    return s;
  });
}

isa::Program buildSplitProgram(const SplitLoad2DCase& s) {
  isa::Program p = buildProgram(s.whole);
  const isa::Load2D& w = s.whole.load;
  isa::Load2D a = w;
  isa::Load2D b = w;
  a.params.repeatTimes = static_cast<std::uint8_t>(s.first);
  b.params.repeatTimes = static_cast<std::uint8_t>(w.params.repeatTimes - s.first);
  if (b.params.repeatTimes > 0) {
    const std::uint64_t walk = std::uint64_t{s.first} * w.params.srcStride;
    if (decrements(w)) {
      b.params.startIndex = static_cast<std::uint16_t>(w.params.startIndex - walk);
    } else if (w.params.startIndex + walk <= kU16Max) {
      b.params.startIndex = static_cast<std::uint16_t>(w.params.startIndex + walk);
    } else {  // start_index is 16 bits: move the base address instead
      b.srcAddr = w.srcAddr + walk * isa::kFractalBytes;
    }
    b.dstAddr = w.dstAddr + std::uint64_t{s.first} * (w.params.dstGap + 1ull) * isa::kFractalBytes;
  }
  p.instructions = {a, b};
  return p;
}

std::ostream& operator<<(std::ostream& os, const InvolutionCase& c) {
  return os << "profile=" << isa::profile(c.profile).name << " path=" << isa::nameOf(c.path)
            << " dtype=" << isa::nameOf(c.dtype) << " start_index=" << c.start
            << " repeat_times=" << int{c.repeat} << " content_seed=" << c.contentSeed;
}

rc::Gen<InvolutionCase> involutionLoad2D(ProfileId id) {
  return rc::gen::exec([id] {
    InvolutionCase c;
    c.profile = id;
    c.path = *rc::gen::element(Load2DPath::A1toA2, Load2DPath::B1toB2);
    c.dtype = *rc::gen::elementOf(sixteenBit());
    c.start = static_cast<std::uint16_t>(*edgy(0, 64));
    c.repeat = static_cast<std::uint8_t>(*edgy(1, 16));
    c.contentSeed = *rc::gen::arbitrary<std::uint64_t>();
    return c;
  });
}

namespace {
isa::Program involutionProgram(const InvolutionCase& c, isa::Segment l1, std::uint16_t start) {
  const Memory dst = isa::memoryOf(isa::dstOf(c.path));
  isa::Program p;
  p.profile = c.profile;
  p.segments.push_back(std::move(l1));
  p.segments.push_back(
      filled(dst, 0, (c.repeat + 1ull) * isa::kFractalBytes, subSeed(c.contentSeed, 99)));
  p.instructions.emplace_back(
      isa::Load2D{c.path, c.dtype, 0, 0, isa::LoadData2DParams{start, c.repeat, 1, 0, 0, true, 0}});
  p.observe.push_back({dst, 0, c.repeat * isa::kFractalBytes});
  return p;
}
}  // namespace

isa::Program involutionFirst(const InvolutionCase& c) {
  return involutionProgram(
      c, filled(Memory::L1, 0, (c.start + c.repeat + 0ull) * isa::kFractalBytes, c.contentSeed),
      c.start);
}

isa::Program involutionSecond(const InvolutionCase& c, const isa::Bytes& firstOutput) {
  return involutionProgram(c, isa::Segment{Memory::L1, 0, firstOutput}, 0);
}

isa::Bytes involutionSource(const InvolutionCase& c) {
  const isa::Segment l1 =
      filled(Memory::L1, 0, (c.start + c.repeat + 0ull) * isa::kFractalBytes, c.contentSeed);
  return isa::Bytes(l1.bytes.begin() + static_cast<std::ptrdiff_t>(c.start * isa::kFractalBytes),
                    l1.bytes.end());
}

std::ostream& operator<<(std::ostream& os, const LayoutCase& c) {
  static constexpr const char* kNames[] = {"NzToZz", "TransposedNzToZz", "TransposedBNzToZn"};
  return os << "profile=" << isa::profile(c.profile).name
            << " recipe=" << kNames[static_cast<int>(c.recipe)] << " dtype=" << isa::nameOf(c.dtype)
            << " row_blocks=" << c.rowBlocks << " k_blocks=" << c.kBlocks
            << " content_seed=" << c.contentSeed;
}

rc::Gen<LayoutCase> layoutLoad2D(ProfileId id) {
  return rc::gen::exec([id] {
    LayoutCase c;
    c.profile = id;
    c.recipe = *rc::gen::element(LayoutRecipe::NzToZz, LayoutRecipe::TransposedNzToZz,
                                 LayoutRecipe::TransposedBNzToZn);
    c.dtype = *rc::gen::elementOf(c.recipe == LayoutRecipe::TransposedNzToZz ? sixteenBit()
                                                                             : dtypesOf(id));
    c.rowBlocks = static_cast<int>(*edgy(1, 4));
    c.kBlocks = static_cast<int>(*edgy(1, 4));
    c.contentSeed = *rc::gen::arbitrary<std::uint64_t>();
    return c;
  });
}

oracle::ElemMatrix layoutOperand(const LayoutCase& c) {
  const int c0 = isa::c0Of(c.dtype);
  const int rows = c.recipe == LayoutRecipe::TransposedBNzToZn ? c.kBlocks * c0 : c.rowBlocks * 16;
  const int cols = c.recipe == LayoutRecipe::TransposedBNzToZn ? c.rowBlocks * 16 : c.kBlocks * c0;
  return randomElements(rows, cols, c.dtype, c.contentSeed);
}

isa::Program buildLayoutProgram(const LayoutCase& c) {
  const oracle::ElemMatrix op = layoutOperand(c);
  const int m1 = c.rowBlocks;
  const int k1 = c.kBlocks;
  const bool b = c.recipe == LayoutRecipe::TransposedBNzToZn;
  // L1 holds the operand, or its transpose, in Nz (spec 3).
  oracle::ElemMatrix stored = op;
  if (c.recipe != LayoutRecipe::NzToZz) stored = op.transpose();
  isa::Program p;
  p.profile = c.profile;
  p.segments.push_back({Memory::L1, 0, oracle::encode(stored, oracle::Layout::Nz, c.dtype)});
  const Memory dst = b ? Memory::L0B : Memory::L0A;
  const std::uint64_t fp = std::uint64_t(m1) * k1 * isa::kFractalBytes;
  p.segments.push_back(filled(dst, 0, fp + isa::kFractalBytes, subSeed(c.contentSeed, 7)));
  using P = isa::LoadData2DParams;
  switch (c.recipe) {
    case LayoutRecipe::NzToZz:  // spec 4: start_index = i, src_stride = M1, repeat = K1
      for (int i = 0; i < m1; ++i) {
        p.instructions.emplace_back(
            isa::Load2D{Load2DPath::A1toA2, c.dtype, 0, std::uint64_t(i) * k1 * isa::kFractalBytes,
                        P{static_cast<std::uint16_t>(i), static_cast<std::uint8_t>(k1),
                          static_cast<std::uint16_t>(m1), 0, 0, false, 0}});
      }
      break;
    case LayoutRecipe::TransposedNzToZz:  // start_index = i*K1, src_stride = 1, transposed
      for (int i = 0; i < m1; ++i) {
        p.instructions.emplace_back(
            isa::Load2D{Load2DPath::A1toA2, c.dtype, 0, std::uint64_t(i) * k1 * isa::kFractalBytes,
                        P{static_cast<std::uint16_t>(i * k1), static_cast<std::uint8_t>(k1), 1, 0,
                          0, true, 0}});
      }
      break;
    case LayoutRecipe::TransposedBNzToZn:  // a straight copy of all K1 x N1 fractals
      p.instructions.emplace_back(
          isa::Load2D{Load2DPath::B1toB2, c.dtype, 0, 0,
                      P{0, static_cast<std::uint8_t>(m1 * k1), 1, 0, 0, false, 0}});
      break;
  }
  p.observe.push_back({dst, 0, fp + isa::kFractalBytes});
  return p;
}

}  // namespace cubecheck::gen
