// The CPU shim's c_api/asc_simd.h: asc_copy_l12l0c only (L1 -> L0C, dav-2201), as a byte copy
// in the units of its API page. A TEST FIXTURE: see ../cubecheck_shim_core.h.
#pragma once

#include <cstdint>

#include "../cubecheck_shim_core.h"

/// n_burst bursts of len_burst 32-byte units; gaps in 32-byte units after each burst.
template <typename T>
inline void asc_copy_l12l0c(T* dst, T* src, std::uint16_t n_burst, std::uint16_t len_burst,
                            std::uint16_t src_gap, std::uint16_t dst_gap) {
  namespace shim = cubecheck_shim;
  static_assert(sizeof(T) == 4, "the shim copies 32-bit L1 -> L0C unchanged");
  if (shim::kProfile != shim::isa::ProfileId::A2) {
    return shim::fail("asc_copy_l12l0c: dav-2201 only");
  }
  auto& l1 = shim::core().bytes(shim::isa::Memory::L1);
  auto& l0c = shim::core().bytes(shim::isa::Memory::L0C);
  const auto* from = reinterpret_cast<const std::uint8_t*>(src);
  auto* to = reinterpret_cast<std::uint8_t*>(dst);
  for (std::uint64_t b = 0; b < n_burst; ++b) {
    const std::uint64_t s =
        static_cast<std::uint64_t>(from - l1.data()) + b * 32u * (len_burst + src_gap);
    const std::uint64_t d =
        static_cast<std::uint64_t>(to - l0c.data()) + b * 32u * (len_burst + dst_gap);
    const std::uint64_t n = 32u * len_burst;
    if (s + n > l1.size() || d + n > l0c.size()) return shim::fail("asc_copy_l12l0c out of range");
    std::memcpy(l0c.data() + d, l1.data() + s, n);
  }
}
