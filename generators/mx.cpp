#include "generators/mx.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <ostream>
#include <stdexcept>
#include <tuple>

#include "generators/fill.hpp"
#include "generators/lowprec.hpp"
#include "generators/mmad.hpp"
#include "oracle/layout.hpp"
#include "oracle/lowprec.hpp"
#include "oracle/mmad.hpp"
#include "oracle/mx.hpp"
#include "oracle/operands.hpp"

namespace cubecheck::gen {

using isa::DType;
using isa::Memory;
using isa::MmadInit;
using oracle::ElemMatrix;
using oracle::MatrixD;

namespace {

constexpr isa::ProfileId k950 = isa::ProfileId::Ascend950;
constexpr int kUnitScale = 0x7F;  // E8M0 2^0

/// A draw in [lo, hi] from the content stream.
int drawIn(SplitMix64& g, int lo, int hi) {
  return lo + static_cast<int>(g.next() % static_cast<std::uint64_t>(hi - lo + 1));
}

bool isFp4(DType t) {
  return isa::bitsOf(t) == 4;
}

/// The sign bit of a code: bit 7 of a byte, bit 3 of an fp4 nibble.
std::uint32_t signBitOf(DType t) {
  return isFp4(t) ? 0x8 : 0x80;
}

/// Every code (fp4: nibble) of t with a finite value.
std::vector<std::uint32_t> finiteCodes(DType t, bool nonzero) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t c = 0; c < (isFp4(t) ? 16u : 256u); ++c) {
    const double v = oracle::lowPrecisionValue(t, static_cast<std::uint8_t>(c));
    if (std::isfinite(v) && (!nonzero || v != 0)) out.push_back(c);
  }
  return out;
}

/// Whether a finite code is normal: its exponent field (HiF8: its prefix D) is not all zeros
/// (spec 8.1.1; appendix A for HiF8, whose D = 0000 holds zero, NaN and the denormals).
bool isNormal(DType t, std::uint32_t code) {
  switch (t) {
    case DType::Fp8E4M3FN:
    case DType::HiF8:
      return (code & 0x78u) != 0;
    case DType::Fp8E5M2:
      return (code & 0x7Cu) != 0;
    case DType::Fp4E2M1:
      return (code & 0x6u) != 0;
    case DType::Fp4E1M2:
      return (code & 0x4u) != 0;
    default:
      throw std::logic_error("isNormal: not an MX element type");
  }
}

/// ceil(log2(M / q)) over the window's values: the significant bits a window spans.
int windowBits(DType t, int lo, int width) {
  int low = INT_MAX;
  double most = 0;
  for (std::uint8_t c : windowCodes(t, lo, width)) {
    const double v = oracle::lowPrecisionValue(t, c);
    low = std::min(low, oracle::lowestBitExponent(v));
    most = std::max(most, v);
  }
  return log2Ceil(static_cast<std::uint64_t>(most / std::ldexp(1.0, low)));
}

/// Scale codes 127 + e, e drawn in [lo, lo + span].
ElemMatrix scaleMatrix(Eigen::Index r, Eigen::Index c, SplitMix64& g, int lo, int span) {
  ElemMatrix s(r, c);
  for (Eigen::Index i = 0; i < s.size(); ++i) {
    s(i) = static_cast<std::uint32_t>(kUnitScale + drawIn(g, lo, lo + span));
  }
  return s;
}

}  // namespace

std::string_view nameOf(MxValues v) {
  switch (v) {
    case MxValues::DecodeProbe:
      return "decode_probe";
    case MxValues::ScaleProbe:
      return "scale_probe";
    case MxValues::Exact:
      return "exact";
    case MxValues::Bounded:
      return "bounded";
    case MxValues::EdgeScaleProbe:
      return "edge_scale_probe";
    case MxValues::HiF8ModeProbe:
      return "hif8_mode_probe";
  }
  return "?";
}

std::vector<std::pair<DType, DType>> mxPairs() {
  std::vector<std::pair<DType, DType>> out;
  for (auto family :
       {std::pair{DType::Fp8E4M3FN, DType::Fp8E5M2}, std::pair{DType::Fp4E2M1, DType::Fp4E1M2}}) {
    for (DType a : {family.first, family.second}) {
      for (DType b : {family.first, family.second}) out.emplace_back(a, b);
    }
  }
  return out;
}

std::ostream& operator<<(std::ostream& os, const MxCase& c) {
  std::string what = isa::describe(mmadMxOf(c)) + " values=" + std::string(nameOf(c.values));
  if (c.values != MxValues::Exact && c.values != MxValues::Bounded) {
    what += std::string(" probe_side=") + (c.probeA ? "a" : "b");
  }
  if (c.hif8Mode) what += " ctrl45=1";
  if (c.values == MxValues::Exact) {
    what += " window_a=" + std::to_string(c.loA) + "+" + std::to_string(c.widthA) +
            " window_b=" + std::to_string(c.loB) + "+" + std::to_string(c.widthB);
  }
  what += " scale_exp_a=" + std::to_string(c.scaleLoA) + "+" + std::to_string(c.scaleSpanA) +
          " scale_exp_b=" + std::to_string(c.scaleLoB) + "+" + std::to_string(c.scaleSpanB);
  return printCase(os, c.profile, what, c.contentSeed, c.why);
}

