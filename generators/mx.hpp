// Generators for MmadMx on 950 (spec 8.1): the eight fp8 and fp4 pairs with E8M0 scales, the
// decode probe with unit scales (8.1.6.1), the scale probe (8.1.6.2), the W-exact regime with
// the MX adjustment (8.1.6.3), the bounded regime (8.1.6.4) and cases breaking one rule each.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "generators/common.hpp"
#include "isa/mmad.hpp"
#include "isa/program.hpp"
#include "oracle/mmad.hpp"
#include "oracle/tile.hpp"

namespace cubecheck::gen {

enum class MxValues : std::uint8_t {
  DecodeProbe,  ///< 8.1.6.1: every scale 0x7F, a selector times every finite code
  ScaleProbe,   ///< 8.1.6.2: a selector times random codes, scales 0x7F +- 8
  Exact,        ///< 8.1.6.3: windows and scale spans sized so that every partial sum is exact
  Bounded,      ///< 8.1.6.4: every finite code, scales 0x7F +- 4, within the derived bound
  /// OPEN-18: a selector whose first K block is scaled by E8M0 0x00, against data scaled by
  /// 0xFE (2^127) there; the second block at unit scales. C tells 0x00 = 2^-127 from 0x00 = 0.
  EdgeScaleProbe,
  /// OPEN-16: e4m3 x e4m3 with CTRL[45] = 1, unit scales, a selector times codes that are
  /// finite, nonzero and normal both as fp8_e4m3fn and as HiF8 and differ between the two.
  HiF8ModeProbe,
};
std::string_view nameOf(MxValues v);

struct MxCase {
  isa::ProfileId profile = isa::ProfileId::Ascend950;
  isa::DType aType = isa::DType::Fp8E4M3FN;
  isa::DType bType = isa::DType::Fp8E4M3FN;
  std::uint16_t m = 16, k = 64, n = 16;  ///< k a multiple of 64
  isa::MmadInit init = isa::MmadInit::Zero;
  /// Init flags sent although the init overrides them, as MmadCase's (spec 8: is_bias over
  /// cmatrix_init_val and cmatrix_source, cmatrix_init_val over cmatrix_source).
  bool ignoredSource = false;
  bool ignoredInitVal = false;
  std::uint8_t unitFlag = 0;  ///< 0, 2 or 3: synchronisation only, no effect on C (spec 8)
  MxValues values = MxValues::Exact;
  /// DecodeProbe and HiF8ModeProbe: A enumerates the codes and B is the selector (else the
  /// reverse). ScaleProbe: B is the selector and A holds the values (else the reverse).
  /// EdgeScaleProbe: A is the selector and holds the 0x00 scales (else B).
  bool probeA = false;
  /// CTRL[45] as the program sets it before the MmadMx: 0 except in HiF8ModeProbe (OPEN-16).
  bool hif8Mode = false;
  /// Exact: the binade windows [lo, lo + width - 1] of the unscaled A and B values.
  int loA = 0, widthA = 1, loB = 0, widthB = 1;
  /// Exact, Bounded and ScaleProbe: A's scale exponents s - 127 lie in [scaleLoA, scaleLoA +
  /// scaleSpanA], B's likewise.
  int scaleLoA = 0, scaleSpanA = 0, scaleLoB = 0, scaleSpanB = 0;
  std::uint64_t aAddr = 0, bAddr = 0, cAddr = 0, biasAddr = 0;
  std::uint64_t contentSeed = 0;
  std::string why;
};
std::ostream& operator<<(std::ostream& os, const MxCase& c);

/// The logical operands as codes, their scales as E8M0 codes (A's m x k/32, B's k/32 x n), the
/// scaled values, and the W-exact derivation of 8.1.6.3 from the scaled values emitted.
struct MxOperands {
  oracle::ElemMatrix aCodes, bCodes, aScales, bScales;
  oracle::MatrixD a, b, c0, bias;                      ///< scaled values; L0C before; bias row
  double qA = 0, mA = 0, qB = 0, mB = 0, initMax = 0;  ///< exact regime only
  oracle::MatrixD init(isa::MmadInit mode) const;
};
MxOperands mxOperandsOf(const MxCase& c);

isa::MmadMx mmadMxOf(const MxCase& c);
/// A (Nz) and B (Zn) with canary rows beyond m and columns beyond n, the scales in L0A_MX and
/// L0B_MX (the rest of each 4 KiB buffer random bytes), L0C with a fractal of random bytes either
/// side, the bias, the MmadMx; L0C observed.
isa::Program buildProgram(const MxCase& c);
std::vector<std::string> tagsOf(const MxCase& c);
/// C per spec 8.1.5: the exact sum of the scaled products rounded once to f32.
oracle::ElemMatrix expectedC(const MxCase& c, const MxOperands& o);

/// The eight MmadMx pairs of spec 8.1.2 (A, B).
std::vector<std::pair<isa::DType, isa::DType>> mxPairs();

std::vector<MxCase> mxDecodeProbes();
std::vector<MxCase> mxScaleProbes();
std::vector<MxCase> mxBoundaries();
/// OPEN-18: every pair, the 0x00 scales on each side (EdgeScaleProbe).
std::vector<MxCase> mxEdgeScaleProbes();
/// OPEN-16: e4m3 x e4m3 under CTRL[45] = 1, the codes on each side (HiF8ModeProbe).
std::vector<MxCase> mxHiF8ModeProbes();
/// The fp8_e4m3fn codes HiF8ModeProbe enumerates: finite, nonzero and normal both as
/// fp8_e4m3fn and as HiF8, with a different value under each (spec 8.1.1, appendix A).
std::vector<std::uint32_t> mxBothReadingCodes();
/// allowNoOp: one case in 30 has m, k or n zero (a no-op, spec 8.1.2).
rc::Gen<MxCase> legalMmadMx(MxValues values, Sizes sizes = Sizes::Mixed, bool allowNoOp = false);

struct IllegalMxCase {
  MxCase c;
  isa::MmadMx mmad;
  isa::ViolationCode expected = isa::ViolationCode::DTypeUnsupported;
};
std::ostream& operator<<(std::ostream& os, const IllegalMxCase& c);
/// One rule broken each: k not a multiple of 64 (Range), hif8 or mixed fp8/fp4 or s8 pairs
/// (DTypeUnsupported), C not f32 (DTypeUnsupported), A or B off its 1024/512-byte alignment
/// (Alignment).
rc::Gen<IllegalMxCase> illegalMmadMx();

}  // namespace cubecheck::gen
