#include "conformance/indirect.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <variant>

#include "conformance/checks.hpp"
#include "conformance/open_points.hpp"
#include "oracle/layout.hpp"

namespace cubecheck::conf {
namespace {

using isa::Bytes;
using isa::Memory;
using isa::Program;
using isa::Segment;

constexpr std::uint64_t kFrac = isa::kFractalBytes;
/// L0C bytes that one observed fractal needs: 512 s8 elements, each an s32 of C.
constexpr std::uint64_t kCPerFractal = 4 * kFrac;
/// Mmad's m and n are at most 4095 (spec 8): 16 rows (or columns) per fractal, so 255 fractals.
constexpr std::uint64_t kMaxFractalsPerMmad = 255;
/// A 32 x 32 s8 identity: two fractals, k = 32 being one s8 fractal row (C0 = 32, spec 2).
constexpr std::uint64_t kIdentityBytes = 2 * kFrac;
constexpr std::uint16_t kK = 32;

constexpr std::array<Memory, 2> kIndirect{Memory::L0A, Memory::L0B};

/// An f32 Mmad writes one 1024-byte L0C fractal (16 x 16 f32) per 16 columns of n.
constexpr std::uint64_t kCFractal = 1024;
/// The f32 identity A: 16 x 16, two 512-byte fractals.
constexpr std::uint64_t kF32IdentityBytes = 16 * 16 * 4;

/// Index bytes per 512-byte dense fractal (spec 7.2: 16 n by 8 bytes).
constexpr std::uint64_t kIdxFractal = 128;
/// Observing the index buffer: A for slot 0 and for slot 1 (16 x 64 s8, two fractals, and a zero
/// fractal after it), then the dense fractals selecting slot 0 and slot 1; staged in L1.
constexpr std::uint64_t kIdxABytes = 3 * isa::kFractalBytes;
constexpr std::uint64_t kIdxConstBytes = 2 * kIdxABytes + 2 * isa::kFractalBytes;
/// L0C per observed index fractal: one 16 x 16 s32 C per slot.
constexpr std::uint64_t kIdxCBytes = 2048;

/// The constants of kIdxConstBytes. A in Zz (a2, the only profile with sparsity: spec 7): row g,
/// column k at fractal k / 32, byte g * 32 + k % 32. Dense B in Zn: (n, kd) at n * 32 + kd.
Bytes idxConstants() {
  Bytes b(kIdxConstBytes, 0);
  auto a = [&](std::uint64_t slot, std::uint64_t g, std::uint64_t k, std::uint8_t v) {
    if (k < 64) b[slot * kIdxABytes + (k / 32) * isa::kFractalBytes + g * 32 + k % 32] = v;
  };
  // Index j reads 3 - j, so index 3 reads 0 in either slot: in slot 1 it names column 4g + 4,
  // which this row leaves 0, and for g = 15 column 64, past A (the zero fractal after it).
  for (std::uint64_t g = 0; g < 16; ++g) {
    for (std::uint64_t j = 0; j < 4; ++j) {
      a(0, g, 4 * g + j, static_cast<std::uint8_t>(3 - j));      // slot 0: A(g, 4g + idx0)
      a(1, g, 4 * g + 1 + j, static_cast<std::uint8_t>(3 - j));  // slot 1: A(g, 4g + 1 + idx1)
    }
  }
  for (std::uint64_t slot = 0; slot < 2; ++slot) {
    for (std::uint64_t n = 0; n < 16; ++n) {
      for (std::uint64_t kd = slot; kd < 32; kd += 2) {
        b[2 * kIdxABytes + slot * isa::kFractalBytes + n * 32 + kd] = 1;
      }
    }
  }
  return b;
}

std::uint64_t floorFrac(std::uint64_t a) {
  return a / kFrac * kFrac;
}
std::uint64_t ceilFrac(std::uint64_t a) {
  return (a + kFrac - 1) / kFrac * kFrac;
}

bool legal(const Program& p) {
  if (isa::validateStructure(p)) return false;
  const isa::Profile& prof = isa::profile(p.profile);
  for (const isa::Instruction& ins : p.instructions) {
    if (isa::validate(prof, ins)) return false;
  }
  return true;
}

/// [addr, addr + size) of one memory.
struct Range {
  std::uint64_t addr = 0;
  std::uint64_t size = 0;
};

/// The ranges rounded out to whole fractals, sorted, overlapping or touching ones merged: every
/// input range lies inside exactly one output range.
std::vector<Range> fractalCover(std::vector<Range> rs) {
  for (Range& r : rs) r = {floorFrac(r.addr), ceilFrac(r.addr + r.size) - floorFrac(r.addr)};
  std::sort(rs.begin(), rs.end(), [](const Range& a, const Range& b) { return a.addr < b.addr; });
  std::vector<Range> out;
  for (const Range& r : rs) {
    if (r.size == 0) continue;
    if (!out.empty() && r.addr <= out.back().addr + out.back().size) {
      out.back().size =
          std::max(out.back().addr + out.back().size, r.addr + r.size) - out.back().addr;
    } else {
      out.push_back(r);
    }
  }
  return out;
}

/// `size` bytes of m the appended steps may overwrite after the original program: a new segment
/// in a gap, or else every segment of m merged into one over the whole memory (the program's
/// bytes kept; bytes it never defined are ones a legal program never touches).
std::uint64_t scratch(Program& p, Memory m, std::uint64_t size, std::uint64_t align) {
  const std::uint64_t capacity = isa::profile(p.profile).capacityOf(m);
  if (auto at = findGap(p.segments, m, size, align, capacity)) {
    p.segments.push_back({m, *at, Bytes(size, 0)});
    return *at;
  }
  Segment whole{m, 0, Bytes(capacity, 0)};
  std::erase_if(p.segments, [&](const Segment& s) {
    if (s.memory != m) return false;
    std::copy(s.bytes.begin(), s.bytes.end(), whole.bytes.begin() + static_cast<long>(s.addr));
    return true;
  });
  p.segments.push_back(std::move(whole));
  return 0;
}

oracle::Layout l0aLayout(isa::ProfileId prof) {
  return isa::profile(prof).l0aIsNz ? oracle::Layout::Nz : oracle::Layout::Zz;
}

/// Byte offset of s8 element (r, c) of an operand in memory m (L0A: the profile's layout; L0B: Zn
/// of a K x N matrix, r = k).
std::uint64_t operandOffset(isa::ProfileId prof, Memory m, std::uint64_t rows, std::uint64_t cols,
                            std::uint64_t r, std::uint64_t c) {
  return oracle::elementOffset(m == Memory::L0A ? l0aLayout(prof) : oracle::Layout::Zn,
                               isa::DType::S8, rows, cols, r, c);
}

/// The 32 x 32 s8 identity as the operand in m.
Bytes identity(isa::ProfileId prof, Memory m) {
  Bytes b(kIdentityBytes, 0);
  for (std::uint64_t t = 0; t < kK; ++t) b.at(operandOffset(prof, m, kK, kK, t, t)) = 1;
  return b;
}

Memory otherL0(Memory m) {
  return m == Memory::L0A ? Memory::L0B : Memory::L0A;
}

std::string observedLine(isa::ProfileId prof, Memory m, std::string_view from) {
  return "observed " + std::string(isa::nameOf(m)) + " through mmad s8 x identity " +
         (m == Memory::L0A ? "B" : "A") + " loaded by " + std::string(plainLoadOpcode(prof)) +
         " (" + std::string(from) + "->" + std::string(isa::nameOf(otherL0(m))) + ")";
}

std::string imageLine(isa::ProfileId prof, Memory m, std::string_view from) {
  return "initial " + std::string(isa::nameOf(m)) + " image loaded by " +
         std::string(plainLoadOpcode(prof)) + " (" + std::string(from) + "->" +
         std::string(isa::nameOf(m)) + ")";
}

/// A case the indirect method cannot run: NotSupported, named as the method's limit.
dut::RunResult unsupported(std::string why) {
  dut::RunResult r{dut::RunStatus::Unsupported, {}, std::nullopt, "indirect observation: " + why};
  r.suiteLimit = true;
  return r;
}

/// The memories the rewrite fills by its own instructions before anything reads them: a segment
/// of one of them in a rewritten program only defines addresses (all zeros), whatever the DUT may
/// be given.
bool placeholderMemory(Memory m) {
  return reachableIndirectly(m) || m == Memory::L0C || m == Memory::L0AMx || m == Memory::L0BMx;
}

/// Why a program the rewrite built cannot go to a DUT declaring `caps`, or nullopt: it must stay
/// inside what the DUT declared (instructions, data types, limits, observable memories) and carry
/// no image of a memory the DUT cannot be given, other than zeros that only define addresses
/// (placeholderMemory). The rewrite stages its bytes in L1, or in GM where L1 is full; a DUT that
/// cannot be given them cannot be observed so, and the case is outside its declared envelope,
/// never a failure of the DUT.
std::optional<std::string> beyondDeclared(const dut::Capabilities& caps, const Program& q) {
  for (const Segment& s : q.segments) {
    if (s.bytes.empty() || caps.canBeGiven(s.memory)) continue;
    if (placeholderMemory(s.memory) &&
        std::all_of(s.bytes.begin(), s.bytes.end(), [](std::uint8_t b) { return b == 0; })) {
      continue;
    }
    return std::string(kCannot) + "be given an image of " + std::string(isa::nameOf(s.memory));
  }
  Program shape;  // everything but the images, which are checked above
  shape.profile = q.profile;
  shape.instructions = q.instructions;
  shape.observe = q.observe;
  return unsupportedReason(caps, shape);
}

/// The DUT as the rewrite sends it programs: a legal program beyondDeclared is not sent but
/// NotSupported, with the reason and what the rewrite needed it for (`purpose`).
class WithinDeclared final : public dut::Dut {
 public:
  WithinDeclared(dut::Dut& inner, std::string purpose)
      : inner_(inner), purpose_(std::move(purpose)) {}
  const dut::Capabilities& capabilities() const override { return inner_.capabilities(); }
  dut::RunResult run(const Program& q) override {
    if (!legal(q)) return inner_.run(q);  // a rejection observes nothing and reads no image
    if (auto why = beyondDeclared(inner_.capabilities(), q)) {
      dut::RunResult r{dut::RunStatus::Unsupported,
                       {},
                       std::nullopt,
                       *why + ", which the suite needs to " + purpose_ +
                           ": it cannot observe this case through what the DUT declares"};
      r.suiteLimit = true;
      return r;
    }
    return inner_.run(q);
  }

