#include "generators/lowprec.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <ostream>
#include <stdexcept>

#include "generators/common.hpp"
#include "generators/fill.hpp"
#include "generators/mmad.hpp"
#include "oracle/layout.hpp"
#include "oracle/lowprec.hpp"
#include "oracle/operands.hpp"

namespace cubecheck::gen {

using isa::DType;
using isa::Memory;
using isa::MmadInit;
using oracle::MatrixD;

namespace {

constexpr isa::ProfileId k950 = isa::ProfileId::Ascend950;

std::int64_t uniform(SplitMix64& g, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(g.next() % static_cast<std::uint64_t>(hi - lo + 1));
}

/// The smallest normal magnitude: below it a value is a subnormal (OPEN-13).
double minNormalOf(DType t) {
  switch (t) {
    case DType::Fp8E4M3FN:
      return 0x1p-6;
    case DType::Fp8E5M2:
      return 0x1p-14;
    default:
      return 0x1p-15;  // hifloat8: D = 0000 codes are 2^-22..2^-16
  }
}

bool finiteCode(DType t, std::uint32_t c) {
  return std::isfinite(oracle::lowPrecisionValue(t, static_cast<std::uint8_t>(c)));
}

oracle::ElemMatrix codeMatrix(Eigen::Index r, Eigen::Index c, SplitMix64& g, auto draw) {
  oracle::ElemMatrix m(r, c);
  for (Eigen::Index j = 0; j < c; ++j) {
    for (Eigen::Index i = 0; i < r; ++i) m(i, j) = draw(g, i, j);
  }
  return m;
}

}  // namespace

/// Spec 8.1.3: a padding canary finite under every reading a DUT might apply, and large, so that
/// reading it shows: e4m3 0x7E (448; 2^-15 as HiF8), hif8 0x6E (2^15; 112 as e4m3), e5m2 0x7B.
std::uint8_t canaryOf(DType t) {
  switch (t) {
    case DType::Fp8E4M3FN:
      return 0x7E;
    case DType::HiF8:
      return 0x6E;
    case DType::Fp4E2M1:
    case DType::Fp4E1M2:
      return 0x77;  // each nibble the largest positive value (MmadMx: beyond m or n only)
    default:
      return 0x7B;
  }
}

/// The binades floor(log2 |v|) a type's nonzero finite values span (appendix A).
std::pair<int, int> binadesOf(DType t) {
  switch (t) {
    case DType::Fp8E4M3FN:
      return {-9, 8};
    case DType::Fp8E5M2:
      return {-16, 15};
    case DType::Fp4E2M1:
      return {-1, 2};  // 0.5 .. 6
    case DType::Fp4E1M2:
      return {-2, 0};  // 0.25 .. 1.75 (bias 1, OPEN-17)
    default:
      return {-22, 15};  // hifloat8
  }
}

/// Positive codes whose value lies in binades [lo, lo + width - 1].
std::vector<std::uint8_t> windowCodes(DType t, int lo, int width) {
  std::vector<std::uint8_t> out;
  const int positive = isa::bitsOf(t) == 4 ? 8 : 128;  // codes below the sign bit
  for (int c = 1; c < positive; ++c) {
    const double v = oracle::lowPrecisionValue(t, static_cast<std::uint8_t>(c));
    if (!std::isfinite(v) || v <= 0) continue;
    const int e = std::ilogb(v);
    if (e >= lo && e < lo + width) out.push_back(static_cast<std::uint8_t>(c));
  }
  return out;
}

/// (q, M) of 8.1.6.3 for the values emitted: q the largest power of two all are multiples of,
/// M the largest magnitude. q = 0 when every value is zero.
std::pair<double, double> quantumAndMax(const MatrixD& v) {
  int low = INT_MAX;
  double m = 0;
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (v(i) == 0) continue;
    low = std::min(low, oracle::lowestBitExponent(v(i)));
    m = std::max(m, std::fabs(v(i)));
  }
  return {low == INT_MAX ? 0.0 : std::ldexp(1.0, low), m};
}

/// ceil(log2 k) for k >= 1.
ExactRegime exactRegime(const MatrixD& a, const MatrixD& b, SplitMix64& g) {
  ExactRegime x;
  std::tie(x.qA, x.mA) = quantumAndMax(a);
  std::tie(x.qB, x.mB) = quantumAndMax(b);
  const double q = x.qA * x.qB, full = std::ldexp(q, 24);
  const double products = static_cast<double>(a.cols()) * x.mA * x.mB;
  if (!(q >= 0x1p-126 && full <= 0x1p127 && products <= full)) {
    throw std::logic_error("the W-exact condition of spec 8.1.6.3 fails for the values drawn");
  }
  x.initMax = full - products;
  const auto steps = static_cast<std::int64_t>(std::min(x.initMax / q, 0x1p24 - 1));
  auto initDraw = [&](Eigen::Index, Eigen::Index) {
    return static_cast<double>(uniform(g, -steps, steps)) * q;  // exact: |n| < 2^24
  };
  x.c0 = MatrixD::NullaryExpr(a.rows(), b.cols(), initDraw);
  x.bias = MatrixD::NullaryExpr(1, b.cols(), initDraw);
  return x;
}

