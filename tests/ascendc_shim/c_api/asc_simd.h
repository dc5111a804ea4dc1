// The CPU shim's c_api/asc_simd.h: asc_copy_l12l0c (L1 -> L0C, dav-2201) as a byte copy in the
// units of its API page; the MX scale loads asc_copy_l12l0a_mx / asc_copy_l12l0b_mx and
// asc_mmad_mx (dav-3510) run on the shim's DUT like every cube call. A TEST FIXTURE: see
// ../cubecheck_shim_core.h.
#pragma once

#include <cstdint>

#include "../cubecheck_shim_core.h"
#include "../kernel_operator.h"

#define __ca__
#define __cb__

/// The E8M0 scale type: a bit pattern.
struct fp8_e8m0_t {
  std::uint8_t bits;
};

enum class asc_unit_flag_mode { DISABLE, ENABLE_KEEP, ENABLE_UPDATE };

namespace cubecheck_shim {

/// The byte address inside memory m of a pointer the kernel made from one of its tensors, or
/// nullopt (after failing the launch) when it lies outside m.
inline std::optional<std::uint64_t> addressIn(isa::Memory m, const void* p, const char* what) {
  const isa::Bytes& b = core().bytes(m);
  const auto* at = static_cast<const std::uint8_t*>(p);
  if (at < b.data() || at >= b.data() + b.size()) {
    fail(std::string(what) + " does not point into " + std::string(isa::nameOf(m)));
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(at - b.data());
}

/// The MX scale loads: `dst` is the L0A (L0B) address / 16, as the API page says, here the host
/// address of the shim's L0A (L0B) byte divided by 16, so the scale buffer byte is its offset / 16.
inline void mxScaleLoad(bool toL0B, std::uint64_t dst, const fp8_e8m0_t* src, std::uint16_t xStart,
                        std::uint16_t yStart, std::uint8_t xStep, std::uint8_t yStep,
                        std::uint16_t srcStride, std::uint16_t dstStride) {
  if (kProfile != isa::ProfileId::Ascend950) return fail("asc_copy_l12l0a_mx: dav-3510 only");
  const isa::Memory l0 = toL0B ? isa::Memory::L0B : isa::Memory::L0A;
  if (reinterpret_cast<std::uintptr_t>(core().bytes(l0).data()) % 16 != 0) {
    return fail("the shim's L0A/L0B storage is not 16-byte aligned: dst / 16 cannot name it");
  }
  const auto l0Addr = addressIn(l0, reinterpret_cast<const void*>(dst * 16), "MX scale dst * 16");
  const auto l1Addr = addressIn(isa::Memory::L1, src, "MX scale src");
  if (!l0Addr || !l1Addr) return;
  isa::LoadMxScale x;
  x.toL0B = toL0B;
  x.srcAddr = *l1Addr;
  x.dstAddr = *l0Addr / 16;
  x.xStart = xStart;
  x.yStart = yStart;
  x.xStep = xStep;
  x.yStep = yStep;
  x.srcStride = srcStride;
  x.dstStride = dstStride;
  execute(x, {isa::Memory::L1, toL0B ? isa::Memory::L0BMx : isa::Memory::L0AMx});
}

/// asc_mmad_mx, both overloads: `bias` set for the one that takes a bias-table address.
template <typename A, typename B>
void mmadMx(float* c, A* a, B* b, std::optional<std::uint64_t> bias, std::uint16_t m,
            std::uint16_t k, std::uint16_t n, asc_unit_flag_mode unit, bool disableGemv,
            bool cmatrixSource, bool cmatrixInitVal) {
  if (kProfile != isa::ProfileId::Ascend950) return fail("asc_mmad_mx: dav-3510 only");
  if (!disableGemv) return fail("asc_mmad_mx: the shim has no MX GEMV form");
  const auto cAddr = addressIn(isa::Memory::L0C, c, "asc_mmad_mx c_matrix");
  const auto aAddr = addressIn(isa::Memory::L0A, a, "asc_mmad_mx a_matrix");
  const auto bAddr = addressIn(isa::Memory::L0B, b, "asc_mmad_mx b_matrix");
  std::optional<std::uint64_t> biasAddr;
  if (bias) {
    biasAddr =
        addressIn(isa::Memory::BiasTable, reinterpret_cast<const void*>(*bias), "asc_mmad_mx bias");
    if (!biasAddr) return;
  }
  if (!cAddr || !aAddr || !bAddr) return;
  isa::MmadMx x;
  x.dtype = AscendC::detail::dtypeOf<A>();
  if (AscendC::detail::dtypeOf<B>() != x.dtype) x.bDtype = AscendC::detail::dtypeOf<B>();
  x.cAddr = *cAddr;
  x.aAddr = *aAddr;
  x.bAddr = *bAddr;
  x.m = m;
  x.k = k;
  x.n = n;
  x.unitFlag = unit == asc_unit_flag_mode::ENABLE_KEEP     ? 2
               : unit == asc_unit_flag_mode::ENABLE_UPDATE ? 3
                                                           : 0;
  x.cmatrixSource = cmatrixSource;
  x.cmatrixInitVal = cmatrixInitVal;
  x.isBias = biasAddr.has_value();
  x.biasAddr = biasAddr.value_or(0);
  execute(x, {isa::Memory::L0A, isa::Memory::L0B, isa::Memory::L0C, isa::Memory::BiasTable,
              isa::Memory::L0AMx, isa::Memory::L0BMx});
}

}  // namespace cubecheck_shim

inline void asc_copy_l12l0a_mx(std::uint64_t dst, fp8_e8m0_t* src, std::uint16_t x_start_pos,
                               std::uint16_t y_start_pos, std::uint8_t x_step, std::uint8_t y_step,
                               std::uint16_t src_stride, std::uint16_t dst_stride) {
  cubecheck_shim::mxScaleLoad(false, dst, src, x_start_pos, y_start_pos, x_step, y_step, src_stride,
                              dst_stride);
}

inline void asc_copy_l12l0b_mx(std::uint64_t dst, fp8_e8m0_t* src, std::uint16_t x_start_pos,
                               std::uint16_t y_start_pos, std::uint8_t x_step, std::uint8_t y_step,
                               std::uint16_t src_stride, std::uint16_t dst_stride) {
  cubecheck_shim::mxScaleLoad(true, dst, src, x_start_pos, y_start_pos, x_step, y_step, src_stride,
                              dst_stride);
}

template <typename A, typename B>
inline void asc_mmad_mx(float* c_matrix, A* a_matrix, B* b_matrix, std::uint16_t m, std::uint16_t k,
                        std::uint16_t n, asc_unit_flag_mode unit_flag_mode, bool disable_gemv,
                        bool c_matrix_source, bool c_matrix_init_val) {
  cubecheck_shim::mmadMx(c_matrix, a_matrix, b_matrix, std::nullopt, m, k, n, unit_flag_mode,
                         disable_gemv, c_matrix_source, c_matrix_init_val);
}

template <typename A, typename B>
inline void asc_mmad_mx(float* c_matrix, A* a_matrix, B* b_matrix, std::uint64_t bias,
                        std::uint16_t m, std::uint16_t k, std::uint16_t n,
                        asc_unit_flag_mode unit_flag_mode, bool disable_gemv) {
  cubecheck_shim::mmadMx(c_matrix, a_matrix, b_matrix, bias, m, k, n, unit_flag_mode, disable_gemv,
                         false, false);
}

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
