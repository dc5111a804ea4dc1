#include "isa/load_mx.hpp"

#include <sstream>
#include <tuple>

namespace cubecheck::isa {

namespace {

std::string_view callOf(const LoadMxScale& l) {
  return l.toL0B ? "asc_copy_l12l0b_mx" : "asc_copy_l12l0a_mx";
}

}  // namespace

std::optional<Violation> validate(const Profile& prof, const LoadMxScale& l) {
  if (prof.id != ProfileId::Ascend950) {
    return Violation{ViolationCode::PathUnsupported,
                     std::string(callOf(l)) + " exists on 950 only (the MX scale buffers)"};
  }
  for (auto [addr, m, what] :
       {std::tuple{l.srcAddr, Memory::L1, "src"}, std::tuple{l.dstAddr, mxBufferOf(l), "dst"}}) {
    if (addr % kMxScaleFractalBytes != 0) {
      return Violation{ViolationCode::Alignment,
                       std::string(callOf(l)) + " " + what + " " + std::to_string(addr) + " in " +
                           std::string(nameOf(m)) + " is not 32-byte aligned"};
    }
  }
  if (l.xStep == 0 || l.yStep == 0) return std::nullopt;  // copies nothing
  const std::uint64_t lastSrc =
      (std::uint64_t{l.xStart} + l.xStep - 1) * l.srcStride + l.yStart + l.yStep - 1;
  const std::uint64_t srcEnd = l.srcAddr + (lastSrc + 1) * kMxScaleFractalBytes;
  const std::uint64_t dstEnd =
      l.dstAddr + ((std::uint64_t{l.xStep} - 1) * l.dstStride + l.yStep) * kMxScaleFractalBytes;
  for (auto [end, m, what] : {std::tuple{srcEnd, Memory::L1, "source"},
                              std::tuple{dstEnd, mxBufferOf(l), "destination"}}) {
    if (end > prof.capacityOf(m)) {
      return Violation{ViolationCode::Capacity, std::string(callOf(l)) + " " + what + " ends at " +
                                                    std::to_string(end) + ", past the " +
                                                    std::to_string(prof.capacityOf(m)) + "-byte " +
                                                    std::string(nameOf(m))};
    }
  }
  return std::nullopt;
}

std::string describe(const LoadMxScale& l) {
  std::ostringstream os;
  os << callOf(l) << " src=" << l.srcAddr << " dst=" << l.dstAddr << " (" << nameOf(mxBufferOf(l))
     << ") x_start=" << l.xStart << " y_start=" << l.yStart << " x_step=" << int{l.xStep}
     << " y_step=" << int{l.yStep} << " src_stride=" << l.srcStride
     << " dst_stride=" << l.dstStride;
  return os.str();
}

}  // namespace cubecheck::isa
