#include "generators/mmad.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <limits>
#include <map>
#include <ostream>
#include <set>
#include <tuple>

#include "generators/common.hpp"
#include "generators/fill.hpp"
#include "oracle/layout.hpp"
#include "oracle/operands.hpp"

namespace cubecheck::gen {

using isa::DType;
using isa::Memory;
using isa::MmadInit;
using isa::ProfileId;
using oracle::MatrixD;

namespace {

bool isInt(DType t) {
  return t == DType::S8 || t == DType::S4;
}

/// Uniform integer in [lo, hi] (a span of at most 2^32) from a uniform 32-bit word, by
/// multiply-shift: every value of the span is reached, none more than twice as often as another.
/// In 32 bits (the offset from lo is below the span), so that a loop of them vectorises.
std::int32_t uniform(std::uint32_t u, std::int32_t lo, std::int32_t hi) {
  const auto span = static_cast<std::uint64_t>(std::int64_t{hi} - lo + 1);
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(lo) +
                                   static_cast<std::uint32_t>((u * span) >> 32));
}

/// Uniform integer in [lo, hi] (a span of at most 2^16) from a uniform 16-bit word, by
/// multiply-shift as uniform does: every value of the span is reached, none more than twice as
/// often as another (exactly as often when the span is a power of two).
std::int32_t uniform16(std::uint16_t u, std::int32_t lo, std::int32_t hi) {
  const auto span = static_cast<std::uint32_t>(hi - lo + 1);
  return lo + static_cast<std::int32_t>((std::uint32_t{u} * span) >> 16);
}

/// An r x c matrix of draw(u), u a uniform Word (32 or 16 bits), in column-major order. Each
/// SplitMix64 step gives 64 / bits(Word) words, the lowest first; a last step's words past the
/// matrix are dropped. The operands are most of a case's values, and drawing them was most of the
/// cost of building it (a fifth of checking a largest skinny case, at two words a step). The
/// steps are taken a block at a time, then split into words, then the words drawn from, so that
/// the splitting and drawing loops vectorise.
template <typename Word, typename Matrix>
void fillWords(Matrix& m, Eigen::Index r, Eigen::Index c, SplitMix64& g, auto draw) {
  using Scalar = typename Matrix::Scalar;
  constexpr Eigen::Index kPerStep = 8 / sizeof(Word);
  m.resize(r, c);
  Scalar* const out = m.data();
  const Eigen::Index size = m.size();
  constexpr Eigen::Index kBlock = 256;  // steps: 2 KiB on the stack, their words 2 KiB more
  std::uint64_t steps[kBlock];
  Word words[kPerStep * kBlock];
  for (Eigen::Index i = 0; i < size;) {
    const Eigen::Index taken = std::min(kBlock, (size - i + kPerStep - 1) / kPerStep);
    g.nextBlock(steps, static_cast<std::size_t>(taken));
    for (Eigen::Index s = 0; s < taken; ++s) {
      for (Eigen::Index j = 0; j < kPerStep; ++j) {
        words[kPerStep * s + j] = static_cast<Word>(steps[s] >> (8 * sizeof(Word) * j));
      }
    }
    const Eigen::Index count = std::min(kPerStep * taken, size - i);
    Scalar* const to = out + i;
    for (Eigen::Index w = 0; w < count; ++w) to[w] = static_cast<Scalar>(draw(words[w]));
    i += count;
  }
}

/// Two 32-bit words a step: values that want more than 16 random bits.
template <typename Matrix>
void fill(Matrix& m, Eigen::Index r, Eigen::Index c, SplitMix64& g, auto draw) {
  fillWords<std::uint32_t>(m, r, c, g, draw);
}

/// Four 16-bit words a step: A and B of the exact regime, which hold at most 256 values each.
template <typename Matrix>
void fillShort(Matrix& m, Eigen::Index r, Eigen::Index c, SplitMix64& g, auto draw) {
  fillWords<std::uint16_t>(m, r, c, g, draw);
}

/// As fill, with a whole SplitMix64 step for each value: for the regime that wants more than 32
/// random bits.
template <typename Matrix>
void fillWide(Matrix& m, Eigen::Index r, Eigen::Index c, SplitMix64& g, auto draw) {
  m.resize(r, c);
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    m(i) = static_cast<typename Matrix::Scalar>(draw(g.next()));
  }
}

/// The values a type can hold exactly, after rounding a double to it.
double roundTo(double v, DType t) {
  return oracle::valuesOf(oracle::bitsOf(MatrixD(MatrixD::Constant(1, 1, v)), t), t)(0, 0);
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint64_t kSmallDim = 128;  // m and n classes Sizes::Small keeps
constexpr std::uint64_t kSmallK = 256;
constexpr std::uint16_t kSpecialRows = 8;  // the rows of A MmadValues::Special sets
constexpr int kScaledSpread = 4;  // MmadValues::Scaled: rows and columns scaled down this much

/// The special rows of MmadValues::Special over exact-regime operands. B's rows 0 and 1 are
/// 1 in odd columns and 0 in even ones, row 2 is 2^-60 (bf16, f32) or 0 (f16); the other rows
/// of A are 0 in columns 0-2, so the exact rows stay exact. Special rows hold their values in
/// columns 0-2 and 0 elsewhere, and start from a zero init, so a DUT that saturates every
/// product and one that saturates only the sum agree.
void setSpecialRows(const MmadCase& c, MmadOperands& o) {
  const Eigen::Index m = c.m, k = c.k, n = c.n;
  if (m == 0 || k == 0 || n == 0) return;
  // 2^-130 and 1.5 x 2^127 are bf16/f32 products, not f16 ones: the largest f16 product, 65504^2
  // < 2^32, and 4095 of them stay far below FLT_MAX.
  const bool wide = c.dtype != DType::F16;
  for (Eigen::Index r = 0; r < std::min<Eigen::Index>(k, 3); ++r) {
    for (Eigen::Index j = 0; j < n; ++j) {
      o.b(r, j) = r < 2 ? static_cast<double>(j % 2) : wide ? 0x1p-60 : 0.0;
    }
    o.a.col(r).setZero();
  }
  const Eigen::Index rows = std::min<Eigen::Index>(m, kSpecialRows);
  o.a.topRows(rows).setZero();
  o.c0.topRows(rows).setZero();
  auto put = [&](Eigen::Index i, Eigen::Index kk, double v) {
    if (i < m && kk < k) o.a(i, kk) = v;
  };
  // Subnormal inputs, summed to the smallest normal result in odd columns (0 in even ones): a
  // DUT that flushes subnormal inputs, or results at FLT_MIN, gives 0 there. No NaN input: it
  // may raise an execution error (spec 8), so conformance never draws one; NaN results come
  // from inf x 0 and inf - inf.
  if (wide) {
    put(0, 0, 0x1p-130);       // f32 and bf16 subnormals (bf16's are multiples of 2^-133)
    put(0, 1, 15 * 0x1p-130);  // 2^-130 + 15 x 2^-130 = 2^-126 = FLT_MIN
  } else {
    put(0, 0, 0x1p-24);         // f16's smallest subnormal ...
    put(0, 1, 1023 * 0x1p-24);  // ... and its largest: the sum is 2^-14, f16's smallest normal
  }
  put(1, 0, kInf);  // inf x 1 = +FLT_MAX, inf x 0 = 0
  put(2, 0, kInf);  // inf - inf: NaN, so 0
  put(2, 1, -kInf);
  put(3, 1, -kInf);  // -FLT_MAX in odd columns, 0 in even ones
  // Signed zeros: -0 products beside a +0 one (A(4, 2) times B(2, j) >= 0) and a +0 init: the
  // sum is +0 in any order (round to nearest), never -0.
  put(4, 0, -0.0);
  put(4, 1, -0.0);
  if (!wide) return;
  put(5, 2, 0x1p-70);  // 2^-70 * 2^-60 = 2^-130: a subnormal f32 result
  // Overflow from finite operands: two products of 1.5 x 2^127 (odd columns; 0 in even ones),
  // one sign per row. Their exact sum, 3 x 2^127, is past FLT_MAX by far more than half an ulp,
  // and so is every partial sum that holds both: any order, grouping or accumulator width
  // overflows, and saturation mode gives +FLT_MAX (row 6) or -FLT_MAX (row 7), never inf or 0.
  // Mixed signs are not drawn: 2^127-sized products of both signs make inf - inf inside an f32
  // accumulator in some orders and a finite sum in others (OPEN-7 leaves the order open).
  put(6, 0, 0x1.8p127);
  put(6, 1, 0x1.8p127);
  put(7, 0, -0x1.8p127);
  put(7, 1, -0x1.8p127);
}

/// MmadValues::ScatteredSpecials over exact-regime operands (see its comment), from `g`.
void scatterSpecials(const MmadCase& c, MmadOperands& o, SplitMix64& g) {
  const Eigen::Index m = c.m, k = c.k, n = c.n;
  if (m == 0 || k == 0 || n == 0) return;
  // A subnormal of the type, times any exact-regime value (a multiple of 2^-2 up to 8), is an
  // f32 without rounding, and so is the sum of two: f16 j 2^-24 (j < 2^10), bf16 j 2^-133
  // (j < 2^7), f32 j 2^-147 (j < 2^18: the product stays below 2^23 units of 2^-149).
  // HF32 rounds f32 inputs, and what it does to a subnormal is documented nowhere (a format of
  // 11 fraction bits holds none below 2^-137; a reading relative to the leading bit keeps them):
  // under HF32 the subnormal lines hold infinities too, so every reading agrees (OPEN-7).
  const bool hf32 = c.hf32 && c.dtype == DType::F32;
  const int unit = c.dtype == DType::F16 ? -24 : c.dtype == DType::BF16 ? -133 : -147;
  const std::uint64_t most = c.dtype == DType::F16    ? 1023
                             : c.dtype == DType::BF16 ? 127
                                                      : (1u << 18) - 1;
  auto subnormal = [&] {
    const double v = std::ldexp(static_cast<double>(1 + g.below(most)), unit);
    return (g.next() & 1) != 0 ? -v : v;
  };
  auto infinity = [&] { return (g.next() & 1) != 0 ? -kInf : kInf; };
  const bool bias = c.init == MmadInit::BiasTable || c.init == MmadInit::BiasTensor;
  // Row r of A (column r of B when `column`) zero but for one or two specials at random k.
  auto line = [&](Eigen::Index r, bool column, bool subnormals) {
    if (column) {
      o.b.col(r).setZero();
    } else {
      o.a.row(r).setZero();
    }
    const std::uint64_t count = 1 + g.below(2);
    for (std::uint64_t s = 0; s < count; ++s) {
      const auto kk = static_cast<Eigen::Index>(g.below(static_cast<std::uint64_t>(k)));
      (column ? o.b(kk, r) : o.a(r, kk)) = subnormals ? subnormal() : infinity();
    }
    if (!subnormals) return;
    // Their C elements from zero: an init beside them would round their sum.
    if (column) {
      o.c0.col(r).setZero();
      o.bias(0, r) = 0;
    } else {
      o.c0.row(r).setZero();
    }
  };
  const auto rowInf = static_cast<Eigen::Index>(g.below(static_cast<std::uint64_t>(m)));
  const auto colInf = static_cast<Eigen::Index>(g.below(static_cast<std::uint64_t>(n)));
  line(rowInf, false, false);
  line(colInf, true, false);
  // A bias reaches every row: a row of subnormals is then a row of infinities too.
  if (m > 1) {
    const auto r = static_cast<Eigen::Index>(
        (rowInf + 1 + static_cast<Eigen::Index>(g.below(static_cast<std::uint64_t>(m - 1)))) % m);
    line(r, false, !bias && !hf32);
  }
  if (n > 1) {
    const auto j = static_cast<Eigen::Index>(
        (colInf + 1 + static_cast<Eigen::Index>(g.below(static_cast<std::uint64_t>(n - 1)))) % n);
    line(j, true, !hf32);
  }
}

/// MmadValues::Scaled's operands (see scaledExponents for the case-wide exponents), from `g`.
/// A(i, kk) = alpha 2^ra(i), B(kk, j) = beta 2^rb(j), alpha and beta non-zero integers up to 32
/// (16 to 32 in row 0 of A and column 0 of B, positive, so that C(0, 0) moves), ra(0) = a - 2,
/// rb(0) = b - 2, the other rows and columns up to kScaledSpread places lower (rows all alike
/// under a bias init, which one column shares over every row). Every product of C(i, j) is then
/// an integer below 2^10 times u = 2^(ra(i) + rb(j)), its init an integer below 2^22 times u, so
/// every partial sum, in any order and grouping, is an integer below 2^23 times u. The draws
/// keep u between 2^-149 (f32's smallest subnormal) and 2^104 (2^24 u <= 2^128): every partial
/// sum is an f32 without rounding, and C is the same in every accumulation order. A and B hold
/// at most 6 significant bits above a unit of at least the type's smallest subnormal, below
/// 2^(a + 3) or 2^(b + 3) <= the type's largest power of two: exact in the type.
void scaledValues(const MmadCase& c, MmadOperands& o, SplitMix64& g) {
  const Eigen::Index m = c.m, k = c.k, n = c.n;
  const ScaledExponents x = scaledExponents(c);
  const bool bias = c.init == MmadInit::BiasTable || c.init == MmadInit::BiasTensor;
  auto spread = [&] { return static_cast<int>(g.below(std::uint64_t{kScaledSpread} + 1)); };
  std::vector<int> ra(static_cast<std::size_t>(m)), rb(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < m; ++i) ra[i] = x.a - 2 - (i == 0 || bias ? 0 : spread());
  for (Eigen::Index j = 0; j < n; ++j) rb[j] = x.b - 2 - (j == 0 ? 0 : spread());
  auto value = [&](bool lead, int unit) {
    if (lead) return std::ldexp(static_cast<double>(16 + g.below(17)), unit);
    const double v = std::ldexp(static_cast<double>(1 + g.below(32)), unit);
    return (g.next() & 1) != 0 ? -v : v;
  };
  // An integer of `bits` + 1 bits (magnitude in [2^bits, 2^(bits + 1))), any sign, times 2^unit.
  auto init = [&](int bits, int unit) {
    const auto top = std::uint64_t{1} << bits;
    const double v = std::ldexp(static_cast<double>(top + g.below(top)), unit);
    return (g.next() & 1) != 0 ? -v : v;
  };
  const int lead = x.init - (x.a + x.b - 4);  // the bits of C(0, 0)'s init, less one
  auto bits = [&](bool first) { return first ? lead : static_cast<int>(g.below(22)); };
  for (Eigen::Index i = 0; i < m; ++i) {
    for (Eigen::Index kk = 0; kk < k; ++kk) o.a(i, kk) = static_cast<float>(value(i == 0, ra[i]));
  }
  for (Eigen::Index j = 0; j < n; ++j) {
    for (Eigen::Index kk = 0; kk < k; ++kk) o.b(kk, j) = static_cast<float>(value(j == 0, rb[j]));
    for (Eigen::Index i = 0; i < m; ++i) o.c0(i, j) = init(bits(i == 0 && j == 0), ra[i] + rb[j]);
    o.bias(0, j) = init(bits(j == 0), x.a - 2 + rb[j]);
  }
}

}  // namespace

