// The reference model: the cube pipeline by address arithmetic on flat byte buffers, exactly as
// the hardware pages describe it (spec 4). It shares no code with oracle/ (docs/architecture.md,
// the one rule).
#pragma once

#include <cstdint>

#include "dut_adapters/dut.hpp"

namespace cubecheck::dut {

/// Deliberate deviations from the specification, injected only by the mutant zoo
/// (dut_adapters/mutants.hpp) to show the suite catches them. None is the reference itself.
enum class Fault : std::uint8_t {
  None,
  Load2DDstGapIgnored,          ///< destination fractals always contiguous
  Load2DTransposeAntiDiagonal,  ///< transposes about the anti-diagonal: the wrong axis
  Load2DSrcStrideOnDst,         ///< destination advances by src_stride fractals, not dst_gap + 1
  Load2DDstGapStartToStart,     ///< dst_gap read as start-to-start distance (off by one fractal)
  Load2DAddrModeIgnored,        ///< GM->A1/B1 always increments
  Load2DAddrModeEverywhere,     ///< addr_mode decrement honoured on every path
  Load2DRepeatZeroAsOne,        ///< repeat_times 0 moves one fractal
  Load2DTransposeAnyType,       ///< transposes 8- and 32-bit types instead of rejecting them
  Load2DStrayWriteAfterLast,    ///< writes one extra byte after the last destination fractal
  Load2DLastRepeatDropped,      ///< loop bound off by one: repeat_times - 1 fractals
  SparseIndexBitsReversed,      ///< index j read from bits [7-2j : 6-2j] instead of [2j+1 : 2j]
  SparseSlot1NoOffset,          ///< slot 1 reads A[4g + idx1] instead of A[4g + 1 + idx1]
  SparseIndexAtHalf,            ///< index buffer at L0B address / 2 instead of / 4 (load and mmad)
  SparseInitIgnored,            ///< cmatrix_init_val false treated as true: always from zero
  SparseBiasAsColumn,           ///< bias indexed by row m instead of column n
  SparseWrapNotSaturate,        ///< int32 accumulation wraps instead of saturating (OPEN-7)
  Load2DTransposeBSkipped,      ///< if_transpose ignored on B1->B2
  Load2DSidAsOffset,            ///< the reserved sid added to start_index
  SparseLoadStartIgnored,       ///< LoadDataWithSparse always starts at fractal 0
  SparseLoadHonoursStride,      ///< LoadDataWithSparse steps by src_stride (OPEN-5: it must not)
  SparseGemvAccepted,           ///< MmadWithSparse runs m = 1 instead of rejecting it
  SparseCFractalsZz,            ///< C fractals in row-major (Zz) order instead of Nz
  V2BitFieldsShifted,           ///< bit-mode m_step and k_step read one bit too high
  V2TransposedRowMajor,         ///< transposed block's fractals written row-major, not by column
  V2StepsSwapped,               ///< m_step and k_step exchanged
  Load3DPadZero,                ///< padded cells hold 0 instead of the pad value
  Load3DPadOrderTBLR,           ///< pad list read as [top, bottom, left, right]
  Load3DKOrderKhKwC1,           ///< im2col columns in (Kh, Kw, C1, C0) order, not (C1, Kh, Kw, C0)
  Load3DDilationOnStride,       ///< dilation multiplies the stride instead of the kernel tap
  Load3DFmatrixCtrlIgnored,     ///< f_matrix_ctrl ignored: always reads FMATRIX
  Load3DV2ProExtSwapped,        ///< ext_config's m and k fields exchanged
  Load3DV1JumpIgnored,          ///< V1 repeat_mode 1 writes fractals contiguously
  MmadInitIgnored,              ///< cmatrix_init_val false treated as true: C from zero
  MmadWrapNotSaturate,          ///< int32 accumulation wraps instead of saturating (OPEN-7)
  MmadKBeyondAccumulated,       ///< the padding past k in the last K fractal is accumulated
  MmadGemvIgnored,              ///< m = 1 read as an ordinary fractal operand, not a vector
  MmadF16Accumulation,          ///< float products accumulated in f16 instead of f32
  MmadCRowMajor,                ///< L0C fractals written row-major (Zz) instead of Nz
  MmadBiasPerRow,               ///< bias indexed by row m instead of broadcast over M
  LoadSourceCorrupted,          ///< every load flips the first byte of its source afterwards
  WritesNothing,  ///< validates, then runs nothing: every observed region keeps its initial bytes
  // Alternative readings of open points: not faults, the suite must certify them and name them.
  V2ColumnsRowByRow,     ///< OPEN-10: V2 destination written row by row, so earlier columns win
  MmadSaturateEachSum,   ///< OPEN-7: int32 saturated after every partial sum, k ascending
  LowHiF8AsE4M3,         ///< hifloat8 codes decoded as fp8_e4m3fn (spec 8.1.1)
  LowSubnormalsFlushed,  ///< fp8/HiF8 subnormal codes read as zero (OPEN-13's FTZ)
  LowNarrowAccumulator,  ///< 8-bit Mmad sums kept to 17 significant bits (OPEN-12)
  LowHiF8ModeIgnored,    ///< CTRL[45] ignored: e4m3fn stays e4m3fn (spec 8.1.5)
};

/// The built-in reference model. With a Fault it is a mutant: same capabilities, one defect.
class ReferenceDut final : public Dut {
 public:
  explicit ReferenceDut(Fault fault = Fault::None);
  const Capabilities& capabilities() const override { return caps_; }
  RunResult run(const isa::Program& program) override;

 private:
  Fault fault_;
  Capabilities caps_;
};

}  // namespace cubecheck::dut
