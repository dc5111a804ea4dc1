#include "dut_adapters/reference/reference_dut.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <bit>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <type_traits>
#include <variant>
#include <vector>

#include "dut_adapters/reference/lowprec_decode.hpp"

namespace cubecheck::dut {
namespace {

using isa::Memory;
using isa::ViolationCode;

using isa::ceilDiv;
using isa::kFractalBytes;  // bytes moved per repeat (spec 4)

/// The memories as the program runs: the program's own segments, each copied the first time an
/// instruction writes it (a program's large operands are only read). A pointer read() gave stays
/// valid across a write() to another segment; no instruction reads a segment through read() and
/// writes it through write() (no load has its source and destination in one memory; Mmad reads
/// and writes L0C through the one write() pointer).
class State {
 public:
  explicit State(const std::vector<isa::Segment>& segments)
      : source_(segments), copies_(segments.size()), copied_(segments.size(), false) {}

  /// Pointer to len bytes at addr to read, or nullptr when no single segment holds them.
  const std::uint8_t* read(Memory m, std::uint64_t addr, std::uint64_t len) const {
    const isa::Segment* s = isa::findSegment(source_, m, addr, len);
    if (s == nullptr) return nullptr;
    const auto i = static_cast<std::size_t>(s - source_.data());
    return (copied_[i] ? copies_[i] : s->bytes).data() + (addr - s->addr);
  }
  /// Pointer to len bytes at addr to write (and read), or nullptr when no single segment holds
  /// them.
  std::uint8_t* write(Memory m, std::uint64_t addr, std::uint64_t len) {
    const isa::Segment* s = isa::findSegment(source_, m, addr, len);
    if (s == nullptr) return nullptr;
    const auto i = static_cast<std::size_t>(s - source_.data());
    if (!copied_[i]) {
      copies_[i] = s->bytes;
      copied_[i] = true;
    }
    return copies_[i].data() + (addr - s->addr);
  }
  /// The bytes of region r (inside one segment: validateStructure), or nullopt when no segment
  /// holds it. A written segment the region covers whole is moved out when `last` says nothing
  /// reads the state after it.
  std::optional<isa::Bytes> take(const isa::Region& r, bool last) {
    const isa::Segment* s = isa::findSegment(source_, r.memory, r.addr, r.size);
    if (s == nullptr) return std::nullopt;
    const auto i = static_cast<std::size_t>(s - source_.data());
    if (last && copied_[i] && r.addr == s->addr && r.size == copies_[i].size()) {
      copied_[i] = false;  // read() would see the program's bytes again: nothing reads it now
      return std::move(copies_[i]);
    }
    const std::uint8_t* p = read(r.memory, r.addr, r.size);
    return isa::Bytes(p, p + r.size);
  }

  /// The Load3D registers (spec 6.2): FMATRIX words [0] and FMATRIX_B [1], PADDING. Unset
  /// until a program writes them.
  std::array<std::optional<std::uint64_t>, 2> fmatrix;
  std::optional<std::uint32_t> padding;
  /// SetHF32Mode / SetHF32TransMode (spec 8): off until a program turns it on.
  bool hf32 = false;
  std::uint8_t hf32Mode = 0;
  /// CTRL[45] (spec 8.1.5): e4m3fn x e4m3fn Mmad decodes both operands as hifloat8.
  bool hif8Mode = false;
  /// Mmad calls run so far in this program (for a mutant that loses accumulation across calls).
  int mmadsRun = 0;
  /// The index bytes this program's LoadDataWithSparse calls wrote (for a mutant whose index
  /// buffer keeps only the latest call's).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> indexWritten;