isa::MmadMx mmadMxOf(const MxCase& c) {
  isa::MmadMx x;
  x.dtype = c.aType;
  if (c.bType != c.aType) x.bDtype = c.bType;
  x.cAddr = c.cAddr;
  x.aAddr = c.aAddr;
  x.bAddr = c.bAddr;
  x.m = c.m;
  x.k = c.k;
  x.n = c.n;
  x.unitFlag = c.unitFlag;
  x.biasAddr = c.biasAddr;
  setInitFlags(x, c.init, c.ignoredInitVal, c.ignoredSource);
  return x;
}

MatrixD MxOperands::init(MmadInit mode) const {
  return initMatrix(mode, c0, bias);
}

MxOperands mxOperandsOf(const MxCase& c) {
  SplitMix64 g(subSeed(c.contentSeed, 300));
  const Eigen::Index m = c.m, k = c.k, n = c.n, blocks = c.k / oracle::kMxBlock;
  MxOperands o;
  o.aCodes = ElemMatrix::Zero(m, k);
  o.bCodes = ElemMatrix::Zero(k, n);
  o.aScales = ElemMatrix::Constant(m, blocks, kUnitScale);
  o.bScales = ElemMatrix::Constant(blocks, n, kUnitScale);
  if (m == 0 || k == 0 || n == 0) {
    // A zero dimension is a no-op (spec 8.1.2): no operand to fill, C keeps what L0C held.
    o.a = MatrixD::Zero(m, k);
    o.b = MatrixD::Zero(k, n);
    o.c0 = MatrixD::Zero(m, n);
    o.bias = MatrixD::Zero(1, n);
    return o;
  }
  auto fill = [&g](ElemMatrix& to, const std::vector<std::uint32_t>& from, double zeros) {
    for (Eigen::Index i = 0; i < to.size(); ++i) {
      const bool zero = static_cast<double>(g.next() % 1000) < 1000 * zeros;
      to(i) = zero ? 0u : from[g.next() % from.size()];
    }
  };
  switch (c.values) {
    case MxValues::DecodeProbe: {
      // 8.1.6.1: the selector holds one at kk == i mod k (A) or kk == j mod k (B); the other
      // operand enumerates code((i or j) + kk), NaN codes as +0; every scale 2^0.
      const DType probed = c.probeA ? c.aType : c.bType;
      const std::uint32_t one = oracle::lowPrecisionCode(c.probeA ? c.bType : c.aType, 1.0);
      const std::uint32_t codes = isFp4(probed) ? 16 : 256;
      auto code = [&](Eigen::Index idx) -> std::uint32_t {
        const auto cd = static_cast<std::uint32_t>(idx) % codes;
        const double v = oracle::lowPrecisionValue(probed, static_cast<std::uint8_t>(cd));
        return std::isfinite(v) ? cd : 0u;
      };
      for (Eigen::Index i = 0; i < m; ++i) {
        for (Eigen::Index kk = 0; kk < k; ++kk) {
          o.aCodes(i, kk) = c.probeA ? code(i + kk) : (kk == i % k ? one : 0u);
        }
      }
      for (Eigen::Index kk = 0; kk < k; ++kk) {
        for (Eigen::Index j = 0; j < n; ++j) {
          o.bCodes(kk, j) = c.probeA ? (kk == j % k ? one : 0u) : code(kk + j);
        }
      }
      break;
    }
    case MxValues::ScaleProbe: {
      // 8.1.6.2: one nonzero product per C element, 2^(delta + eps) dec dec, exact.
      const bool selectorA = !c.probeA;
      const std::uint32_t one = oracle::lowPrecisionCode(selectorA ? c.aType : c.bType, 1.0);
      const std::vector<std::uint32_t> values = finiteCodes(selectorA ? c.bType : c.aType, true);
      if (selectorA) {
        for (Eigen::Index i = 0; i < m; ++i) o.aCodes(i, i % k) = one;
        fill(o.bCodes, values, 0);
      } else {
        for (Eigen::Index j = 0; j < n; ++j) o.bCodes(j % k, j) = one;
        fill(o.aCodes, values, 0);
      }
      o.aScales = scaleMatrix(m, blocks, g, c.scaleLoA, c.scaleSpanA);
      o.bScales = scaleMatrix(blocks, n, g, c.scaleLoB, c.scaleSpanB);
      break;
    }
    case MxValues::Exact: {
      auto signedWindow = [](DType t, int lo, int width) {
        std::vector<std::uint32_t> out;
        for (std::uint8_t cd : windowCodes(t, lo, width)) {
          out.push_back(cd);
          out.push_back(cd | signBitOf(t));  // negatives: cancellation
        }
        if (out.empty()) throw std::logic_error("mxOperandsOf: empty window");
        return out;
      };
      fill(o.aCodes, signedWindow(c.aType, c.loA, c.widthA), 0.125);
      fill(o.bCodes, signedWindow(c.bType, c.loB, c.widthB), 0.125);
      // Never vacuous (spec 9): C(0, 0) moves.
      o.aCodes(0, 0) = windowCodes(c.aType, c.loA, c.widthA).front();
      o.bCodes(0, 0) = windowCodes(c.bType, c.loB, c.widthB).front();
      o.aScales = scaleMatrix(m, blocks, g, c.scaleLoA, c.scaleSpanA);
      o.bScales = scaleMatrix(blocks, n, g, c.scaleLoB, c.scaleSpanB);
      break;
    }
    case MxValues::EdgeScaleProbe: {
      // OPEN-18: the selector (A when probeA) has a one at kk % 32 == its row (column) % 32: one
      // product per K block and C element. In block 0 the selector's scales are 0x00 and the
      // data's 0xFE, 2^-127 * 2^127 = 1; in block 1 both are 0x7F. The data are normal codes
      // below 2 in magnitude, so every scaled value is finite in f32 and every product normal:
      // C = D(block 0) + D(block 1) when 0x00 is 2^-127, D(block 1) when it is zero, both exact
      // (two values of at most 4 significant bits within 2^-14..2^1) and never equal.
      const DType selector = c.probeA ? c.aType : c.bType, data = c.probeA ? c.bType : c.aType;
      const std::uint32_t one = oracle::lowPrecisionCode(selector, 1.0);
      std::vector<std::uint32_t> values;
      for (std::uint32_t cd : finiteCodes(data, true)) {
        const double v = oracle::lowPrecisionValue(data, static_cast<std::uint8_t>(cd));
        if (isNormal(data, cd) && std::fabs(v) < 2) values.push_back(cd);
      }
      if (c.probeA) {
        for (Eigen::Index i = 0; i < m; ++i) {
          for (Eigen::Index kk = i % oracle::kMxBlock; kk < k; kk += oracle::kMxBlock) {
            o.aCodes(i, kk) = one;
          }
          o.aScales(i, 0) = 0x00;
        }
        fill(o.bCodes, values, 0);
        o.bScales.row(0).setConstant(0xFE);
      } else {
        for (Eigen::Index j = 0; j < n; ++j) {
          for (Eigen::Index kk = j % oracle::kMxBlock; kk < k; kk += oracle::kMxBlock) {
            o.bCodes(kk, j) = one;
          }
          o.bScales(0, j) = 0x00;
        }
        fill(o.aCodes, values, 0);
        o.aScales.col(0).setConstant(0xFE);
      }
      break;
    }
    case MxValues::HiF8ModeProbe: {
      // OPEN-16: as the decode probe, the codes those of mxBothReadingCodes() (the selector's
      // one, e4m3 0x38, is HiF8 2^-3: normal under both too); every scale 0x7F.
      const std::vector<std::uint32_t> codes = mxBothReadingCodes();
      const std::uint32_t one = oracle::lowPrecisionCode(DType::Fp8E4M3FN, 1.0);
      auto code = [&](Eigen::Index idx) {
        return codes[static_cast<std::size_t>(idx) % codes.size()];
      };
      for (Eigen::Index i = 0; i < m; ++i) {
        for (Eigen::Index kk = 0; kk < k; ++kk) {
          o.aCodes(i, kk) = c.probeA ? code(i + kk) : (kk == i % k ? one : 0u);
        }
      }
      for (Eigen::Index kk = 0; kk < k; ++kk) {
        for (Eigen::Index j = 0; j < n; ++j) {
          o.bCodes(kk, j) = c.probeA ? (kk == j % k ? one : 0u) : code(kk + j);
        }
      }
      break;
    }
    case MxValues::Bounded:
      fill(o.aCodes, finiteCodes(c.aType, false), 0);
      fill(o.bCodes, finiteCodes(c.bType, false), 0);
      o.aCodes(0, 0) = oracle::lowPrecisionCode(c.aType, 1.0);
      o.bCodes(0, 0) = oracle::lowPrecisionCode(c.bType, 1.0);
      o.aScales = scaleMatrix(m, blocks, g, c.scaleLoA, c.scaleSpanA);
      o.bScales = scaleMatrix(blocks, n, g, c.scaleLoB, c.scaleSpanB);
      break;
  }
  o.a = oracle::mxScaled(oracle::valuesOf(o.aCodes, c.aType), o.aScales, false);
  o.b = oracle::mxScaled(oracle::valuesOf(o.bCodes, c.bType), o.bScales, true);
  o.c0 = MatrixD::Zero(m, n);
  o.bias = MatrixD::Zero(1, n);
  if (c.values == MxValues::Exact) {
    // Spec 8.1.6.3 with the MX adjustment, from the scaled values emitted: every scaled A value
    // is a multiple of qA with |a| <= MA (q and M already carry the smallest and largest
    // scale), likewise B; the init a multiple of Q = qA qB with |init| <= I. When
    // I + k MA MB <= 2^24 Q, 2^-126 <= Q and 2^24 Q <= 2^127, every partial sum in any order
    // and any blocking is n Q with |n| <= 2^24: exact in f32 (appendix B).
    const ExactRegime x = exactRegime(o.a, o.b, g);
    std::tie(o.qA, o.mA, o.qB, o.mB, o.initMax) = std::tie(x.qA, x.mA, x.qB, x.mB, x.initMax);
    o.c0 = x.c0;
    o.bias = x.bias;
  } else if (c.values == MxValues::Bounded) {
    auto smallF32 = [&](Eigen::Index, Eigen::Index) {
      const double v =
          std::ldexp(static_cast<double>(drawIn(g, -(1 << 23), 1 << 23)), drawIn(g, -20, 0));
      return static_cast<double>(static_cast<float>(v));
    };
    o.c0 = MatrixD::NullaryExpr(m, n, smallF32);
    o.bias = MatrixD::NullaryExpr(1, n, smallF32);
  }
  return o;
}