 private:
  dut::Dut& inner_;
  std::string purpose_;
};

/// Appends the loads copying `bytes` (whole fractals, as s8, in order) from `src` to `dst` along
/// `path`: load2d_v2 with m_step fractals and k_step 1 on 950 (spec 5), load2d with repeat_times
/// fractals and src_stride 1 elsewhere (spec 4); at most 255 fractals per load.
void appendFractalCopies(std::vector<isa::Instruction>& out, isa::ProfileId profile,
                         isa::Load2DPath path, std::uint64_t src, std::uint64_t dst,
                         std::uint64_t bytes) {
  for (std::uint64_t done = 0; done < bytes / kFrac;) {
    const auto n = static_cast<std::uint8_t>(std::min(bytes / kFrac - done, kMaxFractalsPerMmad));
    const std::uint64_t s = src + done * kFrac;
    const std::uint64_t d = dst + done * kFrac;
    if (profile == isa::ProfileId::Ascend950) {
      isa::LoadData2DParamsV2 v;
      v.mStep = n;
      v.kStep = 1;
      v.srcStride = n;
      v.dstStride = n;
      out.push_back(isa::LoadV2{path, isa::DType::S8, s, d, v});
    } else {
      isa::LoadData2DParams v;
      v.repeatTimes = n;
      v.srcStride = 1;
      out.push_back(isa::Load2D{path, isa::DType::S8, s, d, v});
    }
    done += n;
  }
}

/// An L1 window a 950 run borrows from its program, which leaves no free room for what the
/// rewrite stages there (a 950 has no GM->L0 load): the program's own bytes of the window wait
/// in GM while the staged bytes are loaded in (GM->L1), used, and then loaded back over them.
struct Borrowed {
  std::uint64_t at = 0;    ///< the window in L1
  std::uint64_t size = 0;  ///< whole fractals
  std::uint64_t gm = 0;    ///< the staged bytes, then the program's own, in GM
};

/// Where `size` bytes can wait in GM: the first gap from the program's lowest GM byte on, so that
/// a run's GM stays one short span wherever the program keeps it (near 2^44 as often as near 0:
/// an exported run allocates the span), else the lowest gap; inside GM's 2^48 bytes either way.
std::optional<std::uint64_t> gmGap(const Program& p, std::uint64_t size) {
  const std::uint64_t cap = isa::profile(p.profile).capacityOf(Memory::GM);
  std::uint64_t lowest = cap;
  for (const Segment& s : p.segments) {
    if (s.memory == Memory::GM) lowest = std::min(lowest, s.addr);
  }
  if (lowest != cap) {
    if (auto at = findGap(p.segments, Memory::GM, size, kFrac, cap, lowest)) return at;
  }
  return findGap(p.segments, Memory::GM, size, kFrac, cap);
}

/// Borrows `size` bytes of L1 (fractal aligned, clear of [avoid, avoid + avoidSize)) in p for
/// `staged`: defines the window in p (bytes the program never defined become 0, which it never
/// reads) and puts the staged and the saved bytes in a free place of GM. nullopt when L1 is too
/// small. The caller appends lendInstructions, the loads that read the window, then
/// returnInstructions.
std::optional<Borrowed> borrowL1(Program& p, const Bytes& staged, std::uint64_t avoid,
                                 std::uint64_t avoidSize) {
  const std::uint64_t size = isa::ceilDiv(staged.size(), kFrac) * kFrac;
  const std::uint64_t cap = isa::profile(p.profile).capacityOf(Memory::L1);
  std::uint64_t at = 0;
  if (avoidSize != 0 && at < avoid + avoidSize && avoid < at + size) {
    at = isa::ceilDiv(avoid + avoidSize, kFrac) * kFrac;
  }
  if (size == 0 || at + size > cap) return std::nullopt;
  const std::optional<std::uint64_t> gm = gmGap(p, 2 * size);
  if (!gm) return std::nullopt;
  define(p, Memory::L1, at, at + size);
  const Segment* own = isa::findSegment(p.segments, Memory::L1, at, size);
  Bytes both(staged);
  both.resize(size, 0);
  both.insert(both.end(), own->bytes.begin() + static_cast<long>(at - own->addr),
              own->bytes.begin() + static_cast<long>(at - own->addr + size));
  p.segments.push_back({Memory::GM, *gm, std::move(both)});
  return Borrowed{at, size, *gm};
}

/// The load2d_v2 GM->A1 copies that fill the window, and that give it back.
void lendInstructions(const Borrowed& b, std::vector<isa::Instruction>& out) {
  appendFractalCopies(out, isa::ProfileId::Ascend950, isa::Load2DPath::GMtoA1, b.gm, b.at, b.size);
}

void returnInstructions(const Borrowed& b, std::vector<isa::Instruction>& out) {
  appendFractalCopies(out, isa::ProfileId::Ascend950, isa::Load2DPath::GMtoA1, b.gm + b.size, b.at,
                      b.size);
}

/// The program with its L0A/L0B images (in `memories`) established by loads: what every run of
/// the rewrite starts from.
struct Base {
  Program program;
  std::array<std::uint64_t, 2> identityAt{};  ///< address of the identity for L0A, L0B
  /// The images are in GM, loaded by load2d GM->A2/B2: on a2 and legacy when the program leaves
  /// no room in L1 (GM is never written by any instruction of the suite).
  bool fromGM = false;
  /// Where idxConstants() lie in L1 (programs whose index buffer goes through the rewrite).
  std::uint64_t idxConstAt = 0;
  /// The images are staged in an L1 window borrowed from the program (950, no free room).
  bool borrowed = false;
  /// Where the identities wait in GM when they share that window: the observing reruns load them
  /// back into it after the program (they observe L0C alone, so the program's L1 may go).
  std::optional<std::uint64_t> identitiesInGm;
};

std::optional<Base> makeBase(const Program& p, const std::vector<Memory>& memories, bool idx,
                             const std::vector<Memory>& mx) {
  Base b;
  b.program.profile = p.profile;
  Bytes image;
  struct Load {
    Memory memory;
    std::uint64_t offset;  ///< in image
    Range to;
  };
  std::vector<Load> loads;
  auto staged = [&](Memory m) {
    return std::find(memories.begin(), memories.end(), m) != memories.end() ||
           std::find(mx.begin(), mx.end(), m) != mx.end() || (idx && m == Memory::SparseIndex);
  };
  for (const Segment& s : p.segments) {
    if (!staged(s.memory)) b.program.segments.push_back(s);
  }
  // MX scale images: whole 32-byte units, each cover copied by load_mx_scale (y_step units of one
  // X fractal row: nothing but a contiguous copy).
  std::vector<Load> mxLoads;
  for (Memory m : mx) {
    for (Cover& c : coversOf(p.segments, m, isa::kMxScaleFractalBytes)) {
      mxLoads.push_back({m, image.size(), {c.addr, c.bytes.size()}});
      b.program.segments.push_back({m, c.addr, Bytes(c.bytes.size(), 0)});
      image.insert(image.end(), c.bytes.begin(), c.bytes.end());
    }
  }
  for (Memory m : memories) {
    std::vector<Range> rs;
    for (const Segment& s : p.segments) {
      if (s.memory == m) rs.push_back({s.addr, s.bytes.size()});
    }
    for (const Range& r : fractalCover(rs)) {
      // The destination is defined (the program's address space) but its bytes are the loads'.
      b.program.segments.push_back({m, r.addr, Bytes(r.size, 0)});
      loads.push_back({m, image.size(), r});
      image.resize(image.size() + r.size, 0);
      for (const Segment& s : p.segments) {
        if (s.memory != m || s.addr < r.addr || s.addr + s.bytes.size() > r.addr + r.size) continue;
        std::copy(s.bytes.begin(), s.bytes.end(),
                  image.begin() + static_cast<long>(loads.back().offset + s.addr - r.addr));
      }
    }
  }
  // Index-buffer images: per 128-byte index fractal at x, the program's L0B bytes at 4x (the dense
  // fractal it belongs to) and the index bytes, for one LoadDataWithSparse.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> sparse;  // (offset in image, x)
  if (idx) {
    std::vector<Range> rs;
    for (const Segment& s : p.segments) {
      if (s.memory == Memory::SparseIndex) rs.push_back({s.addr, s.bytes.size()});
    }
    for (const Range& r : rs) {
      const std::uint64_t lo = r.addr / kIdxFractal * kIdxFractal;
      const std::uint64_t hi = (r.addr + r.size + kIdxFractal - 1) / kIdxFractal * kIdxFractal;
      define(b.program, Memory::SparseIndex, lo, hi);
      for (std::uint64_t x = lo; x < hi; x += kIdxFractal) {
        if (std::any_of(sparse.begin(), sparse.end(), [x](auto u) { return u.second == x; })) {
          continue;
        }
        sparse.emplace_back(image.size(), x);
        image.resize(image.size() + kFrac + kIdxFractal, 0);
        for (const Segment& s : p.segments) {
          const std::uint64_t from = s.memory == Memory::L0B ? 4 * x : x;
          const std::uint64_t size = s.memory == Memory::L0B ? kFrac : kIdxFractal;
          const std::uint64_t into = sparse.back().first + (s.memory == Memory::L0B ? 0 : kFrac);
          if (s.memory != Memory::L0B && s.memory != Memory::SparseIndex) continue;
          for (std::uint64_t i = 0; i < size; ++i) {
            const std::uint64_t addr = from + i;
            if (addr >= s.addr && addr < s.addr + s.bytes.size()) {
              image[into + i] = s.bytes[addr - s.addr];
            }
          }
        }
      }
    }
    b.idxConstAt = image.size();
    const Bytes constants = idxConstants();
    image.insert(image.end(), constants.begin(), constants.end());
  }
  const std::uint64_t identities = image.size();
  for (Memory m : kIndirect) {
    const Bytes id = identity(p.profile, m);
    image.insert(image.end(), id.begin(), id.end());
  }
  const std::uint64_t cap = isa::profile(p.profile).capacityOf(Memory::L1);
  std::optional<std::uint64_t> at = findGap(p.segments, Memory::L1, image.size(), kFrac, cap);
  if (!at && p.profile != isa::ProfileId::Ascend950 && !idx && mx.empty()) {
    b.fromGM = true;
    at = gmGap(p, image.size());
  }
  std::vector<isa::Instruction> lend, giveBack;
  if (!at && p.profile == isa::ProfileId::Ascend950 && !idx) {
    // No room: the identities (read again after the program, by the observing Mmads) take a
    // free gap of their own; the images borrow a window of the program's L1 (kBorrowedL1Line).
    const Bytes resident(image.begin() + static_cast<long>(identities), image.end());
    const std::optional<std::uint64_t> home =
        findGap(p.segments, Memory::L1, resident.size(), kFrac, cap);
    if (home) image.resize(identities);
    const std::optional<Borrowed> window =
        borrowL1(b.program, image, home.value_or(0), home ? resident.size() : 0);
    if (!window) return std::nullopt;
    if (home) {
      b.program.segments.push_back({Memory::L1, *home, resident});
      b.identityAt = {*home, *home + kIdentityBytes};
    } else {
      b.identityAt = {window->at + identities, window->at + identities + kIdentityBytes};
      b.identitiesInGm = window->gm + identities;
    }
    b.borrowed = true;
    at = window->at;
    lendInstructions(*window, lend);
    returnInstructions(*window, giveBack);
  } else {
    if (!at) return std::nullopt;
    b.identityAt = {*at + identities, *at + identities + kIdentityBytes};
    b.program.segments.push_back({b.fromGM ? Memory::GM : Memory::L1, *at, std::move(image)});
  }
  b.program.instructions.insert(b.program.instructions.end(), lend.begin(), lend.end());
  if (idx) b.idxConstAt += *at;
  // LoadDataWithSparse writes the dense fractal too (the program's bytes); the plain loads after
  // it write the L0B images again.
  for (const auto& [offset, x] : sparse) {
    isa::LoadSparse l;
    l.srcAddr = *at + offset;
    l.idxAddr = *at + offset + kFrac;
    l.dstAddr = 4 * x;
    l.params.repeatTimes = 1;
    define(b.program, Memory::L0B, 4 * x, 4 * x + kFrac);
    b.program.instructions.push_back(l);
  }
  for (const Load& l : loads) {
    appendPlainLoads(b.program, l.memory, *at + l.offset, l.to.addr, l.to.size, b.fromGM);
  }
  for (const Load& l : mxLoads) {
    constexpr std::uint64_t kUnitsPerLoad = 255;  // y_step is 8 bits
    const std::uint64_t units = l.to.size / isa::kMxScaleFractalBytes;
    for (std::uint64_t done = 0; done < units; done += kUnitsPerLoad) {
      isa::LoadMxScale x;
      x.toL0B = l.memory == Memory::L0BMx;
      x.srcAddr = *at + l.offset + done * isa::kMxScaleFractalBytes;
      x.dstAddr = l.to.addr + done * isa::kMxScaleFractalBytes;
      x.xStep = 1;
      x.yStep = static_cast<std::uint8_t>(std::min(units - done, kUnitsPerLoad));
      x.srcStride = x.yStep;
      x.dstStride = x.yStep;
      b.program.instructions.push_back(x);
    }
  }
  b.program.instructions.insert(b.program.instructions.end(), giveBack.begin(), giveBack.end());
  b.program.instructions.insert(b.program.instructions.end(), p.instructions.begin(),
                                p.instructions.end());
  return b;
}

/// What a DUT whose Mmad results, read back, are impossible gets: a Mismatch of the case
/// (RunResult::wrongResult), not an adapter error.
dut::RunResult wrongResult(std::string why) {
  dut::RunResult r{dut::RunStatus::AdapterError, {}, std::nullopt, std::move(why)};
  r.wrongResult = true;
  return r;
}

/// Runs q observing [c, c + cBytes) of L0C, where the rewrite's Mmads put what they observed of
/// `what`: the bytes, or the DUT's failure (an error result).
std::variant<Bytes, dut::RunResult> runForC(dut::Dut& inner, Program& q, std::uint64_t c,
                                            std::uint64_t cBytes, std::string_view what) {
  q.observe = {{Memory::L0C, c, cBytes}};
  dut::RunResult r = inner.run(q);
  if (r.status != dut::RunStatus::Ok) return r;
  if (r.observed.size() != 1 || r.observed[0].size() != cBytes) {
    return dut::RunResult{
        dut::RunStatus::AdapterError,
        {},
        std::nullopt,
        "observing " + std::string(what) + ": the DUT returned the wrong number of L0C bytes"};
  }
  return std::move(r.observed[0]);
}

/// The little-endian s32 at `at`, as every observed region holds it.
std::int32_t s32At(const Bytes& b, std::uint64_t at) {
  return static_cast<std::int32_t>(isa::wordAt(b, at));
}

/// One Mmad's share of an observation: `fractals` fractals of the observed memory from addr, whose
/// C starts `cOffset` bytes into the rerun's C area.
struct Chunk {
  std::uint64_t addr = 0;
  std::uint64_t fractals = 0;
  std::uint64_t cOffset = 0;
};

/// Reruns the base with s8 Mmads of `chunks` appended and writes the recovered bytes of m into
/// `image` (indexed by address). Returns an error result, or nullopt.
std::optional<dut::RunResult> observeChunks(dut::Dut& inner, const Base& base, Memory m,
                                            const std::vector<Chunk>& chunks, Bytes& image) {
  Program q = base.program;
  const isa::ProfileId prof = q.profile;
  const Memory other = otherL0(m);
  const std::uint64_t id = scratch(q, other, kIdentityBytes, kFrac);
  const std::size_t which = other == Memory::L0A ? 0 : 1;
  if (base.identitiesInGm) {
    appendFractalCopies(q.instructions, prof, isa::Load2DPath::GMtoA1,
                        *base.identitiesInGm + which * kIdentityBytes, base.identityAt[which],
                        kIdentityBytes);
  }
  appendPlainLoads(q, other, base.identityAt[which], id, kIdentityBytes, base.fromGM);
  const std::uint64_t cBytes = chunks.back().cOffset + chunks.back().fractals * kCPerFractal;
  const std::uint64_t c =
      scratch(q, Memory::L0C, cBytes, isa::profile(prof).alignmentOf(Memory::L0C));
  for (const Chunk& ch : chunks) {
    isa::Mmad x;
    x.dtype = isa::DType::S8;
    x.cAddr = c + ch.cOffset;
    x.cmatrixInitVal = true;  // C = 0 + A * B
    const auto wide = static_cast<std::uint16_t>(16 * ch.fractals);
    if (m == Memory::L0A) {  // A (16N x 32) * I (32 x 32)
      x.aAddr = ch.addr;
      x.bAddr = id;
      x.m = wide;
      x.k = kK;
      x.n = kK;
    } else {  // I (32 x 32) * B (32 x 16N)
      x.aAddr = id;
      x.bAddr = ch.addr;
      x.m = kK;
      x.k = kK;
      x.n = wide;
    }
    q.instructions.push_back(x);
  }
  auto ran = runForC(inner, q, c, cBytes, std::string(isa::nameOf(m)) + " through Mmad");
  if (auto* bad = std::get_if<dut::RunResult>(&ran)) return std::move(*bad);
  const Bytes& cOut = std::get<Bytes>(ran);
  for (const Chunk& ch : chunks) {
    const std::uint64_t rows = m == Memory::L0A ? 16 * ch.fractals : kK;
    const std::uint64_t cols = m == Memory::L0A ? kK : 16 * ch.fractals;
    for (std::uint64_t i = 0; i < rows; ++i) {
      for (std::uint64_t j = 0; j < cols; ++j) {
        // C is Nz of 16 x 16 fractals of s32 (spec 2), little-endian as every observed region.
        const std::uint64_t at =
            ch.cOffset + 4 * oracle::elementOffsetC0(oracle::Layout::Nz, 16, rows, cols, i, j);
        const std::int32_t v = s32At(cOut, at);
        if (v < -128 || v > 127) {
          std::ostringstream os;
          os << "observing " << isa::nameOf(m) << " through Mmad: C(" << i << ", " << j
             << ") = " << v << ", which no s8 times an identity gives (the DUT's s8 Mmad, its "
             << plainLoadOpcode(prof) << " or its L0C readout is wrong)";
          return wrongResult(os.str());
        }
        image.at(ch.addr + operandOffset(prof, m, rows, cols, i, j)) = static_cast<std::uint8_t>(v);
      }
    }
  }
  return std::nullopt;
}

/// Reruns the base with, per index fractal at `units[i]`, two MmadWithSparse reading it (see the
/// header) and writes the recovered index bytes into `image` (indexed by address). Returns an
/// error result, or nullopt.
std::optional<dut::RunResult> observeIdx(dut::Dut& inner, const Base& base,
                                         const std::vector<std::uint64_t>& units, Bytes& image) {
  Program q = base.program;
  const std::uint64_t aAt = scratch(q, Memory::L0A, 2 * kIdxABytes, kFrac);
  appendPlainLoads(q, Memory::L0A, base.idxConstAt, aAt, 2 * kIdxABytes, false);
  const std::uint64_t cBytes = units.size() * kIdxCBytes;
  const std::uint64_t c =
      scratch(q, Memory::L0C, cBytes, isa::profile(q.profile).alignmentOf(Memory::L0C));
  for (std::size_t i = 0; i < units.size(); ++i) {
    const std::uint64_t dense = 4 * units[i];
    define(q, Memory::L0B, dense, dense + kFrac);
    for (std::uint64_t slot = 0; slot < 2; ++slot) {
      appendPlainLoads(q, Memory::L0B, base.idxConstAt + 2 * kIdxABytes + slot * kFrac, dense,
                       kFrac, false);
      isa::MmadSparse x;
      x.aAddr = aAt + slot * kIdxABytes;
      x.bAddr = dense;
      x.cAddr = c + i * kIdxCBytes + slot * (kIdxCBytes / 2);
      x.m = 16;
      x.k = 64;
      x.n = 16;
      x.cmatrixInitVal = true;
      q.instructions.push_back(x);
    }
  }
  auto ran = runForC(inner, q, c, cBytes, "IDX through MmadWithSparse");
  if (auto* bad = std::get_if<dut::RunResult>(&ran)) return std::move(*bad);
  const Bytes& out = std::get<Bytes>(ran);
  for (std::size_t i = 0; i < units.size(); ++i) {
    for (std::uint64_t n = 0; n < 16; ++n) {
      for (std::uint64_t byte = 0; byte < 8; ++byte) {
        std::uint8_t value = 0;
        for (std::uint64_t field = 0; field < 4; ++field) {
          // Dense row kd = 4 byte + field: group kd / 2, slot kd % 2 (spec 7.2).
          const std::uint64_t g = 2 * byte + field / 2, slot = field % 2;
          const std::uint64_t at =
              i * kIdxCBytes + slot * (kIdxCBytes / 2) +
              4 * oracle::elementOffsetC0(oracle::Layout::Nz, 16, 16, 16, g, n);
          const std::int32_t v = s32At(out, at);
          if (v < 0 || v > 3) {
            std::ostringstream os;
            os << "observing IDX through MmadWithSparse: C(" << g << ", " << n << ") = " << v
               << " for slot " << slot << ", which no index gives (the DUT's MmadWithSparse, "
               << "LoadDataWithSparse, load2d or its L0C readout is wrong)";
            return wrongResult(os.str());
          }
          value = static_cast<std::uint8_t>(value | (3 - v) << (2 * field));
        }
        image.at(units[i] + n * 8 + byte) = value;
      }
    }
  }
  return std::nullopt;
}

/// Whether a DUT has what the index-buffer rewrite runs: both sparse instructions, on a2's load2d.
bool canRewriteIndex(const dut::Capabilities& caps) {
  return caps.hasInstruction(isa::LoadSparse::kOpcode) &&
         caps.hasInstruction(isa::MmadSparse::kOpcode);
}

}  // namespace

bool reachableIndirectly(Memory m) {
  return m == Memory::SparseIndex ||
         std::find(kIndirect.begin(), kIndirect.end(), m) != kIndirect.end();
}

std::optional<std::uint64_t> findGap(const std::vector<Segment>& segments, Memory m,
                                     std::uint64_t size, std::uint64_t align,
                                     std::uint64_t capacity, std::uint64_t from) {
  std::vector<Range> used;
  for (const Segment& s : segments) {
    if (s.memory == m) used.push_back({s.addr, s.bytes.size()});
  }
  std::sort(used.begin(), used.end(),
            [](const Range& a, const Range& b) { return a.addr < b.addr; });
  std::uint64_t at = (from + align - 1) / align * align;
  for (const Range& r : used) {
    if (at + size <= r.addr) break;
    at = std::max(at, (r.addr + r.size + align - 1) / align * align);
  }
  if (at + size > capacity) return std::nullopt;
  return at;
}

void define(Program& p, Memory m, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t from = lo, to = hi;
  for (const Segment& s : p.segments) {
    if (s.memory == m && s.addr <= to && s.addr + s.bytes.size() >= from) {
      from = std::min(from, s.addr);
      to = std::max<std::uint64_t>(to, s.addr + s.bytes.size());
    }
  }
  Segment merged{m, from, Bytes(to - from, 0)};
  std::erase_if(p.segments, [&](const Segment& s) {
    if (s.memory != m || s.addr > to || s.addr + s.bytes.size() < from) return false;
    std::copy(s.bytes.begin(), s.bytes.end(),
              merged.bytes.begin() + static_cast<long>(s.addr - from));
    return true;
  });
  p.segments.push_back(std::move(merged));
}

std::string_view plainLoadOpcode(isa::ProfileId prof) {
  return prof == isa::ProfileId::Ascend950 ? isa::LoadV2::kOpcode : isa::Load2D::kOpcode;
}

void appendPlainLoads(Program& p, Memory dst, std::uint64_t src, std::uint64_t dstAddr,
                      std::uint64_t bytes, bool fromGM) {
  const isa::Load2DPath path =
      fromGM ? (dst == Memory::L0A ? isa::Load2DPath::GMtoA2 : isa::Load2DPath::GMtoB2)
             : (dst == Memory::L0A ? isa::Load2DPath::A1toA2 : isa::Load2DPath::B1toB2);
  appendFractalCopies(p.instructions, p.profile, path, src, dstAddr, bytes);
}

std::vector<Cover> coversOf(const std::vector<Segment>& segments, Memory m, std::uint64_t align) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  for (const Segment& s : segments) {
    if (s.memory != m || s.bytes.empty()) continue;
    spans.emplace_back(s.addr / align * align,
                       isa::ceilDiv(s.addr + s.bytes.size(), align) * align);
  }
  std::sort(spans.begin(), spans.end());
  std::vector<Cover> out;
  std::uint64_t end = 0;
  for (const auto& [lo, hi] : spans) {
    if (!out.empty() && lo <= end) {
      end = std::max(end, hi);
      out.back().bytes.resize(end - out.back().addr, 0);
    } else {
      out.push_back({lo, Bytes(hi - lo, 0)});
      end = hi;
    }
  }
  for (const Segment& s : segments) {
    if (s.memory != m) continue;
    for (Cover& c : out) {
      if (s.addr >= c.addr && s.addr + s.bytes.size() <= c.addr + c.bytes.size()) {
        std::copy(s.bytes.begin(), s.bytes.end(),
                  c.bytes.begin() + static_cast<long>(s.addr - c.addr));
      }
    }
  }
  return out;
}

