// LoadDataWithSparse (spec 7.3): cases, boundary table, random and illegal draws.
#include "generators/sparse.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <ostream>
#include <sstream>

#include "generators/common.hpp"
#include "generators/fill.hpp"
#include "oracle/layout.hpp"

namespace cubecheck::gen {

using isa::Memory;
using isa::ProfileId;

// ---- LoadDataWithSparse ----

std::ostream& operator<<(std::ostream& os, const LoadSparseCase& c) {
  return printCase(os, c.profile, isa::describe(c.load), c.contentSeed, c.why);
}

isa::Program buildProgram(const LoadSparseCase& c) {
  const isa::Profile& prof = isa::profile(c.profile);
  const isa::LoadSparse& l = c.load;
  const std::uint64_t r = l.params.repeatTimes;
  const std::uint64_t s = l.params.startIndex;
  isa::Program p;
  p.profile = c.profile;
  const std::uint64_t l1 = prof.capacityOf(Memory::L1);
  // Dense and index fractals read, with one fractal of margin; both in L1, so keep them apart.
  auto [dLo, dHi] = withMargin(l.srcAddr + s * isa::kFractalBytes,
                               l.srcAddr + (s + r) * isa::kFractalBytes, isa::kFractalBytes, l1);
  auto [iLo, iHi] = withMargin(l.idxAddr + s * 128, l.idxAddr + (s + r) * 128, 128, l1);
  // A no-op's start_index may name fractals past L1: nothing there to fill.
  dLo = std::min(dLo, dHi);
  iLo = std::min(iLo, iHi);
  if (iLo < dHi && dLo < iHi) {  // overlapping: one segment covers both
    dLo = std::min(dLo, iLo);
    dHi = std::max(dHi, iHi);
    p.segments.push_back(filled(Memory::L1, dLo, dHi, subSeed(c.contentSeed, 1)));
  } else {
    if (dLo < dHi) p.segments.push_back(filled(Memory::L1, dLo, dHi, subSeed(c.contentSeed, 1)));
    if (iLo < iHi) p.segments.push_back(filled(Memory::L1, iLo, iHi, subSeed(c.contentSeed, 2)));
  }
  const auto [bLo, bHi] = withMargin(l.dstAddr, l.dstAddr + r * isa::kFractalBytes,
                                     isa::kFractalBytes, prof.capacityOf(Memory::L0B));
  const auto [xLo, xHi] = withMargin(l.dstAddr / 4, (l.dstAddr + r * isa::kFractalBytes) / 4, 128,
                                     prof.capacityOf(Memory::SparseIndex));
  p.segments.push_back(filled(Memory::L0B, bLo, bHi, subSeed(c.contentSeed, 3)));
  p.segments.push_back(filled(Memory::SparseIndex, xLo, xHi, subSeed(c.contentSeed, 4)));
  p.instructions.emplace_back(l);
  p.observe = {{Memory::L0B, bLo, bHi - bLo}, {Memory::SparseIndex, xLo, xHi - xLo}};
  return p;
}

std::vector<std::string> tagsOf(const LoadSparseCase& c) {
  const isa::LoadSparse& l = c.load;
  const isa::Profile& prof = isa::profile(c.profile);
  std::vector<std::string> t;
  const unsigned r = l.params.repeatTimes;
  t.emplace_back(r == 0 ? "repeat:0" : r == 1 ? "repeat:1" : "repeat:2+");
  if (r > 0 && l.dstAddr + r * isa::kFractalBytes == prof.capacityOf(Memory::L0B)) {
    t.emplace_back("dst:ends_at_capacity");
  }
  if (l.params.startIndex > 0) t.emplace_back("start_index:>0");
  if (l.params.srcStride != 0 || l.params.dstGap != 0 || l.params.addrMode != 0) {
    t.emplace_back("ignored_fields:nonzero");  // OPEN-5
  }
  return t;
}

rc::Gen<LoadSparseCase> legalLoadSparse(ProfileId id) {
  return rc::gen::exec([id] {
    const isa::Profile& prof = isa::profile(id);
    LoadSparseCase c;
    c.profile = id;
    isa::LoadSparse& l = c.load;
    const std::uint64_t l0bFr = prof.capacityOf(Memory::L0B) / isa::kFractalBytes;
    const std::uint64_t r =
        *rc::gen::weightedOneOf<std::uint64_t>({{1, rc::gen::just<std::uint64_t>(0)},
                                                {2, rc::gen::just<std::uint64_t>(1)},
                                                {1, rc::gen::just(l0bFr)},
                                                {10, upTo(2, 16)},
                                                {2, upTo(1, l0bFr)}});
    l.params.repeatTimes = static_cast<std::uint8_t>(r);
    l.dstAddr = isa::kFractalBytes * *edgy(0, l0bFr - r);
    const std::uint64_t s = *edgy(0, 64);
    l.params.startIndex = static_cast<std::uint16_t>(s);
    // Dense first, index after it; both 32-byte aligned.
    l.srcAddr = 32 * *upTo(0, 64);
    l.idxAddr = l.srcAddr + (s + r) * isa::kFractalBytes + 32 * *upTo(0, 16);
    // OPEN-5: the fields the sparse load does not use are drawn anyway; they must not matter.
    const bool noise = *rc::gen::weightedElement<bool>({{3, false}, {1, true}});
    if (noise) {
      l.params.srcStride = static_cast<std::uint16_t>(*upTo(0, 65535));
      l.params.dstGap = static_cast<std::uint16_t>(*upTo(0, 65535));
      l.params.addrMode = static_cast<std::uint8_t>(*upTo(0, 1));
      l.params.sid = static_cast<std::uint8_t>(*upTo(0, 255));
    }
    c.contentSeed = *rc::gen::arbitrary<std::uint64_t>();
    return c;
  });
}

std::vector<LoadSparseCase> loadSparseBoundaries(ProfileId id) {
  const isa::Profile& prof = isa::profile(id);
  const std::uint64_t l0b = prof.capacityOf(Memory::L0B);
  const std::uint64_t l1 = prof.capacityOf(Memory::L1);
  std::vector<LoadSparseCase> t;
  std::uint64_t seed = 0x5A11;
  auto add = [&](std::uint64_t src, std::uint64_t idx, std::uint64_t dst, isa::LoadData2DParams p,
                 std::string why) {
    t.push_back({id, isa::LoadSparse{isa::DType::S8, src, idx, dst, p}, seed++, std::move(why)});
  };
  using P = isa::LoadData2DParams;
  add(0, 4096, 0, P{0, 0, 0, 0, 0, false, 0}, "repeat 0 is a no-op");
  add(0, 4096, 0, P{0, 1, 0, 0, 0, false, 0}, "one dense fractal and its index fractal");
  add(0, 128 * isa::kFractalBytes, 0,
      P{0, static_cast<std::uint8_t>(l0b / isa::kFractalBytes), 0, 0, 0, false, 0},
      "a destination that fills L0B and so the whole index buffer");
  add(0, 4096, l0b - isa::kFractalBytes, P{3, 1, 0, 0, 0, false, 0},
      "the last L0B fractal: its index lands at the last 128 bytes of the index buffer");
  add(32, 64 * isa::kFractalBytes + 96, 3 * isa::kFractalBytes, P{5, 7, 0, 0, 0, false, 0},
      "start_index 5 with unaligned-to-fractal bases");
  add(l1 - 2 * isa::kFractalBytes, l1 - 2 * isa::kFractalBytes - 8 * 128, 0,
      P{1, 1, 0, 0, 0, false, 0}, "dense fractal at the end of L1, index just below it");
  add(0, 16 * isa::kFractalBytes, isa::kFractalBytes, P{2, 4, 9, 0, 3, false, 1},
      "src_stride 9, dst_gap 3 and addr_mode 1 are ignored (OPEN-5 default)");
  add(0, 16 * isa::kFractalBytes, 0, P{0, 4, 0, 200, 0, false, 0}, "sid 200 is ignored");
  add(0, 0, 0, P{static_cast<std::uint16_t>(l1 / isa::kFractalBytes - 1), 1, 0, 0, 0, false, 0},
      "start_index at the last dense fractal of L1, the largest a moving load allows (dense and "
      "index bases 0)");
  add(0, 16 * isa::kFractalBytes, 0, P{2, 4, 65535, 255, 65535, false, 1},
      "src_stride 65535, dst_gap 65535 and sid 255, their maxima, are ignored (OPEN-5 default)");
  add(0, 4096, 0, P{65535, 0, 65535, 255, 65535, false, 1},
      "repeat 0 with start_index 65535 (far past L1) and every ignored field at its maximum: "
      "still a no-op");
  return t;
}

std::ostream& operator<<(std::ostream& os, const IllegalLoadSparseCase& c) {
  return os << c.c << " expected_rejection=" << isa::nameOf(c.expected);
}

rc::Gen<IllegalLoadSparseCase> illegalLoadSparse(ProfileId id) {
  using V = isa::ViolationCode;
  return rc::gen::exec([id] {
    IllegalLoadSparseCase ic;
    ic.c = *legalLoadSparse(id);
    isa::LoadSparse& l = ic.c.load;
    const isa::Profile& prof = isa::profile(id);
    if (l.params.repeatTimes == 0) {  // a drawn no-op undone: its one fractal must fit L0B
      l.params.repeatTimes = 1;
      l.dstAddr = std::min(l.dstAddr, prof.capacityOf(Memory::L0B) - isa::kFractalBytes);
    }
    ic.expected =
        *rc::gen::element(V::TransposePath, V::DTypeUnsupported, V::Alignment, V::Capacity);
    switch (ic.expected) {
      case V::TransposePath:
        l.params.ifTranspose = true;
        break;
      case V::DTypeUnsupported:
        l.dtype = *rc::gen::element(isa::DType::U8, isa::DType::F16, isa::DType::S4);
        break;
      case V::Alignment: {
        const int which = *rc::gen::inRange(0, 3);
        if (which == 0) l.srcAddr += *upTo(1, 31);
        if (which == 1) l.idxAddr += *upTo(1, 31);
        if (which == 2) {
          l.dstAddr = std::min(l.dstAddr, prof.capacityOf(Memory::L0B) -
                                              (l.params.repeatTimes + 1u) * isa::kFractalBytes) +
                      *upTo(1, 511);
        }
        break;
      }
      default:  // Capacity: more fractals than L0B holds from dst
        l.params.repeatTimes = static_cast<std::uint8_t>(*upTo(
            prof.capacityOf(Memory::L0B) / isa::kFractalBytes - l.dstAddr / isa::kFractalBytes + 1,
            255));
        l.idxAddr = l.srcAddr + (l.params.startIndex + 256u) * isa::kFractalBytes;
        break;
    }
    return ic;
  });
}

}  // namespace cubecheck::gen
