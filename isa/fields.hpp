// One descriptor per instruction: its text-form fields in order, with their units and ranges.
// The text form (isa/text.cpp) is printed and parsed from these tables, the capability envelope
// names fields by these names, and a run's reach (the values it drew) is measured against them.
// Adding an instruction means adding its descriptor here; nothing else repeats the field order.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
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
  /// The field selects one of the instruction's datapaths (a mode): its value says which
  /// hardware path, element type, transpose, init or register the instruction takes, never
  /// where, how much or what it moves. Path, DType and Flag fields are modes, but for Load3D's
  /// filter_size_w/h, the ninth bits of filter sizes; the Int fields that are 0/1 mode selectors
  /// (addr_mode, repeat_mode, c_size, set_hf32's trans_mode) are modes too, unit_flag
  /// (synchronisation only) is not. A failure signature names the culprit's modes (variantOf).
  bool mode = false;
};

struct InstructionDesc {
  std::string_view opcode;
  std::vector<FieldDesc> fields;
  /// A default-constructed instruction of this kind.
  std::function<Instruction()> make;
  /// The register writes (opcodes) whose mode fields select this instruction's datapath when an
  /// earlier instruction of the same program set them: Mmad reads HF32 (set_hf32) and CTRL[45]
  /// (set_hif8_mode). A register never written holds a default instruction's values (off).
  std::vector<std::string_view> modeRegisters{};
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

/// Value `v` of field `f` as the text form writes it: a path or a type by name, a number else.
std::string fieldText(const FieldDesc& f, std::int64_t v);

/// Whether `f` is one of the modes a variant names: a mode field (FieldDesc::mode) with more than
/// one legal value (a field only one value of which is legal selects nothing in a legal program).
bool namesVariant(const FieldDesc& f);

/// The variant of instruction `k` of `program`: which of its datapaths it takes, from the field
/// table alone. Its mode fields (namesVariant) as "name=value" in table order, space separated;
/// then, for each of its modeRegisters that the program's profile has, "; " + that register
/// write's opcode and its mode fields as the last such write before instruction k left them
/// ("mmad" on a2: "dtype=f16 k_direction_align=0 cmatrix_source=0 cmatrix_init_val=1 is_bias=0
/// disable_gemv=0 b_dtype=f16; set_hf32 enable=0 trans_mode=0"). Never an
/// address, a size, a count or a value: instructions that differ only in those have one variant.
std::string variantOf(const Program& program, std::size_t k);

}  // namespace cubecheck::isa