ScaledExponents scaledExponents(const MmadCase& c) {
  SplitMix64 g(subSeed(c.contentSeed, 101));
  // ra(0) = a - 2 and rb(0) = b - 2 are the units of A's row 0 and B's column 0 (see
  // scaledValues); the other rows and columns go kScaledSpread places lower. A unit must be at
  // least the type's smallest subnormal, and 2^(a + 3) (the largest |A|) at most its largest
  // power of two: 2^15 in f16, 2^127 in bf16 and f32. The product unit a + b - 4 - 2 spread
  // >= -149 and a + b - 4 <= 104 (see scaledValues).
  const int unitMin = c.dtype == DType::F16 ? -24 : c.dtype == DType::BF16 ? -133 : -149;
  const int hi = c.dtype == DType::F16 ? 12 : 124;
  const int lo = unitMin + 2 + kScaledSpread;
  const int sumLo = std::max(2 * lo, -145 + 2 * kScaledSpread), sumHi = std::min(2 * hi, 108);
  auto in = [&](int from, int to) {
    return from + static_cast<int>(g.below(static_cast<std::uint64_t>(to - from + 1)));
  };
  const int quarter = (hi - lo) / 4;
  ScaledExponents e;
  int bits = in(0, 21);  // C(0, 0)'s init has bits + 1 bits
  auto partner = [&](int v) { return in(std::max(lo, sumLo - v), std::min(hi, sumHi - v)); };
  auto split = [&](int sum) {
    e.a = in(std::max(lo, sum - hi), std::min(hi, sum - lo));
    e.b = sum - e.a;
  };
  // Six bands, alike: A or B large, A or B tiny, C tiny (subnormal inits: C(0, 0)'s when its
  // bits allow it), the init large.
  switch (g.below(6)) {
    case 0:
      e.a = in(hi - quarter, hi);
      e.b = partner(e.a);
      break;
    case 1:
      e.b = in(hi - quarter, hi);
      e.a = partner(e.b);
      break;
    case 2:
      e.a = in(lo, lo + quarter);
      e.b = partner(e.a);
      break;
    case 3:
      e.b = in(lo, lo + quarter);
      e.a = partner(e.b);
      break;
    case 4: {
      const int sum = in(sumLo, sumLo + 8);
      split(sum);
      bits = in(0, std::clamp(-123 - sum, 0, 21));  // (sum - 4) + bits + 1 <= -126: subnormal
      break;
    }
    default:
      split(in(std::max(sumLo, 20), std::min(sumHi, 70)));
  }
  e.init = e.a + e.b - 4 + bits;
  return e;
}

oracle::ElemMatrix padded(const oracle::MatrixF& values, DType t, Eigen::Index rows,
                          Eigen::Index cols, std::uint64_t seed) {
  // randomElements(rows, cols, t, seed) with the values over its top-left corner: element i of
  // the stream goes to element i (column-major), so the covered elements' draws are skipped.
  if (values.rows() == rows && values.cols() == cols) return oracle::bitsOf(values, t);
  oracle::ElemMatrix m(rows, cols);
  if (values.size() > 0) m.topLeftCorner(values.rows(), values.cols()) = oracle::bitsOf(values, t);
  const Eigen::Index covered = values.size() > 0 ? values.rows() : 0;
  const int bits = isa::bitsOf(t);
  const std::uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
  SplitMix64 g(seed);
  for (Eigen::Index j = 0; j < cols; ++j) {
    const Eigen::Index from = j < values.cols() ? covered : 0;
    g.skip(static_cast<std::uint64_t>(from));
    for (Eigen::Index i = from; i < rows; ++i)
      m(i, j) = static_cast<std::uint32_t>(g.next()) & mask;
  }
  return m;
}

std::string_view nameOf(MmadValues v) {
  switch (v) {
    case MmadValues::Exact:
      return "exact";
    case MmadValues::Bounded:
      return "bounded";
    case MmadValues::Saturate:
      return "saturate";
    case MmadValues::Subnormal:
      return "subnormal";
    case MmadValues::MaxFinite:
      return "max_finite";
    case MmadValues::Infinity:
      return "infinity";
    case MmadValues::SaturationProbe:
      return "saturation_probe";
    case MmadValues::Hf32Probe:
      return "hf32_probe";
    case MmadValues::Special:
      return "special";
    case MmadValues::RoundingProbe:
      return "rounding_probe";
    case MmadValues::ZeroSignProbe:
      return "zero_sign_probe";
    case MmadValues::ScatteredSpecials:
      return "scattered_specials";
    case MmadValues::Scaled:
      return "scaled";
  }
  return "?";
}

std::vector<DType> mmadDTypes(ProfileId profile) {
  std::vector<DType> t;
  for (DType d : {DType::S8, DType::S4, DType::F16, DType::BF16, DType::F32}) {
    if (isa::mmadHasDType(profile, d)) t.push_back(d);
  }
  return t;
}

