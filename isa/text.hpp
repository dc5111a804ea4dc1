// The text form of instructions: one line per instruction, fields separated by spaces, in the
// order and units of the spec. The DUT protocol and the golden vector files both use it
// (docs/dut-protocol.md lists the forms).
#pragma once

#include <optional>
#include <string>

#include "isa/program.hpp"

namespace cubecheck::isa {

std::string toText(const Instruction& instruction);

/// Parses one instruction line; nullopt with `error` naming the field at fault.
std::optional<Instruction> parseInstruction(const std::string& line, std::string& error);

}  // namespace cubecheck::isa
