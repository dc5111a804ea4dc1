#include "oracle/mmad.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <variant>

#include "oracle/layout.hpp"
#include "oracle/lowprec.hpp"

namespace cubecheck::oracle {

std::string Hf32Reading::name() const {
  static const char* kRound[] = {"nearest-even", "nearest-ties-away", "nearest-ties-toward-zero",
                                 "toward-zero"};
  return "HF32 with " + std::to_string(fractionBits) + " fraction bits, " +
         kRound[static_cast<int>(round)];
}

Hf32Reading defaultHf32(std::uint8_t transMode) {
  return {11, transMode == 0 ? Hf32Reading::Round::NearestEven : Hf32Reading::Round::NearestAway};
}

double roundHf32(double v, const Hf32Reading& r) {
  if (!std::isfinite(v) || v == 0) return v;
  int e = 0;
  std::frexp(v, &e);                                            // |v| in [2^(e-1), 2^e)
  const double unit = std::ldexp(1.0, e - 1 - r.fractionBits);  // one ulp at this binade
  const double q = v / unit;                                    // exact: a power-of-two scale
  double whole = std::trunc(q);
  const double frac = std::fabs(q - whole);
  const double away = whole + (q < 0 ? -1 : 1);
  switch (r.round) {
    case Hf32Reading::Round::TowardZero:
      break;
    case Hf32Reading::Round::NearestEven:
      if (frac > 0.5 || (frac == 0.5 && std::fmod(whole, 2) != 0)) whole = away;
      break;
    case Hf32Reading::Round::NearestAway:
      if (frac >= 0.5) whole = away;
      break;
    case Hf32Reading::Round::NearestTowardZero:
      if (frac > 0.5) whole = away;
      break;
  }
  return whole * unit;
}

MatrixD valuesOf(const ElemMatrix& bits, isa::DType t) {
  MatrixD v(bits.rows(), bits.cols());
  if (isLowPrecision(t)) {  // spec 8.1.1, by table
    for (Eigen::Index i = 0; i < bits.size(); ++i) {
      v(i) = lowPrecisionValue(t, static_cast<std::uint8_t>(bits(i)));
    }
    return v;
  }
  for (Eigen::Index i = 0; i < bits.size(); ++i) {
    const std::uint32_t b = bits(i);
    switch (t) {
      case isa::DType::S8:
        v(i) = static_cast<std::int8_t>(static_cast<std::uint8_t>(b));
        break;
      case isa::DType::S4:
        v(i) = (b & 0x8) != 0 ? static_cast<double>(b & 0xF) - 16 : static_cast<double>(b & 0xF);
        break;
      case isa::DType::S32:
        v(i) = static_cast<std::int32_t>(b);
        break;
      case isa::DType::F16:
        v(i) = static_cast<double>(static_cast<float>(
            Eigen::numext::bit_cast<Eigen::half>(static_cast<std::uint16_t>(b))));
        break;
      case isa::DType::BF16:
        v(i) = static_cast<double>(static_cast<float>(
            Eigen::numext::bit_cast<Eigen::bfloat16>(static_cast<std::uint16_t>(b))));
        break;
      case isa::DType::F32:
        v(i) = static_cast<double>(Eigen::numext::bit_cast<float>(b));
        break;
      default:
        throw std::logic_error("oracle::valuesOf: not an Mmad type");
    }
  }
  return v;
}

namespace {

/// x < y ? x : y and x > y ? x : y, lane by lane, for vectors of the GCC/Clang vector extension
/// (y where either is a NaN). GCC makes each select an and/andnot/or blend; on x86 each is one
/// minps/maxps (minpd/maxpd), which do exactly this, and the linear passes below are made of
/// them.
template <typename V>
V lanesMin(V x, V y) {
#if defined(__SSE2__)
  if constexpr (std::is_same_v<V, float __attribute__((vector_size(16)))>) {
    return __builtin_ia32_minps(x, y);
  } else if constexpr (std::is_same_v<V, double __attribute__((vector_size(16)))>) {
    return __builtin_ia32_minpd(x, y);
  }
#endif
  return x < y ? x : y;
}

template <typename V>
V lanesMax(V x, V y) {
#if defined(__SSE2__)
  if constexpr (std::is_same_v<V, float __attribute__((vector_size(16)))>) {
    return __builtin_ia32_maxps(x, y);
  } else if constexpr (std::is_same_v<V, double __attribute__((vector_size(16)))>) {
    return __builtin_ia32_maxpd(x, y);
  }
#endif
  return x > y ? x : y;
}

}  // namespace

namespace {

/// Four doubles (or floats) to f16 bits, each rounded to float and then to nearest f16 with ties to
/// even, as Eigen::half(float) does it without F16C, with its three cases chosen per lane instead
/// of branched on (the branches cost more than the arithmetic): from 65536 up, inf, or NaN kept a
/// quiet NaN; below 2^-14, a subnormal, rounded by adding 0.5f (whose ulp is f16's smallest
/// subnormal); in between, the exponent rebased and the 13 dropped bits rounded to even.
/// tests/oracle_test.cpp holds it to Eigen::half on every f16, its neighbours and half-way points.
template <typename Scalar>
void halfBitsOf4(const Scalar* in, std::uint32_t* out) {
  using F32x4 = float __attribute__((vector_size(16)));
  using I32x4 = std::int32_t __attribute__((vector_size(16)));
  using U32x4 = std::uint32_t __attribute__((vector_size(16)));
  const F32x4 f = {static_cast<float>(in[0]), static_cast<float>(in[1]), static_cast<float>(in[2]),
                   static_cast<float>(in[3])};
  I32x4 u;
  std::memcpy(&u, &f, sizeof u);
  const I32x4 sign = (u >> 16) & 0x8000;
  const I32x4 a = u & 0x7FFFFFFF;  // |f|: signed compares order it
  F32x4 magnitude;
  std::memcpy(&magnitude, &a, sizeof magnitude);
  const F32x4 shifted = magnitude + 0.5f;
  I32x4 subnormal;
  std::memcpy(&subnormal, &shifted, sizeof subnormal);
  subnormal -= 0x3F000000;  // the bits of 0.5f
  U32x4 ua;
  std::memcpy(&ua, &a, sizeof ua);
  const U32x4 rebased = (ua + 0xC8000FFFu + ((ua >> 13) & 1u)) >> 13;  // + (15 - 127) << 23
  I32x4 normal;
  std::memcpy(&normal, &rebased, sizeof normal);
  const I32x4 special = a > 0x7F800000 ? I32x4{} + 0x7E00 : I32x4{} + 0x7C00;
  const I32x4 r = a >= 0x47800000 ? special : a < 0x38800000 ? subnormal : normal;
  const I32x4 bits = (r & 0xFFFF) | sign;
  std::memcpy(out, &bits, sizeof bits);
}

/// As halfBitsOf4 on `count` (a multiple of 4) values when every one of them, rounded to float,
/// is zero or a normal f16 (the f16 it is, its exponent rebased and its 13 low zero bits
/// dropped): no rounding, and a third of halfBitsOf4's work. False, with out unfinished, when
/// some value is not; the caller converts those with halfBitsOf4.
template <typename Scalar>
bool exactHalfBits(const Scalar* in, std::uint32_t* out, std::ptrdiff_t count) {
  using F32x4 = float __attribute__((vector_size(16)));
  using I32x4 = std::int32_t __attribute__((vector_size(16)));
  I32x4 inexact = {};
  for (std::ptrdiff_t i = 0; i < count; i += 4) {
    const F32x4 f = {static_cast<float>(in[i]), static_cast<float>(in[i + 1]),
                     static_cast<float>(in[i + 2]), static_cast<float>(in[i + 3])};
    I32x4 u;
    std::memcpy(&u, &f, sizeof u);
    const I32x4 a = u & 0x7FFFFFFF;
    const I32x4 zero = a == 0;
    // 2^-14 (0x38800000) up to f16's largest, 65504 (0x477FE000), with 13 low zero bits
    const I32x4 fromSmallest = a - 0x38800000;
    inexact |= ~zero & ((fromSmallest < 0) | (fromSmallest > 0x0EFFE000) | (a & 0x1FFF));
    const I32x4 bits = (((a - 0x38000000) >> 13) & ~zero) | ((u >> 16) & 0x8000);
    std::memcpy(out + i, &bits, sizeof bits);
  }
  return (inexact[0] | inexact[1] | inexact[2] | inexact[3]) == 0;
}

}  // namespace

namespace {

template <typename Matrix>
ElemMatrix bitsOfValues(const Matrix& values, isa::DType t) {
  ElemMatrix b(values.rows(), values.cols());
  // One loop per type (the type chosen once, not per element).
  auto each = [&](auto code) {
    for (Eigen::Index i = 0; i < values.size(); ++i) b(i) = code(values(i));
  };
  if (isLowPrecision(t)) {
    each([t](double v) { return lowPrecisionCode(t, v); });
    return b;
  }
  switch (t) {
    case isa::DType::S8:
      each([](double v) -> std::uint32_t {
        return static_cast<std::uint8_t>(static_cast<std::int8_t>(v));
      });
      break;
    case isa::DType::S4:
      each([](double v) { return static_cast<std::uint32_t>(static_cast<int>(v)) & 0xF; });
      break;
    case isa::DType::S32:
      each([](double v) { return static_cast<std::uint32_t>(static_cast<std::int32_t>(v)); });
      break;
    case isa::DType::F16: {
      // 64 values at a time by exactHalfBits, and again by halfBitsOf4 when some are not exact
      const Eigen::Index size = values.size(), whole = size - size % 4;
      constexpr Eigen::Index kRun = 64;
      for (Eigen::Index from = 0; from < whole; from += kRun) {
        const Eigen::Index to = std::min(from + kRun, whole);
        if (exactHalfBits(values.data() + from, b.data() + from, to - from)) continue;
        for (Eigen::Index i = from; i < to; i += 4) halfBitsOf4(values.data() + i, b.data() + i);
      }
      for (Eigen::Index i = whole; i < size; ++i) {
        b(i) = Eigen::numext::bit_cast<std::uint16_t>(Eigen::half(static_cast<float>(values(i))));
      }
      break;
    }
    case isa::DType::BF16:
      each([](double v) -> std::uint32_t {
        return Eigen::numext::bit_cast<std::uint16_t>(Eigen::bfloat16(static_cast<float>(v)));
      });
      break;
    case isa::DType::F32:
      each([](double v) { return Eigen::numext::bit_cast<std::uint32_t>(static_cast<float>(v)); });
      break;
    default:
      throw std::logic_error("oracle::bitsOf: not an Mmad type");
  }
  return b;
}

}  // namespace

ElemMatrix bitsOf(const MatrixD& values, isa::DType t) {
  return bitsOfValues(values, t);
}

ElemMatrix bitsOfFloats(const MatrixF& values, isa::DType t) {
  return bitsOfValues(values, t);
}

int lowestBitExponent(double v) {
  const auto bits = std::bit_cast<std::uint64_t>(v);
  const auto exponent = static_cast<int>((bits >> 52) & 0x7FF);
  std::uint64_t significand = bits & ((std::uint64_t{1} << 52) - 1);
  if (exponent != 0) significand |= std::uint64_t{1} << 52;
  return std::max(exponent, 1) - 1075 + std::countr_zero(significand);
}

std::optional<Grid> gridOf(const MatrixF& m) {
  // One pass, four elements at a time (vectors of the GCC/Clang vector extension). With the
  // sign cleared, an element's bits from 0x7F800000 up are an infinity or a NaN, which leave
  // the matrix off the grid. An element's lowest set bit, as a value: |f| less |f| with that bit
  // cleared (an exact difference, subnormals included), or |f| itself when its fraction is zero
  // (a power of two). The least of these over the nonzero elements is 2^low; a zero, taken as
  // an infinity here, is a multiple of anything.
  using F32x4 = float __attribute__((vector_size(16)));
  using I32x4 = std::int32_t __attribute__((vector_size(16)));
  constexpr float kNone = std::numeric_limits<float>::infinity();
  I32x4 notFinite = {};
  F32x4 top = {}, least = {kNone, kNone, kNone, kNone};
  auto take = [&](const float* in) {
    I32x4 bits;
    std::memcpy(&bits, in, sizeof bits);
    bits &= 0x7FFFFFFF;
    notFinite |= bits > 0x7F7FFFFF;
    F32x4 a;
    std::memcpy(&a, &bits, sizeof a);
    top = lanesMax(a, top);            // a NaN leaves top as it was; notFinite has it
    bits |= (bits == 0) & 0x7F800000;  // a zero as an infinity: no lowest bit
    std::memcpy(&a, &bits, sizeof a);
    F32x4 cleared;
    const I32x4 rest = bits & (bits - 1);
    std::memcpy(&cleared, &rest, sizeof cleared);
    const F32x4 lowestBit = (bits & 0x7FFFFF) != 0 ? a - cleared : a;
    least = lanesMin(lowestBit, least);
  };
  const float* v = m.data();
  const Eigen::Index size = m.size(), whole = size - size % 4;
  for (Eigen::Index i = 0; i < whole; i += 4) take(v + i);
  if (whole < size) {  // the last one to three, beside zeros (which change nothing)
    float rest[4] = {};
    std::copy(v + whole, v + size, rest);
    take(rest);
  }
  if ((notFinite[0] | notFinite[1] | notFinite[2] | notFinite[3]) != 0) return std::nullopt;
  Grid g;
  g.max = std::max({top[0], top[1], top[2], top[3]});
  const float lowest = std::min({least[0], least[1], least[2], least[3]});
  if (lowest != kNone) g.low = lowestBitExponent(lowest);
  return g;
}

std::optional<FloatOperand> asFloats(const MatrixD& m) {
  // Each element converted to float and back: a NaN, or a double no float holds (past its
  // range, finer than its subnormals, or with more significant bits), comes back different.
  FloatOperand out{m.cast<float>(), {}};
  if (!(out.values.cast<double>().array() == m.array()).all()) return std::nullopt;
  const std::optional<Grid> grid = gridOf(out.values);
  if (!grid) return std::nullopt;
  out.grid = *grid;
  return out;
}

namespace {

/// use(A * B) exactly by Eigen's float kernels, when A and B, as floats on their grids, allow it
/// (false otherwise). Every product a(i, k) b(k, j) is an integer multiple of 2^(lowA + lowB)
/// of magnitude at most maxA maxB = mA mB 2^(lowA + lowB), with mA and mB the largest elements
/// in units of their grids. A sum of up to `block` such products, in whatever order Eigen adds
/// them, is then a multiple of 2^(lowA + lowB) below 2^(24 + lowA + lowB) when block mA mB <
/// 2^24: a float (not below float's 2^-149). So Eigen's float product is the exact one when
/// K <= block; when K is larger, the float products of K-blocks of that length, summed in
/// double, are (every partial sum a multiple of the grid below K mA mB < 2^53 of it).
template <typename F>
bool withFloatProduct(const Eigen::MatrixXf& fa, const Grid& ga, const Eigen::MatrixXf& fb,
                      const Grid& gb, F&& use) {
  constexpr std::uint64_t kFloatExact = std::uint64_t{1} << 24,
                          kDoubleExact = std::uint64_t{1} << 53;
  constexpr std::uint64_t kShortestBlock = 256;  // shorter blocks cost more than the double one
  if (fa.cols() == 0) return false;
  if (ga.max == 0 || gb.max == 0) {
    use(MatrixD::Zero(fa.rows(), fb.cols()).eval());
    return true;
  }
  const double bound = static_cast<double>(fa.cols()) * ga.max * gb.max;
  const int low = ga.low + gb.low;
  const double mA = std::ldexp(ga.max, -ga.low), mB = std::ldexp(gb.max, -gb.low);
  if (low < -149 || bound >= std::ldexp(1.0, 100) || mA >= kFloatExact || mB >= kFloatExact) {
    return false;
  }
  const std::uint64_t term = static_cast<std::uint64_t>(mA) * static_cast<std::uint64_t>(mB);
  const std::uint64_t block = (kFloatExact - 1) / term;
  const auto k = static_cast<std::uint64_t>(fa.cols());
  if (block >= k) {
    const Eigen::MatrixXf p = fa * fb;
    use(p);
    return true;
  }
  if (block < kShortestBlock || k >= kDoubleExact / term) return false;
  MatrixD sum = MatrixD::Zero(fa.rows(), fb.cols());
  for (std::uint64_t from = 0; from < k; from += block) {
    const auto first = static_cast<Eigen::Index>(from);
    const auto len = static_cast<Eigen::Index>(std::min(block, k - from));
    const Eigen::MatrixXf p = fa.middleCols(first, len) * fb.middleRows(first, len);
    sum += p.cast<double>();
  }
  use(sum);
  return true;
}

/// use(A * B) exactly, A and B doubles or floats: by the float product when the operands
/// allow it (withFloatProduct), otherwise in double (exact for integers below 2^53). An element
/// no float holds keeps the product off the float route whatever the rest: it is above
/// FLT_MAX, or finer than 2^-149, or has more than 24 significant bits (its units of the grid
/// reach 2^24), or is not finite. `typeGrid`, when given, is a grid every element of both lies
/// on by its type (the integer types'): the elements are then not scanned for theirs.
template <typename Matrix, typename F>
void withProduct(const Matrix& a, const Matrix& b, F&& use,
                 std::optional<Grid> typeGrid = std::nullopt) {
  if constexpr (std::is_same_v<Matrix, MatrixF>) {
    if (typeGrid && withFloatProduct(a, *typeGrid, b, *typeGrid, use)) return;
    const std::optional<Grid> ga = typeGrid ? std::nullopt : gridOf(a);
    const std::optional<Grid> gb = ga ? gridOf(b) : std::nullopt;
    if (ga && gb && withFloatProduct(a, *ga, b, *gb, use)) return;
  } else {
    if (typeGrid) {
      if (withFloatProduct(a.template cast<float>().eval(), *typeGrid,
                           b.template cast<float>().eval(), *typeGrid, use)) {
        return;
      }
    } else {
      const std::optional<FloatOperand> fa = asFloats(a);
      const std::optional<FloatOperand> fb = fa ? asFloats(b) : std::nullopt;
      if (fa && fb && withFloatProduct(fa->values, fa->grid, fb->values, fb->grid, use)) return;
    }
  }
  const MatrixD p = a.template cast<double>() * b.template cast<double>();
  use(p);
}

}  // namespace

namespace {

/// Spec 8's saturation mode on a vector of sums (GCC/Clang vector extension, float or double
/// lanes), selects and clamps rather than branches: NaN to 0, past +-FLT_MAX (infinities
/// included) to +-FLT_MAX.
template <typename V>
V saturatedLanes(V v) {
  const V real = v == v ? v : V{};
  return lanesMax(lanesMin(real, V{} + FLT_MAX), V{} - FLT_MAX);
}

/// c = init + product, saturated and rounded once to f32 (NaN to 0, +-inf to +-FLT_MAX), added
/// in float, four lanes at a time (GCC/Clang vector extension): when every init element is a
/// float, one IEEE float addition rounds the exact sum once, as the double route does. False,
/// with c unfinished, when some init element is not a float. A NaN init whose bits survive the
/// round trip through float counts as one (NaN + anything is NaN, saturated to 0 either way).
bool addInFloat(const MatrixD& init, const Eigen::MatrixXf& product, ElemMatrix& c) {
  using F64x2 = double __attribute__((vector_size(16)));
  using F32x2 = float __attribute__((vector_size(8)));
  using F32x4 = float __attribute__((vector_size(16)));
  using I64x2 = std::int64_t __attribute__((vector_size(16)));
  const double* in = init.data();
  const float* p = product.data();
  std::uint32_t* out = c.data();
  const Eigen::Index size = c.size(), whole = size - size % 4;
  I64x2 notFloat = {};
  for (Eigen::Index i = 0; i < whole; i += 4) {
    F64x2 d0, d1;
    std::memcpy(&d0, in + i, sizeof d0);
    std::memcpy(&d1, in + i + 2, sizeof d1);
    const F32x2 f0 = __builtin_convertvector(d0, F32x2), f1 = __builtin_convertvector(d1, F32x2);
    // the bits an init element loses as a float (a NaN's payload among them)
    const F64x2 back0 = __builtin_convertvector(f0, F64x2),
                back1 = __builtin_convertvector(f1, F64x2);
    I64x2 b0, b1, e0, e1;
    std::memcpy(&b0, &back0, sizeof b0);
    std::memcpy(&b1, &back1, sizeof b1);
    std::memcpy(&e0, &d0, sizeof e0);
    std::memcpy(&e1, &d1, sizeof e1);
    notFloat |= (b0 ^ e0) | (b1 ^ e1);
    F32x4 v;
    std::memcpy(&v, p + i, sizeof v);
    v = saturatedLanes(__builtin_shufflevector(f0, f1, 0, 1, 2, 3) + v);
    std::memcpy(out + i, &v, sizeof v);
  }
  for (Eigen::Index i = whole; i < size; ++i) {
    const auto f = static_cast<float>(in[i]);
    if (static_cast<double>(f) != in[i]) return false;
    const float sum = f + p[i];
    const F32x4 v = saturatedLanes(F32x4{sum, sum, sum, sum});
    out[i] = std::bit_cast<std::uint32_t>(v[0]);
  }
  return (notFloat[0] | notFloat[1]) == 0;
}

template <typename Matrix>
ElemMatrix mmadResultOf(isa::DType t, const Matrix& a, const Matrix& b, const MatrixD& init,
                        Saturation sat, const Hf32Reading* hf32) {
  const bool integer = t == isa::DType::S8 || t == isa::DType::S4;
  ElemMatrix c(init.rows(), init.cols());
  if (integer) {
    using MatrixL = Eigen::Matrix<std::int64_t, Eigen::Dynamic, Eigen::Dynamic>;
    const MatrixL il = init.cast<std::int64_t>();
    // s8 and s4 elements are integers (a grid of 2^0) of magnitude at most 128 and 8.
    const Grid ints{0, t == isa::DType::S4 ? 8.0 : 128.0};
    MatrixL sum;
    if (sat == Saturation::Wrap) {
      withProduct(
          a, b,
          [&](const auto& p) {
            const MatrixL exact = il + p.template cast<std::int64_t>();
            for (Eigen::Index i = 0; i < c.size(); ++i) c(i) = static_cast<std::uint32_t>(exact(i));
          },
          ints);
      return c;
    }
    if (sat == Saturation::Final) {
      // |products| <= 4095 * 2^14: exact in double, no overflow in 64 bits
      withProduct(
          a, b, [&](const auto& p) { sum = il + p.template cast<std::int64_t>(); }, ints);
    } else {
      const MatrixL al = a.template cast<std::int64_t>(), bl = b.template cast<std::int64_t>();
      sum = il;
      for (Eigen::Index k = 0; k < al.cols(); ++k) {
        sum = (sum + al.col(k) * bl.row(k))
                  .unaryExpr([](std::int64_t v) {
                    return std::clamp<std::int64_t>(v, INT32_MIN, INT32_MAX);
                  })
                  .eval();
      }
    }
    for (Eigen::Index i = 0; i < c.size(); ++i) {
      c(i) = static_cast<std::uint32_t>(
          static_cast<std::int32_t>(std::clamp<std::int64_t>(sum(i), INT32_MIN, INT32_MAX)));
    }
    return c;
  }
  // init + A * B, saturated and rounded once to f32, an element at a time: in float where
  // addInFloat can, otherwise in double, two at a time in 2-lane vectors (GCC/Clang vector
  // extension), selects rather than branches.
  auto finish = [&](const auto& product) {
    if constexpr (std::is_same_v<typename std::decay_t<decltype(product)>::Scalar, float>) {
      if (addInFloat(init, product, c)) return;
    }
    using F64x2 = double __attribute__((vector_size(16)));
    using F32x2 = float __attribute__((vector_size(8)));
    const double* in = init.data();
    const auto* p = product.data();
    std::uint32_t* out = c.data();
    const Eigen::Index size = c.size(), whole = size - size % 2;
    for (Eigen::Index i = 0; i < whole; i += 2) {
      const F64x2 v =
          F64x2{in[i], in[i + 1]} + F64x2{static_cast<double>(p[i]), static_cast<double>(p[i + 1])};
      const F32x2 f = __builtin_convertvector(saturatedLanes(v), F32x2);
      std::memcpy(out + i, &f, sizeof f);
    }
    if (whole < size) {
      const F64x2 v = F64x2{in[whole] + static_cast<double>(p[whole]), 0};
      out[whole] = std::bit_cast<std::uint32_t>(static_cast<float>(saturatedLanes(v)[0]));
    }
  };
  if (hf32 != nullptr && t == isa::DType::F32) {
    const MatrixD ar =
        a.template cast<double>().unaryExpr([hf32](double v) { return roundHf32(v, *hf32); });
    const MatrixD br =
        b.template cast<double>().unaryExpr([hf32](double v) { return roundHf32(v, *hf32); });
    withProduct(ar, br, finish);
  } else {
    withProduct(a, b, finish);
  }
  return c;
}

}  // namespace

ElemMatrix mmadResult(isa::DType t, const MatrixD& a, const MatrixD& b, const MatrixD& init,
                      Saturation sat, const Hf32Reading* hf32) {
  return mmadResultOf(t, a, b, init, sat, hf32);
}

ElemMatrix mmadResult(isa::DType t, const MatrixF& a, const MatrixF& b, const MatrixD& init,
                      Saturation sat, const Hf32Reading* hf32) {
  return mmadResultOf(t, a, b, init, sat, hf32);
}

namespace {

/// What C holds after the program's Mmads: s32 for s8 and s4 operands (dense or sparse), f32 for
/// every float type, fp8, HiF8 and MX included (spec 8, 8.1.5).
isa::DType accumulatorOf(const isa::Program& program) {
  for (const isa::Instruction& ins : program.instructions) {
    if (const auto* x = std::get_if<isa::Mmad>(&ins)) {
      return x->dtype == isa::DType::S8 || x->dtype == isa::DType::S4 ? isa::DType::S32
                                                                      : isa::DType::F32;
    }
    if (std::holds_alternative<isa::MmadMx>(ins)) return isa::DType::F32;
  }
  return isa::DType::S32;
}

}  // namespace

Expected expectC(const isa::Program& program, std::size_t region, const ElemMatrix& c,
                 std::uint64_t cAddr) {
  const isa::Region& r = program.observe.at(region);
  const isa::Segment* s = isa::findSegment(program.segments, r.memory, r.addr, r.size);
  if (s == nullptr) throw std::logic_error("oracle::expectC: observed region without a segment");
  Expected e;
  e.regions.assign(program.observe.size(), {});
  e.written.assign(program.observe.size(), {});
  e.formats.assign(program.observe.size(), {});
  const std::uint64_t m1 = (static_cast<std::uint64_t>(c.rows()) + 15) / 16;
  const std::uint64_t n1 = (static_cast<std::uint64_t>(c.cols()) + 15) / 16;
  // L0C: Nz of 16 x 16 fractals of 4-byte elements (spec 2, 3), m1 * n1 fractals from cAddr.
  const std::uint64_t footprint = m1 * n1 * 1024;
  if (footprint > 0 && (cAddr < r.addr || cAddr + footprint > r.addr + r.size)) {
    throw std::logic_error("oracle::expectC: C footprint outside the observed region");
  }
  const auto first = static_cast<std::ptrdiff_t>(cAddr - (footprint > 0 ? r.addr : cAddr));
  for (std::size_t i = 0; i < program.observe.size(); ++i) {
    const isa::Region& o = program.observe[i];
    const isa::Segment* os = isa::findSegment(program.segments, o.memory, o.addr, o.size);
    const auto from = os->bytes.begin() + static_cast<std::ptrdiff_t>(o.addr - os->addr);
    e.regions[i].assign(from, from + static_cast<std::ptrdiff_t>(o.size));
    // 1 over C's footprint, 0 elsewhere, written once (it is as large as the region)
    const std::size_t ones = i == region ? footprint : 0, zeros = i == region ? first : 0;
    e.written[i].reserve(o.size);
    e.written[i].insert(e.written[i].end(), zeros, 0);
    e.written[i].insert(e.written[i].end(), ones, 1);
    e.written[i].insert(e.written[i].end(), o.size - zeros - ones, 0);
  }
  const auto rows = static_cast<std::uint64_t>(c.rows()),
             cols = static_cast<std::uint64_t>(c.cols());
  // A C of partial fractals leaves the rest of its footprint undefined: don't care, until a cell
  // of C is put.
  const bool partial = footprint > 0 && (rows != 16 * m1 || cols != 16 * n1);
  if (partial) {
    e.dontCare.assign(program.observe.size(), {});
    for (std::size_t i = 0; i < program.observe.size(); ++i) {
      e.dontCare[i].assign(program.observe[i].size, 0);
    }
    std::fill_n(e.dontCare[region].begin() + first, footprint, 1);
  }
  std::uint8_t* bytes = e.regions[region].data() + (cAddr - r.addr);
  std::uint8_t* unknown = partial ? e.dontCare[region].data() + (cAddr - r.addr) : nullptr;
  const std::uint32_t* const values = c.data();  // a byte store would reload c's own pointer
  forEachFractal(Layout::Nz, 16, rows, cols,
                 [&](std::uint64_t i0, std::uint64_t j0, std::uint64_t at, std::uint64_t rowStep,
                     std::uint64_t colStep, std::uint64_t height, std::uint64_t width) {
                   if (!partial) {
                     writeBlockAs<32>(bytes, at, rowStep, colStep, height, width,
                                      values + j0 * rows + i0, rows);
                     return;
                   }
                   for (std::uint64_t j = 0; j < width; ++j) {
                     const std::uint32_t* column = values + (j0 + j) * rows + i0;
                     for (std::uint64_t i = 0; i < height; ++i) {
                       const std::uint64_t cell = at + i * rowStep + j * colStep;
                       std::fill_n(unknown + 4 * cell, 4, 0);
                       writeElementAs<32>(bytes, cell, column[i]);
                     }
                   }
                 });
  const isa::DType acc = accumulatorOf(program);
  e.formats[region] = RegionFormat{acc, false, cAddr, 1024, acc == isa::DType::F32};
  return e;
}

}  // namespace cubecheck::oracle
