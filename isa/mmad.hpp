// Dense Mmad (spec 8) and the HF32 mode registers it reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "isa/dtype.hpp"
#include "isa/profile.hpp"
#include "isa/violation.hpp"

namespace cubecheck::isa {

/// Mmad: C (L0C, Nz, 16 x 16 fractals of s32/f32) = init + A (L0A) * B (L0B).
struct Mmad {
  static constexpr std::string_view kOpcode = "mmad";
  DType dtype = DType::F16;      ///< the operand type: s8, s4 -> s32; f16, bf16, f32 -> f32
  std::uint64_t cAddr = 0;       ///< L0C, 1024-byte aligned
  std::uint64_t aAddr = 0;       ///< L0A, 512-byte aligned
  std::uint64_t bAddr = 0;       ///< L0B, 512-byte aligned
  std::uint16_t m = 0;           ///< 0..4095; 0 is a no-op; 1 is GEMV (spec 8)
  std::uint16_t k = 0;           ///< 0..4095 (even for s4)
  std::uint16_t n = 0;           ///< 0..4095
  std::uint8_t unitFlag = 0;     ///< 0, 2 or 3: synchronisation only
  bool kDirectionAlign = false;  ///< f32 on a2: A's row stride 2*ceil(k/16) fractals
  bool cmatrixSource = false;    ///< with !cmatrixInitVal: bias table (true) or L0C (false)
  bool cmatrixInitVal = true;    ///< zero init, unless isBias
  bool isBias = false;           ///< init from the bias tensor at biasAddr (bias table)
  std::uint64_t biasAddr = 0;    ///< bias table byte address of the bias tensor (isBias)
  bool disableGemv = false;      ///< 950: m = 1 is an ordinary Nz operand
  /// B's type where it differs from A's (`dtype`): the mixed fp8 pairs of spec 8.1.2. nullopt
  /// means B has A's type; the text form prints the resolved type (bTypeOf).
  std::optional<DType> bDtype;

  friend bool operator==(const Mmad&, const Mmad&) = default;
};

/// B's element type: bDtype, or dtype when it is unset.
DType bTypeOf(const Mmad& x);

/// Where C's init comes from (spec 8: cmatrix_init_val && !isBias is zero).
enum class MmadInit : std::uint8_t { Zero, Accumulate, BiasTable, BiasTensor };
MmadInit initOf(const Mmad& x);
std::string_view nameOf(MmadInit i);

/// MmadMx (950, spec 8.1): Mmad of fp8 or fp4 operands with one E8M0 scale per 32 K elements,
/// read implicitly from L0A_MX at aAddr / 16 (A's scales) and L0B_MX at bAddr / 16 (B's).
/// C = init + sum_kk 2^(sA - 127) a 2^(sB - 127) b, rounded once to f32. The fields are Mmad's,
/// less the a2-only k_direction_align and the GEMV switch (MX GEMV is not certified, OPEN-19),
/// plus C's type, which must be f32.
struct MmadMx {
  static constexpr std::string_view kOpcode = "mmad_mx";
  DType dtype = DType::Fp8E4M3FN;  ///< A's type: fp8_e4m3fn, fp8_e5m2, fp4x2_e2m1, fp4x2_e1m2
  std::uint64_t cAddr = 0;         ///< L0C, 1024-byte aligned
  std::uint64_t aAddr = 0;         ///< L0A: 1024-byte aligned for fp8, 512 for fp4
  std::uint64_t bAddr = 0;         ///< L0B: 1024-byte aligned for fp8, 512 for fp4
  std::uint16_t m = 0;             ///< 0..4095; 0 is a no-op; 1 is not certified (OPEN-19)
  std::uint16_t k = 0;             ///< 0..4095, a multiple of 64 (OPEN-20)
  std::uint16_t n = 0;             ///< 0..4095
  std::uint8_t unitFlag = 0;       ///< 0, 2 or 3: synchronisation only
  bool cmatrixSource = false;      ///< with !cmatrixInitVal: bias table (true) or L0C (false)
  bool cmatrixInitVal = true;      ///< zero init, unless isBias
  bool isBias = false;             ///< init from the f32 bias tensor at biasAddr
  std::uint64_t biasAddr = 0;      ///< bias table byte address of the bias tensor (isBias)
  /// B's type where it differs from A's; nullopt means A's type (as Mmad::bDtype).
  std::optional<DType> bDtype;
  DType cDtype = DType::F32;  ///< C's element type: f32 is the only legal one

