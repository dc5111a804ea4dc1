#include "isa/program.hpp"

#include <algorithm>
#include <array>

namespace cubecheck::isa {

std::string_view opcodeOf(const Instruction& instruction) {
  return std::visit([](const auto& i) -> std::string_view { return i.kOpcode; }, instruction);
}

namespace {
template <class... I>
std::vector<std::string> opcodesOf(const std::variant<I...>*) {
  return {std::string(I::kOpcode)...};
}
}  // namespace

std::vector<std::string> allOpcodes() {
  return opcodesOf(static_cast<const Instruction*>(nullptr));
}

std::optional<DType> dtypeOf(const Instruction& instruction) {
  return std::visit(
      [](const auto& i) -> std::optional<DType> {
        if constexpr (requires { i.dtype; }) {
          return i.dtype;
        } else {
          return std::nullopt;
        }
      },
      instruction);
}

std::optional<Violation> validate(const Profile& profile, const Instruction& instruction) {
  return std::visit([&](const auto& i) { return validate(profile, i); }, instruction);
}

std::string describe(const Instruction& instruction) {
  return std::visit([](const auto& i) { return describe(i); }, instruction);
}

const Segment* findSegment(const std::vector<Segment>& segments, Memory m, std::uint64_t addr,
                           std::uint64_t size) {
  for (const Segment& s : segments) {
    if (s.memory == m && addr >= s.addr && addr - s.addr <= s.bytes.size() &&
        size <= s.bytes.size() - (addr - s.addr)) {
      return &s;
    }
  }
  return nullptr;
}

Segment* findSegment(std::vector<Segment>& segments, Memory m, std::uint64_t addr,
                     std::uint64_t size) {
  const std::vector<Segment>& view = segments;
  return const_cast<Segment*>(findSegment(view, m, addr, size));
}

std::optional<Violation> validateStructure(const Program& program) {
  const Profile& prof = profile(program.profile);
  for (std::size_t i = 0; i < program.segments.size(); ++i) {
    const Segment& s = program.segments[i];
    const std::uint64_t cap = prof.capacityOf(s.memory);
    if (s.addr > cap || s.bytes.size() > cap - s.addr) {
      return Violation{ViolationCode::Capacity, "segment " + std::to_string(i) + " in " +
                                                    std::string(nameOf(s.memory)) +
                                                    " ends past the memory's capacity"};
    }
    for (std::size_t j = 0; j < i; ++j) {
      const Segment& t = program.segments[j];
      if (t.memory == s.memory && s.addr < t.addr + t.bytes.size() &&
          t.addr < s.addr + s.bytes.size()) {
        return Violation{ViolationCode::UndefinedMemory, "segments " + std::to_string(j) + " and " +
                                                             std::to_string(i) + " overlap"};
      }
    }
  }
  for (std::size_t i = 0; i < program.observe.size(); ++i) {
    const Region& r = program.observe[i];
    if (findSegment(program.segments, r.memory, r.addr, r.size) == nullptr) {
      return Violation{ViolationCode::UndefinedMemory, "observed region " + std::to_string(i) +
                                                           " in " + std::string(nameOf(r.memory)) +
                                                           " is not inside one segment"};
    }
  }
  return std::nullopt;
}

std::optional<Violation> validateProgram(const Program& program) {
  if (auto v = validateStructure(program)) return v;
  const Profile& prof = profile(program.profile);
  for (const Instruction& ins : program.instructions) {
    if (auto v = validate(prof, ins)) return v;
  }
  std::array<std::optional<FMatrix>, 2> fmatrix;  // FMATRIX, FMATRIX_B
  bool padding = false;                           // PADDING written
  // Spec 6.2: a register the program never wrote is read as an error (UndefinedMemory), what
  // it held before the program being no part of it; then the feature map it describes.
  auto featureMap = [&](bool right, DType t, std::uint64_t src,
                        const LoadData3DParamsV2& p) -> std::optional<Violation> {
    const std::optional<FMatrix>& fm = fmatrix[right ? 1 : 0];
    if (!fm) {
      return Violation{
          ViolationCode::UndefinedMemory,
          std::string(right ? "FMATRIX_B" : "FMATRIX") + " is read before the program writes it"};
    }
    if (!padding) {
      return Violation{ViolationCode::UndefinedMemory,
                       "PADDING is read before the program writes it"};
    }
    return validateFeatureMap(prof, *fm, t, src, p);
  };
  for (const Instruction& ins : program.instructions) {
    std::optional<Violation> v;
    if (const auto* s = std::get_if<SetFmatrix>(&ins)) {
      fmatrix[s->right ? 1 : 0] = s->value;
    } else if (std::holds_alternative<SetPadding>(ins)) {
      padding = true;
    } else if (const auto* l = std::get_if<Load3DV2>(&ins)) {
      const LoadData3DParamsV2& p = l->params;
      if (l->reset.isSetFMatrix) fmatrix[0] = FMatrix{p.l1H, p.l1W, p.padList};  // spec 6.2
      padding = padding || l->reset.isSetPadding;
      v = featureMap(p.fMatrixCtrl, l->dtype, l->srcAddr, p);
    } else if (const auto* pro = std::get_if<Load3DV2Pro>(&ins)) {
      v = featureMap(pro->params.fMatrixCtrl, pro->dtype, pro->srcAddr, unpackV2Pro(pro->params));
    }
    if (v) return v;
  }
  return std::nullopt;
}

}  // namespace cubecheck::isa
