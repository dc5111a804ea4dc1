// Generators for LoadData2DParamsV2 and Load2DBitModeParam (spec 5), profile 950.
#pragma once

#include <rapidcheck.h>

#include <iosfwd>
#include <string>
#include <vector>

#include "isa/load2d_v2.hpp"
#include "isa/program.hpp"
#include "oracle/tile.hpp"

namespace cubecheck::gen {

struct V2Case {
  isa::ProfileId profile = isa::ProfileId::Ascend950;
  isa::LoadV2 load;
  std::uint64_t contentSeed = 0;
  std::string why;
};
std::ostream& operator<<(std::ostream& os, const V2Case& c);

/// Source fractals read (one fractal of margin each side) and the destination footprint with a
/// fractal of canary either side, observed. `instruction` replaces the V2 load when given (the
/// bit-mode form of the same case).
isa::Program buildProgram(const V2Case& c);
isa::Program buildBitModeProgram(const V2Case& c);
std::vector<std::string> tagsOf(const V2Case& c);

/// Legal V2 loads by construction; `bitModePaths` restricts to L1->L0A/L0B.
rc::Gen<V2Case> legalV2(isa::ProfileId profile, bool bitModePaths = false);
std::vector<V2Case> v2Boundaries(isa::ProfileId profile, bool bitModePaths = false);

struct IllegalV2Case {
  V2Case c;
  bool bitMode = false;  ///< run as Load2DBitModeParam (with `words`) instead of V2
  isa::Load2DBitModeParam words;
  isa::ViolationCode expected = isa::ViolationCode::Range;
};
std::ostream& operator<<(std::ostream& os, const IllegalV2Case& c);
rc::Gen<IllegalV2Case> illegalV2(isa::ProfileId profile, bool bitMode);
isa::Program buildProgram(const IllegalV2Case& c);

/// A legal case and the same fields widened past their hardware widths: the bit-mode words built
/// from the wide struct must load what the legal struct loads.
struct WideV2Case {
  V2Case legal;
  isa::LoadData2DParamsV2 wide;
};
std::ostream& operator<<(std::ostream& os, const WideV2Case& c);
rc::Gen<WideV2Case> wideV2(isa::ProfileId profile);

/// spec 5's whole-matrix loads: A (M x K) in Nz to Nz (dst_stride M1), or transposed to Nz of
/// A^T (dst_stride K/16), with layouts predicted by spec 3's formulas.
struct V2LayoutCase {
  isa::ProfileId profile = isa::ProfileId::Ascend950;
  isa::DType dtype = isa::DType::F16;
  bool transpose = false;
  bool toL0B = false;
  int mBlocks = 1, kBlocks = 1;
  std::uint64_t contentSeed = 0;
};
std::ostream& operator<<(std::ostream& os, const V2LayoutCase& c);
rc::Gen<V2LayoutCase> v2Layout(isa::ProfileId profile);
oracle::ElemMatrix v2LayoutOperand(const V2LayoutCase& c);
isa::Program buildProgram(const V2LayoutCase& c);

std::vector<isa::DType> v2DTypes();

}  // namespace cubecheck::gen
