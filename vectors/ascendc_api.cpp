#include "vectors/ascendc_api.hpp"

#include <algorithm>

namespace cubecheck::vec {

namespace {

using isa::DType;
using isa::ProfileId;

constexpr DType U8 = DType::U8, S8 = DType::S8, U16 = DType::U16, S16 = DType::S16,
                F16 = DType::F16, BF16 = DType::BF16, U32 = DType::U32, S32 = DType::S32,
                F32 = DType::F32, S4 = DType::S4, E5M2 = DType::Fp8E5M2, E4M3 = DType::Fp8E4M3FN,
                HIF8 = DType::HiF8, FP4A = DType::Fp4E2M1, FP4B = DType::Fp4E1M2;

}  // namespace

const std::vector<AscendcArch>& ascendcArchs() {
  static const std::vector<AscendcArch> all{
      {ProfileId::A2, 2201, "dav-2201", "CCK_ARCH_A2"},
      {ProfileId::Ascend950, 3510, "dav-3510", "CCK_ARCH_950"},
  };
  return all;
}

const AscendcArch* ascendcArch(ProfileId profile) {
  for (const AscendcArch& a : ascendcArchs()) {
    if (a.profile == profile) return &a;
  }
  return nullptr;
}

// The type lists of the API pages (LoadData 2D/V2/bit mode, Load3D, SetLoadDataPaddingValue,
// LoadDataWithSparse, MmadWithSparse, Mmad), per architecture.
const std::vector<ApiTypeList>& apiTypeLists() {
  // The lists the pages share: the 2D load's nine types, the 950's V2 / bit-mode twelve, the
  // 950's Load3D ten (a2's Load3D lists are narrower), the padding register's nine.
  const std::vector<DType> load2d{U8, S8, U16, S16, F16, BF16, U32, S32, F32};
  const std::vector<DType> v2{S8, U8, FP4A, FP4B, HIF8, E5M2, E4M3, F16, BF16, S32, U32, F32};
  const std::vector<DType> load3d950{S8, U8, HIF8, E5M2, E4M3, F16, BF16, S32, U32, F32};
  const std::vector<DType> padding{S8, U8, S16, U16, F16, BF16, S32, U32, F32};
  std::vector<DType> load2dA2L1 = load2d;
  load2dA2L1.insert(load2dA2L1.begin(), S4);  // int4b_t: L1 -> L0A/L0B only
  static const std::vector<ApiTypeList> all{
      {"CCK_LOAD2D_GM_TYPES", ProfileId::A2, "LoadData(GlobalTensor, LoadData2DParams)", load2d},
      {"CCK_LOAD2D_L1_TYPES", ProfileId::A2, "LoadData(LocalTensor, LoadData2DParams)", load2dA2L1},
      {"CCK_LOAD2D_L1_TYPES", ProfileId::Ascend950, "LoadData(LocalTensor, LoadData2DParams)",
       load2d},
      {"CCK_LOAD2D_V2_GM_TYPES", ProfileId::Ascend950, "LoadData(GlobalTensor, LoadData2DParamsV2)",
       v2},
      {"CCK_LOAD2D_V2_L1_TYPES", ProfileId::Ascend950, "LoadData(LocalTensor, LoadData2DParamsV2)",
       v2},
      {"CCK_LOAD2D_BITMODE_TYPES", ProfileId::Ascend950, "LoadData(Load2DBitModeParam)", v2},
      {"CCK_LOAD3D_A_TYPES",
       ProfileId::A2,
       "LoadData(LoadData3DParamsV2) to A2",
       {S4, S8, U8, F16, BF16, S32, U32, F32}},
      {"CCK_LOAD3D_B_TYPES",
       ProfileId::A2,
       "LoadData(LoadData3DParamsV2) to B2",
       {F16, BF16, S32, U32, F32}},
      {"CCK_LOAD3D_A_TYPES", ProfileId::Ascend950, "LoadData(LoadData3DParamsV2) to A2", load3d950},
      {"CCK_LOAD3D_B_TYPES", ProfileId::Ascend950, "LoadData(LoadData3DParamsV2) to B2", load3d950},
      {"CCK_LOAD3D_PRO_TYPES", ProfileId::Ascend950, "LoadData(LoadData3DParamsV2Pro)", load3d950},
      {"CCK_PADDING_TYPES", ProfileId::A2, "SetLoadDataPaddingValue", padding},
      {"CCK_PADDING_TYPES", ProfileId::Ascend950, "SetLoadDataPaddingValue", padding},
      {"CCK_SPARSE_LOAD_TYPES", ProfileId::A2, "LoadDataWithSparse", {S8}},
      {"CCK_SPARSE_MMAD_TYPES", ProfileId::A2, "MmadWithSparse", {S8}},
  };
  return all;
}

std::vector<MmadPair> mmadPairs(ProfileId profile) {
  if (profile == ProfileId::A2) {
    return {{S8, S8, S32, true},
            {F16, F16, F32, true},
            {F32, F32, F32, true},
            {BF16, BF16, F32, true},
            {S4, S4, S32, false}};
  }
  if (profile == ProfileId::Ascend950) {
    return {{S8, S8, S32, true},     {F16, F16, F32, true},   {F32, F32, F32, true},
            {BF16, BF16, F32, true}, {E4M3, E4M3, F32, true}, {E4M3, E5M2, F32, true},
            {E5M2, E4M3, F32, true}, {E5M2, E5M2, F32, true}, {HIF8, HIF8, F32, true}};
  }
  return {};
}

std::vector<MmadPair> mxPairs(ProfileId profile) {
  if (profile != ProfileId::Ascend950) return {};
  std::vector<MmadPair> out;
  for (DType a : {FP4B, FP4A, E4M3, E5M2}) {
    for (DType b : {FP4B, FP4A, E4M3, E5M2}) {
      if (isa::bitsOf(a) == isa::bitsOf(b)) out.push_back({a, b, F32, true});
    }
  }
  return out;
}

std::string_view ascendcTypeName(DType t) {
  switch (t) {
    case DType::U8:
      return "uint8_t";
    case DType::S8:
      return "int8_t";
    case DType::U16:
      return "uint16_t";
    case DType::S16:
      return "int16_t";
    case DType::F16:
      return "half";
    case DType::BF16:
      return "bfloat16_t";
    case DType::U32:
      return "uint32_t";
    case DType::S32:
      return "int32_t";
    case DType::F32:
      return "float";
    case DType::S4:
      return "AscendC::int4b_t";
    case DType::Fp8E5M2:
      return "fp8_e5m2_t";
    case DType::Fp8E4M3FN:
      return "fp8_e4m3fn_t";
    case DType::HiF8:
      return "hifloat8_t";
    case DType::Fp4E2M1:
      return "fp4x2_e2m1_t";
    case DType::Fp4E1M2:
      return "fp4x2_e1m2_t";
  }
  return "?";
}

namespace {

bool fromGm(isa::Load2DPath p) {
  return isa::srcOf(p) == isa::Position::GM;
}

/// The type list macro the kernel dispatches this instruction through; empty when it has no
/// element type of its own (register setters) and "-" when no documented call exists.
std::string_view macroOf(const isa::Instruction& ins) {
  return std::visit(
      isa::Overloaded{
          [](const isa::Load2D& x) -> std::string_view {
            return fromGm(x.path) ? "CCK_LOAD2D_GM_TYPES" : "CCK_LOAD2D_L1_TYPES";
          },
          [](const isa::LoadV2& x) -> std::string_view {
            return fromGm(x.path) ? "CCK_LOAD2D_V2_GM_TYPES" : "CCK_LOAD2D_V2_L1_TYPES";
          },
          [](const isa::LoadBitMode&) -> std::string_view { return "CCK_LOAD2D_BITMODE_TYPES"; },
          [](const isa::Load3DV2& x) -> std::string_view {
            return isa::dstOf(x.path) == isa::Position::B2 ? "CCK_LOAD3D_B_TYPES"
                                                           : "CCK_LOAD3D_A_TYPES";
          },
          [](const isa::Load3DV2Pro&) -> std::string_view { return "CCK_LOAD3D_PRO_TYPES"; },
          [](const isa::SetPadding&) -> std::string_view { return "CCK_PADDING_TYPES"; },
          [](const isa::LoadSparse&) -> std::string_view { return "CCK_SPARSE_LOAD_TYPES"; },
          [](const isa::MmadSparse&) -> std::string_view { return "CCK_SPARSE_MMAD_TYPES"; },
          [](const isa::Load3DV1&) -> std::string_view { return "-"; },
          [](const auto&) -> std::string_view { return ""; }},
      ins);
}

std::string typeNames(const std::vector<DType>& types) {
  std::string s;
  for (DType t : types) s += (s.empty() ? "" : " ") + std::string(isa::nameOf(t));
  return s;
}

}  // namespace

std::string apiGap(ProfileId profile, const isa::Instruction& ins) {
  const AscendcArch* arch = ascendcArch(profile);
  const std::string opcode(isa::opcodeOf(ins));
  if (arch == nullptr) {
    return "profile " + std::string(isa::profile(profile).name) +
           " is not a target of the Ascend C export (dav-2201 and dav-3510 only)";
  }
  const std::string archName(arch->ascArch);
  if (const auto* m = std::get_if<isa::Mmad>(&ins)) {
    for (const MmadPair& p : mmadPairs(profile)) {
      if (p.a != m->dtype || p.b != isa::bTypeOf(*m)) continue;
      if (m->isBias && !p.bias) {
        return "Mmad with a bias tensor takes no " + std::string(isa::nameOf(p.a)) + " on " +
               archName;
      }
      return {};
    }
    return "Mmad on " + archName + " takes no " + std::string(isa::nameOf(m->dtype)) + " x " +
           std::string(isa::nameOf(isa::bTypeOf(*m))) + " pair";
  }
  if (const auto* x = std::get_if<isa::MmadMx>(&ins)) {
    for (const MmadPair& p : mxPairs(profile)) {
      if (p.a == x->dtype && p.b == isa::bTypeOf(*x) && p.c == x->cDtype) return {};
    }
    return "asc_mmad_mx on " + archName + " takes no " + std::string(isa::nameOf(x->dtype)) +
           " x " + std::string(isa::nameOf(isa::bTypeOf(*x))) + " pair";
  }
  if (std::holds_alternative<isa::LoadMxScale>(ins) && profile != ProfileId::Ascend950) {
    return "asc_copy_l12l0a_mx / asc_copy_l12l0b_mx are dav-3510 calls";
  }
  if (std::holds_alternative<isa::SetHiF8Mode>(ins) && profile != ProfileId::Ascend950) {
    return "SetCtrlSpr<45, 45> (HiF8 mode) is a dav-3510 register";
  }
  const std::string_view macro = macroOf(ins);
  if (macro.empty()) return {};
  if (macro == "-") return opcode + " has no documented call on " + archName;
  const auto& lists = apiTypeLists();
  const auto it = std::find_if(lists.begin(), lists.end(), [&](const ApiTypeList& l) {
    return l.macro == macro && l.profile == profile;
  });
  if (it == lists.end()) {
    return opcode + " has no documented call on " + archName;
  }
  const std::optional<DType> t = isa::dtypeOf(ins);
  if (t && std::find(it->types.begin(), it->types.end(), *t) == it->types.end()) {
    return std::string(it->call) + " on " + archName + " takes " + typeNames(it->types) + ", not " +
           std::string(isa::nameOf(*t));
  }
  return {};
}

}  // namespace cubecheck::vec
