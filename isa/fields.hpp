// One descriptor per instruction: its text-form fields in order, with their units and ranges.
// The text form (isa/text.cpp) is printed and parsed from these tables, the capability envelope
// names fields by these names, and a run's reach (the values it drew) is measured against them.
// Adding an instruction means adding its descriptor here; nothing else repeats the field order.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "isa/program.hpp"

namespace cubecheck::isa {

enum class FieldKind : std::uint8_t {
  Path,   ///< a Load2DPath, printed by name (nameOf / parseLoad2DPath)
  DType,  ///< a DType, printed by name
  Int,    ///< a signed or unsigned integer field
  Flag,   ///< 0 or 1
  Word,   ///< a 64-bit packed word, printed unsigned; its value is the bit pattern
};

/// One field of an instruction, in text-form order.
struct FieldDesc {
  std::string_view name;  ///< snake_case, as docs/dut-protocol.md and the envelope name it
  std::string_view unit;  ///< what one unit of the value is ("512-byte fractals", "bytes", ...)
  FieldKind kind = FieldKind::Int;
  /// What the text form accepts, inclusive: the width of the field in the parameter struct.
  std::int64_t textMin = 0;
  std::int64_t textMax = 0;
  /// The range the spec documents as legal for the field on its own (before buffer capacity and
  /// the other fields narrow it), inclusive. Equal to the text range where the spec says nothing
  /// narrower.
  std::int64_t legalMin = 0;
  std::int64_t legalMax = 0;
  /// The value (Path and DType: the enumerator's underlying value; Word: the bit pattern).
  std::function<std::int64_t(const Instruction&)> get;
  /// Sets the value; the instruction must hold this descriptor's alternative, the value must be
  /// inside the text range.
  std::function<void(Instruction&, std::int64_t)> set;
  /// The field changes what the instruction does only when the count field `needs` holds at
  /// least `needsAtLeast`: a gap or a stride between repeats needs two of them, a start one.
  /// Empty: always. A value held where it changes nothing is not a value tried.
  std::string_view needs;
  std::int64_t needsAtLeast = 0;
  /// Where the count alone does not say it: whether the field changes what this instruction
  /// does (V2's dst_stride spaces the columns of the destination, which a transposed load counts
  /// in m_step). Replaces the count's test; the count still names the least load it matters in.
  std::function<bool(const Instruction&)> effective;
};

struct InstructionDesc {
  std::string_view opcode;
  std::vector<FieldDesc> fields;
  /// A default-constructed instruction of this kind.
  std::function<Instruction()> make;
};

/// Every instruction's descriptor, in the order of the Instruction variant.
const std::vector<InstructionDesc>& instructionDescs();

/// The descriptor of `opcode`, or nullptr.
const InstructionDesc* findInstructionDesc(std::string_view opcode);

/// The descriptor of the instruction's alternative.
const InstructionDesc& descOf(const Instruction& instruction);

/// The named field of the instruction's descriptor, or nullptr.
const FieldDesc* findField(const InstructionDesc& desc, std::string_view name);

/// Whether `field` of `desc` changes what `instruction` (of that descriptor) does: `effective`
/// says so, or else its `needs` count holds at least `needsAtLeast`.
bool takesEffect(const InstructionDesc& desc, const FieldDesc& field,
                 const Instruction& instruction);

/// The value of the named field, or nullopt when the instruction has no such field.
std::optional<std::int64_t> fieldValue(const Instruction& instruction, std::string_view name);

}  // namespace cubecheck::isa