int log2Ceil(std::uint64_t k) {
  return k <= 1 ? 0 : std::bit_width(k - 1);
}

std::string pairName(DType a, DType b) {
  return std::string(isa::nameOf(a)) + "_x_" + std::string(isa::nameOf(b));
}

std::string_view nameOf(LowValues v) {
  switch (v) {
    case LowValues::DecodeProbe:
      return "decode_probe";
    case LowValues::Exact:
      return "exact";
    case LowValues::Bounded:
      return "bounded";
    case LowValues::Ladder:
      return "ladder";
    case LowValues::InitKeep:
      return "init_keep";
    case LowValues::Infinity:
      return "infinity";
  }
  return "?";
}

std::vector<std::pair<DType, DType>> lowPrecisionPairs() {
  return {{DType::Fp8E4M3FN, DType::Fp8E4M3FN},
          {DType::Fp8E4M3FN, DType::Fp8E5M2},
          {DType::Fp8E5M2, DType::Fp8E4M3FN},
          {DType::Fp8E5M2, DType::Fp8E5M2},
          {DType::HiF8, DType::HiF8}};
}

DType effectiveA(const LowMmadCase& c) {
  const bool asHiF8 =
      c.hif8Mode && c.aType == DType::Fp8E4M3FN && c.bType == DType::Fp8E4M3FN;  // spec 8.1.5
  return asHiF8 ? DType::HiF8 : c.aType;
}

DType effectiveB(const LowMmadCase& c) {
  const bool asHiF8 = c.hif8Mode && c.aType == DType::Fp8E4M3FN && c.bType == DType::Fp8E4M3FN;
  return asHiF8 ? DType::HiF8 : c.bType;
}

std::ostream& operator<<(std::ostream& os, const LowMmadCase& c) {
  std::string what = isa::describe(lowMmadOf(c)) + " ctrl45=" + std::to_string(c.hif8Mode) +
                     (ctrl45StartOf(c) == Ctrl45Start::Reset     ? " (not written: reset value)"
                      : ctrl45StartOf(c) == Ctrl45Start::AfterOn ? " (not written, after a program "
                                                                   "that left it 1)"
                                                                 : "") +
                     " values=" + std::string(nameOf(c.values));
  if (c.values == LowValues::DecodeProbe) {
    what += std::string(" probe_side=") + (c.probeA ? "a" : "b");
    if (c.subnormalOnly) what += " subnormal_codes";
  }
  if (c.values == LowValues::Ladder) what += " w=" + std::to_string(c.ladderW);
  if (c.values == LowValues::Infinity) {
    what += std::string(c.infSign > 0 ? " +inf" : " -inf") + " at " + (c.probeA ? "a" : "b");
  }
  if (c.values == LowValues::Exact) {
    what += " window_a=" + std::to_string(c.loA) + "+" + std::to_string(c.widthA) +
            " window_b=" + std::to_string(c.loB) + "+" + std::to_string(c.widthB);
  }
  return printCase(os, c.profile, what, c.contentSeed, c.why);
}

isa::Mmad lowMmadOf(const LowMmadCase& c) {
  isa::Mmad x;
  x.dtype = c.aType;
  if (c.bType != c.aType) x.bDtype = c.bType;
  x.cAddr = c.cAddr;
  x.aAddr = c.aAddr;
  x.bAddr = c.bAddr;
  x.m = c.m;
  x.k = c.k;
  x.n = c.n;
  x.disableGemv = c.disableGemv;
  x.unitFlag = c.unitFlag;
  x.kDirectionAlign = c.kAlign;
  x.biasAddr = c.biasAddr;
  setInitFlags(x, c.init, c.ignoredInitVal, c.ignoredSource);
  return x;
}

MatrixD LowOperands::init(MmadInit mode) const {
  return initMatrix(mode, c0, bias);
}

