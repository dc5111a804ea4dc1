// Properties of low-precision Mmad on 950 (spec 8.1): the decode probe, the W-exact regime bit
// for bit, the bounded regime with its worst ULP, legality, and the OPEN-13 reading.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>

#include "conformance/checks.hpp"
#include "conformance/families.hpp"
#include "conformance/vector_case.hpp"
#include "generators/lowprec.hpp"
#include "generators/mmad.hpp"
#include "generators/mx.hpp"
#include "oracle/layout.hpp"
#include "oracle/mmad.hpp"
#include "oracle/mx.hpp"

namespace cubecheck::conf {
namespace {

using gen::IllegalLowMmadCase;
using gen::LowMmadCase;
using gen::LowValues;

VectorCase exactVector(const LowMmadCase& c) {
  isa::Program p = gen::buildProgram(c);
  const gen::LowOperands o = gen::lowOperandsOf(c);
  oracle::Expected e = oracle::expectC(p, 0, gen::expectedC(c, o), c.cAddr);
  VectorCase v = expectationVector(std::move(p), std::move(e));
  v.before = gen::programsBefore(c);
  return v;
}

/// OPEN-13: subnormal codes honoured (the default) or flushed; either passes, the note names it.
VectorCase subnormalProbeVector(const LowMmadCase& c) {
  VectorCase v;
  v.probe = true;
  v.program = gen::buildProgram(c);
  const gen::LowOperands o = gen::lowOperandsOf(c);
  v.alternatives.emplace_back("OPEN-13: subnormal inputs honoured (default)",
                              oracle::expectC(v.program, 0, gen::expectedC(c, o), c.cAddr));
  v.alternatives.emplace_back("OPEN-13: subnormal inputs flushed to zero (FTZ)",
                              oracle::expectC(v.program, 0, gen::expectedC(c, o, true), c.cAddr));
  return v;
}

/// OPEN-12 (a) and (b). A ladder rung W passes as "exact" (the accumulator keeps at least W bits)
/// or as 2^(W-1) + 1 rounded to W - 1 bits either way (it keeps fewer); anything else is wrong.
/// Init preservation has one reading: C = init. The notes name the rung, so the report lists the
/// largest W the DUT keeps.
VectorCase widthProbeVector(const LowMmadCase& c) {
  VectorCase v;
  v.probe = true;
  v.program = gen::buildProgram(c);
  const gen::LowOperands o = gen::lowOperandsOf(c);
  const oracle::ElemMatrix exact = gen::expectedC(c, o);
  if (c.values == LowValues::InitKeep) {
    v.alternatives.emplace_back("OPEN-12: the init keeps all 24 bits (default)",
                                oracle::expectC(v.program, 0, exact, c.cAddr));
    return v;
  }
  const std::string w = std::to_string(c.ladderW);
  v.alternatives.emplace_back(
      "OPEN-12: ladder rung W = " + w + " exact: at least " + w + " accumulator bits",
      oracle::expectC(v.program, 0, exact, c.cAddr));
  const double top = std::ldexp(1.0, c.ladderW - 1);
  for (double rounded : {top, top + 2}) {
    const oracle::MatrixD values = oracle::MatrixD::Constant(c.m, c.n, rounded);
    v.alternatives.emplace_back(
        "OPEN-12: ladder rung W = " + w + " not exact: fewer than " + w + " accumulator bits",
        oracle::expectC(v.program, 0, oracle::bitsOf(values, isa::DType::F32), c.cAddr));
  }
  return v;
}

/// OPEN-14, not certified: which of three readings an infinite input follows, C meeting it being
/// (a) +-inf (IEEE propagation), (b) +-FLT_MAX (the saturation mode spec 8 documents for Mmad),
/// or (c) the sum with the infinity read as the type's largest finite value. Any other value in
/// those cells is reported as "other"; every other cell and byte must still be right.
Verdict checkInfinityProbe(dut::Dut& d, const LowMmadCase& c) {
  const isa::Program p = gen::buildProgram(c);
  isa::Observed observed;
  if (auto v = runLegal(d, p, observed)) return *v;
  const gen::LowOperands o = gen::lowOperandsOf(c);
  const oracle::ElemMatrix saturated = gen::expectedC(c, o);  // spec 8's saturation mode
  // The cells that meet the infinity: row 0 (A side) or column 0 (B side).
  auto meets = [&c](Eigen::Index i, Eigen::Index j) { return c.probeA ? i == 0 : j == 0; };
  oracle::ElemMatrix ieee = saturated;
  const std::uint32_t inf = c.infSign > 0 ? 0x7F800000u : 0xFF800000u;
  for (Eigen::Index i = 0; i < ieee.rows(); ++i) {
    for (Eigen::Index j = 0; j < ieee.cols(); ++j) {
      if (meets(i, j)) ieee(i, j) = inf;
    }
  }
  oracle::MatrixD a = o.a, b = o.b;
  oracle::MatrixD& side = c.probeA ? a : b;
  side(0, 0) = c.infSign * gen::maxFiniteOf(c.probeA ? gen::effectiveA(c) : gen::effectiveB(c));
  const oracle::ElemMatrix largest = oracle::mmadResult(isa::DType::F32, a, b, o.init(c.init));
  const std::pair<const char*, const oracle::ElemMatrix*> readings[] = {
      {"OPEN-14: infinite input propagates as IEEE infinity", &ieee},
      {"OPEN-14: infinite input saturates C to +-FLT_MAX", &saturated},
      {"OPEN-14: infinite input read as the largest finite value", &largest}};
  for (const auto& [name, bits] : readings) {
    if (oracle::compareExact(p, oracle::expectC(p, 0, *bits, c.cAddr), observed).equal) {
      Verdict v{Outcome::Pass, {}, name};
      v.probe = true;  // OPEN-14 is not certified: the probe reports the reading
      return v;
    }
  }
  oracle::Expected rest = oracle::expectC(p, 0, saturated, c.cAddr);
  const isa::Region& r = p.observe[0];
  if (rest.dontCare.empty()) rest.dontCare.assign(1, isa::Bytes());
  if (rest.dontCare[0].empty()) rest.dontCare[0].assign(r.size, 0);
  const auto rows = static_cast<std::uint64_t>(isa::ceilDiv(c.m, 16) * 16),
             cols = static_cast<std::uint64_t>(isa::ceilDiv(c.n, 16) * 16);
  for (Eigen::Index i = 0; i < saturated.rows(); ++i) {
    for (Eigen::Index j = 0; j < saturated.cols(); ++j) {
      if (!meets(i, j)) continue;
      const std::uint64_t at =
          c.cAddr - r.addr +
          4 * oracle::elementOffsetC0(oracle::Layout::Nz, 16, rows, cols,
                                      static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(j));
      std::fill_n(rest.dontCare[0].begin() + static_cast<std::ptrdiff_t>(at), 4, 1);
    }
  }
  const oracle::Comparison cmp = oracle::compareExact(p, rest, observed);
  if (!cmp.equal) return {Outcome::Mismatch, cmp.report};
  Verdict other{Outcome::Pass,
                {},
                "OPEN-14: other: an infinite input gave none of inf, FLT_MAX, the "
                "largest finite value"};
  other.probe = true;
  return other;
}

/// Spec 8.1.6.4. Every product of two decoded values is exact in f32 (at most 4 + 4 significant
/// bits, magnitudes 2^-44..2^30; for MX scaled by at most 2^+-8 more), so an accumulator of W = 24
/// bits adding the k products and the init in any order, each addition rounded to an adjacent
/// f32, satisfies (Higham, recursive summation over k + 1 terms)
///     |C - C_exact| <= gamma_{k+1} (|init| + sum_k |a_k b_k|),  gamma_j = j 2^-23 / (1 - j 2^-23).
/// The bound is for any rounding to an adjacent value, hence 2^(1-W) rather than 2^-W. C_exact is
/// computed in double: products exact, sums within k 2^-53 relatively, covered by 2^-50 slack.
/// `a` and `b` are the values multiplied (for MX, scaled), `init` C's init.
Verdict boundedVerdict(const isa::Program& p, const isa::Observed& observed, std::uint64_t cAddr,
                       const oracle::MatrixD& init, const oracle::MatrixD& a,
                       const oracle::MatrixD& b) {
  const oracle::MatrixD exact = init + a * b;
  const oracle::MatrixD mag = init.cwiseAbs() + a.cwiseAbs() * b.cwiseAbs();
  const double u = std::ldexp(1.0, -23), j = static_cast<double>(a.cols()) + 1.0;
  const double gamma = j * u / (1 - j * u) + std::ldexp(1.0, -50);
  const isa::Region& r = p.observe[0];
  const oracle::MatrixD bound = gamma * mag;
  const BoundCheck got = checkWithinBound(observed[0], cAddr - r.addr, exact, bound);
  if (got.outside > 0) {
    return {Outcome::Mismatch,
            std::to_string(got.outside) +
                " element(s) outside gamma_{k+1} (|init| + sum |a||b|) at W = 24; a narrower "
                "accumulator is an OPEN-12 reading, not certified by default:\n" +
                got.firstBad};
  }
  // A product tiny against an accumulated C: a DUT leaving L0C alone passes too (no-op pass).
  if (const isa::Segment* before = isa::findSegment(p.segments, r.memory, r.addr, r.size)) {
    const auto from = before->bytes.begin() + static_cast<std::ptrdiff_t>(r.addr - before->addr);
    const isa::Bytes initial(from, from + static_cast<std::ptrdiff_t>(r.size));
    if (checkWithinBound(initial, cAddr - r.addr, exact, bound).outside == 0) {
      Verdict v{Outcome::Pass, {}, "initial C already within the bound (no-op pass)"};
      v.trivial = true;
      return v;
    }
  }
  const double worstUlp = got.worstUlp;
  const char* bucket = worstUlp <= 0.5    ? "<= 0.5 ULP (correctly rounded)"
                       : worstUlp <= 4    ? "<= 4 ULP"
                       : worstUlp <= 64   ? "<= 64 ULP"
                       : worstUlp <= 4096 ? "<= 4096 ULP"
                                          : "> 4096 ULP (a sum that nearly cancels)";
  return {Outcome::Pass, {}, std::string("OPEN-12: worst f32 error in the case ") + bucket};
}

Verdict checkBoundedLow(dut::Dut& d, const LowMmadCase& c) {
  const isa::Program p = gen::buildProgram(c);
  isa::Observed observed;
  if (auto v = runBefore(d, gen::programsBefore(c))) return *v;
  if (auto v = runLegal(d, p, observed)) return *v;
  const gen::LowOperands o = gen::lowOperandsOf(c);
  return boundedVerdict(p, observed, c.cAddr, o.init(c.init), o.a, o.b);
}

Verdict checkBoundedMx(dut::Dut& d, const gen::MxCase& c) {
  const isa::Program p = gen::buildProgram(c);
  isa::Observed observed;
  if (auto v = runLegal(d, p, observed)) return *v;
  const gen::MxOperands o = gen::mxOperandsOf(c);
  return boundedVerdict(p, observed, c.cAddr, o.init(c.init), o.a, o.b);
}

VectorCase exactMxVector(const gen::MxCase& c) {
  isa::Program p = gen::buildProgram(c);
  oracle::Expected e = oracle::expectC(p, 0, gen::expectedC(c, gen::mxOperandsOf(c)), c.cAddr);
  return expectationVector(std::move(p), std::move(e));
}

/// Random draws of a probe whose cases are a fixed table: a table case with another content seed
/// (other canaries, and other inits where the case draws them).
/// A table case with a content seed drawn whatever the size (rc::gen::arbitrary scales with it,
/// so a short table would repeat its cases at small sizes).
rc::Gen<gen::MxCase> anySeed(std::vector<gen::MxCase> table) {
  return rc::Gen<gen::MxCase>([table](const rc::Random& random, int) {
    rc::Random r = random;
    gen::MxCase c = table[r.next() % table.size()];
    c.contentSeed = r.next();
    c.why.clear();
    return rc::shrinkable::just(c);
  });
}

/// An MmadMx probe of an open point: the default reading's C from the case's own operands, the
/// other reading's from the operands `readOtherwise` makes of them; either passes and the note
/// names it.
VectorCase mxReadings(const gen::MxCase& c, std::string defaultNote, std::string otherNote,
                      const std::function<void(gen::MxOperands&)>& readOtherwise) {
  VectorCase v;
  v.probe = true;
  v.program = gen::buildProgram(c);
  const gen::MxOperands o = gen::mxOperandsOf(c);
  v.alternatives.emplace_back(std::move(defaultNote),
                              oracle::expectC(v.program, 0, gen::expectedC(c, o), c.cAddr));
  gen::MxOperands other = o;
  readOtherwise(other);
  v.alternatives.emplace_back(std::move(otherNote),
                              oracle::expectC(v.program, 0, gen::expectedC(c, other), c.cAddr));
  return v;
}

/// OPEN-17: the decode probe of fp4x2_e1m2 read with bias 1 (the default) or bias 0, which
/// doubles every E1M2 value.
VectorCase e1m2ProbeVector(const gen::MxCase& c) {
  return mxReadings(c, "OPEN-17: fp4x2_e1m2 with exponent bias 1 (default)",
                    "OPEN-17: fp4x2_e1m2 with exponent bias 0 (every value doubled)",
                    [&c](gen::MxOperands& o) {
                      if (c.aType == isa::DType::Fp4E1M2) o.a *= 2;
                      if (c.bType == isa::DType::Fp4E1M2) o.b *= 2;
                    });
}

/// OPEN-18: E8M0 0x00 read as 2^-127 (the default) or as zero. A DUT that scales in f32 first
/// and flushes the subnormal 2^-127 * 1 reads as zero here.
VectorCase edgeScaleProbeVector(const gen::MxCase& c) {
  return mxReadings(c, "OPEN-18: E8M0 0x00 read as 2^-127 (default)",
                    "OPEN-18: E8M0 0x00 read as zero", [&c](gen::MxOperands& o) {
                      o.a = oracle::mxScaled(oracle::valuesOf(o.aCodes, c.aType), o.aScales, false,
                                             oracle::E8M0Zero::Zero);
                      o.b = oracle::mxScaled(oracle::valuesOf(o.bCodes, c.bType), o.bScales, true,
                                             oracle::E8M0Zero::Zero);
                    });
}

/// OPEN-16: MmadMx e4m3 x e4m3 under CTRL[45] = 1 reads its operands as fp8_e4m3fn (the mode
/// does not reach MmadMx: the reference) or as HiF8 (as plain Mmad does).
VectorCase hif8ModeProbeVector(const gen::MxCase& c) {
  return mxReadings(
      c, "OPEN-16: CTRL[45] does not reach MmadMx: e4m3fn read as e4m3fn (default)",
      "OPEN-16: CTRL[45] reaches MmadMx: e4m3fn x e4m3fn read as HiF8 x HiF8",
      [](gen::MxOperands& o) {
        o.a = oracle::mxScaled(oracle::valuesOf(o.aCodes, isa::DType::HiF8), o.aScales, false);
        o.b = oracle::mxScaled(oracle::valuesOf(o.bCodes, isa::DType::HiF8), o.bScales, true);
      });
}

template <class Case>
rc::Gen<Case> reseeded(std::vector<Case> table) {
  return rc::gen::map(
      rc::gen::pair(rc::gen::elementOf(std::move(table)), rc::gen::arbitrary<std::uint64_t>()),
      [](std::pair<Case, std::uint64_t> d) {
        d.first.contentSeed = d.second;
        d.first.why.clear();
        return d.first;
      });
}

std::vector<std::string> lowTags(const LowMmadCase& c) {
  return gen::tagsOf(c);
}

}  // namespace

Family mmadLowPrecisionFamily(isa::ProfileId profile, gen::Sizes sizes) {
  Family f;
  f.title = "Mmad, fp8 and HiF8 on 950";
  f.spec = {"spec 8.1", "spec 9"};
  f.openPoints = {"OPEN-6", "OPEN-8", "OPEN-12", "OPEN-13", "OPEN-14", "OPEN-15", "OPEN-16"};
  if (profile != isa::ProfileId::Ascend950) {
    f.unsupported = "profile " + std::string(isa::profile(profile).name) +
                    ": fp8 and HiF8 Mmad exist on 950 only (spec 8.1)";
  }
  for (auto [a, b] : gen::lowPrecisionPairs()) {
    f.requiredBins.push_back("pair:" + std::string(isa::nameOf(a)) + "_x_" +
                             std::string(isa::nameOf(b)));
  }
  f.requireSizeBins(gen::mmadSizeBins(isa::ProfileId::Ascend950, true),
                    gen::mmadSizeBins(isa::ProfileId::Ascend950, false));
  // The decode probe's fixed cases each hold every finite code of a format on one side.
  for (const char* t : {"fp8_e4m3fn", "fp8_e5m2", "hif8"}) {
    f.requiredBinsOnce.push_back(std::string("decode:") + t + ":a");
    f.requiredBinsOnce.push_back(std::string("decode:") + t + ":b");
  }
  for (const char* b :
       {"ctrl45:hif8", "ctrl45:other_pair", "ctrl45:turned_on", "ctrl45:turned_off",
        "ctrl45:reset_value", "ctrl45:after_program_left_on", "init:zero", "init:accumulate",
        "init:bias_table", "init:bias_tensor", "gemv", "m:partial_fractal", "n:partial_fractal",
        "k:partial_fractal", "values:exact", "values:bounded", "window:subnormal",
        "window:max_binade", "illegal:DTypeUnsupported"}) {
    f.requiredBins.emplace_back(b);
  }
  for (const std::string& b : gen::initFlagsBins()) f.requiredBins.push_back(b);
  f.properties.push_back(TypedProperty<LowMmadCase>::fromVector(
      "DecodeProbe",
      "spec 8.1.6.1: a selector times every finite code of each format on each side: C holds "
      "each decoded value exactly, independent of accumulation",
      gen::lowDecodeProbes(), gen::legalLowMmad(LowValues::Exact), 0, exactVector, lowTags));
  f.properties.push_back(TypedProperty<LowMmadCase>::fromVector(
      "MatchesOracle",
      "spec 8.1.6.3: values in exponent windows sized so that every partial sum in any order is "
      "exact in f32 (W = 24): C bit for bit, +0 = -0",
      gen::lowBoundaries(), gen::legalLowMmad(LowValues::Exact, sizes), 60, exactVector, lowTags));
  f.properties.push_back(std::make_unique<TypedProperty<LowMmadCase>>(
      "BoundedError",
      "spec 8.1.6.4: every finite code: each element within gamma_{k+1} of the exact sum; the "
      "worst ULP error is reported",
      std::vector<LowMmadCase>{}, gen::legalLowMmad(LowValues::Bounded, sizes), 30, checkBoundedLow,
      lowTags));
  f.properties.push_back(TypedProperty<IllegalLowMmadCase>::fromVector(
      std::string(kRejectsIllegal),
      "spec 8.1.2: every other type pair (hif8 x fp8, fp4, s4, mixed f16/bf16)",
      std::vector<IllegalLowMmadCase>{}, gen::illegalLowMmad(), 20,
      [](const IllegalLowMmadCase& c) {
        isa::Program p = gen::buildProgram(c.c);
        p.instructions.back() = c.mmad;
        return rejectionVector(std::move(p), c.expected);
      },
      [](const IllegalLowMmadCase& c) {
        return std::vector<std::string>{"illegal:" + std::string(isa::nameOf(c.expected))};
      }));
  f.properties.push_back(TypedProperty<LowMmadCase>::fromVector(
      "SubnormalProbe",
      "OPEN-13: the decode probe on subnormal codes only: reports honoured or flushed",
      gen::lowSubnormalProbes(), gen::legalLowMmad(LowValues::Exact), 0, subnormalProbeVector,
      [](const LowMmadCase&) { return std::vector<std::string>{"probe:subnormal"}; }));
  f.properties.push_back(TypedProperty<LowMmadCase>::fromVector(
      "AccumulatorWidthProbe",
      "OPEN-12: a ladder of sums exact only with W = 11, 14, 17, 20 and 24 accumulator bits, and "
      "an init that needs all 24: reports the widths the accumulator keeps",
      gen::lowWidthProbes(), reseeded(gen::lowWidthProbes()), 0, widthProbeVector,
      [](const LowMmadCase& c) {
        return std::vector<std::string>{c.values == LowValues::Ladder
                                            ? "probe:ladder_w" + std::to_string(c.ladderW)
                                            : "probe:init_keep"};
      }));
  f.properties.push_back(std::make_unique<TypedProperty<LowMmadCase>>(
      "InfinityProbe",
      "OPEN-14 (not certified): an infinite fp8_e5m2 or HiF8 input on either side: reports "
      "whether C propagates the infinity, saturates to FLT_MAX, or reads the largest finite value",
      gen::lowInfinityProbes(), reseeded(gen::lowInfinityProbes()), 0, checkInfinityProbe,
      [](const LowMmadCase&) { return std::vector<std::string>{"probe:infinity"}; }));
  return f;
}

Family mmadMxFamily(isa::ProfileId profile, gen::Sizes sizes) {
  using gen::MxCase;
  using gen::MxValues;
  Family f;
  f.title = "MmadMx, fp8 and fp4 with E8M0 scales on 950";
  f.spec = {"spec 8.1", "spec 9"};
  f.openPoints = {"OPEN-6",  "OPEN-8",  "OPEN-12", "OPEN-13", "OPEN-15",
                  "OPEN-16", "OPEN-17", "OPEN-18", "OPEN-19", "OPEN-20"};
  if (profile != isa::ProfileId::Ascend950) {
    f.unsupported = "profile " + std::string(isa::profile(profile).name) +
                    ": MmadMx exists on 950 only (spec 8.1)";
  }
  for (auto [a, b] : gen::mxPairs()) f.requiredBins.push_back("pair:" + gen::pairName(a, b));
  // The fixed probes each hold every finite code of a format on one side, or one pair's scales.
  for (const char* t : {"fp8_e4m3fn", "fp8_e5m2", "fp4x2_e2m1", "fp4x2_e1m2"}) {
    f.requiredBinsOnce.push_back(std::string("decode:") + t + ":a");
    f.requiredBinsOnce.push_back(std::string("decode:") + t + ":b");
  }
  f.requiredBinsOnce.emplace_back("scale:selector_a");
  f.requiredBinsOnce.emplace_back("scale:selector_b");
  for (const char* b : {"init:zero", "init:accumulate", "init:bias_table", "init:bias_tensor",
                        "m:partial_fractal", "n:partial_fractal", "k:several_scale_fractals",
                        "scale:varied", "values:exact", "values:bounded", "zero_dimension",
                        "illegal:Range", "illegal:DTypeUnsupported", "illegal:Alignment"}) {
    f.requiredBins.emplace_back(b);
  }
  for (const std::string& b : gen::initFlagsBins()) f.requiredBins.push_back(b);
  auto tags = [](const MxCase& c) { return gen::tagsOf(c); };
  f.properties.push_back(TypedProperty<MxCase>::fromVector(
      "DecodeProbe",
      "spec 8.1.6.1: every scale 0x7F, a selector times every finite code of each format on "
      "each side: C holds each decoded value exactly (OPEN-13 subnormals, OPEN-17 E1M2)",
      gen::mxDecodeProbes(), gen::legalMmadMx(MxValues::Exact), 0, exactMxVector, tags));
  // The decode probes that enumerate E1M2 codes, with other canaries (another content seed), so
  // that each is a case of its own.
  std::vector<MxCase> e1m2;
  for (MxCase c : gen::mxDecodeProbes()) {
    if ((c.probeA ? c.aType : c.bType) != isa::DType::Fp4E1M2) continue;
    c.contentSeed += 0x1700;
    c.why = "OPEN-17: " + c.why + ": bias 1 or bias 0";
    e1m2.push_back(c);
  }
  f.properties.push_back(TypedProperty<MxCase>::fromVector(
      "E1M2Probe",
      "OPEN-17: the decode probe of every fp4x2_e1m2 code on each side: reports whether the DUT "
      "reads E1M2 with exponent bias 1 (default, certified by DecodeProbe) or bias 0",
      e1m2, anySeed(e1m2), 0, e1m2ProbeVector,
      [](const MxCase&) { return std::vector<std::string>{"probe:e1m2"}; }));
  f.properties.push_back(TypedProperty<MxCase>::fromVector(
      "EdgeScaleProbe",
      "OPEN-18: a selector whose first K block has E8M0 scale 0x00, against data scaled by 0xFE "
      "there, on every pair and side: reports whether the DUT reads 0x00 as 2^-127 (default) or "
      "as zero",
      gen::mxEdgeScaleProbes(), anySeed(gen::mxEdgeScaleProbes()), 0, edgeScaleProbeVector,
      [](const MxCase&) { return std::vector<std::string>{"probe:e8m0_zero"}; }));
  f.properties.push_back(TypedProperty<MxCase>::fromVector(
      "HiF8ModeProbe",
      "OPEN-16: fp8_e4m3fn x fp8_e4m3fn with CTRL[45] = 1, codes normal as e4m3fn and as HiF8 "
      "with different values, on each side: reports whether the mode reaches MmadMx (default: it "
      "does not)",
      gen::mxHiF8ModeProbes(), anySeed(gen::mxHiF8ModeProbes()), 0, hif8ModeProbeVector,
      [](const MxCase&) { return std::vector<std::string>{"probe:ctrl45"}; }));
  f.properties.push_back(TypedProperty<MxCase>::fromVector(
      "ScaleProbe",
      "spec 8.1.6.2: a selector times random codes with scales 0x7F +- 8: C = 2^(delta + eps) "
      "dec dec exactly, certifying the scale placement (OPEN-19) and the 32-element blocks",
      gen::mxScaleProbes(), reseeded(gen::mxScaleProbes()), 0, exactMxVector, tags));
  f.properties.push_back(TypedProperty<MxCase>::fromVector(
      "MatchesOracle",
      "spec 8.1.6.3: windows and scale spans sized so that every partial sum in any order and "
      "blocking is exact in f32 (W = 24): C bit for bit, +0 = -0; a zero m, k or n leaves L0C "
      "as it was",
      gen::mxBoundaries(), gen::legalMmadMx(MxValues::Exact, sizes, true), 60, exactMxVector,
      tags));
  f.properties.push_back(std::make_unique<TypedProperty<MxCase>>(
      "BoundedError",
      "spec 8.1.6.4: every finite code, scales 2^-4..2^4: each element within gamma_{k+1} of the "
      "exact sum; the worst ULP error is reported",
      std::vector<MxCase>{}, gen::legalMmadMx(MxValues::Bounded, sizes), 30, checkBoundedMx, tags));
  f.properties.push_back(TypedProperty<gen::IllegalMxCase>::fromVector(
      std::string(kRejectsIllegal),
      "spec 8.1.2: k not a multiple of 64, HiF8 or mixed fp8/fp4 pairs, C not f32, A or B off "
      "its 1024-byte (fp8) or 512-byte (fp4) alignment",
      std::vector<gen::IllegalMxCase>{}, gen::illegalMmadMx(), 20,
      [](const gen::IllegalMxCase& c) {
        isa::Program p = gen::buildProgram(c.c);
        p.instructions.back() = c.mmad;
        return rejectionVector(std::move(p), c.expected);
      },
      [](const gen::IllegalMxCase& c) {
        return std::vector<std::string>{"illegal:" + std::string(isa::nameOf(c.expected))};
      }));
  return f;
}

}  // namespace cubecheck::conf