namespace {

/// A (Nz) and B (Zn) with the canary of spec 8.1.3 in rows beyond m and columns beyond n (k has
/// no padding: k % 64 == 0; for fp4 one nibble of it per element), and the scales in L0A_MX and
/// L0B_MX at the operand's address / 16 (spec 8.1.4), unit scales in padding rows, the rest of
/// each buffer random bytes.
void addOperandSegments(isa::Program& p, const MxCase& c, const MxOperands& o) {
  const isa::Profile& prof = isa::profile(c.profile);
  // Where A and B go, as the oracle states it (spec 8.1.3: Nz and Zn with C0 = 32 for fp8, 64
  // for fp4, two fp4 elements a byte, element 2j in the low nibble).
  const isa::Mmad plain = isa::operandsOf(mmadMxOf(c));
  const oracle::OperandLayout aAt = oracle::mmadA(c.profile, plain), bAt = oracle::mmadB(plain);
  const std::uint8_t canA = canaryOf(c.aType), canB = canaryOf(c.bType);
  ElemMatrix a =
      ElemMatrix::Constant(static_cast<Eigen::Index>(aAt.rows), static_cast<Eigen::Index>(aAt.cols),
                           isFp4(c.aType) ? canA & 0xFu : canA);
  a.topLeftCorner(c.m, c.k) = o.aCodes;
  p.segments.push_back({Memory::L0A, c.aAddr, oracle::encode(a, aAt.layout, c.aType, canA)});
  ElemMatrix b =
      ElemMatrix::Constant(static_cast<Eigen::Index>(bAt.rows), static_cast<Eigen::Index>(bAt.cols),
                           isFp4(c.bType) ? canB & 0xFu : canB);
  b.topLeftCorner(c.k, c.n) = o.bCodes;
  p.segments.push_back({Memory::L0B, c.bAddr, oracle::encode(b, bAt.layout, c.bType, canB)});
  for (auto [mem, at, image, seed] :
       {std::tuple{Memory::L0AMx, c.aAddr / 16, oracle::mxScaleImage(o.aScales, false, kUnitScale),
                   std::uint64_t{5}},
        std::tuple{Memory::L0BMx, c.bAddr / 16, oracle::mxScaleImage(o.bScales, true, kUnitScale),
                   std::uint64_t{6}}}) {
    isa::Segment s = filled(mem, 0, prof.capacityOf(mem), subSeed(c.contentSeed, seed));
    std::copy(image.begin(), image.end(), s.bytes.begin() + static_cast<std::ptrdiff_t>(at));
    p.segments.push_back(std::move(s));
  }
}

}  // namespace

