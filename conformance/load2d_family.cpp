// Properties of LoadData with LoadData2DParams (spec 4), written once against Dut.
#include <algorithm>

#include "conformance/checks.hpp"
#include "conformance/families.hpp"
#include "generators/load2d.hpp"
#include "oracle/layout.hpp"
#include "oracle/oracle.hpp"

namespace cubecheck::conf {
namespace {

using gen::IllegalLoad2DCase;
using gen::InvolutionCase;
using gen::LayoutCase;
using gen::Load2DCase;
using gen::SplitLoad2DCase;

Verdict repeatSplit(dut::Dut& dut, const SplitLoad2DCase& s) {
  const isa::Program whole = gen::buildProgram(s.whole);
  const isa::Program split = gen::buildSplitProgram(s);
  if (auto open = oracle::expect(split).uncertified) return {Outcome::NotSupported, *open};
  return checkSameResult(dut, whole, split,
                         "two calls (" + std::to_string(s.first) + " + " +
                             std::to_string(s.whole.load.params.repeatTimes - s.first) +
                             " repeats) differ from one call (shown as expected):");
}

Verdict transposeTwice(dut::Dut& dut, const InvolutionCase& c) {
  const isa::Program first = gen::involutionFirst(c);
  isa::Observed once;
  if (auto v = runLegal(dut, first, once)) return *v;
  const isa::Program second = gen::involutionSecond(c, once[0]);
  // The expectation is the first pass's own source, not the oracle: transpose is an involution.
  oracle::Expected e;
  e.regions = {gen::involutionSource(c)};
  e.written = {isa::Bytes(e.regions[0].size(), 1)};
  e.formats = {{c.dtype, isa::isBSide(isa::dstOf(c.path)), 0}};
  Verdict v = checkExpected(dut, second, e);
  if (v.outcome == Outcome::Mismatch)
    v.detail = "transposing twice is not the identity:\n" + v.detail;
  return v;
}

oracle::Expected layoutExpectation(const LayoutCase& c, const isa::Program& program) {
  const bool b = c.recipe == gen::LayoutRecipe::TransposedBNzToZn;
  const isa::Bytes want =
      oracle::encode(gen::layoutOperand(c), b ? oracle::Layout::Zn : oracle::Layout::Zz, c.dtype);
  oracle::Expected e;
  // Only the open-point verdict comes from the oracle; the bytes come from spec 3's formulas.
  e.uncertified = oracle::expect(program).uncertified;
  const isa::Segment* canvas =
      isa::findSegment(program.segments, program.observe[0].memory, 0, program.observe[0].size);
  isa::Bytes region = canvas->bytes;
  std::copy(want.begin(), want.end(), region.begin());
  isa::Bytes written(region.size(), 0);
  std::fill_n(written.begin(), want.size(), 1);
  e.regions = {std::move(region)};
  e.written = {std::move(written)};
  e.formats = {{c.dtype, b, 0}};
  return e;
}

std::vector<std::string> splitTags(const SplitLoad2DCase& s) {
  std::vector<std::string> t = gen::tagsOf(s.whole);
  if (s.first == 0)
    t.emplace_back("split:before_first");
  else if (s.first == s.whole.load.params.repeatTimes)
    t.emplace_back("split:after_last");
  else
    t.emplace_back("split:inside");
  return t;
}

std::vector<std::string> layoutTags(const LayoutCase& c) {
  static constexpr const char* kRecipe[] = {"recipe:NzToZz", "recipe:TransposedNzToZz",
                                            "recipe:TransposedBNzToZn"};
  return {kRecipe[static_cast<int>(c.recipe)], "dtype:" + std::string(isa::nameOf(c.dtype))};
}

}  // namespace

Family load2dFamily(isa::ProfileId profile) {
  Family f;
  f.title = "LoadData with LoadData2DParams";
  f.spec = {"spec 2", "spec 3", "spec 4"};
  if (profile == isa::ProfileId::Ascend950) f.openPoints.push_back("OPEN-9");
  for (isa::Load2DPath p : gen::load2DPathsOf(profile)) {
    f.requiredBins.push_back("path:" + std::string(isa::nameOf(p)));
  }
  for (const char* bin :
       {"transpose", "repeat:0", "repeat:1", "dst_gap:>0", "src_stride:0", "dst:ends_at_capacity",
        "src:last_fractal_of_L1", "illegal:Alignment", "illegal:Capacity", "illegal:TransposeType",
        "recipe:NzToZz", "recipe:TransposedNzToZz", "recipe:TransposedBNzToZn"}) {
    f.requiredBins.emplace_back(bin);
  }
  if (profile != isa::ProfileId::Ascend950) {  // 950 has no GM paths
    for (const char* bin :
         {"repeat:255", "src_stride:large", "addr_mode:decrement", "illegal:DecrementUnderflow"}) {
      f.requiredBins.emplace_back(bin);
    }
    // GM's high address bits (spec 1: 48 of them), held by the boundary table at every level.
    for (const char* bin : {"src:GM_high_bits", "src:GM_ends_at_top", "src:GM_unaligned"}) {
      f.requiredBinsOnce.emplace_back(bin);
    }
  }
  auto add = [&](auto property) { f.properties.push_back(std::move(property)); };

  add(TypedProperty<Load2DCase>::fromVector(
      "MatchesOracle",
      "every legal load leaves the destination byte for byte equal to the oracle's "
      "gather of source fractals (start_index, repeat_times, src_stride, dst_gap, "
      "if_transpose, addr_mode) and the canary margins around it unchanged",
      gen::load2DBoundaries(profile), gen::legalLoad2D(profile), 600,
      [](const Load2DCase& c) { return oracleVector(gen::buildProgram(c)); },
      [](const Load2DCase& c) { return gen::tagsOf(c); }));

  add(std::make_unique<TypedProperty<Load2DCase>>(
      "NoStrayWrites", kNoStrayWritesClaim, gen::load2DBoundaries(profile),
      gen::legalLoad2D(profile), 150,
      [](dut::Dut& d, const Load2DCase& c) {
        return checkAgainstOracle(d, wholeMemories(gen::buildProgram(c)), /*strayOnly=*/true);
      },
      [](const Load2DCase& c) { return gen::tagsOf(c); }));

  add(TypedProperty<IllegalLoad2DCase>::fromVector(
      std::string(kRejectsIllegal),
      "a program that breaks one documented rule (alignment, capacity, range, transpose "
      "type, path, decrement underflow) is rejected with that rule's violation code "
      "instead of being executed",
      std::vector<IllegalLoad2DCase>{}, gen::illegalLoad2D(profile), 200,
      [](const IllegalLoad2DCase& c) {
        return rejectionVector(gen::buildProgram(c.c), c.expected);
      },
      [](const IllegalLoad2DCase& c) {
        return std::vector<std::string>{"illegal:" + std::string(isa::nameOf(c.expected))};
      }));

  add(std::make_unique<TypedProperty<SplitLoad2DCase>>(
      "RepeatSplit",
      "a load of r fractals split into two calls, the second continuing where the first "
      "ended, leaves the same memory as the single call",
      std::vector<SplitLoad2DCase>{}, gen::splitLoad2D(profile), 200, repeatSplit, splitTags));

  add(std::make_unique<TypedProperty<InvolutionCase>>(
      "TransposeInvolution",
      "loading 16-bit fractals with if_transpose, then loading the result again with "
      "if_transpose, gives back the source bytes",
      std::vector<InvolutionCase>{}, gen::involutionLoad2D(profile), 100, transposeTwice,
      [](const InvolutionCase& c) {
        return std::vector<std::string>{"path:" + std::string(isa::nameOf(c.path)),
                                        "dtype:" + std::string(isa::nameOf(c.dtype))};
      }));

  add(TypedProperty<LayoutCase>::fromVector(
      "LayoutKnownAnswer",
      "spec 4's load recipes turn a logical matrix stored Nz into exactly the Zz or Zn "
      "image that spec 3's layout formulas give",
      std::vector<LayoutCase>{}, gen::layoutLoad2D(profile), 150,
      [](const LayoutCase& c) {
        isa::Program p = gen::buildLayoutProgram(c);
        oracle::Expected e = layoutExpectation(c, p);
        return expectationVector(std::move(p), std::move(e));
      },
      layoutTags));
  return f;
}

}  // namespace cubecheck::conf
