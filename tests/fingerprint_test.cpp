// The arithmetic fingerprint tells the reference and each float mutant apart.
#include <gtest/gtest.h>

#include <functional>

#include "conformance/fingerprint.hpp"
#include "conformance/indirect.hpp"
#include "dut_adapters/registry.hpp"

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
      EXPECT_EQ(d.specialValues, "inf -> +FLT_MAX, inf x 0 -> 0, inf - inf -> 0, NaN -> 0") << t;
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

TEST(Fingerprint, ADutWithoutFloatMmadIsNotMeasured) {
  const Fingerprint f = ofDut(std::string("exec:") + EXAMPLE_C_DUT, isa::ProfileId::A2);
  for (const auto& d : f.dtypes) EXPECT_NE(d.notMeasured, "") << d.dtype;
}

}  // namespace
}  // namespace cubecheck::conf