std::ostream& operator<<(std::ostream& os, const MmadCase& c) {
  std::string what = isa::describe(mmadOf(c)) + " values=" + std::string(nameOf(c.values));
  if (c.hf32) what += " hf32_mode=" + std::to_string(c.hf32Mode);
  if (c.hif8Mode) what += " ctrl45=1";
  return printCase(os, c.profile, what, c.contentSeed, c.why);
}

std::uint64_t aBytesOf(ProfileId profile, const isa::Mmad& x) {
  return oracle::mmadA(profile, x).bytes(x.dtype);
}

std::uint64_t bBytesOf(const isa::Mmad& x) {
  return oracle::mmadB(x).bytes(isa::bTypeOf(x));
}

isa::Mmad mmadOf(const MmadCase& c) {
  isa::Mmad x;
  x.dtype = c.dtype;
  x.cAddr = c.cAddr;
  x.aAddr = c.aAddr;
  x.bAddr = c.bAddr;
  x.m = c.m;
  x.k = c.k;
  x.n = c.n;
  x.unitFlag = c.unitFlag;
  x.kDirectionAlign = c.kAlign;
  x.disableGemv = c.disableGemv;
  x.biasAddr = c.biasAddr;
  setInitFlags(x, c.init, c.ignoredInitVal, c.ignoredSource);
  return x;
}

std::string biasWinsWhy(bool ignoredInitVal, bool ignoredSource) {
  return std::string("is_bias with ") +
         (ignoredInitVal && ignoredSource ? "cmatrix_init_val and cmatrix_source"
          : ignoredInitVal                ? "cmatrix_init_val"
                                          : "cmatrix_source") +
         " set: the bias tensor still wins";
}

std::vector<std::string> initFlagsBins() {
  std::vector<std::string> bins;
  for (bool bias : {false, true}) {
    for (bool val : {false, true}) {
      for (bool src : {false, true}) {
        isa::Mmad x;
        x.isBias = bias;
        x.cmatrixInitVal = val;
        x.cmatrixSource = src;
        bins.push_back(initFlagsTag(x));
      }
    }
  }
  return bins;
}

MatrixD MmadOperands::init(MmadInit mode) const {
  return initMatrix(mode, c0, bias);
}

MmadInit drawInit(const isa::Profile& profile, std::uint64_t n) {
  if (4 * n > profile.capacityOf(Memory::BiasTable)) {
    return *rc::gen::element(MmadInit::Zero, MmadInit::Accumulate);
  }
  return *rc::gen::weightedElement<MmadInit>({{3, MmadInit::Zero},
                                              {3, MmadInit::Accumulate},
                                              {1, MmadInit::BiasTable},
                                              {2, MmadInit::BiasTensor}});
}

std::uint64_t drawBiasAddr(const isa::Profile& profile, std::uint64_t n) {
  const std::uint64_t table = profile.capacityOf(Memory::BiasTable);
  const std::uint64_t biasBytes = std::min<std::uint64_t>(4 * n, table);
  return 64 * *upTo(0, (table - biasBytes) / 64);
}

MatrixD initMatrix(MmadInit mode, const MatrixD& c0, const MatrixD& bias) {
  switch (mode) {
    case MmadInit::Zero:
      return MatrixD::Zero(c0.rows(), c0.cols());
    case MmadInit::Accumulate:
      return c0;
    default:
      return bias.replicate(c0.rows(), 1);
  }
}

MmadOperands operandsOf(const MmadCase& c) {
  SplitMix64 g(subSeed(c.contentSeed, 100));
  const Eigen::Index m = c.m, k = c.k, n = c.n;
  MmadOperands o;
  const std::int32_t lo = c.dtype == DType::S4 ? -8 : -128, hi = c.dtype == DType::S4 ? 7 : 127;
  // Exact floats: multiples of 2^-2 up to 8 in A and B (6 significant bits: exact in f16, bf16
  // and any HF32), init multiples of 2^-4 below 2^18. Every product is a multiple of 2^-4 below
  // 64 and every partial sum stays below 2^18 + 4095 * 64 < 2^20: 24 bits, exact in f32 whatever
  // the order of accumulation.
  auto exactF = [](std::uint16_t u) { return static_cast<float>(uniform16(u, -32, 32)) / 4; };
  auto exactInitF = [](std::uint32_t u) {
    return static_cast<double>(uniform(u, -(1 << 22), 1 << 22)) / 16;
  };
  auto exactI = [&](std::uint16_t u) { return static_cast<float>(uniform16(u, lo, hi)); };
  auto exactInitI = [](std::uint32_t u) {
    return static_cast<double>(uniform(u, -(1 << 30), 1 << 30));
  };
  const bool integer = isInt(c.dtype);
  if (integer) {
    fillShort(o.a, m, k, g, exactI);
    fillShort(o.b, k, n, g, exactI);
    fill(o.c0, m, n, g, exactInitI);
    fill(o.bias, 1, n, g, exactInitI);
  } else {
    fillShort(o.a, m, k, g, exactF);
    fillShort(o.b, k, n, g, exactF);
    fill(o.c0, m, n, g, exactInitF);
    fill(o.bias, 1, n, g, exactInitF);
  }
  switch (c.values) {
    case MmadValues::Exact:
      break;
    case MmadValues::Bounded: {
      // Uniform doubles of 53 random bits, then rounded: small magnitudes keep every
      // significant bit of their type, which 32 random bits would not give below 2^-7.
      auto bounded = [&](std::uint64_t x) {
        return roundTo(static_cast<double>(x >> 11) * 0x1p-53 * 4 - 2, c.dtype);
      };
      auto boundedInit = [](std::uint64_t x) {
        return static_cast<double>(
            static_cast<float>(static_cast<double>(x >> 11) * 0x1p-53 * 8 - 4));
      };
      fillWide(o.a, m, k, g, bounded);
      fillWide(o.b, k, n, g, bounded);
      fillWide(o.c0, m, n, g, boundedInit);
      fillWide(o.bias, 1, n, g, boundedInit);
      break;
    }
    case MmadValues::Saturate: {
      // All products one sign, init within 16 of the limit they run towards: every reading of
      // OPEN-7 saturates to the same value.
      const bool up = (g.next() & 1) != 0;
      const std::int32_t big = hi / 2 + 1;
      fill(o.a, m, k, g, [&](std::uint32_t u) { return static_cast<double>(uniform(u, big, hi)); });
      fill(o.b, k, n, g, [&](std::uint32_t u) {
        return static_cast<double>(up ? uniform(u, big, hi) : -uniform(u, big, hi));
      });
      auto edge = [up](std::uint32_t u) {
        return static_cast<double>(up ? INT32_MAX - uniform(u, 1, 15)
                                      : INT32_MIN + uniform(u, 1, 15));
      };
      fill(o.c0, m, n, g, edge);
      fill(o.bias, 1, n, g, edge);
      break;
    }
    case MmadValues::Subnormal:
      // f16 subnormals s * 2^-24 times integers up to 4: multiples of 2^-24 below 2^-12 per
      // product. With the init below 2^-10, every sum of 4095 stays below
      // 2^-10 + 4095 * 4092 * 2^-24 < 1 = 2^24 x 2^-24: exact in f32 (spec 8.1.6.3, condition 4).
      fill(o.a, m, k, g, [](std::uint32_t u) {
        return std::ldexp(static_cast<double>(uniform(u, -1023, 1023)), -24);
      });
      fill(o.b, k, n, g, [](std::uint32_t u) { return static_cast<double>(uniform(u, -4, 4)); });
      fill(o.c0, m, n, g, [](std::uint32_t u) {
        return std::ldexp(static_cast<double>(uniform(u, -(1 << 14), 1 << 14)), -24);
      });
      o.bias = o.c0.topRows(std::min<Eigen::Index>(1, m));
      if (o.bias.rows() == 0) o.bias = MatrixD::Zero(1, n);
      break;
    case MmadValues::MaxFinite:
      // Multiples of 32 up to 65504 times integers up to 2, the init multiples of 32 up to 2^18:
      // every sum of 4095 stays below 2^18 + 4095 * 65504 * 2 < 2^29 = 2^24 x 32, on a grid of
      // 32: exact in f32 (spec 8.1.6.3, condition 4).
      fill(o.a, m, k, g, [](std::uint32_t u) {
        // the top two bits pick, the other 30 give the multiple
        const std::uint32_t pick = u >> 30;
        return pick == 0   ? 65504.0
               : pick == 1 ? -65504.0
                           : 32.0 * static_cast<double>(uniform(u << 2, -2047, 2047));
      });
      fill(o.b, k, n, g, [](std::uint32_t u) { return static_cast<double>(uniform(u, -2, 2)); });
      fill(o.c0, m, n, g, [](std::uint32_t u) {
        return 32.0 * static_cast<double>(uniform(u, -(1 << 13), 1 << 13));
      });
      fill(o.bias, 1, n, g, [](std::uint32_t u) {
        return 32.0 * static_cast<double>(uniform(u, -(1 << 13), 1 << 13));
      });
      break;
    case MmadValues::Infinity:
      if (m > 0 && k > 0) {
        o.a(0, 0) = std::numeric_limits<double>::infinity();
        if (m > 1) o.a(1, 0) = -std::numeric_limits<double>::infinity();
        o.b.row(0).setOnes();  // never inf * 0
      }
      break;
    case MmadValues::SaturationProbe: {
      // OPEN-7's readings must give three different C. With hi = 127 (s8) or 7 (s4), k = 2h,
      // A all hi, B's column: h rows of +hi, then h - 1 rows of -hi, then one row of -1, so the
      // products in ascending k are h x (+hi^2), (h - 1) x (-hi^2), -hi. init = INT32_MAX -
      // floor(hi^2 / 2). The exact total is T = init + hi^2 - hi = INT32_MAX + ceil(hi^2 / 2) - hi
      // (INT32_MAX + 7938 for s8, + 18 for s4): above the limit.
      //  * saturate once at the end: INT32_MAX;
      //  * saturate every partial sum: the first sum init + hi^2 passes the limit and stays at
      //    INT32_MAX through the positive products, then falls to INT32_MAX - (h - 1) hi^2 - hi
      //    (>= INT32_MAX - 63 * 16129 - 127, far from INT32_MIN: no second saturation);
      //  * wrap around: T - 2^32 = INT32_MIN + ceil(hi^2 / 2) - hi - 1 (INT32_MIN + 7937 or + 17).
      // Three distinct values in every element (hi > 0), whatever h.
      o.a.setConstant(static_cast<double>(hi));
      for (Eigen::Index kk = 0; kk < k; ++kk) {
        o.b.row(kk).setConstant(static_cast<double>(kk < k / 2 ? hi : kk + 1 < k ? -hi : -1));
      }
      const double start = static_cast<double>(INT32_MAX - hi * hi / 2);
      o.c0.setConstant(start);
      o.bias.setConstant(start);
      break;
    }
    case MmadValues::Hf32Probe:
      // f32 values 1 + t * 2^-13 (scaled by 2^e): between HF32 steps for 10 or 11 fraction bits,
      // some exactly half-way; B small integers: every sum exact in f32.
      fill(o.a, m, k, g, [](std::uint32_t u) {
        // t from the low six bits, the sign from the seventh, the scale from the top ones
        const double v = 1 + std::ldexp(static_cast<double>(u & 63), -13);
        return std::ldexp((u & 64) != 0 ? v : -v, static_cast<int>(uniform(u, -2, 2)));
      });
      fill(o.b, k, n, g, [](std::uint32_t u) { return static_cast<double>(uniform(u, 1, 3)); });
      o.c0.setZero();
      o.bias.setZero();
      break;
    case MmadValues::Special:
      setSpecialRows(c, o);
      break;
    case MmadValues::ScatteredSpecials:
      scatterSpecials(c, o, g);
      break;
    case MmadValues::Scaled:
      scaledValues(c, o, g);
      break;
    case MmadValues::RoundingProbe:
      o.a.setConstant(0x3p-25);  // 0.75 ulp of 1 in f32
      o.b.setConstant(1);
      o.c0.setConstant(1);
      o.bias.setZero();
      break;
    case MmadValues::ZeroSignProbe:
      o.a.setZero();
      o.b.setConstant(-1);
      o.c0.setZero();
      o.bias.setConstant(-0.0);
      break;
  }
  // A C equal to its init would make the case vacuous (spec 9: never trivially true): make
  // sure C(0, 0) = init + sum_k a(0, k) b(k, 0) moves, staying on each regime's value grid.
  const bool grid = c.values == MmadValues::Exact || c.values == MmadValues::Subnormal ||
                    c.values == MmadValues::MaxFinite;
  if (grid && m > 0 && k > 0 && n > 0) {
    const double unitA = integer                             ? 1
                         : c.values == MmadValues::Subnormal ? 0x1p-24
                         : c.values == MmadValues::MaxFinite ? 32
                                                             : 0.25;
    const double unitB = integer || c.values != MmadValues::Exact ? 1 : 0.25;
    for (int attempt = 0;
         attempt < 8 && o.a.row(0).cast<double>().dot(o.b.col(0).cast<double>()) == 0; ++attempt) {
      o.a(0, 0) = o.a(0, 0) > 0 ? o.a(0, 0) - unitA : o.a(0, 0) + unitA;
      if (o.b(0, 0) == 0) o.b(0, 0) = unitB;
    }
  }
  return o;
}