isa::Program buildProgram(const MxCase& c) {
  const isa::MmadMx x = mmadMxOf(c);
  const MxOperands o = mxOperandsOf(c);
  isa::Program p;
  p.profile = c.profile;
  // A zero dimension is a no-op that reads nothing (spec 8.1.2): as for plain Mmad, only L0C is
  // given, and it must keep its bytes.
  const bool noOp = c.m == 0 || c.k == 0 || c.n == 0;
  if (!noOp) addOperandSegments(p, c, o);
  const isa::Mmad plain = isa::operandsOf(x);
  const auto [lo, hi] = addInitSegments(p, c.init, c.init == MmadInit::Accumulate && !noOp, c.cAddr,
                                        std::max<std::uint64_t>(isa::mmadCBytes(plain), 1024),
                                        c.biasAddr, oracle::bitsOf(o.c0, DType::F32),
                                        oracle::bitsOf(o.bias, DType::F32), c.contentSeed);
  // Spec 8.1.5: CTRL[45] is pinned in every case, 0 but in the probe of its effect on MmadMx
  // (OPEN-16).
  p.instructions.emplace_back(isa::SetHiF8Mode{c.hif8Mode});
  p.instructions.emplace_back(x);
  p.observe = {{Memory::L0C, lo, hi - lo}};
  return p;
}