bool writableByF32Mmad(std::uint32_t word) {
  const std::uint32_t exponent = word >> 23 & 0xFF;
  return word == 0 || (exponent != 0 && exponent != 0xFF);
}

std::uint32_t writableNeighbour(std::uint32_t w) {
  const std::uint32_t exponent = w >> 23 & 0xFF;
  if (exponent == 0) return w | 1u << 23;
  if (exponent == 0xFF) return w & ~(1u << 23);
  return w;
}

std::vector<L0cFate> l0cFates(const Program& p) {
  std::vector<L0cFate> fate(isa::profile(p.profile).capacityOf(Memory::L0C) / 4, L0cFate::Kept);
  auto visit = [&](std::uint64_t cAddr, std::uint64_t m, std::uint64_t n, bool accumulate,
                   bool s32) {
    for (std::uint64_t i = 0; i < m; ++i) {
      for (std::uint64_t j = 0; j < n; ++j) {
        const std::uint64_t w =
            cAddr / 4 + oracle::elementOffsetC0(oracle::Layout::Nz, 16, m, n, i, j);
        if (w >= fate.size()) continue;
        L0cFate& f = fate[w];
        if (!accumulate) {
          f = L0cFate::Overwritten;
        } else if (f == L0cFate::Kept || f == L0cFate::AccumulatedS32) {
          f = s32 ? L0cFate::AccumulatedS32 : L0cFate::AccumulatedF32;
        }
      }
    }
  };
  for (const isa::Instruction& ins : p.instructions) {
    if (const auto* x = std::get_if<isa::Mmad>(&ins)) {
      if (x->m == 0 || x->k == 0 || x->n == 0) continue;  // a NOP (spec 8)
      visit(x->cAddr, x->m, x->n, isa::initOf(*x) == isa::MmadInit::Accumulate,
            isa::accumulatorOf(x->dtype) == isa::DType::S32);
    } else if (const auto* y = std::get_if<isa::MmadSparse>(&ins)) {
      if (y->m == 0 || y->k == 0 || y->n == 0) continue;
      visit(y->cAddr, y->m, y->n, !y->cmatrixInitVal && !y->cmatrixSource, true);
    }
  }
  return fate;
}

