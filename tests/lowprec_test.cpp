// The low-precision decoders of spec 8.1.1, on both sides (oracle and reference), pinned to the
// SHA-256 checksums of appendix A's canonical check files.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "conformance/runner.hpp"
#include "conformance/sha256.hpp"
#include "dut_adapters/reference/lowprec_decode.hpp"
#include "dut_adapters/registry.hpp"
#include "generators/lowprec.hpp"
#include "generators/mmad.hpp"
#include "oracle/lowprec.hpp"

namespace cubecheck {
namespace {

using isa::DType;

// Appendix A: one line per code, "%02x %08x\n" of (code, f32 bit pattern of the value), "nan"
// in place of the pattern for a NaN; e8m0: "%02x %d\n" of (code, c - 127), "nan" for 0xFF.
std::string checkLine(unsigned code, std::uint32_t f32bits) {
  char buf[32];
  if (std::isnan(std::bit_cast<float>(f32bits))) {
    std::snprintf(buf, sizeof buf, "%02x nan\n", code);
  } else {
    std::snprintf(buf, sizeof buf, "%02x %08x\n", code, static_cast<unsigned>(f32bits));
  }
  return buf;
}

unsigned codesOf(DType t) {
  return isa::bitsOf(t) == 4 ? 16 : 256;
}

std::string checkFile(DType t, const std::function<std::uint32_t(std::uint8_t)>& bits) {
  std::string s;
  for (unsigned c = 0; c < codesOf(t); ++c) s += checkLine(c, bits(static_cast<std::uint8_t>(c)));
  return s;
}

std::uint32_t oracleBits(DType t, std::uint8_t c) {
  // Every finite value is exact in f32 (spec 8.1.1), so the conversion loses nothing.
  return std::bit_cast<std::uint32_t>(static_cast<float>(oracle::lowPrecisionValue(t, c)));
}

struct Sum {
  DType type;
  const char* sha256;  // appendix A
};
constexpr Sum kSums[] = {
    {DType::Fp8E4M3FN, "304ae2ae7f2ef1eaa5bb1cb24dfc58591e28784dd256e3f6577716db826e0f58"},
    {DType::Fp8E5M2, "842fba9f835548839ee5f227d4ee5df6b7b2c60671a04c4e3a30e88f4372fca3"},
    {DType::HiF8, "2f5b387e5c9641a55d5befd7548280eb8c6731526edb34603cb8a5b22dccffc4"},
    {DType::Fp4E2M1, "493ffd3218976b05a47d5a1f94c13fc26d2a86723fa921fee4c478436be06c4a"},
    {DType::Fp4E1M2, "b0fee611a6a7b678463c0ed6c611079f7a7b8975cf5e8680a5965cc1f592e45a"},
};
constexpr const char* kE8M0Sum = "2d0f12009c0b56aac0be11e86c78052ad553c4cfb55ca1a5f6e56d7320ae06d3";

TEST(LowPrecisionDecode, Sha256KnownAnswers) {
  // FIPS 180-2 appendix B.1 and the empty string: the hash itself before it judges the tables.
  EXPECT_EQ(conf::sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(conf::sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(conf::sha256Hex(std::string(1000, 'a')).size(), 64u);
}

TEST(LowPrecisionDecode, OracleTablesMatchAppendixA) {
  for (const Sum& s : kSums) {
    EXPECT_EQ(
        conf::sha256Hex(checkFile(s.type, [&](std::uint8_t c) { return oracleBits(s.type, c); })),
        s.sha256)
        << isa::nameOf(s.type);
  }
  std::string e8m0;
  for (unsigned c = 0; c < 256; ++c) {
    char buf[32];
    if (std::isnan(oracle::e8m0Value(static_cast<std::uint8_t>(c)))) {
      std::snprintf(buf, sizeof buf, "%02x nan\n", c);
    } else {
      std::snprintf(buf, sizeof buf, "%02x %d\n", c,
                    oracle::e8m0Exponent(static_cast<std::uint8_t>(c)));
      EXPECT_EQ(oracle::e8m0Value(static_cast<std::uint8_t>(c)),
                std::ldexp(1.0, oracle::e8m0Exponent(static_cast<std::uint8_t>(c))));
    }
    e8m0 += buf;
  }
  EXPECT_EQ(conf::sha256Hex(e8m0), kE8M0Sum);
}

TEST(LowPrecisionDecode, ReferenceTablesMatchAppendixA) {
  for (const Sum& s : kSums) {
    EXPECT_EQ(conf::sha256Hex(checkFile(
                  s.type, [&](std::uint8_t c) { return dut::lowPrecisionBits(s.type, c); })),
              s.sha256)
        << isa::nameOf(s.type);
  }
  std::string e8m0;
  for (unsigned c = 0; c < 256; ++c) {
    const float v = std::bit_cast<float>(dut::e8m0Bits(static_cast<std::uint8_t>(c)));
    char buf[32];
    if (std::isnan(v)) {
      std::snprintf(buf, sizeof buf, "%02x nan\n", c);
    } else {
      int e = 0;
      const float frac = std::frexp(v, &e);  // v = 0.5 * 2^e: a power of two
      EXPECT_EQ(frac, 0.5f) << c;
      std::snprintf(buf, sizeof buf, "%02x %d\n", c, e - 1);
    }
    e8m0 += buf;
  }
  EXPECT_EQ(conf::sha256Hex(e8m0), kE8M0Sum);
}

// The reference's branch-free f16 decode against Eigen's conversion, on all 65,536 codes: the
// same f32 bits, NaN payloads included.
TEST(LowPrecisionDecode, ReferenceHalfDecodeIsEigensOnEveryCode) {
  for (std::uint32_t h = 0; h <= 0xFFFF; ++h) {
    const float eigen =
        static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(static_cast<std::uint16_t>(h)));
    ASSERT_EQ(std::bit_cast<std::uint32_t>(dut::halfValue(static_cast<std::uint16_t>(h))),
              std::bit_cast<std::uint32_t>(eigen))
        << std::hex << h;
  }
  // The four-lane decode: every code, in every lane.
  for (std::uint32_t h = 0; h <= 0xFFFF; ++h) {
    std::uint16_t codes[4];
    float values[4];
    for (std::uint32_t lane = 0; lane < 4; ++lane) {
      codes[lane] = static_cast<std::uint16_t>((h + lane * 0x4001u) & 0xFFFFu);
    }
    dut::halfValues4(codes, values);
    for (int lane = 0; lane < 4; ++lane) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(values[lane]),
                std::bit_cast<std::uint32_t>(dut::halfValue(codes[lane])))
          << std::hex << codes[lane];
    }
  }
}

TEST(LowPrecisionDecode, HiF8FirstLinesAndWorkedExample) {
  // Appendix A quotes the first three lines of the hifloat8 file; spec 8.1.6 works 0x2E = 14.
  const std::string file =
      checkFile(DType::HiF8, [](std::uint8_t c) { return dut::lowPrecisionBits(DType::HiF8, c); });
  EXPECT_EQ(file.substr(0, 36), "00 00000000\n01 34800000\n02 35000000\n");
  EXPECT_EQ(oracle::lowPrecisionValue(DType::HiF8, 0x2E), 14.0);
  EXPECT_EQ(dut::lowPrecisionFloat(DType::HiF8, 0x2E), 14.0f);
  // Spec 8.1.3's canaries: 0x7E is 448 in e4m3, 0x6E is 2^15 in HiF8, 0x7B is 57344 in e5m2.
  EXPECT_EQ(oracle::lowPrecisionValue(DType::Fp8E4M3FN, 0x7E), 448.0);
  EXPECT_EQ(oracle::lowPrecisionValue(DType::HiF8, 0x6E), 32768.0);
  EXPECT_EQ(oracle::lowPrecisionValue(DType::Fp8E5M2, 0x7B), 57344.0);
  // 8.1.6.1's "one" codes.
  EXPECT_EQ(oracle::lowPrecisionValue(DType::Fp8E4M3FN, 0x38), 1.0);
  EXPECT_EQ(oracle::lowPrecisionValue(DType::Fp8E5M2, 0x3C), 1.0);
  EXPECT_EQ(oracle::lowPrecisionValue(DType::HiF8, 0x08), 1.0);
  EXPECT_EQ(oracle::lowPrecisionValue(DType::Fp4E2M1, 0x2), 1.0);
  EXPECT_EQ(oracle::lowPrecisionValue(DType::Fp4E1M2, 0x4), 1.0);
}

TEST(LowPrecisionDecode, BothSidesAgreeOnEveryCode) {
  // Redundant with the checksums when both pass; when one fails, this names the first code.
  for (const Sum& s : kSums) {
    for (unsigned c = 0; c < codesOf(s.type); ++c) {
      const auto code = static_cast<std::uint8_t>(c);
      const std::uint32_t o = oracleBits(s.type, code), r = dut::lowPrecisionBits(s.type, code);
      if (std::isnan(std::bit_cast<float>(o))) {
        EXPECT_TRUE(std::isnan(std::bit_cast<float>(r))) << isa::nameOf(s.type) << " " << c;
      } else {
        EXPECT_EQ(o, r) << isa::nameOf(s.type) << " code " << c;
      }
    }
  }
}

float f32At(const isa::Bytes& b, std::size_t byte) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t{b[byte + i]} << (8 * i);
  return std::bit_cast<float>(v);
}