ElemMatrix expectedC(const MxCase& c, const MxOperands& o) {
  if (c.m == 0 || c.k == 0 || c.n == 0) return {};  // a no-op: C is not written
  // Spec 8.1.5: the exact sum rounded once to f32 (every scaled product is exact in double, and
  // in the regimes certified exactly every partial sum too).
  return oracle::mmadResult(DType::F32, o.a, o.b, o.init(c.init));
}

std::vector<std::string> tagsOf(const MxCase& c) {
  std::vector<std::string> t{"pair:" + pairName(c.aType, c.bType),
                             "init:" + std::string(isa::nameOf(c.init)),
                             "values:" + std::string(nameOf(c.values))};
  if (c.m == 0 || c.k == 0 || c.n == 0) {
    t.emplace_back("zero_dimension");
    return t;
  }
  t.push_back(initFlagsTag(mmadMxOf(c)));
  if (c.values == MxValues::DecodeProbe) {
    t.emplace_back("decode:" + std::string(isa::nameOf(c.probeA ? c.aType : c.bType)) +
                   (c.probeA ? ":a" : ":b"));
  }
  if (c.values == MxValues::ScaleProbe) {
    t.emplace_back(std::string("scale:selector_") + (c.probeA ? "b" : "a"));
  }
  if (c.scaleSpanA > 0 || c.scaleSpanB > 0) t.emplace_back("scale:varied");
  if (c.m % 16 != 0) t.emplace_back("m:partial_fractal");
  if (c.n % 16 != 0) t.emplace_back("n:partial_fractal");
  if (c.k >= 128) t.emplace_back("k:several_scale_fractals");
  t.push_back(sizeBin("k", c.k, 4032));
  return t;
}

std::vector<MxCase> mxDecodeProbes() {
  std::vector<MxCase> t;
  std::uint64_t seed = 0x30D;
  // Each format probed on each side, the selector the other format of its width: the four mixed
  // pairs, both orders.
  for (bool probeA : {false, true}) {
    for (auto [probed, selector] :
         {std::pair{DType::Fp8E4M3FN, DType::Fp8E5M2}, std::pair{DType::Fp8E5M2, DType::Fp8E4M3FN},
          std::pair{DType::Fp4E2M1, DType::Fp4E1M2}, std::pair{DType::Fp4E1M2, DType::Fp4E2M1}}) {
      MxCase c;
      c.aType = probeA ? probed : selector;
      c.bType = probeA ? selector : probed;
      c.values = MxValues::DecodeProbe;
      c.probeA = probeA;
      c.m = c.k = isFp4(probed) ? 64 : 256;  // fp4: 16 codes four times; fp8: every code
      c.n = 16;
      c.contentSeed = seed++;
      c.why = "decode probe, every finite code of " + std::string(isa::nameOf(probed)) + " on " +
              (probeA ? "A" : "B") + ", every scale 0x7F";
      t.push_back(c);
    }
  }
  return t;
}

std::vector<MxCase> mxScaleProbes() {
  std::vector<MxCase> t;
  std::uint64_t seed = 0x35C;
  for (auto [a, b] : mxPairs()) {
    for (bool probeA : {false, true}) {
      MxCase c;
      c.aType = a;
      c.bType = b;
      c.values = MxValues::ScaleProbe;
      c.probeA = probeA;
      // Two scale fractals along K (k / 64 = 2: the row stride is seen) and several along M and
      // N; the selector's side is k long so that every K block is selected.
      c.k = 128;
      c.m = probeA ? 48 : 128;
      c.n = probeA ? 128 : 48;
      c.scaleLoA = c.scaleLoB = -8;
      c.scaleSpanA = c.scaleSpanB = 16;  // |delta|, |eps| <= 8 (spec 8.1.6.2)
      c.aAddr = 1024;
      c.bAddr = 2048;
      c.cAddr = 4096;
      c.contentSeed = seed++;
      c.why = "scale probe, " + pairName(a, b) + ", selector on " + (probeA ? "B" : "A") +
              ": scales 0x7F +- 8, C = 2^(delta + eps) dec dec";
      t.push_back(c);
    }
  }
  return t;
}