bool s32ShiftIsExact(const Program& p, std::uint32_t was, std::uint32_t now) {
  std::int64_t added = 0;
  for (const isa::Instruction& ins : p.instructions) {
    std::int64_t k = 0;
    if (const auto* x = std::get_if<isa::Mmad>(&ins)) {
      if (isa::accumulatorOf(x->dtype) == isa::DType::S32) k = x->k;
    } else if (const auto* y = std::get_if<isa::MmadSparse>(&ins)) {
      k = y->k;
    }
    added += k * 128 * 128;
  }
  auto magnitude = [](std::uint32_t w) {
    const auto v = static_cast<std::int64_t>(static_cast<std::int32_t>(w));
    return v < 0 ? -v : v;
  };
  return std::max(magnitude(was), magnitude(now)) + added <= INT32_MAX - 1;
}

std::optional<std::string> writeL0cByMmad(Program& run, const std::vector<Segment>& l0c,
                                          bool resetHf32, bool* borrowedL1) {
  const isa::Profile& prof = isa::profile(run.profile);
  const std::vector<Cover> covers = coversOf(l0c, Memory::L0C, kCFractal);
  // L0C stays defined (the program's address space), but its bytes are the Mmads'. They write
  // whole C fractals, so the covers are defined too.
  for (Segment& s : run.segments) {
    if (s.memory == Memory::L0C) std::fill(s.bytes.begin(), s.bytes.end(), 0);
  }
  if (covers.empty()) return std::nullopt;
  for (const Cover& c : covers) define(run, Memory::L0C, c.addr, c.addr + c.bytes.size());

  const oracle::Layout aLayout = prof.l0aIsNz ? oracle::Layout::Nz : oracle::Layout::Zz;
  isa::Bytes image(kF32IdentityBytes, 0);
  for (std::uint64_t t = 0; t < 16; ++t) {
    isa::putWord(image, 4 * oracle::elementOffset(aLayout, isa::DType::F32, 16, 16, t, t),
                 std::bit_cast<std::uint32_t>(1.0f));
  }
  struct Chunk {
    std::uint64_t cAddr, fractals, bAt;
  };
  std::vector<Chunk> chunks;
  const std::uint64_t perMmad =
      std::min<std::uint64_t>(prof.capacityOf(Memory::L0B) / kCFractal, 4095 / 16);
  for (const auto& [addr, bytes] : covers) {
    for (std::uint64_t done = 0; done < bytes.size() / kCFractal;) {
      const std::uint64_t f = std::min(bytes.size() / kCFractal - done, perMmad);
      const std::uint64_t n = 16 * f;
      Chunk ch{addr + done * kCFractal, f, image.size()};
      image.resize(image.size() + kCFractal * f, 0);
      for (std::uint64_t i = 0; i < 16; ++i) {
        for (std::uint64_t j = 0; j < n; ++j) {
          const std::uint64_t from =
              done * kCFractal + 4 * oracle::elementOffsetC0(oracle::Layout::Nz, 16, 16, n, i, j);
          isa::putWord(
              image,
              ch.bAt + 4 * oracle::elementOffset(oracle::Layout::Zn, isa::DType::F32, 16, n, i, j),
              isa::wordAt(bytes, from));
        }
      }
      chunks.push_back(ch);
      done += f;
    }
  }
  std::optional<std::uint64_t> at = findGap(run.segments, Memory::L1, image.size(),
                                            isa::kFractalBytes, prof.capacityOf(Memory::L1));
  Program pre;
  pre.profile = run.profile;
  std::optional<Borrowed> window;
  if (!at) {
    window = borrowL1(run, image, 0, 0);
    if (!window) {
      return "the " + std::to_string(image.size()) +
             " bytes that write its initial L0C image by Mmad do not fit in L1 (and a dav-3510 "
             "writes L0C only by Mmad)";
    }
    at = window->at;
    pre.segments.push_back(
        *isa::findSegment(run.segments, Memory::GM, window->gm, 2 * window->size));
    lendInstructions(*window, pre.instructions);
  }
  pre.segments.push_back({Memory::L1, *at, image});
  if (resetHf32) pre.instructions.push_back(isa::SetHF32{false, 0});
  appendPlainLoads(pre, Memory::L0A, *at, 0, kF32IdentityBytes, false);
  for (const Chunk& ch : chunks) {
    appendPlainLoads(pre, Memory::L0B, *at + ch.bAt, 0, kCFractal * ch.fractals, false);
    isa::Mmad x;
    x.dtype = isa::DType::F32;
    x.cAddr = ch.cAddr;
    x.m = 16;
    x.k = 16;
    x.n = static_cast<std::uint16_t>(16 * ch.fractals);
    x.cmatrixInitVal = true;
    pre.instructions.push_back(x);
  }
  if (window) returnInstructions(*window, pre.instructions);
  if (!legal(pre)) throw std::logic_error("the L0C-writing prefix is not a legal program");
  if (!window) run.segments.push_back(pre.segments.front());
  if (borrowedL1 != nullptr) *borrowedL1 = window.has_value();
  define(run, Memory::L0A, 0, kF32IdentityBytes);
  std::uint64_t bBytes = 0;
  for (const Chunk& ch : chunks) bBytes = std::max(bBytes, kCFractal * ch.fractals);
  define(run, Memory::L0B, 0, bBytes);
  run.instructions.insert(run.instructions.begin(), pre.instructions.begin(),
                          pre.instructions.end());
  return std::nullopt;
}

