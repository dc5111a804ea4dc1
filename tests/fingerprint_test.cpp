// The arithmetic fingerprint tells the reference and each float mutant apart.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>

#include "conformance/fingerprint.hpp"
#include "conformance/indirect.hpp"
#include "dut_adapters/registry.hpp"
#include "oracle/layout.hpp"
#include "oracle/mmad.hpp"
#include "process.hpp"

namespace cubecheck::conf {
namespace {

const DTypeFingerprint& of(const Fingerprint& f, const std::string& dtype) {
  for (const auto& d : f.dtypes) {
    if (d.dtype == dtype) return d;
  }
  throw std::logic_error("no fingerprint for " + dtype);
}

Fingerprint ofDut(const std::string& spec, isa::ProfileId profile) {
  auto dut = dut::makeDut(spec, std::chrono::milliseconds(10000));
  return fingerprint(*dut, profile);
}

// The reference: products of f16/bf16 exact in f32, f32 products rounded to f32, a 24-bit
// accumulator (f32) adding in ascending k with round-to-nearest-even, subnormals kept, the
// saturation mode of spec 8, HF32 inputs with 11 fraction bits (OPEN-7's default reading).
TEST(Fingerprint, IdentifiesTheReferenceOnBothProfiles) {
  for (isa::ProfileId p : {isa::ProfileId::A2, isa::ProfileId::Ascend950}) {
    const Fingerprint f = ofDut("reference", p);
    for (const char* t : {"f16", "bf16", "f32"}) {
      const DTypeFingerprint& d = of(f, t);
      EXPECT_EQ(d.notMeasured, "") << t;
      EXPECT_EQ(d.accumulatorBits, 24) << t;
      EXPECT_EQ(d.order, "sequential (ascending k)") << t;
      EXPECT_EQ(d.rounding, "nearest-even") << t;
      EXPECT_EQ(d.subnormalInputs, "kept") << t;
      EXPECT_EQ(d.specialValues, "inf -> +FLT_MAX, inf x 0 -> 0, inf - inf -> 0, NaN + 1 -> 0")
          << t;
    }
    EXPECT_EQ(of(f, "f16").products, "exact");
    EXPECT_EQ(of(f, "bf16").products, "exact");
    EXPECT_EQ(of(f, "f32").products, "rounded to the input precision");
    EXPECT_EQ(of(f, "f32").subnormalResults, "kept");
    EXPECT_EQ(of(f, "f32 (HF32)").inputFractionBits, 11);
  }
}

// A board rehearsal (observable GM, L1, L0C) cannot be given the experiments' L0A/L0B images:
// they are loaded for it, and it reads exactly as the DUT observed directly. Before, a narrowed
// reference ran on the scrambled L0A/L0B a board starts with and read as a 0-bit accumulator.
TEST(Fingerprint, ABoardReadsAsTheSameDutObservedDirectly) {
  for (isa::ProfileId p : {isa::ProfileId::A2, isa::ProfileId::Ascend950}) {
    auto reference = dut::makeDut("reference");
    NarrowedDut board(*reference, {isa::Memory::GM, isa::Memory::L1, isa::Memory::L0C});
    EXPECT_EQ(toJson(fingerprint(board, p)), toJson(fingerprint(*reference, p)))
        << isa::profile(p).name;
  }
}

TEST(Fingerprint, TellsF16AccumulationApart) {
  const Fingerprint f = ofDut("mutant:mmad-f16-accumulation", isa::ProfileId::A2);
  // An f16 accumulator keeps 11 significand bits.
  EXPECT_EQ(of(f, "f16").accumulatorBits, 11);
  EXPECT_EQ(of(f, "f32").accumulatorBits, 11);
}

/// The fields of a data type's fingerprint that differ between `a` and `b`.
std::vector<std::string> differences(const DTypeFingerprint& a, const DTypeFingerprint& b) {
  std::vector<std::string> out;
  if (a.products != b.products) out.push_back("products");
  if (a.accumulatorBits != b.accumulatorBits) out.push_back("accumulator_bits");
  if (a.order != b.order) out.push_back("order");
  if (a.rounding != b.rounding) out.push_back("rounding");
  if (a.subnormalInputs != b.subnormalInputs) out.push_back("subnormal_inputs");
  if (a.subnormalResults != b.subnormalResults) out.push_back("subnormal_results");
  if (a.specialValues != b.specialValues) out.push_back("special_values");
  return out;
}

// Each float mutant of the registry is told apart from the reference by exactly the experiment
// that measures its fault, and by no other (f32: the type whose products can reach every probe).
// The reference's figures are those of IdentifiesTheReferenceOnBothProfiles.
TEST(Fingerprint, IdentifiesEachFloatMutantByItsOwnFault) {
  const DTypeFingerprint reference = of(ofDut("reference", isa::ProfileId::A2), "f32");
  struct Expect {
    const char* mutant;
    std::vector<std::string> differs;
    std::function<void(const DTypeFingerprint&)> says;
  };
  const Expect expected[] = {
      {"mmad-pairwise-sum",
       {"order"},
       [](const DTypeFingerprint& d) { EXPECT_EQ(d.order, "pairwise"); }},
      {"mmad-adds-toward-zero",
       {"rounding"},
       [](const DTypeFingerprint& d) {
         EXPECT_EQ(d.rounding, "toward-zero");
         EXPECT_EQ(d.accumulatorBits, 24) << "still an f32 accumulator";
       }},
      {"mmad-subnormals-flushed",
       {"subnormal_inputs", "subnormal_results"},
       [](const DTypeFingerprint& d) {
         EXPECT_EQ(d.subnormalInputs, "flushed");
         EXPECT_EQ(d.subnormalResults, "flushed");
       }},
      // Red team (round 10): the probes held the special value in A only, so a DUT flushing B's
      // subnormals, or reading B's infinities as 0, was fingerprinted as the reference.
      {"mmad-b-subnormals-flushed",
       {"subnormal_inputs"},
       [](const DTypeFingerprint& d) {
         EXPECT_EQ(d.subnormalInputs, "in A: kept; in B: flushed");
       }},
      {"mmad-b-infinities-as-zero",
       {"special_values"},
       [](const DTypeFingerprint& d) {
         EXPECT_NE(d.specialValues.find("; in B: inf -> 0,"), std::string::npos) << d.specialValues;
       }},
  };
  for (const Expect& e : expected) {
    SCOPED_TRACE(e.mutant);
    const Fingerprint f = ofDut(std::string("mutant:") + e.mutant, isa::ProfileId::A2);
    const DTypeFingerprint& d = of(f, "f32");
    EXPECT_EQ(differences(reference, d), e.differs);
    e.says(d);
  }
}

TEST(Fingerprint, JsonHasTheIssueFields) {
  const auto j = toJson(ofDut("reference", isa::ProfileId::A2));
  const auto& f32 = j["dtypes"][2];
  EXPECT_EQ(f32["dtype"], "f32");
  for (const char* key : {"products", "accumulator_bits", "order", "rounding", "subnormal_inputs",
                          "subnormal_results", "special_values"}) {
    EXPECT_TRUE(f32.contains(key)) << key;
  }
  EXPECT_EQ(j["dtypes"][3]["input_fraction_bits"], 11);
}

/// The reference with the observed words of L0C of each answer (as f32s) passed through
/// `change`: a DUT whose Mmad computes something else, or nothing, and leaves the other memories
/// alone.
class Rewritten : public dut::Dut {
 public:
  using Change = std::function<void(std::vector<float>&)>;
  explicit Rewritten(Change change)
      : inner_(dut::makeDut("reference")), change_(std::move(change)) {}
  const dut::Capabilities& capabilities() const override { return inner_->capabilities(); }
  dut::RunResult run(const isa::Program& program) override {
    dut::RunResult r = inner_->run(program);
    std::vector<float> words;
    auto each = [&](auto f) {
      std::size_t w = 0;
      for (std::size_t n = 0; n < r.observed.size(); ++n) {
        if (program.observe.at(n).memory != isa::Memory::L0C) continue;
        for (std::size_t i = 0; i + 4 <= r.observed[n].size(); i += 4) f(&r.observed[n][i], w++);
      }
    };
    each([&](std::uint8_t* at, std::size_t) {
      float f = 0;
      std::memcpy(&f, at, 4);
      words.push_back(f);
    });
    change_(words);
    each([&](std::uint8_t* at, std::size_t w) { std::memcpy(at, &words.at(w), 4); });
    return r;
  }

