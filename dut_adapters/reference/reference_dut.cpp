#include "dut_adapters/reference/reference_dut.hpp"

#include <array>
#include <cstring>
#include <exception>
#include <variant>

namespace cubecheck::dut {
namespace {

using isa::Memory;
using isa::ViolationCode;

constexpr std::uint64_t kFractal = 512;  // bytes moved per repeat (spec 4)

/// Mutable copies of the program's segments: the reference's whole machine state.
class State {
 public:
  explicit State(const std::vector<isa::Segment>& segments) : segments_(segments) {}

  /// Pointer to len bytes at addr, or nullptr when no single segment holds them.
  std::uint8_t* at(Memory m, std::uint64_t addr, std::uint64_t len) {
    isa::Segment* s = isa::findSegment(segments_, m, addr, len);
    return s == nullptr ? nullptr : s->bytes.data() + (addr - s->addr);
  }

 private:
  std::vector<isa::Segment> segments_;
};

isa::Violation undefined(Memory m, std::uint64_t addr, std::uint64_t len, const char* what) {
  return {ViolationCode::UndefinedMemory,
          std::string(what) + " " + std::to_string(len) + " bytes at " + std::to_string(addr) +
              " in " + std::string(isa::nameOf(m)) + ": the program defines no such bytes"};
}

/// Spec 4, for one LoadData2DParams instruction. Returns a violation instead of executing when a
/// byte it must touch is not defined by the program.
std::optional<isa::Violation> execLoad2D(State& state, const isa::Load2D& load, Fault fault) {
  const isa::LoadData2DParams& p = load.params;
  const Memory src = isa::memoryOf(isa::srcOf(load.path));
  const Memory dst = isa::memoryOf(isa::dstOf(load.path));
  bool decrement = p.addrMode == 1 && isa::honoursAddrMode(load.path);
  if (fault == Fault::Load2DAddrModeIgnored) decrement = false;
  if (fault == Fault::Load2DAddrModeEverywhere) decrement = p.addrMode == 1;

  std::uint64_t dstStepFractals = std::uint64_t{p.dstGap} + 1;
  if (fault == Fault::Load2DDstGapIgnored) dstStepFractals = 1;
  if (fault == Fault::Load2DSrcStrideOnDst) dstStepFractals = p.srcStride;
  if (fault == Fault::Load2DDstGapStartToStart) dstStepFractals = p.dstGap;

  unsigned repeats = p.repeatTimes;
  if (fault == Fault::Load2DRepeatZeroAsOne && repeats == 0) repeats = 1;
  if (fault == Fault::Load2DLastRepeatDropped && repeats > 0) repeats -= 1;

  std::array<std::uint8_t, kFractal> buf{};
  for (unsigned i = 0; i < repeats; ++i) {
    const std::uint64_t walk = std::uint64_t{i} * p.srcStride;
    // A decrement below fractal 0 is rejected by validation; the mutant that decrements on
    // every path may still get here, and then reads below the source base.
    const std::uint64_t srcByte = decrement ? load.srcAddr + (p.startIndex - walk) * kFractal
                                            : load.srcAddr + (p.startIndex + walk) * kFractal;
    const std::uint64_t dstByte = load.dstAddr + i * dstStepFractals * kFractal;
    const std::uint8_t* from = state.at(src, srcByte, kFractal);
    if (from == nullptr) return undefined(src, srcByte, kFractal, "reads");
    if (!p.ifTranspose) {
      std::memcpy(buf.data(), from, kFractal);
    } else {
      // 16x16 two-byte elements: dst[r*16+c] = src[c*16+r] (spec 4).
      for (int r = 0; r < 16; ++r) {
        for (int c = 0; c < 16; ++c) {
          const int from16 =
              fault == Fault::Load2DTransposeAntiDiagonal ? (15 - c) * 16 + (15 - r) : c * 16 + r;
          std::memcpy(&buf[(r * 16 + c) * 2], from + from16 * 2, 2);
        }
      }
    }
    const bool stray = fault == Fault::Load2DStrayWriteAfterLast && i + 1 == repeats;
    std::uint8_t* to = state.at(dst, dstByte, kFractal + (stray ? 1 : 0));
    if (to == nullptr) return undefined(dst, dstByte, kFractal, "writes");
    std::memcpy(to, buf.data(), kFractal);
    if (stray) to[kFractal] ^= 0xFF;
  }
  return std::nullopt;
}

std::optional<isa::Violation> checkLegal(const isa::Profile& prof, const isa::Instruction& ins,
                                         Fault fault) {
  return std::visit(
      [&](const isa::Load2D& load) -> std::optional<isa::Violation> {
        auto v = isa::validate(prof, load);
        if (v && fault == Fault::Load2DTransposeAnyType &&
            v->code == ViolationCode::TransposeType) {
          return std::nullopt;
        }
        return v;
      },
      ins);
}

}  // namespace

ReferenceDut::ReferenceDut(Fault fault) : fault_(fault) {
  caps_.name = "reference";
  caps_.version = "cubecheck reference model 0.1";
  caps_.profiles = {isa::kAllProfiles.begin(), isa::kAllProfiles.end()};
  caps_.instructions = {std::string(isa::Load2D::kOpcode)};
  caps_.dtypes = {isa::kAllDTypes.begin(), isa::kAllDTypes.end()};
  caps_.observable = {Memory::GM,  Memory::L1,        Memory::L0A,        Memory::L0B,
                      Memory::L0C, Memory::BiasTable, Memory::SparseIndex};
  caps_.rejectsIllegal = true;
}

RunResult ReferenceDut::run(const isa::Program& program) {
  try {
    if (auto v = isa::validateStructure(program)) return RunResult::rejected(*v);
    const isa::Profile& prof = isa::profile(program.profile);
    // Every instruction is checked before any runs: an illegal program is never executed.
    for (const isa::Instruction& ins : program.instructions) {
      if (auto v = checkLegal(prof, ins, fault_)) return RunResult::rejected(*v);
    }
    State state(program.segments);
    for (const isa::Instruction& ins : program.instructions) {
      auto v =
          std::visit([&](const isa::Load2D& load) { return execLoad2D(state, load, fault_); }, ins);
      if (v) return RunResult::rejected(*v);
    }
    isa::Observed observed;
    observed.reserve(program.observe.size());
    for (const isa::Region& r : program.observe) {
      const std::uint8_t* p = state.at(r.memory, r.addr, r.size);
      observed.emplace_back(p, p + r.size);  // validateStructure guarantees p
    }
    return RunResult::ok(std::move(observed));
  } catch (const std::exception& e) {
    return {RunStatus::AdapterError, {}, std::nullopt, std::string("reference threw: ") + e.what()};
  }
}

}  // namespace cubecheck::dut
