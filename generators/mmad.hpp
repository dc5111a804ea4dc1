// Generators for dense Mmad (spec 8) and its numeric regimes (spec 9).
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "generators/common.hpp"
#include "isa/mmad.hpp"
#include "isa/program.hpp"
#include "oracle/mmad.hpp"

namespace cubecheck::gen {

/// What the operand values are drawn from.
enum class MmadValues : std::uint8_t {
  Exact,      ///< every product and partial sum exactly representable (spec 9's exact regime)
  Bounded,    ///< unrestricted floats in [-2, 2]: compared within a derived bound
  Saturate,   ///< integers: monotone sums past INT32_MAX/MIN (both OPEN-7 readings agree)
  Subnormal,  ///< f16 subnormal A, exact
  MaxFinite,  ///< f16 A at +-65504, exact
  Infinity,   ///< f16/bf16: A(0,0) = +inf, A(1,0) = -inf, B(0,:) = 1: rows saturate to +-FLT_MAX
  SaturationProbe,  ///< OPEN-7: per-sum, final saturation and wrap-around give three C
  Hf32Probe,        ///< OPEN-7: f32 values between HF32 steps, HF32 on
  /// f16/bf16/f32, exact otherwise; rows 0-7 of A carry special values (spec 8's saturation
  /// mode: NaN results are 0, infinite ones +-FLT_MAX): row 0 subnormal inputs whose sum is the
  /// smallest normal (FLT_MIN for bf16 and f32, 2^-14 for f16; never a NaN input), row 1 +inf times
  /// B(0, j) in {0, 1} (inf x 0 is NaN), row 2 +inf and -inf (inf - inf), row 3 -inf, row 4
  /// signed zeros, row 5 (bf16, f32) products below FLT_MIN (subnormal results), rows 6 and 7
  /// (bf16, f32) finite products of one sign whose sum passes FLT_MAX (+ in row 6, - in row 7).
  /// Every other element of those rows is 0 and C starts from zero, so saturating each product
  /// or only the sum gives the same C.
  Special,
  /// f32 only: C starts at 1 (accumulate), every A element 0.75 x 2^-23, B all 1: each sum lands
  /// 0.75 ulp above 1 + j ulp, where nearest rounding gains a quarter ulp and rounding toward
  /// zero loses three quarters. Over k >= 8 terms the second leaves spec 9's bound, the first
  /// stays within it.
  RoundingProbe,
  /// OPEN-15: A all +0, B all -1, so every product is -0. From zero, C is +0 if the sum adds the
  /// init +0 and -0 if it starts from the first product; onto a bias tensor of -0, IEEE sign
  /// rules give -0 and a DUT that writes every zero as +0 gives +0.
  ZeroSignProbe,
  /// f16/bf16/f32, exact otherwise, any init and (f32) HF32: special values at random places on
  /// both sides. Two rows of A and two columns of B (one when the shape has only one) are zero but
  /// for one or two elements at random k: one row and one column hold infinities (any signs),
  /// the other row and column subnormals of the type (infinities too with HF32 on, whose
  /// subnormals no source settles, OPEN-7; and for A's row with a bias init, which reaches every
  /// row), whose C elements start from a zero init so that their small sums stay exact. C is then
  /// exact in any accumulation order, and NaN results (inf x 0, inf - inf) are 0 whatever the init
  /// (spec 8's saturation applies to the result).
  ScatteredSpecials,
  /// f16/bf16/f32, no HF32: the exact regime's small-integer grid scaled by powers of two across
  /// the type's exponent range (see scaledExponents), so that large, tiny normal and subnormal
  /// operands, and large and subnormal inits (L0C and bias), are drawn with a C that every
  /// accumulation order gives bit for bit.
  Scaled,
};
std::string_view nameOf(MmadValues v);

struct MmadCase {
  isa::ProfileId profile = isa::ProfileId::A2;
  isa::DType dtype = isa::DType::F16;
  std::uint16_t m = 16, k = 16, n = 16;
  isa::MmadInit init = isa::MmadInit::Zero;
  /// Flags sent although the init makes them moot (spec 8: is_bias overrides cmatrix_init_val
  /// and cmatrix_source, cmatrix_init_val overrides cmatrix_source): cmatrix_source with a zero
  /// or bias-tensor init, cmatrix_init_val with a bias-tensor init. Ignored for other inits.
  bool ignoredSource = false;
  bool ignoredInitVal = false;
  /// SetHF32 on before the Mmad: f32 operands are rounded to HF32; no other type changes.
  bool hf32 = false;
  std::uint8_t hf32Mode = 0;
  /// 950: SetCtrlSpr CTRL[45] = 1 before the Mmad. Spec 8.1.5: it turns e4m3fn x e4m3fn into
  /// hif8 x hif8 and no other pair, so no dense Mmad type changes.
  bool hif8Mode = false;
  bool kAlign = false;
  bool disableGemv = false;
  std::uint8_t unitFlag = 0;
  std::uint64_t aAddr = 0, bAddr = 0, cAddr = 0, biasAddr = 0;
  MmadValues values = MmadValues::Exact;
  std::uint64_t contentSeed = 0;
  std::string why;
};
std::ostream& operator<<(std::ostream& os, const MmadCase& c);

/// MmadValues::Scaled's case-wide exponents, from the case's content seed (so that its tags
/// need no operands): row 0 of A holds values 2^a x [4, 8], column 0 of B 2^b x [4, 8] (a and
/// b are the a and b here), and the init of C(0, 0) (L0C or bias) has magnitude in
/// [2^init, 2^(init + 1)). Other rows of A and columns of B are scaled down by up to
/// kScaledSpread binary places. See operandsOf.
struct ScaledExponents {
  int a = 0, b = 0, init = 0;
};
ScaledExponents scaledExponents(const MmadCase& c);

/// The logical operands, from the case's seed: A (m x k), B (k x n), the L0C contents before
/// the multiply (m x n) and the bias row (1 x n), as values.
/// An init mode for a C of n columns: any of the four, or zero / accumulate only when the
/// bias row would not fit the bias table (256 f32 or s32 values).
isa::MmadInit drawInit(const isa::Profile& profile, std::uint64_t n);

/// A bias-table byte address for a C of n columns: 64-byte aligned, the n 4-byte bias values
/// inside the table, and, where they would not fit (the init is then zero or accumulate and the
/// address unused), still inside the table: the field is sent either way, and a value past the
/// table is not a legal address.
std::uint64_t drawBiasAddr(const isa::Profile& profile, std::uint64_t n);

/// The init Mmad selects: zero, c0 (L0C before), or the bias row broadcast over c0's rows.
oracle::MatrixD initMatrix(isa::MmadInit mode, const oracle::MatrixD& c0,
                           const oracle::MatrixD& bias);

struct MmadOperands {
  /// A and B as floats (every value of a dense Mmad operand type is one); C before the multiply
  /// and the bias as doubles (an s32 init is not always a float).
  oracle::MatrixF a, b;
  oracle::MatrixD c0, bias;
  /// The init the spec selects (zero, c0, or the bias row broadcast over M).
  oracle::MatrixD init(isa::MmadInit mode) const;
};
MmadOperands operandsOf(const MmadCase& c);

isa::Mmad mmadOf(const MmadCase& c);
/// Bytes of A and of B from their addresses, as the oracle lays them out (oracle::mmadA and
/// oracle::mmadB), not as isa's counts have them: the generators place operands by the oracle's
/// statement (docs/architecture.md#semantics-stated-twice).
std::uint64_t aBytesOf(isa::ProfileId profile, const isa::Mmad& x);
std::uint64_t bBytesOf(const isa::Mmad& x);
/// A in L0A (Zz on a2, Nz on 950, a vector in GEMV) and B in L0B (Zn) with random padding that
/// must be ignored, L0C with a fractal of canary either side (the init values in place when
/// accumulating), the bias, SetHF32 when asked, the Mmad; L0C observed.
isa::Program buildProgram(const MmadCase& c);
/// The same, from the operands operandsOf(c) gave (drawing them is a large part of a case's
/// cost: a caller that also needs them for the expectation draws them once).
isa::Program buildProgram(const MmadCase& c, const MmadOperands& o);
std::vector<std::string> tagsOf(const MmadCase& c);
/// The special-value tags of a MmadValues::Special case (what its shape lets rows 0-5 hold).
std::vector<std::string> specialTags(const MmadCase& c);
/// Shrinks m, n and k until A, B and C fit L0A, L0B and L0C from address 0: the dimension
/// drawn nearest its largest legal value is kept, the others halved first (none below its
/// floor; k stays even for s4).
void fitToBuffers(MmadCase& c, std::uint16_t floorM = 1, std::uint16_t floorK = 1);

/// The accumulator values C must hold, per the default readings.
oracle::ElemMatrix expectedC(const MmadCase& c, const MmadOperands& o,
                             oracle::Saturation sat = oracle::Saturation::Final,
                             const oracle::Hf32Reading* hf32 = nullptr);

rc::Gen<MmadCase> legalMmad(isa::ProfileId profile, MmadValues values = MmadValues::Exact,
                            Sizes sizes = Sizes::Mixed);

/// The largest m, n or k (dim 'm', 'n' or 'k') of a legal Mmad of type t on the profile: the
/// other two at their smallest (1; k 2 for s4), addresses 0, so only L0A/L0B/L0C and the
/// 4095 field limit bound it.
std::uint16_t mmadLargest(isa::ProfileId profile, isa::DType t, char dim);
/// The same over every certified type: what a run must reach.
std::uint16_t mmadLargest(isa::ProfileId profile, char dim);
/// The size bins of m, n and k on the profile; with smallOnly, only the classes a smoke run is
/// held to (the ones Sizes::Small still draws).
std::vector<std::string> mmadSizeBins(isa::ProfileId profile, bool smallOnly);
std::vector<MmadCase> mmadBoundaries(isa::ProfileId profile);
rc::Gen<MmadCase> mmadProbe(isa::ProfileId profile, MmadValues probe);

struct IllegalMmadCase {
  MmadCase c;
  isa::Mmad mmad;  ///< the instruction actually run
  isa::ViolationCode expected = isa::ViolationCode::Range;
};
std::ostream& operator<<(std::ostream& os, const IllegalMmadCase& c);
rc::Gen<IllegalMmadCase> illegalMmad(isa::ProfileId profile);

/// The set_hf32 before one Mmad of an Hf32SequenceCase, if any.
struct Hf32Step {
  bool set = false;  ///< a set_hf32 before the Mmad; otherwise the mode is the one left before
  bool enable = false;
  std::uint8_t mode = 0;
};

/// A program of f32 Mmads with HF32 turned on, kept, turned off and on again between them
/// (spec 8: the HF32 mode is program state, off when a program starts, that every f32 Mmad
/// reads until a later set_hf32 changes it). Each Mmad is 16 x 16 x 16 from zero, with its own
/// A, B and C: A holds f32 values 2^e (1 + t 2^-10 + 2^-13), which every HF32 reading (10 or 11
/// fraction bits, any rounding) takes to 2^e (1 + t 2^-10) and f32 keeps whole, B small
/// integers; every sum is exact in f32 either way, so each C shows whether its Mmad ran with
/// HF32 on, whatever the reading.
struct Hf32SequenceCase {
  isa::ProfileId profile = isa::ProfileId::A2;
  std::vector<Hf32Step> steps;  ///< one per Mmad, in program order
  std::uint64_t contentSeed = 0;
  std::string why;
};
std::ostream& operator<<(std::ostream& os, const Hf32SequenceCase& c);
/// Whether HF32 is on for each Mmad of the case.
std::vector<bool> hf32States(const Hf32SequenceCase& c);
/// Each Mmad's A and B (f32 values), from the case's seed.
std::vector<std::pair<oracle::MatrixF, oracle::MatrixF>> operandsOf(const Hf32SequenceCase& c);
/// A and B of Mmad i at 1024 i in L0A and L0B, C at 1024 i in one L0C segment of random bytes
/// (a fractal of it either side of the Cs), the set_hf32s and Mmads in order; each C observed
/// as a region of its own, region i for Mmad i.
isa::Program buildProgram(const Hf32SequenceCase& c,
                          const std::vector<std::pair<oracle::MatrixF, oracle::MatrixF>>& ops);
/// The transitions between consecutive Mmads ("hf32_seq:on_to_off", "hf32_seq:kept_on",
/// "hf32_seq:off_to_on", "hf32_seq:kept_off", "hf32_seq:set_on_again") and the first Mmad's
/// state ("hf32_seq:first_on", "hf32_seq:first_off").
std::vector<std::string> tagsOf(const Hf32SequenceCase& c);
/// Every transition, in short sequences: the table every run asks.
std::vector<Hf32SequenceCase> hf32Sequences(isa::ProfileId profile);
rc::Gen<Hf32SequenceCase> hf32Sequence(isa::ProfileId profile);

/// Operand types Mmad is certified for on the profile (no s4 on 950, spec 8.1.2).
std::vector<isa::DType> mmadDTypes(isa::ProfileId profile);

/// A rows x cols operand: the values' bit patterns in the top-left corner, random bits of the
/// type elsewhere (fractal padding a DUT must ignore).
oracle::ElemMatrix padded(const oracle::MatrixF& values, isa::DType t, Eigen::Index rows,
                          Eigen::Index cols, std::uint64_t seed);

/// Writes an accumulator matrix (bit patterns) into L0C bytes at cAddr as Nz fractals.
void storeC(isa::Segment& l0c, std::uint64_t cAddr, const oracle::ElemMatrix& c);

/// What C's init needs in a program, added to `p`: L0C around C's `cBytes` at cAddr with a
/// fractal of random bytes either side (seed part 3), C's init bits `c0` stored there when
/// `accumulate`, and, for a bias init, the whole bias table (random, seed part 4) with the bias
/// row `bias` at biasAddr (BiasTensor) or 0 (BiasTable, OPEN-6); a row running past the table
/// (an illegal program's) is cut. Returns the L0C range [lo, hi) to observe.
std::pair<std::uint64_t, std::uint64_t> addInitSegments(
    isa::Program& p, isa::MmadInit init, bool accumulate, std::uint64_t cAddr, std::uint64_t cBytes,
    std::uint64_t biasAddr, const oracle::ElemMatrix& c0, const oracle::ElemMatrix& bias,
    std::uint64_t seed);

/// Mmad's init flags for `init` (spec 8: cmatrix_init_val && !is_bias is zero; is_bias takes
/// the bias tensor whatever the other two; cmatrix_source picks the bias table over L0C), on any
/// instruction with Mmad's init fields. `ignoredInitVal` and `ignoredSource` also set the flags
/// the init overrides: cmatrix_init_val under is_bias, cmatrix_source under is_bias or
/// cmatrix_init_val; they set nothing where the flag would change the init.
template <class T>
void setInitFlags(T& x, isa::MmadInit init, bool ignoredInitVal = false,
                  bool ignoredSource = false) {
  const bool bias = init == isa::MmadInit::BiasTensor;
  x.isBias = bias;
  x.cmatrixInitVal = init == isa::MmadInit::Zero || (bias && ignoredInitVal);
  x.cmatrixSource =
      init == isa::MmadInit::BiasTable || ((bias || init == isa::MmadInit::Zero) && ignoredSource);
}

/// The coverage tag of an instruction's three init flags, e.g. "init_flags:bias1_val1_src0":
/// every combination is legal (isa::initOf reads each), and each is a bin of its own.
template <class T>
std::string initFlagsTag(const T& x) {
  return std::string("init_flags:bias") + (x.isBias ? "1" : "0") + "_val" +
         (x.cmatrixInitVal ? "1" : "0") + "_src" + (x.cmatrixSource ? "1" : "0");
}
/// The eight tags initFlagsTag gives, is_bias slowest.
std::vector<std::string> initFlagsBins();
/// The why of a boundary case sending is_bias with overridden flags (at least one set), e.g.
/// "is_bias with cmatrix_source set: the bias tensor still wins".
std::string biasWinsWhy(bool ignoredInitVal, bool ignoredSource);

}  // namespace cubecheck::gen