 private:
  const std::vector<isa::Segment>& source_;
  std::vector<isa::Bytes> copies_;
  std::vector<bool> copied_;
};

isa::Violation undefined(Memory m, std::uint64_t addr, std::uint64_t len, const char* what) {
  return {ViolationCode::UndefinedMemory,
          std::string(what) + " " + std::to_string(len) + " bytes at " + std::to_string(addr) +
              " in " + std::string(isa::nameOf(m)) + ": the program defines no such bytes"};
}

/// Spec 4, for one LoadData2DParams instruction. Returns a violation instead of executing when a
/// byte it must touch is not defined by the program.
std::optional<isa::Violation> execLoad2D(State& state, const isa::Load2D& load, Fault fault) {
  const isa::LoadData2DParams& p = load.params;
  const Memory src = isa::memoryOf(isa::srcOf(load.path));
  const Memory dst = isa::memoryOf(isa::dstOf(load.path));
  bool decrement = p.addrMode == 1 && isa::honoursAddrMode(load.path);
  if (fault == Fault::Load2DAddrModeIgnored) decrement = false;
  if (fault == Fault::Load2DAddrModeEverywhere) decrement = p.addrMode == 1;

  std::uint64_t dstStepFractals = std::uint64_t{p.dstGap} + 1;
  if (fault == Fault::Load2DDstGapIgnored) dstStepFractals = 1;
  if (fault == Fault::Load2DSrcStrideOnDst) dstStepFractals = p.srcStride;
  if (fault == Fault::Load2DDstGapStartToStart) dstStepFractals = p.dstGap;

  const std::uint64_t start =
      p.startIndex + (fault == Fault::Load2DSidAsOffset ? std::uint64_t{p.sid} : 0);
  const bool transpose = p.ifTranspose && !(fault == Fault::Load2DTransposeBSkipped &&
                                            load.path == isa::Load2DPath::B1toB2);
  unsigned repeats = p.repeatTimes;
  if (fault == Fault::Load2DRepeatZeroAsOne && repeats == 0) repeats = 1;
  if (fault == Fault::Load2DLastRepeatDropped && repeats > 0) repeats -= 1;

  std::array<std::uint8_t, kFractalBytes> buf{};
  for (unsigned i = 0; i < repeats; ++i) {
    const std::uint64_t walk = std::uint64_t{i} * p.srcStride;
    // A decrement below fractal 0 is rejected by validation; the mutant that decrements on
    // every path may still get here, and then reads below the source base.
    const std::uint64_t srcByte = decrement ? load.srcAddr + (start - walk) * kFractalBytes
                                            : load.srcAddr + (start + walk) * kFractalBytes;
    const std::uint64_t dstByte = load.dstAddr + i * dstStepFractals * kFractalBytes;
    const std::uint8_t* from = state.read(src, srcByte, kFractalBytes);
    if (from == nullptr) return undefined(src, srcByte, kFractalBytes, "reads");
    if (!transpose) {
      std::memcpy(buf.data(), from, kFractalBytes);
    } else {
      // 16x16 two-byte elements: dst[r*16+c] = src[c*16+r] (spec 4).
      for (int r = 0; r < 16; ++r) {
        for (int c = 0; c < 16; ++c) {
          const int from16 =
              fault == Fault::Load2DTransposeAntiDiagonal ? (15 - c) * 16 + (15 - r) : c * 16 + r;
          std::memcpy(&buf[(r * 16 + c) * 2], from + from16 * 2, 2);
        }
      }
    }
    const bool stray = fault == Fault::Load2DStrayWriteAfterLast && i + 1 == repeats;
    std::uint8_t* to = state.write(dst, dstByte, kFractalBytes + (stray ? 1 : 0));
    if (to == nullptr) return undefined(dst, dstByte, kFractalBytes, "writes");
    std::memcpy(to, buf.data(), kFractalBytes);
    if (stray) to[kFractalBytes] ^= 0xFF;
    // the mutant: a byte 4 KiB past the last fractal, where the destination's memory has one
    if (fault == Fault::Load2DStrayWriteFar && i + 1 == repeats) {
      if (std::uint8_t* far = state.write(dst, dstByte + kFractalBytes + 4096, 1)) *far ^= 0xFF;
    }
  }
  return std::nullopt;
}

std::optional<isa::Violation> checkLegal(const isa::Profile& prof, const isa::Instruction& ins,
                                         Fault fault) {
  auto v = isa::validate(prof, ins);
  if (v && fault == Fault::Load2DTransposeAnyType && v->code == ViolationCode::TransposeType) {
    return std::nullopt;
  }
  if (v && fault == Fault::SparseGemvAccepted && std::holds_alternative<isa::MmadSparse>(ins) &&
      std::get<isa::MmadSparse>(ins).m == 1) {
    return std::nullopt;
  }
  return v;
}

/// The index-buffer byte that holds the index of the dense L0B byte at `l0bAddr` (OPEN-4: / 4).
std::uint64_t indexByteOf(std::uint64_t l0bAddr, Fault fault) {
  return fault == Fault::SparseIndexAtHalf ? l0bAddr / 2 : l0bAddr / 4;
}

/// Spec 7.3: dense fractal start+i to dst + i*512, index fractal start+i to the index buffer.
std::optional<isa::Violation> execLoadSparse(State& state, const isa::LoadSparse& l, Fault fault) {
  if (fault == Fault::SparseIndexLatestLoadOnly) {
    // The mutant: each call first clears the index bytes the earlier calls wrote.
    for (auto [at, len] : state.indexWritten) {
      if (std::uint8_t* p = state.write(Memory::SparseIndex, at, len)) std::memset(p, 0, len);
    }
    state.indexWritten.clear();
  }
  for (unsigned i = 0; i < l.params.repeatTimes; ++i) {
    const std::uint64_t first = fault == Fault::SparseLoadStartIgnored ? 0 : l.params.startIndex;
    const std::uint64_t step =
        fault == Fault::SparseLoadHonoursStride && l.params.srcStride > 0 ? l.params.srcStride : 1;
    const std::uint64_t f = first + i * step;
    const std::uint64_t dst = l.dstAddr + i * kFractalBytes;
    const std::uint8_t* dense =
        state.read(Memory::L1, l.srcAddr + f * kFractalBytes, kFractalBytes);
    if (dense == nullptr)
      return undefined(Memory::L1, l.srcAddr + f * kFractalBytes, kFractalBytes, "reads");
    const std::uint8_t* idx = state.read(Memory::L1, l.idxAddr + f * 128, 128);
    if (idx == nullptr) return undefined(Memory::L1, l.idxAddr + f * 128, 128, "reads");
    std::uint8_t* to = state.write(Memory::L0B, dst, kFractalBytes);
    if (to == nullptr) return undefined(Memory::L0B, dst, kFractalBytes, "writes");
    std::memcpy(to, dense, kFractalBytes);
    const std::uint64_t at = indexByteOf(dst, fault);
    std::uint8_t* toIdx = state.write(Memory::SparseIndex, at, 128);
    if (toIdx == nullptr) return undefined(Memory::SparseIndex, at, 128, "writes");
    std::memcpy(toIdx, idx, 128);
    state.indexWritten.emplace_back(at, 128);
  }
  return std::nullopt;
}

/// The MX scale loads (docs/spec.md, "MX scale loads"): 32-byte unit (x_start + x, y_start + y) of
/// the source, rows src_stride units apart, to unit (x, y) of the destination, rows dst_stride
/// apart.
std::optional<isa::Violation> execLoadMxScale(State& state, const isa::LoadMxScale& l,
                                              Fault fault) {
  constexpr std::uint64_t unit = isa::kMxScaleFractalBytes;
  Memory to = isa::mxBufferOf(l);
  if (fault == Fault::MxScaleLoadToOtherBuffer) {
    to = to == Memory::L0AMx ? Memory::L0BMx : Memory::L0AMx;
  }
  for (std::uint64_t x = 0; x < l.xStep; ++x) {
    for (std::uint64_t y = 0; y < l.yStep; ++y) {
      const std::uint64_t src = l.srcAddr + ((l.xStart + x) * l.srcStride + l.yStart + y) * unit;
      const std::uint64_t dst = l.dstAddr + (x * l.dstStride + y) * unit;
      const std::uint8_t* from = state.read(Memory::L1, src, unit);
      if (from == nullptr) return undefined(Memory::L1, src, unit, "reads");
      std::uint8_t* into = state.write(to, dst, unit);
      if (into == nullptr) return undefined(to, dst, unit, "writes");
      std::memcpy(into, from, unit);
    }
  }
  return std::nullopt;
}

/// The V2 fields as the hardware sees them.
struct V2Fields {
  std::uint64_t mStart, kStart, mStep, kStep, srcStride, dstStride;
  bool transpose;
};

V2Fields fieldsOf(const isa::LoadData2DParamsV2& p) {
  const std::int64_t stride = p.srcStride;
  return {.mStart = p.mStartPosition,
          .kStart = p.kStartPosition,
          .mStep = p.mStep,
          .kStep = p.kStep,
          .srcStride = static_cast<std::uint64_t>(stride < 0 ? -stride : stride),
          .dstStride = p.dstStride,
          .transpose = p.ifTranspose};
}

/// Load2DBitModeParam decoded from the words themselves (spec 5's table), not from a struct.
V2Fields fieldsOf(const isa::Load2DBitModeParam& b, Fault fault) {
  const std::uint64_t w0 = b.config0(), w1 = b.config1();
  const int stepShift = fault == Fault::V2BitFieldsShifted ? 1 : 0;
  return {.mStart = w0 & 0xFFFF,
          .kStart = (w0 >> 16) & 0xFFFF,
          .mStep = (w0 >> (32 + stepShift)) & 0xFF,
          .kStep = (w0 >> (40 + stepShift)) & 0xFF,
          .srcStride = w1 & 0xFFFF,
          .dstStride = (w1 >> 16) & 0xFFFF,
          .transpose = b.ifTranspose()};
}

/// Element `index` (storage order) of a `bits`-wide type; int4/fp4 even elements in the low
/// nibble (spec 2).
inline std::uint32_t getElement(const std::uint8_t* base, std::uint64_t index, int bits) {
  switch (bits) {
    case 4:
      return (base[index / 2] >> (4 * (index % 2))) & 0xFu;
    case 8:
      return base[index];
    case 16: {
      std::uint16_t v;
      std::memcpy(&v, base + 2 * index, 2);
      return v;
    }
    default: {
      std::uint32_t v;
      std::memcpy(&v, base + 4 * index, 4);
      return v;
    }
  }
}

void putElement(std::uint8_t* base, std::uint64_t index, int bits, std::uint32_t v) {
  switch (bits) {
    case 4: {
      std::uint8_t& b = base[index / 2];
      b = static_cast<std::uint8_t>((index % 2) != 0 ? (b & 0x0F) | (v << 4) : (b & 0xF0) | v);
      return;
    }
    case 8:
      base[index] = static_cast<std::uint8_t>(v);
      return;
    case 16: {
      const auto h = static_cast<std::uint16_t>(v);
      std::memcpy(base + 2 * index, &h, 2);
      return;
    }
    default:
      std::memcpy(base + 4 * index, &v, 4);
  }
}

/// Spec 5 by addresses. Non-transposed: fractal (k_start + j)*|src_stride| + m_start + i goes to
/// dst fractal j*dst_stride + i. Transposed: every element of destination fractal (r', c') is
/// fetched from the source element the spec's element form names. Columns ascend, so where
/// columns overlap the later one wins (OPEN-10).
std::optional<isa::Violation> execV2(State& state, isa::Load2DPath path, isa::DType dtype,
                                     std::uint64_t srcAddr, std::uint64_t dstAddr, V2Fields f,
                                     Fault fault) {
  if (fault == Fault::V2StepsSwapped) std::swap(f.mStep, f.kStep);
  if (f.mStep == 0 || f.kStep == 0) return std::nullopt;
  const Memory src = isa::memoryOf(isa::srcOf(path));
  const Memory dst = isa::memoryOf(isa::dstOf(path));
  const int bits = isa::bitsOf(dtype);
  const std::uint64_t c0 = static_cast<std::uint64_t>(isa::c0Of(dtype));
  // OPEN-10's other order: row by row, so where columns collide the earlier column wins.
  const bool byRow = fault == Fault::V2ColumnsRowByRow;
  if (!f.transpose) {
    const std::uint64_t outer = byRow ? f.mStep : f.kStep, inner = byRow ? f.kStep : f.mStep;
    for (std::uint64_t o = 0; o < outer; ++o) {
      for (std::uint64_t n = 0; n < inner; ++n) {
        const std::uint64_t j = byRow ? n : o, i = byRow ? o : n;
        const std::uint64_t from =
            srcAddr + ((f.kStart + j) * f.srcStride + f.mStart + i) * kFractalBytes;
        const std::uint64_t to = dstAddr + (j * f.dstStride + i) * kFractalBytes;
        const std::uint8_t* s = state.read(src, from, kFractalBytes);
        if (s == nullptr) return undefined(src, from, kFractalBytes, "reads");
        std::uint8_t* d = state.write(dst, to, kFractalBytes);
        if (d == nullptr) return undefined(dst, to, kFractalBytes, "writes");
        std::memcpy(d, s, kFractalBytes);
      }
    }
    return std::nullopt;
  }
  const std::uint64_t rows = c0 * f.kStep / 16, cols = 16 * f.mStep / c0;
  std::array<std::uint8_t, kFractalBytes> tile{};
  for (std::uint64_t o = 0; o < (byRow ? rows : cols); ++o) {
    for (std::uint64_t n = 0; n < (byRow ? cols : rows); ++n) {
      const std::uint64_t c = byRow ? n : o, r = byRow ? o : n;
      for (std::uint64_t rr = 0; rr < 16; ++rr) {
        for (std::uint64_t cc = 0; cc < c0; ++cc) {
          const std::uint64_t row = 16 * f.mStart + c0 * c + cc;
          const std::uint64_t col = c0 * f.kStart + 16 * r + rr;
          const std::uint64_t from =
              srcAddr + ((col / c0) * f.srcStride + row / 16) * kFractalBytes;
          const std::uint8_t* s = state.read(src, from, kFractalBytes);
          if (s == nullptr) return undefined(src, from, kFractalBytes, "reads");
          putElement(tile.data(), rr * c0 + cc, bits,
                     getElement(s, (row % 16) * c0 + col % c0, bits));
        }
      }
      const std::uint64_t slot =
          fault == Fault::V2TransposedRowMajor ? r * cols + c : c * f.dstStride + r;
      std::uint8_t* d = state.write(dst, dstAddr + slot * kFractalBytes, kFractalBytes);
      if (d == nullptr)
        return undefined(dst, dstAddr + slot * kFractalBytes, kFractalBytes, "writes");
      std::memcpy(d, tile.data(), kFractalBytes);
    }
  }
  return std::nullopt;
}

std::int32_t loadS32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return static_cast<std::int32_t>(v);
}

/// Spec 7.4 by addresses: for every (m, n), walk the K/2 dense elements of column n in L0B (Zn),
/// fetch each one's 2-bit index from the index buffer, pick the A element it names in L0A (Zz),
/// accumulate in 64 bits and saturate once to int32 (OPEN-7 default); write C in L0C (Nz).
std::optional<isa::Violation> execMmadSparse(State& state, const isa::MmadSparse& x, Fault fault) {
  if (x.m == 0 || x.k == 0 || x.n == 0) return std::nullopt;
  const std::uint64_t m1 = ceilDiv(x.m, 16), n1 = ceilDiv(x.n, 16), k1 = ceilDiv(x.k, 32);
  const std::uint64_t kd1 = ceilDiv(x.k, 64);
  const std::uint8_t* a = state.read(Memory::L0A, x.aAddr, m1 * k1 * kFractalBytes);
  if (a == nullptr) return undefined(Memory::L0A, x.aAddr, m1 * k1 * kFractalBytes, "reads");
  const std::uint8_t* b = state.read(Memory::L0B, x.bAddr, kd1 * n1 * kFractalBytes);
  if (b == nullptr) return undefined(Memory::L0B, x.bAddr, kd1 * n1 * kFractalBytes, "reads");
  const std::uint64_t idxLo = indexByteOf(x.bAddr, fault);
  const std::uint64_t idxLen = indexByteOf(x.bAddr + kd1 * n1 * kFractalBytes, fault) - idxLo;
  const std::uint8_t* idx = state.read(Memory::SparseIndex, idxLo, idxLen);
  if (idx == nullptr) return undefined(Memory::SparseIndex, idxLo, idxLen, "reads");
  std::uint8_t* c = state.write(Memory::L0C, x.cAddr, m1 * n1 * 1024);
  if (c == nullptr) return undefined(Memory::L0C, x.cAddr, m1 * n1 * 1024, "writes");
  const bool fromZero = x.cmatrixInitVal || fault == Fault::SparseInitIgnored;
  const bool biasAsColumn = fault == Fault::SparseBiasByRow;
  const std::uint8_t* bias = nullptr;
  if (!fromZero && x.cmatrixSource) {
    const std::uint64_t len = std::uint64_t{biasAsColumn ? x.m : x.n} * 4;
    bias = state.read(Memory::BiasTable, 0, len);  // OPEN-6: bias-table address 0
    if (bias == nullptr) return undefined(Memory::BiasTable, 0, len, "reads");
  }
  // Resolve every dense element of B once: the A column its index names and its value, summed
  // into a K x N matrix B' of what each A column is multiplied by (zero where no index names it).
  // Then each row of A is gathered once and a row of C is A's row times B', column by column.
  const std::uint64_t halfK = x.k / 2;
  const std::uint64_t kPad = k1 * 32;
  // Index 3 (OPEN-1, undefined) in slot 1 names k = 4g + 4: one past the group, inside A's padded
  // row unless k fills it; past the row it names nothing and adds nothing.
  // Row-major B'[k][n]; at most three dense elements name one k (slot 0 and 1 of a group, slot 0
  // of the next), so |B'| <= 384 fits 16 bits.
  std::vector<std::int16_t> bNamed(kPad * x.n, 0);
  for (std::uint64_t n = 0; n < x.n; ++n) {
    for (std::uint64_t kd = 0; kd < halfK; ++kd) {
      const std::uint64_t bOff =
          ((kd / 32) * n1 + n / 16) * kFractalBytes + (n % 16) * 32 + kd % 32;
      const std::uint64_t at = x.bAddr + bOff;
      const std::uint8_t ib = idx[indexByteOf(at, fault) - idxLo];
      const unsigned field = static_cast<unsigned>(at & 3);
      const unsigned shift = fault == Fault::SparseIndexBitsReversed ? 6 - 2 * field : 2 * field;
      const std::uint64_t sel = (ib >> shift) & 3u;
      const bool slot1 = (kd & 1) != 0;
      const std::uint64_t pos =
          4 * (kd / 2) + sel + (slot1 && fault != Fault::SparseSlot1NoOffset ? 1 : 0);
      if (pos < kPad) {
        bNamed[pos * x.n + n] =
            static_cast<std::int16_t>(bNamed[pos * x.n + n] + static_cast<std::int8_t>(b[bOff]));
      }
    }
  }
  std::vector<std::int32_t> dot(x.n);
  for (std::uint64_t m = 0; m < x.m; ++m) {
    // |dot| <= 2048 * 128 * 128 < 2^26 at every step: no overflow in 32 bits
    std::fill(dot.begin(), dot.end(), 0);
    for (std::uint64_t k = 0; k < kPad; ++k) {
      const std::int16_t av = static_cast<std::int8_t>(
          a[((m / 16) * k1 + k / 32) * kFractalBytes + (m % 16) * 32 + k % 32]);
      const std::int16_t* bv = bNamed.data() + k * x.n;
      for (std::uint64_t n = 0; n < x.n; ++n) dot[n] += std::int32_t{av} * std::int32_t{bv[n]};
    }
    for (std::uint64_t n = 0; n < x.n; ++n) {
      const std::uint64_t fractal =
          fault == Fault::SparseCFractalsZz ? (m / 16) * n1 + n / 16 : (n / 16) * m1 + m / 16;
      const std::uint64_t cOff = fractal * 1024 + (m % 16) * 64 + (n % 16) * 4;
      std::int64_t acc = 0;
      if (bias != nullptr) {
        acc = loadS32(bias + 4 * (biasAsColumn ? m : n));
      } else if (!fromZero) {
        acc = loadS32(c + cOff);
      }
      acc += dot[n];
      const std::int32_t out =
          fault == Fault::SparseWrapNotSaturate
              ? static_cast<std::int32_t>(static_cast<std::uint32_t>(acc))
              : static_cast<std::int32_t>(std::clamp<std::int64_t>(acc, INT32_MIN, INT32_MAX));
      std::memcpy(c + cOff, &out, 4);
    }
  }
  return std::nullopt;
}

/// The img2col fields once unpacked, whichever form carried them.
struct Img2ColFields {
  std::uint64_t channelSize, kExt, mExt, kStart, mStart;
  std::uint64_t strideW, strideH, filterW, filterH, dilW, dilH;
  bool transpose, sizeW, sizeH, right;
};

/// The fields as isa's parameter struct, for the legality check the reference shares with isa.
isa::LoadData3DParamsV2 paramsOf(const Img2ColFields& f) {
  isa::LoadData3DParamsV2 p;
  p.channelSize = static_cast<std::uint16_t>(f.channelSize);
  p.kExtension = static_cast<std::uint16_t>(f.kExt);
  p.mExtension = static_cast<std::uint16_t>(f.mExt);
  p.strideW = static_cast<std::uint8_t>(f.strideW);
  p.strideH = static_cast<std::uint8_t>(f.strideH);
  p.filterW = static_cast<std::uint8_t>(f.filterW);
  p.filterH = static_cast<std::uint8_t>(f.filterH);
  p.filterSizeW = f.sizeW;
  p.filterSizeH = f.sizeH;
  p.dilationFilterW = static_cast<std::uint8_t>(f.dilW);
  p.dilationFilterH = static_cast<std::uint8_t>(f.dilH);
  return p;
}

/// Spec 6.1 by addresses: every selected X[m][k] is fetched from the NC1HWC0 bytes at its
/// (c1, h, w, c0), or is the pad value, and stored at the offset the destination layout gives
/// the cell. Cells of partial fractals beyond the selection are not written.
std::optional<isa::Violation> execImg2Col(State& state, const isa::Profile& prof,
                                          isa::Load2DPath path, isa::DType dtype,
                                          std::uint64_t srcAddr, std::uint64_t dstAddr,
                                          const Img2ColFields& f, Fault fault) {
  const bool right = f.right && fault != Fault::Load3DFmatrixCtrlIgnored;
  if (!state.fmatrix[right ? 1 : 0]) {
    return isa::Violation{
        ViolationCode::UndefinedMemory,
        std::string(right ? "FMATRIX_B" : "FMATRIX") + " is read before the program writes it"};
  }
  if (!state.padding) {
    return isa::Violation{ViolationCode::UndefinedMemory,
                          "PADDING is read before the program writes it"};
  }
  const std::uint64_t word = *state.fmatrix[right ? 1 : 0];
  const std::uint64_t l1W = word & 0xFFFF, l1H = word >> 16 & 0xFFFF;
  std::int64_t left = word >> 32 & 0xFF, rightPad = word >> 40 & 0xFF, top = word >> 48 & 0xFF,
               bottom = word >> 56 & 0xFF;
  if (fault == Fault::Load3DPadOrderTBLR) {
    // [top, bottom, left, right]: the register's first two fields taken as top and bottom.
    std::swap(left, top);
    std::swap(rightPad, bottom);
  }
  const std::uint64_t hk = f.filterH + (f.sizeH ? 256 : 0), wk = f.filterW + (f.sizeW ? 256 : 0);
  if (l1H == 0 || l1W == 0 || f.channelSize == 0 || f.kExt == 0 || f.mExt == 0 || hk == 0 ||
      wk == 0) {
    return std::nullopt;  // spec 6.1: a no-op
  }
  // The window and L1 rules of the register's feature map: the legality check isa::validate
  // shares, applied to the register as this load finds it.
  if (auto v = isa::validateFeatureMap(
          prof,
          isa::FMatrix{static_cast<std::uint16_t>(l1H),
                       static_cast<std::uint16_t>(l1W),
                       {static_cast<std::uint8_t>(left), static_cast<std::uint8_t>(rightPad),
                        static_cast<std::uint8_t>(top), static_cast<std::uint8_t>(bottom)}},
          dtype, srcAddr, paramsOf(f))) {
    return v;
  }
  const std::int64_t kwd = static_cast<std::int64_t>((wk - 1) * f.dilW + 1);
  const std::int64_t spanW = static_cast<std::int64_t>(l1W) + left + rightPad - kwd;
  const std::uint64_t wo = static_cast<std::uint64_t>(spanW) / f.strideW + 1;
  const int bits = isa::bitsOf(dtype);
  const std::uint64_t c0 = static_cast<std::uint64_t>(isa::c0Of(dtype));
  const std::uint64_t c1 = ceilDiv(f.channelSize, c0);
  const std::uint64_t mapBytes = c1 * l1H * l1W * 32;
  const std::uint8_t* map = state.read(Memory::L1, srcAddr, mapBytes);
  if (map == nullptr) return undefined(Memory::L1, srcAddr, mapBytes, "reads");
  const Memory dm = path == isa::Load2DPath::A1toA2 ? Memory::L0A : Memory::L0B;
  const std::uint64_t dstBytes =
      isa::load3dDstFractals(path, dtype, f.transpose, f.mExt, f.kExt) * kFractalBytes;
  std::uint8_t* out = state.write(dm, dstAddr, dstBytes);
  if (out == nullptr) return undefined(dm, dstAddr, dstBytes, "writes");
  const std::uint32_t pad = fault == Fault::Load3DPadZero ? 0 : *state.padding;
  const std::uint32_t padBits =
      bits == 32 ? pad : pad & ((1u << bits) - 1);  // the register's low element
  const bool nz = prof.l0aIsNz;
  const std::uint64_t m1 = ceilDiv(f.mExt, 16), k16 = ceilDiv(f.kExt, 16);
  const std::uint64_t mC0 = ceilDiv(f.mExt, c0), kC0 = ceilDiv(f.kExt, c0);
  const std::uint64_t tile = 16 * c0;  // elements of a fractal
  // Every layout's element offset of X's selected cell (i, j) is a part of i plus a part of j,
  // and every source cell's map coordinates are the output pixel's window origin (of i) plus the
  // kernel tap's offset (of j): both parts are found once per row and once per column.
  const bool zn = path == isa::Load2DPath::B1toB2 || (f.transpose && nz);
  auto rowPart = [&](std::uint64_t i) -> std::uint64_t {
    if (zn) return (i / c0) * k16 * tile + i % c0;     // Zn of B[k' = i][n' = j] (also Nz of X^T)
    if (f.transpose) return (i / c0) * tile + i % c0;  // Zz of X^T
    if (nz) return (i / 16) * tile + (i % 16) * c0;    // Nz of X
    return (i / 16) * kC0 * tile + (i % 16) * c0;      // Zz of X
  };
  auto colPart = [&](std::uint64_t j) -> std::uint64_t {
    if (zn) return (j / 16) * tile + (j % 16) * c0;
    if (f.transpose) return (j / 16) * mC0 * tile + (j % 16) * c0;
    if (nz) return (j / c0) * m1 * tile + j % c0;
    return (j / c0) * tile + j % c0;
  };
  // Column j: channel ci*C0 + cc at kernel tap (kh, kw), K in (C1, Kh, Kw, C0) order.
  std::vector<std::uint64_t> colAt(f.kExt), channelAt(f.kExt);
  std::vector<std::int64_t> tapY(f.kExt), tapX(f.kExt);
  std::vector<std::uint8_t> realChannel(f.kExt);
  for (std::uint64_t j = 0; j < f.kExt; ++j) {
    const std::uint64_t k = f.kStart + j;
    std::uint64_t t = k / c0, kw, kh, ci;
    if (fault == Fault::Load3DKOrderKhKwC1) {
      ci = t % c1;
      t /= c1;
      kw = t % wk;
      kh = t / wk;
    } else {
      kw = t % wk;
      t /= wk;
      kh = t % hk;
      ci = t / hk;
    }
    const bool onStride = fault == Fault::Load3DDilationOnStride;  // the mutant: taps undilated
    tapY[j] = static_cast<std::int64_t>(onStride ? kh : kh * f.dilH);
    tapX[j] = static_cast<std::int64_t>(onStride ? kw : kw * f.dilW);
    realChannel[j] = ci < c1 ? 1 : 0;
    channelAt[j] = ci * l1H * l1W * c0 + k % c0;
    colAt[j] = colPart(j);
  }
  const std::uint64_t strideY = f.strideH * (fault == Fault::Load3DDilationOnStride ? f.dilH : 1);
  const std::uint64_t strideX = f.strideW * (fault == Fault::Load3DDilationOnStride ? f.dilW : 1);
  auto copy = [&](auto get, auto put) {
    for (std::uint64_t i = 0; i < f.mExt; ++i) {
      const std::uint64_t m = f.mStart + i;
      const std::int64_t y0 = static_cast<std::int64_t>(m / wo * strideY) - top;
      const std::int64_t x0 = static_cast<std::int64_t>(m % wo * strideX) - left;
      const std::uint64_t row = rowPart(i);
      for (std::uint64_t j = 0; j < f.kExt; ++j) {
        const std::int64_t y = y0 + tapY[j], x = x0 + tapX[j];
        const bool onMap = y >= 0 && x >= 0 && y < static_cast<std::int64_t>(l1H) &&
                           x < static_cast<std::int64_t>(l1W) && realChannel[j] != 0;
        put(row + colAt[j],
            onMap ? get(channelAt[j] +
                        static_cast<std::uint64_t>(y * static_cast<std::int64_t>(l1W) + x) * c0)
                  : padBits);
      }
    }
  };
  // The element width fixed for the loop: whole bytes by a copy, 4-bit cells by their nibble.
  auto fixed = [&]<typename Word>() {
    copy(
        [&](std::uint64_t e) {
          Word v;
          std::memcpy(&v, map + sizeof(Word) * e, sizeof v);
          return std::uint32_t{v};
        },
        [&](std::uint64_t e, std::uint32_t v) {
          const auto w = static_cast<Word>(v);
          std::memcpy(out + sizeof(Word) * e, &w, sizeof w);
        });
  };
  switch (bits) {
    case 4:
      copy([&](std::uint64_t e) { return getElement(map, e, 4); },
           [&](std::uint64_t e, std::uint32_t v) { putElement(out, e, 4, v); });
      break;
    case 8:
      fixed.template operator()<std::uint8_t>();
      break;
    case 16:
      fixed.template operator()<std::uint16_t>();
      break;
    default:
      fixed.template operator()<std::uint32_t>();
  }
  if (fault == Fault::Load3DUnspecifiedCellsWritten) {
    // The reading: the partial fractals' cells beyond M (spec 6.1: unspecified) written too,
    // with a pattern no load produces on purpose; cells beyond K alone stay unwritten.
    const std::uint64_t mUnit = zn || f.transpose ? c0 : 16, kUnit = zn || f.transpose ? 16 : c0;
    const std::uint64_t mEnd = ceilDiv(f.mExt, mUnit) * mUnit,
                        kEnd = ceilDiv(f.kExt, kUnit) * kUnit;
    const std::uint32_t scribble = bits == 32 ? 0xA5A5A5A5u : 0xA5A5A5A5u & ((1u << bits) - 1);
    for (std::uint64_t i = f.mExt; i < mEnd; ++i) {
      for (std::uint64_t j = 0; j < kEnd; ++j)
        putElement(out, rowPart(i) + colPart(j), bits, scribble);
    }
  }
  return std::nullopt;
}

std::optional<isa::Violation> execLoad3DV2(State& state, const isa::Profile& prof,
                                           const isa::Load3DV2& l, Fault fault) {
  const isa::LoadData3DParamsV2& p = l.params;
  if (l.reset.isSetFMatrix) {
    state.fmatrix[0] = std::uint64_t{p.l1W} | std::uint64_t{p.l1H} << 16 |
                       std::uint64_t{p.padList[0]} << 32 | std::uint64_t{p.padList[1]} << 40 |
                       std::uint64_t{p.padList[2]} << 48 | std::uint64_t{p.padList[3]} << 56;
  }
  // the mutant: PADDING written only when FMATRIX is written too
  const bool padding =
      l.reset.isSetPadding && (fault != Fault::Load3DPaddingNeedsFmatrix || l.reset.isSetFMatrix);
  if (padding) state.padding = p.padValue;
  const Img2ColFields f{.channelSize = p.channelSize,
                        .kExt = p.kExtension,
                        .mExt = p.mExtension,
                        .kStart = p.kStartPt,
                        .mStart = p.mStartPt,
                        .strideW = p.strideW,
                        .strideH = p.strideH,
                        .filterW = p.filterW,
                        .filterH = p.filterH,
                        .dilW = p.dilationFilterW,
                        .dilH = p.dilationFilterH,
                        .transpose = p.enTranspose && l.path == isa::Load2DPath::A1toA2,
                        .sizeW = p.filterSizeW,
                        .sizeH = p.filterSizeH,
                        .right = p.fMatrixCtrl};
  return execImg2Col(state, prof, l.path, l.dtype, l.srcAddr, l.dstAddr, f, fault);
}

/// V2Pro: the words decoded here with spec 6.3's shifts, not through isa's unpacking.
std::optional<isa::Violation> execLoad3DV2Pro(State& state, const isa::Profile& prof,
                                              const isa::Load3DV2Pro& l, Fault fault) {
  const isa::LoadData3DParamsV2Pro& p = l.params;
  const std::uint64_t e = p.extConfig, fc = p.filterConfig;
  std::uint64_t mStart = e >> 48 & 0xFFFF, kStart = e >> 32 & 0xFFFF, mExt = e >> 16 & 0xFFFF,
                kExt = e & 0xFFFF;
  if (fault == Fault::Load3DV2ProExtSwapped) {
    std::swap(mStart, kStart);
    std::swap(mExt, kExt);
  }
  const Img2ColFields f{.channelSize = p.channelSize,
                        .kExt = kExt,
                        .mExt = mExt,
                        .kStart = kStart,
                        .mStart = mStart,
                        .strideW = fc & 0xFF,
                        .strideH = fc >> 8 & 0xFF,
                        .filterW = fc >> 16 & 0xFF,
                        .filterH = fc >> 24 & 0xFF,
                        .dilW = fc >> 32 & 0xFF,
                        .dilH = fc >> 40 & 0xFF,
                        .transpose = p.enTranspose && l.path == isa::Load2DPath::A1toA2,
                        .sizeW = p.filterSizeW,
                        .sizeH = p.filterSizeH,
                        .right = p.fMatrixCtrl};
  return execImg2Col(state, prof, l.path, l.dtype, l.srcAddr, l.dstAddr, f, fault);
}

/// V1, the provisional model of spec 6.4: repeat r writes one 16 x C0 fractal, 16 output pixels
/// by C0 channels of one C1 slice at one kernel tap. Mode 1: pixels 16r.., fixed tap, slot
/// r * jump_stride. Mode 0: pixels 0..15, the tap advanced r times (w, then h, then c1), slot r.
std::optional<isa::Violation> execLoad3DV1(State& state, const isa::Load3DV1& l, Fault fault) {
  const isa::LoadData3DParamsV1& p = l.params;
  const int bits = isa::bitsOf(l.dtype);
  const std::uint64_t c0 = static_cast<std::uint64_t>(isa::c0Of(l.dtype));
  // isa::validate has checked that the dilated kernel fits the padded map (spec 6.1): spanW >= 0.
  const std::int64_t kwd = (p.filterW - 1) * p.dilationFilterW + 1;
  const std::int64_t spanW = std::int64_t{p.l1W} + p.padList[0] + p.padList[1] - kwd;
  const std::int64_t wo = spanW / p.strideW + 1;
  const std::uint64_t slice = std::uint64_t{p.l1H} * p.l1W * 32;
  std::array<std::uint8_t, kFractalBytes> tile{};
  for (std::uint64_t r = 0; r < p.repeatTime; ++r) {
    std::uint64_t kw = p.fetchFilterW, kh = p.fetchFilterH, ci = p.c1Index, first = 0, slot = r;
    if (p.repeatMode == 1) {
      first = 16 * r;
      slot = fault == Fault::Load3DV1JumpIgnored ? r : r * p.jumpStride;
    } else {
      const std::uint64_t tw = kw + r;
      kw = tw % p.filterW;
      const std::uint64_t th = kh + tw / p.filterW;
      kh = th % p.filterH;
      ci += th / p.filterH;
    }
    const std::uint8_t* map = state.read(Memory::L1, l.srcAddr + ci * slice, slice);
    if (map == nullptr) return undefined(Memory::L1, l.srcAddr + ci * slice, slice, "reads");
    for (std::uint64_t px = 0; px < 16; ++px) {
      const std::int64_t pix = static_cast<std::int64_t>(first + px);
      const std::int64_t h =
          p.leftTopH + (pix / wo) * p.strideH + static_cast<std::int64_t>(kh) * p.dilationFilterH;
      const std::int64_t w =
          p.leftTopW + (pix % wo) * p.strideW + static_cast<std::int64_t>(kw) * p.dilationFilterW;
      const bool inside = h >= 0 && w >= 0 && h < p.l1H && w < p.l1W;
      for (std::uint64_t c = 0; c < c0; ++c) {
        const std::uint32_t v =
            inside
                ? getElement(
                      map,
                      (static_cast<std::uint64_t>(h) * p.l1W + static_cast<std::uint64_t>(w)) * c0 +
                          c,
                      bits)
                : (bits == 8 ? p.padValue & 0xFF : p.padValue & 0xFFFF);
        putElement(tile.data(), px * c0 + c, bits, v);
      }
    }
    std::uint8_t* to = state.write(Memory::L0A, l.dstAddr + slot * kFractalBytes, kFractalBytes);
    if (to == nullptr)
      return undefined(Memory::L0A, l.dstAddr + slot * kFractalBytes, kFractalBytes, "writes");
    std::memcpy(to, tile.data(), kFractalBytes);
  }
  return std::nullopt;
}

/// Whether a low-precision code is a subnormal (spec 8.1.1, OPEN-13): e4m3/e5m2 with a zero
/// exponent field, HiF8 with D = 0000, fp4 nibbles with a zero exponent field; never a zero.
bool isSubnormalCode(std::uint32_t bits, isa::DType t) {
  switch (t) {
    case isa::DType::Fp8E4M3FN:
      return (bits & 0x78) == 0 && (bits & 0x7) != 0;
    case isa::DType::Fp8E5M2:
      return (bits & 0x7C) == 0 && (bits & 0x3) != 0;
    case isa::DType::HiF8:
      return (bits & 0x78) == 0 && (bits & 0x7) != 0;
    default:
      return false;
  }
}

/// An operand element's value: integers exactly, f16 by the reference's own decode, bfloat16
/// through Eigen's, the 950's low-precision codes through the reference's own decode tables.
[[gnu::always_inline]] inline double operandValue(std::uint32_t bits, isa::DType t,
                                                  Fault fault = Fault::None) {
  switch (t) {
    case isa::DType::Fp8E4M3FN:
    case isa::DType::Fp8E5M2:
    case isa::DType::HiF8:
    case isa::DType::Fp4E2M1:
    case isa::DType::Fp4E1M2: {
      if (fault == Fault::LowSubnormalsFlushed && isSubnormalCode(bits, t)) return 0;
      const isa::DType read =
          fault == Fault::LowHiF8AsE4M3 && t == isa::DType::HiF8 ? isa::DType::Fp8E4M3FN : t;
      return lowPrecisionFloat(read, static_cast<std::uint8_t>(bits));
    }
    case isa::DType::S8:
      return static_cast<std::int8_t>(bits);
    case isa::DType::S4:
      return static_cast<int>(bits & 0x7) - static_cast<int>(bits & 0x8);
    case isa::DType::F16:
      return halfValue(static_cast<std::uint16_t>(bits));
    case isa::DType::BF16:
      return static_cast<float>(
          Eigen::numext::bit_cast<Eigen::bfloat16>(static_cast<std::uint16_t>(bits)));
    default:
      return std::bit_cast<float>(bits);
  }
}

/// f(value, width), value(bits) = operandValue(bits, t, fault) with t a constant for the common
/// types, width their element width as a constant (0 where it is not one): a loop over one
/// operand's elements decides the type once, not per element.
template <typename F>
void withOperandValues(isa::DType t, Fault fault, F&& f) {
  auto of = [&](auto type) {
    constexpr isa::DType kType = decltype(type)::value;
    f([](std::uint32_t b) { return operandValue(b, kType); },
      std::integral_constant<int, isa::bitsOf(kType)>{});
  };
  switch (t) {
    case isa::DType::S8:
      return of(std::integral_constant<isa::DType, isa::DType::S8>{});
    case isa::DType::F16:
      return of(std::integral_constant<isa::DType, isa::DType::F16>{});
    case isa::DType::BF16:
      return of(std::integral_constant<isa::DType, isa::DType::BF16>{});
    case isa::DType::F32:
      return of(std::integral_constant<isa::DType, isa::DType::F32>{});
    default:
      return f([t, fault](std::uint32_t b) { return operandValue(b, t, fault); },
               std::integral_constant<int, 0>{});
  }
}

/// f32 rounded to HF32, the suite's OPEN-7 default reading: 11 fraction bits; trans mode 0 to
/// nearest with ties to even, 1 to nearest with ties away from zero (the Matmul SetHF32 page).
float toHf32(float v, std::uint8_t mode) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  if ((u & 0x7F800000u) == 0x7F800000u) return v;  // inf, nan
  constexpr int kDrop = 23 - 11;
  const std::uint32_t sign = u & 0x80000000u;
  std::uint32_t mag = u & 0x7FFFFFFFu;
  const std::uint32_t half = 1u << (kDrop - 1);
  mag += mode == 0 ? half - 1 + ((mag >> kDrop) & 1u) : half;
  mag &= ~((1u << kDrop) - 1);
  return std::bit_cast<float>(sign | mag);
}

