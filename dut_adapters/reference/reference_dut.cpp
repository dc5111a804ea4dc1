#include "dut_adapters/reference/reference_dut.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstring>
#include <exception>
#include <variant>
#include <vector>

namespace cubecheck::dut {
namespace {

using isa::Memory;
using isa::ViolationCode;

constexpr std::uint64_t kFractal = 512;  // bytes moved per repeat (spec 4)

/// Mutable copies of the program's segments: the reference's whole machine state.
class State {
 public:
  explicit State(const std::vector<isa::Segment>& segments) : segments_(segments) {}

  /// Pointer to len bytes at addr, or nullptr when no single segment holds them.
  std::uint8_t* at(Memory m, std::uint64_t addr, std::uint64_t len) {
    isa::Segment* s = isa::findSegment(segments_, m, addr, len);
    return s == nullptr ? nullptr : s->bytes.data() + (addr - s->addr);
  }

 private:
  std::vector<isa::Segment> segments_;
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

  std::array<std::uint8_t, kFractal> buf{};
  for (unsigned i = 0; i < repeats; ++i) {
    const std::uint64_t walk = std::uint64_t{i} * p.srcStride;
    // A decrement below fractal 0 is rejected by validation; the mutant that decrements on
    // every path may still get here, and then reads below the source base.
    const std::uint64_t srcByte = decrement ? load.srcAddr + (start - walk) * kFractal
                                            : load.srcAddr + (start + walk) * kFractal;
    const std::uint64_t dstByte = load.dstAddr + i * dstStepFractals * kFractal;
    const std::uint8_t* from = state.at(src, srcByte, kFractal);
    if (from == nullptr) return undefined(src, srcByte, kFractal, "reads");
    if (!transpose) {
      std::memcpy(buf.data(), from, kFractal);
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
    std::uint8_t* to = state.at(dst, dstByte, kFractal + (stray ? 1 : 0));
    if (to == nullptr) return undefined(dst, dstByte, kFractal, "writes");
    std::memcpy(to, buf.data(), kFractal);
    if (stray) to[kFractal] ^= 0xFF;
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
  for (unsigned i = 0; i < l.params.repeatTimes; ++i) {
    const std::uint64_t first = fault == Fault::SparseLoadStartIgnored ? 0 : l.params.startIndex;
    const std::uint64_t step =
        fault == Fault::SparseLoadHonoursStride && l.params.srcStride > 0 ? l.params.srcStride : 1;
    const std::uint64_t f = first + i * step;
    const std::uint64_t dst = l.dstAddr + i * kFractal;
    const std::uint8_t* dense = state.at(Memory::L1, l.srcAddr + f * kFractal, kFractal);
    if (dense == nullptr) return undefined(Memory::L1, l.srcAddr + f * kFractal, kFractal, "reads");
    const std::uint8_t* idx = state.at(Memory::L1, l.idxAddr + f * 128, 128);
    if (idx == nullptr) return undefined(Memory::L1, l.idxAddr + f * 128, 128, "reads");
    std::uint8_t* to = state.at(Memory::L0B, dst, kFractal);
    if (to == nullptr) return undefined(Memory::L0B, dst, kFractal, "writes");
    std::memcpy(to, dense, kFractal);
    const std::uint64_t at = indexByteOf(dst, fault);
    std::uint8_t* toIdx = state.at(Memory::SparseIndex, at, 128);
    if (toIdx == nullptr) return undefined(Memory::SparseIndex, at, 128, "writes");
    std::memcpy(toIdx, idx, 128);
  }
  return std::nullopt;
}

std::uint64_t ceilDiv(std::uint64_t a, std::uint64_t b) {
  return (a + b - 1) / b;
}

/// The V2 fields as the hardware sees them.
struct V2Fields {
  std::uint64_t mStart, kStart, mStep, kStep, srcStride, dstStride;
  bool transpose;
};

V2Fields fieldsOf(const isa::LoadData2DParamsV2& p) {
  const std::int64_t stride = p.srcStride;
  return {p.mStartPosition,
          p.kStartPosition,
          p.mStep,
          p.kStep,
          static_cast<std::uint64_t>(stride < 0 ? -stride : stride),
          p.dstStride,
          p.ifTranspose};
}

/// Load2DBitModeParam decoded from the words themselves (spec 5's table), not from a struct.
V2Fields fieldsOf(const isa::Load2DBitModeParam& b, Fault fault) {
  const std::uint64_t w0 = b.config0(), w1 = b.config1();
  const int stepShift = fault == Fault::V2BitFieldsShifted ? 1 : 0;
  return {w0 & 0xFFFF,
          (w0 >> 16) & 0xFFFF,
          (w0 >> (32 + stepShift)) & 0xFF,
          (w0 >> (40 + stepShift)) & 0xFF,
          w1 & 0xFFFF,
          (w1 >> 16) & 0xFFFF,
          b.ifTranspose()};
}

void copyElement(const std::uint8_t* from, std::uint64_t fromIndex, std::uint8_t* to,
                 std::uint64_t toIndex, int bits) {
  if (bits == 4) {
    const unsigned v = (from[fromIndex / 2] >> (4 * (fromIndex % 2))) & 0xFu;
    std::uint8_t& b = to[toIndex / 2];
    b = static_cast<std::uint8_t>((toIndex % 2) != 0 ? (b & 0x0F) | (v << 4) : (b & 0xF0) | v);
    return;
  }
  const int bytes = bits / 8;
  std::memcpy(to + toIndex * bytes, from + fromIndex * bytes, static_cast<std::size_t>(bytes));
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
  if (!f.transpose) {
    for (std::uint64_t j = 0; j < f.kStep; ++j) {
      for (std::uint64_t i = 0; i < f.mStep; ++i) {
        const std::uint64_t from =
            srcAddr + ((f.kStart + j) * f.srcStride + f.mStart + i) * kFractal;
        const std::uint64_t to = dstAddr + (j * f.dstStride + i) * kFractal;
        const std::uint8_t* s = state.at(src, from, kFractal);
        if (s == nullptr) return undefined(src, from, kFractal, "reads");
        std::uint8_t* d = state.at(dst, to, kFractal);
        if (d == nullptr) return undefined(dst, to, kFractal, "writes");
        std::memcpy(d, s, kFractal);
      }
    }
    return std::nullopt;
  }
  const std::uint64_t rows = c0 * f.kStep / 16, cols = 16 * f.mStep / c0;
  std::array<std::uint8_t, kFractal> tile{};
  for (std::uint64_t c = 0; c < cols; ++c) {
    for (std::uint64_t r = 0; r < rows; ++r) {
      for (std::uint64_t rr = 0; rr < 16; ++rr) {
        for (std::uint64_t cc = 0; cc < c0; ++cc) {
          const std::uint64_t row = 16 * f.mStart + c0 * c + cc;
          const std::uint64_t col = c0 * f.kStart + 16 * r + rr;
          const std::uint64_t from = srcAddr + ((col / c0) * f.srcStride + row / 16) * kFractal;
          const std::uint8_t* s = state.at(src, from, kFractal);
          if (s == nullptr) return undefined(src, from, kFractal, "reads");
          copyElement(s, (row % 16) * c0 + col % c0, tile.data(), rr * c0 + cc, bits);
        }
      }
      const std::uint64_t slot =
          fault == Fault::V2TransposedRowMajor ? r * cols + c : c * f.dstStride + r;
      std::uint8_t* d = state.at(dst, dstAddr + slot * kFractal, kFractal);
      if (d == nullptr) return undefined(dst, dstAddr + slot * kFractal, kFractal, "writes");
      std::memcpy(d, tile.data(), kFractal);
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
  const std::uint8_t* a = state.at(Memory::L0A, x.aAddr, m1 * k1 * kFractal);
  if (a == nullptr) return undefined(Memory::L0A, x.aAddr, m1 * k1 * kFractal, "reads");
  const std::uint8_t* b = state.at(Memory::L0B, x.bAddr, kd1 * n1 * kFractal);
  if (b == nullptr) return undefined(Memory::L0B, x.bAddr, kd1 * n1 * kFractal, "reads");
  const std::uint64_t idxLo = indexByteOf(x.bAddr, fault);
  const std::uint64_t idxLen = indexByteOf(x.bAddr + kd1 * n1 * kFractal, fault) - idxLo;
  const std::uint8_t* idx = state.at(Memory::SparseIndex, idxLo, idxLen);
  if (idx == nullptr) return undefined(Memory::SparseIndex, idxLo, idxLen, "reads");
  std::uint8_t* c = state.at(Memory::L0C, x.cAddr, m1 * n1 * 1024);
  if (c == nullptr) return undefined(Memory::L0C, x.cAddr, m1 * n1 * 1024, "writes");
  const bool fromZero = x.cmatrixInitVal || fault == Fault::SparseInitIgnored;
  const bool biasAsColumn = fault == Fault::SparseBiasAsColumn;
  const std::uint8_t* bias = nullptr;
  if (!fromZero && x.cmatrixSource) {
    const std::uint64_t len = std::uint64_t{biasAsColumn ? x.m : x.n} * 4;
    bias = state.at(Memory::BiasTable, 0, len);  // OPEN-6: bias-table address 0
    if (bias == nullptr) return undefined(Memory::BiasTable, 0, len, "reads");
  }
  // Resolve every dense element of B once: the A column its index names and its value. Then
  // each row of A is gathered once and every C element is a short dot product.
  const std::uint64_t halfK = x.k / 2;
  std::vector<std::uint32_t> aColumn(halfK * x.n);
  std::vector<std::int32_t> bValue(halfK * x.n);
  for (std::uint64_t n = 0; n < x.n; ++n) {
    for (std::uint64_t kd = 0; kd < halfK; ++kd) {
      const std::uint64_t bOff = ((kd / 32) * n1 + n / 16) * kFractal + (n % 16) * 32 + kd % 32;
      const std::uint64_t at = x.bAddr + bOff;
      const std::uint8_t ib = idx[indexByteOf(at, fault) - idxLo];
      const unsigned field = static_cast<unsigned>(at & 3);
      const unsigned shift = fault == Fault::SparseIndexBitsReversed ? 6 - 2 * field : 2 * field;
      const std::uint64_t sel = (ib >> shift) & 3u;
      const bool slot1 = (kd & 1) != 0;
      const std::uint64_t pos =
          4 * (kd / 2) + sel + (slot1 && fault != Fault::SparseSlot1NoOffset ? 1 : 0);
      aColumn[n * halfK + kd] = static_cast<std::uint32_t>(pos);
      bValue[n * halfK + kd] = static_cast<std::int8_t>(b[bOff]);
    }
  }
  // Index 3 in slot 1 names k = 4g + 4: one past the group, still inside A's padded row.
  std::vector<std::int32_t> aRow(k1 * 32);
  for (std::uint64_t m = 0; m < x.m; ++m) {
    for (std::uint64_t k = 0; k < k1 * 32; ++k) {
      aRow[k] =
          static_cast<std::int8_t>(a[((m / 16) * k1 + k / 32) * kFractal + (m % 16) * 32 + k % 32]);
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
      const std::uint32_t* col = aColumn.data() + n * halfK;
      const std::int32_t* val = bValue.data() + n * halfK;
      std::int64_t dot = 0;  // |dot| <= 2048 * 128 * 128 < 2^26: no overflow in 64 bits
      for (std::uint64_t kd = 0; kd < halfK; ++kd) dot += aRow[col[kd]] * val[kd];
      acc += dot;
      const std::int32_t out =
          fault == Fault::SparseWrapNotSaturate
              ? static_cast<std::int32_t>(static_cast<std::uint32_t>(acc))
              : static_cast<std::int32_t>(std::clamp<std::int64_t>(acc, INT32_MIN, INT32_MAX));
      std::memcpy(c + cOff, &out, 4);
    }
  }
  return std::nullopt;
}

}  // namespace

ReferenceDut::ReferenceDut(Fault fault) : fault_(fault) {
  caps_.name = "reference";
  caps_.version = "cubecheck reference model 0.1";
  caps_.profiles = {isa::kAllProfiles.begin(), isa::kAllProfiles.end()};
  caps_.instructions = {std::string(isa::Load2D::kOpcode), std::string(isa::LoadSparse::kOpcode),
                        std::string(isa::MmadSparse::kOpcode), std::string(isa::LoadV2::kOpcode),
                        std::string(isa::LoadBitMode::kOpcode)};
  caps_.dtypes = {isa::kAllDTypes.begin(), isa::kAllDTypes.end()};
  caps_.observable = {Memory::GM,  Memory::L1,        Memory::L0A,        Memory::L0B,
                      Memory::L0C, Memory::BiasTable, Memory::SparseIndex};
  caps_.rejectsIllegal = true;
}

RunResult ReferenceDut::run(const isa::Program& program) {
  try {
    if (auto v = isa::validateStructure(program)) return RunResult::rejected(*v);
    const isa::Profile& prof = isa::profile(program.profile);
    // Every instruction is checked before any runs: an illegal program is never executed.
    for (const isa::Instruction& ins : program.instructions) {
      if (auto v = checkLegal(prof, ins, fault_)) return RunResult::rejected(*v);
    }
    State state(program.segments);
    for (const isa::Instruction& ins : program.instructions) {
      auto v =
          std::visit(isa::Overloaded{
                         [&](const isa::Load2D& l) { return execLoad2D(state, l, fault_); },
                         [&](const isa::LoadSparse& l) { return execLoadSparse(state, l, fault_); },
                         [&](const isa::MmadSparse& x) { return execMmadSparse(state, x, fault_); },
                         [&](const isa::LoadV2& l) {
                           return execV2(state, l.path, l.dtype, l.srcAddr, l.dstAddr,
                                         fieldsOf(l.params), fault_);
                         },
                         [&](const isa::LoadBitMode& l) {
                           return execV2(state, l.path, l.dtype, l.srcAddr, l.dstAddr,
                                         fieldsOf(l.params, fault_), fault_);
                         }},
                     ins);
      if (v) return RunResult::rejected(*v);
    }
    isa::Observed observed;
    observed.reserve(program.observe.size());
    for (const isa::Region& r : program.observe) {
      const std::uint8_t* p = state.at(r.memory, r.addr, r.size);
      observed.emplace_back(p, p + r.size);  // validateStructure guarantees p
    }
    return RunResult::ok(std::move(observed));
  } catch (const std::exception& e) {
    return {RunStatus::AdapterError, {}, std::nullopt, std::string("reference threw: ") + e.what()};
  }
}

}  // namespace cubecheck::dut