/// A 950 program: A (Nz, one 16 x 32 fractal: a(r, c) at r*32 + c), B (Zn, one 32 x 16 fractal:
/// b(k, n) at n*32 + k), C (Nz: c(m, n) at (m*16 + n)*4), CTRL[45] as given.
isa::Program tinyProgram(const isa::Mmad& x, const isa::Bytes& a, const isa::Bytes& b,
                         bool hif8Mode) {
  isa::Program p;
  p.profile = isa::ProfileId::Ascend950;
  p.segments = {{isa::Memory::L0A, 0, a},
                {isa::Memory::L0B, 0, b},
                {isa::Memory::L0C, 0, isa::Bytes(1024, 0xEE)}};
  p.instructions = {isa::SetHiF8Mode{hif8Mode}, x};
  p.observe = {{isa::Memory::L0C, 0, 1024}};
  return p;
}

TEST(LowPrecisionMmad, MixedPairByHand) {
  // A = [1.5 -2] in e4m3 (0x3C, 0xC0), B = [3; 0.5] in e5m2 (0x42, 0x38): C = 4.5 - 1 = 3.5.
  // Padding holds the canaries (e4m3 0x7E = 448, e5m2 0x7B = 57344): read, they would show.
  isa::Bytes a(512, 0x7E), b(512, 0x7B);
  a[0] = 0x3C, a[1] = 0xC0;
  b[0] = 0x42, b[1] = 0x38;
  isa::Mmad x;
  x.dtype = DType::Fp8E4M3FN;
  x.bDtype = DType::Fp8E5M2;
  x.m = 1, x.k = 2, x.n = 1;
  x.disableGemv = true;
  auto ref = dut::makeDut("reference");
  const dut::RunResult r = ref->run(tinyProgram(x, a, b, false));
  ASSERT_EQ(r.status, dut::RunStatus::Ok) << r.message;
  EXPECT_EQ(f32At(r.observed[0], 0), 3.5f);
  // CTRL[45] does not touch a mixed pair (spec 8.1.5).
  const dut::RunResult r2 = ref->run(tinyProgram(x, a, b, true));
  ASSERT_EQ(r2.status, dut::RunStatus::Ok) << r2.message;
  EXPECT_EQ(f32At(r2.observed[0], 0), 3.5f);
}

