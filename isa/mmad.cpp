#include "isa/mmad.hpp"

#include <sstream>
#include <tuple>

#include "isa/memory.hpp"

namespace cubecheck::isa {
namespace {

std::optional<Violation> fits(const Profile& profile, Memory mem, std::uint64_t addr,
                              std::uint64_t bytes, const char* what) {
  const std::uint64_t align = profile.alignmentOf(mem);
  if (align > 1 && addr % align != 0) {
    return Violation{ViolationCode::Alignment, std::string(what) + " " + std::to_string(addr) +
                                                   " not " + std::to_string(align) + "-B aligned"};
  }
  if (addr > profile.capacityOf(mem) || bytes > profile.capacityOf(mem) - addr) {
    return Violation{ViolationCode::Capacity, std::string(what) + " " + std::to_string(bytes) +
                                                  " bytes at " + std::to_string(addr) +
                                                  " end past " + std::string(nameOf(mem))};
  }
  return std::nullopt;
}

}  // namespace

MmadInit initOf(const Mmad& x) {
  if (x.isBias) return MmadInit::BiasTensor;
  if (x.cmatrixInitVal) return MmadInit::Zero;
  return x.cmatrixSource ? MmadInit::BiasTable : MmadInit::Accumulate;
}

namespace {
/// The f32 (s32) bias row of n elements inside the bias table, when the init reads it.
std::optional<Violation> biasFits(const Profile& profile, const Mmad& x) {
  const MmadInit init = initOf(x);
  if (init != MmadInit::BiasTensor && init != MmadInit::BiasTable) return std::nullopt;
  const std::uint64_t at = init == MmadInit::BiasTensor ? x.biasAddr : 0;  // OPEN-6
  return fits(profile, Memory::BiasTable, at, std::uint64_t{x.n} * 4, "bias");
}
}  // namespace

std::string_view nameOf(MmadInit i) {
  switch (i) {
    case MmadInit::Zero:
      return "zero";
    case MmadInit::Accumulate:
      return "accumulate";
    case MmadInit::BiasTable:
      return "bias_table";
    case MmadInit::BiasTensor:
      return "bias_tensor";
  }
  return "?";
}

DType bTypeOf(const Mmad& x) {
  return x.bDtype.value_or(x.dtype);
}

bool isLowPrecisionMmadPair(DType a, DType b) {
  auto fp8 = [](DType t) { return t == DType::Fp8E4M3FN || t == DType::Fp8E5M2; };
  return (fp8(a) && fp8(b)) || (a == DType::HiF8 && b == DType::HiF8);
}

bool mmadHasDType(ProfileId profile, DType t) {
  if (t == DType::S4) return profile != ProfileId::Ascend950;  // spec 8.1.2
  return t == DType::S8 || t == DType::F16 || t == DType::BF16 || t == DType::F32;
}

DType accumulatorOf(DType t) {
  return t == DType::S8 || t == DType::S4 ? DType::S32 : DType::F32;
}

bool isGemv(ProfileId profile, const Mmad& x) {
  return x.m == 1 && (profile != ProfileId::Ascend950 || !x.disableGemv);
}

std::uint64_t mmadK0(DType t) {
  return static_cast<std::uint64_t>(c0Of(t));
}

std::uint64_t mmadARowFractals(ProfileId profile, const Mmad& x) {
  if (x.kDirectionAlign && x.dtype == DType::F32 && profile == ProfileId::A2) {
    return 2 * ceilDiv(x.k, 16);
  }
  return ceilDiv(x.k, mmadK0(x.dtype));
}

std::uint64_t mmadABytes(ProfileId profile, const Mmad& x) {
  if (isGemv(profile, x)) return ceilDiv(std::uint64_t{x.k} * bitsOf(x.dtype), 8);
  return ceilDiv(x.m, 16) * mmadARowFractals(profile, x) * 512;
}

std::uint64_t mmadBBytes(const Mmad& x) {
  return ceilDiv(x.k, mmadK0(x.dtype)) * ceilDiv(x.n, 16) * 512;
}

std::uint64_t mmadCBytes(const Mmad& x) {
  return ceilDiv(x.m, 16) * ceilDiv(x.n, 16) * 1024;
}

std::optional<Violation> validate(const Profile& profile, const Mmad& x) {
  if (x.dtype == DType::S4 && profile.id == ProfileId::Ascend950) {
    return Violation{ViolationCode::DTypeUnsupported,
                     "Mmad of s4 on 950: the 950 Cube has no s4 (spec 8.1.2)"};
  }
  const DType bType = bTypeOf(x);
  const bool lowPrecision =
      profile.id == ProfileId::Ascend950 && isLowPrecisionMmadPair(x.dtype, bType);  // spec 8.1.2
  if (!lowPrecision && bType != x.dtype) {
    return Violation{ViolationCode::DTypeUnsupported,
                     "Mmad of " + std::string(nameOf(x.dtype)) + " x " +
                         std::string(nameOf(bType)) +
                         ": mixed types only as fp8_e4m3fn/fp8_e5m2 pairs on 950 (spec 8.1.2)"};
  }
  if (!lowPrecision && (!profile.hasDType(x.dtype) || !mmadHasDType(profile.id, x.dtype))) {
    return Violation{ViolationCode::DTypeUnsupported,
                     "Mmad of " + std::string(nameOf(x.dtype)) +
                         ": s8, s4, f16, bf16 and f32; on 950 also the fp8 pairs and hif8 x hif8 "
                         "(spec 8.1.2; fp4 only through MmadMx)"};
  }
  if (x.m > 4095 || x.k > 4095 || x.n > 4095) {
    return Violation{ViolationCode::Range, "m/k/n " + std::to_string(x.m) + "/" +
                                               std::to_string(x.k) + "/" + std::to_string(x.n) +
                                               " above 4095"};
  }
  if (x.dtype == DType::S4 && x.k % 2 != 0) {
    return Violation{ViolationCode::Range, "s4 Mmad with odd k " + std::to_string(x.k)};
  }
  if (x.unitFlag != 0 && x.unitFlag != 2 && x.unitFlag != 3) {
    return Violation{ViolationCode::Range,
                     "unit_flag " + std::to_string(x.unitFlag) + " is not 0, 2 or 3"};
  }
  if (x.m == 0 || x.k == 0 || x.n == 0) return std::nullopt;  // a no-op touches nothing
  if (auto v = fits(profile, Memory::L0A, x.aAddr, mmadABytes(profile.id, x), "A")) return v;
  if (auto v = fits(profile, Memory::L0B, x.bAddr, mmadBBytes(x), "B")) return v;
  if (auto v = fits(profile, Memory::L0C, x.cAddr, mmadCBytes(x), "C")) return v;
  return biasFits(profile, x);
}

std::optional<Violation> validate(const Profile& profile, const SetHF32& x) {
  if (profile.id == ProfileId::Legacy) {
    return Violation{ViolationCode::PathUnsupported, "HF32 mode exists on a2 and 950 only"};
  }
  if (x.transMode > 1) {
    return Violation{ViolationCode::Range,
                     "HF32 trans mode " + std::to_string(x.transMode) + " is neither 0 nor 1"};
  }
  return std::nullopt;
}

std::string describe(const Mmad& x) {
  std::ostringstream os;
  os << "Mmad " << nameOf(x.dtype) << " c=" << x.cAddr << " a=" << x.aAddr << " b=" << x.bAddr
     << " m=" << x.m << " k=" << x.k << " n=" << x.n << " unit_flag=" << int{x.unitFlag}
     << " k_direction_align=" << x.kDirectionAlign << " cmatrix_source=" << x.cmatrixSource
     << " cmatrix_init_val=" << x.cmatrixInitVal << " is_bias=" << x.isBias
     << " bias=" << x.biasAddr << " disable_gemv=" << x.disableGemv;
  if (x.bDtype) os << " b_dtype=" << nameOf(*x.bDtype);
  return os.str();
}

DType bTypeOf(const MmadMx& x) {
  return x.bDtype.value_or(x.dtype);
}

MmadInit initOf(const MmadMx& x) {
  return initOf(operandsOf(x));
}

Mmad operandsOf(const MmadMx& x) {
  Mmad p;
  p.dtype = x.dtype;
  p.bDtype = x.bDtype;
  p.cAddr = x.cAddr;
  p.aAddr = x.aAddr;
  p.bAddr = x.bAddr;
  p.m = x.m;
  p.k = x.k;
  p.n = x.n;
  p.unitFlag = x.unitFlag;
  p.cmatrixSource = x.cmatrixSource;
  p.cmatrixInitVal = x.cmatrixInitVal;
  p.isBias = x.isBias;
  p.biasAddr = x.biasAddr;
  p.disableGemv = true;  // OPEN-19: MX has no documented GEMV form
  return p;
}

bool isMxPair(DType a, DType b) {
  auto fp8 = [](DType t) { return t == DType::Fp8E4M3FN || t == DType::Fp8E5M2; };
  auto fp4 = [](DType t) { return t == DType::Fp4E2M1 || t == DType::Fp4E1M2; };
  return (fp8(a) && fp8(b)) || (fp4(a) && fp4(b));
}

std::uint64_t mxOperandAlignment(DType t) {
  return bitsOf(t) == 4 ? 512 : 1024;
}

// Spec 8.1.4: one 32-byte E8M0 fractal (16 rows of 2 scales) per 16 rows of M (columns of N) and
// 64 elements of K.
std::uint64_t mxAScaleBytes(const MmadMx& x) {
  return ceilDiv(x.m, 16) * (x.k / 64) * 32;
}

std::uint64_t mxBScaleBytes(const MmadMx& x) {
  return ceilDiv(x.n, 16) * (x.k / 64) * 32;
}

std::optional<Violation> validate(const Profile& profile, const MmadMx& x) {
  if (profile.id != ProfileId::Ascend950) {
    return Violation{ViolationCode::PathUnsupported, "MmadMx exists on 950 only (spec 8.1)"};
  }
  const DType bType = bTypeOf(x);
  if (!isMxPair(x.dtype, bType)) {
    return Violation{ViolationCode::DTypeUnsupported,
                     "MmadMx of " + std::string(nameOf(x.dtype)) + " x " +
                         std::string(nameOf(bType)) +
                         ": both fp8 (e4m3fn/e5m2) or both fp4x2 (e2m1/e1m2) (spec 8.1.2)"};
  }
  if (x.cDtype != DType::F32) {
    return Violation{ViolationCode::DTypeUnsupported,
                     "MmadMx into " + std::string(nameOf(x.cDtype)) +
                         ": C is f32 for every MX pair (spec 8.1.2)"};
  }
  if (x.m > 4095 || x.k > 4095 || x.n > 4095) {
    return Violation{ViolationCode::Range, "m/k/n " + std::to_string(x.m) + "/" +
                                               std::to_string(x.k) + "/" + std::to_string(x.n) +
                                               " above 4095"};
  }
  if (x.k % 64 != 0) {
    return Violation{ViolationCode::Range,
                     "MmadMx k " + std::to_string(x.k) + " not a multiple of 64 (spec 8.1.2)"};
  }
  if (x.unitFlag != 0 && x.unitFlag != 2 && x.unitFlag != 3) {
    return Violation{ViolationCode::Range,
                     "unit_flag " + std::to_string(x.unitFlag) + " is not 0, 2 or 3"};
  }
  if (x.m == 0 || x.k == 0 || x.n == 0) return std::nullopt;  // a no-op touches nothing
  for (auto [addr, t, what] :
       {std::tuple{x.aAddr, x.dtype, "A"}, std::tuple{x.bAddr, bType, "B"}}) {
    const std::uint64_t align = mxOperandAlignment(t);
    if (addr % align != 0) {
      return Violation{ViolationCode::Alignment, std::string("MmadMx ") + what + " " +
                                                     std::to_string(addr) + " not " +
                                                     std::to_string(align) + "-B aligned (" +
                                                     std::string(nameOf(t)) + ", spec 8.1.2)"};
    }
  }
  // Mmad's footprints and bias rules (spec 8.1: section 8 applies), from the same counts.
  const Mmad plain = operandsOf(x);
  if (auto v = fits(profile, Memory::L0A, x.aAddr, mmadABytes(profile.id, plain), "A")) return v;
  if (auto v = fits(profile, Memory::L0B, x.bAddr, mmadBBytes(plain), "B")) return v;
  if (auto v = fits(profile, Memory::L0C, x.cAddr, mmadCBytes(plain), "C")) return v;
  if (auto v = biasFits(profile, plain)) return v;
  if (auto v = fits(profile, Memory::L0AMx, x.aAddr / 16, mxAScaleBytes(x), "A scales")) return v;
  if (auto v = fits(profile, Memory::L0BMx, x.bAddr / 16, mxBScaleBytes(x), "B scales")) return v;
  return std::nullopt;
}

std::string describe(const MmadMx& x) {
  std::ostringstream os;
  os << "MmadMx " << nameOf(x.dtype) << " x " << nameOf(bTypeOf(x)) << " -> " << nameOf(x.cDtype)
     << " c=" << x.cAddr << " a=" << x.aAddr << " b=" << x.bAddr << " m=" << x.m << " k=" << x.k
     << " n=" << x.n << " unit_flag=" << int{x.unitFlag} << " cmatrix_source=" << x.cmatrixSource
     << " cmatrix_init_val=" << x.cmatrixInitVal << " is_bias=" << x.isBias
     << " bias=" << x.biasAddr;
  return os.str();
}

std::optional<Violation> validate(const Profile& profile, const SetHiF8Mode&) {
  if (profile.id != ProfileId::Ascend950) {
    return Violation{ViolationCode::PathUnsupported,
                     "CTRL[45] HiF8 mode exists on 950 only (spec 8.1.5)"};
  }
  return std::nullopt;
}

std::string describe(const SetHiF8Mode& x) {
  return "SetCtrlSpr CTRL[45] HiF8 mode " + std::string(x.enable ? "on" : "off");
}

std::string describe(const SetHF32& x) {
  return "SetHF32Mode " + std::string(x.enable ? "on" : "off") + " trans_mode " +
         std::to_string(x.transMode);
}

}  // namespace cubecheck::isa
