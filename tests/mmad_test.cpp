// Dense Mmad (spec 8): known answers worked out by hand, the OPEN-7 readings, legality.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include <bit>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "conformance/checks.hpp"
#include "conformance/families.hpp"
#include "conformance/runner.hpp"
#include "dut_adapters/registry.hpp"
#include "generators/mmad.hpp"
#include "isa/fields.hpp"
#include "isa/text.hpp"
#include "oracle/mmad.hpp"

namespace cubecheck {
namespace {

using isa::DType;
using isa::Memory;

std::int32_t s32At(const isa::Bytes& b, std::size_t byte) {
  std::int32_t v;
  std::memcpy(&v, &b[byte], 4);
  return v;
}

TEST(MmadKnownAnswer, TwoByTwoS8ByHand) {
  // A = [1 2; 3 4], B = [5 6; 7 8]: C = [19 22; 43 50]. a2: A Zz (a(r, c) at r*32 + c in one
  // 16 x 32 fractal), B Zn (b(k, n) at n*32 + k), C Nz (c(m, n) at (m*16 + n)*4).
  isa::Program p;
  p.profile = isa::ProfileId::A2;
  isa::Bytes a(512, 0x11), b(512, 0x22);
  a[0] = 1, a[1] = 2, a[32] = 3, a[33] = 4;
  b[0] = 5, b[1] = 7, b[32] = 6, b[33] = 8;
  p.segments = {{Memory::L0A, 0, a}, {Memory::L0B, 0, b}, {Memory::L0C, 0, isa::Bytes(1024, 0xEE)}};
  isa::Mmad x;
  x.dtype = DType::S8;
  x.m = 2, x.k = 2, x.n = 2;
  p.instructions = {x};
  p.observe = {{Memory::L0C, 0, 1024}};
  auto ref = dut::makeDut("reference");
  const dut::RunResult r = ref->run(p);
  ASSERT_EQ(r.status, dut::RunStatus::Ok) << r.message;
  EXPECT_EQ(s32At(r.observed[0], 0), 19);
  EXPECT_EQ(s32At(r.observed[0], 4), 22);
  EXPECT_EQ(s32At(r.observed[0], 64), 43);
  EXPECT_EQ(s32At(r.observed[0], 68), 50);
  EXPECT_EQ(r.observed[0][8], 0xEE);  // column 2 is outside n: not written
  // The oracle, from the values alone.
  oracle::MatrixD av(2, 2), bv(2, 2);
  av << 1, 2, 3, 4;
  bv << 5, 6, 7, 8;
  const oracle::ElemMatrix c = oracle::mmadResult(DType::S8, av, bv, oracle::MatrixD::Zero(2, 2));
  EXPECT_EQ(static_cast<std::int32_t>(c(1, 1)), 50);
}

TEST(MmadKnownAnswer, GemvReadsAContiguousVectorByHand) {
  // m = 1, k = 40 (two s8 K fractals): A(0, c) = 1 at byte c; B(k, n) = k + n in Zn
  // (((k/32)*1 + 0)*512 + n*32 + k%32): C(0, n) = sum_k (k + n) = 780 + 40 n.
  isa::Program p;
  p.profile = isa::ProfileId::A2;
  isa::Bytes a(512, 0x7F), b(1024, 0);
  for (int c = 0; c < 40; ++c) a[c] = 1;
  for (int k = 0; k < 40; ++k) {
    for (int n = 0; n < 16; ++n)
      b[(k / 32) * 512 + n * 32 + k % 32] = static_cast<std::uint8_t>(k + n);
  }
  p.segments = {{Memory::L0A, 0, a}, {Memory::L0B, 0, b}, {Memory::L0C, 0, isa::Bytes(1024, 0)}};
  isa::Mmad x;
  x.dtype = DType::S8;
  x.m = 1, x.k = 40, x.n = 16;
  p.instructions = {x};
  p.observe = {{Memory::L0C, 0, 1024}};
  auto ref = dut::makeDut("reference");
  const dut::RunResult r = ref->run(p);
  ASSERT_EQ(r.status, dut::RunStatus::Ok) << r.message;
  for (int n = 0; n < 16; ++n) EXPECT_EQ(s32At(r.observed[0], 4 * n), 780 + 40 * n) << n;
  // The same bytes read as a Zz fractal (the mutant) take row 1 of the fractal for k >= 32.
  auto mutant = dut::makeDut("mutant:mmad-gemv-ignored");
  EXPECT_NE(mutant->run(p).observed, r.observed);
}

TEST(MmadKnownAnswer, InfinitySaturatesToMaxFinite) {
  oracle::MatrixD a(1, 1), b(1, 1);
  a << INFINITY;
  b << 1;
  const oracle::ElemMatrix c = oracle::mmadResult(DType::F16, a, b, oracle::MatrixD::Zero(1, 1));
  float v;
  std::memcpy(&v, &c(0, 0), 4);
  EXPECT_EQ(v, FLT_MAX);
}

TEST(MmadReadings, TheSaturationProbeSeparatesTheReadings) {
  gen::MmadCase c;
  c.dtype = DType::S8;
  c.k = 2;
  c.m = 2;
  c.n = 2;
  c.init = isa::MmadInit::Accumulate;
  c.values = gen::MmadValues::SaturationProbe;
  const gen::MmadOperands o = gen::operandsOf(c);
  // By hand: init INT32_MAX - 8064 (16129 / 2); products 127 * 127 = +16129, then 127 * -1.
  // The exact total INT32_MAX + 7938 is past the limit: once at the end gives INT32_MAX; per
  // partial sum the first sum clamps to INT32_MAX, the second gives INT32_MAX - 127; wrapping
  // gives INT32_MAX + 7938 - 2^32 = INT32_MIN + 7937.
  const auto once = gen::expectedC(c, o, oracle::Saturation::Final);
  const auto each = gen::expectedC(c, o, oracle::Saturation::PerPartialSum);
  const auto wrap = gen::expectedC(c, o, oracle::Saturation::Wrap);
  for (Eigen::Index i = 0; i < once.size(); ++i) {
    EXPECT_EQ(static_cast<std::int32_t>(once(i)), INT32_MAX);
    EXPECT_EQ(static_cast<std::int32_t>(each(i)), INT32_MAX - 127);
    EXPECT_EQ(static_cast<std::int32_t>(wrap(i)), INT32_MIN + 7937);
  }
}

TEST(MmadReadings, SaturationOnceOrPerPartialSumByHand) {
  // init INT32_MAX - 100, products +16129 then -16129: once at the end gives INT32_MAX - 100;
  // per partial sum the first step clamps to INT32_MAX, the second leaves INT32_MAX - 16129.
  oracle::MatrixD a(1, 2), b(2, 1), init(1, 1);
  a << 127, 127;
  b << 127, -127;
  init << INT32_MAX - 100.0;
  const auto once = oracle::mmadResult(DType::S8, a, b, init, oracle::Saturation::Final);
  const auto each = oracle::mmadResult(DType::S8, a, b, init, oracle::Saturation::PerPartialSum);
  EXPECT_EQ(static_cast<std::int32_t>(once(0, 0)), INT32_MAX - 100);
  EXPECT_EQ(static_cast<std::int32_t>(each(0, 0)), INT32_MAX - 16129);
}

TEST(MmadReadings, Hf32RoundingByHand) {
  using R = oracle::Hf32Reading::Round;
  const double tie11 = 1 + std::ldexp(1.0, -12);  // half an 11-bit step above 1
  EXPECT_EQ(oracle::roundHf32(tie11, {11, R::NearestEven}), 1.0);
  EXPECT_EQ(oracle::roundHf32(tie11, {11, R::NearestAway}), 1 + std::ldexp(1.0, -11));
  EXPECT_EQ(oracle::roundHf32(tie11, {11, R::NearestTowardZero}), 1.0);
  EXPECT_EQ(oracle::roundHf32(-tie11, {11, R::NearestAway}), -(1 + std::ldexp(1.0, -11)));
  const double above = 1 + 3 * std::ldexp(1.0, -13);  // 0.75 of an 11-bit step
  EXPECT_EQ(oracle::roundHf32(above, {11, R::TowardZero}), 1.0);
  EXPECT_EQ(oracle::roundHf32(above, {11, R::NearestEven}), 1 + std::ldexp(1.0, -11));
  EXPECT_EQ(oracle::roundHf32(above, {10, R::NearestEven}), 1.0);  // 0.375 of a 10-bit step
}

// The bounded comparison of spec 9 by hand: a 2 x 2 f32 C in Nz (element (r, c) of the first
// fractal at byte 4 * (16 r + c)), one element exact, one within its bound, one above it, one NaN.
TEST(BoundedComparison, CountsElementsAboveTheirBoundByHand) {
  oracle::MatrixD exact(2, 2), bound(2, 2);
  exact << 1.0, 2.5, 4.0, 8.0;
  bound << 0.0, 0.25, 0.5, 1.0;
  isa::Bytes image(1024, 0);
  auto put = [&](int r, int c, float v) { std::memcpy(&image[4 * (16 * r + c)], &v, 4); };
  put(0, 0, 1.0f);           // exact
  put(0, 1, 2.0f);           // 0.5 away, bound 0.25: outside
  put(1, 0, 4.25f);          // 0.25 away, bound 0.5: within, 0.25 / ulp(4) = 2^-2 / 2^-21 ULP
  put(1, 1, std::nanf(""));  // NaN is never within a bound
  const conf::BoundCheck got = conf::checkWithinBound(image, 0, exact, bound);
  EXPECT_EQ(got.outside, 2);
  EXPECT_DOUBLE_EQ(got.worstUlp, std::ldexp(1.0, 19));
  EXPECT_NE(got.firstBad.find("C[0][1]: observed 2, exact 2.5"), std::string::npos) << got.firstBad;
  EXPECT_NE(got.firstBad.find("C[1][1]: observed nan"), std::string::npos) << got.firstBad;
  // Offset: the same C one fractal further into the image.
  isa::Bytes shifted(512 + image.size(), 0xFF);
  std::copy(image.begin(), image.end(), shifted.begin() + 512);
  EXPECT_EQ(conf::checkWithinBound(shifted, 512, exact, bound).outside, 2);
}

TEST(MmadValidate, EachRuleHasItsCode) {
  const isa::Profile& a2 = isa::profile(isa::ProfileId::A2);
  isa::Mmad x;
  x.dtype = DType::S4;
  x.m = 16, x.k = 33, x.n = 16;
  EXPECT_EQ(isa::validate(a2, x)->code, isa::ViolationCode::Range);  // odd k for s4
  x.k = 32;
  EXPECT_FALSE(isa::validate(a2, x));
  x.unitFlag = 1;
  EXPECT_EQ(isa::validate(a2, x)->code, isa::ViolationCode::Range);
  x.unitFlag = 0;
  x.cAddr = 512;
  EXPECT_EQ(isa::validate(a2, x)->code, isa::ViolationCode::Alignment);
  x.cAddr = a2.capacityOf(Memory::L0C);
  EXPECT_EQ(isa::validate(a2, x)->code, isa::ViolationCode::Capacity);
  x.cAddr = 0;
  x.dtype = DType::U8;
  EXPECT_EQ(isa::validate(a2, x)->code, isa::ViolationCode::DTypeUnsupported);
}

TEST(MmadValidate, NoS4On950) {
  // Spec 8.1.2: the 950 Cube has no s4. The same instruction is legal on a2.
  isa::Mmad x;
  x.dtype = DType::S4;
  x.m = 16, x.k = 64, x.n = 16;
  EXPECT_FALSE(isa::validate(isa::profile(isa::ProfileId::A2), x));
  const auto v = isa::validate(isa::profile(isa::ProfileId::Ascend950), x);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->code, isa::ViolationCode::DTypeUnsupported);
  EXPECT_NE(v->message.find("8.1.2"), std::string::npos) << v->message;
}

TEST(MmadGenerators, NoS4DrawnOn950) {
  const auto types = gen::mmadDTypes(isa::ProfileId::Ascend950);
  EXPECT_EQ(std::count(types.begin(), types.end(), DType::S4), 0);
  const auto a2 = gen::mmadDTypes(isa::ProfileId::A2);
  EXPECT_EQ(std::count(a2.begin(), a2.end(), DType::S4), 1);
  for (const gen::MmadCase& c : gen::mmadBoundaries(isa::ProfileId::Ascend950)) {
    EXPECT_NE(c.dtype, DType::S4) << c.why;
  }
  for (int seed = 0; seed < 200; ++seed) {
    const gen::MmadCase c = gen::legalMmad(isa::ProfileId::Ascend950)(rc::Random(seed), 50).value();
    EXPECT_NE(c.dtype, DType::S4);
    const gen::MmadCase p = gen::mmadProbe(isa::ProfileId::Ascend950,
                                           gen::MmadValues::SaturationProbe)(rc::Random(seed), 50)
                                .value();
    EXPECT_NE(p.dtype, DType::S4);
  }
}

// disable_gemv at its legal maximum with m = 1, where it decides (950) or is ignored (spec 8:
// a2 and legacy read A as a vector whatever it says), on every profile.
TEST(MmadGenerators, BoundaryTablesSetDisableGemvOnAGemvShape) {
  const isa::InstructionDesc* desc = isa::findInstructionDesc(isa::Mmad::kOpcode);
  ASSERT_NE(desc, nullptr);
  const isa::FieldDesc* f = isa::findField(*desc, "disable_gemv");
  ASSERT_NE(f, nullptr);
  for (isa::ProfileId id : isa::kAllProfiles) {
    bool held = false;
    for (const gen::MmadCase& c : gen::mmadBoundaries(id)) {
      const isa::Mmad x = gen::mmadOf(c);
      if (x.m != 1 || f->get(isa::Instruction(x)) != f->legalMax) continue;
      EXPECT_FALSE(isa::validate(isa::profile(id), x).has_value()) << c;
      held = true;
    }
    EXPECT_TRUE(held) << "disable_gemv = " << f->legalMax << " with m = 1 on "
                      << isa::profile(id).name;
  }
}

/// The values of A and B (and of the init) a regime draws, as a sorted set.
std::set<double> valuesOf(const gen::MmadCase& c, bool init) {
  const gen::MmadOperands o = gen::operandsOf(c);
  std::set<double> seen;
  const oracle::MatrixD a = o.a.cast<double>(), b = o.b.cast<double>();
  for (const oracle::MatrixD* m : {&a, &b, &o.c0, &o.bias}) {
    if ((m == &o.c0 || m == &o.bias) != init) continue;
    seen.insert(m->data(), m->data() + m->size());
  }
  return seen;
}

// Each operand value is reduced by multiply-shift from a quarter of a SplitMix64 step (A and B of
// the exact regime) or half of one (the rest): every value of each regime's grid is drawn, its
// two ends included, and nothing off it.
TEST(MmadGenerators, OperandsReachEveryValueOfTheirGridAndNoOther) {
  gen::MmadCase c;
  c.m = c.k = c.n = 128;
  c.contentSeed = 3;
  auto grid = [](std::int64_t lo, std::int64_t hi, double unit) {
    std::set<double> g;
    for (std::int64_t v = lo; v <= hi; ++v) g.insert(static_cast<double>(v) * unit);
    return g;
  };
  c.dtype = DType::F16;
  EXPECT_EQ(valuesOf(c, false), grid(-32, 32, 0.25));  // multiples of 2^-2 up to 8
  c.dtype = DType::S8;
  EXPECT_EQ(valuesOf(c, false), grid(-128, 127, 1));
  c.dtype = DType::S4;
  EXPECT_EQ(valuesOf(c, false), grid(-8, 7, 1));
  // The init's spans are too long to be drawn whole: on the grid, within it, reaching both halves.
  c.dtype = DType::F32;
  for (double v : valuesOf(c, true)) {
    EXPECT_EQ(v * 16, std::floor(v * 16)) << v;
    EXPECT_LE(std::abs(v), 0x1p18) << v;
  }
  EXPECT_LT(*valuesOf(c, true).begin(), -0x1p17);
  EXPECT_GT(*valuesOf(c, true).rbegin(), 0x1p17);
  c.dtype = DType::F16;
  c.k = 4095;  // grids of 2047 and 4095 values: about 64 draws of each
  c.values = gen::MmadValues::MaxFinite;
  std::set<double> maxFinite = grid(-2047, 2047, 32);  // 32 x 2047 = 65504, f16's largest
  maxFinite.merge(grid(-2, 2, 1));                     // B
  EXPECT_EQ(valuesOf(c, false), maxFinite);
  c.values = gen::MmadValues::Subnormal;
  std::set<double> subnormal = grid(-1023, 1023, 0x1p-24);
  subnormal.merge(grid(-4, 4, 1));
  EXPECT_EQ(valuesOf(c, false), subnormal);
  c.dtype = DType::F32;
  c.values = gen::MmadValues::Hf32Probe;
  std::set<double> hf32 = grid(1, 3, 1);
  for (int t = 0; t < 64; ++t) {
    for (int e = -2; e <= 2; ++e) {
      for (double sign : {1.0, -1.0}) hf32.insert(sign * std::ldexp(1 + std::ldexp(t, -13), e));
    }
  }
  EXPECT_EQ(valuesOf(c, false), hf32);
}

// The exact regime's condition 4 (spec 8.1.6.3, spec 9): with every A value a multiple of qA up to
// MA, every B value of qB up to MB and every initial value a multiple of Q = qA qB up to I, I + k
// MA MB <= 2^24 Q makes every product and partial sum an f32 in any order. Checked on what each
// float regime that claims exactness actually draws, at the largest K.
TEST(MmadGenerators, ExactFloatRegimesMeetConditionFourAtTheLargestK) {
  struct Regime {
    DType dtype;
    gen::MmadValues values;
  };
  for (const Regime& r :
       {Regime{DType::F16, gen::MmadValues::Exact}, Regime{DType::BF16, gen::MmadValues::Exact},
        Regime{DType::F32, gen::MmadValues::Exact}, Regime{DType::F16, gen::MmadValues::Subnormal},
        Regime{DType::F16, gen::MmadValues::MaxFinite}}) {
    SCOPED_TRACE(std::string(isa::nameOf(r.dtype)) + " " + std::string(gen::nameOf(r.values)));
    gen::MmadCase c;
    c.dtype = r.dtype;
    c.values = r.values;
    c.m = 64;
    c.k = 4095;
    c.n = 64;
    c.contentSeed = 11;
    const gen::MmadOperands o = gen::operandsOf(c);
    auto low = [](const auto& m) {
      int q = INT_MAX;
      for (Eigen::Index i = 0; i < m.size(); ++i) {
        if (m(i) != 0) q = std::min(q, oracle::lowestBitExponent(m(i)));
      }
      return q;
    };
    const int q = low(o.a) + low(o.b);
    const double largest = std::max(o.c0.cwiseAbs().maxCoeff(), o.bias.cwiseAbs().maxCoeff());
    EXPECT_GE(std::min(low(o.c0), low(o.bias)), q);  // the init on the products' grid
    EXPECT_LE(largest + c.k * double{o.a.cwiseAbs().maxCoeff()} * o.b.cwiseAbs().maxCoeff(),
              std::ldexp(1.0, 24 + q));
  }
}

// --- Init flags, overflow from finite operands, mode registers -------------------------------

std::vector<gen::MmadCase> drawsOf(isa::ProfileId id, int count) {
  std::vector<gen::MmadCase> out;
  for (int seed = 0; seed < count; ++seed) {
    out.push_back(gen::legalMmad(id)(rc::Random(static_cast<std::uint64_t>(seed)), 50).value());
  }
  return out;
}

std::set<std::string> tagsOfAll(const std::vector<gen::MmadCase>& cases) {
  std::set<std::string> seen;
  for (const gen::MmadCase& c : cases) {
    for (const std::string& t : gen::tagsOf(c)) seen.insert(t);
  }
  return seen;
}

bool isRequired(const conf::Family& f, const std::string& bin) {
  return std::find(f.requiredBins.begin(), f.requiredBins.end(), bin) != f.requiredBins.end();
}

// Spec 8: is_bias takes the bias tensor whatever cmatrix_init_val and cmatrix_source say, and
// cmatrix_init_val (without is_bias) zero whatever cmatrix_source says. All eight settings are
// legal; each must be sent by the boundary table (every run, every level) and by random draws,
// and be a required bin, or a DUT that lets an overridden flag win is certified.
TEST(MmadInitFlags, EveryCombinationIsSentByTableAndDrawsAndRequired) {
  const std::vector<std::string> bins = gen::initFlagsBins();
  ASSERT_EQ(std::set<std::string>(bins.begin(), bins.end()).size(), 8u);
  for (isa::ProfileId id : {isa::ProfileId::A2, isa::ProfileId::Ascend950}) {
    SCOPED_TRACE(std::string(isa::profile(id).name));
    const std::vector<gen::MmadCase> table = gen::mmadBoundaries(id);
    const std::vector<gen::MmadCase> draws = drawsOf(id, 400);
    for (const std::vector<gen::MmadCase>* cases : {&table, &draws}) {
      std::set<std::string> held;
      for (const gen::MmadCase& c : *cases) {
        const isa::Mmad x = gen::mmadOf(c);
        // The flags sent select the init the expectation is computed from.
        EXPECT_EQ(isa::initOf(x), c.init) << c;
        if (c.m > 0 && c.k > 0 && c.n > 0) held.insert(gen::initFlagsTag(x));
        // With is_bias and cmatrix_source, the table row at 0 must differ from the tensor.
        if (x.isBias && x.cmatrixSource && cases == &table) {
          EXPECT_NE(x.biasAddr, 0u) << c;
        }
      }
      for (const std::string& b : bins) {
        EXPECT_EQ(held.count(b), 1u) << b << (cases == &table ? " (table)" : " (draws)");
      }
    }
    const conf::Family f = conf::mmadFamily(id);
    for (const std::string& b : bins) EXPECT_TRUE(isRequired(f, b)) << b;
  }
}

/// A small f16, bf16 or f32 case of `values` for seed `seed` (1, 2, ...): shapes up to 7 x 23 x 6
/// and each init in turn, so that a few hundred seeds meet every type, init and shape class.
gen::MmadCase smallFloatCase(gen::MmadValues values, std::uint64_t seed) {
  gen::MmadCase c;
  c.profile = isa::ProfileId::A2;
  c.values = values;
  c.dtype = std::array{DType::F16, DType::BF16, DType::F32}[seed % 3];
  c.m = static_cast<std::uint16_t>(1 + seed % 7);
  c.n = static_cast<std::uint16_t>(1 + (seed / 7) % 6);
  c.k = static_cast<std::uint16_t>(1 + (seed * 5) % 23);
  c.init = std::array{isa::MmadInit::Zero, isa::MmadInit::Accumulate, isa::MmadInit::BiasTable,
                      isa::MmadInit::BiasTensor}[(seed / 3) % 4];
  c.contentSeed = seed;
  return c;
}

// MmadValues::ScatteredSpecials (red team, round 10): infinities and subnormals at random places
// on both sides, over any init and with HF32. Its C must not depend on the order a DUT adds in:
// f32 sums in ascending and in descending k, each saturated at the end (NaN to 0, +-inf to
// +-FLT_MAX), give the oracle's C bit for bit (a zero's sign aside, OPEN-15). And the operands
// hold what the tags say: infinities on both sides, and subnormals where tagged.
TEST(MmadScattered, EveryOrderOfAdditionGivesTheOraclesC) {
  std::size_t subnormalA = 0, subnormalB = 0, infinities = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    gen::MmadCase c = smallFloatCase(gen::MmadValues::ScatteredSpecials, seed);
    c.hf32 = c.dtype == DType::F32 && seed % 2 == 0;
    SCOPED_TRACE(::testing::Message() << c);
    const gen::MmadOperands o = gen::operandsOf(c);
    const oracle::MatrixD init = o.init(c.init);
    const oracle::ElemMatrix want = gen::expectedC(c, o);
    auto saturated = [](float v) {
      if (std::isnan(v)) return 0.0f;
      return std::isinf(v) ? std::copysign(FLT_MAX, v) : v;
    };
    for (Eigen::Index i = 0; i < c.m; ++i) {
      for (Eigen::Index j = 0; j < c.n; ++j) {
        float up = static_cast<float>(init(i, j)), down = up;
        for (Eigen::Index kk = 0; kk < c.k; ++kk) {
          up += static_cast<float>(o.a(i, kk)) * static_cast<float>(o.b(kk, j));
          down +=
              static_cast<float>(o.a(i, c.k - 1 - kk)) * static_cast<float>(o.b(c.k - 1 - kk, j));
        }
        for (const float v : {saturated(up), saturated(down)}) {
          const float w = std::bit_cast<float>(want(i, j));
          EXPECT_TRUE(v == w) << "C(" << i << ", " << j << "): " << v << " against " << w;
        }
      }
    }
    const std::vector<std::string> tags = gen::tagsOf(c);
    auto tagged = [&](const char* t) { return std::count(tags.begin(), tags.end(), t) == 1; };
    auto holds = [](const auto& m, auto pred) {
      return std::any_of(m.data(), m.data() + m.size(), pred);
    };
    const auto subnormal = [](double v) {
      return std::fpclassify(static_cast<float>(v)) == FP_SUBNORMAL ||
             (v != 0 && std::fabs(v) < 0x1p-14);
    };
    const auto infinite = [](double v) { return std::isinf(v); };
    EXPECT_TRUE(tagged("special:scattered"));
    EXPECT_TRUE(holds(o.a, infinite) && holds(o.b, infinite));
    infinities += 1;
    if (tagged("special:scattered_subnormal_a")) {
      EXPECT_TRUE(holds(o.a, subnormal));
      ++subnormalA;
    }
    if (tagged("special:scattered_subnormal_b")) {
      EXPECT_TRUE(holds(o.b, subnormal));
      ++subnormalB;
    }
  }
  EXPECT_GT(subnormalA, 20u);
  EXPECT_GT(subnormalB, 20u);
}