namespace {

/// What IndirectObservation runs programs on for a DUT that observes L0C but cannot be given L0C
/// images (a dav-3510 board): each run's initial L0C image is written by writeL0cByMmad first. A
/// word no f32 Mmad writes is replaced by its writableNeighbour where the run's end value does
/// not depend on it (overwritten), or where no Mmad touches it (kept): then the answer there is
/// translated back, the two words trading places (a bijection, so a DUT that changed the word
/// still differs). A word s32 Mmads accumulate onto is replaced too where s32ShiftIsExact, and
/// the answer there shifted back by the difference. A word an f32 Mmad accumulates onto has no
/// exact translation (f32 sums round): the run is not supported, as where s32 sums could
/// saturate.
class L0cWriter final : public dut::Dut {
 public:
  L0cWriter(dut::Dut& inner, bool active, bool resetHf32)
      : inner_(inner), active_(active), resetHf32_(resetHf32) {}
  const dut::Capabilities& capabilities() const override { return inner_.capabilities(); }
  bool wrote() const { return wrote_; }
  bool borrowed() const { return borrowed_; }

  dut::RunResult run(const Program& q) override {
    if (!active_) return inner_.run(q);
    struct Replaced {
      std::uint64_t addr;
      std::uint32_t was, now;
      L0cFate fate;
    };
    Program r = q;
    const std::vector<L0cFate> fates = l0cFates(r);
    std::vector<Segment> l0c;
    std::vector<Replaced> replaced;
    for (Segment& s : r.segments) {
      if (s.memory != Memory::L0C || s.bytes.empty()) continue;
      if (s.addr % 4 != 0 || s.bytes.size() % 4 != 0) {
        return unsupported(
            "an initial L0C image that is not whole words, which f32 Mmad cannot "
            "write (the DUT cannot be given L0C)");
      }
      for (std::size_t i = 0; i < s.bytes.size(); i += 4) {
        const std::uint32_t w = isa::wordAt(s.bytes, i);
        if (writableByF32Mmad(w)) continue;
        const std::uint64_t addr = s.addr + i;
        const L0cFate fate = fates.at(addr / 4);
        const std::uint32_t now = writableNeighbour(w);
        if (fate == L0cFate::AccumulatedF32 ||
            (fate == L0cFate::AccumulatedS32 && !s32ShiftIsExact(q, w, now))) {
          return unsupported(
              "an Mmad accumulates onto an initial L0C word no f32 Mmad writes (-0, subnormal, "
              "infinity or NaN patterns; as s32, 1 to 8388607 and -8388608 to -1), and the DUT "
              "cannot be given L0C (an f32 sum, or an s32 sum that could saturate)");
        }
        isa::putWord(s.bytes, i, now);
        replaced.push_back({addr, w, now, fate});
      }
      l0c.push_back(s);
    }
    if (l0c.empty()) return inner_.run(q);
    bool borrowed = false;
    if (auto why = writeL0cByMmad(r, l0c, resetHf32_, &borrowed)) return unsupported(*why);
    wrote_ = true;
    borrowed_ = borrowed_ || borrowed;
    dut::RunResult out = inner_.run(r);
    if (out.status != dut::RunStatus::Ok || out.observed.size() != r.observe.size()) return out;
    for (std::size_t k = 0; k < r.observe.size(); ++k) {
      const isa::Region& region = r.observe[k];
      Bytes& bytes = out.observed[k];
      if (region.memory != Memory::L0C || bytes.size() != region.size) continue;
      for (const Replaced& x : replaced) {
        if (x.fate == L0cFate::Overwritten) continue;
        if (x.addr + 4 <= region.addr || x.addr >= region.addr + region.size) continue;
        if (x.addr < region.addr || x.addr + 4 > region.addr + region.size) {
          return unsupported(
              "observes part of an initial L0C word no f32 Mmad writes, and the "
              "DUT cannot be given L0C");
        }
        const std::size_t at = x.addr - region.addr;
        std::uint32_t v = isa::wordAt(bytes, at);
        if (x.fate == L0cFate::AccumulatedS32) {
          v += x.was - x.now;  // modulo 2^32: the exact shift back
        } else {
          v = v == x.now ? x.was : v == x.was ? x.now : v;
        }
        isa::putWord(bytes, at, v);
      }
    }
    return out;
  }

