#include "conformance/vector_case.hpp"

#include <stdexcept>

#include "conformance/checks.hpp"
#include "conformance/localise.hpp"

namespace cubecheck::conf {

std::optional<Verdict> runBefore(dut::Dut& dut, const std::vector<isa::Program>& before) {
  // A failing case's recording marks these, so that its cause is looked for in its own.
  auto* recording = dynamic_cast<RecordingDut*>(&dut);
  if (recording != nullptr) recording->sendingBefore = true;
  std::optional<Verdict> out;
  for (const isa::Program& p : before) {
    isa::Observed ignored;
    if (auto v = runLegal(dut, p, ignored)) {
      if (v->outcome != Outcome::NotSupported) {
        v->detail = "the legal program sent just before the case: " + v->detail;
      }
      out = std::move(v);
      break;
    }
  }
  if (recording != nullptr) recording->sendingBefore = false;
  return out;
}

Verdict checkVector(dut::Dut& dut, const VectorCase& c) {
  if (c.uncertified) return {Outcome::NotSupported, *c.uncertified};
  if (auto v = runBefore(dut, c.before)) return *v;
  if (c.rejection) return checkRejected(dut, c.program, *c.rejection);
  if (c.expected) return checkExpected(dut, c.program, *c.expected);
  isa::Observed observed;
  if (auto v = runLegal(dut, c.program, observed)) return *v;
  std::string firstReport;
  for (const auto& [name, e] : c.alternatives) {
    const oracle::Comparison cmp = oracle::compareExact(c.program, e, observed);
    if (cmp.equal && cmp.vacuous) {
      Verdict v = vacuousPass();
      v.note = name;
      v.probe = c.probe;
      return v;
    }
    if (cmp.equal) {
      Verdict v = passed(c.program, e);
      v.note = name;
      v.probe = c.probe && v.outcome == Outcome::Pass;
      return v;
    }
    if (firstReport.empty()) firstReport = cmp.report;
  }
  for (const auto& [name, e] : c.misreadings) {
    if (oracle::compareExact(c.program, e, observed).equal) {
      return {Outcome::Mismatch,
              "follows " + name + ", which is not a reading the spec allows; against the first:\n" +
                  firstReport};
    }
  }
  return {Outcome::Mismatch, "matches none of the readings; against the first:\n" + firstReport};
}

}  // namespace cubecheck::conf
