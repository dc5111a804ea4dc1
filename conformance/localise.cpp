#include "conformance/localise.hpp"

#include <cstdlib>
#include <set>
#include <stdexcept>

#include "conformance/checks.hpp"
#include "conformance/runner.hpp"
#include "conformance/vector_case.hpp"
#include "isa/fields.hpp"
#include "isa/writes.hpp"

namespace cubecheck::conf {

namespace {

/// A multiply: the oracle cannot replay one from its program alone (oracle::expect), so it is
/// blamed only when every load checked out, and loads never read the L0C it writes.
bool isArithmetic(const isa::Instruction& ins) {
  return std::holds_alternative<isa::Mmad>(ins) || std::holds_alternative<isa::MmadSparse>(ins) ||
         std::holds_alternative<isa::MmadMx>(ins);
}

/// Instructions [0, k] of `program` without its Mmads (loads never read L0C, so dropping them
/// changes nothing a load does), observing every segment of the memories instruction k writes.
/// nullopt when the program holds no segment of them.
std::optional<isa::Program> loadPrefix(const isa::Program& program, std::size_t k) {
  isa::Program p;
  p.profile = program.profile;
  p.segments = program.segments;
  for (std::size_t i = 0; i <= k; ++i) {
    if (!isArithmetic(program.instructions[i])) p.instructions.push_back(program.instructions[i]);
  }
  for (isa::Memory m : isa::writtenMemories(program.instructions[k])) {
    for (const isa::Segment& s : program.segments) {
      if (s.memory == m) p.observe.push_back({m, s.addr, s.bytes.size()});
    }
  }
  if (p.observe.empty()) return std::nullopt;
  return p;
}

/// The memory named on the first indented line of a difference report ("  L0B+0x40 ...").
std::string firstMemory(const std::string& detail) {
  const std::size_t at = detail.find("\n  ");
  if (at == std::string::npos) return {};
  const std::size_t plus = detail.find('+', at + 3);
  const std::size_t eol = detail.find('\n', at + 3);
  if (plus == std::string::npos || plus > eol) return {};
  return detail.substr(at + 3, plus - at - 3);
}

}  // namespace

std::vector<isa::Program> RecordingDut::ownPrograms() && {
  std::vector<isa::Program> own;
  for (std::size_t i = 0; i < programs.size(); ++i) {
    if (!before[i]) own.push_back(std::move(programs[i]));
  }
  return own;
}

dut::RunResult RecordingDut::run(const isa::Program& program) {
  programs.push_back(program);
  before.push_back(sendingBefore);
  dut::RunResult r = inner_.run(program);
  std::uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a 64
  const auto mix = [&h](std::uint64_t byte) { h = (h ^ byte) * 0x100000001B3ull; };
  mix(static_cast<std::uint64_t>(r.status));
  if (r.violation) mix(static_cast<std::uint64_t>(r.violation->code) + 256);
  for (const isa::Bytes& region : r.observed) {
    mix(region.size() + 512);
    for (std::uint8_t b : region) mix(b);
  }
  answers.push_back(h);
  // A wrong result read back indirectly (RunResult::wrongResult) is the DUT's answer, a
  // Mismatch, not a break.
  if (!firstBreak && !r.wrongResult &&
      (r.status == dut::RunStatus::AdapterError || r.status == dut::RunStatus::Timeout)) {
    firstBreak = Break{programs.size() - 1, r.status, r.message};
  }
  return r;
}

std::optional<std::string> answersDiffer(const RecordingDut& first, const RecordingDut& second) {
  if (first.programs.size() != second.programs.size()) return std::nullopt;
  for (std::size_t i = 0; i < first.programs.size(); ++i) {
    if (first.programs[i].instructions.size() != second.programs[i].instructions.size() ||
        first.programs[i].segments.size() != second.programs[i].segments.size()) {
      return std::nullopt;
    }
  }
  for (std::size_t i = 0; i < first.answers.size(); ++i) {
    if (first.answers[i] != second.answers[i]) {
      return "the DUT answered program " + std::to_string(i + 1) + " of the case's " +
             std::to_string(first.programs.size()) +
             " differently when it ran again (status, violation or observed bytes)";
    }
  }
  return std::nullopt;
}

std::optional<Verdict> rerunVerdict(Outcome original, const Verdict& firstVerdict,
                                    const RecordingDut& first, const Verdict& secondVerdict,
                                    const RecordingDut& second, const std::string& firstRun) {
  const std::string also = firstRun.empty() ? ")" : "; " + firstRun + ")";
  const auto broke = [&also](const Verdict& verdict,
                             const RecordingDut& run) -> std::optional<Verdict> {
    if (run.firstBreak) {
      const RecordingDut::Break& b = *run.firstBreak;
      return Verdict{b.status == dut::RunStatus::Timeout ? Outcome::Timeout : Outcome::AdapterError,
                     b.message + " (when the case ran again, on program " +
                         std::to_string(b.program + 1) + " of its " +
                         std::to_string(run.programs.size()) + also};
    }
    if (verdict.outcome == Outcome::AdapterError || verdict.outcome == Outcome::Timeout) {
      return Verdict{verdict.outcome, verdict.detail + " (when the case ran again" + also};
    }
    return std::nullopt;
  };
  if (std::optional<Verdict> v = broke(firstVerdict, first)) return v;
  if (std::optional<Verdict> v = broke(secondVerdict, second)) return v;
  if (std::optional<std::string> differs = answersDiffer(first, second)) {
    return Verdict{Outcome::Nondeterministic,
                   *differs + (firstRun.empty() ? std::string() : "; " + firstRun)};
  }
  for (const Verdict* again : {&firstVerdict, &secondVerdict}) {
    if (again->outcome == original) continue;
    return Verdict{Outcome::Nondeterministic,
                   "the DUT answered the case's programs differently when it ran again: its "
                   "first run was " +
                       std::string(nameOf(original)) + ", run " +
                       std::to_string(again == &firstVerdict ? 2 : 3) + " was " +
                       std::string(nameOf(again->outcome)) +
                       (again->detail.empty() ? std::string() : " (" + again->detail + ")")};
  }
  return std::nullopt;
}

std::string effectOf(const Verdict& v, bool nameMemory) {
  switch (v.outcome) {
    case Outcome::AdapterError:
      return "breaks the adapter (adapter error)";
    case Outcome::Timeout:
      return "does not finish (timeout)";
    case Outcome::Declined:
      return "declines a case it declared";
    default:
      break;
  }
  const std::string& d = v.detail;
  if (const std::optional<std::string> code = rejectedLegalCode(d)) {
    return "rejects a legal program (" + *code + ")";
  }
  if (d.find("nothing observable happened") != std::string::npos) return "does nothing";
  const std::string strayTail = " stray byte(s) outside it";
  std::string effect = "wrong values";
  if (const std::size_t at = d.find(strayTail); at != std::string::npos) {
    std::size_t begin = at;
    while (begin > 0 && d[begin - 1] >= '0' && d[begin - 1] <= '9') --begin;
    if (std::strtoull(d.c_str() + begin, nullptr, 10) > 0) effect = "writes outside its footprint";
  }
  if (nameMemory) {
    if (std::string m = firstMemory(d); !m.empty()) effect += " in " + m;
  }
  return effect;
}

std::optional<Culprit> localise(dut::Dut& dut, const std::vector<isa::Program>& programs) {
  // A load that could not be checked may be the one at fault: the Mmad is then not blamed.
  bool unchecked = false;
  for (const isa::Program& program : programs) {
    for (std::size_t k = 0; k < program.instructions.size(); ++k) {
      const isa::Instruction& ins = program.instructions[k];
      if (isArithmetic(ins) || isa::writtenMemories(ins).empty()) continue;
      std::optional<isa::Program> prefix = loadPrefix(program, k);
      if (!prefix) {
        unchecked = true;
        continue;
      }
      VectorCase vc;
      try {
        vc = oracleVector(std::move(*prefix));
      } catch (const std::exception&) {
        unchecked = true;  // not a program the oracle can judge on its own
        continue;
      }
      const Verdict v = checkVector(dut, vc);
      if (v.outcome == Outcome::Pass) continue;
      if (v.outcome == Outcome::NotSupported) {
        unchecked = true;  // an open point, or a memory the DUT cannot observe
        continue;
      }
      return Culprit{std::string(isa::opcodeOf(ins)), isa::variantOf(program, k),
                     effectOf(v, isa::writtenMemories(ins).size() > 1)};
    }
  }
  if (unchecked) return std::nullopt;
  std::optional<Culprit> blamed;
  std::set<std::string> variants;
  for (const isa::Program& program : programs) {
    for (std::size_t k = 0; k < program.instructions.size(); ++k) {
      const isa::Instruction& ins = program.instructions[k];
      if (!isArithmetic(ins)) continue;
      if (!blamed) blamed = Culprit{std::string(isa::opcodeOf(ins)), {}, {}};
      // Another kind of multiply beside the first is named with its opcode.
      const std::string opcode(isa::opcodeOf(ins));
      variants.insert((opcode == blamed->opcode ? "" : opcode + " ") + isa::variantOf(program, k));
    }
  }
  if (blamed) {
    for (const std::string& v : variants) {
      blamed->variant += (blamed->variant.empty() ? "" : " | ") + v;
    }
  }
  return blamed;
}

}  // namespace cubecheck::conf
