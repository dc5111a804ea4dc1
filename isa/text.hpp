// The text form of instructions: one line per instruction, fields separated by spaces, in the
// order and units of the spec. The DUT protocol and the golden vector files both use it
// (docs/dut-protocol.md lists the forms).
#pragma once

#include <optional>
#include <string>

#include "isa/program.hpp"

namespace cubecheck::isa {

/// The instruction's line. Throws std::logic_error (outsideTextRange's message) when a field
/// holds a value its text form cannot carry: the line would not parse back, so such an
/// instruction is never sent to a DUT nor written to a vector file.
std::string toText(const Instruction& instruction);

/// Why the instruction cannot be written as text: the first field whose value is outside the
/// text range of its descriptor (isa/fields.hpp), named with its value and range; nullopt when
/// every field fits. An illegal instruction (one RejectsIllegal draws) fits too: it breaks a
/// rule of the spec, not the width of a field.
std::optional<std::string> outsideTextRange(const Instruction& instruction);

/// outsideTextRange for every instruction of the program, the first named with its index.
std::optional<std::string> outsideTextRange(const Program& program);

/// Parses one instruction line; nullopt with `error` naming the field at fault.
std::optional<Instruction> parseInstruction(const std::string& line, std::string& error);

}  // namespace cubecheck::isa
