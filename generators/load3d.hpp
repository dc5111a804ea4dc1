// Generators for LoadData 3D (img2col; spec 6): V2 and V2Pro on a2 and 950, V1 on legacy.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "isa/load3d.hpp"
#include "isa/program.hpp"

namespace cubecheck::gen {

/// Where the load's l1/pads/pad value come from (spec 6.2).
enum class RegisterSource : std::uint8_t {
  Params,       ///< is_set_fmatrix/is_set_padding: the call writes its own fields first
  Preset,       ///< SetFmatrix/SetLoadDataPaddingValue earlier; the call's fields are decoys
  FmatrixB,     ///< f_matrix_ctrl = 1 reads FMATRIX_B; the call still writes FMATRIX (decoys)
  EarlierLoad,  ///< an earlier V2 load wrote the registers; this one's fields are decoys
  /// is_set_padding alone: FMATRIX preset, PADDING a stale decoy the call's own pad value
  /// replaces; the call's l1 and pads are decoys
  PaddingOnly,
  /// is_set_fmatrix alone: PADDING preset, FMATRIX a stale decoy the call's own l1 and pads
  /// replace; the call's pad value is a decoy
  FmatrixOnly,
};
std::string_view nameOf(RegisterSource r);

/// One img2col load: the feature map geometry (FMATRIX), pad value, the load's fields, and how
/// the registers get their values. The same case runs as V2 or as V2Pro.
struct Load3DCase {
  isa::ProfileId profile = isa::ProfileId::A2;
  isa::Load3DV2 load;  ///< l1/pads/pad value here are the real ones (decoys are derived)
  RegisterSource registers = RegisterSource::Params;
  std::uint64_t contentSeed = 0;
  std::string why;
};
std::ostream& operator<<(std::ostream& os, const Load3DCase& c);

/// The register sources that rest on IsResetLoad3dConfig's flags (Params, PaddingOnly,
/// FmatrixOnly), which V2Pro does not have.
bool usesResetFlags(RegisterSource r);
/// The source the case's load runs with: the drawn one for V2; for V2Pro, which always reads the
/// registers, Preset where the drawn one uses the reset flags.
RegisterSource registersOf(const Load3DCase& c, bool asV2Pro);

/// The feature map (with 32 bytes of margin) in L1, the destination with a fractal of canary on
/// each side, register set-up instructions, the load (as V2 or V2Pro), the destination observed.
isa::Program buildProgram(const Load3DCase& c, bool asV2Pro);
std::vector<std::string> tagsOf(const Load3DCase& c);

rc::Gen<Load3DCase> legalLoad3D(isa::ProfileId profile);
std::vector<Load3DCase> load3DBoundaries(isa::ProfileId profile);

struct IllegalLoad3DCase {
  Load3DCase c;
  bool asV2Pro = false;
  isa::LoadData3DParamsV2Pro pro;  ///< the V2Pro words when asV2Pro (may carry illegal bits)
  isa::ViolationCode expected = isa::ViolationCode::Range;
  /// The program drops its set_fmatrix/set_padding, so the load reads a register the program
  /// never wrote (dut-protocol.md: unset at `program`; UndefinedMemory).
  bool registerUnwritten = false;
  /// With registerUnwritten: sent just after the same program with its writes (programsBefore),
  /// so a DUT whose registers survive from one program to the next runs it.
  bool afterWriter = false;
};
std::ostream& operator<<(std::ostream& os, const IllegalLoad3DCase& c);
rc::Gen<IllegalLoad3DCase> illegalLoad3D(isa::ProfileId profile, bool asV2Pro);
/// The table of illegal loads that read a register the program never wrote: FMATRIX with
/// PADDING, and (V2) FMATRIX_B, each alone and right after a program that wrote them.
std::vector<IllegalLoad3DCase> unwrittenRegisterCases(isa::ProfileId profile, bool asV2Pro);
isa::Program buildProgram(const IllegalLoad3DCase& c);
/// The legal programs sent to the same DUT just before the case's (VectorCase::before).
std::vector<isa::Program> programsBefore(const IllegalLoad3DCase& c);
std::vector<std::string> tagsOf(const IllegalLoad3DCase& c);

/// V1 (legacy, provisional).
struct Load3DV1Case {
  isa::ProfileId profile = isa::ProfileId::Legacy;
  isa::Load3DV1 load;
  std::uint16_t c1 = 1;  ///< C1 slices of the feature map in L1
  std::uint64_t contentSeed = 0;
  std::string why;
};
std::ostream& operator<<(std::ostream& os, const Load3DV1Case& c);
isa::Program buildProgram(const Load3DV1Case& c);
std::vector<std::string> tagsOf(const Load3DV1Case& c);
rc::Gen<Load3DV1Case> legalLoad3DV1();
std::vector<Load3DV1Case> load3DV1Boundaries();

struct IllegalLoad3DV1Case {
  Load3DV1Case c;
  isa::ViolationCode expected = isa::ViolationCode::Range;
};
std::ostream& operator<<(std::ostream& os, const IllegalLoad3DV1Case& c);
rc::Gen<IllegalLoad3DV1Case> illegalLoad3DV1();

std::vector<isa::DType> load3dDTypes(isa::Load2DPath path);

}  // namespace cubecheck::gen