void storeC(isa::Segment& l0c, std::uint64_t cAddr, const oracle::ElemMatrix& c) {
  const std::uint64_t base = cAddr - l0c.addr, size = l0c.bytes.size();
  if (base >= size) return;  // C past the memory (an illegal program's): nothing is written
  const auto rows = static_cast<std::uint64_t>(c.rows());
  // Plain pointers: a byte store may alias any object, so c's and l0c's own pointers would be
  // loaded again for every cell.
  std::uint8_t* const out = l0c.bytes.data() + base;
  const std::uint32_t* const values = c.data();
  oracle::forEachFractal(
      oracle::Layout::Nz, 16, rows, static_cast<std::uint64_t>(c.cols()),
      [&](std::uint64_t r, std::uint64_t col, std::uint64_t at, std::uint64_t rowStep,
          std::uint64_t colStep, std::uint64_t height, std::uint64_t width) {
        // Past the memory (an illegal program's C), nothing is written; the check per cell is
        // needed only when the fractal's last cell is past it.
        const std::uint64_t last = at + (height - 1) * rowStep + (width - 1) * colStep;
        const bool inside = base + 4 * last + 4 <= size;
        if (inside) {
          oracle::writeBlockAs<32>(out, at, rowStep, colStep, height, width,
                                   values + col * rows + r, rows);
          return;
        }
        for (std::uint64_t j = 0; j < width; ++j) {
          const std::uint32_t* column = values + (col + j) * rows + r;
          for (std::uint64_t i = 0; i < height; ++i) {
            const std::uint64_t cell = at + i * rowStep + j * colStep;
            if (base + 4 * cell + 4 > size) continue;
            oracle::writeElementAs<32>(out, cell, column[i]);
          }
        }
      });
}

std::pair<std::uint64_t, std::uint64_t> addInitSegments(
    isa::Program& p, MmadInit init, bool accumulate, std::uint64_t cAddr, std::uint64_t cBytes,
    std::uint64_t biasAddr, const oracle::ElemMatrix& c0, const oracle::ElemMatrix& bias,
    std::uint64_t seed) {
  const isa::Profile& prof = isa::profile(p.profile);
  const auto [lo, hi] = withMargin(cAddr, cAddr + cBytes, 1024, prof.capacityOf(Memory::L0C));
  // A C of whole fractals, put in its cells, overwrites every byte of its footprint up to the
  // last whole cell inside the segment: those bytes are not drawn.
  const bool whole = accumulate && c0.rows() % 16 == 0 && c0.cols() % 16 == 0;
  const auto footprint = static_cast<std::uint64_t>(c0.size()) * 4;
  const std::uint64_t end = std::min(cAddr + footprint, hi);
  const std::uint64_t covered = whole && end > cAddr ? (end - cAddr) / 4 * 4 : 0;
  isa::Segment l0c{Memory::L0C, lo, isa::Bytes(hi - lo)};
  fillBytesAround(l0c.bytes, subSeed(seed, 3), cAddr - lo, cAddr - lo + covered);
  if (accumulate) storeC(l0c, cAddr, c0);
  p.segments.push_back(std::move(l0c));
  if (init == MmadInit::BiasTable || init == MmadInit::BiasTensor) {
    isa::Segment bt =
        filled(Memory::BiasTable, 0, prof.capacityOf(Memory::BiasTable), subSeed(seed, 4));
    const std::uint64_t at = init == MmadInit::BiasTensor ? biasAddr : 0;  // OPEN-6
    for (Eigen::Index j = 0; j < bias.cols(); ++j) {
      const std::uint64_t jat = at + 4 * static_cast<std::uint64_t>(j);
      if (jat + 4 > bt.bytes.size()) break;  // past the table: an illegal program's bias
      for (int b = 0; b < 4; ++b) {
        bt.bytes[jat + static_cast<std::uint64_t>(b)] =
            static_cast<std::uint8_t>(bias(0, j) >> (8 * b));
      }
    }
    p.segments.push_back(std::move(bt));
  }
  return {lo, hi};
}

isa::Program buildProgram(const MmadCase& c) {
  return buildProgram(c, operandsOf(c));
}

isa::Program buildProgram(const MmadCase& c, const MmadOperands& o) {
  const isa::Mmad x = mmadOf(c);
  const DType acc = isa::accumulatorOf(c.dtype);
  isa::Program p;
  p.profile = c.profile;
  const bool noOp = c.m == 0 || c.k == 0 || c.n == 0;
  // Where A and B go, as the oracle states it (oracle/operands.hpp), not as isa's counts do.
  const oracle::OperandLayout aAt = oracle::mmadA(c.profile, x), bAt = oracle::mmadB(x);
  if (!noOp) {
    if (aAt.vector) {
      // A as a 1 x k vector at aAddr, in a fractal-aligned run of random bytes.
      const std::uint64_t bytes = aAt.bytes(c.dtype);
      isa::Segment a = filled(
          Memory::L0A, c.aAddr,
          c.aAddr + (bytes + isa::kFractalBytes - 1) / isa::kFractalBytes * isa::kFractalBytes,
          subSeed(c.contentSeed, 1));
      const oracle::ElemMatrix bits = oracle::bitsOf(o.a, c.dtype);
      for (Eigen::Index kk = 0; kk < c.k; ++kk) {
        oracle::writeElement(a.bytes.data(), static_cast<std::size_t>(kk), c.dtype, bits(0, kk));
      }
      p.segments.push_back(std::move(a));
    } else {
      p.segments.push_back(
          {Memory::L0A, c.aAddr,
           oracle::encode(padded(o.a, c.dtype, static_cast<Eigen::Index>(aAt.rows),
                                 static_cast<Eigen::Index>(aAt.cols), subSeed(c.contentSeed, 1)),
                          aAt.layout, c.dtype)});
    }
    p.segments.push_back(
        {Memory::L0B, c.bAddr,
         oracle::encode(padded(o.b, c.dtype, static_cast<Eigen::Index>(bAt.rows),
                               static_cast<Eigen::Index>(bAt.cols), subSeed(c.contentSeed, 2)),
                        bAt.layout, c.dtype)});
  }
  const auto [lo, hi] =
      addInitSegments(p, c.init, c.init == MmadInit::Accumulate && !noOp, c.cAddr,
                      std::max<std::uint64_t>(isa::mmadCBytes(x), 1024), c.biasAddr,
                      oracle::bitsOf(o.c0, acc), oracle::bitsOf(o.bias, acc), c.contentSeed);
  if (c.hf32) {
    p.instructions.emplace_back(isa::SetHF32{true, c.hf32Mode});
  } else if (c.dtype == DType::F32 && c.profile != ProfileId::Legacy && c.contentSeed % 3 == 0) {
    p.instructions.emplace_back(isa::SetHF32{false, c.hf32Mode});  // HF32 off, said explicitly
  }
  if (c.hif8Mode) p.instructions.emplace_back(isa::SetHiF8Mode{true});
  p.instructions.emplace_back(x);
  p.observe = {{Memory::L0C, lo, hi - lo}};
  return p;
}

