#include "isa/program.hpp"

#include <algorithm>

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

}  // namespace cubecheck::isa
