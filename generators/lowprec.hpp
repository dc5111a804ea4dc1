// Generators for low-precision Mmad on 950 (spec 8.1): the fp8 pairs and hif8 x hif8, their
// decode probe (8.1.6.1), the W-exact regime (8.1.6.3) and the bounded regime (8.1.6.4).
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "generators/common.hpp"
#include "isa/mmad.hpp"
#include "isa/program.hpp"
#include "oracle/mmad.hpp"

namespace cubecheck::gen {

enum class LowValues : std::uint8_t {
  DecodeProbe,  ///< 8.1.6.1: a selector operand times one enumerating every code
  Exact,        ///< 8.1.6.3: values in exponent windows such that every partial sum is exact
  Bounded,      ///< 8.1.6.4: every finite code, compared within the derived bound
  /// OPEN-12 (a), the W ladder: every C element is 2^(W-1) + 1 (W = ladderW), a sum of products
  /// that are powers of two and one product 1 x 1: exact in any accumulator of W bits or more, in
  /// any order, and representable in none narrower.
  Ladder,
  /// OPEN-12 (b), init preservation: A = B = 0 accumulating onto L0C values that need all 24
  /// significant bits; C must equal the init.
  InitKeep,
  /// OPEN-14: ones everywhere but one infinity code (probeA: A(0, 0), else B(0, 0)), +inf or -inf
  /// (infSign), so that one row (or column) of C meets it.
  Infinity,
};
std::string_view nameOf(LowValues v);

struct LowMmadCase {
  isa::ProfileId profile = isa::ProfileId::Ascend950;
  isa::DType aType = isa::DType::Fp8E4M3FN;
  isa::DType bType = isa::DType::Fp8E4M3FN;
  bool hif8Mode = false;  ///< CTRL[45] set before the Mmad (spec 8.1.5); cleared otherwise
  std::uint16_t m = 16, k = 32, n = 16;
  isa::MmadInit init = isa::MmadInit::Zero;
  /// Init flags sent although the init overrides them, as MmadCase's (spec 8: is_bias over
  /// cmatrix_init_val and cmatrix_source, cmatrix_init_val over cmatrix_source).
  bool ignoredSource = false;
  bool ignoredInitVal = false;
  bool disableGemv = false;
  /// Synchronisation only (spec 8): 0, 2 or 3, drawn as dense Mmad's, since a field reached in
  /// f16 says nothing of the fp8 datapath.
  std::uint8_t unitFlag = 0;
  /// k_direction_align, which aligns f32 on a2 only (spec 8): these types ignore it.
  bool kAlign = false;
  LowValues values = LowValues::Exact;
  bool probeA = false;         ///< decode probe: A enumerates the codes, B is the selector
  bool subnormalOnly = false;  ///< decode probe: only subnormal codes (OPEN-13's probe)
  /// Exact regime: the binade windows [lo, lo + width - 1] the A and B values come from.
  int loA = 0, widthA = 1, loB = 0, widthB = 1;
  int ladderW = 0;  ///< Ladder: the rung, 11..24
  int infSign = 1;  ///< Infinity: +1 or -1
  std::uint64_t aAddr = 0, bAddr = 0, cAddr = 0, biasAddr = 0;
  std::uint64_t contentSeed = 0;
  std::string why;
};
std::ostream& operator<<(std::ostream& os, const LowMmadCase& c);

/// The type each operand is decoded as: hifloat8 for e4m3fn x e4m3fn under CTRL[45].
isa::DType effectiveA(const LowMmadCase& c);
isa::DType effectiveB(const LowMmadCase& c);

/// The logical operands as codes and as values, and the W-exact derivation of 8.1.6.3 computed
/// from the values actually emitted.
struct LowOperands {
  oracle::ElemMatrix aCodes, bCodes;                   ///< m x k, k x n
  oracle::MatrixD a, b, c0, bias;                      ///< decoded values; L0C before; bias row
  double qA = 0, mA = 0, qB = 0, mB = 0, initMax = 0;  ///< exact regime only
  oracle::MatrixD init(isa::MmadInit mode) const;
};
LowOperands lowOperandsOf(const LowMmadCase& c);

isa::Mmad lowMmadOf(const LowMmadCase& c);
/// A (Nz, or a vector in GEMV) and B (Zn) with every padding cell holding spec 8.1.3's finite
/// canary, L0C with a fractal of random bytes either side, the bias, CTRL[45] set as the case
/// says (explicitly, also to 0), the Mmad; L0C observed.
isa::Program buildProgram(const LowMmadCase& c);
/// How the program finds CTRL[45] before its Mmad (dut-protocol.md: off at `program`). Set: the
/// program writes it first. Reset: it writes nothing and relies on the mode being off. AfterOn: as
/// Reset, and the case sends a program that left the mode on just before it (programsBefore).
/// Derived from the content seed (no draw), for Exact and Bounded e4m3fn x e4m3fn cases without
/// the mode (the one pair whose result it changes, spec 8.1.5) and an odd seed; every other case
/// (and every probe) is Set.
enum class Ctrl45Start : std::uint8_t { Set, Reset, AfterOn };
Ctrl45Start ctrl45StartOf(const LowMmadCase& c);
/// The legal programs sent to the same DUT just before the case's (VectorCase::before): for
/// AfterOn, the same Mmad with CTRL[45] set to 1.
std::vector<isa::Program> programsBefore(const LowMmadCase& c);
std::vector<std::string> tagsOf(const LowMmadCase& c);

/// C per the default readings (spec 8.1.5: the exact sum rounded once to f32). `flushSubnormals`
/// gives OPEN-13's other reading.
oracle::ElemMatrix expectedC(const LowMmadCase& c, const LowOperands& o,
                             bool flushSubnormals = false);

/// The plain-Mmad low-precision pairs of spec 8.1.2 (A, B).
std::vector<std::pair<isa::DType, isa::DType>> lowPrecisionPairs();

std::vector<LowMmadCase> lowDecodeProbes();
std::vector<LowMmadCase> lowBoundaries();
rc::Gen<LowMmadCase> legalLowMmad(LowValues values, Sizes sizes = Sizes::Mixed);
/// OPEN-13: the decode probe on the subnormal codes of one format.
std::vector<LowMmadCase> lowSubnormalProbes();
/// OPEN-12's probes for every pair: the W ladder (rungs 11, 14, 17, 20, 24) and init
/// preservation.
std::vector<LowMmadCase> lowWidthProbes();
/// OPEN-14's probe: for every pair and side whose type has infinity codes (fp8_e5m2, hifloat8),
/// one case with +inf and one with -inf.
std::vector<LowMmadCase> lowInfinityProbes();
/// The code of +inf (sign 1) or -inf (sign -1) in t, or nullopt when t has none.
std::optional<std::uint8_t> infinityCode(isa::DType t, int sign);
/// The largest finite magnitude of t.
double maxFiniteOf(isa::DType t);
/// The Ladder case's big products: 2^bigExponent each, 2^(W - 1 - bigExponent) of them.
int ladderBigExponent(int w);

// Helpers the MmadMx generators (generators/mx.hpp) share with these.

/// Spec 8.1.3: a padding canary finite under every reading a DUT might apply, and large.
std::uint8_t canaryOf(isa::DType t);
/// The binades floor(log2 |v|) a type's nonzero finite values span (appendix A).
std::pair<int, int> binadesOf(isa::DType t);
/// Positive codes (fp4: nibbles) whose value lies in binades [lo, lo + width - 1].
std::vector<std::uint8_t> windowCodes(isa::DType t, int lo, int width);
/// (q, M) of 8.1.6.3 for the values emitted: q the largest power of two all are multiples of,
/// M the largest magnitude. q = 0 when every value is zero.
std::pair<double, double> quantumAndMax(const oracle::MatrixD& v);
/// Spec 8.1.6.3 and appendix B for A (m x k) and B (k x n) as emitted (for MX, scaled): q and M
/// of each side; condition 4 checked, I + k MA MB <= 2^24 Q with 2^-126 <= Q and 2^24 Q <= 2^127
/// (a failure is a generator defect: throws); and the remaining budget I given to random inits,
/// multiples of Q: L0C before (m x n) and a bias row (1 x n), drawn from `g` in that order.
struct ExactRegime {
  double qA = 0, mA = 0, qB = 0, mB = 0, initMax = 0;
  oracle::MatrixD c0, bias;
};
ExactRegime exactRegime(const oracle::MatrixD& a, const oracle::MatrixD& b, SplitMix64& g);
/// ceil(log2 k) for k >= 1.
int log2Ceil(std::uint64_t k);
/// "fp8_e4m3fn_x_fp8_e5m2": a pair as the coverage bins name it.
std::string pairName(isa::DType a, isa::DType b);

struct IllegalLowMmadCase {
  LowMmadCase c;
  isa::Mmad mmad;
  isa::ViolationCode expected = isa::ViolationCode::DTypeUnsupported;
};
std::ostream& operator<<(std::ostream& os, const IllegalLowMmadCase& c);
rc::Gen<IllegalLowMmadCase> illegalLowMmad();

}  // namespace cubecheck::gen