/// `v` rounded toward zero to `bits` significant bits: a narrower accumulator (OPEN-12's
/// SAGE-like FP22 has 14 or so), only for the mutant.
float toSignificandBits(float v, int bits) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  if ((u & 0x7F800000u) == 0x7F800000u) return v;
  u &= ~((1u << (24 - bits)) - 1);
  return std::bit_cast<float>(u);
}

/// a + b rounded toward zero (the reference rounds to nearest): the rounded sum stepped one ulp
/// back toward zero when it went past the exact sum (TwoSum gives the error exactly).
float addTowardZero(float a, float b) {
  const float s = a + b;
  if (!std::isfinite(s)) return s;
  const float bb = s - a;
  const float err = (a - (s - bb)) + (b - bb);  // a + b == s + err exactly
  return err != 0 && (err > 0) != (s > 0) ? std::nextafter(s, 0.0f) : s;
}

/// A subnormal f32 as zero (flush to zero, denormals are zero), for the mutant.
float flushed(float v) {
  return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v;
}

/// The float sum of products[lo, hi) as a tree: the first largest power of two below the count
/// summed, then the rest, then the two added (the first two terms first, like ascending k).
float pairwiseSum(const std::vector<float>& products, std::size_t lo, std::size_t hi) {
  if (hi - lo == 1) return products[lo];
  const std::size_t mid = lo + std::bit_floor(hi - lo - 1);
  return pairwiseSum(products, lo, mid) + pairwiseSum(products, mid, hi);
}

