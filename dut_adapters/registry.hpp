// DUT specs as typed on the command line, and the mutant zoo.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dut_adapters/dut.hpp"
#include "dut_adapters/reference/reference_dut.hpp"

namespace cubecheck::dut {

/// A deliberately broken reference: one realistic fault, named and described.
struct Mutant {
  std::string_view name;
  std::string_view family;  ///< the family whose properties must kill it
  isa::ProfileId profile;   ///< where that family exists
  std::string_view description;
  Fault fault;
  /// Set for a fault in an instruction only a board's rewrite runs (the MX scale loads that stage
  /// MmadMx's scales): the family kills it through a board rehearsal, `certify --observable
  /// GM,L1,L0C --given GM,L1,BT`.
  bool throughBoard = false;
};

const std::vector<Mutant>& mutants();

/// A reference that follows another documented reading of an open point: not a defect. The
/// suite must certify it and its probe must name the reading (spec 10: open points are probed,
/// never failed). Built by "mutant:NAME" like the zoo, but never counted as a mutant to kill;
/// `family` is the one whose probe names the reading.
struct Reading : Mutant {
  /// A substring of the note the probe reports for it; empty for a DUT that writes bytes the
  /// spec leaves unspecified (nothing to name, everything to pass).
  std::string_view probeNote;
};

const std::vector<Reading>& readings();

/// Builds the DUT a spec names: "reference", "mutant:NAME", "mutant:NAME+NAME..." (several
/// faults in one DUT, each showing where it alone would), "exec:PROGRAM [ARGS...]" (split at
/// spaces) or "plugin:PATH.so". `timeout` bounds each program of an exec: DUT. Throws
/// std::invalid_argument with a message that says what specs exist.
std::unique_ptr<Dut> makeDut(std::string_view spec,
                             std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));

}  // namespace cubecheck::dut