LowOperands lowOperandsOf(const LowMmadCase& c) {
  SplitMix64 g(subSeed(c.contentSeed, 200));
  const Eigen::Index m = c.m, k = c.k, n = c.n;
  const DType ea = effectiveA(c), eb = effectiveB(c);
  LowOperands o;
  auto finiteRandom = [](DType t) {
    return [t](SplitMix64& r, Eigen::Index, Eigen::Index) {
      for (;;) {
        const auto code = static_cast<std::uint32_t>(r.next() & 0xFF);
        if (finiteCode(t, code)) return code;
      }
    };
  };
  auto smallF32 = [](SplitMix64& r, Eigen::Index, Eigen::Index) {
    return static_cast<double>(
        static_cast<float>(std::ldexp(static_cast<double>(uniform(r, -(1 << 23), 1 << 23)),
                                      static_cast<int>(uniform(r, -20, 0)))));
  };
  switch (c.values) {
    case LowValues::DecodeProbe: {
      // 8.1.6.1: the selector holds `one` at kk == i mod k (A side) or kk == j mod k (B side);
      // the other operand enumerates code((i or j) + kk mod 256), NaN and inf codes as +0.
      const DType probed = c.probeA ? ea : eb;
      const std::uint32_t one = oracle::lowPrecisionCode(c.probeA ? eb : ea, 1.0);
      auto code = [&](std::int64_t idx) -> std::uint32_t {
        const auto cd = static_cast<std::uint32_t>(idx % 256);
        if (!finiteCode(probed, cd)) return 0;
        if (c.subnormalOnly) {
          const double v = oracle::lowPrecisionValue(probed, static_cast<std::uint8_t>(cd));
          if (std::fabs(v) >= minNormalOf(probed)) return 0;
        }
        return cd;
      };
      o.aCodes = codeMatrix(m, k, g, [&](SplitMix64&, Eigen::Index i, Eigen::Index kk) {
        return c.probeA ? code(i + kk) : (kk == i % k ? one : 0u);
      });
      o.bCodes = codeMatrix(k, n, g, [&](SplitMix64&, Eigen::Index kk, Eigen::Index j) {
        return c.probeA ? (kk == j % k ? one : 0u) : code(kk + j);
      });
      break;
    }
    case LowValues::Exact: {
      const std::vector<std::uint8_t> wa = windowCodes(ea, c.loA, c.widthA),
                                      wb = windowCodes(eb, c.loB, c.widthB);
      if (wa.empty() || wb.empty()) throw std::logic_error("lowOperandsOf: empty window");
      auto from = [](const std::vector<std::uint8_t>& w) {
        return [&w](SplitMix64& r, Eigen::Index, Eigen::Index) -> std::uint32_t {
          if (r.next() % 8 == 0) return 0;  // zeros too
          const std::uint32_t cd = w[r.next() % w.size()];
          return (r.next() & 1) != 0 ? cd | 0x80 : cd;  // negatives: cancellation
        };
      };
      o.aCodes = codeMatrix(m, k, g, from(wa));
      o.bCodes = codeMatrix(k, n, g, from(wb));
      break;
    }
    case LowValues::Bounded:
      o.aCodes = codeMatrix(m, k, g, finiteRandom(ea));
      o.bCodes = codeMatrix(k, n, g, finiteRandom(eb));
      break;
    case LowValues::Ladder: {
      // A(i, kk) = B(kk, j) = 2^(e/2) for kk < t, 1 at kk = t, 0 after: C = t 2^e + 1.
      const int e = ladderBigExponent(c.ladderW);
      const std::int64_t t = std::int64_t{1} << (c.ladderW - 1 - e);
      auto side = [&](DType type) {
        const std::uint32_t big = oracle::lowPrecisionCode(type, std::ldexp(1.0, e / 2)),
                            one = oracle::lowPrecisionCode(type, 1.0);
        return [=](std::int64_t kk) { return kk < t ? big : kk == t ? one : 0u; };
      };
      const auto a = side(ea), b = side(eb);
      o.aCodes =
          codeMatrix(m, k, g, [&](SplitMix64&, Eigen::Index, Eigen::Index kk) { return a(kk); });
      o.bCodes =
          codeMatrix(k, n, g, [&](SplitMix64&, Eigen::Index kk, Eigen::Index) { return b(kk); });
      break;
    }
    case LowValues::InitKeep:
      o.aCodes = oracle::ElemMatrix::Zero(m, k);
      o.bCodes = oracle::ElemMatrix::Zero(k, n);
      break;
    case LowValues::Infinity: {
      o.aCodes = oracle::ElemMatrix::Constant(m, k, oracle::lowPrecisionCode(ea, 1.0));
      o.bCodes = oracle::ElemMatrix::Constant(k, n, oracle::lowPrecisionCode(eb, 1.0));
      const std::optional<std::uint8_t> inf = infinityCode(c.probeA ? ea : eb, c.infSign);
      if (!inf) throw std::logic_error("lowOperandsOf: the probed type has no infinity");
      (c.probeA ? o.aCodes : o.bCodes)(0, 0) = *inf;
      break;
    }
  }
  // Never vacuous (spec 9): C(0, 0) must move, so A(0, :) B(:, 0) needs a nonzero product.
  const bool crafted = c.values == LowValues::DecodeProbe || c.values == LowValues::Ladder ||
                       c.values == LowValues::InitKeep || c.values == LowValues::Infinity;
  if (m > 0 && k > 0 && n > 0 && !crafted) {
    const std::uint32_t oneA = oracle::lowPrecisionCode(ea, 1.0),
                        oneB = oracle::lowPrecisionCode(eb, 1.0);
    if (c.values == LowValues::Exact) {
      // Keep the window: the smallest code of each window stands in for 1.
      o.aCodes(0, 0) = windowCodes(ea, c.loA, c.widthA).front();
      o.bCodes(0, 0) = windowCodes(eb, c.loB, c.widthB).front();
    } else {
      o.aCodes(0, 0) = oneA;
      o.bCodes(0, 0) = oneB;
    }
  }
  o.a = oracle::valuesOf(o.aCodes, ea);
  o.b = oracle::valuesOf(o.bCodes, eb);
  o.c0 = MatrixD::Zero(m, n);
  o.bias = MatrixD::Zero(1, n);
  if (c.values == LowValues::Exact && m > 0 && k > 0 && n > 0) {
    // Spec 8.1.6.3 and appendix B, from the values emitted: every A value is a multiple of qA
    // with |a| <= MA, likewise B; the init a multiple of Q = qA qB with |init| <= I. When
    // I + k MA MB <= 2^24 Q and 2^-126 <= Q, 2^24 Q <= 2^127, every partial sum in any order is
    // n Q with |n| <= 2^24: exact in f32. The draw (legalLowMmad) sizes the windows so that
    // k MA MB < 2^23 Q: each window of w binades holds values below 2^(lo + w) that are
    // multiples of 2^(lo - 3) (at most 3 mantissa bits), so MA / qA < 2^(w + 3), and
    // log2 k + (wA + 3) + (wB + 3) <= 23. The rest of the budget goes to the init.
    const ExactRegime x = exactRegime(o.a, o.b, g);
    std::tie(o.qA, o.mA, o.qB, o.mB, o.initMax) = std::tie(x.qA, x.mA, x.qB, x.mB, x.initMax);
    o.c0 = x.c0;
    o.bias = x.bias;
  } else if (c.values == LowValues::InitKeep) {
    // Odd 24-bit significands (the last bit set) in binades -8..8, either sign: a narrower
    // accumulator rounds every one of them.
    o.c0 = MatrixD::NullaryExpr(m, n, [&](Eigen::Index, Eigen::Index) {
      const std::int64_t significand = uniform(g, 1 << 22, (1 << 23) - 1) * 2 + 1;
      const double v =
          std::ldexp(static_cast<double>(significand), static_cast<int>(uniform(g, -31, -15)));
      return (g.next() & 1) != 0 ? -v : v;
    });
  } else if (c.values == LowValues::Bounded) {
    o.c0 =
        MatrixD::NullaryExpr(m, n, [&](Eigen::Index, Eigen::Index) { return smallF32(g, 0, 0); });
    o.bias =
        MatrixD::NullaryExpr(1, n, [&](Eigen::Index, Eigen::Index) { return smallF32(g, 0, 0); });
  }
  return o;
}