std::ostream& operator<<(std::ostream& os, const Hf32SequenceCase& c) {
  std::string what = "hf32 sequence:";
  for (const Hf32Step& s : c.steps) {
    if (s.set) {
      what += s.enable ? " set_hf32(1, mode " + std::to_string(s.mode) + ")" : " set_hf32(0)";
    }
    what += " mmad";
  }
  return printCase(os, c.profile, what, c.contentSeed, c.why);
}

std::vector<bool> hf32States(const Hf32SequenceCase& c) {
  std::vector<bool> on;
  bool now = false;  // spec 8: off when a program starts
  for (const Hf32Step& s : c.steps) {
    if (s.set) now = s.enable;
    on.push_back(now);
  }
  return on;
}

std::vector<std::pair<oracle::MatrixF, oracle::MatrixF>> operandsOf(const Hf32SequenceCase& c) {
  SplitMix64 g(subSeed(c.contentSeed, 100));
  std::vector<std::pair<oracle::MatrixF, oracle::MatrixF>> out(c.steps.size());
  for (auto& [a, b] : out) {
    fill(a, 16, 16, g, [](std::uint32_t u) {
      // t from the low five bits, the sign from the sixth, the scale 2^-2 .. 2^2 from the top
      const double v = 1 + std::ldexp(static_cast<double>(u & 31), -10) + 0x1p-13;
      return static_cast<float>(
          std::ldexp((u & 32) != 0 ? v : -v, static_cast<int>(uniform(u, -2, 2))));
    });
    fill(b, 16, 16, g, [](std::uint32_t u) { return static_cast<float>(uniform(u, -3, 3)); });
  }
  return out;
}

isa::Program buildProgram(const Hf32SequenceCase& c,
                          const std::vector<std::pair<oracle::MatrixF, oracle::MatrixF>>& ops) {
  isa::Program p;
  p.profile = c.profile;
  const std::uint64_t n = c.steps.size(), kC = 1024;
  isa::Mmad x;
  x.dtype = DType::F32;
  x.m = x.k = x.n = 16;
  setInitFlags(x, MmadInit::Zero);
  const oracle::OperandLayout aAt = oracle::mmadA(c.profile, x), bAt = oracle::mmadB(x);
  isa::Segment a{Memory::L0A, 0, {}}, b{Memory::L0B, 0, {}};
  for (std::uint64_t i = 0; i < n; ++i) {
    const isa::Bytes ai =
        oracle::encode(oracle::bitsOf(ops[i].first, DType::F32), aAt.layout, DType::F32);
    const isa::Bytes bi =
        oracle::encode(oracle::bitsOf(ops[i].second, DType::F32), bAt.layout, DType::F32);
    a.bytes.insert(a.bytes.end(), ai.begin(), ai.end());
    b.bytes.insert(b.bytes.end(), bi.begin(), bi.end());
  }
  p.segments.push_back(std::move(a));
  p.segments.push_back(std::move(b));
  // L0C: the n Cs after one fractal of canary, and one more after them.
  p.segments.push_back(filled(Memory::L0C, 0, (n + 2) * kC, subSeed(c.contentSeed, 3)));
  for (std::uint64_t i = 0; i < n; ++i) {
    const Hf32Step& s = c.steps[i];
    if (s.set) p.instructions.emplace_back(isa::SetHF32{s.enable, s.mode});
    x.aAddr = x.bAddr = i * kC;
    x.cAddr = (i + 1) * kC;
    p.instructions.emplace_back(x);
  }
  for (std::uint64_t i = 0; i < n; ++i) p.observe.push_back({Memory::L0C, (i + 1) * kC, kC});
  // the canaries either side, after the Cs: a stray write there is seen
  p.observe.push_back({Memory::L0C, 0, kC});
  p.observe.push_back({Memory::L0C, (n + 1) * kC, kC});
  return p;
}

std::vector<std::string> tagsOf(const Hf32SequenceCase& c) {
  const std::vector<bool> on = hf32States(c);
  std::vector<std::string> t;
  if (on.empty()) return t;
  t.emplace_back(on[0] ? "hf32_seq:first_on" : "hf32_seq:first_off");
  for (std::size_t i = 1; i < on.size(); ++i) {
    const char* tag = on[i - 1] && !on[i]       ? "hf32_seq:on_to_off"
                      : !on[i - 1] && on[i]     ? "hf32_seq:off_to_on"
                      : on[i] && c.steps[i].set ? "hf32_seq:set_on_again"
                      : on[i]                   ? "hf32_seq:kept_on"
                                                : "hf32_seq:kept_off";
    if (std::find(t.begin(), t.end(), tag) == t.end()) t.emplace_back(tag);
  }
  return t;
}

std::vector<Hf32SequenceCase> hf32Sequences(ProfileId profile) {
  const Hf32Step on0{true, true, 0}, on1{true, true, 1}, off{true, false, 0}, keep{};
  const std::vector<std::pair<std::vector<Hf32Step>, std::string>> table{
      {{on0, keep}, "two Mmads under one set_hf32 (mode 0)"},
      {{on1, keep, keep}, "three Mmads under one set_hf32 (mode 1)"},
      {{on0, off}, "on, then off"},
      {{on1, off, keep}, "on (mode 1), then off for two Mmads"},
      {{keep, on0}, "off from the program's start, then on"},
      {{on0, on1, off, on0}, "on, on again in the other mode, off, on"},
      {{off, keep, on1, keep, off}, "off said, kept, on, kept, off"},
  };
  std::vector<Hf32SequenceCase> out;
  std::uint64_t seed = 40;
  for (const auto& [steps, why] : table) {
    Hf32SequenceCase c;
    c.profile = profile;
    c.steps = steps;
    c.contentSeed = seed++;
    c.why = why;
    out.push_back(std::move(c));
  }
  return out;
}

rc::Gen<Hf32SequenceCase> hf32Sequence(ProfileId profile) {
  return rc::gen::exec([profile] {
    Hf32SequenceCase c;
    c.profile = profile;
    const int n = *rc::gen::inRange(2, 6);
    for (int i = 0; i < n; ++i) {
      Hf32Step s;
      s.set = *rc::gen::arbitrary<bool>();
      s.enable = *rc::gen::arbitrary<bool>();
      s.mode = static_cast<std::uint8_t>(*upTo(0, 1));
      c.steps.push_back(s);
    }
    c.contentSeed = *rc::gen::arbitrary<std::uint64_t>();
    return c;
  });
}

oracle::ElemMatrix expectedC(const MmadCase& c, const MmadOperands& o, oracle::Saturation sat,
                             const oracle::Hf32Reading* hf32) {
  if (c.m == 0 || c.k == 0 || c.n == 0) return {};
  const oracle::Hf32Reading def = oracle::defaultHf32(c.hf32Mode);
  const oracle::Hf32Reading* reading = c.hf32 ? (hf32 != nullptr ? hf32 : &def) : nullptr;
  // Accumulating starts from c0 itself: no copy of a matrix as large as C.
  if (c.init == MmadInit::Accumulate)
    return oracle::mmadResult(c.dtype, o.a, o.b, o.c0, sat, reading);
  return oracle::mmadResult(c.dtype, o.a, o.b, o.init(c.init), sat, reading);
}

std::vector<std::string> tagsOf(const MmadCase& c) {
  const isa::Mmad x = mmadOf(c);
  std::vector<std::string> t{"dtype:" + std::string(isa::nameOf(c.dtype)),
                             "init:" + std::string(isa::nameOf(c.init)),
                             "values:" + std::string(nameOf(c.values))};
  if (c.m == 0 || c.k == 0 || c.n == 0) {
    t.emplace_back("zero_dimension");
    return t;
  }
  t.push_back(initFlagsTag(x));
  // The mode registers beside the Mmads they must not change: HF32 rounds f32 operands only,
  // CTRL[45] reaches e4m3fn x e4m3fn only (spec 8, 8.1.5).
  const std::string type(isa::nameOf(c.dtype));
  if (c.hf32 && c.dtype == DType::F32) {
    t.emplace_back(c.hf32Mode == 0 ? "hf32:mode0" : "hf32:mode1");
    t.push_back("hf32:init:" + std::string(isa::nameOf(c.init)));
  } else if (c.hf32) {
    t.push_back("hf32:on:" + type);
  }
  if (c.hif8Mode) t.push_back("ctrl45:on:" + type);
  const bool gemv = oracle::mmadA(c.profile, x).vector;
  if (gemv) t.emplace_back("gemv");
  if (c.m == 1 && !gemv) t.emplace_back("gemv_disabled");
  if (c.m % 16 != 0) t.emplace_back("m:partial_fractal");
  if (c.n % 16 != 0) t.emplace_back("n:partial_fractal");
  if (c.k % isa::mmadK0(c.dtype) != 0) t.emplace_back("k:partial_fractal");
  if (c.kAlign && c.dtype == DType::F32 && c.profile == ProfileId::A2) {
    t.emplace_back("k_direction_align");
  }
  t.push_back(sizeBin("m", c.m, mmadLargest(c.profile, 'm')));
  t.push_back(sizeBin("n", c.n, mmadLargest(c.profile, 'n')));
  t.push_back(sizeBin("k", c.k, mmadLargest(c.profile, 'k')));
  const std::vector<std::string> special = specialTags(c);
  t.insert(t.end(), special.begin(), special.end());
  return t;
}

