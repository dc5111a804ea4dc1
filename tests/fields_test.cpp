// The instruction descriptors (isa/fields.hpp): the one statement of each instruction's field order
// from which the text form is printed and parsed.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "isa/fields.hpp"
#include "isa/text.hpp"

namespace cubecheck {
namespace {

/// A value of field `f` drawn uniformly from its text range.
std::int64_t draw(const isa::FieldDesc& f, std::mt19937_64& rng) {
  if (f.kind == isa::FieldKind::Word) return static_cast<std::int64_t>(rng());
  std::uniform_int_distribution<std::int64_t> d(f.textMin, f.textMax);
  return d(rng);
}

TEST(Fields, EveryInstructionOfTheVariantHasADescriptorInVariantOrder) {
  const auto opcodes = isa::allOpcodes();
  ASSERT_EQ(isa::instructionDescs().size(), opcodes.size());
  for (std::size_t i = 0; i < opcodes.size(); ++i) {
    EXPECT_EQ(isa::instructionDescs()[i].opcode, opcodes[i]);
    EXPECT_EQ(isa::instructionDescs()[i].make().index(), i) << opcodes[i];
  }
}

TEST(Fields, LegalRangeLiesInsideTheTextRange) {
  for (const auto& d : isa::instructionDescs()) {
    for (const auto& f : d.fields) {
      EXPECT_LE(f.textMin, f.legalMin) << d.opcode << ' ' << f.name;
      EXPECT_LE(f.legalMin, f.legalMax) << d.opcode << ' ' << f.name;
      EXPECT_LE(f.legalMax, f.textMax) << d.opcode << ' ' << f.name;
    }
  }
}

// Every field set through its descriptor reads back, survives the text form, and a second
// printing is identical: printer and parser agree on order and units for every instruction.
TEST(Fields, TextRoundTripOverEveryFieldOfEveryInstruction) {
  std::mt19937_64 rng(20261201);
  for (const auto& d : isa::instructionDescs()) {
    for (int trial = 0; trial < 300; ++trial) {
      isa::Instruction ins = d.make();
      for (const auto& f : d.fields) f.set(ins, draw(f, rng));
      const std::string text = isa::toText(ins);
      std::string error;
      const auto back = isa::parseInstruction(text, error);
      ASSERT_TRUE(back) << text << ": " << error;
      EXPECT_EQ(*back, ins) << text;
      EXPECT_EQ(isa::toText(*back), text);
    }
  }
}

TEST(Fields, SettersReachTheNamedMember) {
  // Worked by hand: each value lands in the struct member the spec names.
  isa::Instruction ins = isa::findInstructionDesc("load2d")->make();
  const auto& d = isa::descOf(ins);
  isa::findField(d, "repeat_times")->set(ins, 255);
  isa::findField(d, "dst_gap")->set(ins, 7);
  isa::findField(d, "src_stride")->set(ins, 65535);
  const auto& l = std::get<isa::Load2D>(ins);
  EXPECT_EQ(l.params.repeatTimes, 255);
  EXPECT_EQ(l.params.dstGap, 7);
  EXPECT_EQ(l.params.srcStride, 65535);
  EXPECT_EQ(isa::fieldValue(ins, "repeat_times"), 255);
  EXPECT_EQ(isa::fieldValue(ins, "no_such_field"), std::nullopt);

  isa::Instruction v1 = isa::findInstructionDesc("load3d_v1")->make();
  isa::findField(isa::descOf(v1), "left_top_w")->set(v1, -255);
  EXPECT_EQ(std::get<isa::Load3DV1>(v1).params.leftTopW, -255);
  EXPECT_EQ(isa::fieldValue(v1, "left_top_w"), -255);
}

TEST(Fields, ParserNamesTheFieldAtFault) {
  std::string error;
  EXPECT_FALSE(isa::parseInstruction("load2d A1toA2 f16 0 0 0 256 0 0 0 0 0", error));
  EXPECT_EQ(error, "bad repeat_times '256': out of range for u8 (0..255)");
  // A number no field type holds, and a word that is no number, say which they are.
  EXPECT_FALSE(
      isa::parseInstruction("load2d A1toA2 f16 0 0 0 99999999999999999999 0 0 0 0 0", error));
  EXPECT_EQ(error, "bad repeat_times '99999999999999999999': out of range for u8 (0..255)");
  EXPECT_FALSE(isa::parseInstruction("load2d A1toA2 f16 0 0 0 x1 0 0 0 0 0", error));
  EXPECT_EQ(error, "bad repeat_times 'x1': not a number");
  EXPECT_FALSE(isa::parseInstruction("mmad f16 0 0 0", error));
  EXPECT_EQ(error, "mmad takes 15 fields, not 4");  // with b_dtype (spec 8.1.2)
  EXPECT_FALSE(isa::parseInstruction("frobnicate 1", error));
  EXPECT_EQ(error, "unknown instruction 'frobnicate'");
}

// docs/dut-protocol.md lists every instruction line with its fields in order: it must say what
// the descriptors say, so a DUT author reading it writes the same parser.
TEST(Fields, ProtocolDocumentListsEveryInstructionInDescriptorOrder) {
  std::ifstream in(std::string(CUBECHECK_SOURCE_DIR) + "/docs/dut-protocol.md");
  ASSERT_TRUE(in) << "docs/dut-protocol.md not found";
  std::stringstream all;
  all << in.rdbuf();
  const std::string doc = all.str();
  for (const auto& d : isa::instructionDescs()) {
    std::string line(d.opcode);
    for (const auto& f : d.fields) line += " <" + std::string(f.name) + ">";
    EXPECT_NE(doc.find("\n" + line + "\n"), std::string::npos)
        << "docs/dut-protocol.md lacks the line: " << line;
  }
}

// A failure signature names the culprit's variant (isa::variantOf): the fields that select its
// datapath. Red team M3: without it one waiver for one Mmad mode hid every Mmad bug.
TEST(Fields, AVariantNamesModesAndNothingElse) {
  std::mt19937_64 rng(20270315);
  for (const auto& d : isa::instructionDescs()) {
    for (const auto& f : d.fields) {
      if (!f.mode) continue;
      // A mode is a path, a type, a flag or a field whose unit is a mode: never bytes, rows,
      // fractals or a bit pattern.
      EXPECT_TRUE(f.unit == "path" || f.unit == "data type" || f.unit == "flag" || f.unit == "mode")
          << d.opcode << ' ' << f.name << " (" << f.unit << ")";
    }
    for (int trial = 0; trial < 50; ++trial) {
      isa::Program p;
      p.profile = isa::ProfileId::A2;
      p.instructions = {d.make()};
      for (const auto& f : d.fields) f.set(p.instructions[0], draw(f, rng));
      const std::string variant = isa::variantOf(p, 0);
      // Every other field redrawn: addresses, sizes, counts, strides and values change nothing.
      isa::Program other = p;
      for (const auto& f : d.fields) {
        if (!isa::namesVariant(f)) f.set(other.instructions[0], draw(f, rng));
      }
      EXPECT_EQ(isa::variantOf(other, 0), variant) << isa::toText(other.instructions[0]);
      // Each mode, set to another of its legal values, is a different variant and is named.
      for (const auto& f : d.fields) {
        if (!isa::namesVariant(f)) continue;
        const std::int64_t v = f.get(p.instructions[0]);
        other = p;
        f.set(other.instructions[0], v == f.legalMin ? f.legalMax : f.legalMin);
        EXPECT_NE(isa::variantOf(other, 0), variant) << d.opcode << ' ' << f.name;
        EXPECT_NE(variant.find(std::string(f.name) + "=" + isa::fieldText(f, v)), std::string::npos)
            << variant;
      }
    }
  }
}

// The mode registers an instruction reads are named as the writes before it left them, on the
// profiles that have them.
TEST(Fields, AVariantNamesTheModeRegistersAsTheProgramLeftThem) {
  isa::Mmad x;
  x.dtype = isa::DType::F32;
  isa::Program p;
  p.instructions = {x, isa::SetHF32{true, 1}, x, isa::SetHF32{false, 0}, x};
  const auto state = [](const isa::Instruction& reg) {
    const isa::InstructionDesc& d = isa::descOf(reg);
    std::string s = std::string(d.opcode);
    for (const auto& f : d.fields)
      s += " " + std::string(f.name) + "=" + isa::fieldText(f, f.get(reg));
    return s;
  };
  const std::string off = state(isa::SetHF32{}), on = state(isa::SetHF32{true, 1});
  const std::string hif8Off = state(isa::SetHiF8Mode{});
  for (isa::ProfileId id : isa::kAllProfiles) {
    p.profile = id;
    const std::string before = isa::variantOf(p, 0), after = isa::variantOf(p, 2),
                      again = isa::variantOf(p, 4);
    // Spec 8: HF32 is off until a program turns it on; the legacy profile has no HF32, only
    // 950 has CTRL[45].
    const bool hf32 = id != isa::ProfileId::Legacy, hif8 = id == isa::ProfileId::Ascend950;
    EXPECT_EQ(before.find(off) != std::string::npos, hf32) << before;
    EXPECT_EQ(after.find(on) != std::string::npos, hf32) << after;
    EXPECT_EQ(before == after, !hf32);
    EXPECT_EQ(again, before) << "set_hf32 0 after 1 is the same mode as never set";
    EXPECT_EQ(before.find(hif8Off) != std::string::npos, hif8) << before;
    // A load reads no mode register.
    isa::Program load{id, {}, {isa::SetHF32{true, 0}, isa::Load2D{}}, {}};
    EXPECT_EQ(isa::variantOf(load, 1).find(';'), std::string::npos);
  }
}

}  // namespace
}  // namespace cubecheck