/// Whether CTRL[45] is first set the other way and then as the case asks, so that the Mmad
/// reads the mode a second SetCtrlSpr left: on e4m3fn x e4m3fn (the one pair it changes, spec
/// 8.1.5), for an even content seed (no draw: every other value of a case stays what it was).
namespace {
bool ctrl45Toggled(const LowMmadCase& c) {
  return c.aType == DType::Fp8E4M3FN && c.bType == DType::Fp8E4M3FN && c.contentSeed % 2 == 0;
}
}  // namespace

Ctrl45Start ctrl45StartOf(const LowMmadCase& c) {
  if (c.aType != DType::Fp8E4M3FN || c.bType != DType::Fp8E4M3FN || c.hif8Mode ||
      (c.values != LowValues::Exact && c.values != LowValues::Bounded) || c.contentSeed % 2 == 0) {
    return Ctrl45Start::Set;
  }
  return c.contentSeed % 4 == 1 ? Ctrl45Start::Reset : Ctrl45Start::AfterOn;
}

std::vector<isa::Program> programsBefore(const LowMmadCase& c) {
  if (ctrl45StartOf(c) != Ctrl45Start::AfterOn) return {};
  LowMmadCase on = c;
  on.hif8Mode = true;
  ++on.contentSeed;  // even: Set, and written off first, then on
  return {buildProgram(on)};
}