/// to[i * ldTo + j] = from[j * ldFrom + i] for i < height, j < width: four by four at a time,
/// transposed in 4-lane vectors (GCC/Clang vector extension), the rest one by one.
void transposeInto(const float* from, std::uint64_t ldFrom, float* to, std::uint64_t ldTo,
                   std::uint64_t height, std::uint64_t width) {
  using F32x4 = float __attribute__((vector_size(16)));
  const std::uint64_t rows4 = height - height % 4, cols4 = width - width % 4;
  for (std::uint64_t j = 0; j < cols4; j += 4) {
    for (std::uint64_t i = 0; i < rows4; i += 4) {
      F32x4 c[4];
      for (std::uint64_t q = 0; q < 4; ++q) std::memcpy(&c[q], from + (j + q) * ldFrom + i, 16);
      const F32x4 lo01 = __builtin_shufflevector(c[0], c[1], 0, 4, 1, 5);
      const F32x4 hi01 = __builtin_shufflevector(c[0], c[1], 2, 6, 3, 7);
      const F32x4 lo23 = __builtin_shufflevector(c[2], c[3], 0, 4, 1, 5);
      const F32x4 hi23 = __builtin_shufflevector(c[2], c[3], 2, 6, 3, 7);
      const F32x4 rows[4] = {__builtin_shufflevector(lo01, lo23, 0, 1, 4, 5),
                             __builtin_shufflevector(lo01, lo23, 2, 3, 6, 7),
                             __builtin_shufflevector(hi01, hi23, 0, 1, 4, 5),
                             __builtin_shufflevector(hi01, hi23, 2, 3, 6, 7)};
      for (std::uint64_t r = 0; r < 4; ++r) std::memcpy(to + (i + r) * ldTo + j, &rows[r], 16);
    }
  }
  for (std::uint64_t i = 0; i < height; ++i) {
    const std::uint64_t from4 = i < rows4 ? cols4 : 0;  // the columns still to do in row i
    for (std::uint64_t j = from4; j < width; ++j) to[i * ldTo + j] = from[j * ldFrom + i];
  }
}