 private:
  dut::Dut& inner_;
  bool active_;
  bool resetHf32_;
  bool wrote_ = false;
  bool borrowed_ = false;
};

}  // namespace

IndirectObservation::IndirectObservation(dut::Dut& inner) : inner_(inner) {
  caps_ = inner.capabilities();
  const bool canRewrite =
      caps_.hasInstruction(isa::Mmad::kOpcode) && caps_.hasDType(isa::DType::S8) &&
      caps_.canObserve(Memory::L0C) &&
      (caps_.hasInstruction(isa::Load2D::kOpcode) || caps_.hasInstruction(isa::LoadV2::kOpcode));
  // What the rewrite reaches becomes observable, and may be given images of (loaded by it).
  auto reach = [this](Memory m) {
    if (!caps_.given.empty() && !caps_.canBeGiven(m)) caps_.given.push_back(m);
    if (!caps_.canObserve(m)) caps_.observable.push_back(m);
  };
  for (Memory m : kIndirect) {
    if (canRewrite) reach(m);
  }
  if (canRewrite && canRewriteIndex(caps_)) reach(Memory::SparseIndex);
  // A DUT that reads L0C out but cannot be given it (a dav-3510 board) gets its L0C images
  // written by f32 Mmad, which loads L0A/L0B: only where it is not given those either.
  const dut::Capabilities& own = inner.capabilities();
  writesL0c_ = canRewrite && own.hasDType(isa::DType::F32) && !own.canBeGiven(Memory::L0C) &&
               !own.canBeGiven(Memory::L0A) && !own.canBeGiven(Memory::L0B);
  if (writesL0c_) caps_.given.push_back(Memory::L0C);
  // MmadMx's scale buffers are staged by the MX scale loads (a board's only way to fill them).
  if (own.hasInstruction(isa::LoadMxScale::kOpcode)) {
    for (Memory m : {Memory::L0AMx, Memory::L0BMx}) {
      if (caps_.canBeGiven(m)) continue;
      if (caps_.given.empty()) caps_.given = caps_.observable;  // empty meant "the observable"
      caps_.given.push_back(m);
    }
  }
}