isa::Program buildProgram(const LowMmadCase& c) {
  const isa::Mmad x = lowMmadOf(c);
  const LowOperands o = lowOperandsOf(c);
  isa::Program p;
  p.profile = c.profile;
  const bool noOp = c.m == 0 || c.k == 0 || c.n == 0;
  // Where A and B go, as the oracle states it (oracle/operands.hpp); b8: C0 = 32 (spec 8.1.3).
  const oracle::OperandLayout aAt = oracle::mmadA(c.profile, x), bAt = oracle::mmadB(x);
  if (!noOp) {
    const std::uint8_t canA = canaryOf(c.aType), canB = canaryOf(c.bType);
    if (aAt.vector) {
      // A vector of k bytes at aAddr, in a fractal-aligned run (aAddr and L0A's size are
      // multiples of 512, so the run stays inside L0A).
      const std::uint64_t run =
          (std::uint64_t{c.k} + isa::kFractalBytes - 1) / isa::kFractalBytes * isa::kFractalBytes;
      isa::Segment a{Memory::L0A, c.aAddr, isa::Bytes(run, canA)};
      for (Eigen::Index kk = 0; kk < c.k; ++kk) {
        a.bytes[static_cast<std::size_t>(kk)] = static_cast<std::uint8_t>(o.aCodes(0, kk));
      }
      p.segments.push_back(std::move(a));
    } else {
      oracle::ElemMatrix a = oracle::ElemMatrix::Constant(
          static_cast<Eigen::Index>(aAt.rows), static_cast<Eigen::Index>(aAt.cols), canA);
      a.topLeftCorner(c.m, c.k) = o.aCodes;
      p.segments.push_back({Memory::L0A, c.aAddr, oracle::encode(a, aAt.layout, c.aType, canA)});
    }
    oracle::ElemMatrix b = oracle::ElemMatrix::Constant(static_cast<Eigen::Index>(bAt.rows),
                                                        static_cast<Eigen::Index>(bAt.cols), canB);
    b.topLeftCorner(c.k, c.n) = o.bCodes;
    p.segments.push_back({Memory::L0B, c.bAddr, oracle::encode(b, bAt.layout, c.bType, canB)});
  }
  const auto [lo, hi] = addInitSegments(p, c.init, c.init == MmadInit::Accumulate && !noOp, c.cAddr,
                                        std::max<std::uint64_t>(isa::mmadCBytes(x), 1024),
                                        c.biasAddr, oracle::bitsOf(o.c0, DType::F32),
                                        oracle::bitsOf(o.bias, DType::F32), c.contentSeed);
  // Spec 8.1.5: CTRL[45] is set explicitly, 0 unless the case is about it; in half the e4m3fn x
  // e4m3fn cases it is set the other way first (a mode turned off, or on). The e4m3fn x e4m3fn
  // cases of ctrl45StartOf Reset and AfterOn leave it at its reset value, off.
  if (ctrl45StartOf(c) == Ctrl45Start::Set) {
    if (ctrl45Toggled(c)) p.instructions.emplace_back(isa::SetHiF8Mode{!c.hif8Mode});
    p.instructions.emplace_back(isa::SetHiF8Mode{c.hif8Mode});
  }
  p.instructions.emplace_back(x);
  p.observe = {{Memory::L0C, lo, hi - lo}};
  return p;
}

oracle::ElemMatrix expectedC(const LowMmadCase& c, const LowOperands& o, bool flushSubnormals) {
  if (c.m == 0 || c.k == 0 || c.n == 0) return {};
  MatrixD a = o.a, b = o.b;
  if (flushSubnormals) {
    const double na = minNormalOf(effectiveA(c)), nb = minNormalOf(effectiveB(c));
    a = a.unaryExpr([na](double v) { return std::fabs(v) < na ? 0.0 : v; });
    b = b.unaryExpr([nb](double v) { return std::fabs(v) < nb ? 0.0 : v; });
  }
  // Spec 8.1.5: the exact sum rounded once to f32 (every product is exact in double, and in the
  // regimes certified exactly every partial sum too).
  return oracle::mmadResult(DType::F32, a, b, o.init(c.init));
}

std::vector<std::string> tagsOf(const LowMmadCase& c) {
  const isa::Mmad x = lowMmadOf(c);
  std::vector<std::string> t{"pair:" + pairName(c.aType, c.bType),
                             "init:" + std::string(isa::nameOf(c.init)),
                             "values:" + std::string(nameOf(c.values))};
  t.push_back(initFlagsTag(x));
  if (c.hif8Mode) {
    t.emplace_back(c.aType == DType::Fp8E4M3FN && c.bType == DType::Fp8E4M3FN
                       ? "ctrl45:hif8"
                       : "ctrl45:other_pair");
  }
  if (ctrl45Toggled(c)) t.emplace_back(c.hif8Mode ? "ctrl45:turned_on" : "ctrl45:turned_off");
  if (ctrl45StartOf(c) == Ctrl45Start::Reset) t.emplace_back("ctrl45:reset_value");
  if (ctrl45StartOf(c) == Ctrl45Start::AfterOn) t.emplace_back("ctrl45:after_program_left_on");
  if (c.values == LowValues::DecodeProbe) {
    t.emplace_back("decode:" + std::string(isa::nameOf(c.probeA ? effectiveA(c) : effectiveB(c))) +
                   (c.probeA ? ":a" : ":b"));
  }
  if (c.values == LowValues::Exact) {
    if (c.loA == binadesOf(effectiveA(c)).first || c.loB == binadesOf(effectiveB(c)).first) {
      t.emplace_back("window:subnormal");
    }
    if (c.loA + c.widthA - 1 == binadesOf(effectiveA(c)).second ||
        c.loB + c.widthB - 1 == binadesOf(effectiveB(c)).second) {
      t.emplace_back("window:max_binade");
    }
  }
  if (c.m == 0 || c.k == 0 || c.n == 0) {
    t.emplace_back("zero_dimension");
    return t;
  }
  if (oracle::mmadA(c.profile, x).vector) t.emplace_back("gemv");
  t.push_back(sizeBin("m", c.m, mmadLargest(k950, 'm')));
  t.push_back(sizeBin("n", c.n, mmadLargest(k950, 'n')));
  t.push_back(sizeBin("k", c.k, mmadLargest(k950, 'k')));
  if (c.m % 16 != 0) t.emplace_back("m:partial_fractal");
  if (c.n % 16 != 0) t.emplace_back("n:partial_fractal");
  if (c.k % 32 != 0) t.emplace_back("k:partial_fractal");
  return t;
}