// MmadValues::Scaled (red team, round 11, F1): the exact grid scaled by powers of two across each
// type's exponent range, over every init. Its C must not depend on the order a DUT adds in: f32
// sums in ascending and in descending k give the oracle's C bit for bit, and each is the exact
// sum (no addition rounded). The operands are exact in their type, and hold the magnitudes the
// tags claim: row 0 of A, column 0 of B, C(0, 0)'s init.
TEST(MmadScaled, EveryOrderOfAdditionGivesTheOraclesC) {
  std::map<std::string, std::size_t> seen;
  for (std::uint64_t seed = 1; seed <= 600; ++seed) {
    gen::MmadCase c = smallFloatCase(gen::MmadValues::Scaled, seed);
    if (seed % 50 == 0) c.k = 4095;  // the longest sums: still below 2^23 units
    SCOPED_TRACE(::testing::Message() << c);
    const gen::MmadOperands o = gen::operandsOf(c);
    const oracle::MatrixD init = o.init(c.init);
    const oracle::ElemMatrix want = gen::expectedC(c, o);
    for (const oracle::MatrixD& v :
         {oracle::MatrixD(o.a.cast<double>()), oracle::MatrixD(o.b.cast<double>())}) {
      const oracle::MatrixD back = oracle::valuesOf(oracle::bitsOf(v, c.dtype), c.dtype);
      ASSERT_TRUE(back == v) << "an operand not exact in its type";
    }
    for (Eigen::Index i = 0; i < c.m; ++i) {
      for (Eigen::Index j = 0; j < c.n; ++j) {
        float up = static_cast<float>(init(i, j)), down = up;
        ASSERT_EQ(static_cast<double>(up), init(i, j)) << "an init not exact in f32";
        double exact = init(i, j);
        for (Eigen::Index kk = 0; kk < c.k; ++kk) {
          up += static_cast<float>(o.a(i, kk)) * static_cast<float>(o.b(kk, j));
          down +=
              static_cast<float>(o.a(i, c.k - 1 - kk)) * static_cast<float>(o.b(c.k - 1 - kk, j));
          exact += static_cast<double>(o.a(i, kk)) * static_cast<double>(o.b(kk, j));
        }
        const float w = std::bit_cast<float>(want(i, j));
        ASSERT_TRUE(up == w && down == w && static_cast<double>(w) == exact)
            << "C(" << i << ", " << j << "): " << up << ", " << down << " against " << w;
      }
    }
    const std::vector<std::string> tags = gen::tagsOf(c);
    auto tagged = [&](const std::string& t) {
      return std::count(tags.begin(), tags.end(), t) == 1;
    };
    for (const std::string& t : tags) {
      if (t.starts_with("scaled")) ++seen[t];
    }
    EXPECT_TRUE(tagged("scaled"));
    auto all = [](const auto& line, auto pred) {
      for (Eigen::Index x = 0; x < line.size(); ++x) {
        if (!pred(std::fabs(static_cast<double>(line(x))))) return false;
      }
      return true;
    };
    const auto large = [](double v) { return v >= 0x1p20 && v <= 0x1p127; };
    const auto tiny = [](double v) { return v >= 0x1p-126 && v < 0x1p-80; };
    const auto large16 = [](double v) { return v >= 1024; };
    if (tagged("scaled:a_large")) {
      EXPECT_TRUE(all(o.a.row(0), large));
    }
    if (tagged("scaled:b_large")) {
      EXPECT_TRUE(all(o.b.col(0), large));
    }
    if (tagged("scaled:a_tiny")) {
      EXPECT_TRUE(all(o.a.row(0), tiny));
    }
    if (tagged("scaled:b_tiny")) {
      EXPECT_TRUE(all(o.b.col(0), tiny));
    }
    if (tagged("scaled:f16_a_large")) {
      EXPECT_TRUE(all(o.a.row(0), large16));
    }
    if (tagged("scaled:f16_b_large")) {
      EXPECT_TRUE(all(o.b.col(0), large16));
    }
    const double start = std::fabs(init(0, 0));
    const bool subnormal = start > 0 && start < 0x1p-126;
    const bool bigInit = start >= 0x1p22 && start < 0x1p100;
    if (tagged("scaled:l0c_subnormal") || tagged("scaled:bias_subnormal")) {
      EXPECT_TRUE(subnormal);
    }
    if (tagged("scaled:l0c_large") || tagged("scaled:bias_large")) {
      EXPECT_TRUE(bigInit);
    }
  }
  for (const char* t : {"scaled:a_large", "scaled:b_large", "scaled:a_tiny", "scaled:b_tiny",
                        "scaled:f16_a_large", "scaled:f16_b_large", "scaled:l0c_subnormal",
                        "scaled:l0c_large", "scaled:bias_subnormal", "scaled:bias_large"}) {
    EXPECT_GE(seen[t], 5u) << t;
  }
}