/// Spec 8 by addresses: A from L0A (Zz on a2, Nz on 950, a contiguous vector in GEMV), B from
/// L0B (Zn), init from zero, L0C, the bias table or the bias tensor; integers accumulated in 64
/// bits and saturated once (OPEN-7), floats accumulated in f32 in ascending k and saturated to
/// +-FLT_MAX with NaN as 0 (spec 8's saturation mode); C written as Nz fractals of 16 x 16.
/// A buffer of values every one of which is written before it is read: sized without being
/// zeroed (a vector's resize would clear each decoded operand once more before it is filled).
template <class T>
class Scratch {
 public:
  void resize(std::uint64_t size) {
    if (size > capacity_) {
      data_ = std::make_unique_for_overwrite<T[]>(size);
      capacity_ = size;
    }
    size_ = size;
  }
  std::uint64_t size() const { return size_; }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  T& operator[](std::uint64_t i) { return data_[i]; }
  const T& operator[](std::uint64_t i) const { return data_[i]; }

 private:
  std::unique_ptr<T[]> data_;
  std::uint64_t size_ = 0, capacity_ = 0;
};

std::optional<isa::Violation> execMmad(State& state, isa::ProfileId profile, const isa::Mmad& x,
                                       Fault fault) {
  if (x.m == 0 || x.k == 0 || x.n == 0) return std::nullopt;
  const bool gemv = isa::isGemv(profile, x) && fault != Fault::MmadGemvIgnored;
  const bool nz = isa::profile(profile).l0aIsNz;
  const int bits = isa::bitsOf(x.dtype);
  const std::uint64_t k0 = isa::mmadK0(x.dtype);
  const std::uint64_t m1 = ceilDiv(x.m, 16), n1 = ceilDiv(x.n, 16);
  const std::uint64_t aRow = isa::mmadARowFractals(profile, x);
  const std::uint64_t aBytes =
      gemv ? ceilDiv(std::uint64_t{x.k} * static_cast<std::uint64_t>(bits), 8)
           : m1 * aRow * kFractalBytes;
  const std::uint8_t* a = state.read(Memory::L0A, x.aAddr, aBytes);
  if (a == nullptr) return undefined(Memory::L0A, x.aAddr, aBytes, "reads");
  const std::uint64_t bBytes = isa::mmadBBytes(x);
  const std::uint8_t* b = state.read(Memory::L0B, x.bAddr, bBytes);
  if (b == nullptr) return undefined(Memory::L0B, x.bAddr, bBytes, "reads");
  std::uint8_t* c = state.write(Memory::L0C, x.cAddr, m1 * n1 * 1024);
  if (c == nullptr) return undefined(Memory::L0C, x.cAddr, m1 * n1 * 1024, "writes");
  isa::MmadInit init = isa::initOf(x);
  if (fault == Fault::MmadInitIgnored && !x.isBias) init = isa::MmadInit::Zero;
  if (fault == Fault::MmadInitValOverBias && x.cmatrixInitVal) init = isa::MmadInit::Zero;
  const bool laterCall = state.mmadsRun++ > 0;
  if (fault == Fault::MmadLaterCallsFromZero && laterCall && init == isa::MmadInit::Accumulate) {
    init = isa::MmadInit::Zero;
  }
  const bool perRow = fault == Fault::MmadBiasPerRow;
  const std::uint8_t* bias = nullptr;
  if (init == isa::MmadInit::BiasTable || init == isa::MmadInit::BiasTensor) {
    const std::uint64_t at = init == isa::MmadInit::BiasTensor ? x.biasAddr : 0;  // OPEN-6
    const std::uint64_t len = std::uint64_t{perRow ? x.m : x.n} * 4;
    bias = state.read(Memory::BiasTable, at, len);
    if (bias == nullptr) return undefined(Memory::BiasTable, at, len, "reads");
  }
  const bool integer = isa::accumulatorOf(x.dtype) == isa::DType::S32;
  const bool hf32 = state.hf32 && x.dtype == isa::DType::F32;
  // the mutant: the mode lasts for one f32 Mmad
  if (hf32 && fault == Fault::MmadHf32FirstMmadOnly) state.hf32 = false;
  // Spec 8.1.5: CTRL[45] turns e4m3fn x e4m3fn into hif8 x hif8; no other pair.
  const bool asHiF8 = state.hif8Mode && x.dtype == isa::DType::Fp8E4M3FN &&
                      isa::bTypeOf(x) == isa::DType::Fp8E4M3FN &&
                      fault != Fault::LowHiF8ModeIgnored;
  const isa::DType aType = asHiF8 ? isa::DType::HiF8 : x.dtype;
  const isa::DType bType = asHiF8 ? isa::DType::HiF8 : isa::bTypeOf(x);
  // K past k inside the last fractal is padding: never read, unless the mutant reads it.
  const std::uint64_t kEnd =
      fault == Fault::MmadKBeyondAccumulated && !gemv ? ceilDiv(x.k, k0) * k0 : x.k;
  // Where A(r, col) and B(kk, col) are, in elements from their bases. K0 consecutive k of one
  // row of A (one column of B) lie side by side: a fractal row (a vector, in GEMV).
  auto aIndex = [&](std::uint64_t r, std::uint64_t col) -> std::uint64_t {
    if (gemv) return col;
    if (nz) return ((col / k0) * m1 + r / 16) * 16 * k0 + (r % 16) * k0 + col % k0;
    return ((r / 16) * aRow + col / k0) * 16 * k0 + (r % 16) * k0 + col % k0;
  };
  auto bIndex = [&](std::uint64_t kk, std::uint64_t col) -> std::uint64_t {
    return ((kk / k0) * n1 + col / 16) * 16 * k0 + (col % 16) * k0 + kk % k0;
  };
  // Every operand element decoded once: A row-major (m x kEnd), B as panels of 16 columns, each
  // kEnd x 16 row-major (bAt), so that 16 columns of a row of C are accumulated at once, k by k,
  // from consecutive values. Each C element still sees
  // exactly the same operations in the same ascending-k order as a per-element loop would.
  // `as` turns a decoded value into the element type of the sums (double for integers, float
  // for floats, whose operand values are all floats).
  const std::uint64_t n = x.n;
  auto bAt = [&](std::uint64_t kk, std::uint64_t col) {
    return ((col / 16) * kEnd + kk) * 16 + col % 16;
  };
  auto decodeOperands = [&](auto& aOut, auto& bOut, auto as) {
    aOut.resize(std::uint64_t{x.m} * kEnd);
    bOut.resize(n1 * 16 * kEnd);
    // B is first decoded whole, in storage order (a loop compilers vectorise), then its elements
    // are put in place; A's runs of K0 elements are decoded straight into their rows.
    using Value = std::decay_t<decltype(aOut[0])>;
    // Decodes runs of `bytes`: eachRun(put) calls put(from, len, to) for every run, `len`
    // elements from element `from` decoded into `to`. The type is decided once for all runs.
    auto decodeRuns = [&](const std::uint8_t* bytes, isa::DType t, auto&& eachRun) {
      if constexpr (std::is_same_v<Value, float>) {
        if (t == isa::DType::F16) {  // `as` is the identity on f16 values (HF32 is f32's)
          eachRun([&](std::uint64_t from, std::uint64_t len, Value* to) {
            std::uint16_t codes[4];
            const std::uint64_t whole = len - len % 4;
            for (std::uint64_t e = 0; e < whole; e += 4) {
              std::memcpy(codes, bytes + 2 * (from + e), sizeof codes);
              halfValues4(codes, to + e);
            }
            for (std::uint64_t e = whole; e < len; ++e) {
              to[e] = halfValue(static_cast<std::uint16_t>(getElement(bytes, from + e, 16)));
            }
          });
          return;
        }
      }
      withOperandValues(t, fault, [&](auto value, auto width) {
        const int w = decltype(width)::value == 0 ? bits : decltype(width)::value;
        eachRun([&](std::uint64_t from, std::uint64_t len, Value* to) {
          for (std::uint64_t e = 0; e < len; ++e) {
            to[e] = as(value(getElement(bytes, from + e, w)));
          }
        });
      });
    };
    decodeRuns(a, aType, [&](auto&& put) {
      for (std::uint64_t first = 0; first < kEnd; first += k0) {
        const std::uint64_t run = std::min(k0, kEnd - first);
        for (std::uint64_t row = 0; row < x.m; ++row) {
          put(aIndex(row, first), run, aOut.data() + row * kEnd + first);
        }
      }
    });
    Scratch<Value> flat;
    flat.resize(bBytes * 8 / static_cast<std::uint64_t>(bits));
    decodeRuns(b, bType, [&](auto&& put) { put(0, flat.size(), flat.data()); });
    // A K0 x 16 fractal at a time: bIndex(first + i, col + j) - bIndex(first, col) is j K0 + i
    // (first a multiple of K0, col of 16). Its rows go to consecutive rows of the panel.
    for (std::uint64_t first = 0; first < kEnd; first += k0) {
      const std::uint64_t height = std::min(k0, kEnd - first);
      for (std::uint64_t col = 0; col < n; col += 16) {
        transposeInto(flat.data() + bIndex(first, col), k0, bOut.data() + bAt(first, col), 16,
                      height, std::min<std::uint64_t>(16, n - col));
      }
    }
  };
  auto cellOf = [&](std::uint64_t row, std::uint64_t col) {
    const std::uint64_t fractal =
        fault == Fault::MmadCRowMajor ? (row / 16) * n1 + col / 16 : (col / 16) * m1 + row / 16;
    return c + fractal * 1024 + ((row % 16) * 16 + col % 16) * 4;
  };
  auto startOf = [&](std::uint64_t row, std::uint64_t col) {
    std::uint32_t start = 0;  // the init's bits
    if (init == isa::MmadInit::Accumulate) std::memcpy(&start, cellOf(row, col), 4);
    if (bias != nullptr) std::memcpy(&start, bias + 4 * (perRow ? row : col), 4);
    return start;
  };
  if (integer) {
    Scratch<float> aVal, bVal;
    decodeOperands(aVal, bVal, [](double v) { return static_cast<float>(v); });
    // Integers accumulate exactly: every product is at most 2^14 in magnitude, so float sums up
    // to 1024 of them exactly (each partial sum an integer of at most 2^24), and such block sums
    // and the init add up in double, every partial sum below 2^31 + 4095 * 2^14 < 2^53.
    auto finish = [&](std::uint64_t row, std::uint64_t col, double sum) {
      const auto exact = static_cast<std::int64_t>(sum);
      const std::int64_t sat = std::clamp<std::int64_t>(exact, INT32_MIN, INT32_MAX);
      const auto result =
          static_cast<std::uint32_t>(fault == Fault::MmadWrapNotSaturate ? exact : sat);
      std::memcpy(cellOf(row, col), &result, 4);
    };
    auto startValue = [&](std::uint64_t row, std::uint64_t col) {
      return static_cast<double>(static_cast<std::int32_t>(startOf(row, col)));
    };
    auto product = [&](std::uint64_t row, std::uint64_t kk, std::uint64_t col) {
      return static_cast<double>(aVal[row * kEnd + kk]) * static_cast<double>(bVal[bAt(kk, col)]);
    };
    if (fault == Fault::MmadSaturateEachSum) {
      for (std::uint64_t row = 0; row < x.m; ++row) {
        for (std::uint64_t col = 0; col < n; ++col) {
          double acc = startValue(row, col);
          for (std::uint64_t kk = 0; kk < kEnd; ++kk) {
            acc = std::clamp<double>(acc + product(row, kk, col), INT32_MIN, INT32_MAX);
          }
          finish(row, col, acc);
        }
      }
      return std::nullopt;
    }
    // A row's 16 columns at a time, each block's 16 sums held in registers over k (4-float
    // vectors of the GCC/Clang vector extension).
    using F32x4 = float __attribute__((vector_size(16)));
    constexpr std::uint64_t kCols = 16, kVectors = kCols / 4, kBlock = 1024;
    for (std::uint64_t row = 0; row < x.m; ++row) {
      const float* av = aVal.data() + row * kEnd;
      for (std::uint64_t first = 0; first < n; first += kCols) {
        const std::uint64_t width = std::min(kCols, n - first);
        std::array<double, kCols> sum{};
        for (std::uint64_t j = 0; j < width; ++j) sum[j] = startValue(row, first + j);
        if (width == kCols) {
          for (std::uint64_t from = 0; from < kEnd; from += kBlock) {
            F32x4 v[kVectors] = {};
            for (std::uint64_t kk = from; kk < std::min(kEnd, from + kBlock); ++kk) {
              const float* bv = bVal.data() + bAt(kk, first);
              const F32x4 u = F32x4{} + av[kk];
              for (std::uint64_t q = 0; q < kVectors; ++q) {
                F32x4 b;
                std::memcpy(&b, bv + 4 * q, sizeof b);
                v[q] += u * b;
              }
            }
            std::array<float, kCols> block;
            std::memcpy(block.data(), v, sizeof v);
            for (std::uint64_t j = 0; j < kCols; ++j) sum[j] += block[j];
          }
        } else {
          for (std::uint64_t kk = 0; kk < kEnd; ++kk) {
            for (std::uint64_t j = 0; j < width; ++j) sum[j] += product(row, kk, first + j);
          }
        }
        for (std::uint64_t j = 0; j < width; ++j) finish(row, first + j, sum[j]);
      }
    }
    return std::nullopt;
  }
  Scratch<float> aF, bF;
  const bool inputsFlushed = fault == Fault::MmadSubnormalInputsFlushed;
  // The mutants that misread bf16 and f32 operands by magnitude (red team, round 11).
  const bool wide = x.dtype == isa::DType::BF16 || x.dtype == isa::DType::F32;
  const bool largeSaturated = wide && fault == Fault::MmadLargeInputsSaturated;
  const bool tinyFlushed = wide && fault == Fault::MmadTinyInputsFlushed;
  decodeOperands(aF, bF, [&](double v) {
    auto f = static_cast<float>(v);
    if (largeSaturated && std::isfinite(f) && std::fabs(f) >= 0x1p20f) {
      f = std::copysign(INFINITY, f);
    }
    if (tinyFlushed && std::isnormal(f) && std::fabs(f) < 0x1p-80f) f = std::copysign(0.0f, f);
    const float g = inputsFlushed ? flushed(f) : f;
    return hf32 ? toHf32(g, state.hf32Mode) : g;
  });
  // The mutants that misread B alone: its subnormals as 0, its infinities as 0.
  if (fault == Fault::MmadBSubnormalsFlushed || fault == Fault::MmadBInfinitiesAsZero) {
    for (std::uint64_t i = 0; i < bF.size(); ++i) {
      if (fault == Fault::MmadBSubnormalsFlushed) bF[i] = flushed(bF[i]);
      if (fault == Fault::MmadBInfinitiesAsZero && std::isinf(bF[i])) bF[i] = 0.0f;
    }
  }
  auto store = [&](std::uint64_t row, std::uint64_t col, float v) {
    if (std::isnan(v)) v = 0.0f;
    // the mutant's flush threshold, off by one: FLT_MIN itself flushed (subnormal results kept)
    if (fault == Fault::MmadFltMinFlushed && std::fabs(v) == FLT_MIN) v = std::copysign(0.0f, v);
    if (std::isinf(v)) v = v > 0 ? FLT_MAX : -FLT_MAX;
    const auto result = std::bit_cast<std::uint32_t>(v);
    std::memcpy(cellOf(row, col), &result, 4);
  };
  // A row's columns first .. first + width - 1 (first a multiple of 16, width at most 16) are
  // consecutive cells of one fractal: their init read, and their results stored, as one run.
  // A copy of 4 * width bytes; a whole fractal row (the usual case) as a copy of known size,
  // which compilers turn into a few vector moves instead of a string move.
  auto copyRun = [](void* to, const void* from, std::uint64_t width) {
    if (width == 16) {
      std::memcpy(to, from, 64);
    } else {
      std::memcpy(to, from, 4 * width);
    }
  };
  auto startRun = [&](std::uint64_t row, std::uint64_t first, std::uint64_t width, float* s) {
    if (init == isa::MmadInit::Accumulate) copyRun(s, cellOf(row, first), width);
    if (bias != nullptr && perRow) {
      for (std::uint64_t j = 0; j < width; ++j) std::memcpy(s + j, bias + 4 * row, 4);
    } else if (bias != nullptr) {
      copyRun(s, bias + 4 * first, width);
    }
    if (fault != Fault::MmadSubnormalBiasFlushed && fault != Fault::MmadLargeInitsDropped) return;
    for (std::uint64_t j = 0; j < width; ++j) {
      if (fault == Fault::MmadSubnormalBiasFlushed && bias != nullptr) s[j] = flushed(s[j]);
      if (fault == Fault::MmadLargeInitsDropped && std::fabs(s[j]) >= 0x1p22f &&
          std::fabs(s[j]) < 0x1p100f) {
        s[j] = 0.0f;
      }
    }
  };
  auto storeRun = [&](std::uint64_t row, std::uint64_t first, std::uint64_t width, const float* s) {
    for (std::uint64_t j = 0; j < width; ++j) store(row, first + j, s[j]);
  };
  const bool narrow = fault == Fault::LowNarrowAccumulator && isa::bitsOf(x.dtype) == 8;
  if (fault == Fault::MmadPairwiseSum || fault == Fault::MmadAddsTowardZero ||
      fault == Fault::MmadSubnormalsFlushed || fault == Fault::MmadF16Accumulation ||
      fault == Fault::MmadFltMinFlushed || fault == Fault::MmadNanProductsDropped || narrow) {
    // The float readings and mutants, one C element at a time.
    for (std::uint64_t row = 0; row < x.m; ++row) {
      for (std::uint64_t col = 0; col < n; ++col) {
        float acc = std::bit_cast<float>(startOf(row, col));
        std::vector<float> products;  // the pairwise reading's terms
        for (std::uint64_t kk = 0; kk < kEnd; ++kk) {
          const float av = aF[row * kEnd + kk], bv = bF[bAt(kk, col)];
          if (fault == Fault::MmadPairwiseSum) {
            products.push_back(av * bv);
          } else if (fault == Fault::MmadAddsTowardZero) {
            acc = addTowardZero(acc, av * bv);
          } else if (fault == Fault::MmadF16Accumulation) {
            acc = static_cast<float>(Eigen::half(acc + av * bv));
          } else if (narrow) {
            acc = toSignificandBits(acc + av * bv, 17);
          } else if (fault == Fault::MmadFltMinFlushed) {
            acc += av * bv;
          } else if (fault == Fault::MmadNanProductsDropped) {
            const float p = av * bv;  // inf x 0 read as 0: the init survives a NaN result
            acc += std::isnan(p) ? 0.0f : p;
          } else {
            acc = flushed(acc + flushed(flushed(av) * flushed(bv)));
          }
        }
        if (!products.empty()) acc += pairwiseSum(products, 0, products.size());
        store(row, col, acc);
      }
    }
    return std::nullopt;
  }
  // C two rows by 16 columns at a time, the 32 sums held in registers over k (as 4-float
  // vectors of the GCC/Clang vector extension, so that every compiler keeps them there). Each
  // sum still takes one f32 product and one f32 addition per k, in ascending k.
  using F32x4 = float __attribute__((vector_size(16)));
  constexpr std::uint64_t kCols = 16, kVectors = kCols / 4;
  // storeRun for a whole fractal row, from the sums' vectors: the same saturation, four lanes at
  // a time. On x86 the two clamps are one minps and one maxps (which give their second operand
  // where the first is a NaN, and r has none left), not the three-instruction blends GCC makes
  // of the selects.
  auto storeVectors = [&](std::uint64_t row, std::uint64_t first, const F32x4* v) {
    std::uint8_t* to = cellOf(row, first);
    for (std::uint64_t q = 0; q < kVectors; ++q) {
      F32x4 r = v[q] == v[q] ? v[q] : F32x4{};
#if defined(__SSE2__)
      r = __builtin_ia32_maxps(__builtin_ia32_minps(r, F32x4{} + FLT_MAX), F32x4{} - FLT_MAX);
#else
      r = r > FLT_MAX ? F32x4{} + FLT_MAX : r;
      r = r < -FLT_MAX ? F32x4{} - FLT_MAX : r;
#endif
      std::memcpy(to + 16 * q, &r, sizeof r);
    }
  };
  for (std::uint64_t row = 0; row < x.m; row += 2) {
    const bool pair = row + 1 < x.m;
    const float* a0 = aF.data() + row * kEnd;
    const float* a1 = pair ? a0 + kEnd : a0;  // a last lone row is summed twice, stored once
    for (std::uint64_t first = 0; first < n; first += kCols) {
      const std::uint64_t width = std::min(kCols, n - first);
      std::array<float, kCols> s0{}, s1{};
      startRun(row, first, width, s0.data());
      if (pair) startRun(row + 1, first, width, s1.data());
      if (width == kCols) {
        F32x4 v0[kVectors], v1[kVectors];
        std::memcpy(v0, s0.data(), sizeof v0);
        std::memcpy(v1, s1.data(), sizeof v1);
        for (std::uint64_t kk = 0; kk < kEnd; ++kk) {
          const float* bv = bF.data() + bAt(kk, first);
          // broadcast, not added to a zero vector: that would turn -0 into +0
          const F32x4 u = {a0[kk], a0[kk], a0[kk], a0[kk]}, w = {a1[kk], a1[kk], a1[kk], a1[kk]};
          for (std::uint64_t q = 0; q < kVectors; ++q) {
            F32x4 b;
            std::memcpy(&b, bv + 4 * q, sizeof b);
            v0[q] += u * b;
            v1[q] += w * b;
          }
        }
        storeVectors(row, first, v0);
        if (pair) storeVectors(row + 1, first, v1);
        continue;
      }
      for (std::uint64_t kk = 0; kk < kEnd; ++kk) {
        const float* bv = bF.data() + bAt(kk, first);
        for (std::uint64_t j = 0; j < width; ++j) {
          s0[j] += a0[kk] * bv[j];
          s1[j] += a1[kk] * bv[j];
        }
      }
      storeRun(row, first, width, s0.data());
      if (pair) storeRun(row + 1, first, width, s1.data());
    }
  }
  return std::nullopt;
}