std::set<std::string> IndirectObservation::takeUsed() {
  std::set<std::string> out;
  out.swap(used_);
  return out;
}

dut::RunResult IndirectObservation::run(const Program& p) {
  const dut::Capabilities& own = inner_.capabilities();
  // What the rewrite must reach in m: a region the DUT cannot observe, or an image it cannot be
  // given (which is loaded then, even where the DUT observes m itself).
  auto mustReach = [&](Memory m) {
    const bool image = std::any_of(p.segments.begin(), p.segments.end(), [m](const Segment& s) {
      return s.memory == m && !s.bytes.empty();
    });
    const bool touched = std::any_of(p.segments.begin(), p.segments.end(),
                                     [m](const Segment& s) { return s.memory == m; }) ||
                         std::any_of(p.observe.begin(), p.observe.end(),
                                     [m](const isa::Region& r) { return r.memory == m; });
    return (touched && !own.canObserve(m)) || (image && !own.canBeGiven(m));
  };
  std::vector<Memory> memories;  // L0 memories whose images or regions the rewrite reaches
  for (Memory m : kIndirect) {
    if (mustReach(m)) memories.push_back(m);
  }
  const bool idx = mustReach(Memory::SparseIndex);
  // MX scale images the DUT cannot be given: staged in L1 and loaded by load_mx_scale.
  std::vector<Memory> mx;
  for (Memory m : {Memory::L0AMx, Memory::L0BMx}) {
    if (own.canBeGiven(m)) continue;
    if (std::any_of(p.segments.begin(), p.segments.end(),
                    [m](const Segment& s) { return s.memory == m && !s.bytes.empty(); })) {
      mx.push_back(m);
    }
  }
  const bool writeL0c =
      writesL0c_ && legal(p) && std::any_of(p.segments.begin(), p.segments.end(), [](auto& s) {
        return s.memory == Memory::L0C && !s.bytes.empty();
      });
  std::vector<Memory> reached = memories;
  if (idx) reached.push_back(Memory::SparseIndex);
  reached.insert(reached.end(), mx.begin(), mx.end());
  if (writeL0c) reached.push_back(Memory::L0C);
  std::string purpose;
  for (Memory m : reached) purpose += (purpose.empty() ? "" : ", ") + std::string(isa::nameOf(m));
  WithinDeclared declared(inner_, "reach " + purpose + " by its own instructions");
  L0cWriter writer(declared, writeL0c, own.hasInstruction(isa::SetHF32::kOpcode));
  if ((memories.empty() && !idx && mx.empty()) || !legal(p)) {
    dut::RunResult r = writer.run(p);
    if (writer.wrote() && r.status == dut::RunStatus::Ok) used_.insert(kL0cByMmadLine);
    if (writer.borrowed() && r.status == dut::RunStatus::Ok) used_.insert(kBorrowedL1Line);
    return r;
  }
  if (idx && !canRewriteIndex(own)) {
    return unsupported("observing IDX through MmadWithSparse needs load_sparse and mmad_sparse");
  }
  if (!mx.empty() && !own.hasInstruction(isa::LoadMxScale::kOpcode)) {
    return unsupported("staging " + std::string(isa::nameOf(mx[0])) + " needs " +
                       std::string(isa::LoadMxScale::kOpcode));
  }
  const std::string_view load = plainLoadOpcode(p.profile);
  const Memory first = !memories.empty() ? memories[0] : idx ? Memory::SparseIndex : mx[0];
  if ((!memories.empty() || idx) && !own.hasInstruction(load)) {
    return unsupported("observing " + std::string(isa::nameOf(first)) + " through Mmad needs " +
                       std::string(load) + " on profile " +
                       std::string(isa::profile(p.profile).name));
  }
  std::optional<Base> base = makeBase(p, memories, idx, mx);
  if (!base) {
    return unsupported("no free L1 space (and no GM->L0 load on this profile) for the images of " +
                       std::string(isa::nameOf(first)) + " that the DUT cannot be given");
  }
  std::set<std::string> used;
  const std::string_view from = base->fromGM ? "GM" : "L1";
  for (Memory m : memories) {
    if (std::any_of(p.segments.begin(), p.segments.end(),
                    [m](const Segment& s) { return s.memory == m; })) {
      used.insert(imageLine(p.profile, m, from));
    }
  }
  if (idx && std::any_of(p.segments.begin(), p.segments.end(),
                         [](const Segment& s) { return s.memory == Memory::SparseIndex; })) {
    used.insert("initial IDX image loaded by load_sparse (L1->IDX, with its L0B fractal)");
  }
  for (Memory m : mx) {
    used.insert("initial " + std::string(isa::nameOf(m)) + " image loaded by " +
                std::string(isa::LoadMxScale::kOpcode) + " (L1->" + std::string(isa::nameOf(m)) +
                ")");
  }
  // The regions the DUT observes itself, in one run.
  isa::Observed direct;
  {
    Program q = base->program;
    for (const isa::Region& r : p.observe) {
      if (!reachableIndirectly(r.memory) || own.canObserve(r.memory)) q.observe.push_back(r);
    }
    if (!q.observe.empty()) {
      dut::RunResult r = writer.run(q);
      if (r.status != dut::RunStatus::Ok) return r;
      if (r.observed.size() != q.observe.size()) {
        return {dut::RunStatus::AdapterError,
                {},
                std::nullopt,
                "DUT returned " + std::to_string(r.observed.size()) + " regions for " +
                    std::to_string(q.observe.size()) + " observed"};
      }
      direct = std::move(r.observed);
    }
  }
  // The others: one memory at a time, as many reruns as L0C holds their fractals.
  const isa::Profile& prof = isa::profile(p.profile);
  const std::uint64_t perRun = prof.capacityOf(Memory::L0C) / kCPerFractal;
  std::array<Bytes, 2> images;
  for (Memory m : memories) {
    if (own.canObserve(m)) continue;  // only its image is loaded; the DUT observes it itself
    std::vector<Range> rs;
    for (const isa::Region& r : p.observe) {
      if (r.memory == m) rs.push_back({r.addr, r.size});
    }
    if (rs.empty()) continue;
    Bytes& image = images[m == Memory::L0A ? 0 : 1];
    image.assign(prof.capacityOf(m), 0);
    std::vector<Chunk> chunks;
    std::uint64_t inRun = 0;
    for (const Range& r : fractalCover(rs)) {
      for (std::uint64_t f = 0; f < r.size / kFrac;) {
        if (inRun == perRun) {
          if (auto bad = observeChunks(writer, *base, m, chunks, image)) return *bad;
          chunks.clear();
          inRun = 0;
        }
        const std::uint64_t n = std::min({r.size / kFrac - f, kMaxFractalsPerMmad, perRun - inRun});
        chunks.push_back({r.addr + f * kFrac, n, inRun * kCPerFractal});
        inRun += n;
        f += n;
      }
    }
    if (chunks.empty()) continue;  // only empty regions
    if (auto bad = observeChunks(writer, *base, m, chunks, image)) return *bad;
    used.insert(observedLine(p.profile, m, from));
  }
  Bytes idxImage;
  if (idx && !own.canObserve(Memory::SparseIndex)) {
    std::vector<std::uint64_t> units;
    for (const isa::Region& r : p.observe) {
      if (r.memory != Memory::SparseIndex) continue;
      for (std::uint64_t x = r.addr / kIdxFractal * kIdxFractal; x < r.addr + r.size;
           x += kIdxFractal) {
        if (std::find(units.begin(), units.end(), x) == units.end()) units.push_back(x);
      }
    }
    idxImage.assign(prof.capacityOf(Memory::SparseIndex), 0);
    const std::size_t idxPerRun = prof.capacityOf(Memory::L0C) / kIdxCBytes;
    for (std::size_t i = 0; i < units.size(); i += idxPerRun) {
      const std::vector<std::uint64_t> some(
          units.begin() + static_cast<long>(i),
          units.begin() + static_cast<long>(std::min(units.size(), i + idxPerRun)));
      if (auto bad = observeIdx(writer, *base, some, idxImage)) return *bad;
    }
    if (!units.empty()) {
      used.insert(std::string(kIdxThroughMmadSparse) + " over slot-selecting B loaded by " +
                  std::string(plainLoadOpcode(p.profile)) + " (L1->L0B)");
    }
  }
  isa::Observed out;
  std::size_t next = 0;
  for (const isa::Region& r : p.observe) {
    if (reachableIndirectly(r.memory) && !own.canObserve(r.memory)) {
      const Bytes& image =
          r.memory == Memory::SparseIndex ? idxImage : images[r.memory == Memory::L0A ? 0 : 1];
      out.emplace_back(image.begin() + static_cast<long>(r.addr),
                       image.begin() + static_cast<long>(r.addr + r.size));
    } else {
      out.push_back(std::move(direct[next++]));
    }
  }
  if (writer.wrote()) used.insert(kL0cByMmadLine);
  if (writer.borrowed() || base->borrowed) used.insert(kBorrowedL1Line);
  used_.insert(used.begin(), used.end());
  return dut::RunResult::ok(std::move(out));
}

