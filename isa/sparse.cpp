#include "isa/sparse.hpp"

#include <sstream>

namespace cubecheck::isa {
namespace {

std::optional<Violation> aligned(Memory m, std::uint64_t addr, std::uint64_t align,
                                 const char* what) {
  if (addr % align == 0) return std::nullopt;
  std::ostringstream os;
  os << what << " 0x" << std::hex << addr << std::dec << " in " << nameOf(m) << " is not " << align
     << "-byte aligned";
  return Violation{ViolationCode::Alignment, os.str()};
}

std::optional<Violation> fits(const Profile& prof, Memory m, std::uint64_t end, const char* what) {
  if (end <= prof.capacityOf(m)) return std::nullopt;
  std::ostringstream os;
  os << what << " ends at 0x" << std::hex << end << std::dec << ", past the " << prof.capacityOf(m)
     << "-byte " << nameOf(m);
  return Violation{ViolationCode::Capacity, os.str()};
}

std::optional<Violation> notOnProfile(const Profile& prof, std::string_view what) {
  if (hasSparse(prof.id)) return std::nullopt;
  return Violation{ViolationCode::PathUnsupported,
                   std::string(what) + " does not exist on profile " + std::string(prof.name) +
                       " (spec 1: 2:4 sparsity is a2 only)"};
}

}  // namespace

std::optional<Violation> validate(const Profile& prof, const LoadSparse& l) {
  if (auto v = notOnProfile(prof, "LoadDataWithSparse")) return v;
  if (l.dtype != DType::S8) {
    return Violation{ViolationCode::DTypeUnsupported,
                     "LoadDataWithSparse moves int8 only, not " + std::string(nameOf(l.dtype))};
  }
  if (l.params.ifTranspose) {
    return Violation{ViolationCode::TransposePath,
                     "LoadDataWithSparse does not transpose (the LoadDataWithSparse page)"};
  }
  if (auto v = aligned(Memory::L1, l.srcAddr, 32, "src")) return v;
  if (auto v = aligned(Memory::L1, l.idxAddr, 32, "idx")) return v;
  if (auto v = aligned(Memory::L0B, l.dstAddr, 512, "dst")) return v;
  if (l.params.repeatTimes == 0) return std::nullopt;
  const std::uint64_t last = std::uint64_t{l.params.startIndex} + l.params.repeatTimes;
  if (auto v = fits(prof, Memory::L1, l.srcAddr + last * kFractalBytes, "dense source")) return v;
  if (auto v = fits(prof, Memory::L1, l.idxAddr + last * kIndexFractalBytes, "index source")) {
    return v;
  }
  const std::uint64_t dstEnd = l.dstAddr + l.params.repeatTimes * kFractalBytes;
  if (auto v = fits(prof, Memory::L0B, dstEnd, "destination")) return v;
  return fits(prof, Memory::SparseIndex, dstEnd / 4, "index-buffer destination");
}

std::optional<Violation> validate(const Profile& prof, const MmadSparse& x) {
  if (auto v = notOnProfile(prof, "MmadWithSparse")) return v;
  if (x.dtype != DType::S8) {
    return Violation{ViolationCode::DTypeUnsupported,
                     "MmadWithSparse multiplies int8 only, not " + std::string(nameOf(x.dtype))};
  }
  for (auto [v, name] : {std::pair{x.m, "m"}, std::pair{x.k, "k"}, std::pair{x.n, "n"}}) {
    if (v > 4095) {
      return Violation{ViolationCode::Range,
                       std::string(name) + " = " + std::to_string(v) + " is outside [0, 4095]"};
    }
  }
  if (x.m == 1) {
    return Violation{ViolationCode::Range, "m = 1 (GEMV) is not supported by MmadWithSparse"};
  }
  if (x.unitFlag == 1 || x.unitFlag > 3) {
    return Violation{ViolationCode::Range,
                     "unit_flag " + std::to_string(x.unitFlag) + " is not 0, 2 or 3"};
  }
  if (auto v = aligned(Memory::L0C, x.cAddr, 1024, "c")) return v;
  if (auto v = aligned(Memory::L0A, x.aAddr, 512, "a")) return v;
  if (auto v = aligned(Memory::L0B, x.bAddr, 512, "b")) return v;
  if (x.m == 0 || x.k == 0 || x.n == 0) return std::nullopt;  // a no-op touches nothing
  if (x.k % 4 != 0) {
    // Groups of four along K: a partial group has no documented encoding.
    return Violation{ViolationCode::Range, "k = " + std::to_string(x.k) +
                                               " is not a multiple of 4 (2:4 groups, spec 7.2)"};
  }
  const std::uint64_t m1 = ceilDiv(x.m, 16), n1 = ceilDiv(x.n, 16);
  if (auto v = fits(prof, Memory::L0A, x.aAddr + m1 * ceilDiv(x.k, 32) * kFractalBytes, "A"))
    return v;
  if (auto v =
          fits(prof, Memory::L0B, x.bAddr + ceilDiv(x.k, 64) * n1 * kFractalBytes, "dense B")) {
    return v;
  }
  if (auto v = fits(prof, Memory::L0C, x.cAddr + m1 * n1 * 1024, "C")) return v;
  if (!x.cmatrixInitVal && x.cmatrixSource) {
    // OPEN-6: the bias row is read from bias-table address 0.
    if (auto v = fits(prof, Memory::BiasTable, std::uint64_t{x.n} * 4, "bias row")) return v;
  }
  return std::nullopt;
}

std::string describe(const LoadSparse& l) {
  std::ostringstream os;
  os << "LoadDataWithSparse src=0x" << std::hex << l.srcAddr << " idx=0x" << l.idxAddr << " dst=0x"
     << l.dstAddr << std::dec << " start_index=" << l.params.startIndex
     << " repeat_times=" << int{l.params.repeatTimes};
  if (l.params.srcStride != 0 || l.params.dstGap != 0 || l.params.addrMode != 0 ||
      l.params.sid != 0) {
    os << " (ignored: src_stride=" << l.params.srcStride << " dst_gap=" << l.params.dstGap
       << " addr_mode=" << int{l.params.addrMode} << " sid=" << int{l.params.sid} << ")";
  }
  if (l.params.ifTranspose) os << " if_transpose=1";
  if (l.dtype != DType::S8) os << " dtype=" << nameOf(l.dtype);
  return os.str();
}

std::string describe(const MmadSparse& x) {
  std::ostringstream os;
  os << "MmadWithSparse c=0x" << std::hex << x.cAddr << " a=0x" << x.aAddr << " b=0x" << x.bAddr
     << std::dec << " m=" << x.m << " k=" << x.k << " n=" << x.n << " unit_flag=" << int{x.unitFlag}
     << " cmatrix_source=" << x.cmatrixSource << " cmatrix_init_val=" << x.cmatrixInitVal;
  if (x.dtype != DType::S8) os << " dtype=" << nameOf(x.dtype);
  return os.str();
}

}  // namespace cubecheck::isa