std::vector<MxCase> mxBoundaries() {
  std::vector<MxCase> t;
  std::uint64_t seed = 0x3E0;
  auto add = [&](MxCase c, std::string why) {
    c.contentSeed = seed++;
    c.why = std::move(why);
    t.push_back(std::move(c));
  };
  std::size_t pairIndex = 0;
  for (auto [a, b] : mxPairs()) {
    const std::string name = pairName(a, b);
    const std::size_t i = pairIndex++;
    MxCase c;
    c.aType = a;
    c.bType = b;
    // fp8: 1 to 3.75 (5 significant bits); fp4: the whole format (e2m1 spans 4 bits, e1m2 3).
    c.loA = isFp4(a) ? binadesOf(a).first : 0;
    c.widthA = isFp4(a) ? binadesOf(a).second - binadesOf(a).first + 1 : 2;
    c.loB = isFp4(b) ? binadesOf(b).first : 0;
    c.widthB = isFp4(b) ? binadesOf(b).second - binadesOf(b).first + 1 : 2;
    c.scaleLoA = c.scaleLoB = -1;
    c.scaleSpanA = c.scaleSpanB = 2;  // the vendor samples' 127..129, one lower
    add(c, name + ": 16 x 64 x 16 from zero, scales 2^-1..2^1");
    if (i % 2 == 1) {
      MxCase e = c;
      e.ignoredSource = true;
      add(e, name + ": cmatrix_init_val overrides cmatrix_source: still from zero");
    }
    c.init = MmadInit::Accumulate;
    c.m = 17;
    c.n = 33;
    c.k = 128;
    add(c, name + ": 17 x 128 x 33 onto L0C: partial fractals don't-care, two scale fractals");
    c.init = MmadInit::BiasTensor;
    c.biasAddr = 128;
    c.m = 32;
    c.n = 16;
    c.k = 192;
    add(c, name + ": f32 bias tensor at bias-table address 128, k / 64 = 3");
    // Spec 8: is_bias takes the tensor whatever the other two flags say (the table row at 0,
    // cmatrix_source's, differs from the tensor at 128); the pairs take the three in turn.
    MxCase e = c;
    e.ignoredInitVal = i % 3 != 1;
    e.ignoredSource = i % 3 != 0;
    add(e, name + ": " + biasWinsWhy(e.ignoredInitVal, e.ignoredSource));
  }
  MxCase bt;
  bt.init = MmadInit::BiasTable;
  bt.loA = bt.loB = 0;
  bt.widthA = bt.widthB = 3;
  add(bt, "fp8_e4m3fn: cmatrix_source from the bias table (OPEN-6: address 0)");
  for (DType t4 : {DType::Fp8E5M2, DType::Fp4E2M1}) {
    MxCase big;
    big.aType = big.bType = t4;
    big.k = 4032;  // the largest multiple of 64 below 4096
    big.n = 16;
    big.loA = big.loB = isFp4(t4) ? -1 : 0;
    big.widthA = big.widthB = isFp4(t4) ? 4 : 1;
    big.scaleSpanA = big.scaleSpanB = 1;
    add(big, std::string(isa::nameOf(t4)) + ": k 4032, the largest legal MX k");
  }
  // Spec 8.1.2: a zero m, k or n is a no-op, whatever the init: L0C keeps every byte (k = 0 from
  // zero does not clear C), and nothing is read (no operand, scale or bias is given).
  MxCase z;
  z.aType = z.bType = DType::Fp4E2M1;
  z.init = MmadInit::Accumulate;
  z.m = 0;
  add(z, "no-op: m = 0 onto L0C");
  z.aType = z.bType = DType::Fp8E4M3FN;
  z.init = MmadInit::Zero;
  z.m = 16;
  z.k = 0;
  add(z, "no-op: k = 0 from zero: C is not cleared");
  z.aType = DType::Fp8E5M2;
  z.init = MmadInit::BiasTensor;
  z.biasAddr = 64;
  z.k = 64;
  z.n = 0;
  add(z, "no-op: n = 0 with a bias tensor");
  return t;
}

std::vector<MxCase> mxEdgeScaleProbes() {
  std::vector<MxCase> t;
  std::uint64_t seed = 0x318;
  for (auto [a, b] : mxPairs()) {
    for (bool probeA : {true, false}) {
      MxCase c;
      c.aType = a;
      c.bType = b;
      c.values = MxValues::EdgeScaleProbe;
      c.probeA = probeA;
      // Two K blocks; the selector's side 32 long, so that each of its ones meets a data row
      // (column) of its own.
      c.k = 64;
      c.m = probeA ? 32 : 16;
      c.n = probeA ? 16 : 32;
      c.contentSeed = seed++;
      c.why = "OPEN-18: " + pairName(a, b) + ", E8M0 0x00 on " + (probeA ? "A" : "B") +
              "'s first K block against 0xFE on " + (probeA ? "B" : "A") + "'s: 2^-127 or zero";
      t.push_back(c);
    }
  }
  return t;
}

std::vector<std::uint32_t> mxBothReadingCodes() {
  std::vector<std::uint32_t> out;
  for (std::uint32_t cd : finiteCodes(DType::Fp8E4M3FN, true)) {
    const auto code = static_cast<std::uint8_t>(cd);
    const double e4m3 = oracle::lowPrecisionValue(DType::Fp8E4M3FN, code);
    const double hif8 = oracle::lowPrecisionValue(DType::HiF8, code);
    if (std::isfinite(hif8) && hif8 != 0 && isNormal(DType::Fp8E4M3FN, cd) &&
        isNormal(DType::HiF8, cd) && hif8 != e4m3) {
      out.push_back(cd);
    }
  }
  return out;
}

