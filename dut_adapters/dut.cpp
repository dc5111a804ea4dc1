#include "dut_adapters/dut.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>

#include "isa/fields.hpp"

namespace cubecheck::dut {

namespace {

std::vector<std::string> splitWords(std::string_view text) {
  std::vector<std::string> w;
  std::istringstream is{std::string(text)};
  for (std::string s; is >> s;) w.push_back(s);
  return w;
}

/// One value of field `f` as a clause writes it: a path or dtype name for those kinds, else a
/// decimal integer (a Word also as an unsigned 64-bit bit pattern).
std::optional<std::int64_t> valueOf(const isa::FieldDesc& f, std::string_view word) {
  if (f.kind == isa::FieldKind::DType) {
    const auto t = isa::parseDType(word);
    if (!t) return std::nullopt;
    return static_cast<std::int64_t>(*t);
  }
  if (f.kind == isa::FieldKind::Path) {
    const auto p = isa::parseLoad2DPath(word);
    if (!p) return std::nullopt;
    return static_cast<std::int64_t>(*p);
  }
  std::int64_t v = 0;
  const char* end = word.data() + word.size();
  auto [at, ec] = std::from_chars(word.data(), end, v);
  if (ec != std::errc() || at != end) {
    std::uint64_t u = 0;
    auto [uat, uec] = std::from_chars(word.data(), end, u);
    if (f.kind != isa::FieldKind::Word || uec != std::errc() || uat != end) return std::nullopt;
    v = static_cast<std::int64_t>(u);
  }
  if (f.kind != isa::FieldKind::Word && (v < f.textMin || v > f.textMax)) return std::nullopt;
  return v;
}

}  // namespace

bool FieldLimit::admits(std::int64_t v) const {
  if (!values.empty() && std::find(values.begin(), values.end(), v) == values.end()) return false;
  return v >= lo && v <= hi && (multiple <= 1 || v % multiple == 0);
}

std::optional<FieldLimit> parseFieldLimit(std::string_view text, std::string& error) {
  const std::vector<std::string> w = splitWords(text);
  if (w.size() < 3) {
    error = "a limit is '<instruction> <field> <op> <value>...', got '" + std::string(text) + "'";
    return std::nullopt;
  }
  const isa::InstructionDesc* desc = isa::findInstructionDesc(w[0]);
  if (desc == nullptr) {
    error = "a limit names unknown instruction '" + w[0] + "'";
    return std::nullopt;
  }
  const isa::FieldDesc* f = isa::findField(*desc, w[1]);
  if (f == nullptr) {
    error = "instruction " + w[0] + " has no field '" + w[1] + "'; its fields are";
    for (const isa::FieldDesc& d : desc->fields) error += " " + std::string(d.name);
    return std::nullopt;
  }
  FieldLimit l;
  l.opcode = w[0];
  l.field = w[1];
  const std::string& op = w[2];
  auto bad = [&](const std::string& word) {
    error = "limit '" + std::string(text) + "': '" + word + "' is not a value of " + w[0] + " " +
            w[1] + " (" + std::string(f->unit) + ")";
    return std::nullopt;
  };
  std::ostringstream printed;
  printed << w[0] << ' ' << w[1] << ' ' << op;
  if (op == "default") {
    if (w.size() != 3) return bad(w[3]);
    l.lo = l.hi = f->get(desc->make());
    printed << " (" << l.lo << ')';
  } else if (op == "<=" || op == ">=" || op == "==" || op == "%") {
    if (w.size() != 4) {
      error = "limit '" + std::string(text) + "': '" + op + "' takes one value";
      return std::nullopt;
    }
    const auto v = valueOf(*f, w[3]);
    if (!v) return bad(w[3]);
    if (op == "%" && *v <= 0) {
      error = "limit '" + std::string(text) +
              "': a '%' clause takes a modulus of at least 1, got '" + w[3] + "'";
      return std::nullopt;
    }
    if (op == "<=") l.hi = *v;
    if (op == ">=") l.lo = *v;
    if (op == "==") l.lo = l.hi = *v;
    if (op == "%") l.multiple = *v;
    printed << ' ' << w[3];
  } else if (op == "in" && w.size() > 3) {
    const std::size_t dots = w[3].find("..");
    if (w.size() == 4 && dots != std::string::npos) {
      const auto a = valueOf(*f, w[3].substr(0, dots));
      const auto b = valueOf(*f, w[3].substr(dots + 2));
      if (!a || !b || *a > *b) return bad(w[3]);
      l.lo = *a;
      l.hi = *b;
    } else {
      for (std::size_t i = 3; i < w.size(); ++i) {
        const auto v = valueOf(*f, w[i]);
        if (!v) return bad(w[i]);
        l.values.push_back(*v);
      }
    }
    for (std::size_t i = 3; i < w.size(); ++i) printed << ' ' << w[i];
  } else {
    error = "limit '" + std::string(text) + "': the operator is one of <= >= == in % default";
    return std::nullopt;
  }
  l.text = printed.str();
  return l;
}

bool Capabilities::hasProfile(isa::ProfileId p) const {
  return std::find(profiles.begin(), profiles.end(), p) != profiles.end();
}
bool Capabilities::hasInstruction(std::string_view opcode) const {
  return std::find(instructions.begin(), instructions.end(), opcode) != instructions.end();
}
bool Capabilities::hasDType(isa::DType t) const {
  return std::find(dtypes.begin(), dtypes.end(), t) != dtypes.end();
}
bool Capabilities::canObserve(isa::Memory m) const {
  return std::find(observable.begin(), observable.end(), m) != observable.end();
}

bool Capabilities::canBeGiven(isa::Memory m) const {
  if (given.empty()) return canObserve(m);
  return std::find(given.begin(), given.end(), m) != given.end();
}

const FieldLimit* Capabilities::breaks(const isa::Instruction& instruction) const {
  if (limits.empty()) return nullptr;
  const isa::InstructionDesc& desc = isa::descOf(instruction);
  for (const FieldLimit& l : limits) {
    if (l.opcode != desc.opcode) continue;
    const isa::FieldDesc* f = isa::findField(desc, l.field);
    if (f != nullptr && !l.admits(f->get(instruction))) return &l;
  }
  return nullptr;
}

std::string Capabilities::envelopeText() const {
  if (!notDeclared.empty()) return "not declared: " + notDeclared;
  std::ostringstream os;
  os << "profiles";
  for (isa::ProfileId p : profiles) os << ' ' << isa::profile(p).name;
  if (profiles.empty()) os << " none";
  os << "; instructions";
  for (const std::string& i : instructions) os << ' ' << i;
  if (instructions.empty()) os << " none";
  os << "; dtypes";
  for (isa::DType t : dtypes) os << ' ' << isa::nameOf(t);
  if (dtypes.empty()) os << " none";
  os << "; observable";
  for (isa::Memory m : observable) os << ' ' << isa::nameOf(m);
  if (observable.empty()) os << " none";
  if (!given.empty()) {
    os << "; given images of";
    for (isa::Memory m : given) os << ' ' << isa::nameOf(m);
  }
  os << "; validates programs: " << (rejectsIllegal ? "yes" : "no") << "; limits:";
  if (limits.empty()) os << " none on fields";
  for (std::size_t i = 0; i < limits.size(); ++i) os << (i == 0 ? " " : ", ") << limits[i].text;
  return os.str();
}

RunResult Dut::runObserving(const isa::Program& program, std::span<const isa::Region> alsoObserve) {
  if (alsoObserve.empty()) return run(program);
  isa::Program extended = program;
  extended.observe.insert(extended.observe.end(), alsoObserve.begin(), alsoObserve.end());
  return run(extended);
}

std::string_view nameOf(RunStatus s) {
  switch (s) {
    case RunStatus::Ok:
      return "Ok";
    case RunStatus::Rejected:
      return "Rejected";
    case RunStatus::Unsupported:
      return "Unsupported";
    case RunStatus::AdapterError:
      return "AdapterError";
    case RunStatus::Timeout:
      return "Timeout";
  }
  return "?";
}

}  // namespace cubecheck::dut
