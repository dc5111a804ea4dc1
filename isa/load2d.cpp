#include "isa/load2d.hpp"

#include <sstream>

namespace cubecheck::isa {
namespace {

std::string hex(std::uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

}  // namespace

bool hasPath(ProfileId profile, Load2DPath p) {
  if (profile == ProfileId::Ascend950) return p == Load2DPath::A1toA2 || p == Load2DPath::B1toB2;
  return true;
}

std::string_view nameOf(Load2DPath p) {
  switch (p) {
    case Load2DPath::GMtoA1:
      return "GMtoA1";
    case Load2DPath::GMtoB1:
      return "GMtoB1";
    case Load2DPath::GMtoA2:
      return "GMtoA2";
    case Load2DPath::GMtoB2:
      return "GMtoB2";
    case Load2DPath::A1toA2:
      return "A1toA2";
    case Load2DPath::B1toB2:
      return "B1toB2";
  }
  return "?";
}

std::optional<Load2DPath> parseLoad2DPath(std::string_view name) {
  for (Load2DPath p : kAllLoad2DPaths) {
    if (nameOf(p) == name) return p;
  }
  return std::nullopt;
}

std::optional<Violation> validate(const Profile& profile, const Load2D& load) {
  const LoadData2DParams& p = load.params;
  const Memory src = memoryOf(srcOf(load.path));
  const Memory dst = memoryOf(dstOf(load.path));
  if (!hasPath(profile.id, load.path)) {
    return Violation{ViolationCode::PathUnsupported,
                     "LoadData2DParams path " + std::string(nameOf(load.path)) +
                         " does not exist on profile " + std::string(profile.name)};
  }
  if (!profile.hasDType(load.dtype)) {
    return Violation{ViolationCode::DTypeUnsupported,
                     "data type " + std::string(nameOf(load.dtype)) +
                         " does not exist on profile " + std::string(profile.name)};
  }
  if (p.addrMode > 1) {
    return Violation{ViolationCode::Range,
                     "addr_mode " + std::to_string(p.addrMode) + " is neither 0 nor 1"};
  }
  if (p.ifTranspose && !canTranspose(load.path)) {
    return Violation{ViolationCode::TransposePath,
                     "if_transpose on " + std::string(nameOf(load.path)) +
                         ": only A1->A2 and B1->B2 transpose (spec 4)"};
  }
  if (p.ifTranspose && bitsOf(load.dtype) != 16) {
    return Violation{ViolationCode::TransposeType, "if_transpose of " +
                                                       std::string(nameOf(load.dtype)) +
                                                       ": only 16-bit types transpose (spec 4)"};
  }
  if (load.srcAddr % profile.alignmentOf(src) != 0) {
    return Violation{ViolationCode::Alignment,
                     "src " + hex(load.srcAddr) + " in " + std::string(nameOf(src)) + " is not " +
                         std::to_string(profile.alignmentOf(src)) + "-byte aligned"};
  }
  if (load.dstAddr % profile.alignmentOf(dst) != 0) {
    return Violation{ViolationCode::Alignment,
                     "dst " + hex(load.dstAddr) + " in " + std::string(nameOf(dst)) + " is not " +
                         std::to_string(profile.alignmentOf(dst)) + "-byte aligned"};
  }
  if (p.repeatTimes == 0) return std::nullopt;  // a no-op touches nothing

  const std::uint64_t last = p.repeatTimes - 1u;
  const std::uint64_t walk = last * p.srcStride;  // fractals between first and last source
  const bool decrement = p.addrMode == 1 && honoursAddrMode(load.path);
  if (decrement && walk > p.startIndex) {
    return Violation{ViolationCode::DecrementUnderflow,
                     "addr_mode 1 from start_index " + std::to_string(p.startIndex) + " by " +
                         std::to_string(p.srcStride) + " for " + std::to_string(p.repeatTimes) +
                         " repeats reaches fractal -" + std::to_string(walk - p.startIndex)};
  }
  const std::uint64_t srcTopFractal = decrement ? p.startIndex : p.startIndex + walk;
  const std::uint64_t srcEnd = load.srcAddr + (srcTopFractal + 1) * kFractalBytes;
  if (srcEnd > profile.capacityOf(src)) {
    return Violation{ViolationCode::Capacity, "source ends at " + hex(srcEnd) + ", past the " +
                                                  std::to_string(profile.capacityOf(src)) +
                                                  "-byte " + std::string(nameOf(src))};
  }
  const std::uint64_t dstEnd = load.dstAddr + (last * (p.dstGap + 1u) + 1) * kFractalBytes;
  if (dstEnd > profile.capacityOf(dst)) {
    return Violation{ViolationCode::Capacity, "destination ends at " + hex(dstEnd) + ", past the " +
                                                  std::to_string(profile.capacityOf(dst)) +
                                                  "-byte " + std::string(nameOf(dst))};
  }
  return std::nullopt;
}

std::string describe(const Load2D& load) {
  const LoadData2DParams& p = load.params;
  std::ostringstream os;
  os << "LoadData2D " << nameOf(load.path) << ' ' << nameOf(load.dtype)
     << " src=" << hex(load.srcAddr) << " dst=" << hex(load.dstAddr)
     << " start_index=" << p.startIndex << " repeat_times=" << int{p.repeatTimes}
     << " src_stride=" << p.srcStride << " sid=" << int{p.sid} << " dst_gap=" << p.dstGap
     << " if_transpose=" << (p.ifTranspose ? 1 : 0) << " addr_mode=" << int{p.addrMode};
  return os.str();
}

}  // namespace cubecheck::isa