// Spec 8's saturation mode turns an infinite result into +-FLT_MAX, also when the operands are
// finite and only their sum overflows. Rows 6 and 7 of MmadValues::Special (bf16, f32): two
// products of +-1.5 x 2^127 in odd columns, 0 in even ones. Checked on the boundary table's
// special cases, which every run runs.
TEST(MmadSpecial, FiniteOperandsOverflowingSaturateByHand) {
  std::set<DType> seen;
  for (const gen::MmadCase& c : gen::mmadBoundaries(isa::ProfileId::A2)) {
    if (c.values != gen::MmadValues::Special) continue;
    const DType t = c.dtype;
    seen.insert(t);
    SCOPED_TRACE(std::string(isa::nameOf(t)));
    ASSERT_GT(c.m, 7);
    ASSERT_GT(c.n, 1);
    const gen::MmadOperands o = gen::operandsOf(c);
    const oracle::ElemMatrix got = gen::expectedC(c, o);
    const std::vector<std::string> tags = gen::tagsOf(c);
    const bool wide = t != DType::F16;
    for (const char* tag : {"special:overflow_positive", "special:overflow_negative"}) {
      EXPECT_EQ(std::count(tags.begin(), tags.end(), tag), wide ? 1 : 0) << tag;
    }
    if (!wide) continue;
    for (Eigen::Index row : {6, 7}) {
      const float sign = row == 6 ? 1.0f : -1.0f;
      for (Eigen::Index j = 0; j < c.n; ++j) {
        // Every product of the row has the row's sign, and the row starts from zero.
        float forward = 0, backward = 0;
        for (Eigen::Index kk = 0; kk < c.k; ++kk) {
          const float p = o.a(row, kk) * o.b(kk, j);
          EXPECT_FALSE(std::signbit(p) != std::signbit(sign) && p != 0) << row << ", " << kk;
          EXPECT_TRUE(std::isfinite(o.a(row, kk))) << row << ", " << kk;
          forward += p;
        }
        for (Eigen::Index kk = c.k; kk-- > 0;) backward += o.a(row, kk) * o.b(kk, j);
        if (j % 2 == 1) {
          // Any f32 order overflows: a DUT that lets it out as inf, or as 0, is seen.
          EXPECT_TRUE(std::isinf(forward) && std::isinf(backward)) << j;
          EXPECT_EQ(got(row, j), std::bit_cast<std::uint32_t>(sign * FLT_MAX)) << j;
        } else {
          EXPECT_EQ(got(row, j), 0u) << j;
        }
      }
    }
  }
  EXPECT_EQ(seen, (std::set<DType>{DType::F16, DType::BF16, DType::F32}));
  for (isa::ProfileId id : {isa::ProfileId::A2, isa::ProfileId::Ascend950}) {
    const std::set<std::string> held = tagsOfAll(gen::mmadBoundaries(id));
    const conf::Family f = conf::mmadFamily(id);
    for (const char* tag : {"special:overflow_positive", "special:overflow_negative"}) {
      EXPECT_EQ(held.count(tag), 1u) << tag;
      EXPECT_TRUE(isRequired(f, tag)) << tag;
    }
  }
}

