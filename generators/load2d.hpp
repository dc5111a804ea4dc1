// RapidCheck generators, boundary tables and illegal sets for LoadData2DParams (spec 4), and the
// Programs built from them.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "isa/load2d.hpp"
#include "isa/program.hpp"
#include "isa/violation.hpp"
#include "oracle/tile.hpp"

namespace cubecheck::gen {

/// One LoadData2DParams instruction with the seed its buffers are filled from: a plain value
/// (architecture.md habit 4), printable, shrinkable on its structure.
struct Load2DCase {
  isa::ProfileId profile = isa::ProfileId::A2;
  isa::Load2D load;
  std::uint64_t contentSeed = 0;
  std::string why;  ///< the boundary a table entry covers; empty for random draws
};

std::ostream& operator<<(std::ostream& os, const Load2DCase& c);

/// The program of a case: source fractals (with one fractal of margin each side) and a
/// destination segment that extends one fractal past the footprint on both sides, filled from the
/// seed; the whole destination segment is observed, so its margin is the stray-write canary.
isa::Program buildProgram(const Load2DCase& c);

/// Coverage tags: path, dtype, transpose, repeat class, stride class, gap, addr_mode, edges.
std::vector<std::string> tagsOf(const Load2DCase& c);

/// Constraints for the legal generator.
struct Load2DShape {
  std::vector<isa::Load2DPath> paths;  ///< empty: every path of the profile
  unsigned minRepeat = 0;
  unsigned maxRepeat = 255;
  std::optional<bool> transpose;  ///< nullopt: drawn
};

/// Legal by construction (architecture.md habit 5): every field is drawn inside the range the
/// fields drawn before it leave, so no case is filtered away.
rc::Gen<Load2DCase> legalLoad2D(isa::ProfileId profile, Load2DShape shape = {});

/// Annotated boundary cases (architecture.md habit 6), all legal, each with its reason in `why`.
std::vector<Load2DCase> load2DBoundaries(isa::ProfileId profile);

/// A program that breaks exactly one rule, and the rule.
struct IllegalLoad2DCase {
  Load2DCase c;
  isa::ViolationCode expected = isa::ViolationCode::Range;
};
std::ostream& operator<<(std::ostream& os, const IllegalLoad2DCase& c);
rc::Gen<IllegalLoad2DCase> illegalLoad2D(isa::ProfileId profile);

/// A legal case and a split point: repeats [0, first) in one call, the rest in a second call.
struct SplitLoad2DCase {
  Load2DCase whole;
  unsigned first = 0;
};
std::ostream& operator<<(std::ostream& os, const SplitLoad2DCase& c);
rc::Gen<SplitLoad2DCase> splitLoad2D(isa::ProfileId profile);
/// The two-call program with the same segments and observed regions as buildProgram(whole).
isa::Program buildSplitProgram(const SplitLoad2DCase& c);

/// Transpose twice: r contiguous 16-bit fractals from L1 fractal `start`, transposed into L0 at 0.
struct InvolutionCase {
  isa::ProfileId profile = isa::ProfileId::A2;
  isa::Load2DPath path = isa::Load2DPath::A1toA2;
  isa::DType dtype = isa::DType::F16;
  std::uint16_t start = 0;
  std::uint8_t repeat = 1;
  std::uint64_t contentSeed = 0;
};
std::ostream& operator<<(std::ostream& os, const InvolutionCase& c);
rc::Gen<InvolutionCase> involutionLoad2D(isa::ProfileId profile);
/// First pass: random L1, transposed load of fractals [start, start + repeat) into L0 at 0;
/// observes the repeat*512 destination bytes.
isa::Program involutionFirst(const InvolutionCase& c);
/// Second pass: L1 holds `firstOutput` at 0; the same transposed load from fractal 0.
isa::Program involutionSecond(const InvolutionCase& c, const isa::Bytes& firstOutput);
/// The source fractals of the first pass, which the second pass must give back.
isa::Bytes involutionSource(const InvolutionCase& c);

/// The layout recipes of spec 4, whose results spec 3's formulas predict.
enum class LayoutRecipe {
  NzToZz,             ///< A (M x K) Nz in L1 -> Zz in L0A, one load per m-block
  TransposedNzToZz,   ///< A^T (K x M) Nz in L1 -> Zz of A in L0A with if_transpose (16-bit)
  TransposedBNzToZn,  ///< B^T (N x K) Nz in L1 -> Zn of B (K x N) in L0B, one straight copy
};
struct LayoutCase {
  isa::ProfileId profile = isa::ProfileId::A2;
  LayoutRecipe recipe = LayoutRecipe::NzToZz;
  isa::DType dtype = isa::DType::F16;
  int rowBlocks = 1;  ///< M1 (A) or N1 (B): 16-row blocks of the logical operand
  int kBlocks = 1;    ///< K1: C0-wide blocks of K
  std::uint64_t contentSeed = 0;
};
std::ostream& operator<<(std::ostream& os, const LayoutCase& c);
rc::Gen<LayoutCase> layoutLoad2D(isa::ProfileId profile);
/// The logical operand: A (M x K) for the A recipes, B (K x N) for the B recipe.
oracle::ElemMatrix layoutOperand(const LayoutCase& c);
isa::Program buildLayoutProgram(const LayoutCase& c);

/// Every dtype the profile has.
std::vector<isa::DType> dtypesOf(isa::ProfileId profile);
/// Every LoadData2DParams path the profile has.
std::vector<isa::Load2DPath> load2DPathsOf(isa::ProfileId profile);

}  // namespace cubecheck::gen
