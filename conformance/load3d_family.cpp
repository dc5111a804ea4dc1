// Properties of LoadData 3D, img2col (spec 6): V2 and V2Pro on a2 and 950, V1 on legacy.
#include "conformance/checks.hpp"
#include "conformance/families.hpp"
#include "generators/load3d.hpp"

namespace cubecheck::conf {
namespace {

using gen::IllegalLoad3DCase;
using gen::IllegalLoad3DV1Case;
using gen::Load3DCase;
using gen::Load3DV1Case;

VectorCase illegalVector(const IllegalLoad3DCase& c) {
  VectorCase v = rejectionVector(gen::buildProgram(c), c.expected);
  v.before = gen::programsBefore(c);
  return v;
}

std::vector<std::string> illegalTags(isa::ViolationCode code) {
  return {"illegal:" + std::string(isa::nameOf(code))};
}

/// The bins a V2 or V2Pro run must hit: every path and type, every register source, each
/// geometry edge of the boundary list, partial fractals and the no-op.
std::vector<std::string> img2colBins(bool pro) {
  std::vector<std::string> bins;
  for (isa::Load2DPath path : {isa::Load2DPath::A1toA2, isa::Load2DPath::B1toB2}) {
    bins.push_back("path:" + std::string(isa::nameOf(path)));
    for (isa::DType t : gen::load3dDTypes(path))
      bins.push_back("dtype:" + std::string(isa::nameOf(t)));
  }
  std::sort(bins.begin(), bins.end());
  bins.erase(std::unique(bins.begin(), bins.end()), bins.end());
  for (const char* b : {"transpose",
                        "kernel:1x1",
                        "kernel:larger_than_input",
                        "window:all_padding",
                        "stride:greater_than_kernel",
                        "dilation:>1",
                        "filter:256_extension",
                        "pad:asymmetric",
                        "m:partial_fractal",
                        "k:padding_not_written",
                        "dst:ends_at_capacity",
                        "noop",
                        "registers:preset",
                        "registers:fmatrix_b",
                        "registers:earlier_load",
                        "illegal:Range",
                        "illegal:TransposeType",
                        "illegal:DTypeUnsupported",
                        "illegal:Capacity",
                        "illegal:UndefinedMemory",
                        "registers:unwritten",
                        "registers:unwritten_after_writer"}) {
    bins.emplace_back(b);
  }
  if (!pro) {
    for (gen::RegisterSource r : {gen::RegisterSource::Params, gen::RegisterSource::PaddingOnly,
                                  gen::RegisterSource::FmatrixOnly}) {
      bins.push_back("registers:" + std::string(gen::nameOf(r)));
    }
  }
  return bins;
}

std::vector<std::string> proTags(const Load3DCase& c) {
  std::vector<std::string> t = gen::tagsOf(c);
  const std::string drawn = "registers:" + std::string(gen::nameOf(c.registers));
  for (std::string& s : t) {
    if (s == drawn) s = "registers:" + std::string(gen::nameOf(gen::registersOf(c, true)));
  }
  return t;
}

}  // namespace

Family load3dV2Family(isa::ProfileId profile) {
  Family f;
  f.title = "LoadData 3D V2 (img2col)";
  f.spec = {"spec 6.1", "spec 6.2"};
  f.openPoints = {"OPEN-11"};
  f.requiredBins = img2colBins(false);
  f.requiredBinsFull = {"filter:128-255", "dilation:128-255", "feature_map:4096+"};
  if (profile == isa::ProfileId::Legacy) {
    f.unsupported = "profile legacy: the suite models LoadData 3D V1 only there (spec 1)";
  }
  const isa::ProfileId gp = profile == isa::ProfileId::Legacy ? isa::ProfileId::A2 : profile;
  f.properties.push_back(TypedProperty<Load3DCase>::fromVector(
      "MatchesOracle",
      "every legal load leaves the destination equal to the selected block of the "
      "im2col matrix (padded cells hold pad_value) in the L0A/L0B fractal layout, "
      "register state persisting across the program, canaries unchanged",
      gen::load3DBoundaries(gp), gen::legalLoad3D(gp), 300,
      [](const Load3DCase& c) { return oracleVector(gen::buildProgram(c, false)); },
      [](const Load3DCase& c) { return gen::tagsOf(c); }));
  f.properties.push_back(TypedProperty<IllegalLoad3DCase>::fromVector(
      std::string(kRejectsIllegal),
      "a load that breaks one rule (strides, dilation, k_start, dtype, transpose, "
      "alignment, capacity, a window larger than the padded map) is rejected with that "
      "rule's violation code instead of being executed",
      gen::unwrittenRegisterCases(gp, false), gen::illegalLoad3D(gp, false), 120, illegalVector,
      [](const IllegalLoad3DCase& c) { return gen::tagsOf(c); }));
  f.properties.push_back(noStrayWrites(
      gen::legalLoad3D(gp), 40, [](const Load3DCase& c) { return gen::buildProgram(c, false); }));
  return f;
}

Family load3dV2ProFamily(isa::ProfileId profile) {
  Family f;
  f.title = "LoadData 3D V2Pro (img2col, fields packed in configuration words)";
  f.spec = {"spec 6.1", "spec 6.2", "spec 6.3"};
  f.openPoints = {"OPEN-11"};
  f.requiredBins = img2colBins(true);
  f.requiredBinsFull = {"filter:128-255", "dilation:128-255", "feature_map:4096+"};
  f.requiredBins.emplace_back("equals_v2");
  if (profile == isa::ProfileId::Legacy) {
    f.unsupported = "profile legacy: the suite models LoadData 3D V1 only there (spec 1)";
  }
  const isa::ProfileId gp = profile == isa::ProfileId::Legacy ? isa::ProfileId::A2 : profile;
  f.properties.push_back(TypedProperty<Load3DCase>::fromVector(
      "MatchesOracle",
      "with ext_config and filter_config unpacked as spec 6.3 packs them and L1 size, "
      "pads and pad value read from the registers, a load leaves the im2col block the "
      "oracle computes",
      gen::load3DBoundaries(gp), gen::legalLoad3D(gp), 300,
      [](const Load3DCase& c) { return oracleVector(gen::buildProgram(c, true)); }, proTags));
  f.properties.push_back(std::make_unique<TypedProperty<Load3DCase>>(
      "EqualsV2",
      "a V2Pro load leaves the same memory as the V2 load with the same unpacked fields",
      std::vector<Load3DCase>{}, gen::legalLoad3D(gp), 100,
      [](dut::Dut& d, const Load3DCase& c) {
        Load3DCase v2 = c;
        if (v2.registers == gen::RegisterSource::Params) v2.registers = gen::RegisterSource::Preset;
        return checkSameResult(d, gen::buildProgram(v2, false), gen::buildProgram(v2, true),
                               "the V2Pro load (observed) differs from the V2 load (expected):");
      },
      [](const Load3DCase&) { return std::vector<std::string>{"equals_v2"}; }));
  f.properties.push_back(TypedProperty<IllegalLoad3DCase>::fromVector(
      std::string(kRejectsIllegal),
      "an illegal en_small_k, non-zero unused filter_config bits, or unpacked fields "
      "that break a V2 rule get the load rejected with that rule's violation code "
      "instead of executed",
      gen::unwrittenRegisterCases(gp, true), gen::illegalLoad3D(gp, true), 120, illegalVector,
      [](const IllegalLoad3DCase& c) { return gen::tagsOf(c); }));
  f.properties.push_back(noStrayWrites(
      gen::legalLoad3D(gp), 40, [](const Load3DCase& c) { return gen::buildProgram(c, true); }));
  return f;
}

Family load3dV1Family(isa::ProfileId profile) {
  Family f;
  f.title = "LoadData 3D V1 (img2col, provisional model)";
  f.spec = {"spec 6.4"};
  f.openPoints = {"OPEN-11"};
  f.provisional =
      "LoadData3DParamsV1 follows the inferred, low-confidence model of spec 6.4: a pass shows "
      "agreement with that model, not with the hardware";
  f.requiredBins = {"dtype:u8",
                    "dtype:s8",
                    "dtype:f16",
                    "mode:0",
                    "mode:1",
                    "jump:>1",
                    "tap:wraps",
                    "padding",
                    "dilation:>1",
                    "illegal:Range",
                    "illegal:PathUnsupported"};
  if (profile != isa::ProfileId::Legacy) {
    f.unsupported = "profile " + std::string(isa::profile(profile).name) +
                    " has no LoadData3DParamsV1 (spec 1: legacy only)";
  }
  f.properties.push_back(TypedProperty<Load3DV1Case>::fromVector(
      "MatchesOracle",
      "each repeat writes the 16 x C0 fractal of output pixels and channels at its "
      "kernel tap where spec 6.4's provisional model puts it (agreement with that "
      "model, not with hardware)",
      gen::load3DV1Boundaries(), gen::legalLoad3DV1(), 200,
      [](const Load3DV1Case& c) { return oracleVector(gen::buildProgram(c)); },
      [](const Load3DV1Case& c) { return gen::tagsOf(c); }));
  f.properties.push_back(TypedProperty<IllegalLoad3DV1Case>::fromVector(
      std::string(kRejectsIllegal),
      "a load with a field out of range, a tap outside the kernel, an unsupported dtype "
      "or path, or an operand over capacity is rejected with that rule's violation code "
      "instead of being executed",
      std::vector<IllegalLoad3DV1Case>{}, gen::illegalLoad3DV1(), 80,
      [](const IllegalLoad3DV1Case& c) {
        return rejectionVector(gen::buildProgram(c.c), c.expected);
      },
      [](const IllegalLoad3DV1Case& c) { return illegalTags(c.expected); }));
  f.properties.push_back(noStrayWrites(gen::legalLoad3DV1(), 40,
                                       [](const Load3DV1Case& c) { return gen::buildProgram(c); }));
  return f;
}

}  // namespace cubecheck::conf