std::vector<std::string> specialTags(const MmadCase& c) {
  std::vector<std::string> t;
  if (c.values == MmadValues::ScatteredSpecials && c.m > 0 && c.k > 0 && c.n > 0) {
    // Infinities on both sides always; subnormals on B's side always, on A's unless a bias
    // (which reaches every row) is the init (see scatterSpecials).
    t.emplace_back("special:scattered");
    const bool bias = c.init == MmadInit::BiasTable || c.init == MmadInit::BiasTensor;
    const bool hf32 = c.hf32 && c.dtype == DType::F32;
    // A side's subnormals meet plain values only where the other side has a line besides its two
    // special ones: B's column in a third row of A, A's row in a third column of B.
    if (c.n > 1 && c.m > 2 && !hf32) t.emplace_back("special:scattered_subnormal_b");
    if (c.m > 1 && c.n > 2 && !bias && !hf32) t.emplace_back("special:scattered_subnormal_a");
    if (c.init != MmadInit::Zero) t.emplace_back("special:scattered_init");
    if (hf32) t.emplace_back("special:scattered_hf32");
  }
  if (c.values == MmadValues::Scaled && c.m > 0 && c.k > 0 && c.n > 0) {
    // What row 0 of A, column 0 of B and C(0, 0)'s init hold (see scaledExponents): A's row 0
    // is in [2^(a + 2), 2^(a + 3)], B's column 0 in [2^(b + 2), 2^(b + 3)], the init of C(0, 0)
    // in [2^init, 2^(init + 1)).
    t.emplace_back("scaled");
    const ScaledExponents e = scaledExponents(c);
    if (c.dtype == DType::F16) {
      if (e.a + 2 >= 10) t.emplace_back("scaled:f16_a_large");  // |A| >= 1024
      if (e.b + 2 >= 10) t.emplace_back("scaled:f16_b_large");
    } else {
      // large: 2^20 <= |x| <= 2^127; tiny: normal, below 2^-80
      if (e.a + 2 >= 20) t.emplace_back("scaled:a_large");
      if (e.b + 2 >= 20) t.emplace_back("scaled:b_large");
      if (e.a + 2 >= -126 && e.a + 3 <= -81) t.emplace_back("scaled:a_tiny");
      if (e.b + 2 >= -126 && e.b + 3 <= -81) t.emplace_back("scaled:b_tiny");
    }
    const bool bias = c.init == MmadInit::BiasTable || c.init == MmadInit::BiasTensor;
    if (c.init != MmadInit::Zero) {
      const std::string where = bias ? "scaled:bias_" : "scaled:l0c_";
      // subnormal: below 2^-126; large: 2^22 <= |init| < 2^100
      if (e.init + 1 <= -126) t.push_back(where + "subnormal");
      if (e.init >= 22 && e.init + 1 <= 100) t.push_back(where + "large");
    }
  }
  if (c.values == MmadValues::Special && c.m > 0 && c.k > 0 && c.n > 0) {
    // What rows 0-7 hold (see setSpecialRows): each tag only when its row and columns exist.
    // Row 0's subnormal inputs meet B's ones in odd columns only (n > 1); there, two of them
    // (k > 1) sum to FLT_MIN (bf16, f32).
    if (c.n > 1) t.emplace_back("special:subnormal_input");
    if (c.k > 1 && c.n > 1 && c.dtype != DType::F16) t.emplace_back("special:smallest_normal");
    if (c.m > 1) t.emplace_back("special:inf_times_zero");  // column 0: B(0, 0) = 0
    if (c.m > 1 && c.n > 1) t.emplace_back("special:inf");
    if (c.m > 2 && c.k > 1) t.emplace_back("special:inf_minus_inf");
    if (c.m > 4 && c.k > 1) t.emplace_back("special:signed_zero");
    if (c.m > 5 && c.k > 2 && c.dtype != DType::F16) t.emplace_back("special:subnormal_result");
    // Overflow needs both products (k > 1) and an odd column (n > 1).
    if (c.m > 6 && c.k > 1 && c.n > 1 && c.dtype != DType::F16)
      t.emplace_back("special:overflow_positive");
    if (c.m > 7 && c.k > 1 && c.n > 1 && c.dtype != DType::F16)
      t.emplace_back("special:overflow_negative");
  }
  return t;
}

namespace {

std::uint16_t largestBySearch(ProfileId id, DType t, char dim) {
  const isa::Profile& prof = isa::profile(id);
  const std::uint16_t minK = t == DType::S4 ? 2 : 1;
  auto legal = [&](std::uint16_t v) {
    isa::Mmad x;
    x.dtype = t;
    x.m = dim == 'm' ? v : 1;
    x.n = dim == 'n' ? v : 1;
    x.k = dim == 'k' ? static_cast<std::uint16_t>(t == DType::S4 ? v / 2 * 2 : v) : minK;
    return !isa::validate(prof, x).has_value();
  };
  const std::uint16_t lo = largestLegal(1, 4095, legal);
  return dim == 'k' && t == DType::S4 ? static_cast<std::uint16_t>(lo / 2 * 2) : lo;
}

}  // namespace

std::uint16_t mmadLargest(ProfileId id, DType t, char dim) {
  // Every case's tags ask: search once per profile, type and dimension.
  using Key = std::tuple<ProfileId, DType, char>;
  static const std::map<Key, std::uint16_t> table = [] {
    std::map<Key, std::uint16_t> m;
    for (ProfileId p : isa::kAllProfiles) {
      for (DType d : mmadDTypes(p)) {
        for (char x : {'m', 'n', 'k'}) m[{p, d, x}] = largestBySearch(p, d, x);
      }
    }
    return m;
  }();
  return table.at({id, t, dim});
}

std::uint16_t mmadLargest(ProfileId id, char dim) {
  std::uint16_t best = 0;
  for (DType t : mmadDTypes(id)) best = std::max(best, mmadLargest(id, t, dim));
  return best;
}

std::vector<std::string> mmadSizeBins(ProfileId id, bool smallOnly) {
  std::vector<std::string> bins;
  for (char d : {'m', 'n', 'k'}) {
    const std::uint64_t max = mmadLargest(id, d);
    const std::uint64_t small = d == 'k' ? kSmallK : kSmallDim;
    for (std::uint64_t lo = 1; lo <= max && (!smallOnly || lo <= small); lo *= 2) {
      bins.push_back(sizeBin(std::string(1, d), lo, max));
    }
  }
  return bins;
}

/// The lead is the dimension drawn nearest its largest legal value, so a large draw stays large
/// and the others make room for it.
void fitToBuffers(MmadCase& c, std::uint16_t floorM, std::uint16_t floorK) {
  const isa::Profile& prof = isa::profile(c.profile);
  auto fits = [&] {
    isa::Mmad x = mmadOf(c);
    x.aAddr = x.bAddr = x.cAddr = 0;
    return aBytesOf(c.profile, x) <= prof.capacityOf(Memory::L0A) &&
           bBytesOf(x) <= prof.capacityOf(Memory::L0B) &&
           isa::mmadCBytes(x) <= prof.capacityOf(Memory::L0C);
  };
  fitAroundLead({&c.m, &c.n, &c.k},
                {mmadLargest(c.profile, c.dtype, 'm'), mmadLargest(c.profile, c.dtype, 'n'),
                 mmadLargest(c.profile, c.dtype, 'k')},
                {floorM, 1, floorK}, fits, [&] {
                  if (c.dtype == DType::S4 && c.k % 2 != 0) ++c.k;
                });
}

rc::Gen<MmadCase> legalMmad(ProfileId id, MmadValues values, Sizes sizes) {
  return rc::gen::exec([id, values, sizes] {
    const isa::Profile& prof = isa::profile(id);
    MmadCase c;
    c.profile = id;
    c.values = values;
    c.dtype = values == MmadValues::Bounded ? *rc::gen::element(DType::F16, DType::BF16, DType::F32)
                                            : *rc::gen::elementOf(mmadDTypes(id));
    // Special values (spec 8's boundary list), drawn too so that every level meets its quota.
    if (values == MmadValues::Exact && (c.dtype == DType::F16 || c.dtype == DType::BF16)) {
      const int pick = *rc::gen::inRange(0, 12);
      if (pick == 0) c.values = MmadValues::Infinity;
      if (c.dtype == DType::F16 && pick == 1) c.values = MmadValues::Subnormal;
      if (c.dtype == DType::F16 && pick == 2) c.values = MmadValues::MaxFinite;
    }
    if (values == MmadValues::Exact && isa::accumulatorOf(c.dtype) == DType::F32) {
      const int pick = *rc::gen::inRange(0, 10);
      if (pick == 0) c.values = MmadValues::Special;
      if (pick == 1) c.values = MmadValues::ScatteredSpecials;
      if (pick == 2) c.values = MmadValues::Scaled;
    }
    const bool special = c.values == MmadValues::Special;
    c.m = static_cast<std::uint16_t>(*sized(mmadLargest(id, c.dtype, 'm'), kSmallDim, sizes));
    c.n = static_cast<std::uint16_t>(*sized(mmadLargest(id, c.dtype, 'n'), kSmallDim, sizes));
    c.k = static_cast<std::uint16_t>(*sized(mmadLargest(id, c.dtype, 'k'), kSmallK, sizes));
    if (special) {
      c.m = std::max(c.m, kSpecialRows);
      c.k = std::max<std::uint16_t>(c.k, 3);
    }
    if (c.dtype == DType::S4 && c.k % 2 != 0)
      c.k = static_cast<std::uint16_t>(c.k == 1 ? 2 : c.k - 1);
    c.kAlign = c.dtype == DType::F32 && *rc::gen::weightedElement<bool>({{2, false}, {1, true}});
    fitToBuffers(c, special ? kSpecialRows : 1, special ? 3 : 1);
    c.disableGemv = id == ProfileId::Ascend950 && c.m == 1 && *rc::gen::arbitrary<bool>();
    if (special) {
      // From zero: L0C starts as canary, so a DUT that leaves a NaN row unwritten is caught
      // (an accumulated zero init would already hold the expected 0).
      c.init = MmadInit::Zero;
    } else {
      c.init = drawInit(prof, c.n);
    }
    // Spec 8: is_bias overrides both other flags and cmatrix_init_val overrides cmatrix_source;
    // the overridden flags are sent set about half the time, so that a DUT reading them is seen.
    c.ignoredSource =
        (c.init == MmadInit::Zero || c.init == MmadInit::BiasTensor) && *rc::gen::arbitrary<bool>();
    c.ignoredInitVal = c.init == MmadInit::BiasTensor && *rc::gen::arbitrary<bool>();
    if (values == MmadValues::Exact && isInt(c.dtype) && c.init != MmadInit::Zero &&
        *rc::gen::weightedElement<bool>({{5, false}, {1, true}})) {
      c.values = MmadValues::Saturate;
    }
    // Scaled f32 operands reach subnormals, which no source says how HF32 rounds (OPEN-7).
    if (c.dtype == DType::F32 && id != ProfileId::Legacy && !special &&
        c.values != MmadValues::Scaled) {
      c.hf32 = *rc::gen::weightedElement<bool>({{2, false}, {1, true}});
      c.hf32Mode = static_cast<std::uint8_t>(*upTo(0, 1));
    } else if (c.dtype != DType::F32 && id != ProfileId::Legacy) {
      // HF32 on before a type it does not change (spec 8: only f32 operands are rounded).
      c.hf32 = *rc::gen::weightedElement<bool>({{5, false}, {1, true}});
      c.hf32Mode = static_cast<std::uint8_t>(*upTo(0, 1));
    }
    // CTRL[45] on before a dense Mmad: it changes e4m3fn x e4m3fn only (spec 8.1.5).
    c.hif8Mode =
        id == ProfileId::Ascend950 && *rc::gen::weightedElement<bool>({{5, false}, {1, true}});
    // A zero dimension is a no-op, checked exactly by MatchesOracle; a bounded case needs a C.
    if (!special && values != MmadValues::Bounded &&
        *rc::gen::weightedElement<bool>({{29, false}, {1, true}})) {
      switch (*rc::gen::inRange(0, 3)) {
        case 0:
          c.m = 0;
          break;
        case 1:
          c.k = 0;
          break;
        default:
          c.n = 0;
      }
    }
    c.unitFlag = static_cast<std::uint8_t>(*rc::gen::element<std::uint64_t>(0, 2, 3));
    const isa::Mmad x = mmadOf(c);
    c.aAddr = isa::kFractalBytes *
              *edgy(0, (prof.capacityOf(Memory::L0A) - aBytesOf(id, x)) / isa::kFractalBytes);
    c.bAddr = isa::kFractalBytes *
              *edgy(0, (prof.capacityOf(Memory::L0B) - bBytesOf(x)) / isa::kFractalBytes);
    const std::uint64_t cBytes = std::max<std::uint64_t>(isa::mmadCBytes(x), 1024);
    c.cAddr = 1024 * *edgy(0, (prof.capacityOf(Memory::L0C) - cBytes) / 1024);
    c.biasAddr = drawBiasAddr(prof, c.n);
    c.contentSeed = *rc::gen::arbitrary<std::uint64_t>();
    return c;
  });
}