/// Spec 8.1.4 by addresses: the scale of A element (i, kk) lies in L0A_MX at
///   aAddr/16 + ((i/16) K2 + kk/64) 32 + (i%16) 2 + (kk/32)%2,
/// of B element (kk, j) in L0B_MX at bAddr/16 + ((j/16) K2 + kk/64) 32 + (j%16) 2 + (kk/32)%2,
/// K2 = k/64. `row` is i (A) or j (B).
std::uint64_t mxScaleByte(std::uint64_t row, std::uint64_t kk, std::uint64_t k, Fault fault) {
  std::uint64_t k2 = k / 64;
  if (fault == Fault::MxScaleStrideK32) k2 = k / 32;
  std::uint64_t block = kk / 32;  // the 32-element block
  if (fault == Fault::MxScalePer16) block = kk / 16;
  return ((row / 16) * k2 + block / 2) * 32 + (row % 16) * 2 + block % 2;
}

/// Byte offset of C(row, col) in L0C from C's base: Nz 16 x 16 fractals of 4-byte elements,
/// m1 = ceil(m/16) fractals a column of them (spec 2, 3).
std::uint64_t cCellByte(std::uint64_t row, std::uint64_t col, std::uint64_t m1) {
  return ((col / 16) * m1 + row / 16) * 1024 + ((row % 16) * 16 + col % 16) * 4;
}