/// Whether the program sets the mode register `R` on before its Mmad.
template <class R>
bool setsOn(const isa::Program& p) {
  for (const isa::Instruction& ins : p.instructions) {
    if (std::holds_alternative<isa::Mmad>(ins)) return false;
    if (const R* r = std::get_if<R>(&ins); r != nullptr && r->enable) return true;
  }
  return false;
}

// HF32 (spec 8: it rounds f32 operands only) and CTRL[45] (spec 8.1.5: it reaches e4m3fn x
// e4m3fn only) are sent on before the dense Mmads they must not change, every type with every
// init, and before f32 with every init (HF32 never rounds the init), by the table and by draws.
TEST(MmadModeRegisters, SetOnBeforeEveryTypeAndInitByTableAndDraws) {
  const std::vector<isa::MmadInit> inits{isa::MmadInit::Zero, isa::MmadInit::Accumulate,
                                         isa::MmadInit::BiasTable, isa::MmadInit::BiasTensor};
  for (isa::ProfileId id : {isa::ProfileId::A2, isa::ProfileId::Ascend950}) {
    SCOPED_TRACE(std::string(isa::profile(id).name));
    const bool ctrl45 = id == isa::ProfileId::Ascend950;
    // (register, type, init) -> held by the table
    std::set<std::tuple<char, DType, isa::MmadInit>> held;
    for (const gen::MmadCase& c : gen::mmadBoundaries(id)) {
      const isa::Program p = gen::buildProgram(c);
      for (const isa::Instruction& ins : p.instructions) {
        EXPECT_FALSE(isa::validate(isa::profile(id), ins).has_value()) << c;
      }
      EXPECT_EQ(setsOn<isa::SetHF32>(p), c.hf32) << c;
      EXPECT_EQ(setsOn<isa::SetHiF8Mode>(p), c.hif8Mode) << c;
      if (c.hf32) held.insert({'h', c.dtype, c.init});
      if (c.hif8Mode) held.insert({'c', c.dtype, c.init});
    }
    for (DType d : gen::mmadDTypes(id)) {
      for (isa::MmadInit i : inits) {
        const std::string what = std::string(isa::nameOf(d)) + " " + std::string(isa::nameOf(i));
        EXPECT_EQ(held.count({'h', d, i}), 1u) << "HF32 on, " << what;
        if (ctrl45) {
          EXPECT_EQ(held.count({'c', d, i}), 1u) << "CTRL[45] on, " << what;
        }
      }
    }
    const std::set<std::string> drawn = tagsOfAll(drawsOf(id, 600));
    const conf::Family f = conf::mmadFamily(id);
    std::vector<std::string> bins;
    for (DType d : gen::mmadDTypes(id)) {
      if (d != DType::F32) bins.push_back("hf32:on:" + std::string(isa::nameOf(d)));
      if (ctrl45) bins.push_back("ctrl45:on:" + std::string(isa::nameOf(d)));
    }
    for (isa::MmadInit i : inits) bins.push_back("hf32:init:" + std::string(isa::nameOf(i)));
    const std::set<std::string> tabled = tagsOfAll(gen::mmadBoundaries(id));
    for (const std::string& b : bins) {
      EXPECT_EQ(tabled.count(b), 1u) << b << " (table)";
      EXPECT_EQ(drawn.count(b), 1u) << b << " (draws)";
      EXPECT_TRUE(isRequired(f, b)) << b;
    }
    EXPECT_EQ(drawn.count("ctrl45:on:s8"), ctrl45 ? 1u : 0u);
  }
}