TEST(LowPrecisionMmad, Ctrl45ReadsE4M3AsHiF8ByHand) {
  // A = [0x2E], B = [0x08], both typed e4m3fn. As e4m3 they are 7p-4 and 1p-6 (appendix A), so
  // C = 7p-10; under CTRL[45] they are HiF8 14 (spec 8.1.6's worked example) and 1: C = 14.
  isa::Bytes a(512, 0x7E), b(512, 0x7E);
  a[0] = 0x2E;
  b[0] = 0x08;
  isa::Mmad x;
  x.dtype = DType::Fp8E4M3FN;
  x.m = 1, x.k = 1, x.n = 1;
  x.disableGemv = true;
  auto ref = dut::makeDut("reference");
  const dut::RunResult off = ref->run(tinyProgram(x, a, b, false));
  ASSERT_EQ(off.status, dut::RunStatus::Ok) << off.message;
  EXPECT_EQ(f32At(off.observed[0], 0), std::ldexp(7.0f, -10));
  const dut::RunResult on = ref->run(tinyProgram(x, a, b, true));
  ASSERT_EQ(on.status, dut::RunStatus::Ok) << on.message;
  EXPECT_EQ(f32At(on.observed[0], 0), 14.0f);
}

TEST(LowPrecisionMmad, LegalityOfSpec812) {
  const isa::Profile& p950 = isa::profile(isa::ProfileId::Ascend950);
  const isa::Profile& a2 = isa::profile(isa::ProfileId::A2);
  isa::Mmad x;
  x.m = 16, x.k = 64, x.n = 16;
  for (auto [a, b] : gen::lowPrecisionPairs()) {
    x.dtype = a;
    x.bDtype = a == b ? std::nullopt : std::optional<DType>(b);
    EXPECT_FALSE(isa::validate(p950, x)) << isa::describe(x);
    EXPECT_EQ(isa::validate(a2, x)->code, isa::ViolationCode::DTypeUnsupported);
  }
  const std::vector<std::pair<DType, DType>> illegal{
      {DType::HiF8, DType::Fp8E4M3FN},  {DType::Fp8E5M2, DType::HiF8},
      {DType::Fp4E2M1, DType::Fp4E2M1}, {DType::Fp4E1M2, DType::Fp4E2M1},
      {DType::F16, DType::BF16},        {DType::S8, DType::Fp8E4M3FN}};
  for (auto [a, b] : illegal) {
    x.dtype = a;
    x.bDtype = a == b ? std::nullopt : std::optional<DType>(b);
    const auto v = isa::validate(p950, x);
    ASSERT_TRUE(v) << isa::describe(x);
    EXPECT_EQ(v->code, isa::ViolationCode::DTypeUnsupported) << isa::describe(x);
  }
  EXPECT_EQ(isa::validate(a2, isa::SetHiF8Mode{true})->code, isa::ViolationCode::PathUnsupported);
  EXPECT_FALSE(isa::validate(p950, isa::SetHiF8Mode{true}));
}