std::vector<MxCase> mxHiF8ModeProbes() {
  std::vector<MxCase> t;
  std::uint64_t seed = 0x316;
  for (bool probeA : {false, true}) {
    MxCase c;
    c.values = MxValues::HiF8ModeProbe;
    c.hif8Mode = true;
    c.probeA = probeA;
    c.m = c.k = 256;  // every code of the list at least once
    c.n = 16;
    c.contentSeed = seed++;
    c.why = std::string("OPEN-16: fp8_e4m3fn x fp8_e4m3fn with CTRL[45] = 1, codes on ") +
            (probeA ? "A" : "B") + " that decode differently as HiF8";
    t.push_back(c);
  }
  return t;
}

rc::Gen<MxCase> legalMmadMx(MxValues values, Sizes sizes, bool allowNoOp) {
  return rc::gen::exec([values, sizes, allowNoOp] {
    const isa::Profile& prof = isa::profile(k950);
    MxCase c;
    c.values = values;
    // Uniform over the pairs, whatever the size (rc::gen::elementOf does not scale with it).
    // Not a structured binding: the lambdas below capture a and b, which clang (the libFuzzer
    // build) refuses for bindings before C++20's later revision.
    const std::pair<DType, DType> pair = *rc::gen::elementOf(mxPairs());
    const DType a = pair.first, b = pair.second;
    c.aType = a;
    c.bType = b;
    // Sizes as for 8-bit Mmad (fp4 takes half the bytes, so these fit too), k in whole 64s.
    const std::uint64_t mMax = mmadLargest(k950, 'm'), nMax = mmadLargest(k950, 'n'),
                        kMax = mmadLargest(k950, 'k') / 64 * 64;
    auto settle = [&c] { c.k = static_cast<std::uint16_t>(std::max(64, c.k / 64 * 64)); };
    c.m = static_cast<std::uint16_t>(std::max<std::uint64_t>(2, *sized(mMax, 128, sizes)));
    c.n = static_cast<std::uint16_t>(*sized(nMax, 128, sizes));
    c.k = static_cast<std::uint16_t>(*sized(kMax, 256, sizes));
    settle();
    auto fits = [&] {
      const isa::Mmad x = isa::operandsOf(mmadMxOf(c));
      return aBytesOf(k950, x) <= prof.capacityOf(Memory::L0A) &&
             bBytesOf(x) <= prof.capacityOf(Memory::L0B) &&
             isa::mmadCBytes(x) <= prof.capacityOf(Memory::L0C);
    };
    // m >= 2: MX GEMV (m = 1) is not certified (OPEN-19).
    fitAroundLead({&c.m, &c.n, &c.k}, {mMax, nMax, kMax}, {2, 1, 64}, fits, settle);
    // A zero dimension is a no-op (spec 8.1.2), one case in 30 where asked, as for plain Mmad.
    if (allowNoOp && *rc::gen::weightedElement<bool>({{29, false}, {1, true}})) {
      *std::array{&c.m, &c.k, &c.n}[*rc::gen::inRange<std::size_t>(0, 3)] = 0;
    }
    if (values == MxValues::Exact) {
      auto window = [](DType t) {
        const auto [first, last] = binadesOf(t);
        const int w = *rc::gen::inRange(1, last - first + 2);
        // Subnormal and top windows at the edges, anything in between otherwise.
        const int lo = *rc::gen::weightedOneOf<int>({{1, rc::gen::just(first)},
                                                     {1, rc::gen::just(last - w + 1)},
                                                     {3, rc::gen::inRange(first, last - w + 2)}});
        return std::pair{lo, w};
      };
      std::tie(c.loA, c.widthA) = window(a);
      std::tie(c.loB, c.widthB) = window(b);
      // The budget of 8.1.6.3: log2 k + bits(A window) + span(A scales) + the same for B <= 23,
      // leaving half of 2^24 Q to the init. Windows narrow from the top until they fit.
      auto bitsNow = [&] {
        return log2Ceil(c.k) + windowBits(a, c.loA, c.widthA) + windowBits(b, c.loB, c.widthB);
      };
      while (bitsNow() > 23) (c.widthA >= c.widthB ? c.widthA : c.widthB) -= 1;
      const int room = std::min(23 - bitsNow(), 6);
      c.scaleSpanA = *rc::gen::inRange(0, room + 1);
      c.scaleSpanB = *rc::gen::inRange(0, room - c.scaleSpanA + 1);
      c.scaleLoA = *rc::gen::inRange(-4, 5);
      c.scaleLoB = *rc::gen::inRange(-4, 5);
    } else if (values == MxValues::Bounded) {
      c.scaleLoA = c.scaleLoB = -4;
      c.scaleSpanA = c.scaleSpanB = 8;
    }
    c.init = drawInit(prof, c.n);
    // The flags the init overrides, sent set about half the time (spec 8).
    c.ignoredSource =
        (c.init == MmadInit::Zero || c.init == MmadInit::BiasTensor) && *rc::gen::arbitrary<bool>();
    c.ignoredInitVal = c.init == MmadInit::BiasTensor && *rc::gen::arbitrary<bool>();
    c.unitFlag = *rc::gen::elementOf(std::vector<std::uint8_t>{0, 0, 2, 3});
    const isa::MmadMx mx = mmadMxOf(c);
    const isa::Mmad x = isa::operandsOf(mx);
    const std::uint64_t alignA = isa::mxOperandAlignment(a), alignB = isa::mxOperandAlignment(b);
    c.aAddr = alignA * *edgy(0, (prof.capacityOf(Memory::L0A) - aBytesOf(k950, x)) / alignA);
    c.bAddr = alignB * *edgy(0, (prof.capacityOf(Memory::L0B) - bBytesOf(x)) / alignB);
    const std::uint64_t cBytes = std::max<std::uint64_t>(isa::mmadCBytes(x), 1024);
    c.cAddr = 1024 * *edgy(0, (prof.capacityOf(Memory::L0C) - cBytes) / 1024);
    c.biasAddr = drawBiasAddr(prof, c.n);
    c.contentSeed = *rc::gen::arbitrary<std::uint64_t>();
    return c;
  });
}

