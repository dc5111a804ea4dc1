// Properties of dense Mmad (spec 8) under the numeric policies of spec 9.
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "conformance/checks.hpp"
#include "conformance/families.hpp"
#include "generators/mmad.hpp"
#include "oracle/layout.hpp"

namespace cubecheck::conf {
namespace {

using gen::IllegalMmadCase;
using gen::MmadCase;
using gen::MmadValues;

VectorCase mmadVector(const MmadCase& c) {
  const gen::MmadOperands o = gen::operandsOf(c);
  isa::Program p = gen::buildProgram(c, o);
  oracle::Expected e = oracle::expectC(p, 0, gen::expectedC(c, o), c.cAddr);
  return expectationVector(std::move(p), std::move(e));
}

/// OPEN-7 probes: each reading's C; any passes, and the note says which one the DUT follows.
VectorCase probeVector(const MmadCase& c) {
  VectorCase v;
  v.probe = true;
  const gen::MmadOperands o = gen::operandsOf(c);
  v.program = gen::buildProgram(c, o);
  if (c.values == MmadValues::SaturationProbe) {
    v.alternatives.emplace_back(
        "OPEN-7: int32 saturates once, at the end (default)",
        oracle::expectC(v.program, 0, gen::expectedC(c, o, oracle::Saturation::Final), c.cAddr));
    v.alternatives.emplace_back(
        "OPEN-7: int32 saturates every partial sum, k ascending",
        oracle::expectC(v.program, 0, gen::expectedC(c, o, oracle::Saturation::PerPartialSum),
                        c.cAddr));
    v.misreadings.emplace_back(
        "int32 wrap-around (modulo 2^32; spec 8: integers saturate)",
        oracle::expectC(v.program, 0, gen::expectedC(c, o, oracle::Saturation::Wrap), c.cAddr));
    return v;
  }
  if (c.values == MmadValues::ZeroSignProbe) {
    // Compared bit for bit: the probe asks exactly what the certified comparison leaves open.
    auto all = [&](std::uint32_t bits) {
      oracle::Expected e =
          oracle::expectC(v.program, 0, oracle::ElemMatrix::Constant(c.m, c.n, bits), c.cAddr);
      e.formats[0].signlessZero = false;
      return e;
    };
    const bool fromZero = c.init == isa::MmadInit::Zero;
    v.alternatives.emplace_back(fromZero ? "OPEN-15: from zero, -0 products sum to +0 (the init "
                                           "+0 is added)"
                                         : "OPEN-15: -0 products onto a -0 bias give +0 (zero "
                                           "results written as +0)",
                                all(0));
    v.alternatives.emplace_back(fromZero ? "OPEN-15: from zero, -0 products sum to -0 (the sum "
                                           "starts from the first product)"
                                         : "OPEN-15: -0 products onto a -0 bias give -0 (IEEE "
                                           "sign rules)",
                                all(0x80000000u));
    return v;
  }
  using R = oracle::Hf32Reading::Round;
  const oracle::Hf32Reading def = oracle::defaultHf32(c.hf32Mode);
  std::vector<oracle::Hf32Reading> readings{def};
  for (int bits : {11, 10}) {
    for (R r : {R::NearestEven, R::NearestAway, R::NearestTowardZero, R::TowardZero}) {
      if (bits != def.fractionBits || r != def.round) readings.push_back({bits, r});
    }
  }
  for (const oracle::Hf32Reading& r : readings) {
    v.alternatives.emplace_back(
        "OPEN-7: trans mode " + std::to_string(c.hf32Mode) + " is " + r.name(),
        oracle::expectC(v.program, 0, gen::expectedC(c, o, oracle::Saturation::Final, &r),
                        c.cAddr));
  }
  return v;
}

/// Each Mmad of an HF32 sequence against its own C, computed with HF32 as the set_hf32s before
/// it left it. The values round alike under every HF32 reading OPEN-7 lists (generators/mmad.hpp),
/// so one reading stands for all: checked here, a generator whose values did not would stop the
/// run as a defect rather than certify a reading.
VectorCase hf32SequenceVector(const gen::Hf32SequenceCase& c) {
  const auto ops = gen::operandsOf(c);
  isa::Program p = gen::buildProgram(c, ops);
  const std::vector<bool> on = gen::hf32States(c);
  const oracle::MatrixD zero = oracle::MatrixD::Zero(16, 16);
  const oracle::Hf32Reading widest{11, oracle::Hf32Reading::Round::NearestEven},
      narrowest{10, oracle::Hf32Reading::Round::TowardZero};
  oracle::Expected e;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const auto& [a, b] = ops[i];
    const oracle::ElemMatrix ci = oracle::mmadResult(
        isa::DType::F32, a, b, zero, oracle::Saturation::Final, on[i] ? &widest : nullptr);
    if (on[i] && ci != oracle::mmadResult(isa::DType::F32, a, b, zero, oracle::Saturation::Final,
                                          &narrowest)) {
      throw std::logic_error(
          "Hf32Sequence: values two HF32 readings round apart (generator defect)");
    }
    oracle::Expected ei = oracle::expectC(p, i, ci, 1024 * (i + 1));
    if (i == 0) {
      e = std::move(ei);
      continue;
    }
    e.regions[i] = std::move(ei.regions[i]);
    e.written[i] = std::move(ei.written[i]);
    e.formats[i] = ei.formats[i];
  }
  return expectationVector(std::move(p), std::move(e));
}

/// Spec 9's bounded regime. With u = 2^-24 (f32 accumulation), C = fl(init + sum_k a_k b_k)
/// computed by any order of f32 additions of f32-rounded products satisfies (Higham, the
/// recursive-summation bound over the k products and the init, k + 1 roundings of sums plus one
/// of each product)
///     |C - C_exact| <= gamma_{k+2} * (|init| + sum_k |a_k| |b_k|),  gamma_j = j u / (1 - j u).
/// f16 and bf16 products are exact in f32, so the bound is generous for them. With HF32 each f32
/// input is first rounded with a relative error below 2^-10 (10 or 11 fraction bits, any
/// rounding), adding (2 * 2^-10 + 2^-20) * sum_k |a_k| |b_k|. C_exact is computed in double
/// (products exact, sums with relative error below k * 2^-53, covered by a 2^-50 slack).
///
/// Never vacuous: the case must change C (the generator draws no zero dimension here; those are
/// MatchesOracle's, checked exactly), and L0C as it was before the Mmad must itself break the
/// bound somewhere, so that a DUT doing nothing fails (architecture.md habit 9). A case where the
/// initial image would pass (a product tiny against an accumulated C) is a no-op pass: counted
/// apart, it certifies nothing.
Verdict checkBounded(dut::Dut& d, const MmadCase& c) {
  if (c.m == 0 || c.k == 0 || c.n == 0) {
    throw std::logic_error(
        "BoundedError drew a zero dimension: nothing to bound (generator defect)");
  }
  const gen::MmadOperands o = gen::operandsOf(c);
  const isa::Program p = gen::buildProgram(c, o);
  isa::Observed observed;
  if (auto v = runLegal(d, p, observed)) return *v;
  const oracle::MatrixD init = o.init(c.init);
  // In double: the products exact, the sums within the 2^-50 slack below.
  const oracle::MatrixD a = o.a.cast<double>(), b = o.b.cast<double>();
  const oracle::MatrixD exact = init + a * b;
  const oracle::MatrixD mag = init.cwiseAbs() + a.cwiseAbs() * b.cwiseAbs();
  const double u = std::ldexp(1.0, -24);
  const double j = c.k + 2.0;
  double gamma = j * u / (1 - j * u) + std::ldexp(1.0, -50);
  if (c.hf32 && c.dtype == isa::DType::F32)
    gamma += 2 * std::ldexp(1.0, -10) + std::ldexp(1.0, -20);
  const isa::Region& r = p.observe[0];
  const oracle::MatrixD bound = gamma * mag;
  const BoundCheck got = checkWithinBound(observed[0], c.cAddr - r.addr, exact, bound);
  if (got.outside > 0) {
    return {Outcome::Mismatch, std::to_string(got.outside) +
                                   " element(s) outside the derived bound "
                                   "(gamma_{k+2} * (|init| + sum |a||b|)):\n" +
                                   got.firstBad};
  }
  const isa::Segment* before = isa::findSegment(p.segments, r.memory, r.addr, r.size);
  const isa::Bytes initial =
      before == nullptr
          ? isa::Bytes(r.size, 0)
          : isa::Bytes(before->bytes.begin() + static_cast<std::ptrdiff_t>(r.addr - before->addr),
                       before->bytes.begin() +
                           static_cast<std::ptrdiff_t>(r.addr - before->addr + r.size));
  if (checkWithinBound(initial, c.cAddr - r.addr, exact, bound).outside == 0) {
    // Accumulating a product that is tiny against the initial C (m = n = k = 1 with a near-zero
    // a or b): leaving L0C alone passes too. Counted as a no-op pass, which certifies nothing.
    Verdict v{Outcome::Pass, {}, "initial C already within the bound (no-op pass)"};
    v.trivial = true;
    return v;
  }
  const double worstUlp = got.worstUlp;
  const char* bucket = worstUlp <= 1      ? "<= 1 ULP"
                       : worstUlp <= 4    ? "<= 4 ULP"
                       : worstUlp <= 64   ? "<= 64 ULP"
                       : worstUlp <= 4096 ? "<= 4096 ULP"
                                          : "> 4096 ULP (a sum that nearly cancels)";
  return {Outcome::Pass, {}, std::string("worst f32 error in the case ") + bucket};
}

std::vector<std::string> mmadTags(const MmadCase& c) {
  return gen::tagsOf(c);
}

std::vector<std::string> illegalTags(const IllegalMmadCase& c) {
  return {"illegal:" + std::string(isa::nameOf(c.expected))};
}

/// BoundedError's table case: sums that each land 0.75 ulp above a float (MmadValues::
/// RoundingProbe), so additions rounded toward zero fall outside spec 9's bound where nearest
/// rounding stays inside; random values leave it by chance only.
MmadCase roundingProbe(isa::ProfileId profile) {
  MmadCase c;
  c.profile = profile;
  c.dtype = isa::DType::F32;
  c.m = 16;
  c.k = 16;
  c.n = 16;
  c.init = isa::MmadInit::Accumulate;
  c.values = MmadValues::RoundingProbe;
  c.why =
      "additions that each round a 0.75 ulp step (nearest gains 0.25 ulp, toward zero loses "
      "0.75)";
  return c;
}

}  // namespace