std::vector<LowMmadCase> lowDecodeProbes() {
  std::vector<LowMmadCase> t;
  std::uint64_t seed = 0x10D;
  auto add = [&](DType a, DType b, bool mode, bool probeA) {
    LowMmadCase c;
    c.aType = a;
    c.bType = b;
    c.hif8Mode = mode;
    c.values = LowValues::DecodeProbe;
    c.probeA = probeA;
    c.m = c.k = 256;
    c.n = 16;
    c.contentSeed = seed++;
    const DType probed = probeA ? effectiveA(c) : effectiveB(c);
    c.why = "decode probe, every finite code of " + std::string(isa::nameOf(probed)) + " on " +
            (probeA ? "A" : "B") + (mode ? " (e4m3fn containers under CTRL[45])" : "");
    t.push_back(c);
  };
  for (bool probeA : {false, true}) {
    // The mixed pairs make the selector the other fp8 format: both pair orders are exercised.
    add(DType::Fp8E5M2, DType::Fp8E4M3FN, false, probeA);
    add(DType::Fp8E4M3FN, DType::Fp8E5M2, false, probeA);
    add(DType::HiF8, DType::HiF8, false, probeA);
    add(DType::Fp8E4M3FN, DType::Fp8E4M3FN, true, probeA);
  }
  return t;
}

std::vector<LowMmadCase> lowSubnormalProbes() {
  std::vector<LowMmadCase> t;
  for (LowMmadCase c : lowDecodeProbes()) {
    if (c.probeA) continue;
    c.subnormalOnly = true;
    c.why = "OPEN-13: " +
            c.why.substr(c.why.find("of ") + 3, c.why.find(" on ") - c.why.find("of ") - 3) +
            " subnormal codes only: honoured or flushed";
    t.push_back(c);
  }
  return t;
}

std::optional<std::uint8_t> infinityCode(DType t, int sign) {
  for (int code = 0; code < 256; ++code) {
    const double v = oracle::lowPrecisionValue(t, static_cast<std::uint8_t>(code));
    if (std::isinf(v) && (v > 0) == (sign > 0)) return static_cast<std::uint8_t>(code);
  }
  return std::nullopt;
}

double maxFiniteOf(DType t) {
  double most = 0;
  for (int code = 0; code < 256; ++code) {
    const double v = oracle::lowPrecisionValue(t, static_cast<std::uint8_t>(code));
    if (std::isfinite(v)) most = std::max(most, std::fabs(v));
  }
  return most;
}

std::vector<LowMmadCase> lowInfinityProbes() {
  std::vector<LowMmadCase> t;
  std::uint64_t seed = 0x14F0;
  for (auto [a, b] : lowPrecisionPairs()) {
    for (bool sideA : {true, false}) {
      if (!infinityCode(sideA ? a : b, 1)) continue;
      for (int sign : {1, -1}) {
        LowMmadCase c;
        c.aType = a;
        c.bType = b;
        c.values = LowValues::Infinity;
        c.probeA = sideA;
        c.infSign = sign;
        c.contentSeed = seed++;
        c.why = "OPEN-14: " + pairName(a, b) + ", " + (sign > 0 ? "+inf" : "-inf") + " at " +
                (sideA ? "A(0, 0)" : "B(0, 0)") + ", ones elsewhere";
        t.push_back(c);
      }
    }
  }
  return t;
}

int ladderBigExponent(int w) {
  // Products 2^e with e even (each side 2^(e/2), at most 2^8: finite in every 8-bit format) and
  // few enough of them: 2^(w - 1 - e) <= 128.
  return std::min(16, (w - 1) / 2 * 2);
}

std::vector<LowMmadCase> lowWidthProbes() {
  std::vector<LowMmadCase> t;
  std::uint64_t seed = 0x12A0;
  for (auto [a, b] : lowPrecisionPairs()) {
    LowMmadCase c;
    c.aType = a;
    c.bType = b;
    c.values = LowValues::Ladder;
    for (int w : {11, 14, 17, 20, 24}) {
      c.ladderW = w;
      c.k = static_cast<std::uint16_t>((1 << (w - 1 - ladderBigExponent(w))) + 1);
      c.contentSeed = seed++;
      c.why = "OPEN-12 ladder: " + pairName(a, b) + ", C = 2^" + std::to_string(w - 1) +
              " + 1, exact with " + std::to_string(w) + " accumulator bits, not with fewer";
      t.push_back(c);
    }
    LowMmadCase keep;
    keep.aType = a;
    keep.bType = b;
    keep.values = LowValues::InitKeep;
    keep.init = MmadInit::Accumulate;
    keep.contentSeed = seed++;
    keep.why = "OPEN-12 init preservation: " + pairName(a, b) +
               ", A = B = 0 onto L0C values with 24 significant bits: C = init";
    t.push_back(keep);
  }
  return t;
}