TEST(LowPrecisionMmad, ExactRegimeIsOrderIndependent) {
  // What 8.1.6.3 promises, checked on the generator's own draws: f32 accumulation in ascending
  // and in descending k, init first or last, all equal the exact (double) sum.
  const auto g = gen::legalLowMmad(gen::LowValues::Exact);
  int checked = 0;
  for (int seed = 0; seed < 60; ++seed) {
    const gen::LowMmadCase c = g(rc::Random(seed), 50).value();
    const gen::LowOperands o = gen::lowOperandsOf(c);
    const oracle::MatrixD init = o.init(c.init);
    for (Eigen::Index i = 0; i < std::min<Eigen::Index>(c.m, 4); ++i) {
      for (Eigen::Index j = 0; j < std::min<Eigen::Index>(c.n, 4); ++j) {
        float up = static_cast<float>(init(i, j)), down = 0;
        for (Eigen::Index kk = 0; kk < c.k; ++kk) {
          up += static_cast<float>(o.a(i, kk)) * static_cast<float>(o.b(kk, j));
          const Eigen::Index r = c.k - 1 - kk;
          down += static_cast<float>(o.a(i, r)) * static_cast<float>(o.b(r, j));
        }
        down += static_cast<float>(init(i, j));
        const double exact = init(i, j) + o.a.row(i).dot(o.b.col(j));
        EXPECT_EQ(static_cast<double>(up), exact) << c;
        EXPECT_EQ(static_cast<double>(down), exact) << c;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100);
}

/// Significant bits of a finite double: the span from its highest to its lowest set bit.
int significantBits(double v) {
  if (v == 0) return 0;
  int e = 0;
  const double m = std::frexp(std::fabs(v), &e);  // m in [0.5, 1)
  auto bits = static_cast<std::uint64_t>(std::ldexp(m, 53));
  return 53 - std::countr_zero(bits);
}

// OPEN-12 (a): each ladder rung's C is one value needing exactly W significant bits, built from
// values the emitted codes decode to; (b): the init values need all 24.
TEST(LowPrecisionMmad, WidthProbesNeedTheBitsTheyClaim) {
  int ladders = 0, keeps = 0;
  for (const gen::LowMmadCase& c : gen::lowWidthProbes()) {
    const gen::LowOperands o = gen::lowOperandsOf(c);
    const oracle::MatrixD sum = o.init(c.init) + o.a * o.b;
    if (c.values == gen::LowValues::Ladder) {
      ++ladders;
      EXPECT_EQ(sum.minCoeff(), sum.maxCoeff()) << c;
      EXPECT_EQ(sum(0, 0), std::ldexp(1.0, c.ladderW - 1) + 1) << c;
      EXPECT_EQ(significantBits(sum(0, 0)), c.ladderW) << c;
    } else {
      ++keeps;
      EXPECT_EQ(o.a.cwiseAbs().maxCoeff(), 0.0) << c;
      for (Eigen::Index i = 0; i < sum.size(); ++i) {
        EXPECT_EQ(significantBits(sum(i)), 24) << c;
      }
    }
  }
  EXPECT_EQ(ladders, 25);
  EXPECT_EQ(keeps, 5);
}

// The probe tells the reference (24 bits) from an accumulator kept to 17 significant bits: the
// first is exact on every rung, the second on rungs 11, 14, 17 only, and it loses the init.
TEST(LowPrecisionMmad, WidthProbeReadsTheAccumulatorWidth) {
  auto notesOf = [](const char* spec) {
    auto d = dut::makeDut(spec);
    conf::RunOptions o;
    o.profile = isa::ProfileId::Ascend950;
    o.level = conf::Level::Smoke;
    o.seed = 1;
    o.families = {"mmad_lowprec"};
    const conf::CertifyResult r = conf::certify(*d, o);
    std::map<std::string, std::size_t> probes;
    std::size_t failures = 0;
    for (const auto& [note, n] : r.families.at(0).probes) {
      if (note.rfind("AccumulatorWidthProbe: ", 0) == 0) probes[note.substr(23)] = n;
    }
    for (const conf::PropertyResult& p : r.families.at(0).properties) {
      if (p.name == "AccumulatorWidthProbe") failures = p.counts.failures();
    }
    return std::make_pair(probes, failures);
  };
  const auto [ref, refFailures] = notesOf("reference");
  const auto [narrow, narrowFailures] = notesOf("mutant:lowprec-narrow-accumulator");
  EXPECT_EQ(refFailures, 0u);
  EXPECT_EQ(narrowFailures, 5u) << "the init preservation case of each pair";
  for (int w : {11, 14, 17, 20, 24}) {
    const std::string rung = "OPEN-12: ladder rung W = " + std::to_string(w);
    const std::string exact = rung + " exact: at least " + std::to_string(w) + " accumulator bits";
    const std::string not_ =
        rung + " not exact: fewer than " + std::to_string(w) + " accumulator bits";
    EXPECT_EQ(ref.count(exact), 1u) << exact;
    EXPECT_EQ(narrow.count(w <= 17 ? exact : not_), 1u) << w;
  }
}

/// The reference, except that L0C words holding +-FLT_MAX come back as +-inf: an IEEE-propagating
/// DUT as far as the infinity probe can tell.
class PropagatingDut final : public dut::Dut {
 public:
  PropagatingDut() : ref_(dut::makeDut("reference")) {}
  const dut::Capabilities& capabilities() const override { return ref_->capabilities(); }
  dut::RunResult run(const isa::Program& p) override {
    dut::RunResult r = ref_->run(p);
    for (std::size_t k = 0; k < r.observed.size() && k < p.observe.size(); ++k) {
      if (p.observe[k].memory != isa::Memory::L0C) continue;
      isa::Bytes& b = r.observed[k];
      for (std::size_t at = 0; at + 4 <= b.size(); at += 4) {
        std::uint32_t w = 0;
        std::memcpy(&w, b.data() + at, 4);
        if ((w & 0x7FFFFFFFu) == 0x7F7FFFFFu) w = (w & 0x80000000u) | 0x7F800000u;
        std::memcpy(b.data() + at, &w, 4);
      }
    }
    return r;
  }

 private:
  std::unique_ptr<dut::Dut> ref_;
};

// OPEN-14: the probe names the reading: the reference saturates to FLT_MAX, a DUT returning
// infinities propagates them; neither fails, and every case has an infinity code to test.
TEST(LowPrecisionMmad, InfinityProbeNamesTheReading) {
  ASSERT_FALSE(gen::lowInfinityProbes().empty());
  for (const gen::LowMmadCase& c : gen::lowInfinityProbes()) {
    const gen::LowOperands o = gen::lowOperandsOf(c);
    EXPECT_TRUE(std::isinf((c.probeA ? o.a : o.b)(0, 0))) << c;
  }
  auto readingsOf = [](dut::Dut& d) {
    conf::RunOptions o;
    o.profile = isa::ProfileId::Ascend950;
    o.level = conf::Level::Smoke;
    o.seed = 1;
    o.families = {"mmad_lowprec"};
    const conf::CertifyResult r = conf::certify(d, o);
    std::map<std::string, std::size_t> notes;
    for (const auto& [note, n] : r.families.at(0).probes) {
      if (note.rfind("InfinityProbe: ", 0) == 0) notes[note.substr(15)] = n;
    }
    for (const conf::PropertyResult& p : r.families.at(0).properties) {
      if (p.name == "InfinityProbe") {
        EXPECT_EQ(p.counts.failures(), 0u);
      }
    }
    return notes;
  };
  auto ref = dut::makeDut("reference");
  const auto saturating = readingsOf(*ref);
  ASSERT_EQ(saturating.size(), 1u);
  EXPECT_EQ(saturating.begin()->first, "OPEN-14: infinite input saturates C to +-FLT_MAX");
  PropagatingDut propagating;
  const auto ieee = readingsOf(propagating);
  ASSERT_EQ(ieee.size(), 1u);
  EXPECT_EQ(ieee.begin()->first, "OPEN-14: infinite input propagates as IEEE infinity");
}

// Spec 8: is_bias overrides the other two flags and cmatrix_init_val overrides cmatrix_source.
// Both the boundary table and the draws send every one of the eight combinations, each tagged
// once, and the init each case is checked against is the one isa::initOf reads.
TEST(LowPrecisionMmad, EveryInitFlagCombinationIsSentByTableAndDraws) {
  const std::vector<gen::LowMmadCase> draws = [] {
    std::vector<gen::LowMmadCase> out;
    for (int seed = 0; seed < 300; ++seed) {
      out.push_back(gen::legalLowMmad(gen::LowValues::Exact, gen::Sizes::Small)(
                        rc::Random(static_cast<std::uint64_t>(seed)), 50)
                        .value());
    }
    return out;
  }();
  const std::vector<gen::LowMmadCase> table = gen::lowBoundaries();
  for (const std::vector<gen::LowMmadCase>* cases : {&table, &draws}) {
    std::map<std::string, int> held;
    for (const gen::LowMmadCase& c : *cases) {
      const isa::Mmad x = gen::lowMmadOf(c);
      EXPECT_EQ(isa::initOf(x), c.init) << c;
      const std::vector<std::string> tags = gen::tagsOf(c);
      for (const std::string& t : tags) held[t] += 1;
      EXPECT_EQ(std::count(tags.begin(), tags.end(), gen::initFlagsTag(x)), 1) << c;
    }
    for (const std::string& b : gen::initFlagsBins()) {
      EXPECT_GT(held[b], 0) << b << (cases == &table ? " (table)" : " (draws)");
    }
  }
}

}  // namespace
}  // namespace cubecheck