/// The reading of OPEN-8 that writes C's whole fractals: the cells of the last ones beyond m and
/// n (rows 1..15 of a GEMV result among them) get a pattern no product gives on purpose. For
/// Mmad, MmadWithSparse and MmadMx alike.
template <class Multiply>
void scribbleBeyondC(State& state, const Multiply& x) {
  if (x.m == 0 || x.k == 0 || x.n == 0) return;
  const std::uint64_t m1 = ceilDiv(x.m, 16), n1 = ceilDiv(x.n, 16);
  std::uint8_t* c = state.write(Memory::L0C, x.cAddr, m1 * n1 * 1024);
  if (c == nullptr) return;
  const std::uint32_t scribble = 0xA5A5A5A5u;
  for (std::uint64_t row = 0; row < 16 * m1; ++row) {
    for (std::uint64_t col = 0; col < 16 * n1; ++col) {
      if (row < x.m && col < x.n) continue;
      std::memcpy(c + cCellByte(row, col, m1), &scribble, 4);
    }
  }
}

/// Spec 8.1.5 by addresses: A (Nz, 16 x C0 fractals; fp4: C0 = 64, element 2j of a byte in bits
/// 3:0 and 2j+1 in bits 7:4) and B (Zn) decoded by the reference's tables, each element times
/// 2^(s - 127) of its E8M0 scale, the products summed exactly (in double: every scaled product
/// of two decoded values has at most 8 significant bits, and the certified sums stay exact) and
/// rounded once to f32 with spec 8's saturation mode. m = 1 is read as an ordinary Nz operand
/// (OPEN-19: MX GEMV is not certified).
std::optional<isa::Violation> execMmadMx(State& state, const isa::MmadMx& x, Fault fault) {
  if (x.m == 0 || x.k == 0 || x.n == 0) return std::nullopt;
  const isa::DType aType = x.dtype, bType = isa::bTypeOf(x);
  const int bits = isa::bitsOf(aType);
  const std::uint64_t k0 = 256 / static_cast<std::uint64_t>(bits);  // a 32-byte fractal row
  const std::uint64_t m1 = ceilDiv(x.m, 16), n1 = ceilDiv(x.n, 16), kf = x.k / k0;
  const std::uint64_t aBytes = m1 * kf * kFractalBytes, bBytes = n1 * kf * kFractalBytes;
  const std::uint8_t* a = state.read(Memory::L0A, x.aAddr, aBytes);
  if (a == nullptr) return undefined(Memory::L0A, x.aAddr, aBytes, "reads");
  const std::uint8_t* b = state.read(Memory::L0B, x.bAddr, bBytes);
  if (b == nullptr) return undefined(Memory::L0B, x.bAddr, bBytes, "reads");
  Memory aScaleMem = Memory::L0AMx, bScaleMem = Memory::L0BMx;
  std::uint64_t aScaleAt = x.aAddr / 16, bScaleAt = x.bAddr / 16;
  if (fault == Fault::MxScalesSwapped) {
    std::swap(aScaleMem, bScaleMem);
    std::swap(aScaleAt, bScaleAt);
  }
  const std::uint64_t aScaleLen = mxScaleByte(m1 * 16 - 1, x.k - 1, x.k, fault) + 1,
                      bScaleLen = mxScaleByte(n1 * 16 - 1, x.k - 1, x.k, fault) + 1;
  const std::uint8_t* sa = state.read(aScaleMem, aScaleAt, aScaleLen);
  if (sa == nullptr) return undefined(aScaleMem, aScaleAt, aScaleLen, "reads");
  const std::uint8_t* sb = state.read(bScaleMem, bScaleAt, bScaleLen);
  if (sb == nullptr) return undefined(bScaleMem, bScaleAt, bScaleLen, "reads");
  std::uint8_t* c = state.write(Memory::L0C, x.cAddr, m1 * n1 * 1024);
  if (c == nullptr) return undefined(Memory::L0C, x.cAddr, m1 * n1 * 1024, "writes");
  const isa::MmadInit init = isa::initOf(x);
  const std::uint8_t* bias = nullptr;
  if (init == isa::MmadInit::BiasTable || init == isa::MmadInit::BiasTensor) {
    const std::uint64_t at = init == isa::MmadInit::BiasTensor ? x.biasAddr : 0;  // OPEN-6
    bias = state.read(Memory::BiasTable, at, std::uint64_t{x.n} * 4);
    if (bias == nullptr) return undefined(Memory::BiasTable, at, std::uint64_t{x.n} * 4, "reads");
  }
  auto element = [&](const std::uint8_t* base, std::uint64_t index, isa::DType t) {
    std::uint32_t code = getElement(base, index, bits);
    // The mutant swaps A's nibbles only: swapping both operands' is a permutation of k inside a
    // scale block, which leaves every C unchanged (an equivalent mutant).
    if (fault == Fault::MxNibblesSwapped && bits == 4 && base == a) {
      code = getElement(base, index ^ 1, bits);
    }
    double v = lowPrecisionFloat(t, static_cast<std::uint8_t>(code));
    // The mutant's E1M2 with exponent bias 0: every value twice the bias-1 one.
    if (fault == Fault::MxE1M2Bias0 && t == isa::DType::Fp4E1M2) v *= 2;
    return v;
  };
  auto scale = [](std::uint8_t code) {
    return static_cast<double>(std::bit_cast<float>(e8m0Bits(code)));
  };
  const std::uint64_t k = x.k, n = x.n;
  std::vector<double> aVal(std::uint64_t{x.m} * k), bVal(k * n);
  for (std::uint64_t i = 0; i < x.m; ++i) {
    for (std::uint64_t kk = 0; kk < k; ++kk) {
      const std::uint64_t e = ((kk / k0) * m1 + i / 16) * 16 * k0 + (i % 16) * k0 + kk % k0;
      aVal[i * k + kk] = element(a, e, aType) * scale(sa[mxScaleByte(i, kk, k, fault)]);
    }
  }
  for (std::uint64_t j = 0; j < n; ++j) {
    for (std::uint64_t kk = 0; kk < k; ++kk) {
      const std::uint64_t e = ((kk / k0) * n1 + j / 16) * 16 * k0 + (j % 16) * k0 + kk % k0;
      bVal[kk * n + j] = element(b, e, bType) * scale(sb[mxScaleByte(j, kk, k, fault)]);
    }
  }
  std::vector<double> acc(n);
  for (std::uint64_t i = 0; i < x.m; ++i) {
    for (std::uint64_t j = 0; j < n; ++j) {
      std::uint8_t* cell = c + cCellByte(i, j, m1);
      std::uint32_t start = 0;
      if (init == isa::MmadInit::Accumulate) std::memcpy(&start, cell, 4);
      if (bias != nullptr) std::memcpy(&start, bias + 4 * j, 4);
      acc[j] = std::bit_cast<float>(start);
    }
    for (std::uint64_t kk = 0; kk < k; ++kk) {
      const double av = aVal[i * k + kk];
      const double* bv = bVal.data() + kk * n;
      for (std::uint64_t j = 0; j < n; ++j) acc[j] += av * bv[j];
    }
    for (std::uint64_t j = 0; j < n; ++j) {
      auto v = static_cast<float>(acc[j]);  // rounded once
      if (std::isnan(v)) v = 0.0f;
      if (std::isinf(v)) v = v > 0 ? FLT_MAX : -FLT_MAX;
      const auto result = std::bit_cast<std::uint32_t>(v);
      std::memcpy(c + cCellByte(i, j, m1), &result, 4);
    }
  }
  return std::nullopt;
}

}  // namespace