std::vector<MmadCase> mmadBoundaries(ProfileId id) {
  std::vector<MmadCase> t;
  std::uint64_t seed = 0x3AD;
  auto add = [&](MmadCase c, std::string why) {
    c.profile = id;
    c.contentSeed = seed++;
    c.why = std::move(why);
    t.push_back(std::move(c));
  };
  for (DType d : mmadDTypes(id)) {
    const std::string name(isa::nameOf(d));
    const auto k0 = static_cast<std::uint16_t>(isa::mmadK0(d));
    MmadCase c;
    c.dtype = d;
    c.k = static_cast<std::uint16_t>(2 * k0);
    add(c, name + ": 16 x " + std::to_string(c.k) + " x 16 from zero");
    c.init = MmadInit::Accumulate;
    add(c, name + ": accumulate onto L0C");
    c.init = MmadInit::BiasTensor;
    c.biasAddr = 128;
    add(c, name + ": bias tensor at bias-table address 128, broadcast over M");
    // Spec 8: is_bias takes the bias tensor whatever cmatrix_init_val and cmatrix_source say;
    // the table row at 0 (cmatrix_source's) differs from the tensor at 128.
    for (const auto& [val, src] :
         std::array{std::pair{true, false}, std::pair{false, true}, std::pair{true, true}}) {
      MmadCase e = c;
      e.ignoredInitVal = val;
      e.ignoredSource = src;
      add(e, name + ": " + biasWinsWhy(val, src));
    }
    c.init = MmadInit::BiasTable;
    add(c, name + ": cmatrix_source from the bias table (OPEN-6: address 0)");
    c.init = MmadInit::Zero;
    c.ignoredSource = true;
    add(c, name + ": cmatrix_init_val overrides cmatrix_source");
    c.ignoredSource = false;
    c.m = 1;
    c.k = static_cast<std::uint16_t>(3 * k0 + 2);
    add(c, name + ": m = 1 is GEMV: A a contiguous vector of k = 3*K0+2");
    if (id == ProfileId::Ascend950) {
      c.disableGemv = true;
      add(c, name + ": m = 1 with disableGemv: an ordinary Nz operand");
      c.disableGemv = false;
    }
    c.m = 17;
    c.n = 33;
    c.k = static_cast<std::uint16_t>(k0 + 2);
    c.init = MmadInit::Accumulate;
    add(c, name + ": m 17, n 33, k K0+2: partial fractals, padding ignored, rest don't-care");
  }
  {
    MmadCase c;
    c.dtype = DType::F32;
    c.k = 20;
    c.kAlign = true;
    add(c, "f32 with k_direction_align: A rows 2*ceil(k/16) fractals apart on a2");
    c.kAlign = false;
    c.hf32 = true;
    add(c, "f32 with HF32 on, trans mode 0, exact-regime values (unchanged by HF32)");
    c.hf32Mode = 1;
    add(c, "f32 with HF32 on, trans mode 1");
    // HF32 rounds the operands, never the init: the exact-regime inits (22 significant bits)
    // would change if it did.
    for (MmadInit init : {MmadInit::Accumulate, MmadInit::BiasTensor, MmadInit::BiasTable}) {
      c.init = init;
      c.biasAddr = init == MmadInit::BiasTensor ? 128 : 0;
      c.hf32Mode = static_cast<std::uint8_t>(init == MmadInit::BiasTensor);
      add(c, "f32 with HF32 on, init " + std::string(isa::nameOf(init)) +
                 ": the init is not rounded to HF32");
    }
  }
  // The mode registers must not change the Mmads they do not target: HF32 rounds f32 operands
  // only (spec 8), CTRL[45] turns e4m3fn x e4m3fn into hif8 x hif8 and no other pair (spec
  // 8.1.5), so every other type, with every init, gives what it gives with the mode off.
  for (DType d : mmadDTypes(id)) {
    const bool hf32 = d != DType::F32 && id != ProfileId::Legacy;
    const bool ctrl45 = id == ProfileId::Ascend950;
    for (MmadInit init :
         {MmadInit::Zero, MmadInit::Accumulate, MmadInit::BiasTensor, MmadInit::BiasTable}) {
      MmadCase c;
      c.dtype = d;
      c.k = static_cast<std::uint16_t>(2 * isa::mmadK0(d));
      c.init = init;
      c.biasAddr = init == MmadInit::BiasTensor ? 64 : 0;
      const std::string what = std::string(isa::nameOf(d)) + ", init " +
                               std::string(isa::nameOf(init)) + ": unchanged by ";
      if (hf32) {
        MmadCase e = c;
        e.hf32 = true;
        e.hf32Mode = static_cast<std::uint8_t>(init == MmadInit::Accumulate);
        add(e, what + "HF32 on (it rounds f32 operands only)");
      }
      if (ctrl45) {
        MmadCase e = c;
        e.hif8Mode = true;
        add(e, what + "CTRL[45] = 1 (it reaches e4m3fn x e4m3fn only)");
      }
    }
    // k_direction_align spaces A's rows for f32 on a2 only (spec 8); every other type, and f32
    // elsewhere, is laid out as without it.
    if (d != DType::F32 || id != ProfileId::A2) {
      MmadCase c;
      c.dtype = d;
      c.k = static_cast<std::uint16_t>(2 * isa::mmadK0(d) + 2);  // even: s4 needs it
      c.kAlign = true;
      add(c, std::string(isa::nameOf(d)) +
                 ": unchanged by k_direction_align (it aligns f32 on a2 only)");
    }
  }
  for (DType d : {DType::S8, DType::S4}) {
    if (!isa::mmadHasDType(id, d)) continue;
    MmadCase c;
    c.dtype = d;
    c.k = 64;
    c.values = MmadValues::Saturate;
    c.init = MmadInit::Accumulate;
    add(c, std::string(isa::nameOf(d)) + ": monotone sums past the int32 limits saturate");
    c.init = MmadInit::BiasTensor;
    add(c, std::string(isa::nameOf(d)) + ": saturation from a bias near the limit");
  }
  {
    MmadCase c;
    c.dtype = DType::S8;
    c.k = 4095;
    c.n = 16;
    add(c, "k 4095, its maximum: A and B fill L0A and L0B");
    c.k = 64;
    for (int z = 0; z < 3; ++z) {
      MmadCase e = c;
      (z == 0 ? e.m : z == 1 ? e.k : e.n) = 0;
      add(e, std::string("no-op: ") + (z == 0 ? "m" : z == 1 ? "k" : "n") + " = 0");
    }
    c.cAddr = isa::profile(id).capacityOf(Memory::L0C) - 1024 * 4;
    c.m = 32;
    c.n = 32;
    add(c, "C ends at the last byte of L0C");
  }
  {
    MmadCase c;
    c.dtype = DType::F16;
    c.values = MmadValues::Subnormal;
    c.k = 48;
    c.init = MmadInit::Accumulate;
    add(c, "f16 subnormal A: exact in f32");
    c.values = MmadValues::MaxFinite;
    add(c, "f16 A at +-65504, max finite");
    c.values = MmadValues::Infinity;
    c.init = MmadInit::Zero;
    add(c, "f16 A(0,0) = +inf, A(1,0) = -inf: rows 0 and 1 saturate to +-FLT_MAX");
    c.dtype = DType::BF16;
    add(c, "bf16 infinities saturate to +-FLT_MAX");
  }
  for (DType d : {DType::F16, DType::BF16, DType::F32}) {
    MmadCase c;
    c.dtype = d;
    c.values = MmadValues::Special;
    c.m = 8;
    c.k = 24;
    c.n = 4;
    add(c, std::string(isa::nameOf(d)) +
               ": subnormal inputs, inf x 0, inf - inf, +-inf, signed zeros" +
               (d == DType::F16 ? "" : ", FLT_MIN and a subnormal result") +
               ": saturation mode gives 0 for NaN, +-FLT_MAX for inf");
  }
  // The largest legal shape of each kind: one dimension at the most L0A/L0B/L0C allow, the
  // others made small enough to leave it room (s8's k = 4095 is above; f16's k stops at 2048).
  for (DType d : {DType::F16}) {
    for (char dim : {'m', 'n', 'k'}) {
      MmadCase c;
      c.profile = id;
      c.dtype = d;
      c.m = dim == 'm' ? mmadLargest(id, d, 'm') : 16;
      c.n = dim == 'n' ? mmadLargest(id, d, 'n') : 16;
      c.k = dim == 'k' ? mmadLargest(id, d, 'k') : static_cast<std::uint16_t>(isa::mmadK0(d));
      c.init = MmadInit::Accumulate;
      fitToBuffers(c, 1, 1);
      add(c, std::string(isa::nameOf(d)) + ": " + dim + " = " +
                 std::to_string(dim == 'm'   ? c.m
                                : dim == 'n' ? c.n
                                             : c.k) +
                 ", the largest that fits L0A/L0B/L0C");
    }
  }
  // spec 8: only 950 turns GEMV off with disableGemv; elsewhere the flag is sent and ignored.
  if (id != ProfileId::Ascend950) {
    for (DType d : mmadDTypes(id)) {
      MmadCase c;
      c.dtype = d;
      c.m = 1;
      c.k = static_cast<std::uint16_t>(3 * isa::mmadK0(d) + 2);
      c.disableGemv = true;
      add(c, std::string(isa::nameOf(d)) +
                 ": m = 1 with disable_gemv set: only 950 honours it, so still GEMV");
    }
  }
  // The value regimes draws reach only now and then, fixed here so that every level, and the
  // golden set, meets them: specials scattered among plain values (a flush or a dropped product
  // on one operand's path shows only where a special meets a plain value), and the scaled bands
  // (operands and inits far from 1, where a DUT saturates large inputs, flushes tiny ones or
  // subnormal biases, or drops large inits). A band's case takes the first content seed from a
  // fixed start whose exponents land in it (scaledExponents); a band no seed of the first 512
  // reaches (f16 has no subnormal init) is not in the table.
  for (DType d : {DType::F16, DType::BF16, DType::F32}) {
    if (!isa::mmadHasDType(id, d)) continue;
    const std::string name(isa::nameOf(d));
    MmadCase c;
    c.profile = id;
    c.dtype = d;
    c.m = 4;
    c.n = 4;
    c.k = static_cast<std::uint16_t>(2 * isa::mmadK0(d));
    c.init = MmadInit::Accumulate;
    c.values = MmadValues::ScatteredSpecials;
    add(c, name + ": infinities and subnormals scattered among plain values, onto L0C");
    c.values = MmadValues::Scaled;
    std::set<std::string> met;
    for (MmadInit init : {MmadInit::Accumulate, MmadInit::BiasTensor}) {
      c.init = init;
      c.biasAddr = init == MmadInit::BiasTensor ? 128 : 0;
      constexpr std::uint64_t kFirstSeed = 0x5CA1ED00;
      for (std::uint64_t s = kFirstSeed; s < kFirstSeed + 512; ++s) {
        c.contentSeed = s;
        std::string fresh;
        for (const std::string& tag : specialTags(c)) {
          if (tag.rfind("scaled:", 0) != 0 || !met.insert(tag).second) continue;
          fresh += (fresh.empty() ? "" : ", ") + tag.substr(7);
        }
        if (fresh.empty()) continue;
        c.why =
            name + ", init " + std::string(isa::nameOf(init)) + ": scaled operands (" + fresh + ")";
        t.push_back(c);
      }
    }
  }
  return t;
}

