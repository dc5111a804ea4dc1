// Whole-pipeline programs (spec 4-9): operands start in GM, travel GM -> L1 -> L0A/L0B through
// the 2D, V2, 3D or sparse loads, are multiplied by Mmad or MmadWithSparse into L0C, and only
// L0C is observed. What C must be comes from the logical matrices alone.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "generators/mmad.hpp"
#include "isa/mmad.hpp"
#include "isa/program.hpp"
#include "oracle/mmad.hpp"

namespace cubecheck::gen {

enum class PipelineKind : std::uint8_t {
  Direct,       ///< A (Nz) and B^T (Nz = Zn of B) copied GM -> L1 -> L0 whole, one Mmad
  TransposedA,  ///< A supplied as A^T (Nz) and transposed on the way into L0A (16-bit types)
  ReversedL1,   ///< a2: A copied GM -> L1 with addr_mode decrement, then fractal by fractal
  KSplit,       ///< K cut into tiles, each loaded and multiplied, accumulating in L0C
  Sparse,       ///< a2, s8: B 2:4, packed; LoadDataWithSparse + MmadWithSparse
  Conv,         ///< A = im2col of a feature map (LoadData 3D V2), B the weights
};
std::string_view nameOf(PipelineKind k);

/// What makes a Direct or KSplit pipeline on 950 a low-precision one (spec 8.1): A of the case's
/// dtype and B of bType, one of the five pairs of spec 8.1.2, f32 C; values in the W-exact regime
/// of 8.1.6.3, drawn from binade windows as the mmad_lowprec family draws them.
struct LowPipeline {
  isa::DType bType = isa::DType::Fp8E4M3FN;
  bool hif8Mode = false;  ///< CTRL[45], set explicitly (also to 0) in every such program (8.1.5)
  /// B supplied as B (K x N, Nz) rather than B^T and transposed B1 -> B2 by the V2 load (spec 5:
  /// b8 with m_step even), one 32-K block per call where N's 32-column blocks overhang N1.
  bool transposedB = false;
  int loA = 0, widthA = 4, loB = 0, widthB = 4;  ///< binade windows [lo, lo + width - 1]
};

struct PipelineCase {
  isa::ProfileId profile = isa::ProfileId::A2;
  PipelineKind kind = PipelineKind::Direct;
  isa::DType dtype = isa::DType::F16;
  std::uint16_t m = 16, k = 32, n = 16;  ///< for Conv, m and k follow from the geometry
  /// Exact, or (Direct and KSplit, float types) Special: the special rows of the mmad family.
  MmadValues values = MmadValues::Exact;
  isa::MmadInit init = isa::MmadInit::Zero;
  int kTiles = 1;            ///< KSplit: tiles of whole K fractals, the last may be partial
  bool load2dOn950 = false;  ///< 950: L1 -> L0 by LoadData2DParams (M, N <= 16: OPEN-9 agrees)
  // Conv geometry: C x H x W map, kernel, stride, pads [left, right, top, bottom], pad value.
  std::uint16_t convC1 = 1, convH = 4, convW = 4;
  std::uint8_t convKh = 3, convKw = 3, convStride = 1;
  std::array<std::uint8_t, 4> convPad{1, 1, 1, 1};
  std::optional<LowPipeline> low;  ///< 950, Direct or KSplit: fp8 or HiF8 operands (spec 8.1)
  /// Where A (or the feature map) and B wait in GM. Each is under 1 MiB (it fits L1), so the two
  /// lie 1 MiB apart at least and each ends by 2^48 (spec 1: GM's 48-bit address space).
  std::uint64_t gmA = 0, gmB = 1 << 20;
  std::uint64_t contentSeed = 0;
  std::string why;
};
std::ostream& operator<<(std::ostream& os, const PipelineCase& c);

/// The logical operands: A (m x k), B (k x n), C's initial L0C contents and bias (values), and
/// for Conv the feature map (channel c as an H x W matrix) and its pad value.
struct PipelineOperands : MmadOperands {
  std::vector<oracle::MatrixD> map;
  double padValue = 0;
  oracle::ElemMatrix aCodes, bCodes;  ///< low precision: the element codes of a and b
};
PipelineOperands operandsOf(const PipelineCase& c);

/// The program; `denseB` replaces a Sparse case's B by the dense pipeline on B' (the operand
/// the sparse pipeline must equal), `kind` overrides the case's kind (for metamorphic pairs).
isa::Program buildProgram(const PipelineCase& c);
isa::Program buildProgram(const PipelineCase& c, PipelineKind kind, bool load2dOn950);

/// C = init + A * B (A * B' for Sparse, im2col(F) * W for Conv) as accumulator bit patterns.
oracle::ElemMatrix expectedC(const PipelineCase& c, const PipelineOperands& o);
/// (m, n) of C: for Conv, m = Ho*Wo.
std::pair<std::uint16_t, std::uint16_t> cShape(const PipelineCase& c);
std::vector<std::string> tagsOf(const PipelineCase& c);
/// An e4m3fn x e4m3fn case without the mode whose program leaves CTRL[45] at its reset value
/// (an odd content seed; no draw).
bool ctrl45Unwritten(const PipelineCase& c);
/// A sparse case whose B' is loaded by two LoadDataWithSparse calls (an odd content seed, two or
/// more dense fractals; no draw).
bool sparseSplit(const PipelineCase& c);
/// The size bins (Direct and KSplit) and special-value tags of the case: part of tagsOf.
std::vector<std::string> sizeAndSpecialTags(const PipelineCase& c);

/// Direct and KSplit draw m, n and k by size class up to what L0A/L0B/L0C hold (`sizes`).
rc::Gen<PipelineCase> legalPipeline(isa::ProfileId profile, Sizes sizes = Sizes::Mixed);
/// Legal cases restricted to what a metamorphic pair needs.
rc::Gen<PipelineCase> pipelineFor(isa::ProfileId profile, PipelineKind kind,
                                  Sizes sizes = Sizes::Mixed);
/// The size bins of m, n and k of Direct and KSplit pipelines; with smallOnly, the ones a smoke
/// run is held to.
std::vector<std::string> pipelineSizeBins(isa::ProfileId profile, bool smallOnly);
std::vector<PipelineCase> pipelineBoundaries(isa::ProfileId profile);
/// The case with B 1 MiB after A and ending exactly at 2^48, the top of GM.
PipelineCase atGmTop(PipelineCase c);

/// Low-precision pipelines on 950 (spec 8.1): every pair of spec 8.1.2 from GM through the V2
/// loads, whole or K split, B copied or transposed into L0B, CTRL[45] set in each program.
rc::Gen<PipelineCase> legalLowPipeline(Sizes sizes = Sizes::Mixed);
std::vector<PipelineCase> lowPipelineBoundaries();

constexpr std::uint64_t kPipelineCAddr = 0;  ///< where every pipeline writes C in L0C

}  // namespace cubecheck::gen
