// The instruction families the suite certifies.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "conformance/checks.hpp"
#include "conformance/property.hpp"
#include "generators/common.hpp"
#include "generators/sparse.hpp"
#include "isa/profile.hpp"

namespace cubecheck::conf {

/// A family's NoStrayWrites property: the programs `build` makes of drawn cases, each given and
/// observed in whole memories (wholeMemories), compared outside what their instructions write.
template <class T, class Build>
std::unique_ptr<Property> noStrayWrites(rc::Gen<T> gen, int cases, Build build) {
  return std::make_unique<TypedProperty<T>>(
      "NoStrayWrites", kNoStrayWritesClaim, std::vector<T>{}, std::move(gen), cases,
      [build](dut::Dut& d, const T& c) {
        return checkAgainstOracle(d, wholeMemories(build(c)), /*strayOnly=*/true);
      },
      [](const T&) { return std::vector<std::string>{kWholeMemoryTag}; });
}

/// LoadData with LoadData2DParams (spec 4).
Family load2dFamily(isa::ProfileId profile);

/// LoadData with LoadData2DParamsV2 (spec 5); NotSupported off 950.
Family load2dV2Family(isa::ProfileId profile);

/// LoadData with Load2DBitModeParam (spec 5); NotSupported off 950.
Family load2dBitModeFamily(isa::ProfileId profile);

/// LoadData 3D V2 (spec 6.1, 6.2); NotSupported on legacy.
Family load3dV2Family(isa::ProfileId profile);

/// LoadData 3D V2Pro (spec 6.3); NotSupported on legacy.
Family load3dV2ProFamily(isa::ProfileId profile);

/// LoadData 3D V1 (spec 6.4, provisional); legacy only.
Family load3dV1Family(isa::ProfileId profile);

/// Dense Mmad (spec 8, 9); NotSupported on legacy.
Family mmadFamily(isa::ProfileId profile, gen::Sizes sizes = gen::Sizes::Mixed);

/// Low-precision Mmad on 950: the fp8 pairs and hif8 x hif8 (spec 8.1); NotSupported off 950.
Family mmadLowPrecisionFamily(isa::ProfileId profile, gen::Sizes sizes = gen::Sizes::Mixed);

/// MmadMx on 950: fp8 and fp4 pairs with E8M0 scales (spec 8.1); NotSupported off 950.
Family mmadMxFamily(isa::ProfileId profile, gen::Sizes sizes = gen::Sizes::Mixed);

/// Whole-pipeline programs and their metamorphic relations; NotSupported on legacy.
Family pipelineFamily(isa::ProfileId profile, gen::Sizes sizes = gen::Sizes::Mixed);

/// LoadDataWithSparse (spec 7.3); NotSupported off a2.
Family loadSparseFamily(isa::ProfileId profile);

/// The sparse pipeline, LoadDataWithSparse then MmadWithSparse (spec 7.4); NotSupported off a2.
Family mmadSparseFamily(isa::ProfileId profile, gen::Sizes sizes = gen::Sizes::Mixed);

/// The MatchesOracle check of mmad_sparse: the case's program (B packed by the case's
/// compressor) against C = init + A * B' from its logical operands.
Verdict checkSparsePipeline(dut::Dut& dut, const gen::SparseMmadCase& c);

/// A family's maker: its properties on a profile, with `sizes` for those that draw sizes.
using FamilyMaker = Family (*)(isa::ProfileId, gen::Sizes);

/// The family table: every family the suite certifies, once, in report order. Names are used
/// across the project (reports, vector files, --family); makeFamily sets Family::name from here,
/// so a family is added by writing its maker and one row.
struct FamilyRow {
  std::string_view name;
  FamilyMaker make;
};
inline constexpr FamilyRow kFamilies[] = {
    {"load2d", [](isa::ProfileId p, gen::Sizes) { return load2dFamily(p); }},
    {"load2d_v2", [](isa::ProfileId p, gen::Sizes) { return load2dV2Family(p); }},
    {"load2d_bitmode", [](isa::ProfileId p, gen::Sizes) { return load2dBitModeFamily(p); }},
    {"load3d_v1", [](isa::ProfileId p, gen::Sizes) { return load3dV1Family(p); }},
    {"load3d_v2", [](isa::ProfileId p, gen::Sizes) { return load3dV2Family(p); }},
    {"load3d_v2pro", [](isa::ProfileId p, gen::Sizes) { return load3dV2ProFamily(p); }},
    {"load_sparse", [](isa::ProfileId p, gen::Sizes) { return loadSparseFamily(p); }},
    {"mmad", &mmadFamily},
    {"mmad_lowprec", &mmadLowPrecisionFamily},
    {"mmad_mx", &mmadMxFamily},
    {"mmad_sparse", &mmadSparseFamily},
    {"pipeline", &pipelineFamily},
};

/// The names of kFamilies, in its order.
inline constexpr auto kFamilyNames = [] {
  std::array<std::string_view, std::size(kFamilies)> names{};
  for (std::size_t i = 0; i < names.size(); ++i) names[i] = kFamilies[i].name;
  return names;
}();

/// Whether this version of the suite has the family (a row of kFamilies).
bool isImplemented(std::string_view family);

/// The family's properties on `profile`, named from its row; nullopt for a name with no row.
/// `sizes` steers the families whose generators draw sizes (`--sizes`).
std::optional<Family> makeFamily(std::string_view family, isa::ProfileId profile,
                                 gen::Sizes sizes = gen::Sizes::Mixed);

}  // namespace cubecheck::conf
