// The instruction families the suite certifies.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "conformance/property.hpp"
#include "generators/common.hpp"
#include "generators/sparse.hpp"
#include "isa/profile.hpp"

namespace cubecheck::conf {

/// Family names used across the project (reports, vector files, --family).
inline constexpr std::array<std::string_view, 11> kFamilyNames{
    "load2d",      "load2d_v2", "load2d_bitmode", "load3d_v1",   "load3d_v2", "load3d_v2pro",
    "load_sparse", "mmad",      "mmad_lowprec",   "mmad_sparse", "pipeline"};

/// Whether this version of the suite has the family's properties at all.
bool isImplemented(std::string_view family);

/// The family's properties on `profile`; nullopt when not implemented in this version.
/// `sizes` steers the families whose generators draw sizes (`--sizes`).
std::optional<Family> makeFamily(std::string_view family, isa::ProfileId profile,
                                 gen::Sizes sizes = gen::Sizes::Mixed);

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

/// Whole-pipeline programs and their metamorphic relations; NotSupported on legacy.
Family pipelineFamily(isa::ProfileId profile, gen::Sizes sizes = gen::Sizes::Mixed);

/// LoadDataWithSparse (spec 7.3); NotSupported off a2.
Family loadSparseFamily(isa::ProfileId profile);

/// The sparse pipeline, LoadDataWithSparse then MmadWithSparse (spec 7.4); NotSupported off a2.
Family mmadSparseFamily(isa::ProfileId profile, gen::Sizes sizes = gen::Sizes::Mixed);

/// The MatchesOracle check of mmad_sparse: the case's program (B packed by the case's
/// compressor) against C = init + A * B' from its logical operands.
Verdict checkSparsePipeline(dut::Dut& dut, const gen::SparseMmadCase& c);

}  // namespace cubecheck::conf
