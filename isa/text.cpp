#include "isa/text.hpp"

#include <charconv>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "isa/fields.hpp"

namespace cubecheck::isa {

std::optional<std::string> outsideTextRange(const Instruction& ins) {
  const InstructionDesc& d = descOf(ins);
  for (const FieldDesc& f : d.fields) {
    if (f.kind == FieldKind::Word) continue;  // any 64-bit pattern is a word
    const std::int64_t v = f.get(ins);
    if (v >= f.textMin && v <= f.textMax) continue;
    // Unsigned fields above INT64_MAX read back negative: print the bit pattern as well.
    std::string shown = std::to_string(v);
    if (v < 0 && f.textMin >= 0)
      shown += " (" + std::to_string(static_cast<std::uint64_t>(v)) + ")";
    return std::string(d.opcode) + "." + std::string(f.name) + " = " + shown + " is outside " +
           std::to_string(f.textMin) + ".." + std::to_string(f.textMax);
  }
  return std::nullopt;
}

std::optional<std::string> outsideTextRange(const Program& program) {
  for (std::size_t i = 0; i < program.instructions.size(); ++i) {
    if (auto why = outsideTextRange(program.instructions[i])) {
      return "instruction " + std::to_string(i) + ": " + *why;
    }
  }
  return std::nullopt;
}

std::string toText(const Instruction& ins) {
  if (auto why = outsideTextRange(ins)) {
    throw std::logic_error("cannot write the instruction as text: " + *why);
  }
  const InstructionDesc& d = descOf(ins);
  std::ostringstream os;
  os << d.opcode;
  for (const FieldDesc& f : d.fields) {
    os << ' ' << fieldText(f, f.get(ins));
  }
  return os.str();
}

namespace {

/// The type a field's text range is, as a message names it: "u16" for 0..65535, "s16" for
/// -32768..32767, else the range itself.
std::string rangeName(std::int64_t lo, std::int64_t hi) {
  for (int bits = 1; bits < 64; ++bits) {
    const std::int64_t top = (std::int64_t{1} << bits) - 1;
    if (lo == 0 && hi == top)
      return "u" + std::to_string(bits) + " (0.." + std::to_string(hi) + ")";
    const std::int64_t half = std::int64_t{1} << (bits - 1);
    if (lo == -half && hi == half - 1) {
      return "s" + std::to_string(bits) + " (" + std::to_string(lo) + ".." + std::to_string(hi) +
             ")";
    }
  }
  return std::to_string(lo) + ".." + std::to_string(hi);
}

/// The value of one word of a line for field `f`, or nullopt with `why` (what is wrong with it:
/// not a name, not a number, out of range for the field's type).
std::optional<std::int64_t> parseField(const FieldDesc& f, const std::string& w, std::string& why) {
  const char* first = w.data();
  const char* last = w.data() + w.size();
  const std::string quoted = "'" + w.substr(0, 40) + "'";
  switch (f.kind) {
    case FieldKind::Path: {
      auto p = parseLoad2DPath(w);
      if (!p) {
        why = "bad " + std::string(f.name) + " " + quoted;
        return std::nullopt;
      }
      return static_cast<std::int64_t>(*p);
    }
    case FieldKind::DType: {
      auto t = parseDType(w);
      if (!t) {
        why = "bad " + std::string(f.name) + " " + quoted;
        return std::nullopt;
      }
      return static_cast<std::int64_t>(*t);
    }
    case FieldKind::Word: {
      std::uint64_t v = 0;
      auto [p, ec] = std::from_chars(first, last, v);
      if (ec == std::errc::result_out_of_range && p == last) {
        why = "bad " + std::string(f.name) + " " + quoted + ": out of range for u64";
        return std::nullopt;
      }
      if (ec != std::errc() || p != last) {
        why = "bad " + std::string(f.name) + " " + quoted + ": not a number";
        return std::nullopt;
      }
      return static_cast<std::int64_t>(v);
    }
    case FieldKind::Int:
    case FieldKind::Flag: {
      std::int64_t v = 0;
      auto [p, ec] = std::from_chars(first, last, v);
      if ((ec != std::errc() && ec != std::errc::result_out_of_range) || p != last) {
        why = "bad " + std::string(f.name) + " " + quoted + ": not a number";
        return std::nullopt;
      }
      if (ec == std::errc::result_out_of_range || v < f.textMin || v > f.textMax) {
        why = "bad " + std::string(f.name) + " " + quoted + ": out of range for " +
              (f.kind == FieldKind::Flag ? std::string("a flag (0 or 1)")
                                         : rangeName(f.textMin, f.textMax));
        return std::nullopt;
      }
      return v;
    }
  }
  why = "bad " + std::string(f.name) + " " + quoted;
  return std::nullopt;
}

}  // namespace

std::optional<Instruction> parseInstruction(const std::string& line, std::string& error) {
  std::vector<std::string> words;
  {
    std::istringstream is(line);
    for (std::string w; is >> w;) words.push_back(w);
  }
  if (words.empty()) {
    error = "empty instruction";
    return std::nullopt;
  }
  const std::string& op = words[0];
  const InstructionDesc* d = findInstructionDesc(op);
  if (!d) {
    error = "unknown instruction '" + op.substr(0, 40) + "'";
    return std::nullopt;
  }
  if (words.size() != d->fields.size() + 1) {
    error = op + " takes " + std::to_string(d->fields.size()) + " fields, not " +
            std::to_string(words.size() - 1);
    return std::nullopt;
  }
  Instruction ins = d->make();
  for (std::size_t i = 0; i < d->fields.size(); ++i) {
    const FieldDesc& f = d->fields[i];
    const std::optional<std::int64_t> v = parseField(f, words[i + 1], error);
    if (!v) return std::nullopt;
    f.set(ins, *v);
  }
  return ins;
}

}  // namespace cubecheck::isa
