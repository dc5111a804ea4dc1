#include "isa/profile.hpp"

namespace cubecheck::isa {
namespace {

constexpr std::uint64_t KiB = 1024;
// GM is a 48-bit address space (spec 1): every byte an access touches has an address in
// 0..2^48-1, the range of an address field, so an access ends at 2^48 at the latest.
constexpr std::uint64_t kGmBytes = std::uint64_t{1} << 48;

// Order of the arrays: GM, L1, L0A, L0B, L0C, BiasTable, SparseIndex, L0AMx, L0BMx.
// Alignment (spec 1): L0A/L0B 512 B, L0C 1024 B, L1 32 B, GM 1 B; the bias table, the index
// buffer and the MX scale buffers are reached only through their instructions, which carry their
// own rules (the MX scale loads document 32 B).
constexpr std::array<std::uint64_t, kMemoryCount> kAlignment{1,  32,  512, 512, 1024,
                                                             64, 128, 32,  32};

// a2 capacities: spec 1. Sparse index buffer = L0B / 4 (OPEN-4).
constexpr Profile kA2{ProfileId::A2,
                      "a2",
                      {kGmBytes, 512 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 1 * KiB, 16 * KiB, 0, 0},
                      kAlignment,
                      false};
// 950: spec 1 (defaults to confirm). No sparse index buffer: the 3510 removed 4:2 sparsity. The
// MX scale buffers L0A_MX / L0B_MX are addressed at L0A / L0B address / 16 (spec 8.1.4), so they
// span 1/16 of L0A / L0B: 4 KiB each (inferred; docs/spec.md, MmadMx).
constexpr Profile k950{
    ProfileId::Ascend950,
    "950",
    {kGmBytes, 512 * KiB, 64 * KiB, 64 * KiB, 256 * KiB, 1 * KiB, 0, 4 * KiB, 4 * KiB},
    kAlignment,
    true};
// legacy: the spec gives no figures; the a2 ones are used until a DUT declares otherwise
// (docs/decisions.md, Profiles).
constexpr Profile kLegacy{ProfileId::Legacy,
                          "legacy",
                          {kGmBytes, 512 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 1 * KiB, 0, 0, 0},
                          kAlignment,
                          false};

}  // namespace

bool Profile::hasDType(DType t) const {
  switch (t) {
    case DType::Fp8E5M2:
    case DType::Fp8E4M3FN:
    case DType::HiF8:
    case DType::Fp4E2M1:
    case DType::Fp4E1M2:
      return id == ProfileId::Ascend950;
    default:
      return true;
  }
}

const Profile& profile(ProfileId id) {
  switch (id) {
    case ProfileId::A2:
      return kA2;
    case ProfileId::Ascend950:
      return k950;
    case ProfileId::Legacy:
      return kLegacy;
  }
  return kA2;
}

std::optional<ProfileId> parseProfile(std::string_view name) {
  for (ProfileId id : kAllProfiles) {
    if (profile(id).name == name) return id;
  }
  return std::nullopt;
}

}  // namespace cubecheck::isa
