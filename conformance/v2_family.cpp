// Properties of LoadData2DParamsV2 and Load2DBitModeParam (spec 5), profile 950.
#include <algorithm>

#include "conformance/checks.hpp"
#include "conformance/families.hpp"
#include "generators/load2d_v2.hpp"
#include "oracle/layout.hpp"
#include "oracle/oracle.hpp"

namespace cubecheck::conf {
namespace {

using gen::IllegalV2Case;
using gen::V2Case;
using gen::V2LayoutCase;
using gen::WideV2Case;

std::string notOnProfile(isa::ProfileId p, const char* what) {
  return "profile " + std::string(isa::profile(p).name) + " has no " + what + " (spec 1)";
}

VectorCase layoutVector(const V2LayoutCase& c) {
  isa::Program p = gen::buildProgram(c);
  const oracle::ElemMatrix a = gen::v2LayoutOperand(c);
  // The bytes come from spec 3's Nz formula, not from the V2 oracle.
  const isa::Bytes want = c.transpose ? oracle::encode(a.transpose(), oracle::Layout::Nz, c.dtype)
                                      : oracle::encode(a, oracle::Layout::Nz, c.dtype);
  oracle::Expected e;
  isa::Bytes region = p.segments[1].bytes;
  std::copy(want.begin(), want.end(), region.begin());
  isa::Bytes written(region.size(), 0);
  std::fill_n(written.begin(), want.size(), 1);
  e.regions = {std::move(region)};
  e.written = {std::move(written)};
  e.formats = {{c.dtype, false, 0, 512}};
  return expectationVector(std::move(p), std::move(e));
}

std::vector<std::string> illegalTags(const IllegalV2Case& c) {
  return {"illegal:" + std::string(isa::nameOf(c.expected))};
}

}  // namespace

Family load2dV2Family(isa::ProfileId profile) {
  Family f;
  f.title = "LoadData with LoadData2DParamsV2";
  f.spec = {"spec 3", "spec 5"};
  f.openPoints = {"OPEN-10"};
  for (isa::DType t : gen::v2DTypes())
    f.requiredBins.push_back("dtype:" + std::string(isa::nameOf(t)));
  for (const char* bin : {"transpose", "plain", "step:0", "step:255",
                          "dst_stride:gap_between_columns", "dst_stride:columns_overlap",
                          "src:last_fractal_of_L1", "illegal:Range", "illegal:Capacity"}) {
    f.requiredBins.emplace_back(bin);
  }
  // GM's high address bits (spec 1: 48 of them), held by the boundary table at every level.
  for (const char* bin : {"src:GM_high_bits", "src:GM_ends_at_top"}) {
    f.requiredBinsOnce.emplace_back(bin);
  }
  if (profile != isa::ProfileId::Ascend950)
    f.unsupported = notOnProfile(profile, "LoadData2DParamsV2");
  const isa::ProfileId gp = isa::ProfileId::Ascend950;
  f.properties.push_back(TypedProperty<V2Case>::fromVector(
      "MatchesOracle",
      "every legal load leaves the destination equal to the source rectangle "
      "(transposed when asked) cut into Nz fractals placed dst_stride apart in spec 5's "
      "order, with the canaries unchanged",
      gen::v2Boundaries(gp), gen::legalV2(gp), 500,
      [](const V2Case& c) { return oracleVector(gen::buildProgram(c)); },
      [](const V2Case& c) { return gen::tagsOf(c); }));
  f.properties.push_back(TypedProperty<IllegalV2Case>::fromVector(
      std::string(kRejectsIllegal),
      "a load that breaks one rule (square-block steps when transposing, field widths, "
      "dtype, alignment, capacity) is rejected with that rule's violation code instead "
      "of being executed",
      std::vector<IllegalV2Case>{}, gen::illegalV2(gp, false), 150,
      [](const IllegalV2Case& c) { return rejectionVector(gen::buildProgram(c), c.expected); },
      illegalTags));
  f.properties.push_back(TypedProperty<V2LayoutCase>::fromVector(
      "LayoutKnownAnswer",
      "a whole Nz matrix loads as the same Nz image with dst_stride M1, and transposed "
      "as the Nz image of A^T with dst_stride K/16",
      std::vector<V2LayoutCase>{}, gen::v2Layout(gp), 150, layoutVector, [](const V2LayoutCase& c) {
        return std::vector<std::string>{"dtype:" + std::string(isa::nameOf(c.dtype)),
                                        c.transpose ? "transpose" : "plain"};
      }));
  f.properties.push_back(
      noStrayWrites(gen::legalV2(gp), 40, [](const V2Case& c) { return gen::buildProgram(c); }));
  return f;
}

Family load2dBitModeFamily(isa::ProfileId profile) {
  Family f;
  f.title = "LoadData with Load2DBitModeParam (the V2 fields packed in two words)";
  f.spec = {"spec 5"};
  f.openPoints = {"OPEN-10"};
  f.requiredBins = {"transpose",   "step:0",        "dst_stride:columns_overlap",
                    "wide_fields", "illegal:Range", "illegal:PathUnsupported"};
  if (profile != isa::ProfileId::Ascend950)
    f.unsupported = notOnProfile(profile, "Load2DBitModeParam");
  const isa::ProfileId gp = isa::ProfileId::Ascend950;
  f.properties.push_back(TypedProperty<V2Case>::fromVector(
      "MatchesOracle",
      "a load through the two words moves exactly what spec 5's bit table says the "
      "packed fields mean",
      gen::v2Boundaries(gp, true), gen::legalV2(gp, true), 400,
      [](const V2Case& c) { return oracleVector(gen::buildBitModeProgram(c)); },
      [](const V2Case& c) { return gen::tagsOf(c); }));
  f.properties.push_back(std::make_unique<TypedProperty<V2Case>>(
      "EqualsV2",
      "a bit-mode load leaves the same memory as the LoadData2DParamsV2 load whose "
      "fields it packs",
      gen::v2Boundaries(gp, true), gen::legalV2(gp, true), 150,
      [](dut::Dut& d, const V2Case& c) {
        return checkSameResult(d, gen::buildProgram(c), gen::buildBitModeProgram(c),
                               "bit mode (observed) differs from V2 (shown as expected):");
      },
      [](const V2Case& c) { return gen::tagsOf(c); }));
  f.properties.push_back(std::make_unique<TypedProperty<WideV2Case>>(
      "WideFieldsTruncated",
      "words packed from a V2 struct whose fields exceed their bit widths load what the "
      "struct truncated to those widths loads",
      std::vector<WideV2Case>{}, gen::wideV2(gp), 100,
      [](dut::Dut& d, const WideV2Case& w) {
        isa::Program bits = gen::buildProgram(w.legal);
        bits.instructions = {isa::LoadBitMode{w.legal.load.path, w.legal.load.dtype,
                                              w.legal.load.srcAddr, w.legal.load.dstAddr,
                                              isa::Load2DBitModeParam(w.wide)}};
        return checkSameResult(d, gen::buildProgram(w.legal), bits,
                               "words from the wide struct (observed) differ from the V2 load:");
      },
      [](const WideV2Case&) { return std::vector<std::string>{"wide_fields"}; }));
  f.properties.push_back(TypedProperty<IllegalV2Case>::fromVector(
      std::string(kRejectsIllegal),
      "a load that breaks one rule (step rules, non-zero unused bits, dtype, path, "
      "alignment, capacity) is rejected with that rule's violation code instead of "
      "being executed",
      std::vector<IllegalV2Case>{}, gen::illegalV2(gp, true), 150,
      [](const IllegalV2Case& c) { return rejectionVector(gen::buildProgram(c), c.expected); },
      illegalTags));
  f.properties.push_back(noStrayWrites(
      gen::legalV2(gp, true), 40, [](const V2Case& c) { return gen::buildBitModeProgram(c); }));
  return f;
}

}  // namespace cubecheck::conf
