#include "conformance/open_points.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace cubecheck::conf {
namespace {

// The facts are those of spec 10; the texts are short so a report can print one per line.
constexpr std::array<OpenPoint, 20> kOpenPoints{{
    {"OPEN-1", "sparse index pair (2, 0)",
     "For the 2:4 index pair (2, 0) the densification table has both slots read A element 2 of "
     "the group, the prose has slot 1 read element 1 + idx1; index value 3 means nothing.",
     "the prose: slot 1 reads A[4g + 1 + idx1]; index 3 is never drawn",
     "the table: both slots read A[4g + 2]",
     "mmad_sparse/Open1Probe: an index pair (2, 0) with a non-zero slot 1; the report names the "
     "reading the DUT follows and fails the case only when it follows neither"},
    {"OPEN-2", "dense encoding of the group 0 0 0 X",
     "The vendor samples store the group 0 0 0 X as (X, 0), the documented rule and the vendor "
     "compressor as (0, X).",
     "(0, X)", "(X, 0), as the sample generators store it",
     "no DUT probe (the host compresses, not the DUT); mmad_sparse/MatchesOracle covers all 16 "
     "masks, and `cubecheck sparse-check` flags such groups in a user's compressor output"},
    {"OPEN-3", "sparse Mmad with K not a multiple of 64",
     "The dense B then ends inside a fractal; whether a DUT reads the padding is undocumented.",
     "certified only with zero-filled padding (index 0), where both behaviours agree",
     "any other padding content", "no probe: the generators always zero the padding"},
    {"OPEN-4", "index buffer placement",
     "That an index fractal lands at (L0B destination address) / 4 is inferred, not documented.",
     "L0B address / 4", "any other placement",
     "no probe: load_sparse/MatchesOracle observes the index buffer at address / 4, so another "
     "placement fails there; on a DUT that cannot read the index buffer (a board) it is seen only "
     "through MmadWithSparse, which leaves this unchecked, and the certificate says so"},
    {"OPEN-5", "sparse load and src_stride / dst_gap",
     "LoadDataWithSparse documents src_stride and dst_gap as unused; what hardware does with "
     "non-zero values is not shown.",
     "ignored (as are addr_mode and sid)", "stepping by src_stride or leaving dst_gap fractals",
     "no probe: the generators draw non-zero ignored fields (bin ignored_fields:nonzero), so a "
     "DUT that honours them fails load_sparse/MatchesOracle"},
    {"OPEN-6", "bias-table address without a bias tensor",
     "With cmatrix_source = true and no bias tensor, no source says where in the bias table the "
     "bias row is read.",
     "address 0", "any other address, e.g. one left over from an earlier bias load",
     "no probe: cases place the bias row at address 0 (bin init:bias_table)"},
    {"OPEN-7", "int32 saturation, float accumulation, HF32",
     "Whether int32 accumulation saturates every partial sum or once at the end; the order and "
     "precision of float accumulation; the HF32 mantissa width and rounding of its trans modes.",
     "int32 saturates once at the end; floats are compared as spec 9 says (exact regime or a "
     "derived bound), which makes the order irrelevant; HF32 cases use values every reading "
     "rounds alike",
     "saturation of every partial sum in ascending k; HF32 with 10 or 11 fraction bits and "
     "nearest-even, ties-away, toward-zero rounding or truncation",
     "mmad/SaturationProbe (a partial sum passes INT32_MAX, the final sum does not) and "
     "mmad/Hf32Probe (f32 values between HF32 steps) report the reading the DUT follows"},
    {"OPEN-8", "C beyond m and n in the last fractal",
     "Mmad writes whole L0C fractals; what lands in rows >= m and columns >= n of the last one "
     "(and rows 1..15 of a GEMV result) is undocumented.",
     "don't-care: masked out of the comparison; bytes outside C's fractals must keep their canary",
     "zeros, or the previous contents", "no probe: reports mark the masked bytes"},
    {"OPEN-9", "LoadData2DParams on 950",
     "On 950 LoadData2DParams is emulated through V2, and the emulation disagrees with spec 4 "
     "when start_index != 0 and src_stride != 1.",
     "certify only where both agree", "spec 4's result, or the emulation's, where they disagree",
     "no probe: such load2d cases on 950 are NotSupported with a reason naming OPEN-9"},
    {"OPEN-10", "V2 destination order, negative src_stride",
     "The full destination order of LoadData2DParamsV2 is inferred (a transposed block's extra "
     "fractals past dst_stride, which of overlapping columns wins), and a negative src_stride "
     "has no documented meaning.",
     "the order of spec 5: the whole footprint is written, overlapping columns in ascending "
     "order so the later wins; negative src_stride is not certified",
     "clipping at dst_stride, another order for overlapping columns, a meaning for negative "
     "strides",
     "no probe: overlapping columns are certified on the default (bin "
     "dst_stride:columns_overlap) and fail load2d_v2/MatchesOracle otherwise; negative "
     "src_stride cases are NotSupported with a reason naming OPEN-10"},
    {"OPEN-11", "Load3D outside the sampled range, and V1",
     "A channel_size that is not a multiple of C0, where repeated 3D loads put their output, "
     "950 destination strides other than the samples', and LoadData 3D V1 as a whole "
     "(including c_size mode) are undocumented.",
     "only channel_size = C1 * C0, one repeat and the samples' strides are certified; V1 is "
     "checked against the inferred model of spec 6.4 and its verdict reads provisional",
     "any other behaviour in those cases",
     "no probe: such cases are NotSupported with a reason naming OPEN-11, and load3d_v1's "
     "verdict is \"conformant (provisional)\" at best"},
    {"OPEN-12", "accumulator of the fp8 and HiF8 cube paths",
     "How wide the accumulator of low-precision Mmad on 950 is, and how it rounds, is not "
     "documented.",
     "f32 (24 significant bits): exact-regime cases bit for bit, other finite inputs within "
     "gamma_{k+1} at W = 24",
     "a narrower accumulator (FP22 accumulation has precedent on other vendors' tensor cores)",
     "mmad_lowprec/BoundedError reports the worst error of each passing case in ULP; a narrower "
     "accumulator fails it, naming OPEN-12; mmad_lowprec/AccumulatorWidthProbe reports which of "
     "the widths 11, 14, 17, 20 and 24 the accumulator keeps, and whether it keeps a 24-bit init"},
    {"OPEN-13", "subnormal low-precision inputs",
     "Whether subnormal fp8 and HiF8 codes are honoured or flushed to zero is not documented.",
     "honoured, as the format definitions say", "flushed to zero (FTZ)",
     "mmad_lowprec/SubnormalProbe: subnormal codes times a selector; the report names the "
     "reading the DUT follows and fails the case only when it follows neither"},
    {"OPEN-14", "infinite low-precision inputs",
     "What an infinity code (fp8_e5m2, HiF8) does to C is not documented for the 950 cube: the "
     "Mmad page's saturation mode is restricted to half by the 950 SetCtrlSpr table.",
     "not certified: certified cases hold finite codes only",
     "IEEE propagation; saturation to +-FLT_MAX; the infinity read as the largest finite value",
     "mmad_lowprec/InfinityProbe: one infinity per case on either side, ones elsewhere; the report "
     "names the reading (or \"other\"), and the case fails only where C not meeting the "
     "infinity is wrong"},
    {"OPEN-15", "the sign of a zero float Mmad result",
     "Inputs may be -0 (every format but HiF8); the sign of a zero result is documented neither "
     "for fp8, HiF8 and MX nor for dense f16, bf16 and f32 (from zero, is +0 added to a sum of "
     "-0 products?).",
     "every float C compared numerically at zero: +0 equals -0; all else, and integer C, exactly",
     "IEEE sign rules",
     "mmad/ZeroSignProbe (dense f16, bf16, f32): -0 products from zero and onto a -0 bias, bit "
     "for bit; no probe on the fp8, HiF8 and MX paths"},
    {"OPEN-16", "how far CTRL[45] reaches",
     "CTRL[45] is documented only for plain fp8_e4m3fn x fp8_e4m3fn; whether hif8 x hif8 or "
     "MmadMx depends on it is not.",
     "it changes plain fp8_e4m3fn x fp8_e4m3fn only (not MmadMx); cases set it explicitly "
     "(some e4m3fn x e4m3fn ones rely on its reset value, off), and hif8 x hif8 is certified "
     "with it off",
     "hif8 x hif8, the other fp8 pairs, or MmadMx e4m3fn x e4m3fn depending on it",
     "the fp8 pairs are drawn with CTRL[45] on and off (bins ctrl45:hif8 and "
     "ctrl45:other_pair), so a DUT whose other fp8 pairs depend on it fails mmad_lowprec; "
     "mmad_mx/HiF8ModeProbe runs MmadMx e4m3fn x e4m3fn under CTRL[45] = 1 on codes that "
     "differ as HiF8 and names the reading (certified MmadMx cases pin it to 0)"},
    {"OPEN-17", "what E1M2 means",
     "fp4x2_e1m2 with exponent bias 1 (largest value 1.75) follows the vendor's documented range; "
     "bias 0 follows other tools and the vendor page's own generic formula.",
     "bias 1", "bias 0 (every value doubled)",
     "mmad_mx/E1M2Probe: every E1M2 code times a selector on each side; the report names the "
     "reading the DUT follows and fails the case only when it follows neither (DecodeProbe "
     "still certifies bias 1)"},
    {"OPEN-18", "E8M0 edge codes",
     "Whether scale 0x00 is 2^-127 or zero, what a NaN scale (0xFF) does, and scaled values "
     "outside the f32 normal range are not settled.",
     "certified only with scale exponents -8..8 (codes 0x77..0x87), all scaled values and sums "
     "within the f32 normal range",
     "0x00 as zero; any NaN-scale behaviour",
     "mmad_mx/EdgeScaleProbe: 0x00 against a 0xFE counter-scale, finite and exact either "
     "way; the report names the reading and fails the case only when the DUT follows neither. "
     "0xFF is not probed (a NaN input); certified cases never draw 0x00, 0xFF or an "
     "out-of-range exponent sum"},
    {"OPEN-19", "the MX scale layout as MmadMx reads it",
     "The scale base (address / 16), the 16 x 2 fractal and the Zz/Nn orders are documented; the "
     "row stride k / 64 is inferred and the layout for m = 1 (GEMV) is unknown.",
     "spec 8.1.4 with row stride k / 64; m = 1 not certified (legal, never drawn)",
     "another row stride; any GEMV layout",
     "mmad_mx/ScaleProbe: random scales with two scale fractals along K on every pair and side; "
     "a DUT striding scale rows otherwise fails it"},
    {"OPEN-20", "MmadMx with k % 64 != 0",
     "Documented illegal and padded by the vendor sample, yet passed unaligned by another vendor "
     "library: is the tail ignored or computed?",
     "illegal: a DUT rejects it (Range); only k % 64 == 0 is certified",
     "the tail ignored; the tail computed",
     "no probe: mmad_mx/RejectsIllegal expects the rejection, so the tail readings fail "
     "there; a DUT that does not check legality has those cases NotSupported"},
}};

bool sameId(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) ==
                  std::toupper(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::span<const OpenPoint> openPoints() {
  return kOpenPoints;
}

std::vector<UncheckedOpenPoint> openPointsNotChecked(
    const std::vector<std::string>& openPoints,
    const std::map<std::string, std::size_t>& indirect) {
  // Which observation leaves which open point unchecked: one row per such pair.
  struct Row {
    std::string_view id, observation, why;
  };
  static constexpr Row kRows[] = {
      {"OPEN-4", kIdxThroughMmadSparse,
       "the index buffer was observed only as MmadWithSparse reads it, so where LoadDataWithSparse "
       "puts an index fractal is not seen: a placement other than L0B address / 4, used alike by "
       "both instructions, passes"},
  };
  std::vector<UncheckedOpenPoint> out;
  for (const std::string& id : openPoints) {
    for (const Row& row : kRows) {
      if (row.id != id) continue;
      std::size_t cases = 0;
      for (const auto& [line, n] : indirect) cases += line.starts_with(row.observation) ? n : 0;
      if (cases > 0) {
        out.push_back({id, "in " + std::to_string(cases) + " case(s) " + std::string(row.why)});
      }
    }
  }
  return out;
}

const OpenPoint* findOpenPoint(std::string_view id) {
  for (const OpenPoint& p : kOpenPoints) {
    if (sameId(p.id, id)) return &p;
  }
  return nullptr;
}

std::string specLink(std::string_view citation, bool beside) {
  // GitHub-style anchors as docs/spec.md declares them: lower case, '.' and ' ' become '-'.
  std::string anchor;
  for (char c : citation) {
    anchor += (c == ' ' || c == '.')
                  ? '-'
                  : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return (beside ? "spec.md#" : "docs/spec.md#") + anchor;
}

}  // namespace cubecheck::conf