Family mmadFamily(isa::ProfileId profile, gen::Sizes sizes) {
  Family f;
  f.title = "Mmad, dense";
  f.spec = {"spec 8", "spec 9"};
  f.openPoints = {"OPEN-6", "OPEN-7", "OPEN-8", "OPEN-15"};
  for (isa::DType t : gen::mmadDTypes(profile))
    f.requiredBins.push_back("dtype:" + std::string(isa::nameOf(t)));
  for (const char* b : {"init:zero",
                        "init:accumulate",
                        "init:bias_table",
                        "init:bias_tensor",
                        "gemv",
                        "m:partial_fractal",
                        "n:partial_fractal",
                        "k:partial_fractal",
                        "hf32:mode0",
                        "hf32:mode1",
                        "zero_dimension",
                        "values:saturate",
                        "values:subnormal",
                        "values:max_finite",
                        "values:infinity",
                        "values:bounded",
                        "probe:saturation",
                        "probe:hf32",
                        "probe:hf32:mode0",
                        "probe:hf32:mode1",
                        "probe:zero_sign:zero",
                        "probe:zero_sign:bias_tensor",
                        "illegal:Range",
                        "illegal:Alignment",
                        "illegal:Capacity",
                        "illegal:DTypeUnsupported",
                        "values:special",
                        "special:subnormal_input",
                        "special:smallest_normal",
                        "special:inf_times_zero",
                        "special:inf_minus_inf",
                        "special:inf",
                        "special:signed_zero",
                        "special:subnormal_result",
                        "special:overflow_positive",
                        "special:overflow_negative",
                        "special:scattered",
                        "special:scattered_subnormal_a",
                        "special:scattered_subnormal_b",
                        "special:scattered_init",
                        "special:scattered_hf32",
                        "values:scaled",
                        "scaled",
                        "scaled:a_large",
                        "scaled:b_large",
                        "scaled:a_tiny",
                        "scaled:b_tiny",
                        "scaled:f16_a_large",
                        "scaled:f16_b_large",
                        "scaled:l0c_subnormal",
                        "scaled:l0c_large",
                        "scaled:bias_subnormal",
                        "scaled:bias_large"}) {
    f.requiredBins.emplace_back(b);
  }
  // Every combination of the three init flags (spec 8: is_bias overrides the other two,
  // cmatrix_init_val overrides cmatrix_source): a DUT that lets an overridden flag win is seen.
  for (const std::string& b : gen::initFlagsBins()) f.requiredBins.push_back(b);
  const isa::ProfileId sp = profile == isa::ProfileId::Legacy ? isa::ProfileId::A2 : profile;
  f.requireSizeBins(gen::mmadSizeBins(sp, true), gen::mmadSizeBins(sp, false));
  // The mode registers beside the Mmads they must leave alone (spec 8, 8.1.5), and HF32 with
  // every init.
  for (isa::DType t : gen::mmadDTypes(sp)) {
    const std::string type(isa::nameOf(t));
    if (t != isa::DType::F32) f.requiredBins.push_back("hf32:on:" + type);
    if (sp == isa::ProfileId::Ascend950) f.requiredBins.push_back("ctrl45:on:" + type);
  }
  for (isa::MmadInit i : {isa::MmadInit::Zero, isa::MmadInit::Accumulate, isa::MmadInit::BiasTable,
                          isa::MmadInit::BiasTensor}) {
    f.requiredBins.push_back("hf32:init:" + std::string(isa::nameOf(i)));
  }
  if (profile == isa::ProfileId::A2) f.requiredBins.emplace_back("k_direction_align");
  if (profile == isa::ProfileId::Ascend950) f.requiredBins.emplace_back("gemv_disabled");
  if (profile == isa::ProfileId::Legacy) {
    f.unsupported = "profile legacy: Mmad is modelled for a2 and 950 only in this version";
  }
  const isa::ProfileId gp = profile == isa::ProfileId::Legacy ? isa::ProfileId::A2 : profile;
  f.properties.push_back(TypedProperty<MmadCase>::fromVector(
      "MatchesOracle",
      "with exact-regime values (every accumulation order gives the same bits) C equals "
      "init + A * B from the logical operands bit for bit, except the don't-care cells "
      "of partial fractals (OPEN-8); K padding is ignored",
      gen::mmadBoundaries(gp), gen::legalMmad(gp, MmadValues::Exact, sizes), 150, mmadVector,
      mmadTags));
  f.properties.push_back(std::make_unique<TypedProperty<MmadCase>>(
      "BoundedError",
      "with unrestricted float values every element of C lies within spec 9's derived "
      "error bound of the exact result; the worst error in ULPs is reported",
      std::vector<MmadCase>{roundingProbe(gp)}, gen::legalMmad(gp, MmadValues::Bounded, sizes), 100,
      checkBounded, mmadTags));
  f.properties.push_back(TypedProperty<IllegalMmadCase>::fromVector(
      std::string(kRejectsIllegal),
      "an Mmad that breaks one rule (dimensions, odd k for s4, unit_flag, dtype, "
      "alignment, capacity) is rejected with that rule's violation code instead of "
      "being executed",
      std::vector<IllegalMmadCase>{}, gen::illegalMmad(gp), 100,
      [](const IllegalMmadCase& c) {
        isa::Program p = gen::buildProgram(c.c);
        p.instructions.back() = c.mmad;
        return rejectionVector(std::move(p), c.expected);
      },
      illegalTags));
  f.properties.push_back(TypedProperty<MmadCase>::fromVector(
      "SaturationProbe",
      "OPEN-7: sums past INT32_MAX where saturating once, saturating every partial sum and "
      "wrapping give three different C: reports the reading (wrapping fails)",
      std::vector<MmadCase>{}, gen::mmadProbe(gp, MmadValues::SaturationProbe), 10, probeVector,
      [](const MmadCase&) { return std::vector<std::string>{"probe:saturation"}; }));
  // Both trans modes in the table, so that every run asks each: the drawn mode is size-scaled,
  // and small runs drew mode 0 alone while the hf32:mode1 bin (cases whose values HF32 cannot
  // change) looked covered.
  std::vector<MmadCase> hf32Modes;
  for (std::uint8_t mode : {0, 1}) {
    MmadCase c;
    c.profile = gp;
    c.values = MmadValues::Hf32Probe;
    c.dtype = isa::DType::F32;
    c.hf32 = true;
    c.hf32Mode = mode;
    c.m = 16;
    c.n = 16;
    c.k = 16;
    c.contentSeed = 11 + mode;
    c.why = "trans mode " + std::to_string(mode) + ": f32 values between HF32 steps";
    hf32Modes.push_back(c);
  }
  f.properties.push_back(TypedProperty<MmadCase>::fromVector(
      "Hf32Probe",
      "OPEN-7 probe: with f32 values between HF32 steps, C equals one HF32 reading "
      "(fraction width and rounding) and the report names which, for each trans mode",
      hf32Modes, gen::mmadProbe(gp, MmadValues::Hf32Probe), 10, probeVector, [](const MmadCase& c) {
        return std::vector<std::string>{"probe:hf32",
                                        "probe:hf32:mode" + std::to_string(c.hf32Mode)};
      }));
  // Every float type from zero and onto a bias tensor, in the table so that every run asks both.
  std::vector<MmadCase> zeroSign;
  for (isa::DType d : {isa::DType::F16, isa::DType::BF16, isa::DType::F32}) {
    for (isa::MmadInit init : {isa::MmadInit::Zero, isa::MmadInit::BiasTensor}) {
      MmadCase c;
      c.profile = gp;
      c.values = MmadValues::ZeroSignProbe;
      c.dtype = d;
      c.init = init;
      c.m = 16;
      c.n = 16;
      c.k = static_cast<std::uint16_t>(2 * isa::mmadK0(d));
      c.why = std::string(isa::nameOf(d)) + ": A all +0, B all -1 " +
              (init == isa::MmadInit::Zero ? "from zero" : "onto a bias tensor of -0");
      zeroSign.push_back(c);
    }
  }
  f.properties.push_back(TypedProperty<MmadCase>::fromVector(
      "ZeroSignProbe",
      "OPEN-15 probe (not certified): products that are all -0, from zero and onto a -0 bias "
      "tensor: C is +0 or -0, and the report names which",
      zeroSign, gen::mmadProbe(gp, MmadValues::ZeroSignProbe), 4, probeVector,
      [](const MmadCase& c) {
        return std::vector<std::string>{"probe:zero_sign:" + std::string(isa::nameOf(c.init))};
      }));
  // HF32 is program state (spec 8): every transition between Mmads, in the table so that every
  // run asks each. A DUT that applied the mode to one Mmad only, or never turned it off, passed
  // every single-Mmad case.
  if (profile != isa::ProfileId::Legacy) {
    for (const char* b :
         {"hf32_seq:first_off", "hf32_seq:first_on", "hf32_seq:kept_on", "hf32_seq:set_on_again",
          "hf32_seq:on_to_off", "hf32_seq:kept_off", "hf32_seq:off_to_on"}) {
      f.requiredBins.emplace_back(b);
    }
  }
  f.properties.push_back(TypedProperty<gen::Hf32SequenceCase>::fromVector(
      "Hf32Sequence",
      "f32 Mmads with HF32 turned on, kept, turned off and on again between them: each C "
      "follows the mode the latest set_hf32 left (off at the program's start), with values "
      "every HF32 reading rounds alike and HF32 changes",
      gen::hf32Sequences(gp), gen::hf32Sequence(gp), 20, hf32SequenceVector,
      [](const gen::Hf32SequenceCase& c) { return gen::tagsOf(c); }));
  f.properties.push_back(std::make_unique<TypedProperty<MmadCase>>(
      "NoStrayWrites", kNoStrayWritesClaim, std::vector<MmadCase>{},
      gen::legalMmad(gp, MmadValues::Exact, sizes), 40,
      [](dut::Dut& d, const MmadCase& c) {
        const gen::MmadOperands o = gen::operandsOf(c);
        const isa::Program p = wholeMemories(gen::buildProgram(c, o));
        // an Mmad program observes L0C alone: region 0, L0C whole
        return checkExpected(d, p, oracle::expectC(p, 0, gen::expectedC(c, o), c.cAddr),
                             /*strayOnly=*/true);
      },
      [](const MmadCase&) { return std::vector<std::string>{kWholeMemoryTag}; }));
  return f;
}

}  // namespace cubecheck::conf