 private:
  std::unique_ptr<dut::Dut> inner_;
  Change change_;
};

/// A change of each word alone.
Rewritten::Change eachWord(std::function<float(float)> f) {
  return [f](std::vector<float>& words) {
    for (float& w : words) w = f(w);
  };
}

/// Whether a data type's fingerprint holds any figure.
bool hasAFigure(const DTypeFingerprint& d) {
  return !d.products.empty() || d.accumulatorBits != 0 || !d.order.empty() || !d.rounding.empty() ||
         !d.subnormalInputs.empty() || !d.subnormalResults.empty() || !d.specialValues.empty() ||
         d.inputFractionBits.has_value();
}

/// Every data type not measured, with a reason containing `why`, and no figure.
void expectNothingMeasured(const Fingerprint& f, const std::string& why) {
  ASSERT_EQ(f.dtypes.size(), 4u);
  for (const DTypeFingerprint& d : f.dtypes) {
    EXPECT_NE(d.notMeasured.find(why), std::string::npos) << d.dtype << ": " << d.notMeasured;
    EXPECT_FALSE(hasAFigure(d)) << d.dtype;
  }
}

// A DUT that runs nothing leaves C as it was: its results do not depend on the operands, and no
// figure is read from them (before, the zeros it returned read as products rounded, subnormals
// flushed, inf -> 0 and HF32 inputs keeping no fraction bit).
TEST(Fingerprint, ADutThatWritesNothingIsNotMeasured) {
  for (isa::ProfileId p : {isa::ProfileId::A2, isa::ProfileId::Ascend950}) {
    SCOPED_TRACE(isa::profile(p).name);
    const Fingerprint f = ofDut("mutant:writes-nothing", p);
    expectNothingMeasured(f, "the DUT's Mmad results do not depend on its operands");
    expectNothingMeasured(f, "C's initial image");
  }
}

// Nor does a DUT that answers one value whatever it is asked: zeros, one, or a garbage word.
TEST(Fingerprint, ADutWhoseAnswersAreConstantIsNotMeasured) {
  for (const std::uint32_t word : {0x00000000u, 0x3F800000u, 0x12345678u}) {
    SCOPED_TRACE(word);
    Rewritten dut(eachWord([word](float) { return std::bit_cast<float>(word); }));
    expectNothingMeasured(fingerprint(dut, isa::ProfileId::A2),
                          "the DUT's Mmad results do not depend on its operands");
  }
}

// A DUT that computes, but not the exact small sums every float accumulator gets right: its
// figures would misname what it does.
TEST(Fingerprint, ADutThatGetsSmallSumsWrongIsNotMeasured) {
  Rewritten dut(eachWord([](float f) { return f + 1; }));
  expectNothingMeasured(fingerprint(dut, isa::ProfileId::A2),
                        "the DUT's Mmad gets exact small sums wrong");
}

// A DUT right on every answer whose words are all small integers (what the controls give) and
// answering zeros for every other: the experiments' results are not its computation, and each
// experiment shows it (C(1, 1), computed beside the probe, is not the integer it must be).
TEST(Fingerprint, ADutThatComputesOnlyIntegersIsNotMeasured) {
  Rewritten dut([](std::vector<float>& words) {
    const bool integers = std::all_of(words.begin(), words.end(), [](float f) {
      return f == std::nearbyint(f) && std::fabs(f) <= 64;
    });
    if (!integers) std::fill(words.begin(), words.end(), 0.0F);
  });
  expectNothingMeasured(fingerprint(dut, isa::ProfileId::A2),
                        "the DUT's Mmad results do not follow its operands");
}

// A DUT whose non-integer answers are three times what any rounding gives (the controls and
// the markers, integers, stay right): a probe's result that is neither of the values its
// question allows gives no figure. Before, 3 x 2^-12 (f16's exact product probe) read as products
// "exact", 3 x 2^-49 (f32's subnormal input probe) as "kept", and HF32 as 11 kept fraction bits.
TEST(Fingerprint, AProbeAnsweredOutsideItsQuestionGivesNoFigure) {
  Rewritten dut(eachWord([](float f) { return f == std::nearbyint(f) ? f : 3 * f; }));
  const Fingerprint f = fingerprint(dut, isa::ProfileId::A2);
  for (const char* t : {"f16", "bf16", "f32"}) {
    const DTypeFingerprint& d = of(f, t);
    EXPECT_EQ(d.notMeasured, "") << t;
    EXPECT_EQ(d.subnormalInputs.rfind("other (the probe gave ", 0), 0u)
        << t << ": " << d.subnormalInputs;
    // 3 x 2^-j is never 2^-j: no accumulation step is kept.
    EXPECT_EQ(d.accumulatorBits, 0) << t;
  }
  // The reference's f16 and bf16 products are exact (a nonzero probe); f32's are rounded (0,
  // which three times is still 0, an answer the question allows).
  for (const char* t : {"f16", "bf16"}) {
    EXPECT_EQ(of(f, t).products.rfind("other (the product probe gave ", 0), 0u)
        << t << ": " << of(f, t).products;
  }
  EXPECT_EQ(of(f, "f32").products, "rounded to the input precision");
  for (const char* t : {"bf16", "f32"}) {
    EXPECT_EQ(of(f, t).subnormalResults.rfind("other (the probe gave ", 0), 0u)
        << t << ": " << of(f, t).subnormalResults;
  }
  const DTypeFingerprint& hf32 = of(f, "f32 (HF32)");
  EXPECT_FALSE(hf32.inputFractionBits.has_value());
  EXPECT_EQ(hf32.notMeasured.rfind("the HF32 probe 1 + 2^-1 - 1 gave 1.5, neither 2^-1", 0), 0u)
      << hf32.notMeasured;
}

// `cubecheck fingerprint` exits 1 when it measured nothing (a DUT that computes nothing, or
// declares no float Mmad), 0 when it measured something, and prints no figure for the former.
/// A DUT whose float Mmad sums its products exactly, in double, ascending k, and rounds the sum
/// once to f32 with spec 8's saturation: a wide accumulator. It answers the fingerprint's
/// experiments only (C(0, 0) and C(1, 1) of one Mmad, m = n = 16, from L0A and L0B alone); HF32
/// mode is ignored.
class WideAccumulator : public dut::Dut {
 public:
  WideAccumulator() : inner_(dut::makeDut("reference")) {}
  const dut::Capabilities& capabilities() const override { return inner_->capabilities(); }
  dut::RunResult run(const isa::Program& program) override {
    dut::RunResult r = inner_->run(program);
    const isa::Mmad* x = nullptr;
    for (const isa::Instruction& i : program.instructions) {
      if (const auto* m = std::get_if<isa::Mmad>(&i)) x = m;
    }
    if (x == nullptr || r.status != dut::RunStatus::Ok) return r;
    auto segment = [&](isa::Memory m) -> const isa::Bytes& {
      for (const isa::Segment& s : program.segments) {
        if (s.memory == m) return s.bytes;
      }
      throw std::logic_error("WideAccumulator: no segment");
    };
    const bool nz = isa::profile(program.profile).l0aIsNz;
    const oracle::MatrixD a = oracle::valuesOf(
        oracle::decode(segment(isa::Memory::L0A), nz ? oracle::Layout::Nz : oracle::Layout::Zz,
                       x->dtype, 16, x->k),
        x->dtype);
    const oracle::MatrixD b = oracle::valuesOf(
        oracle::decode(segment(isa::Memory::L0B), oracle::Layout::Zn, x->dtype, x->k, 16),
        x->dtype);
    for (std::size_t n = 0; n < program.observe.size(); ++n) {
      // the experiments observe C(0, 0) at 0 and C(1, 1), each one word of the first fractal
      if (program.observe[n].memory != isa::Memory::L0C) continue;
      const std::uint64_t cell = program.observe[n].addr / 4;
      const Eigen::Index row = static_cast<Eigen::Index>(cell / 16);
      const Eigen::Index col = static_cast<Eigen::Index>(cell % 16);
      double sum = 0;
      for (Eigen::Index k = 0; k < a.cols(); ++k) sum += a(row, k) * b(k, col);
      auto f = static_cast<float>(std::isnan(sum) ? 0.0 : sum);
      if (std::isinf(f)) f = f > 0 ? FLT_MAX : -FLT_MAX;
      std::memcpy(r.observed.at(n).data(), &f, 4);
    }
    return r;
  }

