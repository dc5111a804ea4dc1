// Chip profiles (spec 1): which instructions exist, buffer capacities and alignment.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "isa/dtype.hpp"
#include "isa/memory.hpp"

namespace cubecheck::isa {

enum class ProfileId : std::uint8_t {
  A2,         ///< Atlas A2/A3, arch 2201
  Ascend950,  ///< Ascend 950PR/DT, arch 3510
  Legacy,     ///< Atlas training/inference (910, 310P): the only home of LoadData 3D V1
};

inline constexpr std::array kAllProfiles{ProfileId::A2, ProfileId::Ascend950, ProfileId::Legacy};

/// Capacities and alignment of one profile. Spec 1 gives these as defaults to confirm; they are
/// data here so a DUT that declares other figures can be reported against them.
struct Profile {
  ProfileId id;
  std::string_view name;  ///< "a2", "950", "legacy"
  /// Bytes per memory, indexed by Memory. GM's is its 48-bit address space, 2^48 bytes.
  std::array<std::uint64_t, kMemoryCount> capacity;
  /// Start-address alignment in bytes for data-movement destinations and sources, by Memory.
  std::array<std::uint64_t, kMemoryCount> alignment;
  bool l0aIsNz;  ///< L0A layout: Zz on a2 and legacy, Nz on 950 (spec 1)

  std::uint64_t capacityOf(Memory m) const { return capacity[static_cast<std::size_t>(m)]; }
  std::uint64_t alignmentOf(Memory m) const { return alignment[static_cast<std::size_t>(m)]; }
  /// Whether the profile has the data type at all (fp8/hif8/fp4 exist only on 950).
  bool hasDType(DType t) const;
};

const Profile& profile(ProfileId id);
std::optional<ProfileId> parseProfile(std::string_view name);

}  // namespace cubecheck::isa