/// The reference, wrong in one situation only: `rewrite` changes the program it is given (a DUT
/// that misreads a flag), `spoil` says when to flip a bit of C(0, 0) afterwards (a DUT wrong
/// only beside a mode register).
class Mutant final : public dut::Dut {
 public:
  std::function<void(isa::Program&)> rewrite = [](isa::Program&) {};
  std::function<bool(const isa::Program&)> spoil = [](const isa::Program&) { return false; };
  const dut::Capabilities& capabilities() const override { return inner_->capabilities(); }
  dut::RunResult run(const isa::Program& program) override {
    isa::Program p = program;
    rewrite(p);
    dut::RunResult r = inner_->run(p);
    if (r.status != dut::RunStatus::Ok || !spoil(program)) return r;
    for (const isa::Instruction& ins : program.instructions) {
      const isa::Mmad* x = std::get_if<isa::Mmad>(&ins);
      if (x == nullptr || x->m == 0 || x->k == 0 || x->n == 0) continue;
      r.observed.at(0).at(x->cAddr - program.observe.at(0).addr) ^= 1;
    }
    return r;
  }

 private:
  std::unique_ptr<dut::Dut> inner_ = dut::makeDut("reference");
};

/// Applies f to every legal Mmad and MmadMx of the program: the mutants leave the illegal ones
/// (the rejection cases) alone, which would be caught for other reasons.
template <class F>
void eachLegalMmad(isa::Program& p, F f) {
  for (isa::Instruction& ins : p.instructions) {
    const bool legal = !isa::validate(isa::profile(p.profile), ins).has_value();
    std::visit(
        [&](auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, isa::Mmad> || std::is_same_v<T, isa::MmadMx>) {
            if (legal) f(x);
          }
        },
        ins);
  }
}

