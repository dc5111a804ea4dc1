// How a DUT computes floating-point Mmad, found with crafted inputs (after Fasi, Higham, Mikaitis
// and Pranesh, "Numerical behavior of NVIDIA tensor cores", 2021): whether products are exact,
// the accumulator's significand width, the order of the accumulation, the rounding of additions,
// subnormal inputs and results, and special values. Reported, never a verdict: the spec leaves
// these open (OPEN-7); the bounded-error properties judge conformance.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "dut_adapters/dut.hpp"
#include "isa/profile.hpp"

namespace cubecheck::conf {

struct DTypeFingerprint {
  std::string dtype;  ///< f16, bf16, f32, or "f32 (HF32)"
  /// Why nothing was measured (the DUT does not declare it, an experiment did not run, or the
  /// DUT's results did not rest on the experiments' operands); the other fields are then empty.
  std::string notMeasured;
  std::string products;  ///< "exact", "rounded to the input precision" or "other (...)"
  /// Significand bits of the accumulator, sign excluded, hidden bit included (24 for f32); 0 when
  /// not found within what the inputs can show.
  int accumulatorBits = 0;
  std::string order;     ///< "sequential (ascending k)", "sequential (descending k)", "pairwise"...
  std::string rounding;  ///< "nearest-even", "nearest-away", "toward-zero", "down", "up"
  std::string subnormalInputs;           ///< "kept" / "flushed" / "not applicable: ..."
  std::string subnormalResults;          ///< "kept" / "flushed" / "not applicable: ..."
  std::string specialValues;             ///< what inf, inf x 0, inf - inf and NaN became
  std::optional<int> inputFractionBits;  ///< HF32 only: fraction bits an f32 input keeps
};

struct Fingerprint {
  std::string dut;
  isa::ProfileId profile = isa::ProfileId::A2;
  std::vector<DTypeFingerprint> dtypes;
};

/// Runs the crafted programs (Mmad on one row of A and one column of B, zero init) for f16,
/// bf16, f32 and f32 in HF32 mode. Deterministic; a few hundred small programs. A data type whose
/// control products do not come out exactly (a DUT that computes nothing, or something else),
/// or one of whose experiments the DUT did not compute from its operands, is not measured:
/// every figure rests on results the DUT's computation determined.
Fingerprint fingerprint(dut::Dut& dut, isa::ProfileId profile);

nlohmann::ordered_json toJson(const Fingerprint& f);
/// The fingerprint as a table, one row per data type: the header, then the rows. What toMarkdown
/// prints and the certificate's section shows.
std::vector<std::vector<std::string>> fingerprintTable(const Fingerprint& f);
/// A Markdown table, one row per data type.
std::string toMarkdown(const Fingerprint& f);

}  // namespace cubecheck::conf
