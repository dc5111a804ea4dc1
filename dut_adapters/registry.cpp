#include "dut_adapters/registry.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "dut_adapters/exec_dut.hpp"
#include "dut_adapters/plugin_dut.hpp"

namespace cubecheck::dut {

const std::vector<Mutant>& mutants() {
  static const std::vector<Mutant> kMutants{
      {"load2d-dst-gap-ignored", "load2d", isa::ProfileId::A2,
       "dst_gap ignored: destination fractals always contiguous", Fault::Load2DDstGapIgnored},
      {"load2d-transpose-anti-diagonal", "load2d", isa::ProfileId::A2,
       "transpose about the anti-diagonal (the wrong axis)", Fault::Load2DTransposeAntiDiagonal},
      {"load2d-src-stride-on-dst", "load2d", isa::ProfileId::A2,
       "src_stride applied to the destination instead of dst_gap + 1", Fault::Load2DSrcStrideOnDst},
      {"load2d-dst-gap-start-to-start", "load2d", isa::ProfileId::A2,
       "dst_gap read as start-to-start distance, one fractal short",
       Fault::Load2DDstGapStartToStart},
      {"load2d-addr-mode-ignored", "load2d", isa::ProfileId::A2,
       "addr_mode decrement ignored on GM->A1/B1", Fault::Load2DAddrModeIgnored},
      {"load2d-addr-mode-everywhere", "load2d", isa::ProfileId::A2,
       "addr_mode decrement honoured on every path, not only GM->A1/B1",
       Fault::Load2DAddrModeEverywhere},
      {"load2d-repeat-zero-as-one", "load2d", isa::ProfileId::A2,
       "repeat_times 0 moves one fractal instead of none", Fault::Load2DRepeatZeroAsOne},
      {"load2d-transpose-any-type", "load2d", isa::ProfileId::A2,
       "transposes 8- and 32-bit types instead of rejecting them", Fault::Load2DTransposeAnyType},
      {"load2d-stray-write", "load2d", isa::ProfileId::A2,
       "writes one byte past the last destination fractal", Fault::Load2DStrayWriteAfterLast},
      {"load2d-stray-write-far", "load2d", isa::ProfileId::A2,
       "writes one byte 4 KiB past the last destination fractal, beyond the canary margin "
       "around it",
       Fault::Load2DStrayWriteFar},
      {"load2d-last-repeat-dropped", "load2d", isa::ProfileId::A2,
       "loop bound off by one: the last repeat is lost", Fault::Load2DLastRepeatDropped},
      {"sparse-index-bits-reversed", "mmad_sparse", isa::ProfileId::A2,
       "index j read from bits [7-2j : 6-2j]: the byte's fields in reversed order",
       Fault::SparseIndexBitsReversed},
      {"sparse-slot1-no-offset", "mmad_sparse", isa::ProfileId::A2,
       "slot 1 reads A[4g + idx1] instead of A[4g + 1 + idx1]", Fault::SparseSlot1NoOffset},
      {"sparse-index-at-half", "load_sparse", isa::ProfileId::A2,
       "index buffer at L0B address / 2 instead of / 4 (consistently in load and mmad)",
       Fault::SparseIndexAtHalf},
      {"sparse-init-ignored", "mmad_sparse", isa::ProfileId::A2,
       "cmatrix_init_val false ignored: C always starts from zero", Fault::SparseInitIgnored},
      {"sparse-bias-by-row", "mmad_sparse", isa::ProfileId::A2,
       "bias indexed by row m instead of column n", Fault::SparseBiasByRow},
      {"sparse-wrap-not-saturate", "mmad_sparse", isa::ProfileId::A2,
       "int32 accumulation wraps around instead of saturating", Fault::SparseWrapNotSaturate},
      {"load2d-transpose-b-skipped", "load2d", isa::ProfileId::A2, "if_transpose ignored on B1->B2",
       Fault::Load2DTransposeBSkipped},
      {"load2d-sid-as-offset", "load2d", isa::ProfileId::A2,
       "the reserved sid added to start_index", Fault::Load2DSidAsOffset},
      {"sparse-load-start-ignored", "load_sparse", isa::ProfileId::A2,
       "LoadDataWithSparse always starts at fractal 0", Fault::SparseLoadStartIgnored},
      {"sparse-load-honours-stride", "load_sparse", isa::ProfileId::A2,
       "LoadDataWithSparse steps by src_stride, which it must ignore (OPEN-5)",
       Fault::SparseLoadHonoursStride},
      {"sparse-gemv-accepted", "mmad_sparse", isa::ProfileId::A2,
       "MmadWithSparse runs m = 1 instead of rejecting it", Fault::SparseGemvAccepted},
      {"sparse-c-fractals-zz", "mmad_sparse", isa::ProfileId::A2,
       "C fractals written in row-major (Zz) order instead of Nz", Fault::SparseCFractalsZz},
      {"v2-bit-fields-shifted", "load2d_bitmode", isa::ProfileId::Ascend950,
       "m_step and k_step decoded one bit too high in config0", Fault::V2BitFieldsShifted},
      {"v2-transposed-row-major", "load2d_v2", isa::ProfileId::Ascend950,
       "the transposed block's fractals written row-major instead of column by column",
       Fault::V2TransposedRowMajor},
      {"v2-steps-swapped", "load2d_v2", isa::ProfileId::Ascend950, "m_step and k_step exchanged",
       Fault::V2StepsSwapped},
      {"load3d-pad-zero", "load3d_v2", isa::ProfileId::A2,
       "padded cells hold 0 instead of the pad value", Fault::Load3DPadZero},
      {"load3d-pad-order-tblr", "load3d_v2", isa::ProfileId::A2,
       "pad list read as [top, bottom, left, right] instead of [left, right, top, bottom]",
       Fault::Load3DPadOrderTBLR},
      {"load3d-k-order-kh-kw-c1", "load3d_v2", isa::ProfileId::A2,
       "im2col columns in (Kh, Kw, C1, C0) order instead of (C1, Kh, Kw, C0)",
       Fault::Load3DKOrderKhKwC1},
      {"load3d-dilation-on-stride", "load3d_v2", isa::ProfileId::Ascend950,
       "dilation multiplies the stride instead of the kernel tap", Fault::Load3DDilationOnStride},
      {"load3d-fmatrix-ctrl-ignored", "load3d_v2", isa::ProfileId::A2,
       "f_matrix_ctrl ignored: FMATRIX_B is never read", Fault::Load3DFmatrixCtrlIgnored},
      {"load3d-padding-needs-fmatrix", "load3d_v2", isa::ProfileId::A2,
       "is_set_padding honoured only together with is_set_fmatrix: alone, PADDING keeps its old "
       "value",
       Fault::Load3DPaddingNeedsFmatrix},
      {"load3d-v2pro-ext-swapped", "load3d_v2pro", isa::ProfileId::Ascend950,
       "ext_config's m and k fields exchanged", Fault::Load3DV2ProExtSwapped},
      {"mmad-init-ignored", "mmad", isa::ProfileId::A2,
       "cmatrix_init_val false ignored: C always starts from zero", Fault::MmadInitIgnored},
      {"mmad-wrap-not-saturate", "mmad", isa::ProfileId::A2,
       "int32 accumulation wraps around instead of saturating", Fault::MmadWrapNotSaturate},
      {"mmad-k-beyond-accumulated", "mmad", isa::ProfileId::A2,
       "the padding past k in the last K fractal is accumulated", Fault::MmadKBeyondAccumulated},
      {"mmad-gemv-ignored", "mmad", isa::ProfileId::A2,
       "m = 1 read as an ordinary Zz operand instead of a vector (GEMV not special-cased)",
       Fault::MmadGemvIgnored},
      {"mmad-f16-accumulation", "mmad", isa::ProfileId::Ascend950,
       "float products accumulated in f16 instead of f32", Fault::MmadF16Accumulation},
      {"mmad-c-row-major", "mmad", isa::ProfileId::A2,
       "L0C fractals written row-major (Zz) instead of Nz", Fault::MmadCRowMajor},
      {"mmad-bias-per-row", "mmad", isa::ProfileId::Ascend950,
       "bias indexed by row m instead of broadcast over M", Fault::MmadBiasPerRow},
      {"mmad-later-calls-from-zero", "pipeline", isa::ProfileId::A2,
       "accumulation not carried across calls: every Mmad after a program's first starts C from "
       "zero, so a K split over several Mmads keeps only its last tile",
       Fault::MmadLaterCallsFromZero},
      {"mmad-adds-toward-zero", "mmad", isa::ProfileId::A2,
       "float additions rounded toward zero (truncated) instead of to nearest, ties to even",
       Fault::MmadAddsTowardZero},
      {"mmad-subnormals-flushed", "mmad", isa::ProfileId::A2,
       "float subnormals flushed to zero: subnormal inputs, products and partial sums read as 0",
       Fault::MmadSubnormalsFlushed},
      {"mmad-subnormal-inputs-flushed", "mmad", isa::ProfileId::A2,
       "bf16 and f32 subnormal inputs read as 0 (results and sums kept)",
       Fault::MmadSubnormalInputsFlushed},
      {"mmad-b-subnormals-flushed", "mmad", isa::ProfileId::A2,
       "subnormal elements of B read as 0, A's kept: a flush on one operand's path only",
       Fault::MmadBSubnormalsFlushed},
      {"mmad-b-infinities-as-zero", "mmad", isa::ProfileId::A2,
       "infinite elements of B read as 0, A's kept", Fault::MmadBInfinitiesAsZero},
      {"mmad-nan-products-dropped", "mmad", isa::ProfileId::A2,
       "a NaN product (inf x 0) adds nothing, so a NaN result with a non-zero init gives the "
       "init instead of 0",
       Fault::MmadNanProductsDropped},
      {"mmad-flt-min-flushed", "mmad", isa::ProfileId::A2,
       "float results of magnitude FLT_MIN flushed to 0, subnormal ones kept: a flush "
       "threshold off by one",
       Fault::MmadFltMinFlushed},
      // Red team (round 11, F1): operands and inits outside the exact regime's narrow band.
      {"mmad-large-inputs-saturated", "mmad", isa::ProfileId::A2,
       "bf16 and f32 operands of magnitude 2^20 or more read as +-inf (a narrow exponent path)",
       Fault::MmadLargeInputsSaturated},
      {"mmad-tiny-inputs-flushed", "mmad", isa::ProfileId::A2,
       "bf16 and f32 normal operands below 2^-80 read as 0 (a flush threshold in the wrong "
       "place)",
       Fault::MmadTinyInputsFlushed},
      {"mmad-subnormal-bias-flushed", "mmad", isa::ProfileId::A2,
       "subnormal f32 bias values read as 0 (a flush on the bias path only)",
       Fault::MmadSubnormalBiasFlushed},
      {"mmad-large-inits-dropped", "mmad", isa::ProfileId::A2,
       "float inits (L0C or bias) of magnitude in [2^22, 2^100) read as 0",
       Fault::MmadLargeInitsDropped},
      {"mmad-hf32-sticky", "mmad", isa::ProfileId::A2,
       "HF32, once on, stays on: set_hf32 with enable 0 is ignored", Fault::MmadHf32Sticky},
      {"mmad-hf32-first-mmad-only", "mmad", isa::ProfileId::A2,
       "HF32 rounds the first f32 Mmad after set_hf32 only; later ones run as plain f32",
       Fault::MmadHf32FirstMmadOnly},
      {"lowprec-hif8-as-e4m3", "mmad_lowprec", isa::ProfileId::Ascend950,
       "hifloat8 codes decoded as fp8_e4m3fn", Fault::LowHiF8AsE4M3},
      {"lowprec-subnormals-flushed", "mmad_lowprec", isa::ProfileId::Ascend950,
       "fp8 and HiF8 subnormal codes read as zero (flush to zero)", Fault::LowSubnormalsFlushed},
      {"lowprec-hif8-mode-sticky", "mmad_lowprec", isa::ProfileId::Ascend950,
       "CTRL[45], once set, stays set: SetCtrlSpr clearing it is ignored",
       Fault::LowHiF8ModeSticky},
      {"lowprec-narrow-accumulator", "mmad_lowprec", isa::ProfileId::Ascend950,
       "8-bit Mmad sums kept to 17 significant bits instead of f32's 24",
       Fault::LowNarrowAccumulator},
      {"lowprec-init-val-over-bias", "mmad_lowprec", isa::ProfileId::Ascend950,
       "cmatrix_init_val read before is_bias: with both set, C starts from zero instead of the "
       "bias tensor",
       Fault::MmadInitValOverBias},
      {"lowprec-hif8-mode-ignored", "mmad_lowprec", isa::ProfileId::Ascend950,
       "CTRL[45] ignored: e4m3fn x e4m3fn is never read as HiF8", Fault::LowHiF8ModeIgnored},
      {"lowprec-hif8-mode-on-at-reset", "mmad_lowprec", isa::ProfileId::Ascend950,
       "CTRL[45] is 1 at the start of every program instead of 0", Fault::LowHiF8ModeOnAtReset},
      {"lowprec-hif8-mode-leaks", "mmad_lowprec", isa::ProfileId::Ascend950,
       "CTRL[45] starts each program as the previous program left it instead of 0",
       Fault::LowHiF8ModeLeaks},
      {"load3d-registers-leak", "load3d_v2", isa::ProfileId::A2,
       "FMATRIX, FMATRIX_B and PADDING start each program as the previous program left them "
       "instead of unset, so a read before the program writes them runs instead of being "
       "rejected",
       Fault::Load3DRegistersLeak},
      {"sparse-index-latest-load-only", "mmad_sparse", isa::ProfileId::A2,
       "each LoadDataWithSparse clears the indices the program's earlier ones wrote: the index "
       "buffer keeps only the latest load's",
       Fault::SparseIndexLatestLoadOnly},
      {"mx-scale-per-16", "mmad_mx", isa::ProfileId::Ascend950,
       "MX scales applied per 16 K elements instead of per 32", Fault::MxScalePer16},
      {"mx-e1m2-bias-0", "mmad_mx", isa::ProfileId::Ascend950,
       "fp4x2_e1m2 decoded with exponent bias 0 (max 3.5) instead of 1 (OPEN-17)",
       Fault::MxE1M2Bias0},
      {"mx-scale-stride-k32", "mmad_mx", isa::ProfileId::Ascend950,
       "MX scale rows strided by k/32 fractals instead of k/64 (OPEN-19)", Fault::MxScaleStrideK32},
      {"mx-scales-swapped", "mmad_mx", isa::ProfileId::Ascend950,
       "A's scales read from L0B_MX at b/16 and B's from L0A_MX at a/16", Fault::MxScalesSwapped},
      {"mx-fp4-nibbles-swapped", "mmad_mx", isa::ProfileId::Ascend950,
       "A's fp4x2 element 2j read from bits 7:4 and 2j+1 from bits 3:0 (B read right)",
       Fault::MxNibblesSwapped},
      {"mx-scale-load-other-buffer", "mmad_mx", isa::ProfileId::Ascend950,
       "asc_copy_l12l0a_mx writes L0B_MX and asc_copy_l12l0b_mx L0A_MX (the scale loads a board "
       "rehearsal stages MmadMx's scales with)",
       Fault::MxScaleLoadToOtherBuffer, true},
      {"load3d-v1-jump-ignored", "load3d_v1", isa::ProfileId::Legacy,
       "V1 repeat_mode 1 writes fractals contiguously, ignoring jump_stride",
       Fault::Load3DV1JumpIgnored},
      {"writes-nothing", "load2d", isa::ProfileId::A2,
       "validates, then runs nothing: every observed region keeps its initial bytes",
       Fault::WritesNothing},
      // One defect, a load that corrupts its source, which every load family must kill.
      {"load2d-source-corrupted", "load2d", isa::ProfileId::A2,
       "flips the first source byte after the load", Fault::LoadSourceCorrupted},
      {"v2-source-corrupted", "load2d_v2", isa::ProfileId::Ascend950,
       "flips the first source byte after the load", Fault::LoadSourceCorrupted},
      {"v2-bitmode-source-corrupted", "load2d_bitmode", isa::ProfileId::Ascend950,
       "flips the first source byte after the load", Fault::LoadSourceCorrupted},
      {"load3d-v1-source-corrupted", "load3d_v1", isa::ProfileId::Legacy,
       "flips the first source byte after the load", Fault::LoadSourceCorrupted},
      {"load3d-v2-source-corrupted", "load3d_v2", isa::ProfileId::A2,
       "flips the first source byte after the load", Fault::LoadSourceCorrupted},
      {"load3d-v2pro-source-corrupted", "load3d_v2pro", isa::ProfileId::Ascend950,
       "flips the first source byte after the load", Fault::LoadSourceCorrupted},
      {"sparse-load-source-corrupted", "load_sparse", isa::ProfileId::A2,
       "flips the first source byte after the load", Fault::LoadSourceCorrupted},
  };
  return kMutants;
}

namespace {

/// Several mutants as one DUT (mutant:A+B): every program runs on the reference and on each
/// mutant, and the answer is that of the first mutant whose answer differs from the
/// reference's, else the reference's. Each fault thus shows wherever it alone would show; where
/// one program meets two faults, the first one named shows. A measuring device for failure
/// signatures (one DUT, several known root causes), not a model of how faults combine.
class MutantSet final : public Dut {
 public:
  explicit MutantSet(const std::vector<Fault>& faults) {
    for (Fault f : faults) mutants_.push_back(std::make_unique<ReferenceDut>(f));
  }
  const Capabilities& capabilities() const override { return reference_.capabilities(); }
  RunResult run(const isa::Program& program) override {
    RunResult expected = reference_.run(program);
    for (const auto& m : mutants_) {
      RunResult r = m->run(program);
      const bool sameViolation = r.violation.has_value() == expected.violation.has_value() &&
                                 (!r.violation || r.violation->code == expected.violation->code);
      if (r.status != expected.status || r.observed != expected.observed || !sameViolation) {
        return r;
      }
    }
    return expected;
  }