/// The last dense Mmad of the program, or nullptr.
const isa::Mmad* mmadIn(const isa::Program& p) {
  const isa::Mmad* x = nullptr;
  for (const isa::Instruction& ins : p.instructions) {
    if (const isa::Mmad* y = std::get_if<isa::Mmad>(&ins)) x = y;
  }
  return x;
}

// Each DUT is wrong only where the red team's were (an overridden init flag that wins, a mode
// register that changes a type it must not): a smoke run of its family must not certify it.
TEST(MmadMutants, WrongOnlyBesideAnOverriddenFlagOrAModeRegisterAreCaughtAtSmoke) {
  struct Case {
    const char* name;
    isa::ProfileId profile;
    const char* family;
    std::function<void(Mutant&)> make;
  };
  const auto initValOverBias = [](Mutant& m) {
    m.rewrite = [](isa::Program& p) {
      eachLegalMmad(p, [](auto& x) {
        if (x.isBias && x.cmatrixInitVal) x.isBias = false;
      });
    };
  };
  const auto sourceOverBias = [](Mutant& m) {
    m.rewrite = [](isa::Program& p) {
      eachLegalMmad(p, [](auto& x) {
        if (x.isBias && x.cmatrixSource) x.isBias = x.cmatrixInitVal = false;
      });
    };
  };
  auto hf32On = [](DType d, std::optional<isa::MmadInit> init) {
    return [d, init](Mutant& m) {
      m.spoil = [d, init](const isa::Program& p) {
        const isa::Mmad* x = mmadIn(p);
        return setsOn<isa::SetHF32>(p) && x != nullptr && x->dtype == d &&
               (!init || isa::initOf(*x) == *init);
      };
    };
  };
  std::vector<Case> cases{
      {"cmatrix_init_val wins over is_bias", isa::ProfileId::A2, "mmad", initValOverBias},
      {"cmatrix_source wins over is_bias (table row at 0)", isa::ProfileId::Ascend950, "mmad",
       sourceOverBias},
      {"MmadMx: cmatrix_init_val wins over is_bias", isa::ProfileId::Ascend950, "mmad_mx",
       initValOverBias},
      {"MmadMx: cmatrix_source wins over is_bias", isa::ProfileId::Ascend950, "mmad_mx",
       sourceOverBias},
      {"MmadMx: cmatrix_source wins over cmatrix_init_val", isa::ProfileId::Ascend950, "mmad_mx",
       [](Mutant& m) {
         m.rewrite = [](isa::Program& p) {
           eachLegalMmad(p, [](auto& x) {
             if (!x.isBias && x.cmatrixInitVal && x.cmatrixSource) x.cmatrixInitVal = false;
           });
         };
       }},
      {"s8 changed by CTRL[45]", isa::ProfileId::Ascend950, "mmad",
       [](Mutant& m) {
         m.spoil = [](const isa::Program& p) {
           const isa::Mmad* x = mmadIn(p);
           return setsOn<isa::SetHiF8Mode>(p) && x != nullptr && x->dtype == DType::S8;
         };
       }},
      {"f16 changed by HF32", isa::ProfileId::A2, "mmad", hf32On(DType::F16, std::nullopt)},
      {"s4 changed by HF32", isa::ProfileId::A2, "mmad", hf32On(DType::S4, std::nullopt)},
      {"f32 bias tensor changed by HF32", isa::ProfileId::A2, "mmad",
       hf32On(DType::F32, isa::MmadInit::BiasTensor)},
      {"f32 bias table changed by HF32", isa::ProfileId::A2, "mmad",
       hf32On(DType::F32, isa::MmadInit::BiasTable)},
  };
  auto smoke = [](Mutant& m, isa::ProfileId profile, const char* family) {
    conf::RunOptions o;
    o.profile = profile;
    o.level = conf::Level::Smoke;
    o.seed = 7;
    o.families = {family};
    return conf::certify(m, o);
  };
  // The wrapper itself changes nothing: unmutated, it is certified.
  for (const auto& [profile, family] :
       {std::pair{isa::ProfileId::A2, "mmad"}, std::pair{isa::ProfileId::Ascend950, "mmad"},
        std::pair{isa::ProfileId::Ascend950, "mmad_mx"}}) {
    Mutant m;
    const conf::CertifyResult r = smoke(m, profile, family);
    EXPECT_TRUE(r.conformant()) << family << ": " << r.headline();
  }
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    Mutant m;
    k.make(m);
    const conf::CertifyResult r = smoke(m, k.profile, k.family);
    EXPECT_FALSE(r.conformant()) << r.headline();
  }
}

TEST(MmadText, RoundTrips) {
  isa::Mmad x;
  x.dtype = DType::BF16;
  x.m = 4095, x.k = 7, x.n = 1;
  x.isBias = true;
  x.biasAddr = 64;
  x.disableGemv = true;
  for (const isa::Instruction& ins :
       {isa::Instruction{x}, isa::Instruction{isa::SetHF32{true, 1}}}) {
    std::string error;
    const auto back = isa::parseInstruction(isa::toText(ins), error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(*back, ins);
  }
}

}  // namespace
}  // namespace cubecheck
