// The Ascend C calls the exported board kernel makes, and the element types each documented call
// takes on each architecture. One table serves both the export (a case whose instruction has no
// documented call for its type is left out, with that reason) and the kernel (the generated
// cubecheck_layout.h instantiates exactly these types), so the two cannot disagree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "isa/program.hpp"

namespace cubecheck::vec {

/// The profiles the exported kernel targets, with the vendor's architecture names.
struct AscendcArch {
  isa::ProfileId profile;
  int npuArch;                 ///< __NPU_ARCH__: 2201 (Atlas A2/A3), 3510 (Ascend 950)
  std::string_view ascArch;    ///< CMAKE_ASC_ARCHITECTURES: "dav-2201", "dav-3510"
  std::string_view macroName;  ///< CCK_ARCH_A2 / CCK_ARCH_950
};
const std::vector<AscendcArch>& ascendcArchs();
const AscendcArch* ascendcArch(isa::ProfileId profile);

/// One documented call and the element types it takes on one architecture.
struct ApiTypeList {
  std::string_view macro;  ///< the X-macro of cubecheck_layout.h listing the types
  isa::ProfileId profile;
  std::string_view call;  ///< how the kernel calls it, as reasons name it
  std::vector<isa::DType> types;
};
const std::vector<ApiTypeList>& apiTypeLists();

/// A pair of Mmad operand types the documented Mmad takes, its accumulator type, and whether the
/// overload with a bias tensor takes it too.
struct MmadPair {
  isa::DType a;
  isa::DType b;
  isa::DType c;
  bool bias;
};
std::vector<MmadPair> mmadPairs(isa::ProfileId profile);

/// The pairs asc_mmad_mx takes (dav-3510 only; C and the bias are f32 for all of them).
std::vector<MmadPair> mxPairs(isa::ProfileId profile);

/// The Ascend C type name of an element type ("half", "AscendC::int4b_t", ...).
std::string_view ascendcTypeName(isa::DType t);

/// Why the exported kernel cannot run this instruction on the profile (no documented call, or
/// not for its element type or path); empty when it can.
std::string apiGap(isa::ProfileId profile, const isa::Instruction& instruction);

}  // namespace cubecheck::vec
