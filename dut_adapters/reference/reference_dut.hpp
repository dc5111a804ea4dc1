// The reference model: the cube pipeline by address arithmetic on flat byte buffers, exactly as
// the hardware pages describe it (spec 4). It shares no code with oracle/ (docs/architecture.md,
// the one rule).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "dut_adapters/dut.hpp"

namespace cubecheck::dut {

/// Deliberate deviations from the specification, injected only by the mutant zoo to show the
/// suite catches them, and alternative readings of open points. Each is named and described once,
/// in the table of dut_adapters/registry.cpp (mutants() and readings()); a test holds every
/// enumerator to at least one row there (one per family, for the source-corrupting fault). None is
/// the reference itself.
enum class Fault : std::uint8_t {
  None,
  Load2DDstGapIgnored,
  Load2DTransposeAntiDiagonal,
  Load2DSrcStrideOnDst,
  Load2DDstGapStartToStart,
  Load2DAddrModeIgnored,
  Load2DAddrModeEverywhere,
  Load2DRepeatZeroAsOne,
  Load2DTransposeAnyType,
  Load2DStrayWriteAfterLast,
  Load2DLastRepeatDropped,
  SparseIndexBitsReversed,
  SparseSlot1NoOffset,
  SparseIndexAtHalf,
  SparseInitIgnored,
  SparseBiasByRow,
  SparseWrapNotSaturate,
  Load2DTransposeBSkipped,
  Load2DSidAsOffset,
  SparseLoadStartIgnored,
  SparseLoadHonoursStride,
  SparseGemvAccepted,
  SparseCFractalsZz,
  V2BitFieldsShifted,
  V2TransposedRowMajor,
  V2StepsSwapped,
  Load3DPadZero,
  Load3DPadOrderTBLR,
  Load3DKOrderKhKwC1,
  Load3DDilationOnStride,
  Load3DFmatrixCtrlIgnored,
  Load3DV2ProExtSwapped,
  Load3DV1JumpIgnored,
  MmadInitIgnored,
  MmadWrapNotSaturate,
  MmadKBeyondAccumulated,
  MmadGemvIgnored,
  MmadF16Accumulation,
  MmadCRowMajor,
  MmadBiasPerRow,
  MmadLaterCallsFromZero,
  LoadSourceCorrupted,
  WritesNothing,
  V2ColumnsRowByRow,
  MmadSaturateEachSum,
  LowHiF8AsE4M3,
  LowSubnormalsFlushed,
  LowNarrowAccumulator,
  LowHiF8ModeIgnored,
  MmadPairwiseSum,
  MmadAddsTowardZero,
  MmadSubnormalsFlushed,
  MmadSubnormalInputsFlushed,
  MmadBSubnormalsFlushed,
  MmadBInfinitiesAsZero,
  MmadNanProductsDropped,
  MmadFltMinFlushed,
  MmadHf32Sticky,
  MmadHf32FirstMmadOnly,
  Load3DPaddingNeedsFmatrix,
  Load2DStrayWriteFar,
  LowHiF8ModeSticky,
  MxScalePer16,
  MxE1M2Bias0,
  MxScaleStrideK32,
  MxScalesSwapped,
  MxNibblesSwapped,
  MxScaleLoadToOtherBuffer,
  MmadInitValOverBias,
  LowHiF8ModeOnAtReset,
  LowHiF8ModeLeaks,
  Load3DRegistersLeak,
  SparseIndexLatestLoadOnly,
  MmadLargeInputsSaturated,
  MmadTinyInputsFlushed,
  MmadSubnormalBiasFlushed,
  MmadLargeInitsDropped,
  Load3DUnspecifiedCellsWritten,
  MmadUnspecifiedCellsWritten,
  Count,  ///< not a fault: the number of enumerators, for the table test
};

/// The built-in reference model. With a Fault it is a mutant: same capabilities, one defect.
class ReferenceDut final : public Dut {
 public:
  explicit ReferenceDut(Fault fault = Fault::None);
  const Capabilities& capabilities() const override { return caps_; }
  RunResult run(const isa::Program& program) override;
  RunResult runObserving(const isa::Program& program,
                         std::span<const isa::Region> alsoObserve) override;

 private:
  Fault fault_;
  Capabilities caps_;
  /// The state the last program left, read only by the mutants that carry it into the next one
  /// (LowHiF8ModeLeaks, Load3DRegistersLeak); the reference starts every program reset.
  bool leftHif8Mode_ = false;
  std::array<std::optional<std::uint64_t>, 2> leftFmatrix_{};
  std::optional<std::uint32_t> leftPadding_;
};

}  // namespace cubecheck::dut