 private:
  std::unique_ptr<dut::Dut> inner_;
};

// A wide accumulator keeps every step f16's products can show: its width is not found, and the
// order and rounding probes, which rest on a width, give no figure. Before, f16 read as a
// "0-bit accumulator, sequential (descending k)": [2^28, 1, 1, -2^28] gives 2 in every order
// when nothing is lost. bf16's and f32's products reach far enough to see 53 bits.
TEST(Fingerprint, AnAccumulatorWiderThanTheProbeGivesNoOrderNorRounding) {
  WideAccumulator dut;
  const Fingerprint f = fingerprint(dut, isa::ProfileId::A2);
  const DTypeFingerprint& f16 = of(f, "f16");
  EXPECT_EQ(f16.notMeasured, "");
  EXPECT_EQ(f16.accumulatorBits, 0);
  EXPECT_EQ(f16.order.rfind("unknown (accumulator wider than the probe reaches", 0), 0u)
      << f16.order;
  EXPECT_EQ(f16.rounding.rfind("unknown (accumulator wider than the probe reaches", 0), 0u)
      << f16.rounding;
  EXPECT_EQ(f16.products, "exact");
  for (const char* t : {"bf16", "f32"}) {
    EXPECT_EQ(of(f, t).accumulatorBits, 53) << t;
    EXPECT_EQ(of(f, t).order.rfind("unknown (", 0), 0u) << t << ": " << of(f, t).order;
  }
}

TEST(Fingerprint, TheCommandExitsNonZeroWhenNothingWasMeasured) {
  const test::ProcessRun none = test::runCubecheck("fingerprint --dut mutant:writes-nothing");
  EXPECT_EQ(none.status, 1) << none.out;
  EXPECT_NE(none.out.find("not measured: the DUT's Mmad results do not depend on its operands"),
            std::string::npos)
      << none.out;
  EXPECT_EQ(none.out.find("rounded to the input precision"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("nothing was measured"), std::string::npos) << none.out;
  const test::ProcessRun noMmad =
      test::runCubecheck(std::string("fingerprint --dut exec:") + EXAMPLE_C_DUT);
  EXPECT_EQ(noMmad.status, 1) << noMmad.out;
  const test::ProcessRun reference = test::runCubecheck("fingerprint --dut reference");
  EXPECT_EQ(reference.status, 0) << reference.out;
}

TEST(Fingerprint, ADutWithoutFloatMmadIsNotMeasured) {
  const Fingerprint f = ofDut(std::string("exec:") + EXAMPLE_C_DUT, isa::ProfileId::A2);
  for (const auto& d : f.dtypes) EXPECT_NE(d.notMeasured, "") << d.dtype;
}

}  // namespace
}  // namespace cubecheck::conf
