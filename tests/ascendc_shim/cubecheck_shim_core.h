// A CPU shim of the Ascend C API subset the exported board kernel uses: A TEST FIXTURE of
// cubecheck, never a device under test and never a model of the hardware.
//
// It lets tests/ascendc_export_test.sh compile the project `cubecheck vectors export-ascendc`
// writes with the machine's C++ compiler and run it without the vendor toolchain or a board. Each
// cube instruction call builds a one-instruction isa::Program (the shim's current L1, L0A, L0B,
// L0C, bias-table and index-buffer bytes as its segments, the registers set so far in front) and
// runs it on cubecheck's reference model, or on the DUT CUBECHECK_SHIM_DUT names
// (e.g. mutant:load2d-dst-gap-ignored); data movement (DataCopy, Fixpipe, asc_copy_l12l0c) is a
// plain byte copy with the units the API pages give. What this proves and what it does not:
// docs/hardware.md, "What the CPU shim proves".
//
// The architecture is the build's CCK_NPU_ARCH (2201: profile a2, 3510: profile 950).
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dut_adapters/registry.hpp"
#include "isa/program.hpp"

namespace cubecheck_shim {

namespace isa = cubecheck::isa;

#if defined(CCK_NPU_ARCH) && (CCK_NPU_ARCH == 3510)
inline constexpr isa::ProfileId kProfile = isa::ProfileId::Ascend950;
#else
inline constexpr isa::ProfileId kProfile = isa::ProfileId::A2;
#endif

/// One AI Core's cube-side memories and registers, and the "device" memory of the ACL shim.
struct Core {
  std::array<isa::Bytes, isa::kMemoryCount> mem;  ///< by isa::Memory; GM unused
  std::array<std::optional<isa::FMatrix>, 2> fmatrix;
  std::optional<isa::SetPadding> padding;
  isa::SetHF32 hf32;
  bool hif8 = false;
  std::uint16_t repeatDstStride = 0;  ///< SetLoadDataRepeat's dstStride (dav-3510)
  std::unique_ptr<cubecheck::dut::Dut> dut;
  std::string dutSpec;
  std::string error;  ///< the first failure of the current launch
  std::uint32_t launches = 0;
  std::map<std::uintptr_t, std::size_t> allocations;  ///< aclrtMalloc'd blocks by address

  Core() {
    const char* spec = std::getenv("CUBECHECK_SHIM_DUT");
    dutSpec = spec != nullptr && *spec != '\0' ? spec : "reference";
    dut = cubecheck::dut::makeDut(dutSpec);
    for (int m = 1; m < isa::kMemoryCount; ++m) {
      mem[static_cast<std::size_t>(m)].assign(
          isa::profile(kProfile).capacityOf(static_cast<isa::Memory>(m)), 0);
    }
  }

  isa::Bytes& bytes(isa::Memory m) { return mem[static_cast<std::size_t>(m)]; }
};

inline Core& core() {
  static Core c;
  return c;
}

/// Records the first failure of a launch; the ACL shim's stream synchronisation reports it.
inline void fail(const std::string& what) {
  Core& c = core();
  if (c.error.empty()) c.error = what;
}

/// Runs the kernel body as a function: one block. A board's memories hold whatever a previous
/// launch left, so every launch starts from a scramble and from registers nobody set.
inline void launch(const std::function<void()>& kernel) {
  Core& c = core();
  ++c.launches;
  c.error.clear();
  std::uint32_t x = 0x9E3779B9u * c.launches;
  for (int m = 1; m < isa::kMemoryCount; ++m) {
    for (std::uint8_t& b : c.mem[static_cast<std::size_t>(m)]) {
      x = x * 1664525u + 1013904223u;
      b = static_cast<std::uint8_t>(x >> 24);
    }
  }
  c.fmatrix = {};
  c.padding.reset();
  c.hf32 = {};
  c.hif8 = false;
  c.repeatDstStride = 0;
  kernel();
}

/// The aclrtMalloc'd block holding [p, p + size): its base and size, or {nullptr, 0}.
inline std::pair<std::uint8_t*, std::size_t> allocationOf(const void* p, std::size_t size) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  auto& all = core().allocations;
  auto it = all.upper_bound(at);
  if (it == all.begin()) return {nullptr, 0};
  --it;
  if (at + size > it->first + it->second) return {nullptr, 0};
  return {reinterpret_cast<std::uint8_t*>(it->first), it->second};
}

/// A GM operand of an instruction: the allocation it lies in becomes the program's GM image.
struct GmOperand {
  const std::uint8_t* base = nullptr;
  std::size_t size = 0;
  std::uint64_t offset = 0;  ///< the operand's address inside the image
};

inline std::optional<GmOperand> gmOperand(const void* p) {
  const auto [base, size] = allocationOf(p, 1);
  if (base == nullptr) {
    fail("a GlobalTensor outside every aclrtMalloc'd block");
    return std::nullopt;
  }
  return GmOperand{base, size,
                   static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(p) - base)};
}

/// Runs one instruction on the DUT from the shim's state of `memories` (and GM), with the
/// registers set so far, and takes back the final bytes of those memories.
inline void execute(const isa::Instruction& ins, const std::vector<isa::Memory>& memories,
                    const std::optional<GmOperand>& gm = std::nullopt) {
  Core& c = core();
  if (!c.error.empty()) return;
  isa::Program p;
  p.profile = kProfile;
  for (std::size_t right = 0; right < 2; ++right) {
    if (c.fmatrix[right]) p.instructions.push_back(isa::SetFmatrix{right == 1, *c.fmatrix[right]});
  }
  if (c.padding) p.instructions.push_back(*c.padding);
  if (c.hf32.enable || c.hf32.transMode != 0) p.instructions.push_back(c.hf32);
  if (c.hif8) p.instructions.push_back(isa::SetHiF8Mode{true});
  p.instructions.push_back(ins);
  for (isa::Memory m : memories) {
    p.segments.push_back({m, 0, c.bytes(m)});
    p.observe.push_back({m, 0, c.bytes(m).size()});
  }
  if (gm) p.segments.push_back({isa::Memory::GM, 0, isa::Bytes(gm->base, gm->base + gm->size)});
  const cubecheck::dut::RunResult r = c.dut->run(p);
  if (r.status != cubecheck::dut::RunStatus::Ok) {
    std::string why = r.message;
    if (r.violation)
      why = std::string(isa::nameOf(r.violation->code)) + ": " + r.violation->message;
    fail(c.dutSpec + " refused " + isa::describe(ins) + ": " + why);
    return;
  }
  std::size_t k = 0;
  for (isa::Memory m : memories) c.bytes(m) = r.observed.at(k++);
}

/// Plain copies between the shim's memories and host ("device") memory.
inline std::uint8_t* local(isa::Memory m, std::uint64_t addr, std::uint64_t size) {
  isa::Bytes& b = core().bytes(m);
  if (addr > b.size() || size > b.size() - addr) {
    fail("a copy of " + std::to_string(size) + " bytes at " + std::to_string(addr) + " leaves " +
         std::string(isa::nameOf(m)));
    return nullptr;
  }
  return b.data() + addr;
}

inline bool checkedGm(const void* p, std::uint64_t size) {
  if (allocationOf(p, size).first == nullptr) {
    fail("a copy of " + std::to_string(size) + " bytes leaves its aclrtMalloc'd block");
    return false;
  }
  return true;
}

}  // namespace cubecheck_shim
