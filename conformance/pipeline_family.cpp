// Whole-pipeline programs (spec 4-9): GM -> L1 -> L0 -> Mmad -> L0C, checked against the
// logical matrices, plus the metamorphic properties that relate pipelines to each other.
#include "conformance/checks.hpp"
#include "conformance/families.hpp"
#include "generators/lowprec.hpp"
#include "generators/pipeline.hpp"

namespace cubecheck::conf {
namespace {

using gen::PipelineCase;
using gen::PipelineKind;

oracle::Expected expectationOf(const isa::Program& p, const PipelineCase& c) {
  return oracle::expectC(p, 0, gen::expectedC(c, gen::operandsOf(c)), gen::kPipelineCAddr);
}

VectorCase pipelineVector(const PipelineCase& c) {
  isa::Program p = gen::buildProgram(c);
  oracle::Expected e = expectationOf(p, c);
  return expectationVector(std::move(p), std::move(e));
}

/// Metamorphic: two pipelines for the same logical product leave the same C (the cells the spec
/// leaves unspecified stay masked), whatever either is against the oracle.
Verdict sameC(dut::Dut& d, const PipelineCase& c, const isa::Program& one, const isa::Program& two,
              const std::string& what) {
  return checkSameResult(d, one, two, what, expectationOf(one, c));
}

std::vector<std::string> metamorphicTag(const char* name) {
  return {std::string("metamorphic:") + name};
}

}  // namespace

Family pipelineFamily(isa::ProfileId profile, gen::Sizes sizes) {
  Family f;
  f.title = "Whole programs from GM through L1 and L0 into Mmad, and their metamorphic relations";
  f.spec = {"spec 3", "spec 4", "spec 6.1", "spec 8", "spec 9"};
  f.openPoints = {"OPEN-6", "OPEN-7", "OPEN-8", "OPEN-15"};
  const bool a2 = profile == isa::ProfileId::A2;
  std::vector<std::string> kinds{"direct", "transposed_a", "k_split", "conv"};
  if (a2) {
    kinds.emplace_back("reversed_l1");
    kinds.emplace_back("sparse");
    // The sparse cases alone rest on them: a DUT without the sparse instructions runs none.
    for (const char* o : {"OPEN-1", "OPEN-4"}) {
      f.openPoints.emplace_back(o);
      f.openPointTags[o] = {"kind:sparse", "metamorphic:sparse_dense"};
    }
    f.spec.emplace_back("spec 7");
  } else {
    f.spec.emplace_back("spec 5");  // Load2DEqualsV2
  }
  for (const std::string& k : kinds) f.requiredBins.push_back("kind:" + k);
  for (const char* b : {"dtype:f16", "dtype:bf16", "dtype:s8", "dtype:f32", "init:zero",
                        "init:accumulate", "init:bias_table", "init:bias_tensor", "partial_fractal",
                        "metamorphic:k_split", "metamorphic:transposed"}) {
    f.requiredBins.emplace_back(b);
  }
  if (a2) {
    f.requiredBins.emplace_back("dtype:s4");
    f.requiredBins.emplace_back("metamorphic:sparse_dense");
    f.requiredBins.emplace_back("load_sparse:split");
  } else {
    f.requiredBins.emplace_back("l1_to_l0:load2d");
    f.requiredBins.emplace_back("metamorphic:load2d_v2");
  }
  for (const char* b :
       {"special:subnormal_input", "special:smallest_normal", "special:inf_times_zero",
        "special:inf_minus_inf", "special:inf", "special:signed_zero", "special:subnormal_result",
        // MmadValues::Scaled: wide magnitudes, through GM and K tiles
        "scaled", "scaled:a_large", "scaled:b_tiny", "scaled:l0c_large", "scaled:l0c_subnormal",
        "scaled:bias_subnormal"}) {
    f.requiredBins.emplace_back(b);
  }
  if (profile == isa::ProfileId::Ascend950) {
    // The low-precision pipelines (spec 8.1): every pair of 8.1.2 from GM, and how they travel.
    f.spec.emplace_back("spec 8.1");
    // The low-precision cases alone rest on them (tagged with their pair, "pair:A_x_B").
    for (const char* o : {"OPEN-12", "OPEN-13", "OPEN-16"}) {
      f.openPoints.emplace_back(o);
      f.openPointTags[o] = {"pair:", "lowprec:"};
    }
    for (auto [a, b] : gen::lowPrecisionPairs()) {
      f.requiredBins.push_back("pair:" + std::string(isa::nameOf(a)) + "_x_" +
                               std::string(isa::nameOf(b)));
    }
    for (const char* b : {"ctrl45:hif8", "ctrl45:reset_value", "lowprec:transposed_b",
                          "lowprec:k_split", "lowprec:canary_past_k", "lowprec:window_subnormal"}) {
      f.requiredBins.emplace_back(b);
    }
  }
  const isa::ProfileId sp = profile == isa::ProfileId::Legacy ? isa::ProfileId::A2 : profile;
  // 60 smoke draws over three kinds cannot meet every k class: size bins at full and nightly.
  f.requireSizeBins({}, gen::pipelineSizeBins(sp, false));
  if (profile == isa::ProfileId::Legacy) {
    f.unsupported = "profile legacy: Mmad is modelled for a2 and 950 only in this version";
  }
  const isa::ProfileId gp = profile == isa::ProfileId::Legacy ? isa::ProfileId::A2 : profile;
  f.properties.push_back(TypedProperty<PipelineCase>::fromVector(
      "MatchesOracle",
      "programs that move operands from GM through L1 and L0 into Mmad leave C = init + "
      "A * B (A * B' when sparse, im2col x W for a convolution) as computed from the "
      "logical matrices alone",
      gen::pipelineBoundaries(gp), gen::legalPipeline(gp, sizes), 60, pipelineVector,
      [](const PipelineCase& c) { return gen::tagsOf(c); }));
  if (profile == isa::ProfileId::Ascend950) {
    f.properties.push_back(TypedProperty<PipelineCase>::fromVector(
        "LowPrecisionMatchesOracle",
        "spec 8.1: fp8 and HiF8 operands (all five pairs) moved from GM through the V2 loads, B "
        "copied or transposed into L0B, K whole or in tiles accumulating in L0C, CTRL[45] set "
        "explicitly: C = init + dec(A) * dec(B) rounded once to f32, bit for bit in the W-exact "
        "regime (W = 24) whose condition each case checks on the values it emits",
        gen::lowPipelineBoundaries(), gen::legalLowPipeline(sizes), 30, pipelineVector,
        [](const PipelineCase& c) { return gen::tagsOf(c); }));
  }
  f.properties.push_back(std::make_unique<TypedProperty<PipelineCase>>(
      "KSplitEqualsOne",
      "accumulating K in tiles through L0C gives the same C as one Mmad over all of K",
      std::vector<PipelineCase>{}, gen::pipelineFor(gp, PipelineKind::KSplit, sizes), 30,
      [](dut::Dut& d, const PipelineCase& c) {
        return sameC(d, c, gen::buildProgram(c, PipelineKind::Direct, c.load2dOn950),
                     gen::buildProgram(c, PipelineKind::KSplit, c.load2dOn950),
                     "K in tiles (observed) differs from one Mmad (expected):");
      },
      [](const PipelineCase& c) {
        std::vector<std::string> t = metamorphicTag("k_split");
        const std::vector<std::string> more = gen::sizeAndSpecialTags(c);
        t.insert(t.end(), more.begin(), more.end());
        return t;
      }));
  f.properties.push_back(std::make_unique<TypedProperty<PipelineCase>>(
      "TransposedEqualsDirect",
      "supplying A as A^T and transposing it on the way to L0A gives the same C as "
      "loading A directly",
      std::vector<PipelineCase>{}, gen::pipelineFor(gp, PipelineKind::TransposedA), 30,
      [](dut::Dut& d, const PipelineCase& c) {
        return sameC(d, c, gen::buildProgram(c, PipelineKind::Direct, false),
                     gen::buildProgram(c, PipelineKind::TransposedA, false),
                     "the A^T path (observed) differs from the direct path (expected):");
      },
      [](const PipelineCase&) { return metamorphicTag("transposed"); }));
  if (a2) {
    f.properties.push_back(std::make_unique<TypedProperty<PipelineCase>>(
        "SparseEqualsDense",
        "the 2:4 sparse pipeline gives the same C as the dense pipeline on the "
        "decompressed B'",
        std::vector<PipelineCase>{}, gen::pipelineFor(gp, PipelineKind::Sparse), 30,
        [](dut::Dut& d, const PipelineCase& c) {
          return sameC(d, c, gen::buildProgram(c, PipelineKind::Direct, false),
                       gen::buildProgram(c, PipelineKind::Sparse, false),
                       "the sparse pipeline (observed) differs from the dense one on B' "
                       "(expected):");
        },
        [](const PipelineCase&) { return metamorphicTag("sparse_dense"); }));
  } else {
    f.properties.push_back(std::make_unique<TypedProperty<PipelineCase>>(
        "Load2DEqualsV2",
        "moving L1 -> L0 by LoadData2DParams and by LoadData2DParamsV2 gives the same C "
        "(M1 = 1)",
        std::vector<PipelineCase>{}, gen::pipelineFor(gp, PipelineKind::Direct), 30,
        [](dut::Dut& d, PipelineCase c) {
          c.m = static_cast<std::uint16_t>(std::min<int>(c.m, 16));
          return sameC(d, c, gen::buildProgram(c, PipelineKind::Direct, false),
                       gen::buildProgram(c, PipelineKind::Direct, true),
                       "the LoadData2D path (observed) differs from the V2 path (expected):");
        },
        [](const PipelineCase&) { return metamorphicTag("load2d_v2"); }));
  }
  return f;
}

}  // namespace cubecheck::conf