 private:
  ReferenceDut reference_;
  std::vector<std::unique_ptr<ReferenceDut>> mutants_;
};

}  // namespace
const std::vector<Reading>& readings() {
  static const std::vector<Reading> kReadings{
      {{"v2-columns-row-by-row", "load2d_v2", isa::ProfileId::Ascend950,
        "OPEN-10 reading: colliding destination fractals written row by row (earlier column wins)",
        Fault::V2ColumnsRowByRow},
       "row by row"},
      {{"mmad-saturate-each-sum", "mmad", isa::ProfileId::A2,
        "OPEN-7 reading: int32 saturated after every partial sum, k ascending",
        Fault::MmadSaturateEachSum},
       "every partial sum"},
      // Within spec 9's bound on every case: certify's arithmetic fingerprint names it.
      {{"mmad-pairwise-sum", "mmad", isa::ProfileId::A2,
        "OPEN-7 reading: float products summed as a tree (pairwise), not one by one in ascending k",
        Fault::MmadPairwiseSum},
       "pairwise"},
      // Unspecified bytes written: nothing to name, everything to pass (spec 6.1, OPEN-8).
      {{"load3d-unspecified-cells-written", "load3d_v2", isa::ProfileId::A2,
        "spec 6.1 reading: the partial fractals' cells beyond M written with a pattern (they "
        "are unspecified)",
        Fault::Load3DUnspecifiedCellsWritten},
       ""},
      {{"mmad-unspecified-cells-written", "mmad", isa::ProfileId::A2,
        "OPEN-8 reading: C's last fractals written whole, the cells beyond m and n with a pattern "
        "(Mmad, MmadWithSparse, MmadMx)",
        Fault::MmadUnspecifiedCellsWritten},
       ""},
  };
  return kReadings;
}

std::unique_ptr<Dut> makeDut(std::string_view spec, std::chrono::milliseconds timeout) {
  if (spec == "reference") return std::make_unique<ReferenceDut>();
  const auto prefixed = [&](std::string_view p) { return spec.substr(0, p.size()) == p; };
  if (prefixed("mutant:")) {
    std::vector<Fault> faults;  // mutant:A+B+C names several
    for (std::string_view rest = spec.substr(7);;) {
      const std::string_view name = rest.substr(0, rest.find('+'));
      const auto m = std::find_if(mutants().begin(), mutants().end(),
                                  [&](const Mutant& x) { return x.name == name; });
      const auto r = std::find_if(readings().begin(), readings().end(),
                                  [&](const Reading& x) { return x.name == name; });
      if (m != mutants().end()) {
        faults.push_back(m->fault);
      } else if (r != readings().end()) {
        faults.push_back(r->fault);
      } else {
        throw std::invalid_argument("no mutant named '" + std::string(name) +
                                    "'; 'cubecheck mutants --list' lists them");
      }
      if (name.size() == rest.size()) break;
      rest = rest.substr(name.size() + 1);
    }
    if (faults.size() == 1) return std::make_unique<ReferenceDut>(faults.front());
    return std::make_unique<MutantSet>(faults);
  }
  if (prefixed("exec:")) {
    std::vector<std::string> argv;
    std::istringstream words{std::string(spec.substr(5))};
    for (std::string w; words >> w;) argv.push_back(w);
    if (argv.empty()) throw std::invalid_argument("exec: needs a program, e.g. exec:./my_dut");
    return std::make_unique<ExecDut>(std::move(argv), timeout);
  }
  if (prefixed("plugin:")) {
    if (spec.size() == 7) throw std::invalid_argument("plugin: needs a path, e.g. plugin:./dut.so");
    return isolatedPlugin(std::string(spec.substr(7)), timeout);
  }
  if (prefixed("inprocess:")) {
    if (spec.size() == 10) {
      throw std::invalid_argument("inprocess: needs a path, e.g. inprocess:./dut.so");
    }
    return std::make_unique<PluginDut>(std::string(spec.substr(10)));
  }
  throw std::invalid_argument("unknown DUT spec '" + std::string(spec) +
                              "'; expected reference, mutant:NAME, exec:PROGRAM [ARGS...], "
                              "plugin:PATH.so or inprocess:PATH.so");
}

}  // namespace cubecheck::dut