std::vector<LowMmadCase> lowBoundaries() {
  std::vector<LowMmadCase> t;
  std::uint64_t seed = 0x1E0;
  auto add = [&](LowMmadCase c, std::string why) {
    c.contentSeed = seed++;
    c.why = std::move(why);
    t.push_back(std::move(c));
  };
  int pairIndex = 0;
  for (auto [a, b] : lowPrecisionPairs()) {
    const std::string name = pairName(a, b);
    LowMmadCase c;
    c.aType = a;
    c.bType = b;
    c.k = 64;
    c.loA = c.loB = 0;
    c.widthA = c.widthB = 4;  // integers 1..15: log2 64 + 7 + 7 <= 23
    add(c, name + ": 16 x 64 x 16 from zero, small integers");
    {
      // Fields another type's Mmad holding them says nothing about: unit_flag (synchronisation
      // only) at its largest, and k_direction_align, which these types ignore (spec 8).
      LowMmadCase u = c;
      u.unitFlag = 3;
      u.kAlign = true;
      add(u, name + ": unit_flag 3 and k_direction_align 1 change nothing");
    }
    c.init = MmadInit::Accumulate;
    add(c, name + ": accumulate onto L0C values using the whole 24-bit budget");
    c.init = MmadInit::BiasTensor;
    c.biasAddr = 128;
    add(c, name + ": f32 bias tensor at bias-table address 128");
    // Spec 8: is_bias takes the tensor whatever the other two flags say (the table row at 0,
    // cmatrix_source's, differs from the tensor at 128); the pairs take the three in turn.
    LowMmadCase e = c;
    e.ignoredInitVal = pairIndex % 3 != 1;
    e.ignoredSource = pairIndex % 3 != 0;
    add(e, name + ": " + biasWinsWhy(e.ignoredInitVal, e.ignoredSource));
    if (pairIndex % 2 == 0) {
      LowMmadCase z = c;
      z.init = MmadInit::Zero;
      z.ignoredSource = true;
      add(z, name + ": cmatrix_init_val overrides cmatrix_source: still from zero");
    }
    ++pairIndex;
    c.init = MmadInit::BiasTable;
    add(c, name + ": cmatrix_source from the bias table (OPEN-6: address 0)");
    c.init = MmadInit::Accumulate;
    c.m = 17;
    c.n = 33;
    c.k = 34;
    add(c, name + ": m 17, n 33, k 34: canary padding ignored, partial fractals don't-care");
    c.m = 1;
    c.k = 98;
    add(c, name + ": m = 1 is GEMV: A a contiguous vector");
    c.disableGemv = true;
    add(c, name + ": m = 1 with disableGemv");
    c.disableGemv = false;
    c.m = 32;
    c.k = 256;
    c.loA = binadesOf(a).first;
    c.loB = binadesOf(b).first;
    c.widthA = c.widthB = 3;
    c.init = MmadInit::Zero;
    add(c, name + ": subnormal windows on both sides, exact in f32");
    c.loA = binadesOf(a).second - 2;
    add(c, name + ": A in its top binades (max finite), B subnormal");
  }
  LowMmadCase h;
  h.hif8Mode = true;
  h.k = 96;
  h.loA = h.loB = -2;
  h.widthA = h.widthB = 5;
  h.init = MmadInit::Accumulate;
  add(h, "CTRL[45] = 1: fp8_e4m3fn x fp8_e4m3fn read as hif8 x hif8");
  // hif8 x hif8 under CTRL[45] is OPEN-16 (inferred unaffected): never certified here.
  h.bType = DType::Fp8E5M2;
  h.loA = h.loB = 0;
  h.widthA = h.widthB = 4;
  add(h, "CTRL[45] = 1 with a mixed pair: no effect (spec 8.1.5)");
  LowMmadCase big;
  big.k = 4095;
  big.n = 16;
  big.loA = big.loB = 0;
  big.widthA = big.widthB = 2;  // 12 + 5 + 5 <= 23
  add(big, "fp8_e4m3fn x fp8_e4m3fn with k 4095, its maximum");
  return t;
}