rc::Gen<MmadCase> mmadProbe(ProfileId id, MmadValues probe) {
  return rc::gen::exec([id, probe] {
    MmadCase c;
    c.profile = id;
    c.values = probe;
    c.m = static_cast<std::uint16_t>(*upTo(2, 32));
    c.n = static_cast<std::uint16_t>(*upTo(1, 32));
    if (probe == MmadValues::SaturationProbe) {
      c.dtype =
          isa::mmadHasDType(id, DType::S4) ? *rc::gen::element(DType::S8, DType::S4) : DType::S8;
      c.k = static_cast<std::uint16_t>(2 * *upTo(1, 64));
      c.init = *rc::gen::element(MmadInit::Accumulate, MmadInit::BiasTensor);
    } else if (probe == MmadValues::ZeroSignProbe) {
      c.dtype = *rc::gen::element(DType::F16, DType::BF16, DType::F32);
      c.k = static_cast<std::uint16_t>(*upTo(1, 64));
      c.init = *rc::gen::element(MmadInit::Zero, MmadInit::BiasTensor);
    } else {
      c.dtype = DType::F32;
      c.k = static_cast<std::uint16_t>(*upTo(1, 16));
      c.hf32 = true;
      c.hf32Mode = static_cast<std::uint8_t>(*upTo(0, 1));
    }
    // Full-range at every size: at the smallest sizes every other field is at its minimum, and a
    // size-scaled seed (0 there) made random cases 0 and 1 the same program (one case_id twice
    // in the golden vectors).
    c.contentSeed = *rc::gen::resize(rc::kNominalSize, rc::gen::arbitrary<std::uint64_t>());
    return c;
  });
}

std::ostream& operator<<(std::ostream& os, const IllegalMmadCase& c) {
  return os << c.c << " instruction: " << isa::describe(c.mmad)
            << " expected_rejection=" << isa::nameOf(c.expected);
}

rc::Gen<IllegalMmadCase> illegalMmad(ProfileId id) {
  using V = isa::ViolationCode;
  return rc::gen::exec([id] {
    const isa::Profile& prof = isa::profile(id);
    IllegalMmadCase ic;
    ic.c = *legalMmad(id);
    MmadCase& c = ic.c;
    if (c.m == 0) c.m = 16;
    if (c.k == 0) c.k = 32;
    if (c.n == 0) c.n = 16;
    // A raised dimension beside a large one may not fit at all: shrink to fit again, then move
    // every address (the bias's too) back to where the grown operands have room.
    fitToBuffers(c, 1, 1);
    const isa::Mmad grown = mmadOf(c);
    auto clampTo = [](std::uint64_t addr, std::uint64_t bytes, std::uint64_t cap,
                      std::uint64_t align) {
      return std::min(addr, (cap - std::min(cap, bytes)) / align * align);
    };
    c.aAddr =
        clampTo(c.aAddr, aBytesOf(id, grown), prof.capacityOf(Memory::L0A), isa::kFractalBytes);
    c.bAddr = clampTo(c.bAddr, bBytesOf(grown), prof.capacityOf(Memory::L0B), isa::kFractalBytes);
    c.cAddr = clampTo(c.cAddr, isa::mmadCBytes(grown), prof.capacityOf(Memory::L0C), 1024);
    c.biasAddr = clampTo(c.biasAddr, 4ull * c.n, prof.capacityOf(Memory::BiasTable), 64);
    ic.mmad = mmadOf(c);
    isa::Mmad& x = ic.mmad;
    switch (*rc::gen::inRange(0, 7)) {
      case 0:
        (*rc::gen::arbitrary<bool>()   ? x.m
         : *rc::gen::arbitrary<bool>() ? x.k
                                       : x.n) = static_cast<std::uint16_t>(*upTo(4096, 65535));
        ic.expected = V::Range;
        break;
      case 1: {
        const auto oddK = static_cast<std::uint16_t>(2 * *upTo(0, 30) + 1);
        x.dtype = DType::S4;
        // 950 has no s4 at all (spec 8.1.2): the type is what it rejects, and k stays the one
        // that fitted, so that the type is the only thing wrong.
        if (isa::mmadHasDType(id, DType::S4)) x.k = oddK;
        ic.expected = isa::mmadHasDType(id, DType::S4) ? V::Range : V::DTypeUnsupported;
        break;
      }
      case 2:
        x.unitFlag = static_cast<std::uint8_t>(*rc::gen::element<std::uint64_t>(1, 4, 255));
        ic.expected = V::Range;
        break;
      case 3: {
        const int which = *rc::gen::inRange(0, 3);
        std::uint64_t& addr = which == 0 ? x.aAddr : which == 1 ? x.bAddr : x.cAddr;
        const std::uint64_t align = which == 2 ? 1024 : 512;
        addr = (addr >= align ? addr - align : 0) + *upTo(1, align - 1);
        ic.expected = V::Alignment;
        break;
      }
      case 4:
        x.cAddr = prof.capacityOf(Memory::L0C) - isa::mmadCBytes(x) + 1024;
        ic.expected = V::Capacity;
        break;
      case 5:
        x.dtype = isa::mmadHasDType(id, DType::S4)
                      ? *rc::gen::element(DType::U8, DType::S32, DType::U16, DType::S16)
                      : *rc::gen::element(DType::U8, DType::S32, DType::U16, DType::S4);
        ic.expected = V::DTypeUnsupported;
        break;
      default:
        x.isBias = true;
        x.biasAddr = 64 * *upTo(0, 15) + *upTo(1, 63);
        // The bias row must fit the table from the aligned address below, or the case breaks
        // Capacity too.
        x.n = static_cast<std::uint16_t>(std::min<std::uint64_t>(
            {x.n, 128, (prof.capacityOf(Memory::BiasTable) - x.biasAddr / 64 * 64) / 4}));
        ic.expected = V::Alignment;
    }
    return ic;
  });
}

}  // namespace cubecheck::gen