ReferenceDut::ReferenceDut(Fault fault) : fault_(fault) {
  caps_.name = "reference";
  caps_.version = "cubecheck reference model 0.1";
  caps_.profiles = {isa::kAllProfiles.begin(), isa::kAllProfiles.end()};
  caps_.instructions = isa::allOpcodes();
  caps_.dtypes = {isa::kAllDTypes.begin(), isa::kAllDTypes.end()};
  caps_.observable = isa::allMemories();
  caps_.rejectsIllegal = true;
}

namespace {
/// Fault::LoadSourceCorrupted: after a load, its first source byte is flipped. The destination
/// is right; only a check that sources end as they began can see it.
void corruptSource(State& state, const isa::Instruction& ins) {
  std::visit(
      [&](const auto& i) {
        if constexpr (requires { i.srcAddr; }) {
          Memory src = Memory::L1;  // LoadDataWithSparse reads B1
          if constexpr (requires { i.path; }) src = isa::memoryOf(isa::srcOf(i.path));
          if (std::uint8_t* p = state.write(src, i.srcAddr, 1)) *p ^= 0xFF;
        }
      },
      ins);
}
}  // namespace

RunResult ReferenceDut::run(const isa::Program& program) {
  return runObserving(program, {});
}

RunResult ReferenceDut::runObserving(const isa::Program& program,
                                     std::span<const isa::Region> alsoObserve) {
  try {
    if (auto v = isa::validateStructure(program)) return RunResult::rejected(*v);
    const isa::Profile& prof = isa::profile(program.profile);
    // Every instruction is checked before any runs: an illegal program is never executed.
    for (const isa::Instruction& ins : program.instructions) {
      if (auto v = checkLegal(prof, ins, fault_)) return RunResult::rejected(*v);
    }
    State state(program.segments);
    // The mutants that do not reset the program state (dut-protocol.md: off or unset at
    // `program`): CTRL[45] on at every start, or CTRL[45] or the Load3D registers as the previous
    // program left them.
    if (fault_ == Fault::LowHiF8ModeOnAtReset) state.hif8Mode = true;
    if (fault_ == Fault::LowHiF8ModeLeaks) state.hif8Mode = leftHif8Mode_;
    if (fault_ == Fault::Load3DRegistersLeak) {
      state.fmatrix = leftFmatrix_;
      state.padding = leftPadding_;
    }
    struct KeepLeft {
      ReferenceDut& dut;
      const State& state;
      ~KeepLeft() {
        dut.leftHif8Mode_ = state.hif8Mode;
        dut.leftFmatrix_ = state.fmatrix;
        dut.leftPadding_ = state.padding;
      }
    } keepLeft{*this, state};
    for (const isa::Instruction& ins : program.instructions) {
      if (fault_ == Fault::WritesNothing) break;
      auto v = std::visit(
          isa::Overloaded{
              [&](const isa::Load2D& l) { return execLoad2D(state, l, fault_); },
              [&](const isa::LoadSparse& l) { return execLoadSparse(state, l, fault_); },
              [&](const isa::MmadSparse& x) {
                auto v = execMmadSparse(state, x, fault_);
                if (!v && fault_ == Fault::MmadUnspecifiedCellsWritten) scribbleBeyondC(state, x);
                return v;
              },
              [&](const isa::LoadV2& l) {
                return execV2(state, l.path, l.dtype, l.srcAddr, l.dstAddr, fieldsOf(l.params),
                              fault_);
              },
              [&](const isa::LoadBitMode& l) {
                return execV2(state, l.path, l.dtype, l.srcAddr, l.dstAddr,
                              fieldsOf(l.params, fault_), fault_);
              },
              [&](const isa::Load3DV2& l) { return execLoad3DV2(state, prof, l, fault_); },
              [&](const isa::Load3DV2Pro& l) { return execLoad3DV2Pro(state, prof, l, fault_); },
              [&](const isa::Load3DV1& l) { return execLoad3DV1(state, l, fault_); },
              [&](const isa::SetFmatrix& x) -> std::optional<isa::Violation> {
                state.fmatrix[x.right ? 1 : 0] = x.value.word();
                return std::nullopt;
              },
              [&](const isa::SetPadding& x) -> std::optional<isa::Violation> {
                state.padding = x.value;
                return std::nullopt;
              },
              [&](const isa::Mmad& x) {
                auto v = execMmad(state, program.profile, x, fault_);
                if (!v && fault_ == Fault::MmadUnspecifiedCellsWritten) scribbleBeyondC(state, x);
                return v;
              },
              [&](const isa::SetHF32& x) -> std::optional<isa::Violation> {
                if (fault_ == Fault::MmadHf32Sticky && state.hf32 && !x.enable) {
                  return std::nullopt;  // the mutant: once on, never off
                }
                state.hf32 = x.enable;
                state.hf32Mode = x.transMode;
                return std::nullopt;
              },
              [&](const isa::SetHiF8Mode& x) -> std::optional<isa::Violation> {
                if (fault_ == Fault::LowHiF8ModeSticky && state.hif8Mode && !x.enable) {
                  return std::nullopt;  // the mutant: once on, never off
                }
                state.hif8Mode = x.enable;
                return std::nullopt;
              },
              [&](const isa::MmadMx& x) {
                auto v = execMmadMx(state, x, fault_);
                if (!v && fault_ == Fault::MmadUnspecifiedCellsWritten) scribbleBeyondC(state, x);
                return v;
              },
              [&](const isa::LoadMxScale& l) { return execLoadMxScale(state, l, fault_); }},
          ins);
      if (v) return RunResult::rejected(*v);
      if (fault_ == Fault::LoadSourceCorrupted) corruptSource(state, ins);
    }
    isa::Observed observed;
    observed.reserve(program.observe.size() + alsoObserve.size());
    // A region may be moved out of the state only when no later region lies in its memory.
    std::vector<isa::Region> regions(program.observe.begin(), program.observe.end());
    regions.insert(regions.end(), alsoObserve.begin(), alsoObserve.end());
    auto last = [&](std::size_t i) {
      return std::none_of(regions.begin() + static_cast<std::ptrdiff_t>(i) + 1, regions.end(),
                          [&](const isa::Region& r) { return r.memory == regions[i].memory; });
    };
    for (std::size_t i = 0; i < regions.size(); ++i) {
      std::optional<isa::Bytes> bytes = state.take(regions[i], last(i));
      if (bytes) {
        observed.push_back(std::move(*bytes));
        continue;
      }
      if (i < program.observe.size()) {
        throw std::logic_error("reference: an observed region outside every segment");
      }
      return {RunStatus::AdapterError,
              {},
              std::nullopt,
              "reference: asked to observe a region outside " +
                  std::string(isa::nameOf(regions[i].memory))};
    }
    return RunResult::ok(std::move(observed));
  } catch (const std::exception& e) {
    return {RunStatus::AdapterError, {}, std::nullopt, std::string("reference threw: ") + e.what()};
  }
}

}  // namespace cubecheck::dut