rc::Gen<LowMmadCase> legalLowMmad(LowValues values, Sizes sizes) {
  return rc::gen::exec([values, sizes] {
    const isa::Profile& prof = isa::profile(k950);
    LowMmadCase c;
    c.values = values;
    const auto pairs = lowPrecisionPairs();
    const auto [a, b] = pairs[*rc::gen::inRange<std::size_t>(0, pairs.size())];
    c.aType = a;
    c.bType = b;
    // CTRL[45] = 1 only where spec 8.1.5 documents its effect: e4m3 x e4m3 and the mixed pairs
    // (hif8 x hif8 under it is OPEN-16, not certified).
    c.hif8Mode = a != DType::HiF8 && *rc::gen::weightedElement<bool>({{4, false}, {1, true}});
    // Sizes class by class up to what the buffers hold (all five pairs are 8-bit, so the s8
    // figures of dense Mmad apply), then fitted: the dimension drawn nearest its largest value
    // keeps it and the others halve.
    const std::uint64_t mMax = mmadLargest(k950, 'm'), nMax = mmadLargest(k950, 'n'),
                        kMax = mmadLargest(k950, 'k');
    c.m = static_cast<std::uint16_t>(*sized(mMax, 128, sizes));
    c.n = static_cast<std::uint16_t>(*sized(nMax, 128, sizes));
    c.k = static_cast<std::uint16_t>(*sized(kMax, 256, sizes));
    c.disableGemv = c.m == 1 && *rc::gen::arbitrary<bool>();
    c.unitFlag = *rc::gen::element<std::uint8_t>(0, 2, 3);
    auto fits = [&] {
      const isa::Mmad x = lowMmadOf(c);
      return aBytesOf(k950, x) <= prof.capacityOf(Memory::L0A) &&
             bBytesOf(x) <= prof.capacityOf(Memory::L0B) &&
             isa::mmadCBytes(x) <= prof.capacityOf(Memory::L0C);
    };
    fitAroundLead({&c.m, &c.n, &c.k}, {mMax, nMax, kMax}, {1, 1, 1}, fits, [] {});
    if (values == LowValues::Exact) {
      // Windows sized by the budget derived in lowOperandsOf: (wA + 3) + (wB + 3) <= 23 - log2 k.
      const int budget = 23 - log2Ceil(c.k) - 6;
      c.widthA = static_cast<int>(*rc::gen::inRange(1, budget));
      c.widthB = static_cast<int>(*rc::gen::inRange(1, budget - c.widthA + 1));
      auto lo = [](DType t, int w) {
        const auto [first, last] = binadesOf(t);
        // Subnormal and top windows at the edges, anything in between otherwise.
        return *rc::gen::weightedOneOf<int>({{1, rc::gen::just(first)},
                                             {1, rc::gen::just(last - w + 1)},
                                             {3, rc::gen::inRange(first, last - w + 2)}});
      };
      c.loA = lo(effectiveA(c), c.widthA);
      c.loB = lo(effectiveB(c), c.widthB);
    }
    c.init = drawInit(prof, c.n);
    // The flags the init overrides, sent set about half the time (spec 8).
    c.ignoredSource =
        (c.init == MmadInit::Zero || c.init == MmadInit::BiasTensor) && *rc::gen::arbitrary<bool>();
    c.ignoredInitVal = c.init == MmadInit::BiasTensor && *rc::gen::arbitrary<bool>();
    const isa::Mmad x = lowMmadOf(c);
    c.aAddr = isa::kFractalBytes *
              *edgy(0, (prof.capacityOf(Memory::L0A) - aBytesOf(k950, x)) / isa::kFractalBytes);
    c.bAddr = isa::kFractalBytes *
              *edgy(0, (prof.capacityOf(Memory::L0B) - bBytesOf(x)) / isa::kFractalBytes);
    const std::uint64_t cBytes = std::max<std::uint64_t>(isa::mmadCBytes(x), 1024);
    c.cAddr = 1024 * *edgy(0, (prof.capacityOf(Memory::L0C) - cBytes) / 1024);
    c.biasAddr = drawBiasAddr(prof, c.n);
    c.contentSeed = *rc::gen::arbitrary<std::uint64_t>();
    return c;
  });
}

std::ostream& operator<<(std::ostream& os, const IllegalLowMmadCase& c) {
  return os << c.c << " instruction: " << isa::describe(c.mmad)
            << " expected_rejection=" << isa::nameOf(c.expected);
}

rc::Gen<IllegalLowMmadCase> illegalLowMmad() {
  return rc::gen::exec([] {
    IllegalLowMmadCase ic;
    ic.c = *legalLowMmad(LowValues::Exact);
    ic.mmad = lowMmadOf(ic.c);
    // Spec 8.1.2: every pair but the five is rejected, fp4 on plain Mmad included, and s4 is
    // gone from 950.
    const std::vector<std::pair<DType, DType>> bad{
        {DType::HiF8, DType::Fp8E4M3FN},  {DType::Fp8E4M3FN, DType::HiF8},
        {DType::HiF8, DType::Fp8E5M2},    {DType::Fp4E2M1, DType::Fp4E2M1},
        {DType::Fp4E1M2, DType::Fp4E2M1}, {DType::Fp4E2M1, DType::Fp8E4M3FN},
        {DType::F16, DType::Fp8E4M3FN},   {DType::Fp8E5M2, DType::S8},
        {DType::BF16, DType::F16},        {DType::S4, DType::S4}};
    const auto [a, b] = bad[*rc::gen::inRange<std::size_t>(0, bad.size())];
    ic.mmad.dtype = a;
    ic.mmad.bDtype = b == a ? std::nullopt : std::optional<DType>(b);
    // fp4 packs two elements a byte: an even k (one down from 4095, not past the limit).
    if (isa::bitsOf(a) == 4 && ic.mmad.k % 2 != 0) ic.mmad.k += ic.mmad.k < 4095 ? 1 : -1;
    ic.expected = isa::ViolationCode::DTypeUnsupported;
    return ic;
  });
}

}  // namespace cubecheck::gen