NarrowedDut::NarrowedDut(dut::Dut& inner, std::vector<Memory> observable, std::vector<Memory> given)
    : inner_(inner) {
  caps_ = inner.capabilities();
  const dut::Capabilities& wide = inner.capabilities();
  std::erase_if(caps_.observable, [&](Memory m) {
    return std::find(observable.begin(), observable.end(), m) == observable.end();
  });
  caps_.given.clear();
  for (Memory m : given) {
    if (wide.canBeGiven(m)) caps_.given.push_back(m);
  }
}

dut::RunResult NarrowedDut::run(const Program& p) {
  if (!legal(p)) return inner_.run(p);
  for (const isa::Region& r : p.observe) {
    if (!caps_.canObserve(r.memory)) {
      return unsupported("cannot observe " + std::string(isa::nameOf(r.memory)) +
                         " (narrowed by --observable)");
    }
  }
  Program q = p;
  for (Segment& s : q.segments) {
    if (caps_.canBeGiven(s.memory)) continue;
    // What a board's L0A/L0B hold before anything is loaded: not the program's bytes.
    std::uint32_t x = 0x9E3779B9u ^ static_cast<std::uint32_t>(s.addr);
    for (std::uint8_t& b : s.bytes) {
      x = x * 1664525u + 1013904223u;
      b = static_cast<std::uint8_t>(x >> 24);
    }
  }
  return inner_.run(q);
}

BoardEnvelope boardEnvelope(isa::ProfileId profile) {
  BoardEnvelope e{{Memory::GM, Memory::L1, Memory::L0C},
                  {Memory::GM, Memory::L1, Memory::BiasTable}};
  if (profile != isa::ProfileId::Ascend950) e.given.push_back(Memory::L0C);
  return e;
}

std::vector<Memory> parseMemoryList(const std::string& list) {
  std::vector<Memory> out;
  std::istringstream is(list);
  std::string item;
  while (std::getline(is, item, ',')) {
    const std::optional<Memory> m = isa::parseMemory(item);
    if (!m) {
      std::string names;
      for (int i = 0; i < isa::kMemoryCount; ++i) {
        names += (i ? ", " : "") + std::string(isa::nameOf(static_cast<Memory>(i)));
      }
      throw std::invalid_argument("unknown memory '" + item + "' in '" + list + "'; memories are " +
                                  names);
    }
    out.push_back(*m);
  }
  if (out.empty()) throw std::invalid_argument("empty memory list");
  return out;
}

}  // namespace cubecheck::conf