  friend bool operator==(const MmadMx&, const MmadMx&) = default;
};

DType bTypeOf(const MmadMx& x);
MmadInit initOf(const MmadMx& x);
/// The plain Mmad that addresses the same A, B, C and bias (never GEMV: disable_gemv set), for
/// the operand byte counts below.
Mmad operandsOf(const MmadMx& x);
/// Whether (A, B) is an MmadMx pair of spec 8.1.2: both fp8 (e4m3fn/e5m2, all four pairs) or both
/// fp4x2 (e2m1/e1m2, all four pairs).
bool isMxPair(DType a, DType b);
/// Start-address alignment of MmadMx's A and B in bytes: 1024 for fp8, 512 for fp4 (spec 8.1.2).
std::uint64_t mxOperandAlignment(DType t);
/// Bytes of A's (B's) scales from aAddr / 16 (bAddr / 16): ceil16(m) (ceil16(n)) rows of k / 64
/// E8M0 fractals of 16 x 2 bytes (spec 8.1.4).
std::uint64_t mxAScaleBytes(const MmadMx& x);
std::uint64_t mxBScaleBytes(const MmadMx& x);

/// SetCtrlSpr CTRL[45] on 950 (spec 8.1.5): with it set, an fp8_e4m3fn x fp8_e4m3fn Mmad decodes
/// both operands as hifloat8. Program state like SetHF32: off until a program turns it on.
struct SetHiF8Mode {
  static constexpr std::string_view kOpcode = "set_hif8_mode";
  bool enable = false;
  friend bool operator==(const SetHiF8Mode&, const SetHiF8Mode&) = default;
};

/// SetHF32Mode / SetHF32TransMode: whether f32 operands are rounded to HF32 before the multiply,
/// and how (0: to nearest, ties to even; 1: the documented alternative, OPEN-7).
struct SetHF32 {
  static constexpr std::string_view kOpcode = "set_hf32";
  bool enable = false;
  std::uint8_t transMode = 0;
  friend bool operator==(const SetHF32&, const SetHF32&) = default;
};

/// The types Mmad multiplies on a profile: s8, f16, bf16, f32 everywhere; s4 on a2 and legacy
/// only (spec 8.1.2: the 950 Cube has no s4). fp8/hif8/fp4 are not modelled by this version.
bool mmadHasDType(ProfileId profile, DType t);
/// The accumulator type: s32 for s8/s4, f32 otherwise.
DType accumulatorOf(DType t);
// Where Mmad's operands lie, as the reference reads them and validate() sizes them. The oracle
// and the generators state the same facts on their own (oracle::mmadA, oracle::mmadB), and
// tests/hand_worked_test.cpp pins both (docs/architecture.md#semantics-stated-twice).

/// Whether the instruction runs as GEMV (m = 1, on 950 unless disableGemv).
bool isGemv(ProfileId profile, const Mmad& x);
/// K elements per A/B fractal row: C0 of the operand type.
std::uint64_t mmadK0(DType t);
/// A's fractals per M1 row: ceil(k/K0), or 2*ceil(k/16) with k_direction_align (f32, a2).
std::uint64_t mmadARowFractals(ProfileId profile, const Mmad& x);
/// Bytes each operand occupies from its address.
std::uint64_t mmadABytes(ProfileId profile, const Mmad& x);
std::uint64_t mmadBBytes(const Mmad& x);
std::uint64_t mmadCBytes(const Mmad& x);

std::optional<Violation> validate(const Profile& profile, const Mmad& x);
std::optional<Violation> validate(const Profile& profile, const SetHF32& x);
std::optional<Violation> validate(const Profile& profile, const MmadMx& x);
std::string describe(const MmadMx& x);
std::optional<Violation> validate(const Profile& profile, const SetHiF8Mode& x);
std::string describe(const Mmad& x);
std::string describe(const SetHF32& x);
std::string describe(const SetHiF8Mode& x);

/// Whether (A, B) is a plain-Mmad pair of spec 8.1.2 on 950: fp8_e4m3fn or fp8_e5m2 on each side
/// (all four pairs), or hifloat8 x hifloat8.
bool isLowPrecisionMmadPair(DType a, DType b);

}  // namespace cubecheck::isa