std::ostream& operator<<(std::ostream& os, const IllegalMxCase& c) {
  return os << c.c << " instruction: " << isa::describe(c.mmad)
            << " expected_rejection=" << isa::nameOf(c.expected);
}

rc::Gen<IllegalMxCase> illegalMmadMx() {
  return rc::gen::exec([] {
    IllegalMxCase ic;
    ic.c = *legalMmadMx(MxValues::Exact, Sizes::Small);
    ic.mmad = mmadMxOf(ic.c);
    const isa::Profile& prof = isa::profile(k950);
    const isa::Mmad plain = isa::operandsOf(ic.mmad);
    // An operand moved off its alignment (spec 8.1.2: fp8 1024 B, fp4 512 B) by half of it, down
    // when it can, else up when the footprint still fits: only the alignment rule breaks.
    auto misaligned = [&](std::uint64_t addr, DType t, std::uint64_t bytes,
                          Memory mem) -> std::optional<std::uint64_t> {
      const std::uint64_t half = isa::mxOperandAlignment(t) / 2;
      if (addr >= half) return addr - half;
      if (addr + half + bytes <= prof.capacityOf(mem)) return addr + half;
      return std::nullopt;
    };
    const auto offA = misaligned(ic.mmad.aAddr, ic.c.aType, aBytesOf(k950, plain), Memory::L0A);
    const auto offB = misaligned(ic.mmad.bAddr, ic.c.bType, bBytesOf(plain), Memory::L0B);
    const int rule = *rc::gen::elementOf(std::vector<int>{0, 1, 2, 3, 4, 5});
    switch (rule) {
      case 0:  // spec 8.1.2: k % 64 == 0 (OPEN-20 for any other k)
        ic.mmad.k = static_cast<std::uint16_t>(ic.mmad.k - 32);
        ic.expected = isa::ViolationCode::Range;
        break;
      case 1:  // HiF8 exists on plain Mmad only
        ic.mmad.dtype = DType::HiF8;
        ic.mmad.bDtype.reset();
        ic.expected = isa::ViolationCode::DTypeUnsupported;
        break;
      case 2: {  // an fp8 x fp4 or integer pair
        const std::vector<std::pair<DType, DType>> bad{{DType::Fp8E4M3FN, DType::Fp4E2M1},
                                                       {DType::Fp4E1M2, DType::Fp8E5M2},
                                                       {DType::S8, DType::S8},
                                                       {DType::F16, DType::F16}};
        const auto [x, y] = *rc::gen::elementOf(bad);
        ic.mmad.dtype = x;
        ic.mmad.bDtype = x == y ? std::nullopt : std::optional<DType>(y);
        ic.expected = isa::ViolationCode::DTypeUnsupported;
        break;
      }
      case 3:  // C must be f32
        ic.mmad.cDtype = *rc::gen::element(DType::S32, DType::F16, DType::BF16);
        ic.expected = isa::ViolationCode::DTypeUnsupported;
        break;
      default:  // 4, 5: A or B off its alignment; k if neither can move
        if (rule == 4 && offA) {
          ic.mmad.aAddr = *offA;
        } else if (offB) {
          ic.mmad.bAddr = *offB;
        } else if (offA) {
          ic.mmad.aAddr = *offA;
        } else {
          ic.mmad.k = static_cast<std::uint16_t>(ic.mmad.k - 32);
          ic.expected = isa::ViolationCode::Range;
          break;
        }
        ic.expected = isa::ViolationCode::Alignment;
        break;
    }
    return ic;
  });
}

}  // namespace cubecheck::gen
